"""The LevelDB store against the memory store, as the database grows.

    python benchmarks/leveldb_scale.py [--pages 3000 50000] [--rounds 3] [--data DIR]
        [--baseline SRC]

Pages are corpus texts cut to 1,000 characters (``run_speed.py``'s speed
documents, every file interleaved); past the corpus's end, they come round
again with a tag after every other sentence, so a page of a later round is a
near-duplicate of an earlier one (it matches, and its candidates' stored
members are read) with new sentences of its own (absent keys, then written).

For each size, every round runs each store once in a fresh interpreter, the
stores interleaved; docs/s (wall clock, and CPU time of the process, LevelDB's
compaction thread included) is the median over rounds.  ``--baseline SRC``
adds the LevelDB store of another source tree (e.g. the main branch's), run
the same way.  The ids all runs give are compared (they must be identical).
Writes ``results/leveldb_scale.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run_speed import _SEPARATORS, doc_tag, speed_docs  # noqa: E402

STORES = ("memory", "leveldb")


def pages(base: list[str], count: int) -> Iterator[str]:
    """``count`` pages: ``base``, then ``base`` again with every other sentence tagged per round."""
    for k in range(count):
        text = base[k % len(base)]
        rounds = k // len(base)
        if rounds:
            tag = doc_tag(rounds)
            for sep in _SEPARATORS:
                if sep in text:
                    parts = text.split(sep)
                    text = sep.join(part + tag if i % 2 else part for i, part in enumerate(parts))
        yield text


def worker(store: str, data: Path, count: int) -> dict[str, float | str]:
    """Time ``count`` pages through ``NSHash`` on ``store``; the ids' digest comes back too."""
    import nshash

    base = speed_docs(data, 100_000, 1000)
    texts = list(pages(base, count))
    with tempfile.TemporaryDirectory(prefix="leveldb-scale-") as tmp:
        name = None if store == "memory" else str(Path(tmp) / "bench")
        with nshash.NSHash(name=name, hashfunc="farmhash", hashdb=store) as index:
            get_similar = index.get_similar
            start, cpu = time.perf_counter(), time.process_time()
            ids = [get_similar(text) for text in texts]
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            size = index.store.size_bytes() or 0
    digest = hashlib.sha256(json.dumps(ids).encode()).hexdigest()[:16]
    return {"docs_per_s": count / seconds, "cpu_docs_per_s": count / cpu, "ids": digest, "bytes": size}


def run_worker(store: str, data: Path, count: int, source: Path | None = None) -> dict[str, float | str]:
    """:func:`worker` in a fresh interpreter, importing nshash from ``source`` if given."""
    cmd = [sys.executable, __file__, "--worker", store, "--data", str(data), "--pages", str(count)]
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    result: dict[str, float | str] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[3000, 50000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--baseline", type=Path, help="another source tree whose LevelDB store to run too")
    parser.add_argument("--worker", choices=STORES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.data, args.pages[0])))
        return 0
    kinds = [("memory", "memory", None), ("LevelDB", "leveldb", None)]
    if args.baseline is not None:
        kinds.append(("LevelDB, baseline", "leveldb", args.baseline))
    lines = [
        "# LevelDB against the memory store, as the database grows",
        "",
        f"`python benchmarks/leveldb_scale.py --pages {' '.join(map(str, args.pages))} --rounds {args.rounds}"
        f"{f' --baseline {args.baseline}' if args.baseline else ''}`: NSHash defaults (farmhash), pages from "
        f"`{args.data.name}/` cut to 1,000 characters and, past the corpus, near-duplicates of them with new "
        "sentences; each store in a fresh interpreter, the stores interleaved, median of "
        f"{args.rounds} rounds; docs/s by the wall clock and by the process's CPU time. "
        f"Python {platform.python_version()}, {platform.machine()}, a 2-core machine shared with other work "
        "(the CPU-time figures suffer less from that).",
    ]
    if args.baseline is not None:
        lines += ["", f"The baseline is the LevelDB store of the source tree `{args.baseline}`."]
    lines += [
        "",
        "| pages | store | docs/s | CPU docs/s | / memory (wall) | / memory (CPU) | on disk (MiB) |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    digests = set()
    for count in args.pages:
        runs: dict[str, list[dict[str, float | str]]] = {label: [] for label, _, _ in kinds}
        for _ in range(args.rounds):
            for label, store, source in kinds:
                runs[label].append(run_worker(store, args.data, count, source))
                print(count, label, runs[label][-1], file=sys.stderr)
        digests |= {(count, run["ids"]) for label in runs for run in runs[label]}
        wall = {label: statistics.median(float(run["docs_per_s"]) for run in runs[label]) for label in runs}
        cpu = {label: statistics.median(float(run["cpu_docs_per_s"]) for run in runs[label]) for label in runs}
        for label in runs:
            size = float(runs[label][-1]["bytes"])
            lines.append(
                f"| {count:,} | {label} | {wall[label]:,.0f} | {cpu[label]:,.0f} | "
                f"{wall[label] / wall['memory']:.2f}x | {cpu[label] / cpu['memory']:.2f}x | "
                f"{size / 2**20:,.1f} |"
                if label != "memory"
                else f"| {count:,} | memory | {wall[label]:,.0f} | {cpu[label]:,.0f} | | | |"
            )
    same = len(digests) == len(args.pages)
    lines += ["", f"Every run gave the same ids for the same pages: {'yes' if same else 'NO'}."]
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "leveldb_scale.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
