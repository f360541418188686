"""The memory store's tables: the C ``Table`` and ``Blocks`` behave as a dict, and their files load.

Random operation sequences run on a table and a dict side by side; keys
come from small pools (so that runs of colliding slots, growth and
backward-shift deletion are exercised, and for ``Blocks`` (``nshash/_blocks.h``)
keys in the same block, in its words and past them) and include 0 and 2**64 - 1.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import re
import struct
import subprocess
import sys
import zlib
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nshash
import nshash._accel
from nshash.stores import memory_format
from nshash.stores.memory import read_state
from nshash.stores.memory_table import DictTable

speedups = pytest.importorskip("nshash._speedups", reason="the C accelerator is not built")
Table = speedups.Table
#: Both C tables: every test of a table's behaviour runs on each.
KINDS = pytest.mark.parametrize("kind", [speedups.Table, speedups.Blocks], ids=["Table", "Blocks"])

MAX_KEY = 2**64 - 1
EDGES = [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**63, MAX_KEY]
VALUES = st.one_of(
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from([0, -1, -(2**31), 2**31 - 1, 2**31, -(2**31) - 1, -(2**63), 2**63 - 1]),
)


def keys_from(pool: int) -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from(EDGES), st.integers(0, pool), st.integers(0, MAX_KEY))


KEYS = keys_from(300)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.lists(st.tuples(KEYS, VALUES), max_size=40)),
        st.tuples(st.just("delete"), st.lists(KEYS, max_size=40)),
        st.tuples(st.just("get"), st.lists(KEYS, max_size=40)),
        st.tuples(st.just("set"), st.tuples(KEYS, VALUES)),
        st.tuples(st.just("del"), KEYS),
        st.tuples(st.just("reload"), st.none()),
        st.tuples(st.just("clear"), st.none()),
    ),
    max_size=60,
)


def same(table: object, model: dict[int, int]) -> None:
    assert len(table) == len(model)  # type: ignore[arg-type]
    assert dict(table.items()) == model  # type: ignore[attr-defined]
    assert sorted(table) == sorted(model)  # type: ignore[call-overload]
    assert sorted(table.values()) == sorted(model.values())  # type: ignore[attr-defined]
    keys, values = table.to_arrays()  # type: ignore[attr-defined]
    assert dict(zip(keys, values)) == model


@KINDS
@settings(max_examples=300, deadline=None)
@given(operations)
def test_a_table_behaves_as_a_dict(kind: type, ops: list[tuple[str, object]]) -> None:
    table, model, python = kind(), {}, DictTable()
    for op, arg in ops:
        if op == "put":
            table.put_many(arg)
            python.put_many(arg)  # type: ignore[arg-type]
            model.update(arg)  # type: ignore[call-overload]
        elif op == "delete":
            expected = [key for key in arg if model.pop(key, None) is not None]  # type: ignore[attr-defined]
            assert table.delete_many(arg) == expected
            assert python.delete_many(arg) == expected  # type: ignore[arg-type]
        elif op == "get":
            expected = [model.get(key) for key in arg]  # type: ignore[attr-defined]
            assert table.get_many(arg) == expected
            assert python.get_many(arg) == expected  # type: ignore[arg-type]
            assert [table.get(key) for key in arg] == expected  # type: ignore[attr-defined]
            assert [key in table for key in arg] == [key in model for key in arg]  # type: ignore[attr-defined]
        elif op == "set":
            key, value = arg  # type: ignore[misc]
            table[key] = value
            python[key] = model[key] = value
        elif op == "del":
            if arg in model:
                del table[arg], model[arg], python[arg]  # type: ignore[index]
            else:
                with pytest.raises(KeyError):
                    del table[arg]
        elif op == "reload":
            table = kind(*table.to_arrays())
        else:
            table.clear()
            model.clear()
            python.clear()
        same(table, model)
        assert dict(python) == model
    keys, values = python.to_arrays()
    assert dict(zip(keys, values)) == dict(kind(keys, values).items()) == model


@KINDS
@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(keys_from(5000), VALUES), max_size=3000), st.data())
def test_growth_and_many_deletions_keep_every_key_findable(
    kind: type, pairs: list[tuple[int, int]], data: st.DataObject
) -> None:
    table = kind()
    table.put_many(pairs)
    model = dict(pairs)
    gone = data.draw(st.lists(st.sampled_from(sorted(model)) if model else st.nothing(), max_size=len(model)))
    table.delete_many(gone)
    for key in gone:
        model.pop(key, None)
    same(table, model)
    assert table.get_many(list(model)) == list(model.values())
    # Deleting does not shrink; the room is what the load factor says.
    assert table.capacity >= (len(model) * 5 // 4 if kind is Table else len(model))
    table.put_many(pairs)
    same(table, dict(pairs))


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("seed", range(40))
def test_deleting_from_a_full_table_keeps_the_rest_findable(seed: int, bits: int) -> None:
    """At the highest load before growing, runs are long and one wraps past the last slot (keys of either width)."""
    rng = random.Random(seed)
    table = Table()
    model = {rng.getrandbits(bits): rng.getrandbits(63) for _ in range(51)}
    table.put_many(model.items())
    assert table.capacity == 64
    for key in rng.sample(sorted(model), len(model)):
        assert table.delete_many([key]) == [key]
        del model[key]
        assert table.get_many(list(model)) == list(model.values())
    assert len(table) == 0


def test_values_widen_from_32_to_64_bits_only_when_one_needs_it() -> None:
    table = Table()
    table.put_many([(key, -key) for key in range(1000)])
    narrow = table.nbytes
    assert table.to_arrays()[1].typecode == "i"
    table.put_many([(5, 2**31)])
    assert table.to_arrays()[1].typecode == "q"
    assert table.nbytes == narrow + 4 * table.capacity
    assert table.get_many([4, 5, 6]) == [-4, 2**31, -6]
    again = Table(*table.to_arrays())
    assert dict(again.items()) == dict(table.items())


def test_keys_widen_from_32_to_64_bits_only_when_one_needs_it() -> None:
    """The `line` table's keys are 32-bit: its slots take 8 bytes, not 12."""
    table = Table()
    table.put_many([(2**32 - 1 - key, key) for key in range(1000)])
    narrow = table.nbytes
    assert narrow == table.capacity * 8 + table.capacity // 8
    assert table.get_many([2**32 - 1, 2**32, 2**32 + 2**32 - 1, 2**64 - 1]) == [0, None, None, None]
    table.put_many([(2**32, -1)])
    assert table.nbytes == narrow + 4 * table.capacity
    assert table.get_many([2**32 - 1, 2**32, 2**32 - 1000]) == [0, -1, 999]
    again = Table(*table.to_arrays())
    assert dict(again.items()) == dict(table.items())
    assert again.nbytes == table.nbytes  # rebuilt wide, as it was
    table.delete_many([2**32])
    small = Table(*table.to_arrays())
    assert small.nbytes == narrow and dict(small.items()) == dict(table.items())  # rebuilt narrow


