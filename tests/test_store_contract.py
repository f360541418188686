"""The HashDB contract: every store kind passes the same tests."""

from __future__ import annotations

import copy
import pickle
import random
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

import nshash
from tests.conftest import LOCKING_KINDS, PERSISTENT_KINDS, StoreFactory
from tests.pages import sample_pages

MAX_KEY = 2**64 - 1


def test_missing_keys_are_none(store: nshash.HashDB) -> None:
    assert store.get_many("fp", [1, 2, MAX_KEY]) == [None, None, None]


def test_values_come_back_as_ints(store: nshash.HashDB) -> None:
    store.put_many("fp", [(MAX_KEY, 12), (0, 3), (5, 2**62)])
    values = store.get_many("fp", [MAX_KEY, 0, 5])
    assert values == [12, 3, 2**62]
    assert all(type(value) is int for value in values)


def test_tables_are_separate(store: nshash.HashDB) -> None:
    store.put("fp", 7, 1)
    store.put("parent", 7, 2)
    assert (store.get("fp", 7), store.get("parent", 7), store.get("stat", 7)) == (1, 2, None)
    assert store.count("fp") == store.count("parent") == 1
    assert store.count("stat") == 0


def test_put_overwrites(store: nshash.HashDB) -> None:
    store.put("fp", 9, 1)
    store.put("fp", 9, 0)
    assert store.get("fp", 9) == 0


def test_unknown_table_is_rejected(store: nshash.HashDB) -> None:
    with pytest.raises(nshash.ArgumentError, match="unknown table"):
        store.get_many("nope", [1])
    with pytest.raises(nshash.ArgumentError, match="unknown table"):
        store.put_many("nope", [(1, 1)])
    with pytest.raises(nshash.ArgumentError, match="unknown table"):
        store.transaction(lambda view: view.get_many("nope", [1]))


@pytest.mark.parametrize("bad", [-1, 2**64, 2**64 + 5, -(2**70)])
def test_keys_outside_64_bits_raise_one_clear_error(store: nshash.HashDB, bad: int) -> None:
    # Every backend refuses them the same way, outside and inside a transaction
    # (memory once stored 2**64, LevelDB raised a raw struct.error).
    calls = [
        lambda view: view.get_many("fp", [1, bad]),
        lambda view: view.put_many("fp", [(bad, 1)]),
        lambda view: view.delete_many("fp", [bad]),
        lambda view: view.get("fp", bad),
        lambda view: view.put("fp", bad, 1),
    ]
    for call in calls:
        for run in (lambda c: c(store), lambda c: store.transaction(c)):
            with pytest.raises(nshash.ArgumentError, match="unsigned 64-bit") as caught:
                run(call)
            assert isinstance(caught.value, ValueError)
            assert isinstance(caught.value, nshash.NSHashError)
    assert store.count("fp") == 0
    assert store.get_many("fp", [0, MAX_KEY]) == [None, None]


@pytest.mark.parametrize("bad", [2**63, -(2**63) - 1])
def test_values_outside_64_bits_are_refused(store: nshash.HashDB, bad: int) -> None:
    for run in (lambda: store.put_many("fp", [(1, bad)]), lambda: store.transaction(lambda v: v.put("fp", 1, bad))):
        with pytest.raises(nshash.ArgumentError, match="signed 64-bit"):
            run()
    store.put_many("fp", [(1, 2**63 - 1), (2, -(2**63))])
    assert store.get_many("fp", [1, 2]) == [2**63 - 1, -(2**63)]


def test_keys_that_are_not_numbers_are_a_type_error(store: nshash.HashDB) -> None:
    for run in (lambda: store.get_many("fp", ["1"]), lambda: store.transaction(lambda v: v.put("fp", None, 1))):  # type: ignore[list-item,arg-type]
        with pytest.raises(nshash.ArgumentTypeError):
            run()


def test_meta_round_trip(store: nshash.HashDB) -> None:
    assert store.get_meta("options") is None
    store.set_meta("options", '{"n": 5}')
    assert store.get_meta("options") == '{"n": 5}'


def test_ids_start_at_one_and_never_repeat(store: nshash.HashDB) -> None:
    ids = [store.allocate_id() for _ in range(50)]
    assert ids == list(range(1, 51))


