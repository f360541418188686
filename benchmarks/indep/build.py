#!/usr/bin/env python3
"""Build the independent labelled near-duplicate corpus: simulated crawled pages in Chinese and English.

    sh benchmarks/indep/fetch_sources.sh                      # once: the Debian packages, unpacked
    python benchmarks/indep/build.py --seed 1 --out DIR

Writes zh.jsonl, en.jsonl, zh-small.jsonl, en-small.jsonl (one page a line: id, label, text, site, kind),
a ``.meta.jsonl`` beside each (the edits of each page, for analysis only) and stats.json into DIR.
The same seed and source tree give the same files byte for byte. Only the standard library is used
(OpenCC too with ``--traditional``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from typing import Any

# The modules live beside this script, which runs from anywhere.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from realpool import DEFAULT_REALPAGES, real_articles
from simulate import Simulated, simulate
from sources import DEFAULT_SRC, SOURCE_SETS, drop_near_copies
from traditional import traditional_mirrors

#: File name -> (articles, sites). Each article is one cluster.
FILES = {"zh": (600, 60), "en": (1100, 70), "zh-small": (170, 30), "en-small": (200, 30)}


def stats(sim: Simulated) -> dict[str, Any]:
    """Counts of a simulated file: clusters and their sizes, page kinds, share of reprints with each edit."""
    docs, log = sim.docs, sim.log
    sizes = Counter(d["label"] for d in docs)
    hist = Counter(sizes.values())
    n_reprints = log["reprints"] or 1
    edit_share = {
        k: round(v / n_reprints, 3)
        for k, v in sorted(log.items())
        if not k.startswith("rev_") and k not in ("reprints", "revisions")
    }
    return {
        "docs": len(docs),
        "clusters": len(sizes),
        "singletons": hist[1],
        "singleton_share_of_clusters": round(hist[1] / len(sizes), 3),
        "cluster_size_hist": dict(sorted(hist.items())),
        "kinds": dict(Counter(d["kind"] for d in docs)),
        "sites": len({d["site"] for d in docs}),
        "median_chars": sorted(len(d["text"]) for d in docs)[len(docs) // 2],
        "reprints": log["reprints"],
        "revisions": log["revisions"],
        "reprint_edit_share": edit_share,
        "revision_edits": {k: v for k, v in sorted(log.items()) if k.startswith("rev_")},
        "articles": sim.articles,
    }


def write_jsonl(path: str, rows: list[dict[str, Any]], ensure_ascii: bool) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=ensure_ascii) + "\n")


def build(
    src: str, seed: int, out: str, realpages: str | None = None, sources: str = "default", traditional: bool = False
) -> dict[str, Any]:
    """Write the four files of ``seed`` into ``out`` (three with ``realpages``); returns what stats.json holds.

    ``realpages``: draw the articles from the real pages in that folder instead (:mod:`realpool`): the
    zh and en files, and ``other`` (the other languages' articles, simulated as English pages are),
    every article of the pool once, sites in the Debian files' proportion.  ``sources``: which Debian
    texts (:data:`~sources.SOURCE_SETS`): ``heldout`` are books no nshash rule was checked on, every
    article once as well.  ``traditional``: also ``zh-trad.jsonl``, the zh file with half of each
    story's later pages in traditional characters (:mod:`traditional`; needs OpenCC).
    """
    os.makedirs(out, exist_ok=True)
    files = FILES
    if realpages is not None:
        if not os.path.isfile(os.path.join(realpages, "pages.jsonl.gz")):
            raise SystemExit(f"no labelled real pages in {realpages} (pages.jsonl.gz): pass --realpages FOLDER")
        pools = real_articles(realpages)
    else:
        zh_articles, en_articles = SOURCE_SETS[sources]
        pools = {"zh": drop_near_copies(zh_articles(src)), "en": drop_near_copies(en_articles(src))}
    if not pools["zh"] or not pools["en"]:
        raise SystemExit(f"no articles found under {realpages or src}: run fetch_sources.sh first, or set --src")
    if realpages is not None or sources != "default":  # one file a pool, every article of it once
        files = {name: _scaled(name, len(pool)) for name, pool in pools.items()}
    all_stats: dict[str, Any] = {"pool_articles": {k: len(v) for k, v in pools.items()}}
    for name, (n_articles, n_sites) in files.items():
        sim = simulate(name, pools[name.split("-")[0]], seed, n_articles, n_sites)
        write_jsonl(os.path.join(out, name + ".jsonl"), sim.docs, ensure_ascii=False)
        write_jsonl(os.path.join(out, name + ".meta.jsonl"), sim.metas, ensure_ascii=True)
        if traditional and name == "zh":
            docs, metas = traditional_mirrors(sim.docs, sim.metas, seed)
            write_jsonl(os.path.join(out, "zh-trad.jsonl"), docs, ensure_ascii=False)
            write_jsonl(os.path.join(out, "zh-trad.meta.jsonl"), metas, ensure_ascii=True)
            all_stats["zh-trad"] = Counter(m["traditional"] for m in metas if "traditional" in m)
        st = all_stats[name] = stats(sim)
        shown = ("docs", "clusters", "singleton_share_of_clusters", "cluster_size_hist", "kinds")
        print(name, json.dumps({k: st[k] for k in shown}, ensure_ascii=False))
    with open(os.path.join(out, "stats.json"), "w", encoding="utf-8") as f:
        json.dump(all_stats, f, indent=1, ensure_ascii=False)
    return all_stats


def _scaled(name: str, pool: int) -> tuple[int, int]:
    """``(articles, sites)`` of file ``name`` for a pool of ``pool`` articles: all of them, sites in proportion."""
    articles, sites = FILES.get(name, FILES["en"])
    return pool, max(8, round(sites * pool / articles))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--src", default=DEFAULT_SRC, help="the unpacked packages (default: $INDEP_SRC or .src here)")
    ap.add_argument(
        "--realpages", nargs="?", const=DEFAULT_REALPAGES, help="draw the articles from the real pages (realpool.py)"
    )
    ap.add_argument(
        "--sources",
        choices=sorted(SOURCE_SETS),
        default="default",
        help="which Debian texts: default, or heldout, manpages, debdocs (families no nshash rule was checked on; "
        "default: %(default)s)",
    )
    ap.add_argument(
        "--traditional",
        action="store_true",
        help="also write zh-trad.jsonl: half of each story's later pages in traditional characters (needs OpenCC)",
    )
    args = ap.parse_args()
    build(args.src, args.seed, args.out, args.realpages, args.sources, args.traditional)


if __name__ == "__main__":
    main()
