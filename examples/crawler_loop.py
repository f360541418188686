"""A crawler's loop: one page at a time, skip the ones already seen in another form.

    python examples/crawler_loop.py [pages.jsonl]

Reads the bundled sample of news pages (``examples/data/news_sample.jsonl``:
``id``, ``title``, ``content`` and ``label``, the story a page really tells)
as if they arrived from a crawler, keeps an nshash index on disk (LevelDB, in
a temporary directory here), and compares what it skipped with the labels.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nshash

SAMPLE = Path(__file__).parent / "data" / "news_sample.jsonl"


def crawl(path: Path) -> Iterator[dict[str, str]]:
    """Stand-in for a crawler: yields pages one by one."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def main(path: Path) -> int:
    seen_ids: set[int] = set()
    seen_labels: set[str] = set()
    kept = skipped = right = missed = wrong = 0
    with tempfile.TemporaryDirectory() as tmp, nshash.NSHash(Path(tmp) / "news", hashdb="leveldb") as nsh:
        for page in crawl(path):
            similar_id = nsh.get_similar(page["content"])
            reprint = similar_id in seen_ids  # an earlier page told the same story
            truly = page["label"] in seen_labels
            seen_ids.add(similar_id)
            seen_labels.add(page["label"])
            if reprint:
                skipped += 1
                print(f"skip  page {page['id']:>4}: same story as cluster {similar_id} - {page['title'][:40]}")
            else:
                kept += 1  # a real crawler would store or index the page here
            right += reprint and truly
            missed += truly and not reprint
            wrong += reprint and not truly
    print()
    print(f"{kept + skipped} pages: kept {kept}, skipped {skipped} as reprints")
    print(f"against the labels: {right} reprints caught, {missed} missed, {wrong} pages skipped wrongly")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE))
