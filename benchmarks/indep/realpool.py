"""Articles from real news and blog pages: the maintainer-written texts of ``../shared/data/realpages``.

The same simulation as the Debian pool (:mod:`simulate`), other sources: news stories, blog posts and
forum threads of hundreds of real sites instead of help manuals.  Acceptance corpora are built "the same
way from other sources and sites"; this pool is the nearest such source here.  An article is a page's
``main`` text (the extraction projects' own annotation), else its ``traf`` text; its first line is its
title, and its ``group`` (the publisher sites and sibling pages of :mod:`simulate`) is its real site.
Pages sharing a ``cluster`` label give one article.  The pages are read where they are; nothing of them
is written into the repository.
"""

from __future__ import annotations

import gzip
import json
import os

from sources import LENGTHS, Article, drop_near_copies, normalize

#: The folder of the labelled real pages, beside the repository (``$REALPAGES`` or ``--realpages`` elsewhere).
DEFAULT_REALPAGES = os.environ.get(
    "REALPAGES",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data", "realpages"),
)


def _paragraphs(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def real_articles(folder: str = DEFAULT_REALPAGES) -> dict[str, list[Article]]:
    """The Chinese and English articles of the real pages, filtered and cut like the Debian pool's."""
    raw: dict[str, list[Article]] = {"zh": [], "en": []}
    seen: set[str] = set()
    with gzip.open(os.path.join(folder, "pages.jsonl.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            page = json.loads(line)
            forms = page.get("forms") or {}
            lines = _paragraphs(forms.get("main") or forms.get("traf") or "")
            if page["lang"] not in raw or page["cluster"] in seen or len(lines) < 2:
                continue
            seen.add(page["cluster"])
            article = {"title": lines[0], "paras": lines[1:], "group": "site:" + page["site"], "src": page["id"]}
            raw[page["lang"]].append(article)
    return {lang: drop_near_copies(normalize(arts, lang, *LENGTHS[lang])) for lang, arts in raw.items()}
