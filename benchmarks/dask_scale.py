"""nshash.dask.similar_ids against local batch: throughput and the driver's memory a page.

    python benchmarks/dask_scale.py [--docs 100000] [--workers 2] [--per-file 5000]
        [--data benchmarks/data] [--out benchmarks/results/dask_scale.md]

The corpus is synthesised from the labelled corpus files (``benchmarks/data``):
repeat ``r`` of the corpus passes every document through a character
permutation seeded by ``r`` (the letters, the digits and the CJK ideographs),
so each repeat is a new crawl of new sites with the same duplicate and
boilerplate structure and no sentence in common with the other repeats.  It
is written to Parquet files of ``--per-file`` pages (with a ``url`` column),
read back the way users read a crawl: ``dd.read_parquet("pages/*.parquet")``,
unknown divisions.

Each run is a fresh process so that its peak memory is its own:

* **local batch**: ``pd.read_parquet`` of the files, then ``nshash.similar_ids``;
* **Dask**: a ``LocalCluster`` of ``--workers`` processes (one thread each),
  ``nshash.dask.similar_ids(ddf, column="content").compute()`` in the driver.

The driver's peak is its resident-set high-water mark (VmHWM), reset once the
cluster is up; "a page" is that peak minus the resident set before the run,
divided by the pages.  The ids of both runs must be identical (the script
checks).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

_CJK = (0x4E00, 0x9FFF)
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"


def permutation(repeat: int) -> dict[int, int]:
    """The character map of one repeat (repeat 0 is the identity)."""
    if repeat == 0:
        return {}
    rng = random.Random(repeat)
    table: dict[int, int] = {}
    for alphabet in (_LOWER, _DIGITS):
        shuffled = list(alphabet)
        rng.shuffle(shuffled)
        table.update({ord(a): ord(b) for a, b in zip(alphabet, shuffled)})
    table.update({ord(a.upper()): ord(b.upper()) for a, b in zip(_LOWER, (chr(table[ord(c)]) for c in _LOWER))})
    shift = rng.randrange(1, _CJK[1] - _CJK[0])
    size = _CJK[1] - _CJK[0] + 1
    table.update({c: _CJK[0] + (c - _CJK[0] + shift) % size for c in range(_CJK[0], _CJK[1] + 1)})
    return table


def load_records(data: Path) -> list[tuple[str, str]]:
    records = []
    for path in sorted(data.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            rows = sorted((json.loads(line) for line in f if line.strip()), key=lambda r: int(r["id"]))
        records += [(r["text"], f"{path.stem}:{r['label']}") for r in rows]
    if not records:
        raise SystemExit(f"no *.jsonl corpus files in {data}; run python benchmarks/make_corpus.py --out {data}")
    return records


def synthesise(records: list[tuple[str, str]], docs: int) -> tuple[list[str], list[str]]:
    texts: list[str] = []
    labels: list[str] = []
    repeat = 0
    while len(texts) < docs:
        table = permutation(repeat)
        for text, label in records[: docs - len(texts)]:
            texts.append(text.translate(table) if table else text)
            labels.append(f"{label}#{repeat}")
        repeat += 1
    return texts, labels


def write_pages(texts: list[str], directory: Path, per_file: int) -> None:
    import pandas as pd

    directory.mkdir(parents=True, exist_ok=True)
    for number, start in enumerate(range(0, len(texts), per_file)):
        chunk = texts[start : start + per_file]
        frame = pd.DataFrame({"url": [f"https://example.com/{start + i}" for i in range(len(chunk))]})
        frame["content"] = chunk
        frame.to_parquet(directory / f"part{number:05d}.parquet")


# -- one run, in its own process -------------------------------------------------------------
def _reset_peak_rss() -> None:
    # Linux resets the high-water mark (VmHWM) to the current resident set here.
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def _cpu_seconds() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise SystemExit(f"no {field} in /proc/self/status: this script measures memory on Linux only")


def run_local(pages: Path, ids_out: Path) -> dict[str, Any]:
    import numpy as np
    import pandas as pd

    import nshash
    from nshash.batch import all_features, final_ids, new_index
    from nshash.packed import pack

    per_file = len(pd.read_parquet(sorted(pages.glob("*.parquet"))[0]))
    texts = pd.read_parquet(pages)["content"].tolist()
    _reset_peak_rss()
    before = _status_mb("VmRSS")
    start = time.perf_counter()
    ids = nshash.similar_ids(texts)
    seconds = time.perf_counter() - start
    peak = _status_mb("VmHWM")
    np.save(ids_out, np.asarray(ids, dtype="int64"))
    # Then its work in the steps Dask splits, timed apart: the features and their packing (a
    # partition at a time) are what the workers do; the decision read from the packed partitions
    # is what stays in the driver (the same ids).
    start = time.perf_counter()
    features = all_features(new_index({}), texts)
    middle = time.perf_counter()
    blobs = [pack(features[i : i + per_file]) for i in range(0, len(features), per_file)]
    packed = time.perf_counter()
    del features
    index = new_index({})
    raw = [similar for blob in blobs for similar in index._assign_packed(blob)]
    assigned = time.perf_counter()
    if final_ids(index, raw) != ids:
        raise SystemExit("the steps apart gave other ids than similar_ids")
    return {
        "seconds": seconds,
        "features_seconds": middle - start,
        "pack_seconds": packed - middle,
        "assign_seconds": assigned - packed,
        "rss_before_mb": before,
        "peak_mb": peak,
    }


def _features_of(texts: list[str]) -> float:
    """In a pool's process: the seconds to compute the features of ``texts`` (the pool started and warm)."""
    from nshash.batch import all_features, new_index

    start = time.perf_counter()
    all_features(new_index({}), texts)
    return time.perf_counter() - start


