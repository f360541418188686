"""Small text helpers shared by the corpus modules."""

from __future__ import annotations

import re
import unicodedata
import zlib

HAN = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]")
# Sentence ends for the generator's own bookkeeping (not the 2019 splitter).
SENTENCE_END = re.compile(r"(?<=[。！？；!?;])|(?<=[.:](?=\s))|\n")
_NOT_WORD = re.compile(r"[\W_]+")


def han_count(text: str) -> int:
    """Number of Chinese ideographs."""
    return len(HAN.findall(text))


def han_ratio(text: str) -> float:
    """Ideographs / (ideographs + Latin letters): how Chinese a text reads."""
    han = han_count(text)
    latin = len(LATIN.findall(text))
    return han / (han + latin) if han + latin else 0.0


def norm(text: str) -> str:
    """Fold width and case and drop punctuation and spaces, for comparisons.

    >>> norm("Ｈello,  World！ 你好。")
    'helloworld你好'
    """
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text).lower())


def sentences(text: str) -> list[str]:
    """Rough sentences, split after CJK/ASCII sentence ends and at newlines."""
    return [s.strip() for s in SENTENCE_END.split(text) if s and s.strip()]


def stable_hash(text: str) -> int:
    """A hash that, unlike ``hash()``, is the same in every process."""
    return zlib.crc32(text.encode("utf-8"))


def shingles(text: str, k: int, keep_one_in: int = 4) -> set[int]:
    """A deterministic sample of the hashed ``k``-character shingles of ``norm(text)``."""
    t = norm(text)
    out = set()
    for i in range(max(len(t) - k + 1, 1)):
        h = stable_hash(t[i : i + k])
        if h % keep_one_in == 0:
            out.add(h)
    return out
