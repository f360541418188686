"""The memory store at scale: bytes per distinct page, reload time, throughput when full (issue 14).

    python benchmarks/memory_scale.py [--sizes 100000 1000000] [--synthetic 5000000]
        [--rounds 5] [--probe 2000] [--out benchmarks/results]

Every measurement runs in a fresh subprocess.  Two kinds of tables, same run:

- ``table``: the store as it is now, each table a C ``Table`` (``nshash/_inttable.h``);
- ``dict``: the same store with each table a dict (``DictTable``, what the
  store held before, and still holds with ``NSHASH_NO_SPEEDUPS=1``); the
  fingerprints are computed by the same C accelerator, so only the tables differ.

Pages are distinct synthetic texts (12 sentences of 10 to 20 words drawn from
50,000 made-up words, seeded by the page number), fed one by one through
``NSHash.get_similar`` (the whole decision pipeline).  Measured:

- bytes per page: growth of the resident set over the fill / pages, and the
  tables' own size (``Table.nbytes``; for dicts ``sys.getsizeof`` of the dict
  and of its key and distinct value ints);
- throughput: pages/s of ``--probe`` fresh pages on the filled store and on an
  empty one, interleaved, median of ``--rounds`` rounds;
- save and reload: seconds to save the file, and to open it in a new process
  (``table``: format 3 into C tables; ``dict``: the same tables written as a
  format 2 file, as before this change, opened with ``NSHASH_NO_SPEEDUPS=1``);
- ``--synthetic N``: a C store filled directly with N pages' worth of entries
  shaped like the pipeline's (11 ``fp`` keys, 33 ``sketch`` entries, 8 ``line``
  entries: new lines a page adds on the synthetic corpora's held-out files), to
  measure throughput with more pages stored than the pipeline can feed in the time.

Writes ``memory_scale.md`` (and ``memory_scale.json``) to ``--out``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import nshash  # noqa: E402
from nshash.stores.memory_table import DictTable  # noqa: E402
from nshash.stores.view import TABLES  # noqa: E402

WORDS = 50_000
MIB = 1024 * 1024

#: New ``line`` entries a page adds: 8.5 (zh) and 7.5 (en) on the corpus's held-out files.
LINES_PER_PAGE = 8


def vocabulary() -> list[str]:
    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choices(letters, k=rng.randint(3, 10))) for _ in range(WORDS)]


def page(number: int, words: list[str]) -> str:
    """A distinct page: 12 sentences of random words, seeded by ``number``."""
    rng = random.Random(number)
    sentences = (" ".join(rng.choices(words, k=rng.randint(10, 20))).capitalize() + "." for _ in range(12))
    return "\n".join(sentences)


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def trim() -> None:
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def open_store(kind: str, path: Path | None) -> Any:
    """An NSHash on a memory store without a log (its pending writes would count as stored)."""
    store = nshash.HashDBMemory(path, log_interval=None)
    if kind == "dict":
        store._tables = {table: DictTable() for table in TABLES}
    return nshash.NSHash(name=None, hashdb=store)


def table_bytes(store: Any) -> int:
    total = 0
    for table in store._tables.values():
        if isinstance(table, dict):
            values = {id(value): value for value in table.values()}
            total += sys.getsizeof(table) + sum(map(sys.getsizeof, table))
            total += sum(sys.getsizeof(value) for value in values.values() if not -5 <= value <= 256)
        else:
            total += table.nbytes
    return total


def throughput(full: Any, words: list[str], first: int, rounds: int, probe: int) -> dict[str, Any]:
    """Pages/s on ``full`` and on an empty store, interleaved, same fresh pages for both in a round.

    The empty store is of the same kind, and has a file beside the full one's
    if that has one: both then reserve ids on disk (an fsync per 1,024 new clusters).
    """
    speeds: dict[str, list[float]] = {"full": [], "empty": []}
    kind = "table" if not isinstance(full.store._tables["fp"], dict) else "dict"
    for r in range(rounds):
        docs = [page(first + r * probe + i, words) for i in range(probe)]
        where = full.store.path
        empty = open_store(kind, where.with_name(f"empty{r}.hashdb.pkl") if where is not None else None)
        for name, nsh in (("empty", empty), ("full", full)) if r % 2 else (("full", full), ("empty", empty)):
            start = time.perf_counter()
            for doc in docs:
                nsh.get_similar(doc)
            speeds[name].append(probe / (time.perf_counter() - start))
        empty.store._release()  # nothing to save
    full_speed, empty_speed = statistics.median(speeds["full"]), statistics.median(speeds["empty"])
    return {"full_pages_s": full_speed, "empty_pages_s": empty_speed, "ratio": full_speed / empty_speed}


def worker_fill(kind: str, pages: int, path: Path, rounds: int, probe: int) -> dict[str, Any]:
    words = vocabulary()
    nsh = open_store(kind, path)
    trim()
    before = rss_bytes()
    start = time.perf_counter()
    for number in range(pages):
        nsh.get_similar(page(number, words))
    fill_seconds = time.perf_counter() - start
    trim()
    growth = rss_bytes() - before
    store = nsh.store
    entries = {table: len(contents) for table, contents in store._tables.items() if len(contents)}
    result: dict[str, Any] = {
        "kind": kind,
        "pages": pages,
        "clusters": store.highest_id(),
        "entries": entries,
        "rss_bytes_per_page": growth / pages,
        "table_bytes_per_page": table_bytes(store) / pages,
        "fill_pages_s": pages / fill_seconds,
    }
    result.update(throughput(nsh, words, 10**9, rounds, probe))
    start = time.perf_counter()
    if kind == "dict":
        # As the store wrote files before: format 2, a pickle of the dicts.
        state = {
            "format": "nshash.hashdb.memory",
            "version": 2,
            "meta": dict(store._meta),
            "next_id": store._next_id,
            "tables": {table: dict(contents) for table, contents in store._tables.items()},
            "log_generation": store._generation + 1,
        }
        payload = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        path.write_bytes(struct.pack("<8sIQI", b"NSHASHDB", 2, len(payload), zlib.crc32(payload)) + payload)
        (path.parent / (path.name + ".log")).unlink(missing_ok=True)
    else:
        store.save()
    result["save_s"] = time.perf_counter() - start
    result["file_bytes_per_page"] = path.stat().st_size / pages
    store._release()  # no save at exit: the file is what was written above
    return result


def worker_reload(path: Path) -> dict[str, Any]:
    trim()
    before = rss_bytes()
    start, cpu = time.perf_counter(), time.process_time()
    store = nshash.HashDBMemory(path, log_interval=None)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    trim()
    result = {"reload_s": seconds, "reload_cpu_s": cpu, "reload_rss_growth": rss_bytes() - before}
    store._release()
    return result


def worker_synthetic(pages: int, rounds: int, probe: int) -> dict[str, Any]:
    """A C store filled directly with ``pages`` pages' worth of entries shaped like the pipeline's."""
    words = vocabulary()
    nsh = open_store("table", None)
    store = nsh.store
    rng = random.Random(1)
    trim()
    before = rss_bytes()
    start = time.perf_counter()
    chunk = 20_000
    for first in range(1, pages + 1, chunk):
        ids = range(first, min(first + chunk, pages + 1))
        store.put_many("fp", [(rng.getrandbits(64), cluster) for cluster in ids for _ in range(11)])
        store.put_many(
            "sketch",
            [((cluster << 8) | entry, rng.getrandbits(64) - 2**63) for cluster in ids for entry in range(33)],
        )
        store.put_many("line", [(rng.getrandbits(32), cluster) for cluster in ids for _ in range(LINES_PER_PAGE)])
    store._next_id = store._reserved = pages + 1
    fill_seconds = time.perf_counter() - start
    trim()
    result: dict[str, Any] = {
        "kind": "table (synthetic fill)",
        "pages": pages,
        "entries": {table: len(contents) for table, contents in store._tables.items() if len(contents)},
        "rss_bytes_per_page": (rss_bytes() - before) / pages,
        "table_bytes_per_page": table_bytes(store) / pages,
        "fill_s": fill_seconds,
    }
    result.update(throughput(nsh, words, 10**9, rounds, probe))
    return result


def spawn(args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--worker", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"worker {args} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def markdown(rows: list[dict[str, Any]], synthetic: list[dict[str, Any]], command: str) -> str:
    lines = [
        "# Memory store at scale",
        "",
        f"Generated by `{command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
        f"(Python {sys.version.split()[0]}, {os.uname().sysname} {os.uname().machine}, {os.cpu_count()} CPUs, "
        "shared with other jobs: speeds are indicative, ratios are of interleaved rounds).",
        "",
        "Distinct synthetic pages through `NSHash.get_similar`; `table` = C tables, `dict` = the same store with "
        "dict tables (as before; features computed by the same C code). Bytes per page: RSS growth over the fill, "
        "and the tables' own size. Throughput: median pages/s of interleaved rounds on the filled store and on an "
        "empty one. Reload: opening the saved file in a new process (`dict`: the format 2 file of before, "
        "opened in pure Python).",
        "",
        "| tables | pages | entries/page (fp, sketch, all) | RSS B/page | table B/page | file B/page "
        "| fill pages/s | full pages/s | empty pages/s | full/empty | save s | reload s (CPU s) |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        entries = row["entries"]
        per = f"{entries.get('fp', 0) / row['pages']:.1f}, {entries.get('sketch', 0) / row['pages']:.1f}, "
        per += f"{sum(entries.values()) / row['pages']:.1f}"
        lines.append(
            f"| {row['kind']} | {row['pages']:,} | {per} | {row['rss_bytes_per_page']:,.0f} "
            f"| {row['table_bytes_per_page']:,.0f} | {row['file_bytes_per_page']:,.0f} | {row['fill_pages_s']:,.0f} "
            f"| {row['full_pages_s']:,.0f} | {row['empty_pages_s']:,.0f} | {row['ratio']:.2f} "
            f"| {row['save_s']:.2f} | {row['reload_s']:.2f} ({row['reload_cpu_s']:.2f}) |"
        )
    for row in synthetic:
        entries = row["entries"]
        lines.append(
            f"| {row['kind']} | {row['pages']:,} | {entries.get('fp', 0) / row['pages']:.1f}, "
            f"{entries.get('sketch', 0) / row['pages']:.1f} | {row['rss_bytes_per_page']:,.0f} "
            f"| {row['table_bytes_per_page']:,.0f} | | | {row['full_pages_s']:,.0f} | {row['empty_pages_s']:,.0f} "
            f"| {row['ratio']:.2f} | | |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--kinds", nargs="+", default=["table", "dict"])
    parser.add_argument("--synthetic", type=int, nargs="*", default=[5_000_000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--probe", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        what, *rest = args.worker
        if what == "fill":
            found = worker_fill(rest[0], int(rest[1]), Path(rest[2]), args.rounds, args.probe)
        elif what == "reload":
            found = worker_reload(Path(rest[0]))
        else:
            found = worker_synthetic(int(rest[0]), args.rounds, args.probe)
        print(json.dumps(found))
        return 0
    rows = []
    flags = ["--rounds", str(args.rounds), "--probe", str(args.probe)]
    with tempfile.TemporaryDirectory() as folder:
        for pages in args.sizes:
            for kind in args.kinds:
                path = Path(folder) / f"{kind}-{pages}.hashdb.pkl"
                row = spawn(["fill", kind, str(pages), str(path), *flags])
                env = dict(os.environ, NSHASH_NO_SPEEDUPS="1") if kind == "dict" else None
                row.update(spawn(["reload", str(path)], env))
                print(json.dumps(row), flush=True)
                rows.append(row)
                for leftover in Path(folder).iterdir():
                    leftover.unlink()
    synthetic = []
    for pages in args.synthetic:
        row = spawn(["synthetic", str(pages), *flags])
        print(json.dumps(row), flush=True)
        synthetic.append(row)
    command = "python benchmarks/memory_scale.py " + " ".join(sys.argv[1:])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "memory_scale.json").write_text(json.dumps({"fill": rows, "synthetic": synthetic}, indent=1) + "\n")
    (args.out / "memory_scale.md").write_text(markdown(rows, synthetic, command.strip()))
    print(markdown(rows, synthetic, command.strip()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
