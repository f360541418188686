"""Real site chrome around real articles: one article syndicated to many sites, many articles on one site.

    python benchmarks/run_realchrome.py                       # all methods, seeds 1 2 3
    python benchmarks/run_realchrome.py --methods nshash --per 6 --out /tmp/r

The real pages of ``../shared/data/realpages`` that have an annotated article
text (``main``) inside their full page (``full``) give a site's real chrome:
the lines above the article's first line and below its last.  Every such
chrome (Chinese and English pages) is wrapped around ``--per`` articles drawn,
with replacement, from the annotated articles of its language, so that each
site shows several articles (its chrome must not join them) and each article
appears on several sites, verbatim (its copies must join).  Documents are
fed in a seeded random order, one run per seed.  Reported: pairwise P / R /
F1, false pairs between two pages of one chrome and between two sites, and
recall over the pairs of one article on two sites.

``--edits SHARE``: that share of the copies is edited the way the independent
corpus's reprinting sites edit theirs (``indep/edits.py``: reworded
sentences, typos, changed or dropped titles, truncation, ads and another
article's paragraph inserted, punctuation, hard wrapping and joined
paragraphs, a byline), drawn from a random stream of their own so that the
same articles land on the same sites as without edits.  The report is then
``realchrome-edits``.

The pages are evaluation data: read from the shared folder, never copied here.
Without the folder the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from metrics import pair_counts, pair_scores
from peers import Method, Unavailable
from run_quality import environment, markdown_table, write_report
from run_realpages import DEFAULT_DATA, load_pages, methods_to_run

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "indep"))  # its edits import their neighbours as top-level modules
from edits import reprint_edit  # noqa: E402

DEFAULT_METHODS = ("nshash", "nshash-batch", "original", "simhash", "datasketch-lsh", "rensa-lsh")
LANGS = ("zh", "en")
#: A chrome of fewer characters (header and footer together) is hardly a site's chrome.
MIN_CHROME = 200
#: Where copies are missed: by the article's length in characters (each bucket from its bound up) ...
LENGTHS = ((0, "under 300"), (300, "300-999"), (1000, "1,000-2,999"), (3000, "3,000 or more"))
#: ... and by the page's place among its site's pages in the feed (the last bucket: that place and later).
RANKS = ((1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th and later"))


@dataclass(frozen=True)
class Chrome:
    """The lines of a real full page above and below its article text."""

    site: str
    lang: str
    head: str
    foot: str


@dataclass(frozen=True)
class Doc:
    """One article wrapped in one chrome (``chrome``: its index, a site of the benchmark)."""

    article: str
    chrome: int
    text: str


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n")]


def cut_chrome(full: str, main: str) -> tuple[str, str] | None:
    """``(head, foot)``: the non-empty lines of ``full`` before ``main``'s first line and after its last.

    ``None`` when ``main`` has fewer than two lines or they are not lines of ``full`` in that order.

    >>> cut_chrome("Menu | News\\nTitle\\nBody line.\\nFooter (c)", "Title\\nBody line.")
    ('Menu | News', 'Footer (c)')
    """
    article = [line for line in _lines(main) if line]
    page = _lines(full)
    if len(article) < 2 or article[0] not in page or article[-1] not in page:
        return None
    first = page.index(article[0])
    last = len(page) - 1 - page[::-1].index(article[-1])
    if last < first:
        return None
    return "\n".join(x for x in page[:first] if x), "\n".join(x for x in page[last + 1 :] if x)


def chromes_and_articles(pages: Sequence[dict[str, Any]]) -> tuple[list[Chrome], dict[str, list[tuple[str, str]]]]:
    """The chromes of :data:`LANGS` pages, and per language the annotated articles ``(cluster, text)``."""
    chromes: list[Chrome] = []
    articles: dict[str, list[tuple[str, str]]] = {lang: [] for lang in LANGS}
    for p in pages:
        forms = p.get("forms") or {}
        main, full = forms.get("main") or "", forms.get("full") or ""
        if p["lang"] not in LANGS or not main.strip():
            continue
        lines = [line for line in _lines(main) if line]
        if len(lines) >= 2:
            articles[p["lang"]].append((p["cluster"], "\n".join(lines)))
        cut = cut_chrome(full, main) if full else None
        if cut is not None and len(cut[0]) + len(cut[1]) >= MIN_CHROME:
            chromes.append(Chrome(p["site"], p["lang"], *cut))
    return chromes, articles


@lru_cache(maxsize=len(LANGS))
def _lenders(pool: tuple[str, ...]) -> list[dict[str, Any]]:
    """The articles of ``pool`` as ``reprint_edit`` reads another article's paragraphs: split once a pool."""
    return [{"title": "", "paras": other.split("\n")} for other in pool]


