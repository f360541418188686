"""Folding before a page is read: traditional to simplified Chinese, Taiwanese to mainland phrases, full-width to ASCII.

What ``fold=True`` does (:func:`fold_chars`), in Python and in the C
normaliser (``nshash/_tables.h``), which takes its tables from the data files
here (``setup.py``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Final

#: Full-width digits and Latin letters, folded to ASCII: a reprint may type
#: "ＣＰＵ２０２４" for "CPU2024" (measured: a fifth of zh pages and every en
#: page typed so missed their own text).  Full-width punctuation stays as it
#: is: normalising deletes both widths anyway, and the chrome step and the
#: 'original' split read "！？" differently from "!?" (a Chinese sentence end).
FULLWIDTH_ALNUM: Final = ((0xFF10, 0xFF19), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A))
#: A full-width form's code point minus its ASCII one.
FULLWIDTH_OFFSET: Final = 0xFEE0


@lru_cache(maxsize=1)
def t2s_table() -> dict[int, int]:
    """The traditional -> simplified character pairs (OpenCC's one-to-one pairs; see ``nshash/data/NOTICE``)."""
    data = resources.files("nshash") / "data" / "t2s.txt"
    pairs = data.read_text(encoding="utf-8").split()
    return {ord(pair[0]): ord(pair[1]) for pair in pairs}


@lru_cache(maxsize=1)
def fold_table() -> dict[int, int]:
    """What ``fold=True`` maps a character at a time: :func:`t2s_table` and :data:`FULLWIDTH_ALNUM` to ASCII."""
    table = dict(t2s_table())
    for low, high in FULLWIDTH_ALNUM:
        table.update((code, code - FULLWIDTH_OFFSET) for code in range(low, high + 1))
    return table


@lru_cache(maxsize=1)
def _folded_chars() -> frozenset[str]:
    # A set test costs one hash a character; a regex class of 4,000 characters measured 15x slower.
    return frozenset(map(chr, fold_table()))


@lru_cache(maxsize=1)
def phrase_table() -> dict[str, str]:
    """Taiwanese phrases -> mainland ones, both folded (``nshash/data/tw2cn.txt``, from OpenCC; see its NOTICE).

    A Taiwanese copy of a mainland text (OpenCC's s2twp, a Taiwanese site's
    own editing) writes 軟體 for 软件, 程式碼 for 代码, 記憶體 for 内存: the
    character table folds them to 软体, 程式码 and 记忆体, still other words,
    and such copies joined their source 0.66-0.80 of the time where the other
    conversions did 0.93-0.99.  Phrases mainland writers use too (互动, 执行,
    资讯) are left out (``scripts/make_t2s.py``): folding them moved the
    decisions on mainland pages at random.  Measured on the 110 synthetic files
    of twenty-two seeds: zh-t2s recall +1.2 to +6.3 points on all 22, F1
    +0.004 to +0.038 (the default corpus's 0.942 -> 0.961), precision -0.007
    to +0.033 (seed 7919's 0.912 -> 0.944); zh tune and held-out F1 -0.0007 to
    +0.006 (means +0.0005 and +0.0004), precision -0.0021 at least; en,
    the real pages, the sample and its popular-story check unchanged.  With
    every phrase, zh-t2s F1 +0.025 on average, but a zh held-out file lost
    0.011 of precision and the popular-story check's seed 3 fell from 0.998
    to 0.957; leaving out only phrases counted 1,000 times or more, that check
    lost 0.005 on two seeds.  A replacement is never longer than its phrase
    (the C folds in place).
    """
    data = resources.files("nshash") / "data" / "tw2cn.txt"
    lines = data.read_text(encoding="utf-8").splitlines()
    return dict(line.split("\t") for line in lines if line)


@lru_cache(maxsize=1)
def _phrases() -> tuple[re.Pattern[str], frozenset[str]]:
    table = phrase_table()
    # Longest first: at each position the longest phrase that starts there is replaced.
    pattern = re.compile("|".join(map(re.escape, sorted(table, key=len, reverse=True))))
    return pattern, frozenset(phrase[0] for phrase in table)


def fold_chars(text: str) -> str:
    """Fold traditional Chinese characters to their simplified forms, Taiwanese phrases to mainland
    ones (:func:`phrase_table`), full-width digits and letters to ASCII.

    >>> fold_chars("這是繁體中文，ＣＰＵ２０２４！")
    '这是繁体中文，CPU2024！'
    >>> fold_chars("這個軟體的程式碼")
    '这个软件的代码'
    """
    if text.isascii():
        return text
    if not _folded_chars().isdisjoint(text):
        text = text.translate(fold_table())
    pattern, starts = _phrases()
    if starts.isdisjoint(text):
        return text
    table = phrase_table()
    return pattern.sub(lambda match: table[match.group()], text)
