"""Turn clean articles into a crawl: clusters, sites, arrival order, records.

Every article (or pair of natural versions) is one ground-truth cluster. It
gets 0..30 reprints from a long-tailed distribution (most get none), each
published on some site at some time after its parent; all documents of a
file are then sorted by time, which interleaves them with unrelated pages.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from . import hard
from .edits import Context, Page, reprint
from .sites import Site, render
from .sources import Article

NO_REPRINT = 0.5  # share of clusters that stay singletons (or a lone version pair)
REPRINT_ALPHA = 1.7  # P(k reprints | k >= 1) ~ k ** -alpha
REPRINT_MAX = 30
SAME_SITE = 0.12  # a reprint on its parent's own site (a repost or an update)
CHAIN = 0.3  # a reprint copied from an earlier reprint rather than the original
EPOCH = dt.date(2019, 1, 1)
SPAN_DAYS = 1500


@dataclass
class Record:
    """One crawled document before ids are given out."""

    time: float
    seq: int  # creation order, breaks time ties deterministically
    cluster: int
    site: str
    kind: str  # "source", "version" or "reprint"
    text: str
    title: str
    cases: tuple[str, ...] = ()  # corpus v2: the hard cases this document carries


@dataclass
class _Member:
    page: Page
    site: Site
    time: float


def reprint_count(rng: random.Random) -> int:
    """0 with probability NO_REPRINT, else a power law on 1..REPRINT_MAX."""
    if rng.random() < NO_REPRINT:
        return 0
    ks = range(1, REPRINT_MAX + 1)
    return rng.choices(ks, weights=[k**-REPRINT_ALPHA for k in ks])[0]


def _delay(rng: random.Random) -> float:
    """Days from a parent to its reprint: mostly hours, sometimes months or years."""
    roll = rng.random()
    if roll < 0.6:
        return rng.expovariate(2.0)
    if roll < 0.9:
        return rng.uniform(1, 30)
    return rng.uniform(30, 700)


def _date(lang: str, day: float, rng: random.Random) -> str:
    when = dt.datetime.combine(EPOCH, dt.time()) + dt.timedelta(days=day)
    if lang == "zh":
        fmt = rng.choice(("%Y-%m-%d %H:%M", "%Y年%m月%d日 %H:%M", "%Y/%m/%d"))
    else:
        fmt = rng.choice(("%B %d, %Y", "%Y-%m-%d %H:%M UTC", "%d %b %Y"))
    return when.strftime(fmt)


def _pick_site(sites: list[Site], rng: random.Random, avoid: Site | None = None) -> Site:
    choices = [s for s in sites if s is not avoid]
    return rng.choices(choices, weights=[s.weight for s in choices])[0]


def simulate(
    lang: str, articles: list[Article], sites: list[Site], rng: random.Random
) -> tuple[list[Record], Counter[str]]:
    """Publish every article and its reprints; return records in arrival order.

    Also returns how often each edit was applied, for the manifest.
    """
    families: dict[str, list[Article]] = {}
    for a in articles:
        families.setdefault(a.family or f"{a.package}:{a.path}", []).append(a)
    clusters = list(families.values())
    rng.shuffle(clusters)
    titles = [a.title for a in articles]
    records: list[Record] = []
    edits: Counter[str] = Counter()

    def publish(cluster: int, m: _Member, kind: str) -> None:
        date = _date(lang, m.time, rng)
        text = render(m.site, m.page, date, rng, rng.choice(titles))
        records.append(Record(m.time, len(records), cluster, m.site.name, kind, text, m.page.title))

    for c, members in enumerate(clusters):
        # The original is the source, the later version its "version".
        members = sorted(members, key=lambda a: a.rank)
        start = rng.uniform(0, SPAN_DAYS)
        originals: list[_Member] = []
        for i, a in enumerate(members):
            when = start if i == 0 else start + rng.uniform(300, 800)
            site = _pick_site(sites, rng)
            m = _Member(Page(lang, a.title, list(a.paras)), site, when)
            originals.append(m)
            publish(c, m, "source" if i == 0 else "version")
        published = list(originals)
        for _ in range(reprint_count(rng)):
            parent = rng.choice(originals if rng.random() > CHAIN else published)
            site = parent.site if rng.random() < SAME_SITE else _pick_site(sites, rng, avoid=parent.site)
            ctx = Context(
                source_site=parent.site.name,
                date=_date(lang, parent.time, rng),
                other_titles=tuple(rng.sample(titles, k=min(5, len(titles)))),
            )
            page, applied = reprint(parent.page, rng, ctx)
            edits.update(applied)
            m = _Member(page, site, parent.time + _delay(rng))
            published.append(m)
            publish(c, m, "reprint")
    records.sort(key=lambda r: (r.time, r.seq))
    return records, edits


def to_rows(records: list[Record], prefix: str, cases: bool = False) -> list[dict[str, object]]:
    """JSONL rows: ids in arrival order, labels numbered by first arrival.

    With ``cases`` (v2) each row also lists its hard cases.
    """
    label: dict[int, str] = {}
    rows = []
    for i, r in enumerate(records):
        if r.cluster not in label:
            label[r.cluster] = f"{prefix}-{len(label):05d}"
        row: dict[str, object] = {"id": i, "label": label[r.cluster], "text": r.text, "site": r.site, "kind": r.kind}
        if cases:
            row["cases"] = list(r.cases)
        rows.append(row)
    return rows


# --- corpus v2 -------------------------------------------------------------------

NO_REPRINT_V2 = 0.45
REPRINT_ALPHA_V2 = 1.3
REPRINT_MAX_V2 = 6  # with a version and revisions, clusters stay at 1-8 documents but for a few
REVISED = 0.15  # clusters whose page is later revised in place (1-2 light revisions)
EARLY = 0.12  # copies of the original that a crawler meets before the original


def reprint_count_v2(rng: random.Random) -> int:
    """0 with probability NO_REPRINT_V2, else a power law on 1..REPRINT_MAX_V2."""
    if rng.random() < NO_REPRINT_V2:
        return 0
    ks = range(1, REPRINT_MAX_V2 + 1)
    return rng.choices(ks, weights=[k**-REPRINT_ALPHA_V2 for k in ks])[0]


def simulate_v2(
    lang: str,
    articles: list[Article],
    sites: list[Site],
    rng: random.Random,
    sibling_keys: set[str],
    key: Callable[[Article], str],
) -> tuple[list[Record], Counter[str]]:
    """:func:`simulate` with the hard cases of ``corpus/hard.py``.

    ``sibling_keys`` are the clusters whose article shares a long sentence
    with another article of the file; their documents are tagged "sibling".
    """
    families: dict[str, list[Article]] = {}
    for a in articles:
        families.setdefault(key(a), []).append(a)
    names = sorted(families)
    rng.shuffle(names)
    titles = [a.title for a in articles]
    # Paragraphs another article may paste in: the longer ones of each article.
    foreign = [max(a.paras, key=len) for a in articles if a.paras]
    records: list[Record] = []
    edits: Counter[str] = Counter()

    def publish(cluster: int, m: _Member, kind: str, cases: list[str]) -> None:
        date = _date(lang, m.time, rng)
        text = hard.render_page(m.site, m.page, date, rng, rng.choice(titles), titles)
        tags = tuple(sorted({*cases, *hard.site_cases(m.site)}))
        records.append(Record(m.time, len(records), cluster, m.site.name, kind, text, m.page.title, tags))

    for c, name in enumerate(names):
        members = sorted(families[name], key=lambda a: a.rank)
        base = ["sibling"] if name in sibling_keys else []
        start = rng.uniform(0, SPAN_DAYS)
        originals: list[_Member] = []
        for i, a in enumerate(members):
            when = start if i == 0 else start + rng.uniform(300, 800)
            m = _Member(Page(lang, a.title, list(a.paras)), _pick_site(sites, rng), when)
            originals.append(m)
            publish(c, m, "source" if i == 0 else "version", base if i == 0 else [*base, "version"])
        published = list(originals)
        if rng.random() < REVISED:
            # The page is updated in place on its own site and crawled again.
            last = originals[0]
            for _ in range(rng.choice((1, 1, 2))):
                page = last.page.copy()
                edits.update(f"revision:{op}" for op in hard.revise(page, rng))
                last = _Member(page, last.site, last.time + rng.uniform(5, 200))
                published.append(last)
                publish(c, last, "revision", [*base, "revision"])
        for _ in range(reprint_count_v2(rng)):
            early = rng.random() < EARLY
            parent = rng.choice(originals if early or rng.random() > CHAIN else published)
            site = parent.site if rng.random() < SAME_SITE else _pick_site(sites, rng, avoid=parent.site)
            ctx = hard.HardContext(
                source_site=parent.site.name,
                date=_date(lang, parent.time, rng),
                other_titles=tuple(rng.sample(titles, k=min(5, len(titles)))),
                foreign=tuple(p for p in rng.sample(foreign, k=min(5, len(foreign))) if p not in parent.page.paras),
            )
            page, applied = reprint(parent.page, rng, ctx)
            applied += hard.hard_edits(page, rng, ctx)
            edits.update(applied)
            # An early copy: a scraper the crawler reaches before the original.
            when = parent.time - rng.uniform(0.01, 3) if early else parent.time + _delay(rng)
            m = _Member(page, site, when)
            published.append(m)
            cases = [*base, *(a for a in applied if a in HARD_CASE_EDITS)] + (["early"] if early else [])
            publish(c, m, "reprint", cases)
    records.sort(key=lambda r: (r.time, r.seq))
    return records, edits


HARD_CASE_EDITS = {e.__name__ for e, _ in hard.HARD_EDIT_PROBABILITIES}