def edit_article(text: str, rng: random.Random, lang: str, pool: Sequence[str]) -> str:
    """``text`` (its first line the title) as a reprinting site edits it (``indep/edits.py``'s ``reprint_edit``).

    ``pool``: the language's articles, one of which (not ``text``) may lend a paragraph.
    """
    title, *paras = text.split("\n")
    me = {"title": title, "paras": paras}
    arts = [me if other == text else lender for other, lender in zip(pool, _lenders(tuple(pool)))]
    new_title, paras, above, below, _ = reprint_edit(title, paras, rng, lang == "zh", arts, me, Counter())
    return "\n".join([*([new_title] if new_title else []), *above, *paras, *below])


def make_docs(
    chromes: Sequence[Chrome], articles: dict[str, list[tuple[str, str]]], per: int, seed: int, edits: float = 0.0
) -> list[Doc]:
    """``per`` articles of its language in every chrome, in a seeded random order.

    ``edits``: the share of them edited (:func:`edit_article`), drawn apart from where articles go.
    """
    rng, edit_rng = random.Random(seed), random.Random(f"{seed}-edits")
    pools = {lang: [text for _, text in articles[lang]] for lang in articles}
    docs = []
    for index, chrome in enumerate(chromes):
        for _ in range(per):
            cluster, text = rng.choice(articles[chrome.lang])
            if edits and edit_rng.random() < edits:
                text = edit_article(text, edit_rng, chrome.lang, pools[chrome.lang])
            docs.append(Doc(cluster, index, "\n".join(part for part in (chrome.head, text, chrome.foot) if part)))
    rng.shuffle(docs)
    return docs


def pair_kinds(docs: Sequence[Doc], pred: Sequence[Any]) -> dict[str, int]:
    """Predicted false pairs within one chrome and across chromes; article pairs across chromes, and joined.

    >>> docs = [Doc("a", 0, ""), Doc("b", 0, ""), Doc("a", 1, ""), Doc("c", 1, "")]
    >>> pair_kinds(docs, [1, 1, 1, 2])
    {'false_same_chrome': 1, 'false_across': 1, 'copies_across': 1, 'copies_across_joined': 1}
    """
    out = {"false_same_chrome": 0, "false_across": 0, "copies_across": 0, "copies_across_joined": 0}
    for i in range(len(docs)):
        for j in range(i + 1, len(docs)):
            a, b = docs[i], docs[j]
            same = pred[i] == pred[j]
            if a.article == b.article:
                if a.chrome != b.chrome:
                    out["copies_across"] += 1
                    out["copies_across_joined"] += same
            elif same:
                out["false_same_chrome" if a.chrome == b.chrome else "false_across"] += 1
    return out


def missed_copies(docs: Sequence[Doc], pred: Sequence[Any], lengths: dict[str, int]) -> dict[str, list[int]]:
    """Copies missed, as ``[count, missed]`` by the :data:`LENGTHS` and :data:`RANKS` labels.

    By length: the pairs of one article on two sites (``lengths``: each article's characters), missed when
    apart.  By rank: the pages whose article an earlier page on another site had, missed when they got
    none of those pages' labels; a page's rank is its place among its site's pages in the feed.

    >>> docs = [Doc("a", 0, ""), Doc("b", 0, ""), Doc("a", 1, ""), Doc("b", 1, "")]
    >>> found = missed_copies(docs, [1, 2, 1, 3], {"a": 500, "b": 5000})
    >>> found["300-999"], found["3,000 or more"], found["1st"], found["2nd"]
    ([1, 0], [1, 1], [1, 0], [1, 1])
    """
    out = {label: [0, 0] for _, label in (*LENGTHS, *RANKS)}
    seen: Counter[int] = Counter()
    for i, a in enumerate(docs):
        seen[a.chrome] += 1
        length = next(label for bound, label in reversed(LENGTHS) if lengths[a.article] >= bound)
        rank = next(label for bound, label in reversed(RANKS) if seen[a.chrome] >= bound)
        earlier = [pred[j] for j in range(i) if docs[j].article == a.article and docs[j].chrome != a.chrome]
        out[length][0] += len(earlier)
        out[length][1] += sum(label != pred[i] for label in earlier)
        if earlier:
            out[rank][0] += 1
            out[rank][1] += pred[i] not in earlier
    return out


