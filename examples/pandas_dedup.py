"""Deduplicate a table of scraped pages with pandas: one call, then ``groupby('similar_id')``.

    python examples/pandas_dedup.py [pages.jsonl]

Needs ``pip install 'nshash[pandas]'``.  The bundled sample's ``label`` column
says which story each page tells, so the clusters can be checked.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

import nshash

SAMPLE = Path(__file__).parent / "data" / "news_sample.jsonl"


def main(path: Path) -> int:
    df = pd.read_json(path, lines=True, dtype={"label": str})
    df["similar_id"] = nshash.similar_ids(df["content"])  # a Series aligned with df's index

    unique = df.drop_duplicates("similar_id")  # keep the first page of each cluster
    reprints = df.groupby("similar_id").size().sort_values(ascending=False)
    print(f"{len(df)} pages, {len(unique)} distinct articles, {len(df) - len(unique)} reprints dropped")
    print(f"largest clusters: {', '.join(f'{sid} x{count}' for sid, count in reprints.head(5).items())}")

    # Check against the labels: a cluster should hold one story, a story one cluster.
    labels_per_cluster = df.groupby("similar_id")["label"].nunique()
    clusters_per_label = df.groupby("label")["similar_id"].nunique()
    print(
        f"clusters mixing stories: {int((labels_per_cluster > 1).sum())} of {len(labels_per_cluster)}; "
        f"stories split over clusters: {int((clusters_per_label > 1).sum())} of {len(clusters_per_label)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE))
