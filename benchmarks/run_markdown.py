"""Real pages as text renderings: every method on the real pages' raw HTML as html2text and lynx write it.

    python benchmarks/run_markdown.py                        # all methods, seeds 1 2 3
    python benchmarks/run_markdown.py --methods nshash --out /tmp/md

Crawlers and readers that store pages as Markdown (html2text, markdownify and
the services built on them) write every link as ``[text](url)``, every image
as ``![alt](url)``, emphasis as ``**``/``_`` and headings as ``#``.  This
takes the real pages of ``../shared/data/realpages`` that have raw HTML, makes
their Markdown form with html2text (``md``: lines unwrapped, as crawlers
configure it; ``md78``: html2text's default, lines wrapped at 78 characters)
and feeds every method, in seeded random orders:

1. ``all``: the pages' full, main, traf, html and md forms mixed;
2. ``wrapped``: the same with md78 instead of md;
3. ``full+md``: full pages and their Markdown only (a site's pages share
   their menus: precision over pairs of one site shows whether they merge);
4. ``lynx`` and ``full+lynx``: the same with ``lynx -dump``'s text instead
   (wrapped at 79 columns, link numbers before the links' text, a numbered
   list of every link's URL at the end), when lynx is installed
   (``apt-get install lynx``; without it these feeds are left out);

with, from feeds 1, 2 and 4, the share of pages whose rendering landed with
another of their forms.  Without the real pages, or without html2text
(``pip install nshash[bench]``), the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from metrics import evaluate
from peers import Unavailable
from run_quality import environment, markdown_table, write_report
from run_realpages import DEFAULT_DATA, form_docs, form_pair_recall, load_pages, methods_to_run, run_feed, site_pairs

HERE = Path(__file__).resolve().parent
DEFAULT_METHODS = ("nshash", "nshash-batch", "original", "simhash", "datasketch-lsh", "rensa-lsh")
FEEDS = {
    "all": ("full", "main", "traf", "html", "md"),
    "wrapped": ("full", "main", "traf", "html", "md78"),
    "full+md": ("full", "md"),
    "lynx": ("full", "main", "traf", "html", "lynx"),
    "full+lynx": ("full", "lynx"),
}
PAIRS = {"all": ("full", "main", "traf", "html"), "wrapped": ("full", "main"), "lynx": ("full", "main")}


def to_lynx(html: str) -> str | None:
    """``html`` as ``lynx -dump`` writes it; ``None`` without lynx."""
    if shutil.which("lynx") is None:
        return None
    command = ["lynx", "-dump", "-stdin", "-display_charset=utf-8", "-assume_charset=utf-8"]
    done = subprocess.run(command, input=html.encode("utf-8"), capture_output=True, check=True, timeout=60)
    # A relative link is listed against the temporary file and folder lynx read the page from, new names
    # each run ("file:///tmp/lynxXXXXa1b2C3/L31614-1589TMP.html#disqus"): fixed names, so that a run is
    # repeatable (217 of the 273 pages had one; the lynx feed's precision moved by 0.004 between runs).
    dump = _LYNX_TEMP_FILE.sub("file:///page.html", done.stdout.decode("utf-8", "replace"))
    return _LYNX_TEMP_DIR.sub("file:///", dump)


_LYNX_TEMP_FILE = re.compile(r"file://(?:localhost)?/\S*?/lynx\w+/L\d+-\d+TMP\.html")
_LYNX_TEMP_DIR = re.compile(r"file://(?:localhost)?/\S*?/lynx\w+/")


def to_markdown(html: str, width: int) -> str:
    """``html`` as html2text writes it, lines wrapped at ``width`` (0: not wrapped)."""
    import html2text

    converter = html2text.HTML2Text()
    converter.body_width = width
    return str(converter.handle(html))


def markdown_pages(pages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pages with raw HTML, each with its ``md`` and ``md78`` forms added (and ``lynx`` when lynx is there)."""
    out = []
    for p in pages:
        html = (p.get("forms") or {}).get("html")
        if html:
            forms = {**p["forms"], "md": to_markdown(html, 0), "md78": to_markdown(html, 78)}
            dump = to_lynx(html)
            out.append({**p, "forms": forms if dump is None else {**forms, "lynx": dump}})
    return out


def feeds_for(pages: Sequence[dict[str, Any]]) -> dict[str, tuple[str, ...]]:
    """The feeds whose rendering the pages have (the lynx feeds need lynx)."""
    return {feed: forms for feed, forms in FEEDS.items() if any(forms[-1] in p["forms"] for p in pages)}


