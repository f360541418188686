"""The C decision on stores without C tables (LevelDB, Redis): a cache read through the view, one C call a page."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import nshash
import nshash._accel
import nshash.native
from nshash.errors import StoreError
from nshash.many import get_similar_many
from nshash.native import TABLES
from nshash.stores.leveldb_view import LeveldbTransaction
from tests.conftest import open_store_kind
from tests.corpora import excerpt_pages, hard_corpus, manual_corpus, popular_copies, split_stories
from tests.test_speedups_assign import Counting as CountingOneCalls

speedups = pytest.importorskip("nshash._speedups", reason="the C accelerator is not built")
if nshash._accel.speedups is None:  # built but switched off (NSHASH_NO_SPEEDUPS)
    pytest.skip("the C accelerator is switched off", allow_module_level=True)

CORPORA = [popular_copies, hard_corpus, manual_corpus, split_stories, excerpt_pages]
CORPUS_IDS = ["popular-story copies", "hard corpus", "manual", "split stories", "excerpt pages"]


class Counting:
    """The C module, counting the pages its ``assign`` decided and the fetches through a view."""

    def __init__(self) -> None:
        self.decided = self.fetches = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(speedups, name)

    def assign(self, tables: tuple[Any, ...], *args: Any) -> Any:
        if len(tables) > len(TABLES):  # a ReadThrough cache: count the reads it makes

            def counted(table: int, keys: list[int]) -> Any:
                self.fetches += 1
                return fetch(table, keys)

            fetch = tables[len(TABLES)]  # then, with a kept cache, the store's filter of its keys
            tables = (*tables[: len(TABLES)], counted, *tables[len(TABLES) + 1 :])
        out = speedups.assign(tables, *args)
        self.decided += out is not None
        return out


def feed(
    store: nshash.HashDB, docs: list[str], monkeypatch: pytest.MonkeyPatch, in_c: bool
) -> tuple[list[Any], Counting]:
    """``nsh.add``'s matches for ``docs`` then their first 40 again, the C decision on or off."""
    counting = Counting()
    with monkeypatch.context() as patch:
        patch.setattr(nshash.native, "speedups", counting)
        if not in_c:
            patch.setattr(nshash.native, "_lent_tables", lambda view: None)
        nsh = nshash.NSHash(hashdb=store)
        matches = [tuple(nsh.add(doc)) for doc in [*docs, *docs[:40]]]
    return matches, counting


def tables_of(store: nshash.HashDB, reference: nshash.HashDBMemory) -> dict[str, list[tuple[int, int | None]]]:
    """``store``'s values of the keys the memory store ``reference`` holds, by table."""
    return {
        name: list(zip(keys, store.get_many(name, keys)))
        for name in TABLES
        if (keys := sorted(key for key, _ in reference._tables[name].items()))
    }


