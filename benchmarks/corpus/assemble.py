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
from dataclasses import dataclass

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


def to_rows(records: list[Record], prefix: str) -> list[dict[str, object]]:
    """JSONL rows: ids in arrival order, labels numbered by first arrival."""
    label: dict[int, str] = {}
    rows = []
    for i, r in enumerate(records):
        if r.cluster not in label:
            label[r.cluster] = f"{prefix}-{len(label):05d}"
        rows.append({"id": i, "label": label[r.cluster], "text": r.text, "site": r.site, "kind": r.kind})
    return rows
