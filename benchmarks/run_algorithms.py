"""nshash's SimHash and Shingles against their PyPI counterparts, on the labelled corpus.

    python benchmarks/run_algorithms.py [--data DIR] [--files zh-heldout ...]
        [--methods NAME ...] [--variant 'nshash.SimHash ngram=2={"ngram": 2}'] [--limit N]

Pairs compared (same documents, same arrival order, same union-find of matches):

* ``nshash.SimHash`` (defaults) vs PyPI ``simhash`` (``Simhash`` + ``SimhashIndex(k=3)``),
* ``nshash.Shingles`` (defaults) vs ``datasketch`` (``MinHash`` + ``MinHashLSH``, 128 perms, threshold 0.7),

plus nshash's own ``NSHash`` for reference.  A ``--variant`` label starts
with the class it configures (``nshash.SimHash``, ``nshash.Shingles`` or ``nshash.NSHash``).
Writes ``algorithms.json`` and the tables of ``algorithms.md`` (between its
``results`` markers, keeping the text around them) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

from metrics import evaluate
from peers import DatasketchLSH, IndexMethod, Method, Simhash, Unavailable, parse_variant, select_methods
from run_quality import environment, find_files, load_corpus, markdown_table, split_name

HERE = Path(__file__).resolve().parent
START = "<!-- results:start (written by run_algorithms.py) -->"
END = "<!-- results:end -->"
#: (ours, PyPI counterpart): the pairs the targets are about.
PAIRS = [("nshash.SimHash", "simhash"), ("nshash.Shingles", "datasketch-lsh")]
COLUMNS = ["method", "file", "P", "R", "F1", "ARI", "docs/s", "store entries/doc"]
PAIR_COLUMNS = ["file", "ours", "PyPI", "F1 ours", "F1 PyPI", "ΔF1", "speed-up"]


def build(names: Sequence[str] | None, variants: Sequence[tuple[str, dict[str, Any]]]) -> list[Method]:
    """The methods to run: both pairs, NSHash, then the variants; ``names`` keeps some.

    Raises:
        ValueError: a name matches no method, or a variant names no class.
    """
    methods: list[Method] = [
        IndexMethod("nshash.SimHash", {}),
        Simhash(),
        IndexMethod("nshash.Shingles", {}),
        DatasketchLSH(),
        IndexMethod("nshash.NSHash", {}),
    ]
    methods += [IndexMethod(label, options) for label, options in variants]
    return select_methods(methods, names)


def measure(method: Method, texts: list[str], labels: list[str], repeat: int) -> dict[str, Any]:
    """Scores of ``method`` and its speed: the best CPU time of ``repeat`` runs.

    CPU time of this process, not wall time: the machines these run on are
    shared, and another job's load must not count against a method.

    Raises:
        Unavailable: passed on from the method.
    """
    method.fit_labels(texts[:2])  # lazy imports and warm-up, outside the timing
    best = float("inf")
    pred: list[Hashable] = []
    for _ in range(repeat):
        start = time.process_time()
        pred = method.fit_labels(texts)
        best = min(best, time.process_time() - start)
    return {
        **evaluate(labels, pred).as_dict(),
        "cpu_seconds": best,
        "docs_per_s": len(texts) / best if best else float("inf"),
        "n_pred_clusters": len(set(pred)),
        "store_entries_per_doc": getattr(method, "entries_per_doc", None),
    }


def pair_rows(results: list[dict[str, Any]]) -> list[list[str]]:
    """One row per (pair, file) where both methods ran: F1 difference and speed-up."""
    by_key = {(r["method"], r["file"]): r for r in results}
    rows = []
    for ours, theirs in PAIRS:
        for file in dict.fromkeys(r["file"] for r in results):
            a, b = by_key.get((ours, file)), by_key.get((theirs, file))
            if a is None or b is None:
                continue
            rows.append(
                [
                    file,
                    ours,
                    theirs,
                    f"{a['f1']:.3f}",
                    f"{b['f1']:.3f}",
                    f"{a['f1'] - b['f1']:+.3f}",
                    f"{a['docs_per_s'] / b['docs_per_s']:.1f}x",
                ]
            )
    return rows


def render(results: list[dict[str, Any]], methods: list[Method], corpora: list[dict[str, Any]], argv: str) -> str:
    """The generated part of ``algorithms.md``."""
    env = environment()
    rows = [
        [
            r["method"],
            r["file"],
            f"{r['precision']:.3f}",
            f"{r['recall']:.3f}",
            f"{r['f1']:.3f}",
            f"{r['ari']:.3f}",
            f"{r['docs_per_s']:,.0f}",
            "-" if r.get("store_entries_per_doc") is None else f"{r['store_entries_per_doc']:.1f}",
        ]
        for r in results
    ]
    settings = "\n".join(f"- **{m.name}**: {m.settings}" for m in methods)
    files = ", ".join(f"{c['file']} ({c['docs']} docs, {c['clusters']} clusters)" for c in corpora)
    return "\n\n".join(
        [
            START,
            f"`python benchmarks/run_algorithms.py{argv}` — {env['date']}, Python {env['python']}, "
            f"{env['machine']}; corpus: {files}. docs/s: documents over CPU seconds of the best of "
            "`--repeat` runs over the whole file, index included (in memory).",
            "### Each algorithm against its PyPI counterpart",
            markdown_table(PAIR_COLUMNS, pair_rows(results)),
            "### All methods",
            markdown_table(COLUMNS, rows),
            "### Settings",
            settings,
            END,
        ]
    )


def write_markdown(path: Path, generated: str) -> None:
    """Replace the generated block of ``path`` (or create the file with just that block)."""
    if path.exists():
        text = path.read_text(encoding="utf-8")
        if START in text and END in text:
            head, _, rest = text.partition(START)
            _, _, tail = rest.partition(END)
            path.write_text(head + generated + tail, encoding="utf-8")
            return
    path.write_text("# SimHash and Shingles against their PyPI counterparts\n\n" + generated + "\n", encoding="utf-8")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE / "data", help="corpus directory")
    ap.add_argument("--files", nargs="+", help="corpus files or names like zh-heldout")
    ap.add_argument("--methods", nargs="+", help="method names to run (default: all)")
    ap.add_argument("--variant", action="append", default=[], metavar="LABEL=JSON", help="extra variant (repeatable)")
    ap.add_argument("--limit", type=int, help="keep the first N documents of each file")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per method and file; the fastest counts")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    raw = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(raw)
    try:
        methods = build(args.methods, [parse_variant(v) for v in args.variant])
        files = find_files(args.data, args.files)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    results: list[dict[str, Any]] = []
    corpora = []
    for path in files:
        texts, labels = load_corpus(path, args.limit)
        corpora.append({"file": path.name, "docs": len(texts), "clusters": len(set(labels))})
        lang, split = split_name(path)
        for method in methods:
            try:
                r = measure(method, texts, labels, args.repeat)
            except Unavailable as e:
                print(f"skipped {method.name}: {e}", file=sys.stderr)
                continue
            r.update(method=method.name, lang=lang, split=split, file=path.name)
            results.append(r)
            print(
                f"{path.name:>20} {method.name:<36} P={r['precision']:.3f} R={r['recall']:.3f} "
                f"F1={r['f1']:.3f} {r['docs_per_s']:,.0f} docs/s",
                file=sys.stderr,
            )
    shown_args = "".join(f" {a}" if " " not in a else f" '{a}'" for a in raw)
    args.out.mkdir(parents=True, exist_ok=True)
    generated = render(results, methods, corpora, shown_args)
    write_markdown(args.out / "algorithms.md", generated)
    payload = {"environment": environment(), "corpora": corpora, "results": results}
    (args.out / "algorithms.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(markdown_table(PAIR_COLUMNS, pair_rows(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