@KINDS
def test_a_bad_call_leaves_the_table_unchanged(kind: type) -> None:
    table = kind()
    table.put_many([(1, 1)])
    for bad in ([(2, 2), (-1, 3)], [(2, 2), (2**64, 3)], [(2, 2), (3, 2**63)], [(2, 2), (3, "x")], [(2, 2), (3,)]):
        with pytest.raises((OverflowError, TypeError)):
            table.put_many(bad)
        assert dict(table.items()) == {1: 1}
    with pytest.raises(TypeError):
        table.delete_many([1, "2"])
    assert dict(table.items()) == {1: 1}
    with pytest.raises(TypeError):
        table.get_many(["1"])
    # Out of range is absent when reading, as in a dict.
    assert table.get_many([-1, 2**64]) == [None, None] and -1 not in table and table.get(2**70, 7) == 7
    table.put_many([[2, 3]])  # any pair, as dict.update takes
    assert table.get(2) == 3


def test_changing_a_table_while_iterating_is_refused() -> None:
    table = Table()
    table.put_many([(key, key) for key in range(10)])
    items = table.items()
    next(items)
    table.put_many([(100, 1)])
    with pytest.raises(RuntimeError):
        next(items)


@KINDS
def test_building_from_arrays_checks_them(kind: type) -> None:
    with pytest.raises(ValueError, match="twice"):
        kind(array("Q", [1, 2, 1]), array("q", [1, 2, 3]))
    with pytest.raises(ValueError, match="3 keys but 2 values"):
        kind(array("Q", [1, 2, 3]), array("q", [1, 2]))
    with pytest.raises(TypeError):
        kind(array("q", [1]), array("q", [1]))  # signed keys
    with pytest.raises(TypeError):
        kind(array("Q", [1]), array("d", [1.0]))
    with pytest.raises(TypeError):
        kind(array("Q", [1]))
    with pytest.raises(ValueError, match="key 0 is given twice"):  # any buffer of 'Q', as the file's are
        kind(memoryview(bytes(16)).cast("Q"), array("i", [5, 6]))
    assert dict(kind(memoryview(bytes(8)).cast("Q"), array("i", [5])).items()) == {0: 5}


