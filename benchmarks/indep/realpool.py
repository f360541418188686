"""Articles from real news and blog pages: the maintainer-written texts of ``../shared/data/realpages``.

The same simulation as the Debian pool (:mod:`simulate`), other sources: news stories, blog posts and
forum threads of hundreds of real sites instead of help manuals.  Acceptance corpora are built "the same
way from other sources and sites"; this pool is the nearest such source here.  An article is a page's
``main`` text (the extraction projects' own annotation), else its ``traf`` text; its first line is its
title (:func:`title_and_paragraphs`), and its ``group`` (the publisher sites and sibling pages of
:mod:`simulate`) is its real site.  Pages sharing a ``cluster`` label give one article.  The pages are
read where they are; nothing of them is written into the repository.
"""

from __future__ import annotations

import gzip
import json
import os
import re

from sources import CJK, LENGTHS, Article, drop_near_copies, normalize, shingles

#: The folder of the labelled real pages, beside the repository (``$REALPAGES`` or ``--realpages`` elsewhere).
DEFAULT_REALPAGES = os.environ.get(
    "REALPAGES",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data", "realpages"),
)


#: The longest first line taken for a title (characters; a CJK character counts two).  Annotated texts
#: often start with their lead paragraph instead: a title of its first words then heads the article,
#: the lead stays its first paragraph, and related-article lists carry titles, not whole paragraphs.
TITLE_MAX = 90
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")


def _paragraphs(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _width(text: str) -> int:
    return len(text) + len(CJK.findall(text))


def title_and_paragraphs(lines: list[str]) -> tuple[str, list[str]]:
    """A text's title and paragraphs: its first line when short enough, else the first words of it."""
    if _width(lines[0]) <= TITLE_MAX:
        return lines[0], lines[1:]
    first = _SENTENCE_END.split(lines[0], maxsplit=1)[0]
    if _width(first) < TITLE_MAX // 3:  # "Mr." or "Berlin." is not the sentence the title is cut from
        first = lines[0]
    title = ""
    for token in re.findall(r"[\u4e00-\u9fff]\s*|[^\s\u4e00-\u9fff]+\s*", first):
        if _width(title + token) > TITLE_MAX:
            break
        title += token
    return title.strip() or first[: TITLE_MAX // 2], lines


def real_articles(folder: str = DEFAULT_REALPAGES) -> dict[str, list[Article]]:
    """The real pages' articles, filtered and cut like the Debian pool's: ``zh``, ``en`` and ``other``.

    ``other``: every other language (German, Spanish, French, Russian, ...), cut by the English rules
    and simulated as English pages are (``build.py`` writes them to ``other.jsonl``).
    """
    raw: dict[str, list[Article]] = {"zh": [], "en": [], "other": []}
    seen: set[str] = set()
    with gzip.open(os.path.join(folder, "pages.jsonl.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            page = json.loads(line)
            forms = page.get("forms") or {}
            lines = _paragraphs(forms.get("main") or forms.get("traf") or "")
            if page["cluster"] in seen or len(lines) < 2:
                continue
            seen.add(page["cluster"])
            title, paras = title_and_paragraphs(lines)
            article = {"title": title, "paras": paras, "group": "site:" + page["site"], "src": page["id"]}
            raw[page["lang"] if page["lang"] in ("zh", "en") else "other"].append(article)
    rules = {"zh": "zh", "en": "en", "other": "en"}
    return {
        name: drop_near_copies(without_repeats(normalize(arts, rules[name], *LENGTHS[rules[name]])))
        for name, arts in raw.items()
    }


#: A part of a text (``normalize`` cuts long ones) this much of whose 5-grams an earlier part of the same
#: text holds repeats it: an annotated text that holds its article twice, as Markdown and as HTML.  Its
#: parts are one article to anyone, so their labels would be noise (as ``drop_near_copies`` says).
REPEATED = 0.5


def without_repeats(arts: list[Article]) -> list[Article]:
    """``arts`` without the parts that repeat an earlier part of their text (:data:`REPEATED`)."""
    kept: list[Article] = []
    earlier: dict[str, list[set[str]]] = {}
    for article in arts:
        grams = shingles(article)
        if any(len(grams & other) >= REPEATED * len(grams) for other in earlier.get(article["src"], [])):
            continue
        earlier.setdefault(article["src"], []).append(grams)
        kept.append(article)
    return kept
