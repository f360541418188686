"""Markdown's links, images and marks (nshash/markdown.py): a page as a Markdown-writing crawler stores it is
the same article as its text and its HTML."""

from __future__ import annotations

import random
import textwrap

import pytest

import nshash
from nshash.fingerprint import Fingerprinter
from nshash.markdown import strip_links, strip_quotes, strip_url_lines
from nshash.options import Options
from nshash.text import strip_html
from tests.pages import make_site, page, paragraph

STORY = (
    "The river floods every spring, and the town has moved twice since the bridge was built. "
    "Its mayor says the third move will be the last, because the new houses stand on the hill. "
    "The farmers who stayed by the water plant rice now, which the floods do not harm."
)
OTHER = (
    "A bakery near the port opens at night for the workers of the late shift and closes at dawn. "
    "Its owner learned the trade from her grandmother, who baked for the fishermen of the bay. "
    "The bread is sold out by four in the morning, and the queue starts before midnight."
)
MENU = "\n".join(f"  * [{item}](https://news.example.com/{item.lower()}/)" for item in ("World", "Politics", "Sport"))


def as_markdown(story: str, title: str) -> str:
    """A page as html2text writes it: a linked logo, a menu of links, a heading, emphasis and inline links."""
    first, second, third = (sentence + "." for sentence in story.rstrip(".").split(". "))
    first = first.replace("river", '[river](https://maps.example.com/river_(north) "The river")', 1)
    second = second.replace("mayor", "**mayor**", 1)
    return (
        "[![Example News](https://news.example.com/logo.png)](https://news.example.com/)\n\n"
        f"{MENU}\n\n# {title}\n\n![A photo of the story](https://img.example.com/1.jpg)\n\n"
        f"{first} {second}\n\n{third} Read `more` in [our archive](https://news.example.com/archive).\n"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a [link](https://example.com/) here", "a link here"),
        ('[the manual](https://example.com/a_(b) "Manual")', "the manual"),
        ("[quick navigation](javascript:void\\(0\\);)", "quick navigation"),
        ("see ![a logo](logo.png) here", "see  here"),
        ("[![logo](a.png)](/) [x](/y)", " x"),
        ("[1] and [x] (y) and (z) stay", "[1] and [x] (y) and (z) stay"),
        ("[a link\nover two lines](https://example.com/)", "a link\nover two lines"),
        ("[text](a url with spaces)", "[text](a url with spaces)"),
        ('[text](url "title)', '[text](url "title)'),
        ("[a [b](u)", "[a b"),
    ],
)
def test_links_keep_their_text_and_images_go(text: str, expected: str) -> None:
    assert strip_links(text) == expected
    assert strip_html(text) == expected


def test_the_marks_go_from_a_page_with_a_link_or_an_image_only() -> None:
    marked = "# A **bold** `code` ~~gone~~ word"
    assert strip_html(f"{marked} [link](/a)") == " A bold code gone word link"
    assert strip_html(f"{marked} ![image](/a.png)") == " A bold code gone word "
    assert strip_html(f"{marked} [not a link] (/a)") == f"{marked} [not a link] (/a)"
    assert strip_html("struct sk_buff *skb; # a comment") == "struct sk_buff *skb; # a comment"
    # '_' stays (emphasis, but also in names such as kicad_pcb).
    assert strip_html("kicad_pcb [link](/a)") == "kicad_pcb link"


@pytest.mark.parametrize("options", [Options(), Options(chrome=False), Options(split="design", fold=False)])
def test_the_markdown_page_has_the_features_of_its_links_text(options: Options) -> None:
    fingerprinter = Fingerprinter(options)
    page = as_markdown(STORY, "The town that moved")
    rendered = page.replace("**", "").replace("`", "").replace("# ", "")
    rendered = strip_links(rendered)
    assert fingerprinter.features(page) == fingerprinter.features(rendered)
    assert fingerprinter.features_python(page) == fingerprinter.features(page)