def score(method: Method, chromes: Sequence[Chrome], articles: dict[str, list[tuple[str, str]]], per: int,
          seeds: Sequence[int], edits: float = 0.0) -> dict[str, Any]:  # fmt: skip
    """P / R / F1 and the pair kinds of one method, per seed and their means; copies missed, summed.

    Raises:
        Unavailable: passed on from the method.
    """
    lengths: dict[str, int] = {}
    for lang in articles:
        for cluster, text in articles[lang]:
            lengths.setdefault(cluster, len(text))
    runs, missed = [], {label: [0, 0] for _, label in (*LENGTHS, *RANKS)}
    for seed in seeds:
        docs = make_docs(chromes, articles, per, seed, edits)
        start = time.perf_counter()
        pred = method.fit_labels([d.text for d in docs])
        seconds = time.perf_counter() - start
        p, r, f1 = pair_scores(pair_counts([d.article for d in docs], pred))
        runs.append({"seed": seed, "precision": p, "recall": r, "f1": f1, "seconds": seconds, **pair_kinds(docs, pred)})
        for label, (count, lost) in missed_copies(docs, pred, lengths).items():
            missed[label] = [missed[label][0] + count, missed[label][1] + lost]
    mean = {key: sum(run[key] for run in runs) / len(runs) for key in runs[0] if key != "seed"}
    return {"method": method.name, "runs": runs, "mean": mean, "missed": missed}


def missed_row(res: dict[str, Any]) -> list[str]:
    """A method's share of copies missed in each :data:`LENGTHS` and :data:`RANKS` bucket, in percent."""
    cells = [f"{100 * lost / count:.1f}" if count else "-" for count, lost in res["missed"].values()]
    return [res["method"], *cells]


def row(res: dict[str, Any]) -> list[str]:
    m = res["mean"]
    across = m["copies_across_joined"] / m["copies_across"] if m["copies_across"] else float("nan")
    return [
        res["method"],
        f"{m['precision']:.3f} / {m['recall']:.3f} / {m['f1']:.3f}",
        f"{m['false_same_chrome']:.1f}",
        f"{m['false_across']:.1f}",
        f"{across:.3f}",
        f"{m['seconds']:.1f}",
    ]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="realpages folder (default: %(default)s)")
    ap.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS), help="methods (default: %(default)s)")
    ap.add_argument("--per", type=int, default=6, help="articles wrapped in each chrome (default: %(default)s)")
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3], help="draws and orders (default: %(default)s)")
    ap.add_argument("--edits", type=float, default=0.0, help="share of the copies edited (default: none)")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    methods = methods_to_run(args.data, args.methods)
    if isinstance(methods, int):
        return methods
    chromes, articles = chromes_and_articles(load_pages(args.data))
    results: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    for method in methods:
        try:
            res = score(method, chromes, articles, args.per, args.seeds, args.edits)
        except Unavailable as e:
            skipped[method.name] = str(e)
            print(f"skipped {method.name}: {e}", file=sys.stderr)
            continue
        results.append(res)
        print(f"{method.name:<20} F1={res['mean']['f1']:.3f}", file=sys.stderr)
    columns = ["method", "P / R / F1", "false pairs, one chrome", "false pairs, two sites", "copies joined", "s/run"]
    table = markdown_table(columns, [row(r) for r in results])
    print(table)
    buckets = [label for _, label in LENGTHS] + [f"site's {label} page" for _, label in RANKS]
    missed = markdown_table(["method", *buckets], [missed_row(r) for r in results])
    counts = results[0]["missed"] if results else {}
    env = environment()
    langs = ", ".join(f"{lang} {sum(c.lang == lang for c in chromes)}" for lang in LANGS)
    edited = f" --edits {args.edits:g}" if args.edits else ""
    md = [
        "# Real chrome around real articles" + (f", {args.edits:.0%} of the copies edited" if args.edits else ""),
        "",
        f"Generated by `python benchmarks/run_realchrome.py{edited}` on {env['date']} (Python {env['python']}, "
        f"{env['machine']}, commit {env['commit']}), data `{args.data.name}`: {len(chromes)} chromes ({langs}) "
        f"cut from full pages around their annotated article, {args.per} articles in each "
        f"({len(chromes) * args.per} documents), articles drawn from "
        + ", ".join(f"{len(articles[lang])} {lang}" for lang in LANGS)
        + f" annotated texts. Means over seeds {' '.join(map(str, args.seeds))}.",
        "",
        "*copies joined*: of the pairs of one article on two sites, the share put together; false pairs are pairs of "
        "different articles put together, on one chrome (one site) or on two.",
        "",
        table,
        "",
        "## Where copies are missed",
        "",
        "In percent. By the article's length in characters: the share of the pairs of one article on two sites "
        "left apart (pairs, summed over the seeds: "
        + ", ".join(f"{label} {counts[label][0]:,}" for _, label in LENGTHS if label in counts)
        + "). By the page's place among its site's pages in the feed: the share of the pages whose article an "
        "earlier page on another site had that got none of those pages' labels (pages: "
        + ", ".join(f"{label} {counts[label][0]:,}" for _, label in RANKS if label in counts)
        + "). On a site's first page, none of its chrome has been seen yet.",
        "",
        missed,
        "",
    ]
    payload = {"environment": env, "per": args.per, "seeds": args.seeds, "edits": args.edits, "chromes": len(chromes)}
    stem = "realchrome-edits" if args.edits else "realchrome"
    write_report(args.out, stem, md, skipped, {**payload, "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
