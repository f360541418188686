"""nshash.similar_ids: the global batch algorithm (boilerplate learnt from the whole corpus)."""

from __future__ import annotations

import random
import subprocess
import sys

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nshash
from nshash.batch import Plan, is_boilerplate, key_links, link_keys, number_components, otherwise_different
from nshash.hashing import farmhash64

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


def sentence(rng: random.Random, words: int = 9) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def make_corpus(seed: int, articles: int = 12, sites: int = 3) -> tuple[list[str], list[int]]:
    """Pages of ``sites`` sites (each wraps every page in its own long footer) and their true article.

    Article ``i`` appears on site ``i % sites``; about half are reprinted on
    the next site with a byline added.  The footer sentences are as long as the
    content, so without boilerplate detection every page of a site looks alike.
    With the default ``boilerplate_after=3`` a footer is learnt from three
    pages, so each site needs three articles.
    """
    rng = random.Random(seed)
    footers = [[sentence(rng, 12) for _ in range(3)] for _ in range(sites)]
    pages: list[tuple[str, int]] = []
    for article in range(articles):
        body = [sentence(rng, rng.randint(6, 11)) for _ in range(rng.randint(4, 7))]
        copies = [article % sites]
        if rng.random() < 0.5:
            copies.append((copies[0] + 1) % sites)
        for copy, site in enumerate(copies):
            byline = [f"By reporter {rng.randint(1, 99)}."] if copy else []
            pages.append((" ".join(byline + body + footers[site]), article))
    rng.shuffle(pages)
    return [text for text, _ in pages], [label for _, label in pages]


def same_partition(a: list[int], b: list[int]) -> bool:
    """Whether two labelings group the documents the same way (numbering aside)."""
    pairs = set(zip(a, b))
    return len(pairs) == len(set(a)) == len(set(b))


def test_reprint_joins_its_article_and_ids_count_from_one() -> None:
    article = "The first long sentence of the article. The second long sentence of it. A third one, long too."
    other = "Something else entirely, long enough. And it goes on for a while here."
    assert nshash.similar_ids([article, other, "By Jane Doe. " + article, other]) == [1, 2, 1, 2]


def test_site_footers_do_not_merge_unrelated_articles() -> None:
    texts, labels = make_corpus(seed=1)
    ids = nshash.similar_ids(texts)
    assert same_partition(ids, labels)
    # Without boilerplate detection the shared footers make every page of a site one cluster.
    merged = nshash.similar_ids(texts, boilerplate=False)
    assert len(set(merged)) < len(set(labels))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), articles=st.integers(9, 16))
def test_result_is_the_truth_and_independent_of_order(seed: int, articles: int) -> None:
    texts, labels = make_corpus(seed, articles)
    ids = nshash.similar_ids(texts)
    assert same_partition(ids, labels)
    order = list(range(len(texts)))
    random.Random(seed).shuffle(order)
    shuffled = nshash.similar_ids([texts[i] for i in order])
    assert same_partition(shuffled, [ids[i] for i in order])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["", "   ", "short", "Ab. Cd.", "A long enough sentence here. Another one too."])))
def test_ids_are_numbered_by_first_document(texts: list[str]) -> None:
    ids = nshash.similar_ids(texts)
    assert len(ids) == len(texts)
    highest = 0
    for value in ids:
        assert 1 <= value <= highest + 1
        highest = max(highest, value)


def test_empty_documents_are_each_their_own_cluster() -> None:
    assert nshash.similar_ids(["", " \n\t ", "", "x"]) == [1, 2, 3, 4]
    assert nshash.similar_ids([]) == []


def test_short_documents_match_exact_copies_by_whole_text() -> None:
    assert nshash.similar_ids(["Hi!", "hi", "Bye."]) == [1, 1, 2]


def test_series_in_series_out() -> None:
    article = "The first long sentence of the article. The second long sentence of it."
    texts = pd.Series([article, "Unrelated text, long enough to count.", article.encode()], index=[10, 20, 30])
    ids = nshash.similar_ids(texts)
    assert isinstance(ids, pd.Series)
    assert ids.name == "similar_id"
    assert ids.index.tolist() == [10, 20, 30]
    assert ids.tolist() == [1, 2, 1]
    assert nshash.similar_ids(texts.iloc[:0]).tolist() == []


def test_missing_values_name_position_and_fix() -> None:
    texts = pd.Series(["fine text here.", None], index=["a", "b"])
    with pytest.raises(nshash.DocumentTypeError, match=r"document 1 \(index 'b'\).*fillna"):
        nshash.similar_ids(texts, na="raise")


