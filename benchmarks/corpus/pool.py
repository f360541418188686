"""Clean the article pool so that its labels can be trusted, then split it.

Two unrelated articles that secretly share most of their text would be
labelled "different" and punish a method for being right. So, before any
reprint is simulated:

1. natural versions (one section in two releases of a manual, one page in
   the amd64 and i386 editions of the installation guide) are paired;
2. paragraphs repeated across three or more articles (navigation, credits,
   "要访问此命令..." lines) are removed, as they are the packages' own
   boilerplate, not content;
3. exact duplicates, articles sharing three or more long sentences, and
   articles containing a quarter or more of another's text are dropped;
4. what is left is split into tune/held-out by file, so one split never sees
   a neighbouring section of a file the other split has.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict

from .sources import LIMITS, Article, good_article
from .textutil import norm, sentences, shingles

SHINGLE_K = {"zh": 8, "en": 24}  # characters of norm() text, about 5 words
LONG_SENTENCE = {"zh": 15, "en": 50}  # norm() characters
CONTAINMENT = 0.25
CONTAINMENT_V2 = 0.6  # v2 keeps siblings; at 60% of one page inside another, they are one page
SHARED_SENTENCES = 3
VERSION_SIMILARITY = 0.5
# Words that differ between releases or editions of one page by design.
_RELEASE = re.compile(r"bullseye|bookworm|buster|amd64|i386|x86[-_]64", flags=re.I)
_NUMBER = re.compile(r"\d+")


def _release_free(text: str) -> str:
    return norm(_RELEASE.sub("", text))


def _jaccard(a: set[int], b: set[int]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def pair_versions(articles: list[Article]) -> list[Article]:
    """Give an original and its later version the same ``family``; drop unpaired partners.

    A pair needs the same title (release names and numbers aside), a
    Jaccard similarity of at least ``VERSION_SIMILARITY`` over 5-character
    shingles (the same path with rewritten text is a different article), and
    some difference beyond release and architecture names (an identical copy is a
    duplicate, not a version; the pool dedupe drops it).
    """
    ranks: dict[tuple[str, str, int], list[Article]] = defaultdict(list)
    for a in articles:
        if a.versions:
            ranks[(a.lang, a.versions, a.rank)].append(a)
    for lang, space in sorted({(lang, space) for lang, space, _ in ranks}):
        by_title: dict[str, list[Article]] = defaultdict(list)
        for a in ranks[(lang, space, 0)]:
            by_title[_release_free(_NUMBER.sub("", a.title))].append(a)
        for a in ranks[(lang, space, 1)]:
            key = _release_free(_NUMBER.sub("", a.title))
            body = _release_free("\n".join(a.paras))
            cands = [b for b in by_title.get(key, []) if not b.family and _release_free("\n".join(b.paras)) != body]
            if not cands:
                continue
            sh = shingles(a.text, 5, keep_one_in=1)
            sims = [_jaccard(sh, shingles(b.text, 5, keep_one_in=1)) for b in cands]
            best = max(range(len(cands)), key=sims.__getitem__)
            if sims[best] >= VERSION_SIMILARITY:
                b = cands[best]
                a.family = b.family = f"{space}:{lang}:{b.package}:{b.path}"
                a.group = b.group = a.family
    return [a for a in articles if a.family or not a.partner_only]


def _key(a: Article) -> str:
    return a.family or f"{a.package}:{a.path}"


def drop_shared_paragraphs(articles: list[Article], min_families: int = 3, keep: bool = False) -> list[Article]:
    """Remove paragraphs found in ``min_families`` or more articles; re-check sizes.

    With ``keep`` (corpus v2) the shared paragraphs stay in the text, as they
    do on real templated help pages; only the size check is made on the
    article's own paragraphs, so every kept article still has enough text of
    its own to be a different article from its siblings.
    """
    counts: Counter[tuple[str, str]] = Counter()
    seen: set[tuple[str, str, str]] = set()
    for a in articles:
        for p in a.paras:
            n = norm(p)
            if n and (a.lang, n, _key(a)) not in seen:
                seen.add((a.lang, n, _key(a)))
                counts[(a.lang, n)] += 1
    out = []
    for a in articles:
        own = [p for p in a.paras if counts[(a.lang, norm(p))] < min_families]
        if good_article(own, a.lang, LIMITS[a.lang]):
            if not keep:
                a.paras = own
            out.append(a)
    # A version whose partner was dropped is an ordinary article again.
    fam = Counter(a.family for a in out if a.family)
    for a in out:
        if a.family and fam[a.family] < 2:
            a.family = ""
    return out


def dedupe(
    articles: list[Article], containment: float = CONTAINMENT, shared_sentences: int | None = SHARED_SENTENCES
) -> list[Article]:
    """Drop articles that (nearly) repeat an earlier kept one; first wins.

    Versions of one family are never compared with each other. Corpus v2
    passes ``containment=CONTAINMENT_V2`` and ``shared_sentences=None``: it
    keeps sibling pages that share sentences or a template and drops only
    near-copies, which a reader would call the same page.
    """
    kept: list[Article] = []
    kept_sh: list[set[int]] = []
    exact: dict[tuple[str, str], str] = {}
    sh_index: dict[tuple[str, int], list[int]] = defaultdict(list)
    sent_index: dict[tuple[str, str], list[int]] = defaultdict(list)
    for a in articles:
        body = "\n".join(a.paras)
        key = _key(a)
        whole = (a.lang, norm(body))
        if whole in exact and exact[whole] != key:
            continue
        sh = shingles(body, SHINGLE_K[a.lang])
        hits = Counter(j for s in sh for j in sh_index.get((a.lang, s), ()) if _key(kept[j]) != key)
        if any(c >= containment * min(len(sh), len(kept_sh[j])) for j, c in hits.items()):
            continue
        longs = {n for s in sentences(body) if len(n := norm(s)) >= LONG_SENTENCE[a.lang]}
        shared = Counter(j for s in longs for j in sent_index.get((a.lang, s), ()) if _key(kept[j]) != key)
        if shared_sentences is not None and any(c >= shared_sentences for c in shared.values()):
            continue
        i = len(kept)
        kept.append(a)
        kept_sh.append(sh)
        exact[whole] = key
        for h in sh:
            sh_index[(a.lang, h)].append(i)
        for sent in longs:
            sent_index[(a.lang, sent)].append(i)
    fam = Counter(a.family for a in kept if a.family)
    for a in kept:
        if a.family and fam[a.family] < 2:
            a.family = ""
    return kept


def split(articles: list[Article], seed: int) -> dict[str, list[Article]]:
    """Assign whole groups to "tune" or "heldout", balanced per package.

    The two packages of a version pair (installation-guide-amd64 and -i386)
    count as one, so a pair's group is assigned once.
    """
    out: dict[str, list[Article]] = {"tune": [], "heldout": []}
    by_pkg: dict[tuple[str, str], dict[str, list[Article]]] = defaultdict(dict)
    for a in articles:
        by_pkg[(a.lang, a.versions or a.package)].setdefault(a.group, []).append(a)
    for (lang, pkg), groups in sorted(by_pkg.items()):
        names = sorted(groups)
        random.Random(f"{seed}:split:{lang}:{pkg}").shuffle(names)
        sizes = {"tune": 0, "heldout": 0}
        for name in names:
            side = "tune" if sizes["tune"] <= sizes["heldout"] else "heldout"
            sizes[side] += len(groups[name])
            out[side].extend(groups[name])
    return out


def siblings(articles: list[Article]) -> dict[str, int]:
    """How many other articles share a long sentence with each article (by ``Article.key``).

    These are the sibling pages of corpus v2: pages of one manual or help
    system that repeat a templated sentence but are different articles.
    """
    index: dict[tuple[str, str], set[str]] = defaultdict(set)
    for a in articles:
        for s in sentences("\n".join(a.paras)):
            n = norm(s)
            if len(n) >= LONG_SENTENCE[a.lang]:
                index[(a.lang, n)].add(_key(a))
    out: dict[str, set[str]] = defaultdict(set)
    for keys in index.values():
        if len(keys) > 1:
            for k in keys:
                out[k] |= keys - {k}
    return {k: len(v) for k, v in out.items()}


def key(a: Article) -> str:
    """The cluster key of an article: its family (natural versions) or its own path."""
    return _key(a)
