"""Shingles: canonical units, exact and estimated similarity, LSH clusters, persistence, options."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nshash
from nshash.features import _BASE, canonical, mix64, ngram_hashes, span_hashes, unit_hashes
from nshash.shingles import choose_bands
from tests.conftest import StoreFactory
from tests.test_nshash import ARTICLE, ENGLISH
from tests.test_simhash import chinese_article, english_article, reprint

_CJK = ((0x2E80, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x3FFFF))


def reference_units(text: str) -> list[str]:
    """The units, the slow obvious way: canonical words, CJK characters split off one by one."""
    units: list[str] = []
    for word in canonical(text).split():
        run = ""
        for char in word:
            if any(low <= ord(char) <= high for low, high in _CJK):
                units += [run, char] if run else [char]
                run = ""
            else:
                run += char
        if run:
            units.append(run)
    return units


def hash_units(units: list[str]) -> list[int]:
    import numpy as np

    if not units:
        return []
    lengths = np.array([len(unit) for unit in units], dtype=np.uint64)
    ends = np.cumsum(lengths) - np.uint64(1)
    codes = np.frombuffer("".join(units).encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.uint64)
    return span_hashes(codes, ends + np.uint64(1) - lengths, ends).tolist()  # type: ignore[no-any-return]


# -- canonical units and the exact similarity --------------------------------------------------

_ALPHABET = [*"aZé\u0301 _,.;!?。，！ 你好世界٣٤ßİ\t\n😀𠀀\U000e0001<>&", "<p>", "&amp;", "</b>"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_ALPHABET), max_size=40).map("".join))
def test_vectorised_units_equal_the_canonical_words(text: str) -> None:
    assert unit_hashes(text).tolist() == hash_units(reference_units(text))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=30), st.integers(1, 14))
def test_ngram_hashes_are_the_documented_polynomial(units: list[int], n: int) -> None:
    """Both code paths (n passes, prefix sums) give mix64(sum(u[t] * BASE**(n-1-t)) ^ n)."""
    import numpy as np

    size = min(n, len(units))
    expected = []
    for start in range(len(units) - size + 1):
        value = 0
        for unit in units[start : start + size]:
            value = (value * _BASE + unit) % 2**64
        expected.append(mix64(value ^ size))
    assert ngram_hashes(np.array(units, dtype=np.uint64), n).tolist() == expected


def test_canonicalisation() -> None:
    assert canonical("<p>Hello,&nbsp;World!</p>") == " hello world "
    assert reference_units("Ünïcode 2024年 日本語テキスト") == ["ünïcode", "2024", "年", *"日本語テキスト"]


@pytest.mark.parametrize(
    ("w", "a", "b", "expected"),
    [
        (2, "a b c d", "a b c e", 2 * 2 / (3 + 3)),  # {ab, bc, cd} vs {ab, bc, ce}
        (2, "a b c d", "a b c d", 1.0),
        (2, "a b c d", "e f g h", 0.0),
        (2, "a b a b", "a b", 2 * 1 / (2 + 1)),  # sets: {ab, ba} vs {ab}
        (1, "the cat sat", "the dog sat", 2 * 2 / (3 + 3)),
        (2, "你好世界", "你好世人", 2 * 2 / (3 + 3)),  # {你好, 好世, 世界} vs {你好, 好世, 世人}
        (3, "A, B! c", "<b>a</b> b   c", 1.0),  # canonical forms are equal
        (5, "one two", "one two", 1.0),  # shorter than w: one shingle of everything
        (5, "one two", "one three", 0.0),
        (2, "", " ... ", 1.0),  # no words on either side
        (2, "", "a b", 0.0),
    ],
)
def test_similarity_by_hand(w: int, a: str, b: str, expected: float) -> None:
    assert nshash.Shingles(w=w).similarity(a, b) == pytest.approx(expected)


def test_shingles_are_the_w_word_runs() -> None:
    sh = nshash.Shingles(w=3)
    assert len(sh.shingles("one two three four five")) == 3
    assert sh.shingles("One, two; three.") == sh.shingles("one two three")
    assert sh.shingles("") == set()


# -- the min-hash sample ----------------------------------------------------------------------


def test_pinned_signatures() -> None:
    sh = nshash.Shingles(w=8, threshold=0.7)
    assert sh.signature(ENGLISH)[:6] == [2847654801, 1594518992, 1477379850, 3563852393, 303656879, 1594518992]
    assert sh.signature(ARTICLE)[:6] == [2352043962, 330048058, 107688254, 1062116530, 1372110740, 364037347]
    signature = sh._features(ENGLISH)
    assert signature is not None
    assert signature.entry == 293786740054991346
    assert signature.bands[:2] == [1766714001884747955, 380639505350520934]
    assert signature.words[:2] == [-5921465223058827825, -6946098826577854360]


def test_choose_bands() -> None:
    assert [choose_bands(84, 0.7), choose_bands(128, 0.9), choose_bands(84, 1.0)] == [21, 12, 1]
    # The chosen bands find pairs at the threshold with probability >= 0.8, one more row would not.
    jaccard = 0.7 / 1.3
    assert 1 - (1 - jaccard**4) ** 21 >= 0.8 > 1 - (1 - jaccard**5) ** 16


def test_every_bin_is_filled_even_for_short_documents() -> None:
    sh = nshash.Shingles(w=1, num_perm=64)
    assert len(set(sh.signature("word"))) == 1  # one shingle: every bin borrows its value
    three = sh.signature("a b c")
    assert len(three) == 64 and len(set(three)) == 3
    assert sh.signature("a b c") == sh.signature("C, B, A")  # a set: order does not matter
    assert sh.signature("") == []


@pytest.mark.parametrize("shared", [0, 60, 120, 180, 240])
def test_estimate_follows_the_exact_similarity(shared: int) -> None:
    """Two texts sharing ``shared`` of 300 units: the min-hash estimate is within 0.1 of the exact value."""
    rng = random.Random(shared)
    common = [f"c{i}" for i in range(shared)]
    a = " ".join(common + [f"a{rng.random()}" for _ in range(300 - shared)])
    b = " ".join(common + [f"b{rng.random()}" for _ in range(300 - shared)])
    sh = nshash.Shingles(w=1, num_perm=256)
    assert sh.estimate(a, b) == pytest.approx(sh.similarity(a, b), abs=0.1)


# -- documents ------------------------------------------------------------------------------------


@pytest.fixture
def sh(make_store: StoreFactory) -> nshash.Shingles:
    return nshash.Shingles(hashdb=make_store())


def test_reprints_found_unrelated_not(sh: nshash.Shingles) -> None:
    originals = [english_article(1), chinese_article(2), ENGLISH, ARTICLE, english_article(3)]
    first = [sh.get_similar(text) for text in originals]
    assert first == [1, 2, 3, 4, 5]
    assert [sh.get_similar(reprint(text, seed)) for seed, text in enumerate(originals)] == first
    assert [sh.get_similar(english_article(seed)) for seed in range(10, 15)] == [6, 7, 8, 9, 10]


def test_exact_copies_are_stored_once(sh: nshash.Shingles) -> None:
    text = english_article(5)
    ids = [sh.get_similar(text), sh.get_similar(text.upper()), sh.get_similar(f"<p>{text}</p>")]
    assert ids == [1, 1, 1]
    assert sh.stats()["fingerprints"] == 1


def test_threshold_decides(make_store: StoreFactory) -> None:
    base = english_article(7, 10)
    half = base[: len(base) // 2] + english_article(8, 5)
    strict = nshash.Shingles(hashdb=make_store(), w=3, threshold=0.9)
    loose = nshash.Shingles(w=3, threshold=0.3)
    similarity = strict.similarity(base, half)
    assert 0.3 < similarity < 0.9
    assert [strict.get_similar(base), strict.get_similar(half)] == [1, 2]
    assert [loose.get_similar(base), loose.get_similar(half)] == [1, 1]


def test_clusters_merge_through_a_document_like_both(make_store: StoreFactory) -> None:
    sh = nshash.Shingles(hashdb=make_store(), threshold=0.5)
    left, right = english_article(20, 10), english_article(21, 10)
    both = left + "\n" + right
    ids = [sh.get_similar(left), sh.get_similar(right)]
    assert ids == [1, 2]
    assert min(sh.similarity(both, left), sh.similarity(both, right)) > 0.6  # about 2/3 each
    assert sh.get_similar(both) == 1
    assert sh.resolve(2) == 1


# -- arguments ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"w": 0}, "w must be"),
        ({"threshold": 0}, "threshold must be"),
        ({"threshold": 1.5}, "threshold must be"),
        ({"threshold": "high"}, "threshold must be"),
        ({"num_perm": 0}, "num_perm must be"),
        ({"bands": 100}, "bands must be <= num_perm"),
        ({"bands": 0}, "bands must be"),
        ({"bucket_size": 0}, "bucket_size must be"),
        ({"seed": "x"}, "seed must be"),
        ({"tokenizer": "nltk"}, "tokenizer must be"),
    ],
)
def test_bad_options_are_rejected(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        nshash.Shingles(**kwargs)  # type: ignore[arg-type]


def test_jieba_tokenizer() -> None:
    pytest.importorskip("jieba")
    sh = nshash.Shingles(w=2, tokenizer="jieba")
    assert len(sh.shingles("我来到北京清华大学")) < len(nshash.Shingles(w=2).shingles("我来到北京清华大学"))
    assert sh.get_similar("我来到北京清华大学。") == sh.get_similar("我来到北京清华大学！")
