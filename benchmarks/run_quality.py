"""Score every method on every labelled corpus file.

    python benchmarks/run_quality.py [--data DIR] [--files zh-heldout ...]
        [--methods NAME ...] [--variant 'LABEL={"n": 3}'] [--limit N]

Prints a markdown table and writes ``quality.md`` and ``quality.json`` to
``--out`` (default ``benchmarks/results``). Documents are fed in ``id``
(arrival) order; ``--limit N`` keeps the first N of each file.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from metrics import evaluate
from peers import Method, Unavailable, build_methods, parse_variant

HERE = Path(__file__).resolve().parent
COLUMNS = ["method", "lang", "split", "P", "R", "F1", "ARI", "wrongly dropped", "missed", "docs/s"]


def load_records(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The records of a corpus file, sorted by ``id`` (an int), ``label`` a str.

    Raises:
        ValueError: on a repeated ``id`` or a record missing a field.
    """
    records = []
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            rec = json.loads(line)
            try:
                records.append({**rec, "id": int(rec["id"]), "label": str(rec["label"]), "text": rec["text"]})
            except KeyError as e:
                raise ValueError(f"{path}:{lineno}: record has no {e}") from e
    records.sort(key=lambda rec: rec["id"])
    ids = [rec["id"] for rec in records]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: ids are not unique")
    return records[:limit] if limit is not None else records


def load_corpus(path: Path, limit: int | None = None) -> tuple[list[str], list[str]]:
    """Return ``(texts, labels)`` of a corpus file, sorted by ``id`` (:func:`load_records`)."""
    records = load_records(path, limit)
    return [rec["text"] for rec in records], [rec["label"] for rec in records]


def split_name(path: Path) -> tuple[str, str]:
    """``zh-heldout.jsonl`` -> ``("zh", "heldout")``; ``seed1/zh.jsonl`` -> ``("zh", "seed1")``.

    A file named by its language alone takes its directory's name as the split
    (``benchmarks/indep/build.py`` writes one directory a seed).
    """
    lang, _, split = path.stem.partition("-")
    return lang, split or path.parent.name or "-"


def file_name(path: Path) -> str:
    """The name a file goes by in the tables: with its directory where that names the split (:func:`split_name`)."""
    return path.name if "-" in path.stem or not path.parent.name else f"{path.parent.name}/{path.name}"


def find_files(data: Path, names: Sequence[str] | None) -> list[Path]:
    """Corpus files in ``data``: all ``*.jsonl`` or the named ones.

    Raises:
        FileNotFoundError: if a named file or the whole directory is missing.
    """
    if names:
        paths = []
        for n in names:
            p = Path(n)
            if not p.exists():
                p = data / (n if n.endswith(".jsonl") else f"{n}.jsonl")
            if not p.exists():
                raise FileNotFoundError(f"no corpus file {n!r} (looked in {data})")
            paths.append(p)
        return paths
    paths = sorted(data.glob("*.jsonl"))
    if not paths:
        raise FileNotFoundError(f"no *.jsonl in {data}; run python benchmarks/make_corpus.py --out {data}")
    return paths