@KINDS
@settings(max_examples=200, deadline=None)
@given(st.lists(keys_from(300), min_size=1, max_size=400, unique=True), st.data())
def test_building_from_arrays_in_any_order_finds_every_key_and_any_key_given_twice(
    kind: type, keys: list[int], data: st.DataObject
) -> None:
    # A file gives its keys in slot order; any other order (and a damaged file) must work as well.
    order = data.draw(st.permutations(keys))
    values = list(range(len(order)))
    same(kind(array("Q", order), array("q", values)), dict(zip(order, values)))
    twice = data.draw(st.sampled_from(order))
    doubled = order.copy()
    doubled.insert(data.draw(st.integers(0, len(order))), twice)
    with pytest.raises(ValueError, match=f"key {twice} is given twice"):
        kind(array("Q", doubled), array("q", range(len(doubled))))


def test_blocks_keep_a_members_words_together_in_a_fraction_of_the_room() -> None:
    """The store's sketch table: 33 words a member in one 280-byte block, not 33 slots of a Table."""
    from nshash.members import ENTRIES, entry_keys

    words = [(key, -(2**63) + key) for cluster in range(1, 2001) for key in entry_keys(cluster, cluster % 3)]
    blocks, table = speedups.Blocks(), Table()
    blocks.put_many(words)
    table.put_many(words)
    assert dict(blocks.items()) == dict(table.items()) and len(blocks) == 2000 * ENTRIES
    assert blocks.nbytes < 0.5 * table.nbytes
    blocks.delete_many([key for key, _ in words[: 1000 * ENTRIES]])  # whole members leave, and their blocks
    assert dict(blocks.items()) == dict(words[1000 * ENTRIES :])


# -- the memory store's files ------------------------------------------------------------


def store_with_pages(path: Path, pages: int) -> list[int]:
    with nshash.NSHash(path) as nsh:
        return [
            nsh.get_similar(f"page {i}. " + " ".join(f"word{(i * j) % 997}" for j in range(60))) for i in range(pages)
        ]


def version2_file(path: Path, tables: dict[str, dict[int, int]], next_id: int, generation: int = 0) -> None:
    """A store file as nshash wrote it before the tables were packed arrays (format version 2)."""
    state = {
        "format": "nshash.hashdb.memory",
        "version": 2,
        "meta": {},
        "next_id": next_id,
        "tables": tables,
        "log_generation": generation,
    }
    payload = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    path.write_bytes(struct.pack("<8sIQI", b"NSHASHDB", 2, len(payload), zlib.crc32(payload)) + payload)


def test_a_version_2_file_still_loads_and_is_saved_as_version_3(tmp_path: Path) -> None:
    tables = {"fp": {0: 1, MAX_KEY: 2, 5: 1}, "sketch": {256: -(2**63), 257: 2**63 - 1}, "parent": {2: 1}}
    path = tmp_path / "old.hashdb.pkl"
    version2_file(path, tables, 3)
    with nshash.HashDBMemory(path) as store:
        assert store.get_many("fp", [0, MAX_KEY, 5, 6]) == [1, 2, 1, None]
        assert store.get_many("sketch", [256, 257]) == [-(2**63), 2**63 - 1]
        assert store.allocate_id() == 3
    state = read_state(path)
    assert state["version"] == 3
    assert {name: pairs for name, pairs in state["tables"].items() if pairs} == tables


