"""SimHash: pinned fingerprints, the block-table search, clusters, persistence, options."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nshash
from nshash.features import canonical, char_ngram_hashes, ngram_hashes, unit_hashes
from nshash.simhash import block_masks, hamming_distance
from tests.conftest import StoreFactory
from tests.test_nshash import ARTICLE, ENGLISH

_SYLLABLES = [c + v for c in "bcdfghklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]


def english_article(seed: int, sentences: int = 12) -> str:
    """Unrelated English-like text: words drawn from a 5,000-word made-up vocabulary."""
    rng = random.Random(seed)
    vocabulary = random.Random(0)
    words = ["".join(vocabulary.choice(_SYLLABLES) for _ in range(vocabulary.randint(1, 3))) for _ in range(5000)]
    out = []
    for _ in range(sentences):
        sentence = " ".join(rng.choice(words) for _ in range(rng.randint(10, 22)))
        out.append(sentence.capitalize() + ".")
    return "\n".join(out)


def chinese_article(seed: int, sentences: int = 12) -> str:
    """Unrelated Chinese-like text: characters drawn from 2,000 common ones."""
    rng = random.Random(seed)
    return "".join(
        "".join(chr(0x4E00 + rng.randrange(2000)) for _ in range(rng.randint(15, 40))) + "。" for _ in range(sentences)
    )


def reprint(text: str, seed: int) -> str:
    """What a site does to a copy: markup, other punctuation and case, a byline."""
    body = text.replace("。", "！").replace(".", "!")
    return f"<div><p>Source: Daily {seed}</p>{body.upper() if seed % 2 else body}</div>"


# -- pinned values: an accidental change of the algorithm fails here --------------------


def test_pinned_unit_and_feature_hashes() -> None:
    assert unit_hashes("Hello, 世界").tolist() == [
        2718474619727682064,
        8369240714324858217,
        18175351409965820714,
    ]
    assert char_ngram_hashes("Hello, 世界 ok", 3).tolist() == [
        13460430800608898287,  # hel
        5671989561935908292,  # ell
        14078681867286418878,  # llo
        8369240714324858217,  # 世 (a unit of one character: the same hash as above)
        18175351409965820714,  # 界
        5301358478964040318,  # ok (shorter than 3: the whole word)
    ]
    assert ngram_hashes(unit_hashes("one two three four five"), 3).tolist() == [
        2726703916915305756,
        9112292749362498729,
        15213014027125074948,
    ]


@pytest.mark.parametrize(
    ("options", "text", "expected"),
    [
        ({}, ENGLISH, 6466309677641987477),
        ({}, ARTICLE, 6285583716137456767),
        ({"features": "words", "ngram": 3}, ENGLISH, 1314940705339743432),
        ({"features": "words", "ngram": 2, "weights": "logtf"}, ARTICLE, 14953698941925018599),
        ({"features": "words", "ngram": 1, "weights": "binary"}, "a b c a", 5311085652094066752),
        ({"weights": "tfidf", "idf": {13460430800608898287: 3.0}}, "Hello world hello", 14043778848504745444),
    ],
    ids=["english", "chinese", "word-trigrams", "word-bigrams-logtf", "binary", "tfidf"],
)
def test_pinned_fingerprints(options: dict[str, object], text: str, expected: int) -> None:
    assert nshash.SimHash(**options).fingerprint(text) == expected  # type: ignore[arg-type]


def test_block_masks_cover_every_bit_once_per_block() -> None:
    masks = block_masks(5, 3)
    assert len(masks) == 10  # C(5, 2) tables of 2 blocks each
    assert [bin(mask).count("1") for mask in masks[:4]] == [26, 26, 26, 25]
    blocks = block_masks(5, 4)  # one block per table: the blocks themselves
    assert sum(blocks) == 2**64 - 1
    assert all(a & b == 0 for i, a in enumerate(blocks) for b in blocks[i + 1 :])


# -- the stored index finds exactly the fingerprints within k ------------------------------


@settings(max_examples=40, deadline=None)
@given(
    k=st.sampled_from([0, 1, 3, 5]),
    extra_block=st.booleans(),
    bases=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=4),
    flips=st.lists(st.lists(st.integers(0, 63), max_size=7), max_size=30),
    seed=st.integers(0, 2**32),
)
def test_near_equals_brute_force_scan(
    k: int, extra_block: bool, bases: list[int], flips: list[list[int]], seed: int
) -> None:
    """Fingerprints a few bits apart (the hard case) and random ones; every query checked by a scan."""
    rng = random.Random(seed)
    stored = list(bases)
    for bits in flips:
        fp = rng.choice(stored)
        for bit in bits:
            fp ^= 1 << bit
        stored.append(fp)
    sh = nshash.SimHash(k=k, blocks=k + 1 + extra_block)
    for fp in stored:
        sh.get_similar_fingerprint(fp)
    queries = [fp ^ (1 << rng.randrange(64)) ^ (1 << rng.randrange(64)) for fp in stored] + stored
    queries.append(rng.getrandbits(64))
    for query in queries:
        expected = sorted({fp for fp in stored if hamming_distance(fp, query) <= k})
        assert sh.near(query) == expected


def test_fingerprints_within_k_join_and_merge_clusters() -> None:
    sh = nshash.SimHash(k=3)
    a = sh.get_similar_fingerprint(0)
    b = sh.get_similar_fingerprint(0b111 << 60)  # 3 bits from a: joins it
    c = sh.get_similar_fingerprint(0b1111 << 20)  # 4 bits from a: new
    d = sh.get_similar_fingerprint((0b11 << 20) | (1 << 63))  # 2 from c, 3 from a: merges both
    assert (a, b, c, d) == (1, 1, 2, 1)
    assert sh.resolve(c) == 1


def test_full_bucket_forgets_the_oldest_but_exact_copies_still_match() -> None:
    sh = nshash.SimHash(k=1, bucket_size=2)  # 2 blocks: the low and the high 32 bits
    stored = [0b11, 0b1100, 0b110000]  # 4 bits apart; all in the bucket of high block 0
    assert [sh.get_similar_fingerprint(fp) for fp in stored] == [1, 2, 3]
    assert sh.near(0b10) == []  # 1 bit from 0b11, which the full bucket forgot
    assert sh.near(0b1000) == [0b1100]
    assert sh.near(0b11) == [0b11]  # still in the bucket of its own low block
    assert sh.get_similar_fingerprint(0b11) == 1


# -- documents ----------------------------------------------------------------------------


@pytest.fixture
def sh(make_store: StoreFactory) -> nshash.SimHash:
    return nshash.SimHash(hashdb=make_store())


def test_reprints_found_unrelated_not(sh: nshash.SimHash) -> None:
    originals = [english_article(1, 30), chinese_article(2, 30), ENGLISH * 3, ARTICLE * 2, english_article(3, 30)]
    first = [sh.get_similar(text) for text in originals]
    assert first == [1, 2, 3, 4, 5]
    again = [sh.get_similar(reprint(text, seed)) for seed, text in enumerate(originals)]
    assert again == first
    assert [sh.get_similar(english_article(seed)) for seed in range(10, 15)] == [6, 7, 8, 9, 10]


def test_canonical_form_decides_the_fingerprint() -> None:
    sh = nshash.SimHash()
    plain = "The quick brown fox, 敏捷的狐狸 jumps."
    assert sh.fingerprint(plain) == sh.fingerprint("<b>THE quick</b>  brown fox!!! 敏捷的狐狸 — jumps")
    assert sh.fingerprint(plain.encode()) == sh.fingerprint(plain)
    assert canonical(plain) == "the quick brown fox 敏捷的狐狸 jumps "


def test_documents_without_words_have_no_fingerprint(sh: nshash.SimHash) -> None:
    assert sh.fingerprint(" ,. ") is None
    sh.get_similar("!!")
    assert sh.stats()["fingerprints"] == 0


# -- tf-idf ---------------------------------------------------------------------------------


def test_tfidf_learns_from_a_sample_and_keeps_the_table_in_the_store(tmp_path: Path) -> None:
    sample = [english_article(seed, sentences=3) for seed in range(30)]
    name = tmp_path / "idf"
    with nshash.SimHash(name, weights="tfidf", idf=sample) as sh:
        table = sh.idf
        digest = sh.options["idf"]
        first = sh.get_similar(sample[0])
    assert table is not None and len(table) > 100
    for idf in (None, digest, table, sample):  # the stored table, named by digest, given again
        with nshash.SimHash(name, weights="tfidf", idf=idf) as sh:
            assert sh.get_similar(sample[0]) == first
            assert sh.idf == table
    with pytest.raises(nshash.OptionsMismatchError, match="idf"):
        nshash.SimHash(name, weights="tfidf", idf=sample[:10])
    with pytest.raises(nshash.OptionsMismatchError, match="keeps the idf table"):
        nshash.SimHash(name, weights="tfidf", idf="sha256:" + "0" * 32)
    with nshash.SimHash(tmp_path / "other", weights="tfidf", idf=table) as other:
        assert other.options["idf"] == digest  # the same table: the same fingerprints


def test_tfidf_weighs_rare_words_more() -> None:
    sample = ["common words here"] * 9 + ["rare"]
    tf = nshash.SimHash(features="words", ngram=1)
    tfidf = nshash.SimHash(features="words", ngram=1, weights="tfidf", idf=sample)
    text = "common common words here rare"
    rare = tf.fingerprint("rare")
    assert rare is not None
    assert hamming_distance(tfidf.fingerprint(text) or 0, rare) < hamming_distance(tf.fingerprint(text) or 0, rare)


# -- arguments ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"k": -1}, ValueError, "k must be"),
        ({"k": 32}, ValueError, "k must be < 32"),
        ({"k": 3, "blocks": 3}, ValueError, "blocks must be"),
        ({"k": 10, "blocks": 20}, ValueError, "bucket lookups"),
        ({"ngram": 0}, ValueError, "ngram must be"),
        ({"features": "sentences"}, ValueError, "features must be one of"),
        ({"weights": "bm25"}, ValueError, "weights must be one of"),
        ({"weights": "tfidf"}, ValueError, "needs idf"),
        ({"idf": ["x"]}, ValueError, "only with weights='tfidf'"),
        ({"weights": "tfidf", "idf": "one text"}, TypeError, "digest"),
        ({"weights": "tfidf", "idf": "sha256:0"}, ValueError, "keeps no idf table"),
        ({"weights": "tfidf", "idf": []}, ValueError, "at least one"),
        ({"weights": "tfidf", "idf": {1: -2.0}}, ValueError, "finite and > 0"),
        ({"tokenizer": "spacy"}, ValueError, "tokenizer must be"),
        ({"bucket_size": 0}, ValueError, "bucket_size must be"),
    ],
)
def test_bad_options_are_rejected(kwargs: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        nshash.SimHash(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, True, "12"])
def test_bad_fingerprints_are_rejected(bad: object) -> None:
    with pytest.raises((TypeError, ValueError), match="fingerprint"):
        nshash.SimHash().near(bad)  # type: ignore[arg-type]


def test_wrong_document_types_raise() -> None:
    with pytest.raises(nshash.DocumentTypeError):
        nshash.SimHash().get_similar(42)  # type: ignore[arg-type]
    with pytest.raises(nshash.DocumentDecodeError):
        nshash.SimHash().get_similar(b"\xff\xfe")


def test_jieba_tokenizer_uses_chinese_words() -> None:
    pytest.importorskip("jieba")
    sh = nshash.SimHash(tokenizer="jieba")
    assert sh.fingerprint("我来到北京清华大学") != nshash.SimHash().fingerprint("我来到北京清华大学")
    # Latin words are the same units with either tokenizer.
    assert unit_hashes("hello", "jieba").tolist() == unit_hashes("hello").tolist()