@pytest.mark.parametrize("kind", ["leveldb", "redis", "readme"])
@pytest.mark.parametrize("docs", CORPORA, ids=CORPUS_IDS)
def test_the_c_decision_through_a_view_decides_and_writes_what_the_memory_store_and_python_do(
    kind: str, docs: Callable[[], list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: Any
) -> None:
    texts = docs()
    url = request.getfixturevalue("redis_server").url if kind == "redis" else None
    reference = nshash.HashDBMemory()
    expected, _ = feed(reference, texts, monkeypatch, in_c=True)
    runs = {}
    for in_c in (True, False):
        (directory := tmp_path / ("c" if in_c else "python")).mkdir()
        store = open_store_kind(kind, directory, url)
        if kind == "readme":  # the README's own store, opted in: its transaction's view is the store
            store.reads_through = True  # type: ignore[misc]
        try:
            matches, counting = feed(store, texts, monkeypatch, in_c)
            runs[in_c] = matches, tables_of(store, reference), {name: store.count(name) for name in TABLES}, counting
        finally:
            store.close()
    wanted_tables = tables_of(reference, reference)
    wanted_counts = {name: len(reference._tables[name]) for name in TABLES}
    for in_c, (matches, tables, counts, _) in runs.items():
        assert matches == expected, f"C decision: {in_c}"  # ids, new or not, scores, clusters merged
        assert tables == wanted_tables and counts == wanted_counts, f"C decision: {in_c}"
    c, python = runs[True][3], runs[False][3]
    assert c.decided == len(expected)  # every page decided in C, read through the view
    if kind != "leveldb":  # whose kept cache and filter of its keys spare most fetches (tests/test_leveldb_cache.py)
        assert c.fetches >= len(texts)
    assert python.decided == 0


@pytest.mark.parametrize("cache_entries", [0, 1 << 20])
def test_a_read_that_fails_inside_the_c_decision_raises_and_writes_nothing(
    cache_entries: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = popular_copies()
    with nshash.HashDBLeveldb(tmp_path / "f.hashdb", cache_entries=cache_entries) as store:
        nsh = nshash.NSHash(hashdb=store)
        ids = [nsh.get_similar(text) for text in texts[:30]]
        before = dict(store._db.iterator())
        store._cache = None  # as in a new process: the candidate's members are read from LevelDB
        read = LeveldbTransaction.get_cached

        def failing(view: LeveldbTransaction, table: str, keys: Any) -> list[int | None]:
            if table == "sketch":  # a candidate's members: read after the fingerprints, mid-decision
                raise StoreError("disk gone")
            return read(view, table, keys)

        with monkeypatch.context() as patch:
            patch.setattr(LeveldbTransaction, "get_cached", failing)
            with pytest.raises(StoreError, match="disk gone"):
                nsh.get_similar(texts[0] + "\nA line of its own.")
        assert dict(store._db.iterator()) == before  # nothing of the failed page was committed
        assert store._cache is None  # nor kept in memory: the cache may hold its writes
        assert [nsh.get_similar(text) for text in texts[:30]] == ids


def features_of(text: str) -> Any:
    return nshash.NSHash().fingerprinter.features(text)


OPTIONS = (5, 1, 3, 0.7, 0.5, True, 2)
TEXT = "A first sentence that is long enough to key. And a second one, long enough too."


def cache(fetch: Any) -> tuple[Any, ...]:
    return (*[speedups.Blocks() if name == "sketch" else speedups.Table() for name in TABLES], fetch)


def pending() -> tuple[Any, ...]:
    return tuple(speedups.Table() for _ in TABLES)


@pytest.mark.parametrize(
    ("tables", "writes", "error"),
    [
        (cache("not callable"), pending(), TypeError),
        (cache(lambda table, keys: [None] * len(keys)), None, TypeError),  # nowhere to put the writes
        (cache(lambda table, keys: [None]), pending(), TypeError),  # fewer values than keys
        (cache(lambda table, keys: 7), pending(), TypeError),  # not a list
        (cache(lambda table, keys: ["x"] * len(keys)), pending(), TypeError),  # values not ints
        (cache(lambda table, keys: 1 / 0), pending(), ZeroDivisionError),  # the fetch's own error
    ],
)
def test_c_assign_on_a_cache_refuses_a_bad_fetch(tables: Any, writes: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        speedups.assign(tables, writes, features_of(TEXT), OPTIONS, lambda: 1)


def test_c_assign_on_a_cache_reads_each_key_once_and_leaves_its_writes_pending() -> None:
    asked: list[tuple[int, list[int]]] = []

    def fetch(table: int, keys: list[int]) -> list[int | None]:
        asked.append((table, list(keys)))
        return [None] * len(keys)

    tables, writes = cache(fetch), pending()
    first = speedups.assign(tables, writes, features_of(TEXT), OPTIONS, lambda: 1)
    assert first[:2] == (1, True)
    # A new page: its fingerprints in one fetch, its lines in another; nothing else to read.
    assert [table for table, _ in asked] == [TABLES.index("fp"), TABLES.index("line")]
    fp = dict(writes[TABLES.index("fp")].items())
    assert set(fp.values()) == {1} and set(fp) == set(asked[0][1])  # every key it read, now cluster 1's
    asked.clear()
    again = speedups.assign(tables, writes, features_of(TEXT), OPTIONS, lambda: 2)
    # The same page again: its fingerprints are in the cache; only cluster 1's parent is not.
    assert again[0] == 1 and asked == [(TABLES.index("parent"), [1])]


@pytest.mark.parametrize("kind", ["leveldb", "redis"])
def test_get_similar_many_through_a_view_gives_the_ids_of_a_loop(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: Any
) -> None:
    texts = [*split_stories(), *popular_copies()]
    loop = nshash.NSHash()
    expected = loop.resolve_many([loop.get_similar(text) for text in texts])
    url = request.getfixturevalue("redis_server").url if kind == "redis" else None
    counting = CountingOneCalls()
    monkeypatch.setattr(nshash.native, "speedups", counting)
    store = open_store_kind(kind, tmp_path, url)
    try:
        assert get_similar_many(nshash.NSHash(hashdb=store), texts, chunk_size=64) == expected
    finally:
        store.close()
    if kind == "leveldb":  # a chunk in one transaction and one C call
        assert counting.one_call == {"decided": len(texts), "chunk calls": -(-len(texts) // 64)}
    else:  # Redis, shared by a fleet, commits a page at a time: one C call each
        assert counting.one_call == {"decided": len(texts)}


MIX = 0x9E3779B97F4A7C15


def key_filter(fill: int) -> tuple[Any, ...]:
    """A filter of 2**10 bits all ``fill`` (0: rules every key out, 0xFF: may hold every key)."""
    return (bytearray([fill] * 128), 10, tuple(range(len(TABLES))), 6, MIX)


def test_c_assign_marks_absent_without_a_fetch_the_keys_a_filter_rules_out() -> None:
    def recording(asked: list[int]) -> Callable[[int, list[int]], list[int | None]]:
        def fetch(table: int, keys: list[int]) -> list[int | None]:
            asked.append(table)
            return [None] * len(keys)

        return fetch

    decided = []
    for fill in (0x00, 0xFF):
        asked: list[int] = []
        fetch = recording(asked)
        tables = (*cache(fetch)[: len(TABLES)], fetch, key_filter(fill))
        writes = pending()
        first = speedups.assign(tables, writes, features_of(TEXT), OPTIONS, lambda: 1)
        decided.append((first, dict(writes[TABLES.index("fp")].items())))
        # Ruled out: nothing fetched, the same page new all the same; maybe there: fetched as without a filter.
        assert asked == ([] if fill == 0 else [TABLES.index("fp"), TABLES.index("line")])
    assert decided[0] == decided[1]


@pytest.mark.parametrize(
    "bad",
    [
        (bytes(128), 10, tuple(range(5)), 6, MIX),  # not a bytearray
        (bytearray(64), 10, tuple(range(5)), 6, MIX),  # not 2**10 bits
        (bytearray(128), 10, (1, 2), 6, MIX),  # not a salt a table
        (bytearray(128), 10, tuple(range(5)), 70, MIX),  # shift past 63
        (bytearray(128), 10, tuple(range(5)), 6),  # too short
    ],
)
def test_c_assign_refuses_a_bad_filter(bad: tuple[Any, ...]) -> None:
    tables = (*cache(None)[: len(TABLES)], lambda table, keys: [None] * len(keys), bad)
    with pytest.raises((TypeError, ValueError), match="filter"):
        speedups.assign(tables, pending(), features_of(TEXT), OPTIONS, lambda: 1)