@pytest.mark.parametrize("writer", ["c", "python"])
def test_files_move_between_the_c_and_the_python_store(tmp_path: Path, writer: str) -> None:
    """A file saved with the accelerator opens without it, and the other way round, with the same ids."""
    script = (
        "import sys, pathlib\n"
        "from tests.test_table import store_with_pages\n"
        "print(store_with_pages(pathlib.Path(sys.argv[1]), 150))"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    env.pop("NSHASH_REQUIRE_SPEEDUPS", None)
    first, second = (
        (dict(env, NSHASH_NO_SPEEDUPS="1"), env) if writer == "python" else (env, dict(env, NSHASH_NO_SPEEDUPS="1"))
    )
    path = tmp_path / "news"
    written = subprocess.run(
        [sys.executable, "-c", script, str(path)], env=first, capture_output=True, text=True, check=True
    )
    reread = subprocess.run(
        [sys.executable, "-c", script, str(path)], env=second, capture_output=True, text=True, check=True
    )
    assert written.stdout == reread.stdout  # the same pages find the clusters they made
    assert len(set(json.loads(written.stdout))) > 100  # distinct pages: many clusters


def packed_file(tmp_path: Path, tables: dict[str, object], next_id: int = 10) -> Path:
    """A version 3 file holding ``tables`` as given (packed tuples), with a valid checksum."""
    path = tmp_path / "news.hashdb.pkl"
    state = {
        "format": "nshash.hashdb.memory",
        "version": 3,
        "meta": {},
        "next_id": next_id,
        "tables": tables,
        "log_generation": 0,
    }
    pickled = pickle.dumps(state, protocol=5)  # the arrays in the pickle itself: no out-of-band ones
    payload = struct.pack("<QQ", len(pickled), 0) + pickled
    path.write_bytes(struct.pack("<8sIQI", b"NSHASHDB", 3, len(payload), zlib.crc32(payload)) + payload)
    return path


def packed(keys: list[int], values: list[int], code: str = "q") -> tuple[str, str, str, bytes, bytes]:
    return ("Q", code, sys.byteorder, array("Q", keys).tobytes(), array(code, values).tobytes())


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ({"fp": packed([1, 2, 1], [1, 2, 3])}, "twice"),
        ({"parent": packed([5, 6, 7], [6, 7, 5])}, "cycle"),
        ({"parent": packed([5], [5], "i")}, "cycle"),
        ({"fp": ("Q", "q", sys.byteorder, b"\0" * 12, b"\0" * 8)}, "torn"),
        ({"fp": ("Q", "q", sys.byteorder, b"\0" * 16, b"\0" * 8)}, "keys but"),
        ({"fp": ("q", "q", sys.byteorder, b"\0" * 8, b"\0" * 8)}, "arrays of"),
        ({"fp": ("Q", "d", sys.byteorder, b"\0" * 8, b"\0" * 8)}, "arrays of"),
        ({"fp": ("Q", "q", "middle", b"\0" * 8, b"\0" * 8)}, "byte order"),
        ({"fp": ("Q", "q", sys.byteorder, "abc", b"\0" * 8)}, "not bytes"),
        ({"fp": {1: 2}}, "not \\(key type"),
        ({"nope": packed([1], [1])}, "unknown tables"),
    ],
)
@pytest.mark.parametrize("accelerated", [True, False])
def test_a_damaged_version_3_file_is_refused_and_left_untouched(
    tmp_path: Path, tables: dict[str, object], message: str, accelerated: bool
) -> None:
    path = packed_file(tmp_path, tables)
    before = path.read_bytes()
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    if not accelerated:
        env["NSHASH_NO_SPEEDUPS"] = "1"
        env.pop("NSHASH_REQUIRE_SPEEDUPS", None)
    script = (
        "import sys, nshash\n"
        "try:\n    nshash.HashDBMemory(sys.argv[1])\n"
        "except nshash.StoreCorruptError as exc:\n    print('refused:', exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith("refused:"), done.stdout + done.stderr
    assert re.search(message, done.stdout), done.stdout
    assert path.read_bytes() == before


@pytest.mark.skipif(nshash._accel.speedups is None, reason="the accelerator is switched off: the store keeps dicts")
@pytest.mark.parametrize("apart", [False, True], ids=["one by one", "side by side"])
def test_tables_built_side_by_side_are_the_tables_and_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, apart: bool
) -> None:
    # A large file's tables are built on threads, its checksum on another: same tables, same refusals.
    pools: list[object] = []
    pool = memory_format.ThreadPoolExecutor
    monkeypatch.setattr(memory_format, "ThreadPoolExecutor", lambda *a, **kw: pools.append(a) or pool(*a, **kw))
    if apart:
        monkeypatch.setattr(memory_format, "_BUILD_APART", 0)
        monkeypatch.setattr(memory_format, "_CHECK_BEHIND", 0)
        monkeypatch.setattr(memory_format.os, "cpu_count", lambda: 2)
    fp, line = packed(list(range(500)), list(range(500)), "i"), packed([7, 2**64 - 1], [-1, 2**40])
    path = packed_file(tmp_path, {"fp": fp, "line": line, "sketch": packed([64, 65, 3], [1, 2, 3])})
    with nshash.HashDBMemory(path, log_interval=None) as store:
        assert store.get_many("fp", [0, 499, 500]) == [0, 499, None]
        assert store.get_many("line", [7, 2**64 - 1]) == [-1, 2**40]
        assert store.get_many("sketch", [64, 65, 3]) == [1, 2, 3]
        assert [type(store._tables[name]).__name__ for name in ("fp", "sketch")] == ["Table", "Blocks"]
        store._release()
    assert bool(pools) == apart
    for damaged in ({"fp": fp, "line": packed([7, 8, 7], [1, 2, 3])}, {"sketch": packed([64, 64], [1, 2])}):
        path = packed_file(tmp_path, damaged)
        with pytest.raises(nshash.StoreCorruptError, match="is given twice"):
            nshash.HashDBMemory(path, log_interval=None)


