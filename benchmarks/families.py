"""One table of every corpus family's committed quality run: nshash against the others.

    python benchmarks/families.py [--results benchmarks/results] [--out benchmarks/results/families.md]

Reads the ``quality.json`` each family's ``run_quality.py`` run wrote (see ``benchmarks/README.md`` for the
commands) and averages its files per language: nshash online and batch, the tool or baseline with the
highest mean F1 (the 2019 algorithm, with union-find, one longest sentence, PyPI simhash, datasketch,
rensa) and the better of nshash's SimHash and Shingles. Nothing is run here: the table is only as recent
as the runs it reads, each row names its run's date. The synthetic family's tune files are left out (its
thresholds were chosen there).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: (family, its run's folder under the results, what it is).
FAMILIES = (
    ("synthetic", ".", "benchmarks/data: Debian manuals on simulated sites, held-out files (not the tune files)"),
    (
        "independent",
        "indep",
        "a second generator: GNOME, KiCad, GIMP, LilyPond, Stellarium; GNOME, PostgreSQL, Perl, Git",
    ),
    ("independent, real articles", "indep-real", "the second generator on the real pages' news, blogs and forums"),
    ("independent, books", "indep-heldout", "the second generator on two books no rule was checked on"),
    ("independent, books in traditional", "indep-heldout-trad", "half of each story's later pages in traditional"),
    (
        "independent, man pages",
        "indep-manpages",
        "the second generator on man pages (added after the rules were final)",
    ),
    (
        "independent, Debian docs",
        "indep-debdocs",
        "the second generator on LibreOffice's help and three Debian books (added after the man pages)",
    ),
)
DEFAULT = "nshash"
BATCH = "nshash-batch"
#: The known tools (the 2019 algorithm, PyPI simhash, datasketch, rensa), and nshash's other algorithms;
#: nshash's own variants (``nshash <option>``) are neither.
TOOLS = ("original", "original+uf", "longest-sentence", "simhash", "datasketch-lsh", "rensa-lsh")
OTHERS = ("nshash.SimHash", "nshash.Shingles")
_SKIPPED_SPLITS = {"tune"}


def _group(row: dict[str, Any]) -> str:
    """The language a row counts in: its ``lang``, with the synthetic family's t2s file apart."""
    return "zh (t2s)" if row["split"] == "t2s" else row["lang"]


def family_rows(results: list[dict[str, Any]]) -> dict[str, dict[str, tuple[float, float, float, int]]]:
    """``{language: {method: (mean P, mean R, mean F1, files)}}`` of one run's results."""
    scores: dict[str, dict[str, list[tuple[float, float, float]]]] = defaultdict(lambda: defaultdict(list))
    for row in results:
        if row["split"] in _SKIPPED_SPLITS:
            continue
        scores[_group(row)][row["method"]].append((row["precision"], row["recall"], row["f1"]))
    return {lang: {method: _means(values) for method, values in methods.items()} for lang, methods in scores.items()}


def _means(values: list[tuple[float, float, float]]) -> tuple[float, float, float, int]:
    """The mean P, R and F1 of ``values``, and how many files they are."""
    p, r, f1 = (statistics.fmean(column) for column in zip(*values))
    return p, r, f1, len(values)


def _best(methods: dict[str, tuple[float, float, float, int]], names: Sequence[str]) -> str:
    """The method of ``names`` with the highest mean F1, and that F1."""
    found = [(methods[name][2], name) for name in names if name in methods]
    if not found:
        return "-"
    f1, name = max(found)
    return f"{name} {f1:.3f}"


def table(results_dir: Path) -> tuple[list[list[str]], list[str]]:
    """The Markdown rows of every family found under ``results_dir``, and the families missing."""
    rows: list[list[str]] = []
    missing: list[str] = []
    for family, folder, _ in FAMILIES:
        path = results_dir / folder / "quality.json"
        if not path.is_file():
            missing.append(family)
            continue
        run = json.loads(path.read_text(encoding="utf-8"))
        date = str(run.get("environment", {}).get("date", ""))[:10]
        for lang, methods in sorted(family_rows(run["results"]).items()):
            if DEFAULT not in methods:
                continue
            p, r, f1, files = methods[DEFAULT]
            batch = methods.get(BATCH)
            rows.append(
                [
                    family,
                    lang,
                    str(files),
                    f"{p:.3f} / {r:.3f} / **{f1:.3f}**",
                    "-" if batch is None else f"{batch[2]:.3f}",
                    _best(methods, TOOLS),
                    _best(methods, OTHERS),
                    date,
                ]
            )
    return rows, missing


HEADER = [
    "family",
    "language",
    "files",
    "nshash P / R / F1",
    "batch F1",
    "best tool or baseline, F1",
    "nshash's other algorithms, best F1",
    "run",
]


def markdown(rows: list[list[str]]) -> str:
    lines = [
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join("---" if i < 2 else "---:" for i in range(len(HEADER))) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, default=HERE / "results", help="the results folder")
    ap.add_argument("--out", type=Path, help="write the Markdown table there too")
    args = ap.parse_args(argv)
    rows, missing = table(args.results)
    if not rows:
        print(f"error: no family's quality.json under {args.results}", file=sys.stderr)
        return 2
    text = markdown(rows)
    described = "\n".join(f"- **{family}**: {what} (`{folder}/quality.json`)" for family, folder, what in FAMILIES)
    report = (
        "# Every corpus family, one table\n\n"
        "Generated by `python benchmarks/families.py` from the committed runs (nothing is run): means over each "
        "family's files per language; precision and recall are pairwise.\n\n"
        f"{text}\n{described}\n"
    )
    if missing:
        report += "\nNot found: " + ", ".join(missing) + ".\n"
    print(text, end="")
    if args.out is not None:
        args.out.write_text(report, encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
