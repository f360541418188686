"""How nshash.dask.similar_ids scales: wall time and peak worker memory on 1 and 2 workers.

    python benchmarks/dask_scale.py [--docs 1000000] [--workers 1 2] [--partitions 0]
        [--data benchmarks/data] [--out benchmarks/results/dask_scale.md]

The corpus is synthesised from the labelled corpus files (``benchmarks/data``):
repeat ``r`` of the corpus passes every document through a character
permutation seeded by ``r`` (the letters, the digits and the CJK ideographs),
so each repeat is a new crawl of new sites with the same duplicate and
boilerplate structure and no sentence in common with the other repeats.
Every run uses a fresh ``LocalCluster`` (processes, one thread per worker);
peak memory is each worker process's resident-set high-water mark (VmHWM),
reset when the run starts.  The ids of
every run must be identical (the script checks) and the pairwise scores
against the synthesised labels are reported.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import platform
import random
import resource
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from metrics import evaluate  # noqa: E402

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


def _reset_peak_rss() -> None:
    # A forked worker inherits its parent's ru_maxrss, so both workers once
    # "peaked" at the parent's 19.7 GB; Linux resets the high-water mark here.
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def _peak_rss_mb() -> float:
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(texts: list[str], workers: int, partitions: int) -> dict[str, Any]:
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster

    import nshash.dask

    logging.getLogger("distributed").setLevel(logging.ERROR)
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit=0
        ) as cluster,
        Client(cluster) as client,
    ):
        series = dd.from_pandas(pd.Series(texts, dtype=object), npartitions=partitions, sort=False)
        client.run(_reset_peak_rss)
        start = time.perf_counter()
        ids = nshash.dask.similar_ids(series).compute()
        seconds = time.perf_counter() - start
        peaks = client.run(_peak_rss_mb)
    return {"workers": workers, "seconds": seconds, "peak_mb": sorted(peaks.values()), "ids": ids.tolist()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--partitions", type=int, default=0, help="0: one per 20,000 documents (at least 4 per worker)")
    ap.add_argument("--data", type=Path, default=HERE / "data")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "dask_scale.md")
    args = ap.parse_args(argv)

    texts, labels = synthesise(load_records(args.data), args.docs)
    partitions = args.partitions or max(4 * max(args.workers), args.docs // 20_000)
    runs = []
    for workers in args.workers:
        result = run(texts, workers, partitions)
        print(f"{workers} worker(s): {result['seconds']:.1f} s, peak {result['peak_mb']} MB", file=sys.stderr)
        runs.append(result)
    same = all(r["ids"] == runs[0]["ids"] for r in runs)
    scores = evaluate(labels, runs[0]["ids"])
    report = render(args, partitions, runs, same, scores)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, encoding="utf-8")
    print(report)
    return 0 if same else 1


def render(args: argparse.Namespace, partitions: int, runs: list[dict[str, Any]], same: bool, scores: Any) -> str:
    base = runs[0]
    lines = [
        "# nshash.dask.similar_ids: scaling",
        "",
        f"Generated by `python benchmarks/dask_scale.py --docs {args.docs} --workers "
        f"{' '.join(map(str, args.workers))}` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC}, "
        f"Python {platform.python_version()}, {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} when the report was written.",
        "",
        f"{args.docs:,} documents synthesised from the labelled corpus files (see the script), "
        f"{partitions} partitions, `LocalCluster(processes=True, threads_per_worker=1)`.",
        f"Identical ids on every run: **{'yes' if same else 'NO'}**. Pairwise scores against the synthesised "
        f"labels: P={scores.precision:.3f} R={scores.recall:.3f} F1={scores.f1:.3f}.",
        "",
        "| workers | wall time (s) | docs/s | speed-up | peak memory per worker (MB) |",
        "|---:|---:|---:|---:|---|",
    ]
    for r in runs:
        lines.append(
            f"| {r['workers']} | {r['seconds']:.1f} | {args.docs / r['seconds']:,.0f} | "
            f"{base['seconds'] / r['seconds']:.2f}x | {', '.join(f'{m:,.0f}' for m in r['peak_mb'])} |"
        )
    lines += ["", *extrapolation(args.docs, runs)]
    return "\n".join(lines) + "\n"


def extrapolation(docs: int, runs: list[dict[str, Any]]) -> list[str]:
    one = next((r for r in runs if r["workers"] == 1), runs[0])
    two = next((r for r in runs if r["workers"] == 2), None)
    rate = docs / one["seconds"]  # documents per second on one worker
    efficiency = min(1.0, one["seconds"] / two["seconds"] / 2) if two else 0.85
    mb_per_doc = max(one["peak_mb"]) / docs
    target = 100_000_000
    lines = [
        "## Extrapolation to 100M documents",
        "",
        f"Assumptions: one worker process per core; a machine has 16 cores and 64 GB; "
        f"{rate:,.0f} documents/s per worker (measured on 1 worker); every doubling of the "
        f"workers keeps the measured 2-worker parallel efficiency ({efficiency:.2f}), i.e. "
        "shuffles stay network-bound and the cluster network scales with it; the boilerplate "
        "rounds and component iterations grow with log2 of the largest fingerprint group and "
        "of the component diameter, which this corpus already has (site footers on hundreds "
        "of pages), so their count is taken as measured; memory per worker grows with its "
        f"share of documents ({mb_per_doc * 1024:.1f} KB per document at the measured size, "
        "an upper bound: the interpreter's fixed ~100 MB is in it).",
        "",
        "| machines | workers | estimated wall time | documents per worker | est. peak memory per worker |",
        "|---:|---:|---:|---:|---:|",
    ]
    for machines in (1, 4, 16, 64):
        workers = machines * 16
        speed = rate * workers * efficiency ** math.log2(workers)
        hours = target / speed / 3600
        per_worker = target / workers
        memory_gb = per_worker * mb_per_doc / 1024
        lines.append(f"| {machines} | {workers} | {hours:,.1f} h | {per_worker:,.0f} | {memory_gb:,.1f} GB |")
    return lines


if __name__ == "__main__":
    sys.exit(main())
