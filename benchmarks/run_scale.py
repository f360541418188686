"""Quality at twice the size: a corpus's tune and held-out files alone and interleaved into one crawl.

    python benchmarks/run_scale.py [--data DIR ...] [--langs zh en] [--methods nshash rensa-lsh ...] [--out DIR]

The tune and held-out files of one language (``benchmarks/make_corpus.py``)
are built from disjoint source documents and disjoint sites, so feeding
them as one crawl (interleaved in proportion, each file's order kept) makes
a corpus twice the size with no near-duplicate across the two halves.  Per
method, the table gives P/R/F1 on each file alone and on the two together,
and splits the false pairs of the joint run into pairs within one half and
pairs across the halves (always wrong: different articles of different
sites).  More documents mean more pages that share paragraphs with some
earlier page (templated siblings, verbatim notices), so precision is
expected to fall somewhat; this measures how far.  One ``--data`` directory
per seed (default: ``benchmarks/data``).  Writes ``scale.md`` and
``scale.json`` to ``--out`` (default ``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from metrics import PairCounts, pair_counts, pair_scores  # noqa: E402
from peers import Method, Unavailable, build_methods  # noqa: E402
from run_quality import environment, load_corpus, markdown_table, write_report  # noqa: E402

DEFAULT_METHODS = ("nshash", "nshash-batch", "rensa-lsh")


def interleave(a: list[Any], b: list[Any]) -> list[tuple[int, Any]]:
    """``a`` and ``b`` as one sequence, in proportion, each in its own order: ``(half, item)``.

    >>> [half for half, _ in interleave([1, 2, 3, 4], [5, 6])]
    [0, 1, 0, 0, 1, 0]
    """
    out: list[tuple[int, Any]] = []
    i = j = 0
    while i < len(a) or j < len(b):
        if j >= len(b) or (i < len(a) and i * len(b) <= j * len(a)):
            out.append((0, a[i]))
            i += 1
        else:
            out.append((1, b[j]))
            j += 1
    return out


def false_pairs(labels: Sequence[str], halves: Sequence[int], pred: Sequence[Hashable]) -> tuple[int, int]:
    """False pairs of a clustering: ``(within one half, across the halves)``.

    >>> false_pairs(["a", "b", "c", "c"], [0, 0, 1, 1], [1, 1, 1, 2])
    (1, 2)
    """
    clusters: dict[Hashable, list[tuple[int, str]]] = {}
    for label, half, cluster in zip(labels, halves, pred):
        clusters.setdefault(cluster, []).append((half, label))
    within = across = 0
    for members in clusters.values():
        counts = Counter(half for half, _ in members)
        across += counts[0] * counts[1]
        for h in (0, 1):
            in_half = Counter(label for half, label in members if half == h)
            size = counts[h]
            within += size * (size - 1) // 2 - sum(c * (c - 1) // 2 for c in in_half.values())
    return within, across


def score(counts: PairCounts) -> dict[str, float]:
    p, r, f1 = pair_scores(counts)
    return {"P": p, "R": r, "F1": f1}


def seed_of(data: Path) -> str:
    """The corpus's seed from its manifest (``make_corpus.py --seed``), else the directory's name."""
    try:
        return str(json.loads((data / "manifest.json").read_text(encoding="utf-8"))["seed"])
    except (OSError, ValueError, KeyError):
        return data.name


def run_seed(data: Path, lang: str, methods: list[Method], skipped: dict[str, str]) -> list[dict[str, Any]]:
    tune = list(zip(*load_corpus(data / f"{lang}-tune.jsonl")))
    held = list(zip(*load_corpus(data / f"{lang}-heldout.jsonl")))
    joint = interleave(tune, held)
    rows = []
    for method in methods:
        if method.name in skipped:
            continue
        try:
            alone = [
                score(pair_counts([lab for _, lab in part], method.fit_labels([t for t, _ in part])))
                for part in (tune, held)
            ]
            pred = method.fit_labels([text for _, (text, _) in joint])
        except Unavailable as e:
            skipped[method.name] = str(e)
            continue
        labels = [label for _, (_, label) in joint]
        halves = [half for half, _ in joint]
        within, across = false_pairs(labels, halves, pred)
        counts = pair_counts(labels, pred)
        row = {"data": str(data), "seed": seed_of(data), "lang": lang, "method": method.name, "docs": len(joint)}
        row |= {"tune": alone[0], "heldout": alone[1], "joint": score(counts)}
        row |= {"false_within": within, "false_across": across, "predicted_pairs": counts.same_pred}
        rows.append(row)
        print(f"{row['seed']} {lang} {method.name}: joint P {row['joint']['P']:.4f}", file=sys.stderr)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    columns = ["seed", "lang", "method", "docs", "tune P / R", "held-out P / R", "joint P / R / F1"]
    columns += ["P joint - mean alone", "false pairs: within / across"]
    out = []
    for r in rows:
        mean_p = (r["tune"]["P"] + r["heldout"]["P"]) / 2
        out.append(
            [
                r["seed"],
                r["lang"],
                r["method"],
                f"{r['docs']:,}",
                f"{r['tune']['P']:.4f} / {r['tune']['R']:.4f}",
                f"{r['heldout']['P']:.4f} / {r['heldout']['R']:.4f}",
                f"{r['joint']['P']:.4f} / {r['joint']['R']:.4f} / {r['joint']['F1']:.4f}",
                f"{r['joint']['P'] - mean_p:+.4f}",
                f"{r['false_within']:,} / {r['false_across']:,}",
            ]
        )
    return markdown_table(columns, out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, nargs="+", default=[HERE / "data"], help="corpus directories (one per seed)")
    ap.add_argument("--langs", nargs="+", default=["zh", "en"])
    ap.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS), help="method names (see run_quality.py)")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    args = ap.parse_args(argv)
    methods = build_methods(args.methods)
    rows: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    for data in args.data:
        for lang in args.langs:
            rows += run_seed(data, lang, methods, skipped)
    text = table(rows)
    print(text)
    env = environment()
    command = " ".join(["python benchmarks/run_scale.py", *(argv if argv is not None else sys.argv[1:])])
    md = [
        "# Quality at twice the size",
        "",
        f"Generated by `{command}` on {env['date']} "
        f"(Python {env['python']}, {env['machine']}, commit {env['commit']}).",
        "",
        "Each seed's tune and held-out files (disjoint articles and sites) alone, then interleaved into one "
        "crawl of twice the documents. False pairs of the joint run: within one half, and across the two "
        "halves (always wrong). Seeds other than the default corpus's are made with "
        "`python benchmarks/make_corpus.py --out DIR --seed SEED`.",
        "",
        text,
        "",
    ]
    write_report(args.out, "scale", md, skipped, {"environment": env, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
