"""The contract every algorithm (NSHash, SimHash, Shingles) keeps, on every store kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import nshash
from tests.conftest import StoreFactory
from tests.test_nshash import ENGLISH

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "data" / "news_sample.jsonl"
ALGORITHMS = [nshash.NSHash, nshash.SimHash, nshash.Shingles]


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
