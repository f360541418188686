"""A fleet of crawlers: several processes, one index in Redis, no story kept twice.

    python examples/crawler_fleet.py [--crawlers 3] [--url redis://host:6379/0] [pages.jsonl]

Each crawler process fetches its own share of the bundled sample of news pages
(``examples/data/news_sample.jsonl``), opens the shared index once (in the
process, by name: an index is not sent between processes) and asks it about
every page it fetches. Without ``--url`` the example starts a private
``redis-server`` (it must be installed) in a temporary directory; with one, it
works under a fresh key prefix of that server and deletes those keys at the
end. Needs ``pip install 'nshash[redis]'``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import nshash

SAMPLE = Path(__file__).parent / "data" / "news_sample.jsonl"

_index: nshash.NSHash | None = None  # one per crawler process


def open_index(name: str, url: str) -> None:
    """A crawler process's start: open the fleet's index (a Pool initializer)."""
    global _index
    _index = nshash.NSHash(name, hashdb="redis", store_options={"url": url})


def crawl(pages: list[dict[str, Any]]) -> list[tuple[str, int, bool]]:
    """One crawler's share of the pages: ``(page id, similar_id, new story?)`` for each, in its order."""
    assert _index is not None
    out = []
    for page in pages:
        match = _index.add(page["content"])
        out.append((page["id"], match.similar_id, match.is_new))
    _index.flush()
    return out


@contextmanager
def private_redis() -> Iterator[str]:
    """A redis-server of its own on a free local port, stopped at the end."""
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed: install it (apt-get install redis-server) or pass --url")
    with socket.socket() as probe:  # a port nobody listens on now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp, "--save", ""]
        server = subprocess.Popen(args, stdout=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while True:  # until it accepts connections
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        sys.exit(f"redis-server did not start on port {port}")
                    time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            server.terminate()
            server.wait()


def run(pages: list[dict[str, Any]], crawlers: int, url: str, name: str) -> int:
    # Crawler k fetches pages k, k + crawlers, ...: the fleet sees the stream interleaved.
    shares = [pages[k::crawlers] for k in range(crawlers)]
    context = multiprocessing.get_context("spawn")  # what macOS and Windows use: nothing inherited
    with context.Pool(crawlers, initializer=open_index, initargs=(name, url)) as pool:
        results = pool.map(crawl, shares)
    with nshash.NSHash(name, hashdb="redis", store_options={"url": url}) as nsh:
        decided = {page_id: (similar_id, new) for share in results for page_id, similar_id, new in share}
        # A cluster a crawler started may have merged into another since: the final ids.
        final = dict(zip(decided, nsh.resolve_many([similar_id for similar_id, _ in decided.values()])))
    label = {page["id"]: page["label"] for page in pages}
    for k, share in enumerate(results):
        kept = sum(new for _, _, new in share)
        print(f"crawler {k + 1}: {len(share)} pages, kept {kept}, skipped {len(share) - kept} as seen before")
    new_ids = [similar_id for similar_id, new in decided.values() if new]
    stories = {label[page_id] for page_id in decided}
    clusters = set(final.values())
    mixed = sum(len({label[p] for p in decided if final[p] == cluster}) > 1 for cluster in clusters)
    split = sum(len({final[p] for p in decided if label[p] == story}) > 1 for story in stories)
    print()
    print(f"{len(decided)} pages, {len(stories)} stories, {len(clusters)} clusters")
    print(f"against the labels: {mixed} clusters mixing stories, {split} stories split over clusters")
    print(f"new ids handed out: {len(new_ids)}, each once: {'yes' if len(new_ids) == len(set(new_ids)) else 'no'}")
    return 0


def delete_prefix(url: str, name: str) -> None:
    """Remove the example's keys (``{name}:*``) from a server it did not start."""
    import redis

    client = redis.Redis.from_url(url)
    keys = list(client.scan_iter(match=f"{{{name}}}:*", count=1000))
    for start in range(0, len(keys), 1000):
        client.delete(*keys[start : start + 1000])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="?", type=Path, default=SAMPLE, help="JSONL of id, title, content, label")
    parser.add_argument("--crawlers", type=int, default=3, help="crawler processes (default: %(default)s)")
    parser.add_argument("--url", help="a Redis server to use (default: start a private redis-server)")
    args = parser.parse_args(argv)
    with open(args.pages, encoding="utf-8") as handle:
        pages = [json.loads(line) for line in handle if line.strip()]
    name = f"fleet-example-{secrets.token_hex(4)}"  # a fresh index: the example never touches another
    if args.url is None:
        with private_redis() as url:
            return run(pages, args.crawlers, url, name)
    try:
        return run(pages, args.crawlers, args.url, name)
    finally:
        delete_prefix(args.url, name)


if __name__ == "__main__":
    sys.exit(main())
