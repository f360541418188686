"""Small corpora that reach the decision's rarer rules, built with the benchmark's corpus generator."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "data" / "news_sample.jsonl"
sys.path.insert(0, str(ROOT / "benchmarks"))


def popular_copies() -> list[str]:
    """The bundled sample, then edited copies of it (benchmarks/run_sample.py): joins, merges, sentence-vote passes."""
    from run_sample import load_sample, popular

    texts, labels = load_sample(SAMPLE)
    copies, _ = popular(texts, labels, 2 * len(texts), 2)
    return texts + copies


def edited_sample(copies: int, seed: int) -> list[str]:
    """The popular-story check's first ``copies`` pages (benchmarks/run_sample.py): the sample, edited."""
    from run_sample import load_sample, popular

    texts, labels = load_sample(SAMPLE)
    return popular(texts, labels, copies, seed)[0]


def hard_corpus(notes: bool = False, menus: bool = False) -> list[str]:
    """Pages of the benchmark corpus generator: site frames, siblings, revisions, early copies, wrapping.

    ``notes``: the pages of each group of ten also repeat two notes (prose a manual puts on every page).
    ``menus``: each page is a manual's menu page: two notes of its group, then the group's menu names line
    for line, each followed by a description of the page's own (templated siblings).
    """
    from corpus import assemble, hard, pool
    from corpus.build import _sites
    from corpus.sources import Article

    rng = random.Random(11)
    words = "package system kernel mirror archive install option network device driver user file".split()
    if notes or menus:  # a manual's vocabulary: its pages' own text alike only where they repeat it
        words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 9))) for _ in range(2000)]

    def prose(length: int, tag: str) -> str:
        return " ".join(" ".join(rng.choice(words) for _ in range(length)).capitalize() + f" {tag}." for _ in range(3))

    repeated = {g: [prose(16, f"note {g} {k}") for k in range(2)] for g in range(5)}
    articles = []
    for i in range(50):
        paras = [prose(12, f"item {i} part {j}") for j in range(4)]
        if notes:
            paras[1:1] = repeated[i // 10]
        if menus:
            names = [f"Menu {k} of group {i // 10}" for k in range(4)]
            paras = [*repeated[i // 10], *(line for k, name in enumerate(names) for line in (name, paras[k]))]
        articles.append(Article("en", "pkg", f"page{i}.html", f"g{i // 10}", f"Title number {i}", paras))
    sites = _sites(5)[("en", "tune")]
    hard.add_habits(sites, random.Random("5:habits"))
    siblings = {key for key, found in pool.siblings(articles).items() if found}
    records, _ = assemble.simulate_v2("en", articles, sites, random.Random(5), siblings, pool.key)
    return [str(row["text"]) for row in assemble.to_rows(records, "t", cases=True)]


def manual_corpus() -> list[str]:
    """:func:`hard_corpus` whose pages repeat their manual's notes: templated siblings."""
    return hard_corpus(notes=True)


def menu_corpus() -> list[str]:
    """:func:`hard_corpus` of a manual's menu pages: templated siblings that share whole lines, not text between."""
    return hard_corpus(menus=True)


def split_stories(count: int = 60) -> list[str]:
    """Stories of the sample seen first as two clusters, then joined by a page with sentences of both: merges.

    For each story: the page; a copy with every sentence edited at both anchors (no key of the page
    matches, so it starts a cluster of its own); a page with the first half of its sentences from one
    and the rest from the other, which passes with both and merges them.
    """
    from run_sample import load_sample

    def edited(sentence: str) -> str:
        if len(sentence) < 12:
            return sentence
        return sentence[:5] + "\u67d0" + sentence[6:-6] + "\u67d0" + sentence[-5:]

    pages: list[str] = []
    for text in load_sample(SAMPLE)[0][:count]:
        sentences = [s for s in re.split("(?<=[\u3002\uff01\uff1f\n])", text) if s.strip()]
        half = len(sentences) // 2
        copy = [edited(s) for s in sentences]
        pages += [text, "".join(copy), "".join(sentences[:half] + copy[half:])]
    return pages


def excerpt_pages(count: int = 15) -> list[str]:
    """Stories of the sample on a forum page above excerpts of other stories, and as bare copies: joins by lines.

    A forum page holds its story, then excerpts of three stories not otherwise fed, their sentences joined by
    commas (longer than any of the story's, so its keys are all theirs); the story's bare copy comes before or
    after it.  Nothing a copy looks up leads to its forum page, or the reverse: they meet through paragraphs.
    """
    from run_sample import load_sample

    texts, labels = load_sample(SAMPLE)
    stories: dict[str, str] = {}
    for text, label in zip(texts, labels):
        stories.setdefault(label, text)
    chosen, others = list(stories.values())[:count], list(stories.values())[count:]
    header = "\u8bba\u575b\u9996\u9875 | \u65b0\u95fb | \u7cbe\u534e | \u767b\u5f55"
    pages: list[str] = []
    for i, text in enumerate(chosen):
        excerpts = [others[(3 * i + k) % len(others)].replace("\u3002", "\uff0c").replace("\n", "") for k in range(3)]
        forum = "\n".join([header, text, *excerpts, "\u8fd4\u56de\u9876\u90e8"])
        pages += [forum, text] if i % 2 else [text, forum]
    return pages
