"""Real web pages: every method on the labelled pages of ``../shared/data/realpages``.

    python benchmarks/run_realpages.py                       # all methods, seeds 1 2 3
    python benchmarks/run_realpages.py --methods nshash nshash-batch --limit 200 --out /tmp/r

Each page comes in several forms: ``full`` (all visible text, site chrome
included), ``main`` (the article text written by annotators), ``traf``
(trafilatura's extraction) and ``html`` (raw HTML, for some pages). Every form
of a page is the same article; different pages are different articles unless
they share a ``cluster``. Every method sees the documents in a seeded random
order (one run per seed, scores averaged) for three feeds:

1. all forms mixed (full, main, traf, html);
2. text forms only (full, main, traf);
3. ``full`` pages only, with precision over the pairs of pages of one site
   (sites with 2+ pages: they share chrome) and the false pairs per site;
4. from feed 1, recall per pair of forms: the share of pages whose two forms
   landed in one cluster (main-full, traf-full, html-full, main-traf).

The pages are evaluation data that belongs to their sites: they are read
from the shared folder and never copied into this repository. Without the
folder the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metrics import evaluate, pair_counts
from peers import Method, Unavailable, build_methods
from run_quality import environment, markdown_table, write_report
from run_robustness import TRANSFORMS

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "realpages"
ALL_FORMS = ("full", "main", "traf", "html")
TEXT_FORMS = ("full", "main", "traf")
FORM_PAIRS = (("main", "full"), ("traf", "full"), ("html", "full"), ("main", "traf"))
DEFAULT_METHODS = ("nshash", "nshash-batch", "original", "simhash", "datasketch-lsh", "rensa-lsh")
FEEDS = {"all": ALL_FORMS, "text": TEXT_FORMS, "full": ("full",)}


@dataclass(frozen=True)
class Doc:
    """One form of one page, as a method is fed it."""

    page: str
    form: str
    site: str
    cluster: str
    text: str


def load_pages(data: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """Pages of ``data/pages.jsonl.gz`` with their raw HTML joined in as ``forms["html"]``.

    ``limit`` keeps the first N pages (in file order).

    Raises:
        FileNotFoundError: if ``pages.jsonl.gz`` is missing.
    """
    path = data / "pages.jsonl.gz"
    if not path.exists():
        raise FileNotFoundError(f"no {path}")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        pages = [json.loads(line) for line in f if line.strip()]
    pages = pages[:limit] if limit is not None else pages
    html_path = data / "html.jsonl.gz"
    if html_path.exists():
        wanted = {p["id"] for p in pages}
        with gzip.open(html_path, "rt", encoding="utf-8") as f:
            html = {r["id"]: r["html"] for r in map(json.loads, f) if r["id"] in wanted}
        for p in pages:
            if p["id"] in html:
                p["forms"] = {**p["forms"], "html": html[p["id"]]}
    return pages


def form_docs(pages: Sequence[dict[str, Any]], forms: Sequence[str]) -> list[Doc]:
    """One :class:`Doc` per non-empty form in ``forms`` of every page, pages in order.

    >>> pages = [{"id": "a", "site": "x.com", "cluster": "a", "forms": {"full": "F", "main": "", "traf": "T"}}]
    >>> [(d.page, d.form) for d in form_docs(pages, ("full", "main", "traf"))]
    [('a', 'full'), ('a', 'traf')]
    """
    out = []
    for p in pages:
        for form in forms:
            text = (p.get("forms") or {}).get(form)
            if text and text.strip():
                out.append(Doc(p["id"], form, p["site"], p["cluster"], text))
    return out


def form_pair_recall(docs: Sequence[Doc], pred: Sequence[Hashable], a: str, b: str) -> tuple[int, int]:
    """``(joined, pages)``: of the pages with forms ``a`` and ``b``, how many got one label for both.

    >>> docs = [Doc("p", "main", "s", "p", "x"), Doc("p", "full", "s", "p", "y"), Doc("q", "full", "s", "q", "z")]
    >>> form_pair_recall(docs, [1, 1, 2], "main", "full")
    (1, 1)
    """
    label: dict[tuple[str, str], Hashable] = {(d.page, d.form): p for d, p in zip(docs, pred)}
    pages = [pg for (pg, f) in label if f == a and (pg, b) in label]
    joined = sum(label[(pg, a)] == label[(pg, b)] for pg in pages)
    return joined, len(pages)


def site_pairs(docs: Sequence[Doc], pred: Sequence[Hashable], min_pages: int = 2) -> dict[str, dict[str, int]]:
    """Per site with ``min_pages`` or more pages: predicted pairs within the site and the false ones.

    A false pair is two documents of one site put in one cluster although
    they are different articles.

    >>> docs = [Doc(p, "full", "s", p, "t") for p in "abc"]
    >>> site_pairs(docs, [1, 1, 2])
    {'s': {'pages': 3, 'pred_pairs': 1, 'false_pairs': 1}}
    """
    by_site: dict[str, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        by_site[d.site].append(i)
    out = {}
    for site, idx in sorted(by_site.items()):
        pages = len({docs[i].page for i in idx})
        if pages < min_pages:
            continue
        counts = pair_counts([docs[i].cluster for i in idx], [pred[i] for i in idx])
        out[site] = {"pages": pages, "pred_pairs": counts.same_pred, "false_pairs": counts.same_pred - counts.same_both}
    return out


def shuffled(docs: Sequence[Doc], seed: int) -> list[Doc]:
    """``docs`` in the seeded random order a method is fed them."""
    out = list(docs)
    random.Random(seed).shuffle(out)
    return out


def run_feed(method: Method, docs: Sequence[Doc], seed: int) -> tuple[list[Doc], list[Hashable], float]:
    """Feed ``method`` the docs in seed order; return that order, the labels and the seconds taken."""
    order = shuffled(docs, seed)
    start = time.perf_counter()
    pred = method.fit_labels([d.text for d in order])
    return order, pred, time.perf_counter() - start


def score_method(method: Method, pages: Sequence[dict[str, Any]], seeds: Sequence[int]) -> dict[str, Any]:
    """Every measure for one method, per seed and averaged over seeds.

    Raises:
        Unavailable: passed on from the method.
    """
    per_seed: list[dict[str, Any]] = []
    for seed in seeds:
        r: dict[str, Any] = {"seed": seed, "seconds": 0.0}
        for feed, forms in FEEDS.items():
            docs = form_docs(pages, forms)
            order, pred, secs = run_feed(method, docs, seed)
            r["seconds"] += secs
            s = evaluate([d.cluster for d in order], pred)
            r[feed] = {"docs": len(order), "precision": s.precision, "recall": s.recall, "f1": s.f1}
            if feed == "all":
                for a, b in FORM_PAIRS:
                    joined, n = form_pair_recall(order, pred, a, b)
                    r[f"recall {a}-{b}"] = {"joined": joined, "pages": n, "recall": joined / n if n else None}
            if feed == "full":
                sites = site_pairs(order, pred)
                pred_pairs = sum(v["pred_pairs"] for v in sites.values())
                false_pairs = sum(v["false_pairs"] for v in sites.values())
                r["same_site"] = {
                    "sites": len(sites),
                    "pred_pairs": pred_pairs,
                    "false_pairs": false_pairs,
                    "precision": 1 - false_pairs / pred_pairs if pred_pairs else 1.0,
                    "per_site": sites,
                }
        per_seed.append(r)
    return {"method": method.name, "settings": method.settings, "seeds": per_seed, "mean": _mean(per_seed)}


def _mean(per_seed: list[dict[str, Any]]) -> dict[str, Any]:
    def avg(values: list[float | None]) -> float | None:
        vals = [v for v in values if v is not None]
        return sum(vals) / len(vals) if vals else None

    out: dict[str, Any] = {"seconds": avg([r["seconds"] for r in per_seed])}
    for feed in FEEDS:
        out[feed] = {k: avg([r[feed][k] for r in per_seed]) for k in ("precision", "recall", "f1")}
    for a, b in FORM_PAIRS:
        key = f"recall {a}-{b}"
        out[key] = avg([r[key]["recall"] for r in per_seed])
    out["same_site_precision"] = avg([r["same_site"]["precision"] for r in per_seed])
    out["same_site_false_pairs"] = avg([r["same_site"]["false_pairs"] for r in per_seed])
    false_by_site: Counter[str] = Counter()
    for r in per_seed:
        for site, v in r["same_site"]["per_site"].items():
            false_by_site[site] += v["false_pairs"]
    out["false_pairs_per_site"] = {s: n / len(per_seed) for s, n in sorted(false_by_site.items()) if n}
    return out


def _f(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


MAIN_COLUMNS = [
    "method",
    "all forms P / R / F1",
    "text forms P / R / F1",
    "full P / R / F1",
    "full same-site P",
    "same-site false pairs",
    *(f"{a}-{b} R" for a, b in FORM_PAIRS),
    "s/run",
]


def main_row(res: dict[str, Any]) -> list[str]:
    m = res["mean"]
    prf = [" / ".join(_f(m[feed][k]) for k in ("precision", "recall", "f1")) for feed in FEEDS]
    pairs = [_f(m[f"recall {a}-{b}"], 2) for a, b in FORM_PAIRS]
    return [
        res["method"],
        *prf,
        _f(m["same_site_precision"]),
        _f(m["same_site_false_pairs"], 1),
        *pairs,
        _f(m["seconds"], 1),
    ]


def site_table(results: list[dict[str, Any]], pages: Sequence[dict[str, Any]]) -> str:
    """Mean false pairs per site (full pages), for sites where some method made one."""
    n_pages = Counter(p["site"] for p in pages if (p.get("forms") or {}).get("full"))
    sites = sorted({s for r in results for s in r["mean"]["false_pairs_per_site"]}, key=lambda s: (-n_pages[s], s))
    rows = [[s, n_pages[s], *(_f(r["mean"]["false_pairs_per_site"].get(s, 0.0), 1) for r in results)] for s in sites]
    return markdown_table(["site", "pages", *(r["method"] for r in results)], rows)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="realpages folder (default: %(default)s)")
    ap.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS), help="methods (default: %(default)s)")
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3], help="feeding orders (default: %(default)s)")
    ap.add_argument("--limit", type=int, help="keep the first N pages")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    ap.add_argument(
        "--transform",
        choices=list(TRANSFORMS),
        help="every form of every page so transformed first (run_robustness.py's); the report is named after it",
    )
    return ap.parse_args(argv)


def methods_to_run(data: Path, names: Sequence[str]) -> list[Method] | int:
    """The methods ``names``, or the exit code instead: 0 without the real pages at ``data``, 2 for a bad name."""
    if not (data / "pages.jsonl.gz").exists():
        print(f"skipped: no real pages at {data} (pass --data DIR)", file=sys.stderr)
        return 0
    try:
        return build_methods(names)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    methods = methods_to_run(args.data, args.methods)
    if isinstance(methods, int):
        return methods
    pages = load_pages(args.data, args.limit)
    if args.transform:
        transform = TRANSFORMS[args.transform]
        for p in pages:
            p["forms"] = {form: transform(text, p["site"]) if text else text for form, text in p["forms"].items()}
    results: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    for method in methods:
        try:
            res = score_method(method, pages, args.seeds)
        except Unavailable as e:
            skipped[method.name] = str(e)
            print(f"skipped {method.name}: {e}", file=sys.stderr)
            continue
        results.append(res)
        print(f"{method.name:<20} full P={_f(res['mean']['full']['precision'])} ({res['mean']['seconds']:.1f}s/run)",
              file=sys.stderr)  # fmt: skip

    counts = {feed: len(form_docs(pages, forms)) for feed, forms in FEEDS.items()}
    form_counts = Counter(d.form for d in form_docs(pages, ALL_FORMS))
    table = markdown_table(MAIN_COLUMNS, [main_row(r) for r in results])
    sites = site_table(results, pages)
    print(table)
    env = environment()
    md = [
        "# Real pages",
        "",
        f"Generated by `python benchmarks/run_realpages.py` on {env['date']} (Python {env['python']}, "
        f"{env['machine']}, commit {env['commit']}), data `{args.data.name}`"
        + (f", every form transformed: {args.transform}" if args.transform else "")
        + (f", first {args.limit} pages" if args.limit else "")
        + f": {len(pages)} pages, {len({p['site'] for p in pages})} sites; documents per feed "
        + ", ".join(f"{k} {v}" for k, v in counts.items())
        + " (forms: "
        + ", ".join(f"{k} {v}" for k, v in sorted(form_counts.items()))
        + f"). Means over feeding orders (seeds {' '.join(map(str, args.seeds))}).",
        "",
        "Pairwise P / R / F1 per feed; *full same-site P*: precision over the predicted pairs of two full pages of "
        "one site (sites with 2+ pages); *same-site false pairs*: such pairs that are different articles; "
        "*a-b R*: in the all-forms feed, the share of pages whose forms a and b got one cluster; s/run: seconds for "
        "the three feeds of one order.",
        "",
        table,
        "",
        "## False pairs per site (full pages, mean over orders)",
        "",
        sites,
        "",
    ]
    payload = {"environment": env, "limit": args.limit, "seeds": args.seeds, "transform": args.transform}
    payload |= {"docs": counts, "results": results}
    name = re.sub(r"[^a-z0-9]+", "-", args.transform.lower()).strip("-") if args.transform else "realpages"
    write_report(args.out, name, md, skipped, payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
