"""Serve ``examples/data/news_sample.jsonl`` as a small news site: a listing page and one HTML page per article.

    python sample_site.py --port 8000

Each page links to the listing, the previous and the next page, and carries
its ground-truth article label in ``<meta name="label">``.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "news_sample.jsonl"


def load(path: Path = SAMPLE) -> list[dict[str, Any]]:
    """The sample's rows, in arrival order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def page(rows: list[dict[str, Any]], number: int) -> str:
    """The HTML of article ``number``: its title and content, escaped, lines as ``<br>``."""
    row = rows[number]
    body = "<br>\n".join(html.escape(line) for line in row["content"].split("\n"))
    nav = ['<a href="/">all news</a>']
    if number > 0:
        nav.append(f'<a href="/page/{number - 1}.html">previous</a>')
    if number + 1 < len(rows):
        nav.append(f'<a href="/page/{number + 1}.html">next</a>')
    return (
        f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{html.escape(row["title"])}</title>'
        f'<meta name="label" content="{html.escape(row["label"])}"></head>\n'
        f"<body><nav>{' | '.join(nav)}</nav>\n"
        f"<article><h1>{html.escape(row['title'])}</h1>\n<p>{body}</p></article>\n</body></html>\n"
    )


def listing(rows: list[dict[str, Any]]) -> str:
    """The listing page: a link to every article, in arrival order."""
    items = [f'<li><a href="/page/{n}.html">{html.escape(row["title"])}</a></li>' for n, row in enumerate(rows)]
    head = '<!doctype html>\n<html><head><meta charset="utf-8"><title>All news</title></head>'
    return head + "\n<body><ul>\n" + "\n".join(items) + "\n</ul></body></html>\n"


def make_server(port: int = 0, rows: list[dict[str, Any]] | None = None) -> ThreadingHTTPServer:
    """A server for the sample on 127.0.0.1 (``port=0``: a free port; see ``server.server_port``)."""
    articles = load() if rows is None else rows

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the http.server API
            text = None
            if self.path in ("/", "/index.html"):
                text = listing(articles)
            elif self.path.startswith("/page/") and self.path.endswith(".html"):
                number = self.path[len("/page/") : -len(".html")]
                if number.isdigit() and int(number) < len(articles):
                    text = page(articles, int(number))
            if text is None:
                self.send_error(404)
                return
            data = text.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def serve_in_thread(port: int = 0) -> ThreadingHTTPServer:
    """Start :func:`make_server` in a daemon thread; call ``shutdown()`` when done."""
    server = make_server(port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    server = make_server(args.port)
    print(f"serving {SAMPLE.name} on http://127.0.0.1:{server.server_port}/ (Ctrl-C stops)")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
