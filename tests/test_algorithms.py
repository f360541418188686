"""The contract every algorithm (NSHash, SimHash, Shingles) keeps, on every store kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import nshash
from tests.conftest import PERSISTENT_KINDS, StoreFactory
from tests.test_nshash import ENGLISH
from tests.test_simhash import english_article, reprint

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "data" / "news_sample.jsonl"
ALGORITHMS = [nshash.NSHash, nshash.SimHash, nshash.Shingles]
# Each algorithm's options that change its fingerprints: reopening with one refuses.
OTHER_OPTIONS: dict[type[nshash.Index], list[dict[str, object]]] = {
    nshash.NSHash: [{"n": 3}, {"anchor": 0}, {"hashfunc": "md5"}, {"split": "design"}, {"min_match": 2}],
    nshash.SimHash: [{"k": 4}, {"ngram": 2}, {"features": "words"}, {"weights": "binary"}, {"blocks": 5}],
    nshash.Shingles: [{"w": 4}, {"threshold": 0.8}, {"num_perm": 128}, {"seed": 2}, {"bands": 12}],
}


@pytest.fixture(scope="module")
def pages() -> list[str]:
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row["title"] + "\n" + row["content"] for row in rows[:120]]


@pytest.fixture(params=ALGORITHMS, ids=lambda cls: cls.__name__)
def algorithm(request: pytest.FixtureRequest) -> type[nshash.Index]:
    return request.param  # type: ignore[no-any-return]


def test_same_ids_on_every_store_kind(
    algorithm: type[nshash.Index], make_store: StoreFactory, pages: list[str]
) -> None:
    reference = algorithm()
    expected = reference.resolve_many([reference.get_similar(page) for page in pages])
    assert len(set(expected)) < len(pages)  # the sample has reprints each algorithm finds
    with algorithm(hashdb=make_store()) as index:
        assert index.resolve_many([index.get_similar(page) for page in pages]) == expected


def test_many_with_workers_equals_the_loop(algorithm: type[nshash.Index], pages: list[str]) -> None:
    reference = algorithm()
    expected = reference.resolve_many([reference.get_similar(page) for page in pages])
    assert algorithm().get_similar_many(pages, workers=2) == expected


def test_documents_without_text_are_their_own_clusters(algorithm: type[nshash.Index]) -> None:
    index = algorithm()
    assert [index.get_similar(doc) for doc in ["", "  ", "?!", ""]] == [1, 2, 3, 4]


def test_ids_are_ints_and_resolve(algorithm: type[nshash.Index], pages: list[str]) -> None:
    index = algorithm()
    ids = [index.get_similar(page) for page in pages[:20]]
    assert all(type(i) is int and i >= 1 for i in ids)
    assert all(index.resolve(i) <= i for i in ids)


@pytest.mark.parametrize("bad", [None, 3, ["text"]])
def test_wrong_document_types(algorithm: type[nshash.Index], bad: object) -> None:
    with pytest.raises(TypeError, match="str or bytes"):
        algorithm().get_similar(bad)  # type: ignore[arg-type]


def test_use_after_close(algorithm: type[nshash.Index], make_store: StoreFactory) -> None:
    index = algorithm(hashdb=make_store())
    index.store.close()
    with pytest.raises(nshash.StoreClosedError):
        index.get_similar("Some text that is long enough to matter here.")


def test_one_store_holds_one_algorithm(algorithm: type[nshash.Index], make_store: StoreFactory) -> None:
    store = make_store()
    algorithm(hashdb=store).get_similar("A first document, long enough to be fingerprinted by all.")
    for other in ALGORITHMS:
        if other is not algorithm:
            with pytest.raises(nshash.OptionsMismatchError, match="algorithm"):
                other(hashdb=store)


@pytest.mark.parametrize("hashdb", ["memory", "leveldb"])
def test_reopen_by_name(algorithm: type[nshash.Index], hashdb: str, tmp_path: Path) -> None:
    name = tmp_path / "news"
    with algorithm(name, hashdb=hashdb) as index:
        first = index.get_similar(ENGLISH)
    with algorithm(name, hashdb=hashdb) as index:
        assert index.get_similar(ENGLISH.upper()) == first
        assert index.stats()["options"]["algorithm"] == algorithm.algorithm


def test_reopen_continues_and_refuses_other_options(
    algorithm: type[nshash.Index], make_store: StoreFactory, store_kind: str
) -> None:
    if store_kind not in PERSISTENT_KINDS:
        pytest.skip("not persistent")
    docs = [english_article(seed, sentences=30) for seed in range(3)]
    with make_store() as store:
        first = [algorithm(hashdb=store).get_similar(doc) for doc in docs]
    with make_store() as store:
        index = algorithm(hashdb=store)
        assert [index.get_similar(reprint(doc, 1)) for doc in docs] == first
        assert index.get_similar(english_article(99)) == 4
    for other in OTHER_OPTIONS[algorithm]:
        with make_store() as store, pytest.raises(nshash.OptionsMismatchError, match="other options"):
            algorithm(hashdb=store, **other)
    for other_algorithm in ALGORITHMS:
        if other_algorithm is not algorithm:
            with make_store() as store, pytest.raises(nshash.OptionsMismatchError, match="algorithm"):
                other_algorithm(hashdb=store)
