"""The LevelDB store's filter of written keys: never a missed key, whatever happened to the saved filter."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import plyvel
import pytest

import nshash
from nshash.stores import leveldb_filter
from nshash.stores.leveldb_filter import MIN_BITS, KeyFilter, table_salt
from nshash.stores.leveldb_layout import FILTER_FILE, FILTER_KEY, FORMAT, FORMAT_FILTERED, FORMAT_KEY, TABLES_IN_ORDER
from tests.fleet import article, reprint

MAX_KEY = 2**64 - 1


def random_items(rng: random.Random, count: int) -> list[tuple[int, int]]:
    return [(rng.getrandbits(64), rng.randrange(1, 2**40)) for _ in range(count)]


def test_the_filter_has_no_false_negatives_and_few_false_positives() -> None:
    rng = random.Random(3)
    keyfilter = KeyFilter()
    added = {table: [rng.getrandbits(64) for _ in range(2000)] for table in range(10)}
    added[0] += [0, MAX_KEY, 1 << 6, 5 << 8]
    for table, keys in added.items():
        keyfilter.add(table_salt(table), keys)
    for table, keys in added.items():
        assert all(keyfilter.may_contain(table_salt(table), keys))
    others = [rng.getrandbits(64) for _ in range(20000)]
    assert sum(keyfilter.may_contain(table_salt(3), others)) < 0.01 * len(others)
    # A key's group is what is added: keys differing in their low 6 bits pass with it.
    assert keyfilter.may_contain(table_salt(0), [(1 << 6) + 63, (5 << 8) + 7]) == [1, 1]


@pytest.mark.parametrize("log2_bits", [10, 20, 27])
def test_the_c_probes_set_and_read_the_bits_the_python_does(log2_bits: int) -> None:
    """``nshash/_keyfilter.h`` against the Python it implements: the same bits, counts and answers."""
    if leveldb_filter._PROBE is None:
        pytest.skip("the C accelerator is not built")
    rng = random.Random(log2_bits)
    in_c, in_python = KeyFilter(log2_bits), KeyFilter(log2_bits)
    for table in range(11):
        # Fingerprints, and a member's 33 entries in a row (one group), edges included.
        keys = [rng.getrandbits(64) for _ in range(300)] + [0, MAX_KEY, MAX_KEY - 1]
        keys += [(rng.getrandbits(56) << 8 | 1 << 6) + part for part in range(33)]
        in_c.add(table_salt(table), iter(keys))  # any iterable, as add takes
        in_python.add_python(table_salt(table), keys)
        assert in_c.bits == in_python.bits and in_c.groups == in_python.groups
        asked = keys[::3] + [rng.getrandbits(64) for _ in range(3000)]
        assert in_c.may_contain(table_salt(table), asked) == in_python.may_contain_python(table_salt(table), asked)
    assert in_python.groups > 0 and any(in_c.bits)
    with pytest.raises(OverflowError):
        in_c.may_contain(0, [-1])
    with pytest.raises(ValueError, match="the bits do not match"):
        leveldb_filter._PROBE(bytearray(10), log2_bits, 0, [1], 6, 1, False)


def test_the_table_order_that_salts_depend_on_is_fixed() -> None:
    # A saved filter is read with the same salts: renumbering tables would make it lie
    # (a new table goes at the end, as "line" did in 2.0).
    assert TABLES_IN_ORDER == ("fp", "parent", "stat", "bkt", "slot", "sig", "sketch", "key", "undo", "ref", "line")


def test_a_full_filter_is_rebuilt_larger_and_misses_nothing(tmp_path: Path) -> None:
    rng = random.Random(4)
    items = random_items(rng, MIN_BITS // 16 + 5000)  # past the first filter's capacity
    with nshash.HashDBLeveldb(tmp_path / "grow.hashdb") as db:
        for start in range(0, len(items), 5000):
            db.put_many("fp", items[start : start + 5000])
        assert db._filter.log2_bits > MIN_BITS.bit_length() - 1
        keys = [key for key, _ in items]
        assert db.get_many("fp", keys) == [value for _, value in items]


def write_and_close(path: Path, items: list[tuple[int, int]]) -> None:
    with nshash.HashDBLeveldb(path) as db:
        db.put_many("fp", items)
        db.put_many("sketch", [(key >> 8 << 8 | part, 1) for key, _ in items[:50] for part in range(33)])


def check_all_there(path: Path, items: list[tuple[int, int]]) -> None:
    with nshash.HashDBLeveldb(path) as db:
        assert db.get_many("fp", [key for key, _ in items]) == [value for _, value in items]
        sketch = [key >> 8 << 8 | part for key, _ in items[:50] for part in range(33)]
        assert db.get_many("sketch", sketch) == [1] * len(sketch)


def test_a_clean_close_saves_the_filter_and_an_open_erases_its_record(tmp_path: Path) -> None:
    path = tmp_path / "news.hashdb"
    items = random_items(random.Random(5), 3000)
    write_and_close(path, items)
    db = plyvel.DB(str(path))
    token = db.get(FILTER_KEY)
    assert token is not None and db.get(FORMAT_KEY) == FORMAT_FILTERED  # older nshash refuses it
    db.close()
    assert KeyFilter.load(path / FILTER_FILE, token) is not None
    store = nshash.HashDBLeveldb(path)
    store.close()
    check_all_there(path, items)


def test_a_store_killed_while_open_has_no_filter_record(tmp_path: Path) -> None:
    # What a kill leaves: the directory as it is while the store is open.
    path, copy = tmp_path / "news.hashdb", tmp_path / "killed.hashdb"
    first, later = random_items(random.Random(6), 2000), random_items(random.Random(7), 2000)
    write_and_close(path, first)
    with nshash.HashDBLeveldb(path) as db:
        db.put_many("fp", later)
        shutil.copytree(path, copy, ignore=shutil.ignore_patterns("LOCK"))
    raw = plyvel.DB(str(copy))
    assert raw.get(FILTER_KEY) is None and raw.get(FORMAT_KEY) == FORMAT
    raw.close()
    check_all_there(copy, first + later)


@pytest.mark.parametrize("damage", ["older file", "flipped bit", "truncated", "missing", "foreign bytes"])
def test_a_saved_filter_that_is_not_the_one_recorded_is_rebuilt(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "news.hashdb"
    first, later = random_items(random.Random(8), 2000), random_items(random.Random(9), 2000)
    write_and_close(path, first)
    old = (path / FILTER_FILE).read_bytes()
    write_and_close(path, later)
    filter_file = path / FILTER_FILE
    data = filter_file.read_bytes()
    if damage == "older file":  # e.g. restored from a backup: it lacks the later keys
        filter_file.write_bytes(old)
    elif damage == "flipped bit":
        filter_file.write_bytes(data[:-10] + bytes([data[-10] ^ 1]) + data[-9:])
    elif damage == "truncated":
        filter_file.write_bytes(data[: len(data) // 2])
    elif damage == "missing":
        filter_file.unlink()
    else:
        filter_file.write_bytes(b"\0" * len(data))
    check_all_there(path, first + later)


def test_ids_are_the_same_as_the_memory_store_across_reopens(tmp_path: Path) -> None:
    rng = random.Random(10)
    originals = [article(rng) for _ in range(150)]
    docs = originals + [reprint(doc, "edited", rng) for doc in originals[::2]] + originals[::5]
    with nshash.NSHash() as memory:
        expected = [memory.get_similar(doc) for doc in docs]
    name = str(tmp_path / "news")
    found: list[int] = []
    for start in range(0, len(docs), 60):  # closed and reopened: the saved filter is used
        with nshash.NSHash(name, hashdb="leveldb") as index:
            found += [index.get_similar(doc) for doc in docs[start : start + 60]]
    assert found == expected
    assert len(set(expected)) < len(expected)  # some documents did match