def test_ids_never_repeat_across_threads(store: nshash.HashDB) -> None:
    start = threading.Barrier(4)

    def take(_: int) -> list[int]:
        start.wait()  # all four at once
        return [int(store.transaction(lambda view: view.allocate_id())) for _ in range(60)]

    with ThreadPoolExecutor(4) as pool:
        taken = [id_ for ids in pool.map(take, range(4)) for id_ in ids]
    assert sorted(taken) == list(range(1, 241))


def test_threads_sharing_one_index(store: nshash.HashDB) -> None:
    # A crawler's fetch threads calling get_similar on one NSHash: every call is one decision under the
    # store's lock, so each id a thread got is the page's cluster afterwards too (the ids themselves
    # depend on the interleaving, as they depend on the order of a single thread).
    pages = sample_pages()[:90]
    index = nshash.NSHash(name=None, hashdb=store)
    start = threading.Barrier(4)

    def feed(seed: int) -> dict[int, int]:
        order = random.Random(seed).sample(range(len(pages)), len(pages))
        start.wait()
        return {at: index.get_similar(pages[at]) for at in order}

    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(feed, range(4)))
    after = [index.get_similar(page) for page in pages]
    assert [[index.resolve(ids[at]) for at in range(len(pages))] for ids in got] == [after] * 4
    assert len(set(after)) < len(pages)  # the sample's copies did join
    assert index.get_similar_many(pages) == after


@pytest.mark.parametrize("bad", [-3, 2**62])
def test_an_id_the_store_gives_back_out_of_range_is_named_damage(store: nshash.HashDB, bad: int) -> None:
    # A store file can pass its checksum and still hold what nshash never writes (another program's data,
    # a custom store's bug): the decision then uses the id as a key.  It was an ArgumentError about
    # "store keys", as if the caller had passed a bad argument.
    index = nshash.NSHash(name=None, hashdb=store)
    page = "这是一个足够长的测试句子，用来看看写入的情况如何。另一句也很长很长的句子在这里出现了。"
    store.put_many("fp", [(key, bad) for key in index.get_nshash(page)])
    with pytest.raises(nshash.StoreCorruptError, match="not a valid one"):
        index.get_similar(page)


def test_transaction_returns_and_writes(store: nshash.HashDB) -> None:
    def body(view: nshash.HashDB) -> int:
        view.put_many("fp", [(1, 10)])
        assert view.get_many("fp", [1]) == [10]  # a transaction reads its own writes
        return int(view.allocate_id())

    assert store.transaction(body) == 1
    assert store.get("fp", 1) == 10


def test_use_after_close_raises(store: nshash.HashDB) -> None:
    assert repr(store) == f"<{store.describe()}>"
    store.close()
    assert repr(store) == f"<{store.describe()} closed>"
    store.close()  # closing twice is harmless
    for call in (
        lambda: store.get_many("fp", [1]),
        lambda: store.put_many("fp", [(1, 1)]),
        lambda: store.get_meta("x"),
        lambda: store.allocate_id(),
        lambda: store.transaction(lambda view: None),
    ):
        with pytest.raises(nshash.StoreClosedError, match="closed") as caught:
            call()
        assert str(caught.value) == f"{store.describe()} is closed"  # which store: a path, a URL and prefix


@pytest.mark.parametrize("copy_it", [pickle.dumps, copy.copy, copy.deepcopy], ids=["pickle", "copy", "deepcopy"])
def test_a_store_is_not_pickled_or_copied(store: nshash.HashDB, copy_it: Callable[[object], object]) -> None:
    # A copy would share (or lose) the open file, connection or lock: two objects writing one store.
    store.put("fp", 1, 1)
    with pytest.raises(nshash.ArgumentTypeError, match=r"cannot pickle .*open it in each process") as caught:
        copy_it(store)
    assert store.describe() in str(caught.value)
    assert store.get("fp", 1) == 1  # and the store goes on


def test_context_manager_closes(make_store: StoreFactory) -> None:
    with make_store() as store:
        store.put("fp", 1, 1)
    assert store.closed


