"""nshash.open: an index reopened with the algorithm and options it was built with (issue 12)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import nshash
from tests.fleet import labelled_corpus

DOCS, _ = labelled_corpus(15)
# Each algorithm with options other than its defaults, so a reopen that forgot them would differ.
BUILT_WITH: dict[type[nshash.Index], dict[str, object]] = {
    nshash.NSHash: {"n": 3, "hashfunc": "md5"},
    nshash.SimHash: {"k": 4, "ngram": 2},
    nshash.Shingles: {"w": 4, "threshold": 0.8},
}
STORED = {"memory": "news.hashdb.pkl", "leveldb": "news.hashdb"}


@pytest.fixture(params=list(BUILT_WITH), ids=lambda cls: cls.__name__)
def algorithm(request: pytest.FixtureRequest) -> type[nshash.Index]:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(params=["memory", "leveldb"])
def hashdb(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def build(algorithm: type[nshash.Index], name: str, hashdb: str) -> list[int]:
    with algorithm(name, hashdb=hashdb, **BUILT_WITH[algorithm]) as index:  # type: ignore[arg-type]
        return [index.get_similar(doc) for doc in DOCS[:40]]


def test_reopens_with_the_recorded_algorithm_and_options(
    algorithm: type[nshash.Index], hashdb: str, tmp_path: Path
) -> None:
    name = str(tmp_path / "news")
    ids = build(algorithm, name, hashdb)
    with nshash.open(name, hashdb=hashdb) as index:
        assert type(index) is algorithm
        assert index.options == algorithm(**BUILT_WITH[algorithm]).options  # type: ignore[arg-type]
        # The same documents find the clusters they were given.
        assert index.resolve_many([index.get_similar(doc) for doc in DOCS[:40]]) == index.resolve_many(ids)
        going_on = [index.get_similar(doc) for doc in DOCS[40:60]]
    # Continuing through open() gives the ids one index object would have given.
    with algorithm(**BUILT_WITH[algorithm]) as reference:  # type: ignore[arg-type]
        expected = [reference.get_similar(doc) for doc in DOCS[:60]]
    assert [*ids, *going_on] == expected


def test_closing_the_index_closes_the_store_it_opened(algorithm: type[nshash.Index], tmp_path: Path) -> None:
    name = str(tmp_path / "news")
    build(algorithm, name, "leveldb")
    index = nshash.open(name, hashdb="leveldb")
    index.close()
    assert index.store.closed
    nshash.open(name, hashdb="leveldb").close()  # not locked by the first one


def test_nothing_stored_is_a_clear_error_and_creates_nothing(hashdb: str, tmp_path: Path) -> None:
    name = str(tmp_path / "news")
    with pytest.raises(nshash.IndexNotFoundError, match=r"no nshash index .*news.*looked for") as caught:
        nshash.open(name, hashdb=hashdb)
    assert isinstance(caught.value, nshash.StoreError)
    assert os.listdir(tmp_path) == []


def test_a_missing_folder_is_named_and_not_created(hashdb: str, tmp_path: Path) -> None:
    name = str(tmp_path / "typo" / "news")
    with pytest.raises(nshash.StoreError, match=r"the folder '.*typo' does not exist; create it first"):
        nshash.NSHash(name, hashdb=hashdb)
    assert os.listdir(tmp_path) == []


def test_an_empty_store_object_is_not_an_index(tmp_path: Path) -> None:
    store = nshash.HashDBMemory()
    with pytest.raises(nshash.IndexNotFoundError, match="holds no nshash index.*create=True"):
        nshash.open("news", hashdb=store)


def test_create_makes_a_new_index_of_the_given_algorithm(hashdb: str, tmp_path: Path) -> None:
    name = str(tmp_path / "news")
    with nshash.open(name, hashdb=hashdb, algorithm="simhash", create=True, k=5) as index:
        assert type(index) is nshash.SimHash and index.k == 5
        index.get_similar(DOCS[0])
    assert (tmp_path / STORED[hashdb]).exists()
    with nshash.open(name, hashdb=hashdb, create=True) as again:  # create=True reopens an existing one as it is
        assert type(again) is nshash.SimHash and again.k == 5


def test_another_algorithm_or_other_options_are_refused(algorithm: type[nshash.Index], tmp_path: Path) -> None:
    name = str(tmp_path / "news")
    build(algorithm, name, "leveldb")
    other = next(key for key, cls in nshash.algorithms.ALGORITHMS.items() if not cls.endswith(algorithm.__name__))
    with pytest.raises(nshash.OptionsMismatchError, match="was built with algorithm"):
        nshash.open(name, hashdb="leveldb", algorithm=other)
    option, value = next(iter(BUILT_WITH[algorithm].items()))
    with pytest.raises(nshash.OptionsMismatchError, match="other options"):
        nshash.open(name, hashdb="leveldb", **{option: {"n": 4, "hashfunc": "farmhash"}.get(option, 2)})
    with pytest.raises(nshash.UnknownOptionError, match="colour"):
        nshash.open(name, hashdb="leveldb", colour="red")
    with nshash.open(name, hashdb="leveldb", **{option: value}) as index:  # the recorded value is fine
        assert type(index) is algorithm


def test_a_given_store_object_is_left_open(tmp_path: Path) -> None:
    build(nshash.NSHash, str(tmp_path / "news"), "leveldb")
    store = nshash.HashDBLeveldb(tmp_path / "news.hashdb")
    with nshash.open("news", hashdb=store) as index:
        assert type(index) is nshash.NSHash and index.n == 3
    assert not store.closed  # its owner closes it
    store.close()
