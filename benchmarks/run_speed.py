"""Throughput and memory of every method, each in a fresh subprocess.

    python benchmarks/run_speed.py [--docs 5000] [--chars 1000] [--repeat 3] [--rounds 3]
        [--methods NAME ...] [--variant 'LABEL={...}'] [--store-docs 1000000]
        [--skip-store]

Part 1, every method on the same documents (corpus texts cut to ``--chars``
characters, files interleaved in arrival order): docs/s as the median of
``--repeat`` runs, each from an empty index, in each of ``--rounds`` fresh
subprocesses; the methods take turns round by round, so a slow spell of a
shared machine falls on all of them, not on one.  docs/s in wall-clock time
and in the process's CPU time (what the machine's other tenants do not
inflate); the growth of the RSS high-water mark during the first run; and,
in a second subprocess so tracing never slows the timed runs, the
tracemalloc peak of one run.

Part 2, the nshash memory store at scale: ``--store-docs`` distinct documents
made by tagging every sentence of a corpus text with the document number;
bytes per stored fingerprint = growth of resident memory / fingerprints
stored. The 2019 baseline's dict is measured the same way for comparison.

Writes ``speed.md`` and ``speed.json`` to ``--out``.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from original import OriginalNSHash
from peers import (
    SPEED_ONLY_VARIANTS,
    Unavailable,
    build_methods,
    open_nshash,
    parse_variant,
)
from run_quality import environment, find_files, load_corpus, markdown_table

HERE = Path(__file__).resolve().parent
MIN_CHARS = 200
WARMUP_DOCS = 20
MIB = 1024 * 1024


# -- documents ----------------------------------------------------------------


def corpus_texts(data: Path) -> list[str]:
    """All corpus texts, the files interleaved so every language is present."""
    per_file = [load_corpus(p)[0] for p in find_files(data, None)]
    longest = max((len(t) for t in per_file), default=0)
    return [t[i] for i in range(longest) for t in per_file if i < len(t)]


def speed_docs(data: Path, n: int, chars: int) -> list[str]:
    """The first ``n`` corpus texts of at least 200 chars, cut to ``chars``."""
    docs = [t[:chars] for t in corpus_texts(data) if len(t) >= MIN_CHARS]
    return docs[:n]


_LATIN = "abcdefghijklmnopqrstuvwxyz"
_SEPARATORS = ("\n", "。", "！", "？", ". ", "! ", "? ")


def doc_tag(k: int) -> str:
    """A distinct word per number, in Latin and CJK letters, no digits.

    Both scripts, because a normaliser may drop one of them; no digits,
    because one may drop those too.
    """
    latin, cjk = [], []
    x = k
    while True:
        x, r = divmod(x, 26)
        latin.append(_LATIN[r])
        if not x:
            break
    x = k
    while True:
        x, r = divmod(x, 2000)
        cjk.append(chr(0x4E00 + r))
        if not x:
            break
    return "".join(latin) + "".join(cjk)


def distinct_docs(base: Sequence[str], count: int) -> Iterator[str]:
    """Yield ``count`` documents whose every sentence is unique.

    Document ``k`` is ``base[k % len(base)]`` with a tag for ``k`` after every
    separator, so no sentence (and no fingerprint) repeats across documents.
    """
    for k in range(count):
        text = base[k % len(base)]
        tag = doc_tag(k)
        for sep in _SEPARATORS:
            if sep in text:
                text = text.replace(sep, sep + tag)
        yield tag + text


# -- process memory --------------------------------------------------------------


def maxrss_bytes() -> int:
    """High-water mark of this process's resident memory.

    ``/proc/self/status``'s VmHWM first: ``getrusage``'s ``ru_maxrss`` is
    floored at the RSS the parent had when it forked this worker (Linux keeps
    the pre-exec peak), which hides everything smaller than the parent.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    # Linux reports KiB; elsewhere the inherited floor may apply.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def reset_peak_rss() -> bool:
    """Return freed heap to the OS, then lower the high-water mark to the current RSS.

    Without this, the transient peak of loading the documents hides any index
    smaller than it, and heap memory glibc kept after freeing it absorbs one.
    Linux (>= 4.0) only; returns False where the kernel does not allow it.
    """
    # Not glibc: no trim, and the peak is still reset, only less precisely.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def rss_bytes() -> int:
    """Current resident memory; the high-water mark where /proc is missing."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return maxrss_bytes()


# -- workers (run in a subprocess) -------------------------------------------------


def worker_time(name: str, variants: list[tuple[str, dict[str, Any]]], docs: list[str], repeat: int) -> dict[str, Any]:
    """Time ``repeat`` runs; the first also gives the RSS high-water growth."""
    (method,) = build_methods([name], variants)
    # Imports and lazy setup are paid here, before the baseline.
    method.fit_labels(docs[:WARMUP_DOCS])
    gc.collect()
    peak_reset = reset_peak_rss()
    base = maxrss_bytes()
    seconds, cpu_seconds = [], []
    rss_growth = 0
    for i in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        method.fit_labels(docs)
        seconds.append(time.perf_counter() - start)
        cpu_seconds.append(time.process_time() - cpu)
        if i == 0:
            rss_growth = maxrss_bytes() - base
        gc.collect()
    return {"seconds": seconds, "cpu_seconds": cpu_seconds, "rss_peak_growth": rss_growth, "peak_reset": peak_reset}


def combine_rounds(docs: int, rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """One method's timed rounds as one result: medians and best over every run; the first round's RSS growth.

    A round that failed (``error``/``skipped``) makes the result that round's.
    """
    failed = next((r for r in rounds if "seconds" not in r), None)
    if failed is not None:
        return failed
    seconds = [s for r in rounds for s in r["seconds"]]
    cpu = [s for r in rounds for s in r["cpu_seconds"]]
    return {
        "docs_per_s": docs / statistics.median(seconds),
        "best_docs_per_s": docs / min(seconds),
        "cpu_docs_per_s": docs / statistics.median(cpu),
        "seconds": seconds,
        "cpu_seconds": cpu,
        "rss_peak_growth": rounds[0]["rss_peak_growth"],
        "peak_reset": rounds[0]["peak_reset"],
    }


def worker_trace(name: str, variants: list[tuple[str, dict[str, Any]]], docs: list[str]) -> dict[str, Any]:
    """Peak of Python-heap allocations during one run."""
    (method,) = build_methods([name], variants)
    method.fit_labels(docs[:WARMUP_DOCS])
    gc.collect()
    tracemalloc.start()
    method.fit_labels(docs)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"tracemalloc_peak": peak}


def count_fingerprints(nsh: Any) -> int:
    """Fingerprints held by an nshash store.

    Raises:
        Unavailable: if this nshash version exposes no count.
    """
    stats = getattr(nsh, "stats", None)
    if stats is not None:
        return int(stats()["fingerprints"])
    try:
        return len(nsh.store)
    except (AttributeError, TypeError) as e:
        raise Unavailable("nshash exposes neither stats() nor len(store)") from e


def worker_store(kind: str, base: list[str], count: int) -> dict[str, Any]:
    """Feed ``count`` distinct documents to one in-memory store; measure it."""
    gc.collect()
    if kind == "nshash":
        nsh: Any = open_nshash({})
    elif kind == "original":
        nsh = OriginalNSHash()
    else:
        raise ValueError(f"unknown store kind {kind!r}")
    get_similar = nsh.get_similar
    # Every sentence is tagged, so warm nothing up: it would add fingerprints.
    before = rss_bytes()
    start = time.perf_counter()
    for doc in distinct_docs(base, count):
        get_similar(doc)
    seconds = time.perf_counter() - start
    gc.collect()
    growth = rss_bytes() - before
    fps = count_fingerprints(nsh) if kind == "nshash" else len(nsh.db)
    return {
        "docs": count,
        "fingerprints": fps,
        "rss_growth": growth,
        "bytes_per_fingerprint": growth / fps if fps else None,
        "docs_per_s": count / seconds,
    }


def worker_main(args: argparse.Namespace) -> int:
    variants = [parse_variant(v) for v in args.variant]
    try:
        if args.worker_store:
            base = json.loads(Path(args.docs_file).read_text(encoding="utf-8"))
            out = worker_store(args.worker_store, base, args.store_docs)
        else:
            docs = json.loads(Path(args.docs_file).read_text(encoding="utf-8"))
            if args.measure == "trace":
                out = worker_trace(args.worker, variants, docs)
            else:
                out = worker_time(args.worker, variants, docs, args.repeat)
    except Unavailable as e:
        out = {"skipped": str(e)}
    print(json.dumps(out))
    return 0


# -- parent ---------------------------------------------------------------------


def spawn(flags: list[str], timeout: float) -> dict[str, Any]:
    """Run this script as a worker in a fresh interpreter and parse its JSON."""
    cmd = [sys.executable, str(Path(__file__).resolve()), *flags]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"error": f"exit {proc.returncode}: {tail[0]}"}
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE / "data", help="corpus directory")
    ap.add_argument("--docs", type=int, default=5000, help="documents per timed run")
    ap.add_argument("--chars", type=int, default=1000, help="cut documents to this length")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per method and round (median)")
    ap.add_argument("--rounds", type=int, default=3, help="fresh subprocesses per method, methods in turn")
    ap.add_argument("--methods", nargs="+", help="method names to run (default: all)")
    ap.add_argument("--variant", action="append", default=[], help="extra nshash variant LABEL=JSON")
    ap.add_argument("--store-docs", type=int, default=1_000_000, help="documents for part 2")
    ap.add_argument("--skip-store", action="store_true", help="skip part 2")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per subprocess")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    # Internal: what a worker subprocess is asked to do.
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--worker-store", help=argparse.SUPPRESS)
    ap.add_argument("--measure", default="time", help=argparse.SUPPRESS)
    ap.add_argument("--docs-file", help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def _mib(x: float | None) -> str:
    return "-" if x is None else f"{x / MIB:,.1f}"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker or args.worker_store:
        return worker_main(args)
    if args.repeat < 1 or args.docs < 1 or args.rounds < 1:
        print("error: --repeat, --rounds and --docs must be >= 1", file=sys.stderr)
        return 2
    variant_specs = list(args.variant)
    extra = [f"{label}={json.dumps(opts)}" for label, opts in SPEED_ONLY_VARIANTS]
    try:
        variants = [parse_variant(v) for v in extra + variant_specs]
        methods = build_methods(args.methods, variants)
        docs = speed_docs(args.data, args.docs, args.chars)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    variant_flags = [f for spec in extra + variant_specs for f in ("--variant", spec)]
    mean_chars = sum(map(len, docs)) / len(docs)
    print(f"{len(docs)} docs, mean {mean_chars:.0f} chars", file=sys.stderr)

    rows: list[dict[str, Any]] = []
    store_rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="nshash-speed-") as tmp:
        docs_file = Path(tmp) / "docs.json"
        docs_file.write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
        common = ["--docs-file", str(docs_file), *variant_flags]
        rounds: dict[str, list[dict[str, Any]]] = {m.name: [] for m in methods}
        for turn in range(args.rounds):
            for m in methods:
                if turn and "seconds" not in rounds[m.name][0]:
                    continue  # skipped or failed: once is enough
                timed = spawn(["--worker", m.name, "--repeat", str(args.repeat), *common], args.timeout)
                rounds[m.name].append(timed)
                print(f"round {turn + 1} {m.name:<28} {json.dumps(timed)[:100]}", file=sys.stderr)
        for m in methods:
            row: dict[str, Any] = {"method": m.name, **combine_rounds(len(docs), rounds[m.name])}
            if "docs_per_s" in row:
                row.update(spawn(["--worker", m.name, "--measure", "trace", *common], args.timeout))
            rows.append(row)

        if not args.skip_store:
            base_file = Path(tmp) / "base.json"
            base = [t for t in corpus_texts(args.data) if len(t) >= MIN_CHARS]
            base_file.write_text(json.dumps(base, ensure_ascii=False), encoding="utf-8")
            for kind in ("nshash", "original"):
                flags = ["--worker-store", kind, "--docs-file", str(base_file)]
                flags += ["--store-docs", str(args.store_docs)]
                r = {"store": kind, **spawn(flags, args.timeout)}
                store_rows.append(r)
                print(f"store {kind}: {json.dumps(r)}", file=sys.stderr)

    speed_table = markdown_table(
        [
            "method",
            "docs/s (median)",
            "docs/s (best)",
            "CPU docs/s (median)",
            "peak RSS growth MiB",
            "tracemalloc peak MiB",
            "traced bytes/doc",
        ],
        [
            [
                r["method"],
                f"{r['docs_per_s']:,.0f}",
                f"{r['best_docs_per_s']:,.0f}",
                f"{r['cpu_docs_per_s']:,.0f}",
                _mib(r["rss_peak_growth"]),
                _mib(r.get("tracemalloc_peak")),
                f"{r['tracemalloc_peak'] / len(docs):,.0f}" if "tracemalloc_peak" in r else "-",
            ]
            for r in rows
            if "docs_per_s" in r
        ],
    )
    not_run = [f"- **{r['method']}**: {r.get('skipped') or r.get('error')}" for r in rows if "docs_per_s" not in r]
    store_table = markdown_table(
        ["store", "docs", "fingerprints", "RSS growth MiB", "bytes/fingerprint", "docs/s"],
        [
            [
                "nshash memory (farmhash)" if r["store"] == "nshash" else "original 2019 dict (md5 hex)",
                f"{r['docs']:,}",
                f"{r['fingerprints']:,}",
                _mib(r["rss_growth"]),
                f"{r['bytes_per_fingerprint']:.0f}" if r["bytes_per_fingerprint"] else "-",
                f"{r['docs_per_s']:,.0f}",
            ]
            for r in store_rows
            if "docs" in r
        ],
    )
    not_run += [
        f"- store **{r['store']}**: {r.get('skipped') or r.get('error')}" for r in store_rows if "docs" not in r
    ]
    print(speed_table)
    if store_rows:
        print()
        print(store_table)
    for line in not_run:
        print(line)

    env = environment()
    # Without the C accelerator (what users without a compiler get), the whole run is pure Python.
    switch = "NSHASH_NO_SPEEDUPS=1 " if os.environ.get("NSHASH_NO_SPEEDUPS") == "1" else ""
    md = [
        "# Speed and memory",
        "",
        f"Generated by `{switch}python benchmarks/run_speed.py {' '.join(argv or sys.argv[1:])}` on {env['date']} "
        f"(Python {env['python']}, {env['machine']}, {os.cpu_count()} CPUs, commit {env['commit']}).",
        "",
        f"## Throughput: {len(docs):,} documents, mean {mean_chars:.0f} chars",
        "",
        "Each method runs in fresh subprocesses on the same documents, the methods taking turns over "
        f"{args.rounds} rounds of {args.repeat} runs from an empty index. docs/s is the median (and the best) "
        "of those runs in wall-clock time, CPU docs/s their median in the process's CPU time (a shared "
        "machine's other tenants slow the first, much less the second); peak RSS growth is "
        "the rise of the process's resident high-water mark during the first run; "
        "tracemalloc peak comes from a separate run and sees only Python-heap "
        "allocations (not rensa's Rust or LevelDB's C++ memory).",
        "",
        speed_table,
        "",
    ]
    if store_rows:
        md += [
            f"## Memory store at scale: {args.store_docs:,} distinct documents",
            "",
            "Documents are corpus texts with a per-document tag after every sentence "
            "separator, so every fingerprint is new. bytes/fingerprint = growth of "
            "resident memory / fingerprints stored.",
            "",
            store_table,
            "",
        ]
    md += not_run
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "speed.md").write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    payload = {
        "environment": env,
        "cpus": os.cpu_count(),
        "docs": len(docs),
        "mean_chars": mean_chars,
        "repeat": args.repeat,
        "rounds": args.rounds,
        "throughput": rows,
        "store_docs": None if args.skip_store else args.store_docs,
        "store": store_rows,
    }
    (args.out / "speed.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out / 'speed.md'} and speed.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