def test_reopen_keeps_everything(make_store: StoreFactory, store_kind: str) -> None:
    if store_kind not in PERSISTENT_KINDS:
        pytest.skip("not persistent")
    with make_store() as store:
        store.put_many("fp", [(1, 5), (MAX_KEY, 6)])
        store.put("parent", 6, 5)
        store.set_meta("options", "x")
        for _ in range(3):
            store.allocate_id()
    with make_store() as store:
        assert store.get_many("fp", [1, MAX_KEY]) == [5, 6]
        assert store.get("parent", 6) == 5
        assert store.get_meta("options") == "x"
        assert store.allocate_id() == 4


def test_second_open_of_a_persistent_store_is_refused(make_store: StoreFactory, store_kind: str) -> None:
    if store_kind not in LOCKING_KINDS:
        pytest.skip("not persistent, or shared by design (redis)")
    with make_store() as store:
        store.put("fp", 1, 1)
        with pytest.raises(nshash.StoreLockedError, match="already open|open in another"):
            make_store()
        assert store.get("fp", 1) == 1  # the first one is unaffected


def test_delete_removes_keys_and_counts(make_store: StoreFactory, store_kind: str) -> None:
    store = make_store()
    store.put_many("fp", [(1, 10), (2, 20), (MAX_KEY, 30)])
    if store_kind == "readme":  # the README's minimal store does not delete: a clear error says so
        with pytest.raises(nshash.StoreError, match="cannot delete"):
            store.delete_many("fp", [1])
        return
    store.delete_many("fp", [1, MAX_KEY, 99])  # an absent key is ignored

    def in_transaction(view: nshash.HashDB) -> list[int | None]:
        view.delete_many("fp", [2])
        return view.get_many("fp", [2])  # a transaction reads its own deletions

    assert store.transaction(in_transaction) == [None]
    assert store.get_many("fp", [1, 2, MAX_KEY]) == [None, None, None]
    assert store.count("fp") == 0
    if store_kind in PERSISTENT_KINDS:
        store.close()
        reopened = make_store()
        assert reopened.get_many("fp", [1, 2, MAX_KEY]) == [None, None, None]
        assert reopened.count("fp") == 0


def test_reads_agree_with_a_dict_whatever_the_pattern(make_store: StoreFactory, store_kind: str) -> None:
    # A cluster's members are many keys in one block (LevelDB reads those with
    # one scan), fingerprints are scattered; the last block ends at 2**64 - 1.
    rng = random.Random(5)
    model: dict[int, int] = {}
    store = make_store()
    blocks = [0, 77 << 8, MAX_KEY >> 8 << 8, rng.getrandbits(56) << 8]
    for _ in range(12):
        keys = [rng.choice(blocks) | rng.randrange(256) for _ in range(40)] + [rng.getrandbits(64) for _ in range(5)]
        keys += [block | edge for block in blocks for edge in (0, 255)]
        items = [(key, rng.randrange(-(2**63), 2**63)) for key in keys[::2]]
        gone = [] if store_kind == "readme" else keys[1::7]  # the README's store cannot delete
        store.transaction(lambda view, k=keys, i=items, g=gone: _read_write_read(view, model, k, i, g))
        model.update(items)
        for key in gone:
            model.pop(key, None)
        everything = sorted(model)
        assert store.get_many("sketch", everything) == [model[key] for key in everything]
        assert store.get_many("sketch", everything[::-1]) == [model[key] for key in everything[::-1]]
        assert store.get_many("fp", everything[:20]) == [None] * min(20, len(everything))


def _read_write_read(
    view: nshash.HashDB, model: dict[int, int], keys: list[int], items: list[tuple[int, int]], gone: list[int]
) -> None:
    """In one transaction: read ``keys``, write ``items``, delete ``gone``, read again (its own writes win)."""
    # In key order too: runs of keys in one block (how a cluster's members are read).
    for order in (keys, sorted(keys)):
        assert view.get_many("sketch", order) == [model.get(key) for key in order]
    view.put_many("sketch", items)
    if gone:
        view.delete_many("sketch", gone)
    expected = {**model, **dict(items)}
    for key in gone:
        expected.pop(key, None)
    for order in (keys, sorted(keys)):
        assert view.get_many("sketch", order) == [expected.get(key) for key in order]