def test_a_markdown_page_is_the_article_of_its_text_and_its_html() -> None:
    nsh = nshash.NSHash()
    text = nsh.get_similar(f"Example News\nWorld\nPolitics\nSport\nThe town that moved\n{STORY}\n")
    html = nsh.get_similar(f"<html><body><nav>World | Politics | Sport</nav><h1>Town</h1><p>{STORY}</p></body></html>")
    assert nsh.get_similar(as_markdown(STORY, "The town that moved")) == text == html
    # A site that links every few words (tags, people, places): its sentences were its URLs' too.
    words = STORY.split(" ")
    linked = " ".join(f"[{w}](https://example.com/tag/{i}/)" if i % 4 == 2 else w for i, w in enumerate(words))
    assert nsh.get_similar(f"{MENU}\n\n# The town that moved\n\n{linked}\n") == text


def test_two_articles_of_one_site_with_one_markdown_menu_stay_apart() -> None:
    nsh = nshash.NSHash()
    first = nsh.get_similar(as_markdown(STORY, "The town that moved"))
    assert nsh.get_similar(as_markdown(OTHER, "Bread at night")) != first
    assert nsh.get_similar(as_markdown(STORY, "The town that moved again")) == first


def test_quote_marks_go_from_runs_of_quoted_lines_only() -> None:
    assert strip_quotes("> one\n>> two\n>\n  > three") == "one\ntwo\n\nthree"
    assert strip_quotes("Text\n>> Read more: another story\nText") == "Text\n>> Read more: another story\nText"
    assert strip_quotes("Home > News > World\n> quoted") == "Home > News > World\n> quoted"
    assert strip_html("&gt; not a mark\n&gt; either") == "> not a mark\n> either"  # entities come after


def test_a_page_quoted_and_wrapped_in_a_mail_is_its_source() -> None:
    # A newsletter or a forwarded mail: every line quoted, and wrapped at 72 columns (without strip_quotes
    # 8 of these 30 pages found their source).
    for seed in range(30):
        rng = random.Random(seed)
        source = page(make_site(rng), [paragraph(rng, rng.randint(2, 5)) for _ in range(6)], "A title of the story")
        quoted = "\n".join("> " + part for line in source.split("\n") for part in textwrap.wrap(line, 72) or [""])
        nsh = nshash.NSHash()
        assert nsh.get_similar(f"Forwarded message:\n\n{quoted}\n-- \nSent from my phone") == nsh.get_similar(source)


def test_runs_of_lines_that_are_a_url_and_nothing_else_go() -> None:
    dump = "Text\nReferences\n\n   Visible links:\n   1. https://example.com/a\n  12. mailto:x@y.z\n 3. javascript:v(0)"
    assert strip_url_lines(dump) == "Text\nReferences\n\n   Visible links:\n\n\n"
    kept = "See https://example.com/a for more\nhttps://example.com/a b\nNote:\n1.5 http\nhttps://a.b\nhttps://c.d\nx"
    assert strip_url_lines(kept) == kept  # a URL in a sentence, not a URL, two URL lines: kept


def lynx_dump(site: tuple[list[str], list[str]], body: list[str], links: list[str]) -> str:
    """A page as ``lynx -dump`` writes it: its text, then a numbered list of every link's URL."""
    numbered = "\n".join(f"  {i + 1}. {url}" for i, url in enumerate(links))
    return page(site, body, "A title") + f"\n\nReferences\n\n   Visible links:\n{numbered}\n"


def test_a_text_browsers_dumps_of_one_site_stay_apart() -> None:
    # The site's menus' URLs on every page, its own links between them.  Without strip_url_lines 2 of these
    # 20 sites kept their 4 articles apart.
    section = "https://www.example-news.com/section"
    head = [f"{section}/{w}/" for w in ("world", "politics", "business", "tech", "science", "health", "sport")] * 4
    foot = [f"https://www.example-news.com/{w}/" for w in ("about", "contact", "privacy", "terms", "careers")] * 3
    for seed in range(20):
        rng = random.Random(seed)
        site = make_site(rng)
        nsh = nshash.NSHash()
        ids = []
        for k in range(4):
            own = [f"https://www.example-news.com/2024/05/{k}-{rng.randrange(10**6)}-a-long-story/" for _ in range(15)]
            body = [paragraph(rng, 3) for _ in range(2)]
            ids.append(nsh.get_similar(lynx_dump(site, body, head + own + foot)))
        assert len(set(ids)) == 4, seed