@pytest.mark.parametrize(("layout", "message"), [((0, 1), "add up"), ((10**6, 0), "add up"), ((0, 99), "99 arrays")])
def test_a_version_3_file_whose_layout_does_not_add_up_is_refused(
    tmp_path: Path, layout: tuple[int, int], message: str
) -> None:
    path = tmp_path / "news.hashdb.pkl"
    payload = struct.pack("<QQ", *layout) + b"\0" * 24
    path.write_bytes(struct.pack("<8sIQI", b"NSHASHDB", 3, len(payload), zlib.crc32(payload)) + payload)
    with pytest.raises(nshash.StoreCorruptError, match=message):
        nshash.HashDBMemory(path)


def test_a_version_3_file_in_the_other_byte_order_loads(tmp_path: Path) -> None:
    other = "big" if sys.byteorder == "little" else "little"
    keys, values = array("Q", [0, 7, MAX_KEY]), array("q", [-(2**63), 3, 2**63 - 1])
    keys.byteswap()
    values.byteswap()
    path = packed_file(tmp_path, {"sketch": ("Q", "q", other, keys.tobytes(), values.tobytes())})
    with nshash.HashDBMemory(path) as store:
        assert store.get_many("sketch", [0, 7, MAX_KEY]) == [-(2**63), 3, 2**63 - 1]


@KINDS
def test_writes_counts_every_change_and_nothing_else(kind: type) -> None:
    """The memory store saves only a changed index; the C decision writes tables without telling it otherwise."""
    table = kind(array("Q", [1, 2]), array("q", [5, 6]))
    assert table.writes == 0  # built from a file: nothing to save
    table.get_many([1, 3])
    table.delete_many([3])  # absent: nothing removed
    assert table.writes == 0
    table.put_many([(1, 5)])  # the same value again still counts: the C decision does not compare
    table.put_many([(2, 7), (3, 8)])
    table.delete_many([1])
    assert table.writes == 4
    table.clear()
    assert table.writes == 5
