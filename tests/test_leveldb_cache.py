"""The LevelDB store's kept cache: what earlier transactions read and wrote, in C tables, for the C decision."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import nshash
import nshash._accel
from nshash.errors import ArgumentError, StoreError
from nshash.native import TABLES
from nshash.stores.leveldb_view import LeveldbTransaction
from tests.corpora import hard_corpus, popular_copies, split_stories
from tests.fleet import article

pytest.importorskip("plyvel")
if nshash._accel.speedups is None:  # the cache is the C decision's: without it nothing is kept
    pytest.skip("the C accelerator is not built or is switched off", allow_module_level=True)


def texts() -> list[str]:
    return [*split_stories(), *popular_copies(), *hard_corpus()[:150]]


def matches(nsh: nshash.NSHash, docs: list[str]) -> list[tuple[Any, ...]]:
    return [tuple(nsh.add(doc)) for doc in docs]


@pytest.mark.parametrize("cache_entries", [0, 200, 1 << 20])
def test_the_cache_changes_no_decision_and_no_stored_value(cache_entries: int, tmp_path: Path) -> None:
    docs = texts()
    reference = nshash.HashDBMemory()
    expected = matches(nshash.NSHash(hashdb=reference), [*docs, *docs[:60]])
    with nshash.HashDBLeveldb(tmp_path / "c.hashdb", cache_entries=cache_entries) as store:
        assert matches(nshash.NSHash(hashdb=store), [*docs, *docs[:60]]) == expected
        for name in TABLES:
            keys = sorted(key for key, _ in reference._tables[name].items())
            assert store.get_many(name, keys) == reference.get_many(name, keys), name
        # 200 entries hold a few pages: the cache was dropped on the way and started again.
        kept = store._cache
        assert (kept is None) if cache_entries == 0 else (kept is not None)
        if kept is not None:
            assert sum(len(table) for table in kept) <= cache_entries


def test_pages_fed_again_are_decided_from_the_cache_without_reading_leveldb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = split_stories()
    with nshash.HashDBLeveldb(tmp_path / "c.hashdb") as store:
        nsh = nshash.NSHash(hashdb=store)
        first = nsh.resolve_many([nsh.get_similar(doc) for doc in docs])  # a page seen gets its cluster's id
        reads: list[str] = []
        read = LeveldbTransaction.get_cached

        def counted(view: LeveldbTransaction, table: str, keys: Any) -> list[int | None]:
            reads.append(table)
            return read(view, table, keys)

        monkeypatch.setattr(LeveldbTransaction, "get_cached", counted)
        assert [nsh.get_similar(doc) for doc in docs] == first
        # Their fingerprints, lines, members and counts were read or written before, in this process
        # (a cluster's parent may not have been: a root's is asked first when a page resolves to it).
        assert set(reads) <= {"parent"}
        store._cache = None  # as in a new process
        assert [nsh.get_similar(doc) for doc in docs] == first
        assert reads  # read from LevelDB again


def fed(store: nshash.HashDBLeveldb) -> tuple[nshash.NSHash, str, int, int]:
    """An index on ``store`` fed some stories; a page of them, its whole-text key and an id no cluster has."""
    docs = split_stories()
    nsh = nshash.NSHash(hashdb=store)
    ids = [nsh.get_similar(doc) for doc in docs]
    return nsh, docs[0], nshash.NSHash().fingerprinter.features(docs[0]).doc_key, max(ids) + 5


def test_a_write_that_bypasses_the_cache_drops_it(tmp_path: Path) -> None:
    with nshash.HashDBLeveldb(tmp_path / "c.hashdb") as store:
        nsh, page, doc_key, other = fed(store)
        store.put_many("fp", [(doc_key, other)])  # written from Python, not by the C decision
        assert store._cache is None
        # The page's whole text now leads to `other`: the decision reads the store, not a stale cache.
        assert nsh.get_similar(page) == other


def test_a_decision_after_a_write_around_the_cache_in_the_same_transaction_reads_that_write(tmp_path: Path) -> None:
    with nshash.HashDBLeveldb(tmp_path / "c.hashdb") as store:
        nsh, page, doc_key, other = fed(store)

        def written_then_decided(view: Any) -> int:
            # As a chunk of get_similar_many does when the C hands a page to Python: it writes, then the C goes on.
            view.put_many("fp", [(doc_key, other)])
            return int(nsh._similar_native(view, page, nsh._one_call_args()))

        assert store.transaction(written_then_decided) == other  # not the cluster the cache remembers


@pytest.mark.parametrize("where", ["commit", "decision"])
def test_a_transaction_that_fails_drops_the_cache_and_its_page(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = split_stories()
    page = (
        "A story no other page tells begins with this long first sentence here.\n"
        "Its second sentence is long enough to be one of its keys as well.\n"
        "And a third one closes it, long enough again to count for something."
    )
    with nshash.HashDBLeveldb(tmp_path / "c.hashdb") as store:
        nsh = nshash.NSHash(hashdb=store)
        ids = nsh.resolve_many([nsh.get_similar(doc) for doc in docs[1:]])
        with monkeypatch.context() as patch:
            if where == "commit":
                patch.setattr(LeveldbTransaction, "commit", lambda view: (_ for _ in ()).throw(StoreError("full")))
                with pytest.raises(StoreError, match="full"):
                    nsh.get_similar(page)
            else:  # the C decided and wrote into the cache; the caller's transaction then fails
                with pytest.raises(ZeroDivisionError):
                    store.transaction(lambda view: (nsh._similar_native(view, page, nsh._one_call_args()), 1 / 0))
        assert store._cache is None
        # Never committed: the page is new, as if it had never come.
        assert nsh.add(page).is_new
        assert [nsh.get_similar(doc) for doc in docs[1:]] == ids


@pytest.mark.parametrize("bad", [-1, True, 1.5, "big", None])
def test_cache_entries_must_be_a_count(bad: Any, tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match="cache_entries"):
        nshash.HashDBLeveldb(tmp_path / "c.hashdb", cache_entries=bad)


def test_cache_entries_is_a_store_option(tmp_path: Path) -> None:
    with nshash.NSHash(str(tmp_path / "news"), hashdb="leveldb", store_options={"cache_entries": 0}) as nsh:
        nsh.get_similar(split_stories()[0])
        assert nsh.store.cache_entries == 0 and nsh.store._cache is None


def test_new_pages_fetch_only_the_keys_the_filter_cannot_rule_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(9)
    pages = [article(rng) for _ in range(40)]
    fetched: list[int] = []
    read = LeveldbTransaction.get_cached

    def counted(view: LeveldbTransaction, table: str, keys: Any) -> list[int | None]:
        fetched.append(len(keys))
        return read(view, table, keys)

    monkeypatch.setattr(LeveldbTransaction, "get_cached", counted)
    with nshash.HashDBLeveldb(tmp_path / "c.hashdb") as store:
        nsh = nshash.NSHash(hashdb=store)
        assert [nsh.add(page).is_new for page in pages] == [True] * len(pages)
    # Each page looks up ~30 keys, all new: the C rules them out with the store's filter (false positives aside).
    assert sum(fetched) <= len(pages)
