"""One labelled file: articles published, revised and reprinted across simulated sites, in crawl order.

Each article becomes one cluster (one ``label``): its first publication on one of its manual's
publisher sites (``source``, or ``sibling`` when it shares a sentence with another article of the
same manual on the same site), later ``revision``s on that site, and ``reprint``s elsewhere, some of
them crawled before the source. Everything is drawn from one ``random.Random`` seeded by
(seed, file name), so a seed and a pool give the same file byte for byte.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from edits import Log, reprint_edit, revise, split_sents
from sites import Context, Site, make_sites, render
from sources import Article
from words import EN_AUTH, ZH_AUTH

#: Minimum length of a sentence that makes two articles siblings (characters).
SIBLING_SENTENCE = {"zh": 10, "en": 30}


@dataclass
class Page:
    """One crawled page before it gets its id (the arrival order)."""

    time: float  # days since 2021-01-01
    tiebreak: float
    label: str
    site: str
    kind: str
    text: str
    edits: list[str]
    article_chars: int
    group: str
    article: int | None = None  # the article's index, on its first publication only


@dataclass
class Simulated:
    """A simulated file: ``docs`` (id, label, text, site, kind), ``metas`` (id, edits, article_chars, group)."""

    docs: list[dict[str, Any]]
    metas: list[dict[str, Any]]
    log: Log  # edit name -> count, plus "reprints" and "revisions"
    articles: int


@dataclass
class _Run:
    rng: random.Random
    zh: bool
    arts: list[Article]
    sites: list[Site]
    log: Log = field(default_factory=Counter)


@dataclass
class _Cluster:
    """One article's cluster: what its pages have in common."""

    index: int
    art: Article
    label: str
    t0: float  # first publication
    home: int  # the site that first publishes it (and revises it)
    author: str

    @property
    def chars(self) -> int:
        return sum(map(len, self.art["paras"]))


def sample_size(rng: random.Random, lang: str) -> int:
    """Pages in a cluster: a third singletons, then 2-8 with a decaying weight, 4% get 9-15."""
    if rng.random() < (0.34 if lang == "zh" else 0.36):
        return 1
    if rng.random() < 0.04:
        return rng.randint(9, 15)
    weights = [22, 20, 17, 13, 11, 9, 8] if lang == "zh" else [28, 22, 17, 12, 9, 7, 5]
    return rng.choices(range(2, 9), weights=weights)[0]


def sent_keys(art: Article, zh: bool) -> set[str]:
    """The article's sentences long enough to make a shared one meaningful."""
    min_len = SIBLING_SENTENCE["zh" if zh else "en"]
    keys = set()
    for p in art["paras"]:
        for s in split_sents(p, zh):
            s = s.strip()
            if len(s) >= min_len:
                keys.add(s)
    return keys


def _pick_articles(rng: random.Random, pool: list[Article], zh: bool, n_articles: int) -> list[Article]:
    if not zh:
        return rng.sample(pool, min(n_articles, len(pool)))
    # Chinese articles are scarce and short: all those >= 150 chars (up to n_articles), plus 12% of
    # short pages, where the site's chrome outweighs the article.
    long_ = [a for a in pool if sum(map(len, a["paras"])) >= 150]
    short = [a for a in pool if sum(map(len, a["paras"])) < 150]
    n_long = min(n_articles, len(long_))
    n_short = min(len(short), round(n_long * 0.12 / 0.88))
    arts = rng.sample(long_, n_long) + rng.sample(short, n_short)
    rng.shuffle(arts)
    return arts


