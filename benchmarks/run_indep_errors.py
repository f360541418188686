"""Where nshash errs on the independent corpus (``benchmarks/indep``): false pairs by manual, misses by length.

    python benchmarks/run_indep_errors.py DIR/seed1 DIR/seed2 ... [--out benchmarks/results/indep]

Each directory holds ``zh.jsonl``/``en.jsonl`` and the ``*.meta.jsonl``
``benchmarks/indep/build.py`` writes beside them (the manual an article comes
from, its length).  Documents are fed to ``NSHash.get_similar`` in ``id``
order on the memory store (online = batch, see ``quality.md``).  Writes
``errors.md`` and ``errors.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from run_quality import environment, load_records, markdown_table, write_report

import nshash

HERE = Path(__file__).resolve().parent
#: Article lengths (characters) the misses are counted in: [low, high).
LENGTHS = ((0, 150), (150, 300), (300, 600), (600, 1000), (1000, 10**9))


def meta_path(path: Path) -> Path:
    """The generator's notes beside a corpus file: ``zh.jsonl`` -> ``zh.meta.jsonl``."""
    return path.with_name(path.stem + ".meta.jsonl")


def read_meta(path: Path) -> dict[int, dict[str, Any]]:
    """``id`` -> the generator's notes on that page (``group``: its manual, ``article_chars``)."""
    with meta_path(path).open(encoding="utf-8") as f:
        return {row["id"]: row for row in map(json.loads, f) if row}


def length_bucket(chars: int) -> str:
    low, high = next((lo, hi) for lo, hi in LENGTHS if lo <= chars < hi)
    return f"{low}+" if high == 10**9 else f"{low}-{high - 1}"


def errors(path: Path) -> dict[str, Any]:
    """False pairs within one manual and across manuals, the biggest mixed cluster, and misses by length."""
    records = load_records(path)
    meta = read_meta(path)
    nsh = nshash.NSHash(name=None, hashdb="memory")
    ids = [nsh.get_similar(r["text"]) for r in records]
    ids = [nsh.resolve(i) for i in ids]  # the clusters as they end, merges included
    manual = {r["label"]: meta[r["id"]]["group"] for r in records}
    within = across = 0
    by_manual: Counter[str] = Counter()
    clusters: dict[int, Counter[str]] = {}
    for r, cid in zip(records, ids):
        clusters.setdefault(cid, Counter())[r["label"]] += 1
    biggest = (0, 0, 0)  # false pairs, pages, labels
    for labels in clusters.values():
        items = list(labels.items())
        pairs = 0
        for a, (label_a, count_a) in enumerate(items):
            for label_b, count_b in items[a + 1 :]:
                n = count_a * count_b
                pairs += n
                if manual[label_a] == manual[label_b]:
                    within += n
                    by_manual[manual[label_a]] += n
                else:
                    across += n
        biggest = max(biggest, (pairs, sum(labels.values()), len(labels)))
    copies: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    seen: dict[str, set[int]] = {}
    for r, cid in zip(records, ids):
        earlier = seen.setdefault(r["label"], set())
        if earlier:  # a later page of a story: missed if none of the story's earlier pages got its id
            bucket = length_bucket(meta[r["id"]]["article_chars"])
            copies[bucket] += 1
            missed[bucket] += cid not in earlier
        earlier.add(cid)
    return {
        "file": f"{path.parent.name}/{path.name}",
        "false_pairs_within_manual": within,
        "false_pairs_across_manuals": across,
        "by_manual": dict(by_manual.most_common()),
        "biggest_mixed_cluster": {"false_pairs": biggest[0], "pages": biggest[1], "labels": biggest[2]},
        "copies_by_length": dict(copies),
        "missed_by_length": dict(missed),
    }


def report(rows: list[dict[str, Any]]) -> list[str]:
    md = [
        "| file | false pairs | within one manual | top manuals | biggest mixed cluster (pairs, pages, labels) |",
        "|---|---:|---:|---|---|",
    ]
    for r in rows:
        total = r["false_pairs_within_manual"] + r["false_pairs_across_manuals"]
        top = ", ".join(f"{m} {n}" for m, n in list(r["by_manual"].items())[:3])
        big = r["biggest_mixed_cluster"]
        md.append(
            f"| {r['file']} | {total} | {r['false_pairs_within_manual']} | {top} | "
            f"{big['false_pairs']}, {big['pages']}, {big['labels']} |"
        )
    md += [
        "",
        "Later pages of a story whose id none of its earlier pages got, by the article's length (characters):",
        "",
    ]
    buckets = [length_bucket(low) for low, _ in LENGTHS]
    table = []
    for lang in ("zh", "en"):
        mine = [r for r in rows if r["file"].endswith(f"/{lang}.jsonl")]
        for bucket in buckets:
            copies = sum(r["copies_by_length"].get(bucket, 0) for r in mine)
            missed = sum(r["missed_by_length"].get(bucket, 0) for r in mine)
            if copies:
                table.append([lang, bucket, f"{copies:,}", f"{missed:,}", f"{missed / copies:.1%}"])
    md.append(markdown_table(["lang", "article chars", "later pages", "missed", "share"], table))
    return md


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path, help="seed directories of benchmarks/indep/build.py")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "indep", help="results directory")
    args = ap.parse_args(argv)
    paths = [d / f"{lang}.jsonl" for lang in ("zh", "en") for d in args.dirs]
    needed = [*paths, *map(meta_path, paths)]
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        print(f"error: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    rows = [errors(p) for p in paths]
    env = environment()
    md = [
        "# Where nshash errs on the independent corpus",
        "",
        f"Generated by `python benchmarks/run_indep_errors.py` on {env['date']} (Python {env['python']}, "
        f"{env['machine']}, commit {env['commit']}). Online `get_similar`, memory store, arrival order.",
        "",
        *report(rows),
    ]
    print("\n".join(md))
    write_report(args.out, "errors", md, {}, {"environment": env, "files": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