def markdown_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Render rows as a GitHub markdown table; numbers right-aligned."""
    cells = [[str(c) for c in row] for row in rows]
    numeric = [all(_is_number(r[i]) for r in cells) and bool(cells) for i in range(len(columns))]
    lines = [
        "| " + " | ".join(columns) + " |",
        "|" + "|".join("---:" if num else "---" for num in numeric) + "|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in cells]
    return "\n".join(lines)


def _is_number(s: str) -> bool:
    head = s.split(" ")[0].replace(",", "")
    try:
        float(head)
    except ValueError:
        return False
    return True


def run_method(method: Method, texts: list[str], labels: list[str]) -> dict[str, Any]:
    """Fit ``method`` on ``texts`` and score it against ``labels``.

    Raises:
        Unavailable: passed on from the method.
    """
    # A warm-up on two documents pays for lazy imports outside the timing.
    method.fit_labels(texts[:2])
    start = time.perf_counter()
    pred = method.fit_labels(texts)
    seconds = time.perf_counter() - start
    scores = evaluate(labels, pred)
    return {
        **scores.as_dict(),
        "seconds": seconds,
        "docs_per_s": len(texts) / seconds if seconds else float("inf"),
        "n_pred_clusters": len(set(pred)),
    }


def _pct(count: int, of: int) -> str:
    return f"{count} ({100 * count / of:.1f}%)" if of else str(count)


def table_row(r: dict[str, Any]) -> list[Any]:
    """One markdown row of a result record."""
    n_dups = r["n_docs"] - r["n_first"]
    return [
        r["method"],
        r["lang"],
        r["split"],
        f"{r['precision']:.3f}",
        f"{r['recall']:.3f}",
        f"{r['f1']:.3f}",
        f"{r['ari']:.3f}",
        _pct(r["wrongly_dropped"], r["n_first"]),
        _pct(r["missed"], n_dups),
        f"{r['docs_per_s']:,.0f}",
    ]


def environment() -> dict[str, str]:
    """Where and when results were produced, for the results files."""
    try:
        # Read-only: the commit the working tree started from (it may have edits).
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}",
        "commit": commit,
    }


def write_report(out: Path, stem: str, md: list[str], skipped: dict[str, str], payload: dict[str, Any]) -> None:
    """``<stem>.md`` (the lines ``md``, then the methods skipped) and ``<stem>.json`` in ``out``."""
    md = md + [f"- skipped **{name}**: {why}" for name, why in skipped.items()]
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.md").write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    text = json.dumps({**payload, "skipped": skipped}, indent=1, ensure_ascii=False)
    (out / f"{stem}.json").write_text(text + "\n", encoding="utf-8")
    print(f"wrote {out / stem}.md and {stem}.json", file=sys.stderr)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE / "data", help="corpus directory")
    ap.add_argument("--files", nargs="+", help="corpus files or names like zh-heldout")
    ap.add_argument("--methods", nargs="+", help="method names to run (default: all)")
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar='LABEL={"opt": value}',
        help="extra nshash variant (repeatable)",
    )
    ap.add_argument("--limit", type=int, help="keep the first N documents of each file")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        variants = [parse_variant(v) for v in args.variant]
        methods = build_methods(args.methods, variants)
        files = find_files(args.data, args.files)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    results: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    corpora = []
    for path in files:
        texts, labels = load_corpus(path, args.limit)
        lang, split = split_name(path)
        name = file_name(path)
        corpora.append({"file": name, "docs": len(texts), "clusters": len(set(labels))})
        for method in methods:
            if method.name in skipped:
                continue
            try:
                r = run_method(method, texts, labels)
            except Unavailable as e:
                skipped[method.name] = str(e)
                print(f"skipped {method.name}: {e}", file=sys.stderr)
                continue
            r.update(method=method.name, lang=lang, split=split, file=name)
            results.append(r)
            print(f"{name:>20} {method.name:<28} F1={r['f1']:.3f}", file=sys.stderr)

    table = markdown_table(COLUMNS, [table_row(r) for r in results])
    print(table)
    for name, why in skipped.items():
        print(f"skipped {name}: {why}")

    args.out.mkdir(parents=True, exist_ok=True)
    env = environment()
    settings = {m.name: m.settings for m in methods}
    md = [
        "# Quality",
        "",
        f"Generated by `python benchmarks/run_quality.py` on {env['date']} (Python {env['python']}, "
        f"{env['machine']}, commit {env['commit']}).",
        "Wrongly dropped: % of documents that were the first of their true cluster; "
        "missed: % of documents that were not. docs/s is one run; see speed.md.",
        "",
        markdown_table(["file", "docs", "clusters"], [list(c.values()) for c in corpora]),
        "",
        table,
        "",
    ]
    payload = {"environment": env, "limit": args.limit, "corpora": corpora, "settings": settings, "results": results}
    write_report(args.out, "quality", md, skipped, payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