def _related(run: _Run, c: _Cluster, site_idx: int) -> list[str]:
    """Titles for the site's "related articles" list: some of the same manual, the others random."""
    k = run.sites[site_idx]["related"]
    if not k:
        return []
    same = [a["title"] for a in run.arts if a["group"] == c.art["group"] and a is not c.art]
    other = [run.arts[run.rng.randrange(len(run.arts))]["title"] for _ in range(k)]
    cand = run.rng.sample(same, min(len(same), k // 2)) + other
    return [t for t in cand if t != c.art["title"]][:k]


def _context(run: _Run, c: _Cluster, t: float, site_idx: int, **extra: Any) -> Context:
    """What ``render`` needs besides the text; the draws happen in the order written."""
    rng = run.rng
    ctx = {
        "date": t,
        "author": c.author,
        "views": rng.randint(12, 50000),
        "ncomments": rng.randint(0, 120),
        "related": _related(run, c, site_idx),
        "year": 2021 + int(t // 365),
        "date_min": rng.random() < 0.3,
        "section": None,
    }
    ctx.update(extra)
    return ctx


def _page(run: _Run, c: _Cluster, time: float, site_idx: int, kind: str, text: str, edits: list[str]) -> Page:
    return Page(
        time=time,
        tiebreak=run.rng.random(),
        label=c.label,
        site=run.sites[site_idx]["domain"],
        kind=kind,
        text=text,
        edits=edits,
        article_chars=c.chars,
        group=c.art["group"],
    )


def _source(run: _Run, c: _Cluster) -> Page:
    text = render(run.sites[c.home], run.rng, c.art["title"], c.art["paras"], _context(run, c, c.t0, c.home))
    page = _page(run, c, c.t0 + run.rng.uniform(0, 3), c.home, "source", text, [])
    page.article = c.index
    return page


def _revisions(run: _Run, c: _Cluster, n: int) -> list[Page]:
    """``n`` later versions on the home site, each revising the one before."""
    pages = []
    paras, t = c.art["paras"], c.t0
    for _ in range(n):
        t = t + run.rng.uniform(5, 200)
        edits: Log = Counter()
        paras, top, bottom = revise(paras, run.rng, run.zh, edits)
        run.log.update(edits)
        ctx = _context(run, c, t, c.home, extra_top=top, extra_bottom=bottom)
        text = render(run.sites[c.home], run.rng, c.art["title"], paras, ctx)
        pages.append(_page(run, c, t + run.rng.uniform(0, 3), c.home, "revision", text, sorted(edits)))
        run.log["revisions"] += 1
    return pages


def _source_line(run: _Run, c: _Cluster) -> str:
    """A reprint's credit line naming (or linking) the source site."""
    rng, home = run.rng, run.sites[c.home]
    if run.zh:
        url = f"http://{home['domain']}/article/{rng.randint(1000, 99999)}.html"
        return rng.choice([f"来源：{home['name']}", "原文链接：" + url, f"本文转载自{home['name']}"])
    url = f"https://{home['domain']}/{rng.randint(1000, 99999)}/"
    return rng.choice([f"Source: {home['name']}", "Originally published at " + url, f"via {home['domain']}"])


def _reprints(run: _Run, c: _Cluster, n: int) -> list[Page]:
    """``n`` copies on other sites (rarely a printer-friendly copy on the same one), of the source or a copy."""
    rng = run.rng
    pages = []
    versions: list[tuple[str | None, list[str]]] = [(c.art["title"], c.art["paras"])]
    for _ in range(n):
        edits: Log = Counter()
        printed = rng.random() < 0.05 and run.sites[c.home]["print_variant"]
        site_idx = c.home if printed else rng.choice([i for i in range(len(run.sites)) if i != c.home])
        base_title, base_paras = versions[0] if rng.random() < 0.75 else rng.choice(versions)
        of_reprint = len(versions) > 1 and base_paras is not c.art["paras"]
        title, paras, top, bottom, excerpt = reprint_edit(
            base_title or c.art["title"], base_paras, rng, run.zh, run.arts, c.art, edits
        )
        if rng.random() < 0.35:
            bottom = [*bottom, _source_line(run, c)]
            edits["source_line_appended"] += 1
        delay = rng.lognormvariate(1.5, 1.3)
        if rng.random() < 0.10:
            delay = -rng.uniform(0.5, 30)  # crawled before the original
            edits["reprint_before_source"] += 1
        t = c.t0 + 3 + delay
        paras = paras or c.art["paras"][:1]
        author = None if rng.random() < 0.6 else c.author  # None: the site names one of its own
        ctx = _context(
            run, c, t, site_idx, extra_top=top, extra_bottom=bottom, excerpt=excerpt, print=printed, author=author
        )
        text = render(run.sites[site_idx], rng, title, paras, ctx)
        versions.append((title, paras))
        if printed:
            edits["same_site_print_copy"] += 1
        if of_reprint:
            edits["reprint_of_reprint"] += 1
        run.log.update(edits)
        pages.append(_page(run, c, t, site_idx, "reprint", text, sorted(edits)))
        run.log["reprints"] += 1
    return pages


def _cluster(run: _Run, index: int, art: Article, label: str, publishers: list[int]) -> tuple[int, list[Page]]:
    """The home site and all pages of one article: source, revisions, reprints (unsorted)."""
    rng = run.rng
    size = sample_size(rng, "zh" if run.zh else "en")
    t0 = rng.uniform(0, 700)
    home = rng.choice(publishers)
    author = rng.choice(ZH_AUTH if run.zh else EN_AUTH)
    c = _Cluster(index, art, label, t0, home, author)
    n_revisions = 0
    if size >= 2:
        r = rng.random()
        n_revisions = 2 if r < 0.02 else (1 if r < 0.14 else 0)
    source = _source(run, c)
    revisions = _revisions(run, c, n_revisions)
    return home, [source, *revisions, *_reprints(run, c, size - 1 - n_revisions)]


def _mark_siblings(pages: list[Page], arts: list[Article], homes: list[int], zh: bool) -> None:
    """A source that shares a sentence with another article of its manual on the same site is a ``sibling``."""
    keys = [sent_keys(a, zh) for a in arts]
    by_site_group: dict[tuple[int, str], list[int]] = {}
    for ai, art in enumerate(arts):
        by_site_group.setdefault((homes[ai], art["group"]), []).append(ai)
    for page in pages:
        ai = page.article
        if ai is None:
            continue
        mates = by_site_group[(homes[ai], arts[ai]["group"])]
        if any(b != ai and keys[ai] & keys[b] for b in mates):
            page.kind = "sibling"


def simulate(name: str, pool: list[Article], seed: int, n_articles: int, n_sites: int) -> Simulated:
    """The file ``name`` ('zh', 'en', 'zh-small', ...): ``n_articles`` of ``pool`` on ``n_sites`` (>= 4) sites.

    Raises ValueError when ``n_sites`` < 4 (a manual has 2-4 publisher sites).
    """
    if n_sites < 4:
        raise ValueError(f"n_sites must be >= 4 (each manual is published by 2-4 sites), got {n_sites}")
    zh = name.startswith("zh")
    rng = random.Random(f"{seed}-{name}")
    arts = _pick_articles(rng, pool, zh, n_articles)
    run = _Run(rng, zh, arts, make_sites(rng, "zh" if zh else "en", n_sites))
    # Each manual is published first by 2-4 sites of its own.
    publishers = {g: rng.sample(range(n_sites), rng.randint(2, 4)) for g in sorted({a["group"] for a in arts})}
    pages: list[Page] = []
    homes = []
    for ai, art in enumerate(arts):
        home, cluster = _cluster(run, ai, art, f"{name}-{seed:d}-{ai:04d}", publishers[art["group"]])
        homes.append(home)
        pages += cluster
    _mark_siblings(pages, arts, homes, zh)
    pages.sort(key=lambda p: (p.time, p.tiebreak))
    docs = [{"id": i, "label": p.label, "text": p.text, "site": p.site, "kind": p.kind} for i, p in enumerate(pages)]
    metas = [
        {"id": i, "edits": p.edits, "article_chars": p.article_chars, "group": p.group} for i, p in enumerate(pages)
    ]
    return Simulated(docs, metas, run.log, len(arts))
