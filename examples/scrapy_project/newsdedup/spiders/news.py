"""A spider that follows every link of a site and yields one item per article page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import scrapy
from scrapy.http import Response


class NewsSpider(scrapy.Spider):
    """``scrapy crawl news -a start_url=URL [-a part=I/N]``.

    Pages are followed in the order the start page lists them.  ``part=I/N``
    keeps every N-th listed page starting at the I-th (0-based): N processes
    with parts 0/N ... N-1/N crawl one site together, sharing one Redis index.
    """

    name = "news"

    def __init__(self, start_url: str = "http://127.0.0.1:8000/", part: str = "0/1", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = [start_url]
        index, _, count = part.partition("/")
        self.part, self.parts = int(index), int(count or 1)

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        article = response.css("article").get()
        if article is not None:
            yield {
                "url": response.url,
                "title": response.css("title::text").get(),
                "content": article,  # raw HTML: nshash strips the tags
                # The sample site marks each page's article; real sites do not.
                "label": response.css('meta[name="label"]::attr(content)').get(),
            }
        links = response.css("a::attr(href)").getall()
        if article is None:  # a listing page: split it between the crawl's parts, keep its order
            links = links[self.part :: self.parts]
        elif self.parts > 1:  # an article's links lead to other parts' pages
            return
        for position, link in enumerate(links):
            yield response.follow(link, priority=-position)
