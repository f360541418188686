"""Where a page's time goes on the LevelDB store, and what plyvel alone costs for the same reads.

    python benchmarks/leveldb_floor.py [--docs 3000] [--repeat 3] [--data FILE ...]

Feeds corpus pages through ``NSHash(hashdb='leveldb')`` with the store's
transaction view timed from the outside (reads per table, writes, the commit
of the write batch) and the C call timed apart (a page's features and
decision, reading through the view: its reads are taken out of it); what is
left is the transaction and the Python around the call.  The same pages
through the memory store, where the C call reads the store's own tables,
give the ratio the scale issue asks about (LevelDB at half the memory store).
Then plyvel alone makes the calls nshash's store made into LevelDB (the
lookups its filter of written keys let through, the scans of a cluster's
members, one write batch of the entries a page wrote), with no nshash code:
the floor under this layout of one LevelDB entry per table entry.

Writes ``results/leveldb_floor.md``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import struct
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import plyvel
from run_quality import load_corpus
from run_sample import load_sample

import nshash
import nshash.native
from nshash.stores.leveldb_view import LeveldbTransaction

HERE = Path(__file__).resolve().parent
KEY = struct.Struct(">Q")
DEFAULT_DATA = [HERE / "data" / "zh-heldout.jsonl", HERE / "data" / "en-heldout.jsonl"]
SAMPLE = HERE.parent / "examples" / "data" / "news_sample.jsonl"


class CountingDB:
    """A plyvel database that counts the calls nshash's store makes into it."""

    def __init__(self, db: Any) -> None:
        self._db = db
        self.gets = self.scans = self.scanned = 0

    def get(self, key: bytes) -> Any:
        self.gets += 1
        return self._db.get(key)

    def iterator(self, **kwargs: Any) -> Any:
        self.scans += 1
        return CountingIterator(self, self._db.iterator(**kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


class CountingIterator:
    """A plyvel iterator counting the entries it yields (``seek`` and the rest pass through)."""

    def __init__(self, db: CountingDB, inner: Any) -> None:
        self._db, self._inner = db, inner

    def __iter__(self) -> CountingIterator:
        return self

    def __next__(self) -> Any:
        item = next(self._inner)
        self._db.scanned += 1
        return item

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class TimedC:
    """The C module, timing its one call a page (features and decision)."""

    def __init__(self, module: Any) -> None:
        self._module = module
        self.seconds = 0.0

    def similar(self, *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return self._module.similar(*args)
        finally:
            self.seconds += time.perf_counter() - start

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


class Timed:
    """Seconds and calls spent in the LevelDB transaction view's methods, by table."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.keys: dict[str, int] = defaultdict(int)
        self.written = 0

    def wrap(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def timed(view: Any, *args: Any) -> Any:
            start = time.perf_counter()
            try:
                return method(view, *args)
            finally:
                label = f"{name} {args[0]}" if args and isinstance(args[0], str) else name
                self.seconds[label] += time.perf_counter() - start
                if name == "read" and len(args) > 1:
                    self.keys[label] += len(args[1])

        def counted_commit(view: Any) -> Any:
            self.written += len(view._pending)
            return timed(view)

        return counted_commit if name == "commit" else timed


def load(paths: list[Path], docs: int) -> tuple[list[str], str]:
    found = [path for path in paths if path.exists()]
    if not found:  # no corpus built: the bundled sample, repeated with a varying last line
        texts = load_sample(SAMPLE)[0]
        pages = [f"{texts[i % len(texts)]}\n{i}" for i in range(docs)]
        return pages, f"{SAMPLE.name} (repeated, a unique last line each)"
    pages = [text for path in found for text in load_corpus(path)[0]]
    random.Random(7).shuffle(pages)
    return pages[:docs], ", ".join(path.name for path in found) + " (shuffled)"


def run_leveldb(pages: list[str]) -> tuple[float, Timed, float, CountingDB]:
    """Seconds a page in all, the view's timings, seconds a page in the C call (its reads in it), calls into LevelDB."""
    timed = Timed()
    # get_cached and _put: what the C decision's reads and writes go through (get_many and put_many check
    # their arguments, then call them); the kept cache spares the reads of keys a page before read or wrote.
    originals = {name: getattr(LeveldbTransaction, name) for name in ("get_cached", "_put", "commit")}
    labels = {"get_cached": "read", "_put": "write", "commit": "commit"}
    for name, method in originals.items():
        setattr(LeveldbTransaction, name, timed.wrap(labels[name], method))
    module = nshash.native.speedups
    timed_c = nshash.native.speedups = TimedC(module)
    try:
        with tempfile.TemporaryDirectory(prefix="leveldb-floor-") as tmp:
            nsh = nshash.NSHash(Path(tmp) / "floor", hashdb="leveldb")
            db = nsh.store._db = CountingDB(nsh.store._db)  # type: ignore[attr-defined]
            start = time.perf_counter()
            for page in pages:
                nsh.get_similar(page)
            total = time.perf_counter() - start
            nsh.store._db = db._db  # type: ignore[attr-defined]
            nsh.close()
    finally:
        for name, method in originals.items():
            setattr(LeveldbTransaction, name, method)
        nshash.native.speedups = module
    return total / len(pages), timed, timed_c.seconds / len(pages), db


def run_memory(pages: list[str]) -> float:
    nsh = nshash.NSHash(None)
    start = time.perf_counter()
    for page in pages:
        nsh.get_similar(page)
    return (time.perf_counter() - start) / len(pages)


def plyvel_floor(pages: int, gets: int, scans: int, scanned: int, writes: int) -> float:
    """Seconds a page of plyvel alone: ``gets`` lookups of stored keys, ``scans`` scans of ``scanned``
    entries in all, one write batch of ``writes`` puts (numbers a page, rounded)."""
    rng = random.Random(11)
    value = struct.pack(">q", 12345)
    stored = sorted(KEY.pack(rng.getrandbits(64)) for _ in range(pages * max(writes, 1)))
    run = max(1, scanned // max(scans, 1))
    with tempfile.TemporaryDirectory(prefix="leveldb-floor-") as tmp:
        db = plyvel.DB(tmp, create_if_missing=True, bloom_filter_bits=10)
        with db.write_batch() as batch:
            for key in stored:
                batch.put(key, value)
        plan = [
            (
                [rng.choice(stored) for _ in range(gets)],
                [rng.randrange(len(stored) - run) for _ in range(scans)],
                [KEY.pack(rng.getrandbits(64)) for _ in range(writes)],  # a page's new keys
            )
            for _ in range(pages)
        ]
        get = db.get
        start = time.perf_counter()
        for keys, starts, new in plan:
            for key in keys:
                get(key)
            for at in starts:
                list(db.iterator(start=stored[at], stop=stored[at + run]))
            with db.write_batch() as batch:  # before 2026-12-08 the lookups' keys: none once the cache kept them
                for key in new:
                    batch.put(key, value)
        elapsed = time.perf_counter() - start
        db.close()
    return elapsed / pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, nargs="*", default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    pages, source = load(args.data, args.docs)
    runs = []
    for _ in range(args.repeat):  # interleaved, so that the machine's drift hits both alike
        runs.append((run_leveldb(pages), run_memory(pages)))
    (total, timed, c_call, db), _ = min(runs, key=lambda run: run[0][0])
    memory = statistics.median(run[1] for run in runs)
    per_page = {label: seconds / len(pages) for label, seconds in timed.seconds.items()}
    reads = sum(value for label, value in per_page.items() if label.startswith("read"))
    # Buffered writes are labelled by table ("write fp"): before 2026-12-08 only the commit was summed
    # here, and the buffering fell into "the rest".
    writes = sum(value for label, value in per_page.items() if label.startswith("write")) + per_page.get("commit", 0.0)
    in_c = c_call - reads  # every read is made from inside the C call
    rest = total - c_call - writes
    keys_read = sum(timed.keys.values()) / len(pages)
    calls = [db.gets / len(pages), db.scans / len(pages), db.scanned / len(pages), timed.written / len(pages)]
    floor = plyvel_floor(len(pages), *(round(count) for count in calls))
    us = 1e6
    lines = [
        "# Where a page's time goes on LevelDB",
        "",
        f"`python benchmarks/leveldb_floor.py --docs {args.docs} --repeat {args.repeat}` on "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {len(pages):,} pages of {source}, "
        f"new LevelDB and memory stores, the fastest of {args.repeat} LevelDB runs (the memory store: "
        f"median of its {args.repeat} runs, interleaved). Wall time; the machine's speed drifts, so read "
        "the shares and ratios.",
        "",
        "| part of a page on LevelDB | µs a page | share | keys a page |",
        "|---|---:|---:|---:|",
    ]
    for label in sorted(per_page):
        if label.startswith("read"):
            keys = timed.keys[label] / len(pages)
            lines.append(f"| {label} | {per_page[label] * us:.1f} | {per_page[label] / total:.0%} | {keys:.1f} |")
    lines.append(f"| reads, all tables | {reads * us:.1f} | {reads / total:.0%} | {keys_read:.1f} |")
    for label in sorted(per_page):
        if label.startswith("write") or label == "commit":
            lines.append(f"| {label} | {per_page[label] * us:.1f} | {per_page[label] / total:.0%} | |")
    lines += [
        f"| writes (buffered) and the commit of one write batch | {writes * us:.1f} | {writes / total:.0%} | |",
        f"| the C call's own work: features and decision | {in_c * us:.1f} | {in_c / total:.0%} | |",
        f"| the rest: the transaction, the cache read through it, the Python around the call | {rest * us:.1f} | "
        f"{rest / total:.0%} | |",
        f"| **a page on LevelDB** | **{total * us:.1f}** | 100% | |",
        f"| a page on the memory store (the same C call on the store's own tables) | {memory * us:.1f} | | |",
        "",
        f"LevelDB runs at **{memory / total:.2f}x** the memory store here. Half the memory store is "
        f"{2 * memory * us:.0f} µs a page; the reads alone take {reads * us:.0f}.",
        "",
        f"Into LevelDB a page made {calls[0]:.1f} lookups (the keys its filter of written keys let through), "
        f"{calls[1]:.2f} scans of {calls[2]:.1f} entries in all (a candidate cluster's members) and one write "
        f"batch of {calls[3]:.1f} entries. plyvel alone making those calls, no nshash code: **{floor * us:.1f} µs "
        f"a page**, {floor / (2 * memory):.2f}x the budget of half the memory store, before the C call's own "
        f"work ({in_c * us:.0f} µs).",
        "",
        f"What half the memory store leaves: {2 * memory * us:.0f} µs - {in_c * us:.0f} (the C call's own work) - "
        f"{floor * us:.0f} (plyvel's calls) = **{(2 * memory - in_c - floor) * us:.0f} µs** for the store's "
        f"Python around plyvel, which takes {(rest + reads + writes - floor) * us:.0f} here.",
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "leveldb_floor.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