def parallel_ceiling(pages: Path, workers: int, sample: int = 20_000) -> float:
    """How much faster ``workers`` processes compute features than one, each with the same pages at once.

    What the machine gives Dask's workers at best (two processes on two cores
    of a VM may share one core's caches and more).
    """
    from concurrent.futures import ProcessPoolExecutor

    import pandas as pd

    texts = pd.concat([pd.read_parquet(path)["content"] for path in sorted(pages.glob("*.parquet"))[:8]])
    chunk = texts.tolist()[:sample]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        list(pool.map(_features_of, [chunk[:200]] * workers))  # start and warm every process
        alone = min(pool.submit(_features_of, chunk).result() for _ in range(2))
        start = time.perf_counter()
        list(pool.map(_features_of, [chunk] * workers))
        together = time.perf_counter() - start
    return workers * alone / together


def run_dask(pages: Path, ids_out: Path, workers: int) -> dict[str, Any]:
    import dask.dataframe as dd
    import numpy as np
    from distributed import Client, LocalCluster

    import nshash
    import nshash.dask

    logging.getLogger("distributed").setLevel(logging.ERROR)
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit=0
        ) as cluster,
        Client(cluster) as client,
    ):
        paths = client.run(lambda: nshash.__file__)
        if set(paths.values()) != {nshash.__file__}:
            raise SystemExit(f"the workers import another nshash: {paths} (this process: {nshash.__file__})")
        _reset_peak_rss()
        client.run(_reset_peak_rss)
        before = _status_mb("VmRSS")
        workers_cpu = client.run(_cpu_seconds)
        cpu = _cpu_seconds()
        start = time.perf_counter()
        ddf = dd.read_parquet(str(pages / "*.parquet"))
        ids = nshash.dask.similar_ids(ddf, column="content").compute()
        seconds = time.perf_counter() - start
        cpu = _cpu_seconds() - cpu
        workers_cpu = sum(client.run(_cpu_seconds).values()) - sum(workers_cpu.values())
        peak = _status_mb("VmHWM")
        workers_peak = sorted(client.run(_status_mb, "VmHWM").values())
        partitions = ddf.npartitions
    np.save(ids_out, ids.to_numpy(dtype="int64"))
    return {
        "seconds": seconds,
        "rss_before_mb": before,
        "peak_mb": peak,
        "workers_peak_mb": workers_peak,
        "partitions": partitions,
        "driver_cpu_seconds": cpu,
        "workers_cpu_seconds": workers_cpu,
    }


def in_process(kind: str, pages: Path, ids_out: Path, workers: int) -> dict[str, Any]:
    """One run in a fresh interpreter (its own peak memory); the same PYTHONPATH, so the same nshash."""
    command = [sys.executable, __file__, "--run", kind, "--pages", str(pages), "--ids", str(ids_out)]
    command += ["--workers", str(workers)]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


# -- the report ------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--per-file", type=int, default=5_000, help="pages a Parquet file (a partition)")
    ap.add_argument("--data", type=Path, default=HERE / "data")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "dask_scale.md")
    ap.add_argument("--run", choices=["local", "dask"], help=argparse.SUPPRESS)
    ap.add_argument("--pages", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--ids", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        result = (
            run_local(args.pages, args.ids) if args.run == "local" else run_dask(args.pages, args.ids, args.workers)
        )
        print(json.dumps(result))
        return 0

    import numpy as np

    texts, _ = synthesise(load_records(args.data), args.docs)
    with tempfile.TemporaryDirectory(prefix="nshash-dask-scale-") as tmp:
        pages = Path(tmp) / "pages"
        write_pages(texts, pages, args.per_file)
        chars = sum(map(len, texts))
        del texts
        local = in_process("local", pages, Path(tmp) / "local.npy", args.workers)
        print(f"local batch: {local}", file=sys.stderr)
        dask = in_process("dask", pages, Path(tmp) / "dask.npy", args.workers)
        print(f"dask: {dask}", file=sys.stderr)
        same = bool(np.array_equal(np.load(Path(tmp) / "local.npy"), np.load(Path(tmp) / "dask.npy")))
        ceiling = parallel_ceiling(pages, args.workers)
        print(f"{args.workers} processes at once: {ceiling:.2f}x one", file=sys.stderr)
    report = render(args, chars, local, dask, same, ceiling)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, encoding="utf-8")
    print(report)
    return 0 if same else 1