def test_bad_input_and_options() -> None:
    with pytest.raises(TypeError, match="not a single document"):
        nshash.similar_ids("one document")
    with pytest.raises(nshash.DocumentTypeError, match="document 1"):
        nshash.similar_ids(["ok", 3])
    with pytest.raises(nshash.DocumentDecodeError, match="document 0"):
        nshash.similar_ids([b"\xff\xfe bad"])
    assert nshash.similar_ids([b"\xff\xfe bad"], errors="replace") == [1]
    with pytest.raises(TypeError, match="unknown option.*hashdb"):
        nshash.similar_ids(["x"], hashdb="leveldb")
    with pytest.raises(ValueError, match="n must be"):
        nshash.similar_ids(["x"], n=0)


@pytest.mark.parametrize("hashfunc", ["farmhash", "md5"])
def test_hash_functions_give_the_same_clusters(hashfunc: str) -> None:
    texts, labels = make_corpus(seed=7)
    assert same_partition(nshash.similar_ids(texts, hashfunc=hashfunc), labels)


def test_min_match_one_links_on_any_shared_sentence() -> None:
    a = "Shared sentence that is long enough. First own sentence, long too. Second own one, long as well."
    b = "Shared sentence that is long enough. Another text entirely, long. More of it, long enough too."
    assert nshash.similar_ids([a, b], boilerplate=False) == [1, 2]
    assert nshash.similar_ids([a, b], boilerplate=False, min_match=1) == [1, 1]


# -- the shared pure functions ------------------------------------------------------
def test_otherwise_different_counts_documents_with_mostly_private_sentences() -> None:
    footer = 9
    pages = [[footer, 1, 2], [footer, 3, 4], [footer, 5, 6, 7]]
    assert otherwise_different(footer, pages, ignore=()) == 3
    copies = [[1, 2, 3, 40], [1, 2, 3, 41], [1, 2, 3]]  # one edit each at most
    assert otherwise_different(1, copies, ignore=()) == 0
    # Ignored (known boilerplate) sentences count neither way.
    assert otherwise_different(1, [[1, 2, 50, 51], [1, 2, 60, 61]], ignore={50, 51, 60, 61}) == 0


def test_is_boilerplate_needs_threshold_and_majority_in_last_round() -> None:
    pages = [[9, 1, 2], [9, 3, 4], [9, 5, 6]]
    assert is_boilerplate(9, pages, (), threshold=3, last_round=False)
    assert not is_boilerplate(9, pages, (), threshold=4, last_round=False)
    # Two edited copies among six of an article: not enough for the last round.
    article = [[1, 2, 3]] * 4 + [[1, 70, 71], [1, 80, 81]]
    assert otherwise_different(1, article, ()) == 2
    assert not is_boilerplate(1, article, (), threshold=2, last_round=True)
    assert is_boilerplate(1, article, (), threshold=2, last_round=False)


def test_link_keys_and_key_links_mirror_the_online_rule() -> None:
    keys, small = link_keys([3, 1, 2], min_match=2)
    assert not small
    assert keys == [(3,), (1,), (2,), (1, 2), (1, 3), (2, 3)]
    assert link_keys([5, 6], min_match=2) == ([(5,), (6,)], True)
    assert link_keys([5, 6, 7], min_match=1) == ([(5,), (6,), (7,)], False)
    assert key_links((1, 2), [False, False], min_match=2)
    assert not key_links((1,), [False, False], min_match=2)
    assert key_links((1,), [False, True], min_match=2)
    assert key_links((1,), [False, False], min_match=1)
    assert not key_links((1,), [True], min_match=2)


def test_plan_rounds_and_pickling() -> None:
    import pickle

    plan = Plan({"boilerplate_after": 3})
    assert plan.thresholds(2) == []
    assert plan.thresholds(3) == [3]
    assert plan.thresholds(100) == [96, 48, 24, 12, 6, 3]
    assert Plan({"boilerplate": False}).thresholds(100) == []
    text = "A long enough sentence here. Another long sentence."
    assert pickle.loads(pickle.dumps(plan)).candidates(text) == plan.candidates(text)
    assert number_components([4, 4, 2, 7, 2]) == [1, 1, 2, 3, 2]


def test_pinned_candidates() -> None:
    # Fingerprints are farmhash64 of whole normalised sentences: a change of either fails here.
    plan = Plan({})
    assert plan.candidates("Hello there, world! 你好，世界。短") == [farmhash64("hellothereworld")]
    assert farmhash64("hellothereworld") == 4839009478485171735


def test_import_nshash_stays_light() -> None:
    code = "import sys, nshash; print('pandas' in sys.modules, 'dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
