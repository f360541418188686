"""The traditional-vs-simplified Chinese set (``zh-t2s.jsonl``).

Chinese articles of the held-out split are published in simplified
characters; most get copies on other sites converted to traditional
characters with OpenCC (``s2t``: characters only; ``s2tw``: Taiwan
variants; ``s2twp``: Taiwan variants and vocabulary, 软件 -> 軟體), the whole
page converted, site chrome included, as a traditional-Chinese mirror would
show it. A copy gets the v1 reprint edits first. Some articles stay alone
(negatives), and some also get an ordinary simplified reprint.

OpenCC is a benchmark-only dependency (``pip install 'nshash[bench]'``,
which pulls ``opencc-python-reimplemented``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from .assemble import Record, _date, _delay, _Member, _pick_site
from .edits import Context, Page, reprint
from .hard import render_page
from .sites import Site
from .sources import Article

ARTICLES = 400
CONVERTED = 0.7  # articles with 1-2 traditional copies; the rest stay alone or get a simplified copy
SIMPLIFIED_COPY = 0.2
CONFIGS = (("s2t", 0.5), ("s2tw", 0.25), ("s2twp", 0.25))


class MissingOpenCC(RuntimeError):
    """OpenCC is not installed."""


def converters() -> dict[str, Callable[[str], str]]:
    """OpenCC converters by config name.

    Raises:
        MissingOpenCC: with the command that installs it.
    """
    try:
        from opencc import OpenCC
    except ImportError as e:
        raise MissingOpenCC("zh-t2s needs OpenCC: pip install 'nshash[bench]' (opencc-python-reimplemented)") from e
    return {name: OpenCC(name).convert for name, _ in CONFIGS}


def opencc_version() -> str:
    """The installed OpenCC distribution and version, for the manifest."""
    from importlib import metadata

    for dist in ("opencc-python-reimplemented", "OpenCC", "opencc"):
        try:
            return f"{dist} {metadata.version(dist)}"
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


def simulate_t2s(
    articles: list[Article],
    sites: list[Site],
    rng: random.Random,
    key: Callable[[Article], str],
    convert: dict[str, Callable[[str], str]],
) -> tuple[list[Record], Counter[str]]:
    """Publish ``ARTICLES`` of ``articles`` with traditional copies; records in arrival order."""
    families: dict[str, list[Article]] = {}
    for a in articles:
        families.setdefault(key(a), []).append(a)
    names = sorted(families)
    rng.shuffle(names)
    names = names[:ARTICLES]
    titles = [families[n][0].title for n in names]
    records: list[Record] = []
    counts: Counter[str] = Counter()

    def publish(cluster: int, m: _Member, kind: str, config: str = "") -> None:
        text = render_page(m.site, m.page, _date("zh", m.time, rng), rng, rng.choice(titles), titles)
        if config:
            text = convert[config](text)
        cases = (f"t2s:{config}",) if config else ()
        records.append(Record(m.time, len(records), cluster, m.site.name, kind, text, m.page.title, cases))
        counts[config or "simplified"] += 1

    for c, name in enumerate(names):
        a = families[name][0]
        src = _Member(Page("zh", a.title, list(a.paras)), _pick_site(sites, rng), rng.uniform(0, 1500))
        publish(c, src, "source")
        copies: list[str] = []
        if rng.random() < CONVERTED:
            copies += rng.choices([n for n, _ in CONFIGS], weights=[w for _, w in CONFIGS], k=rng.choice((1, 1, 2)))
        if rng.random() < SIMPLIFIED_COPY:
            copies.append("")
        for config in copies:
            ctx = Context(
                source_site=src.site.name,
                date=_date("zh", src.time, rng),
                other_titles=tuple(rng.sample(titles, k=min(5, len(titles)))),
            )
            page, _ = reprint(src.page, rng, ctx)
            m = _Member(page, _pick_site(sites, rng, avoid=src.site), src.time + _delay(rng))
            publish(c, m, "reprint", config)
    records.sort(key=lambda r: (r.time, r.seq))
    return records, counts


def describe() -> dict[str, Any]:
    """Parameters for the manifest."""
    return {
        "articles": ARTICLES,
        "converted": CONVERTED,
        "simplified_copy": SIMPLIFIED_COPY,
        "configs": dict(CONFIGS),
        "opencc": opencc_version(),
    }