def score_method(method: Any, pages: Sequence[dict[str, Any]], seeds: Sequence[int]) -> dict[str, Any]:
    """P / R / F1 per feed, the Markdown form's recall against each other form, same-site precision; seed means."""
    sums: dict[str, list[float]] = {}

    def add(key: str, value: float | None) -> None:
        if value is not None:
            sums.setdefault(key, []).append(value)

    for seed in seeds:
        for feed, forms in feeds_for(pages).items():
            order, pred, _ = run_feed(method, form_docs(pages, forms), seed)
            s = evaluate([d.cluster for d in order], pred)
            for k in ("precision", "recall", "f1"):
                add(f"{feed} {k}", getattr(s, k))
            rendering = forms[-1]
            for other in PAIRS.get(feed, ()):
                joined, n = form_pair_recall(order, pred, rendering, other)
                add(f"{rendering}-{other}", joined / n if n else None)
            if feed.startswith("full+"):
                sites = site_pairs(order, pred).values()
                pairs, false = sum(v["pred_pairs"] for v in sites), sum(v["false_pairs"] for v in sites)
                add(f"{feed} same-site precision", 1 - false / pairs if pairs else 1.0)
    return {"method": method.name, "mean": {k: sum(v) / len(v) for k, v in sums.items()}}


_SITE_FEEDS = [feed for feed in FEEDS if feed.startswith("full+")]
_PAIR_KEYS = [f"{FEEDS[feed][-1]}-{other}" for feed, others in PAIRS.items() for other in others]
COLUMNS = [
    "method",
    *(f"{feed} P / R / F1" for feed in FEEDS),
    *(f"{feed} same-site P" for feed in _SITE_FEEDS),
    *(f"{key} R" for key in _PAIR_KEYS),
]


def row(res: dict[str, Any]) -> list[str]:
    m = res["mean"]

    def f(key: str, digits: int = 3) -> str:
        return f"{m[key]:.{digits}f}" if key in m else "-"

    prf = [" / ".join(f(f"{feed} {k}") for k in ("precision", "recall", "f1")) for feed in FEEDS]
    sites = [f(f"{feed} same-site precision") for feed in _SITE_FEEDS]
    return [res["method"], *prf, *sites, *(f(key, 2) for key in _PAIR_KEYS)]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="realpages folder (default: %(default)s)")
    ap.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS), help="methods (default: %(default)s)")
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3], help="feeding orders (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    args = ap.parse_args(argv)
    try:
        import html2text  # noqa: F401
    except ImportError:
        print("skipped: html2text is not installed (pip install nshash[bench])", file=sys.stderr)
        return 0
    methods = methods_to_run(args.data, args.methods)
    if isinstance(methods, int):
        return methods
    pages = markdown_pages(load_pages(args.data))
    results, skipped = [], {}
    for method in methods:
        try:
            results.append(score_method(method, pages, args.seeds))
        except Unavailable as e:
            skipped[method.name] = str(e)
            print(f"skipped {method.name}: {e}", file=sys.stderr)
    table = markdown_table(COLUMNS, [row(r) for r in results])
    print(table)
    env = environment()
    md = [
        "# Real pages as text renderings (Markdown, lynx)",
        "",
        f"Generated by `python benchmarks/run_markdown.py` on {env['date']} (Python {env['python']}, "
        f"{env['machine']}, commit {env['commit']}), data `{args.data.name}`: the {len(pages)} pages with raw HTML, "
        f"{len({p['site'] for p in pages})} sites, each also as html2text writes it (`md`: lines unwrapped; "
        "`md78`: wrapped at 78 characters) and as `lynx -dump` does (`lynx`; "
        + ("present" if "lynx" in feeds_for(pages) else "lynx not installed: its feeds left out")
        + f"). Means over feeding orders (seeds {' '.join(map(str, args.seeds))}).",
        "",
        "Pairwise P / R / F1 per feed (`all`: full, main, traf, html and md forms; `wrapped`: md78 for md; "
        "`lynx`: lynx for md; `full+md`, `full+lynx`: full pages and that rendering only); *same-site P*: precision "
        "over the predicted pairs of one site in that feed; *x-y R*: the share of pages whose forms x and y got one "
        "cluster.",
        "",
        table,
        "",
    ]
    write_report(args.out, "markdown", md, skipped, {"environment": env, "seeds": args.seeds, "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
