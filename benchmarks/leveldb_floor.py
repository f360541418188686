"""What plyvel alone costs per page: the floor under nshash's LevelDB store.

    python benchmarks/leveldb_floor.py [--pages 5000] [--keys 16] [--repeat 5]

A page of the default NSHash reads its keys (two per sentence, eight
sentences looked at: 16) and writes what is new in one atomic write batch,
so that every page acknowledged survives a crash.  This script does just
that with plyvel and random keys, no nshash code at all, and compares the
result with ``results/speed.json`` (the nshash LevelDB and memory stores).

Writes ``results/leveldb_floor.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

import plyvel

HERE = Path(__file__).resolve().parent
KEY = struct.Struct(">Q")


def per_page(pages: list[list[bytes]], write: bool) -> float:
    """Seconds of CPU per page: read every key, then (with ``write``) one batch putting them all."""
    value = struct.pack(">q", 12345)
    with tempfile.TemporaryDirectory(prefix="leveldb-floor-") as tmp:
        db = plyvel.DB(tmp, create_if_missing=True, bloom_filter_bits=10)
        get = db.get
        start = time.process_time()
        for keys in pages:
            for key in keys:
                get(key)
            if write:
                with db.write_batch() as batch:
                    for key in keys:
                        batch.put(key, value)
        elapsed = time.process_time() - start
        db.close()
    return elapsed / len(pages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--keys", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    rng = random.Random(11)
    pages = [[b"f" + KEY.pack(rng.getrandbits(64)) for _ in range(args.keys)] for _ in range(args.pages)]
    reads = statistics.median(per_page(pages, write=False) for _ in range(args.repeat))
    both = statistics.median(per_page(pages, write=True) for _ in range(args.repeat))
    lines = [
        "# The LevelDB floor",
        "",
        f"`python benchmarks/leveldb_floor.py --pages {args.pages} --keys {args.keys} --repeat {args.repeat}`: "
        f"plyvel alone, {args.keys} random keys a page, CPU time, median of {args.repeat}.",
        "",
        "| per page | µs | pages/s at most |",
        "|---|---:|---:|",
        f"| {args.keys} reads | {reads * 1e6:.1f} | {1 / reads:,.0f} |",
        f"| {args.keys} reads + one write batch of {args.keys} puts | {both * 1e6:.1f} | {1 / both:,.0f} |",
    ]
    speed = HERE / "results" / "speed.json"
    if speed.exists():
        rows = {row["method"]: row for row in json.loads(speed.read_text(encoding="utf-8"))["throughput"]}
        memory, leveldb = rows.get("nshash", {}).get("docs_per_s"), rows.get("nshash leveldb", {}).get("docs_per_s")
        if memory and leveldb:
            lines += [
                "",
                f"From `speed.json`: nshash on LevelDB {leveldb:,.0f} docs/s, on the memory store {memory:,.0f}. "
                f"Half the memory store would be {memory / 2:,.0f} pages/s, {2e6 / memory:.1f} µs a page: "
                f"plyvel's floor above is {both * memory / 2:.1f}x that, before any nshash work.",
            ]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "leveldb_floor.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