def render(
    args: argparse.Namespace, chars: int, local: dict[str, Any], dask: dict[str, Any], same: bool, ceiling: float
) -> str:
    docs = args.docs
    per_page = (dask["peak_mb"] - dask["rss_before_mb"]) * 2**20 / docs
    local_per_page = (local["peak_mb"] - local["rss_before_mb"]) * 2**20 / docs
    million_gb = (dask["rss_before_mb"] * 2**20 + per_page * 1_000_000) / 2**30
    ratio = local["seconds"] / dask["seconds"]
    total_cpu = dask["driver_cpu_seconds"] + dask["workers_cpu_seconds"]
    if docs >= 1_000_000:
        driver = [
            "## The driver at 1M pages (measured)",
            "",
            f"Its peak resident set: **{dask['peak_mb'] / 1024:.2f} GB** for {docs:,} pages (target: 2 GB); "
            f"extrapolated from its growth a page as below: {million_gb:.2f} GB.",
        ]
    else:
        driver = ["## The driver at 1M pages (an extrapolation, not a measurement)"]
    lines = [
        "# nshash.dask.similar_ids against local batch",
        "",
        f"Generated by `python benchmarks/dask_scale.py --docs {docs} --workers {args.workers} "
        f"--per-file {args.per_file}` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC}, "
        f"Python {platform.python_version()}, {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} cores shared with other jobs (load average {os.getloadavg()[0]:.1f} when the "
        "report was written): one run each, so the ratio is rough.",
        "",
        f"{docs:,} pages ({chars / docs:,.0f} characters on average) synthesised from the labelled corpus "
        f"files (see the script) in {dask['partitions']} Parquet files read with "
        '`dd.read_parquet("pages/*.parquet")` (unknown divisions); '
        f"`LocalCluster(n_workers={args.workers}, processes=True, threads_per_worker=1)`; each run in its "
        "own process. Local batch: `nshash.similar_ids` on the list read with `pd.read_parquet` "
        "(reading not timed). "
        'Dask: `nshash.dask.similar_ids(ddf, column="content").compute()`, reading included.',
        f"Identical ids: **{'yes' if same else 'NO'}**.",
        "",
        "| run | wall time (s) | pages/s | vs local batch | peak RSS of the process (MB) | growth a page |",
        "|---|---:|---:|---:|---:|---:|",
        f"| local batch | {local['seconds']:.1f} | {docs / local['seconds']:,.0f} | 1.00x | "
        f"{local['peak_mb']:,.0f} | {local_per_page / 1024:.2f} KB |",
        f"| Dask driver | {dask['seconds']:.1f} | {docs / dask['seconds']:,.0f} | {ratio:.2f}x | "
        f"{dask['peak_mb']:,.0f} | {per_page / 1024:.2f} KB |",
        f"| Dask workers | | | | {', '.join(f'{m:,.0f}' for m in dask['workers_peak_mb'])} | |",
        "",
        *driver,
        "",
        f"{dask['rss_before_mb']:,.0f} MB before the run + {per_page / 1024:.2f} KB a page x 1,000,000 = "
        f"**{million_gb:.2f} GB** (target: 2 GB). What grows a page is the run's in-memory index "
        "(sentence keys and cluster members in the memory store's tables: the same bytes a page as "
        "local batch without its features) and 16 bytes of ids and 16 of the computed result; the "
        "features of one partition at a time come and go. The driver's bytes a page are therefore the "
        "memory store's: at 300 bytes a page it would be about "
        f"{(dask['rss_before_mb'] * 2**20 + (300 + 32) * 1_000_000) / 2**30:.1f} GB.",
        "",
        "## Where the time goes",
        "",
        "Local batch's work in the steps Dask splits, timed apart in its process: "
        f"{local['features_seconds']:.1f} s computing features and {local['pack_seconds']:.1f} s packing "
        "them a partition at a time (`nshash.packed`: what the workers do), "
        f"{local['assign_seconds']:.1f} s deciding from the packed partitions (what stays in the driver, in "
        "input order: that is what makes the ids those of local batch); "
        f"{local['features_seconds'] + local['pack_seconds'] + local['assign_seconds']:.1f} s against "
        f"{local['seconds']:.1f} s for `similar_ids`, which keys and decides a chunk of pages in one C call. "
        f"In the Dask run the driver used {dask['driver_cpu_seconds']:.1f} s of CPU (the decision, the "
        f"scheduler, receiving the partitions) and the workers {dask['workers_cpu_seconds']:.1f} s (reading "
        f"the Parquet files, features, packing, sending): {total_cpu:.1f} s in {dask['seconds']:.1f} s of "
        "wall time.",
        "",
        f"This machine's ceiling: {args.workers} processes computing features at once, each on the same "
        f"20,000 pages, ran at **{ceiling:.2f}x** one process alone (`parallel_ceiling` in the script): its "
        f"{os.cpu_count()} cores do not give {args.workers}x, so the workers' features cannot go faster than that "
        "here, before the driver's decision takes its share of the same cores. "
        "The driver's decision alone is the ceiling where the workers have cores of their own: "
        f"{args.docs / local['assign_seconds']:,.0f} pages a second here "
        f"({local['seconds'] / local['assign_seconds']:.1f}x local batch).",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
