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
import nshash.batch
from nshash.batch import number_components, similar_ids

# A vocabulary of made-up words, large enough that two articles are different
# texts (verification compares character 5-grams: articles written with a
# 16-word vocabulary share most of theirs).
WORDS = ["".join(random.Random(i).choices("abcdefghijklmnopqrstuvwxyz", k=3 + i % 7)) for i in range(2000)]


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
        body = [sentence(rng, rng.randint(6, 11)) for _ in range(rng.randint(8, 12))]
        copies = [article % sites]
        if rng.random() < 0.5:
            copies.append((copies[0] + 1) % sites)
        for copy, site in enumerate(copies):
            byline = [f"By reporter {rng.randint(1, 99)}."] if copy else []
            # Like a page: the article's paragraph, then the site's footer lines.
            pages.append(("\n".join([" ".join(byline + body), *footers[site]]), article))
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
    # Without boilerplate detection the footers still propose every page of a
    # site; verification of the whole texts alone keeps the articles apart.
    assert same_partition(nshash.similar_ids(texts, boilerplate=False), labels)
    # Without verification (any shared sentence joins) the footers merge a site's pages.
    merged = nshash.similar_ids(texts, boilerplate=False, verify=1e-9)
    assert len(set(merged)) < len(set(labels))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), articles=st.integers(9, 16))
def test_no_cluster_mixes_articles_in_any_order(seed: int, articles: int) -> None:
    # Every join is verified, so no order of arrival merges two articles of one
    # site; a reprint whose site frame is a third of the page may be missed.
    texts, labels = make_corpus(seed, articles)
    order = list(range(len(texts)))
    random.Random(seed).shuffle(order)
    for ids, truth in (
        (nshash.similar_ids(texts), labels),
        (nshash.similar_ids([texts[i] for i in order]), [labels[i] for i in order]),
    ):
        assert all(len({t for t, i in zip(truth, ids) if i == similar_id}) == 1 for similar_id in set(ids))
        assert len(set(ids)) <= len(set(labels)) + 2


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


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), boilerplate=st.booleans())
def test_batch_is_the_online_loop_renumbered(seed: int, boilerplate: bool) -> None:
    # One decision rule: the batch ids are the online ids, numbered by first document.
    texts, _ = make_corpus(seed)
    nsh = nshash.NSHash(boilerplate=boilerplate)
    online = nsh.resolve_many([nsh.get_similar(text) for text in texts])
    assert nshash.similar_ids(texts, boilerplate=boilerplate) == number_components(online)


def test_import_nshash_stays_light() -> None:
    code = "import sys, nshash; print('pandas' in sys.modules, 'dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_documents_are_assigned_as_they_are_read_not_all_keyed_first(monkeypatch: pytest.MonkeyPatch) -> None:
    # The batch keeps its index and 8 bytes a page: it must not hold every
    # page's features (4.8 KB a page when it did), nor every text, at once.
    monkeypatch.setattr(nshash.batch, "_CHUNK", 4)
    docs, _ = make_corpus(3)
    assert len(docs) > 3 * 4
    read: list[int] = []
    read_at_call: list[tuple[int, int]] = []
    original = nshash.NSHash._similar_all

    def spy(self: nshash.NSHash, texts: list[str]) -> list[int]:
        read_at_call.append((len(read), len(texts)))
        return original(self, texts)

    def stream() -> object:
        for doc in docs:
            read.append(1)
            yield doc

    monkeypatch.setattr(nshash.NSHash, "_similar_all", spy)
    ids = similar_ids(stream())  # type: ignore[arg-type]
    assigned = 0
    for was_read, chunk in read_at_call:  # a chunk is assigned before the next one is read
        assert chunk <= 4 and was_read == assigned + chunk
        assigned += chunk
    assert assigned == len(docs)
    monkeypatch.undo()
    assert ids == nshash.similar_ids(docs)
