"""Batch at scale: a folder of Parquet files, ids from a Dask cluster, the hottest stories.

    python examples/dask_dedup.py [--scheduler tcp://host:8786] [--workers 2] [pages.jsonl]

Writes the bundled sample of news pages (``examples/data/news_sample.jsonl``)
as four Parquet files in a temporary folder (a stand-in for a crawl's output),
reads them back with ``dd.read_parquet`` (a glob: Dask does not know how the
files divide the index), adds a ``similar_id`` column with
``nshash.dask.similar_ids`` and writes the result as Parquet again. Without
``--scheduler`` it starts a local cluster of worker processes; on a real
cluster every worker must read the files, so there use a shared folder or an
object store instead of a temporary one. Needs ``pip install 'nshash[dask]'``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import nshash
import nshash.dask

SAMPLE = Path(__file__).parent / "data" / "news_sample.jsonl"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="?", type=Path, default=SAMPLE, help="JSONL of id, title, content, label")
    parser.add_argument("--scheduler", help="a Dask scheduler's address (default: start a local cluster)")
    parser.add_argument("--workers", type=int, default=2, help="local worker processes (default: %(default)s)")
    args = parser.parse_args(argv)

    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster

    pages = pd.read_json(args.pages, lines=True)
    with tempfile.TemporaryDirectory() as tmp:
        crawl, out = Path(tmp) / "pages", Path(tmp) / "pages-with-ids"
        crawl.mkdir()
        for part in range(4):  # the crawl's output: four files
            pages.iloc[part::4].to_parquet(crawl / f"part-{part}.parquet")

        if args.scheduler:
            client = Client(args.scheduler)
        else:
            cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None)
            client = Client(cluster)
            client.wait_for_workers(args.workers, timeout=120)  # on a busy machine they register late
        with client:
            ddf = dd.read_parquet(str(crawl / "*.parquet"))
            ddf["similar_id"] = nshash.dask.similar_ids(ddf, column="content")
            ddf.to_parquet(str(out))
            # Asked of the scheduler now: scheduler_info() is what the client last heard, maybe before any worker.
            print(f"{ddf.npartitions} partitions on {len(client.nthreads())} workers")
        if not args.scheduler:
            cluster.close()

        found = pd.read_parquet(out)

    # The same ids as nshash.similar_ids on the same pages in the same order, on one machine.
    local = nshash.similar_ids(found["content"])
    same = (found["similar_id"].to_numpy() == local.to_numpy()).all()
    print(f"{len(found)} pages, {found['similar_id'].nunique()} distinct articles")
    print(f"the same ids as nshash.similar_ids on one machine: {'yes' if same else 'no'}")

    stories = found.groupby("similar_id").agg(
        pages=("content", "size"), stories=("label", "nunique"), title=("title", "first")
    )
    print("\nmost reprinted stories:")
    for rank, (similar_id, row) in enumerate(stories.nlargest(5, "pages", keep="first").iterrows(), 1):
        print(f"{rank:>2}. {row['pages']:>3} pages  cluster {similar_id:<4} {row['title'][:50]}")
    print(f"clusters holding more than one labelled story: {(stories['stories'] > 1).sum()} of {len(stories)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
