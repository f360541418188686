"""Statistics of the corpus files and the 2019 algorithm's pairwise scores.

The 2019 algorithm is re-implemented here (a dozen lines) so that the
generator checks its own output without depending on code elsewhere in the
repository: split on ``：:；？。！】`` and newlines, keep pieces longer than 30
characters (all pieces if none is), md5 the 5 longest, and give a document
the smallest id any of its hashes already has, else a new one.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

_SPLIT_2019 = re.compile(r"[：:；？。！】\n]")
SIZE_BINS = ((1, 1), (2, 2), (3, 3), (4, 5), (6, 10), (11, 20), (21, 10**9))


def original_2019(texts: Sequence[str], n: int = 5) -> list[int]:
    """Cluster ids the 2019 nshash gives ``texts`` fed in order."""
    db: dict[str, int] = {}
    out = []
    last_id = 0
    for text in texts:
        pieces = _SPLIT_2019.split(text)
        chosen = [p for p in pieces if len(p) > 30] or pieces
        chosen = sorted(chosen, key=len, reverse=True)[:n]
        hashes = [hashlib.md5(p.encode("utf-8")).hexdigest() for p in chosen]
        found = [db[h] for h in hashes if h in db]
        if found:
            sid = min(found)
        else:
            last_id += 1
            sid = last_id
        for h in hashes:
            db[h] = sid
        out.append(sid)
    return out


def exact_duplicates(texts: Sequence[str]) -> list[str]:
    """Baseline: documents are duplicates only when byte-identical."""
    return [hashlib.md5(t.encode("utf-8")).hexdigest() for t in texts]


def _pairs(sizes: Mapping[Any, int]) -> int:
    return sum(k * (k - 1) // 2 for k in sizes.values())


def pairwise(truth: Sequence[Hashable], pred: Sequence[Hashable]) -> tuple[float, float, float]:
    """Pairwise precision, recall and F1 from the contingency of (truth, pred) labels.

    >>> pairwise(["a", "a", "b"], [1, 1, 1])
    (0.3333333333333333, 1.0, 0.5)
    """
    tp = _pairs(Counter(zip(truth, pred)))
    pred_pairs, true_pairs = _pairs(Counter(pred)), _pairs(Counter(truth))
    p = tp / pred_pairs if pred_pairs else 1.0
    r = tp / true_pairs if true_pairs else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def read_rows(path: Path) -> list[dict[str, object]]:
    """Rows of a JSONL corpus file, sorted by id."""
    with path.open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return sorted(rows, key=lambda r: int(r["id"]))  # type: ignore[call-overload]


def file_stats(rows: list[dict[str, object]]) -> dict[str, object]:
    """Counts, cluster-size histogram, pairs and the two baselines' scores."""
    labels = [str(r["label"]) for r in rows]
    texts = [str(r["text"]) for r in rows]
    sizes = Counter(labels)
    hist = {
        (f"{lo}" if lo == hi else f"{lo}+" if hi > 10**6 else f"{lo}-{hi}"): sum(
            1 for k in sizes.values() if lo <= k <= hi
        )
        for lo, hi in SIZE_BINS
    }
    pred = original_2019(texts)
    orig = pairwise(labels, pred)
    exact = pairwise(labels, exact_duplicates(texts))
    cases: Counter[str] = Counter()
    for r in rows:
        cases.update(str(c) for c in r.get("cases", ()))  # type: ignore[attr-defined]
    return {
        "docs": len(rows),
        "clusters": len(sizes),
        "singletons": hist["1"],
        "largest_cluster": max(sizes.values()) if sizes else 0,
        "pairs": _pairs(sizes),
        "mean_chars": round(sum(map(len, texts)) / max(len(texts), 1)),
        "sites": len({r["site"] for r in rows}),
        "kinds": dict(sorted(Counter(str(r["kind"]) for r in rows).items())),
        "cluster_sizes": hist,
        "original_2019": [round(x, 4) for x in orig],
        "original_2019_largest_cluster": max(Counter(pred).values()) if pred else 0,
        "exact_duplicate": [round(x, 4) for x in exact],
        "cases": dict(sorted(cases.items())),
    }


def report(paths: list[Path]) -> str:
    """A markdown report of every file: one table plus a histogram per file."""
    rows = {p.stem: read_rows(p) for p in paths}
    stats = {name: file_stats(r) for name, r in rows.items()}
    cols = ["file", "docs", "clusters", "singletons", "largest", "pairs", "mean chars", "sites"]
    cols += ["2019 P / R / F1", "2019 largest", "exact-dup P / R / F1"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for name, s in stats.items():
        o, e = s["original_2019"], s["exact_duplicate"]
        lines.append(
            f"| {name} | {s['docs']} | {s['clusters']} | {s['singletons']} | {s['largest_cluster']} | "
            f"{s['pairs']} | {s['mean_chars']} | {s['sites']} | "
            f"{o[0]:.3f} / {o[1]:.3f} / {o[2]:.3f} | {s['original_2019_largest_cluster']} | "  # type: ignore[index]
            f"{e[0]:.3f} / {e[1]:.3f} / {e[2]:.3f} |"  # type: ignore[index]
        )
    lines.append("")
    lines.append("Cluster sizes (number of clusters) and document kinds:")
    lines.append("")
    for name, s in stats.items():
        hist = ", ".join(f"{k}: {v}" for k, v in s["cluster_sizes"].items())  # type: ignore[attr-defined]
        kinds = ", ".join(f"{k} {v}" for k, v in s["kinds"].items())  # type: ignore[attr-defined]
        lines.append(f"- {name}: {hist} (kinds: {kinds})")
    lines.append("")
    if any(s["cases"] for s in stats.values()):
        lines.append("Hard cases (documents carrying each; a document can carry several):")
        lines.append("")
        for name, s in stats.items():
            n = s["docs"]
            shown = ", ".join(f"{k} {v} ({100 * v / n:.1f}%)" for k, v in s["cases"].items())  # type: ignore[attr-defined,operator]
            lines.append(f"- {name}: {shown}")
        lines.append("")
    # The held-out split must not share sites (or boilerplate) with tune.
    for lang in sorted({name.split("-")[0] for name in rows}):
        tune, held = rows.get(f"{lang}-tune"), rows.get(f"{lang}-heldout")
        if tune is not None and held is not None:
            shared = {r["site"] for r in tune} & {r["site"] for r in held}
            lines.append(f"- {lang}: tune and held-out share {len(shared)} sites")
    return "\n".join(lines)
