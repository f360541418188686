"""Plot quality against speed from ``results/quality.json``.

    python benchmarks/plot.py [--results benchmarks/results] [--split heldout]

Writes ``quality_vs_speed.png``: pairwise F1 (y) against docs/s (x, log
scale), one panel per language, one point per method, both measured in the
same ``run_quality.py`` run on the chosen split.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display
import matplotlib.pyplot as plt
from matplotlib.lines import Line2D

HERE = Path(__file__).resolve().parent
MARKERS = "osD^v<>pXhPd"  # no "*": that marks the default nshash
# tab10 without its red (index 3): red is for the nshash variants.
PEER_COLOURS = (0, 1, 2, 4, 5, 6, 7, 8, 9)


def pick_rows(results: list[dict[str, Any]], split: str) -> list[dict[str, Any]]:
    """Rows of ``split``.

    Raises:
        ValueError: if no result is for that split.
    """
    rows = [r for r in results if r["split"] == split]
    if not rows:
        have = sorted({r["split"] for r in results})
        raise ValueError(f"no results for split {split!r}; have {have}; pass --split")
    return rows


def method_styles(methods: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Marker style per method: peers in distinct colours, nshash variants in reds."""
    ours = [m for m in methods if m.startswith("nshash")]
    peers = [m for m in methods if m not in ours]
    tab, reds = plt.get_cmap("tab10"), plt.get_cmap("Reds")
    style: dict[str, dict[str, Any]] = {}
    for i, m in enumerate(peers):
        style[m] = {"color": tab(PEER_COLOURS[i % len(PEER_COLOURS)]), "marker": MARKERS[i % len(MARKERS)], "s": 60}
    for i, m in enumerate(ours):
        # The default variant comes first: darkest, largest, a star.
        shade = 0.95 - 0.5 * i / max(len(ours) - 1, 1)
        marker = "*" if i == 0 else MARKERS[(i + len(peers)) % len(MARKERS)]
        style[m] = {"color": reds(shade), "marker": marker, "s": 180 if i == 0 else 60}
    return style


def plot(rows: list[dict[str, Any]], split: str, out: Path) -> None:
    """Draw one panel per language and save the PNG to ``out``."""
    langs = sorted({r["lang"] for r in rows})
    methods = list(dict.fromkeys(r["method"] for r in rows))
    style = method_styles(methods)
    fig, axes = plt.subplots(1, len(langs), figsize=(5.5 * len(langs) + 3, 5), sharey=True, squeeze=False)
    for ax, lang in zip(axes[0], langs):
        for r in rows:
            if r["lang"] == lang:
                ax.scatter(
                    r["docs_per_s"],
                    r["f1"],
                    label=r["method"],
                    edgecolors="black",
                    linewidths=0.4,
                    **style[r["method"]],
                )
        ax.set_xscale("log")
        ax.set_title(f"{lang} ({split})")
        ax.set_xlabel("documents per second (log scale)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("pairwise F1")
    handles = [
        Line2D([], [], linestyle="", marker=style[m]["marker"], color=style[m]["color"], markersize=9, label=m)
        for m in methods
    ]
    fig.legend(handles=handles, loc="center right", frameon=False)
    fig.suptitle("Near-duplicate detection: quality vs speed (up and right is better)")
    fig.tight_layout(rect=(0, 0, 1 - 2.8 / fig.get_figwidth(), 1))
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, default=HERE / "results", help="results directory")
    ap.add_argument("--split", default="heldout", help="corpus split to plot")
    args = ap.parse_args(argv)
    src = args.results / "quality.json"
    if not src.exists():
        print(f"error: {src} missing; run python benchmarks/run_quality.py first", file=sys.stderr)
        return 2
    results = json.loads(src.read_text(encoding="utf-8"))["results"]
    try:
        rows = pick_rows(results, args.split)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = args.results / "quality_vs_speed.png"
    plot(rows, args.split, out)
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
