"""The LevelDB store's sketch table, a block a record: stores of the layout before convert on open, and lose nothing."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import plyvel
import pytest

import nshash
from nshash.errors import StoreCorruptError
from nshash.stores.blocks import decode_block, encode_block
from nshash.stores.leveldb_layout import (
    ENTRY_FORMATS,
    FORMAT,
    FORMAT_FILTERED,
    FORMAT_KEY,
    PREFIX,
)
from tests.fleet import article, reprint

MAX_KEY = 2**64 - 1


def members(rng: random.Random, clusters: int) -> dict[int, int]:
    """Sketch entries shaped like nshash's: per cluster up to 4 members of 33 entries, keys up to 2**64 - 1."""
    entries: dict[int, int] = {}
    for cluster in [0, MAX_KEY >> 8, *(rng.getrandbits(56) for _ in range(clusters))]:
        for member in range(rng.randint(1, 4)):
            base = cluster << 8 | member << 6
            entries.update({base | part: rng.randrange(-(2**63), 2**63) for part in range(33)})
    return entries


def write_entry_layout(path: Path, sketch: dict[int, int], fp: dict[int, int], format_: bytes | None) -> None:
    """A store as nshash wrote it before blocks: a sketch entry a record (prefix ``k``), 8-byte values."""
    db = plyvel.DB(str(path), create_if_missing=True)
    with db.write_batch() as batch:
        for key, value in sketch.items():
            batch.put(b"k" + struct.pack(">Q", key), struct.pack(">q", value))
        for key, value in fp.items():
            batch.put(b"f" + struct.pack(">Q", key), struct.pack(">q", value))
        if format_ is None:  # an nshash from before the format marker: its options tell it is an index
            batch.put(b"moptions", b"{}")
        else:
            batch.put(FORMAT_KEY, format_)
    db.close()


def test_a_block_record_round_trips_and_a_damaged_one_is_refused() -> None:
    entries = {0: -1, 5: 2**63 - 1, 32: -(2**63), 63: 0}
    raw = encode_block(entries)
    assert len(raw) == 8 + 8 * len(entries)
    assert decode_block(raw, "here") == entries
    assert decode_block(encode_block({}), "here") == {}
    with pytest.raises(StoreCorruptError, match="here: a sketch block of 3 bytes"):
        decode_block(b"abc", "here")
    with pytest.raises(StoreCorruptError, match="here: a sketch block of 32 bytes"):
        decode_block(raw[:-8], "here")


@pytest.mark.parametrize("format_", [*ENTRY_FORMATS, None], ids=["format 1", "format 2", "no marker"])
def test_a_store_of_the_layout_before_is_converted_on_open_and_loses_nothing(tmp_path: Path, format_: bytes) -> None:
    rng = random.Random(3)
    sketch = members(rng, 300)
    fp = {rng.getrandbits(64): rng.randrange(1, 2**31) for _ in range(200)}
    path = tmp_path / "news.hashdb"
    write_entry_layout(path, sketch, fp, format_)
    with nshash.HashDBLeveldb(path) as store:
        keys = list(sketch)
        rng.shuffle(keys)
        assert store.get_many("sketch", keys) == [sketch[key] for key in keys]
        assert store.get_many("fp", list(fp)) == list(fp.values())
        assert store.count("sketch") == len(sketch)
    raw = plyvel.DB(str(path))
    assert next(raw.iterator(prefix=b"k"), None) is None  # every entry moved into its block
    assert raw.get(FORMAT_KEY) in (FORMAT, FORMAT_FILTERED)  # which older nshash refuses
    assert len(list(raw.iterator(prefix=PREFIX["sketch"]))) == len({key >> 6 for key in sketch})
    raw.close()


def test_a_conversion_killed_halfway_goes_on_at_the_next_open(tmp_path: Path) -> None:
    rng = random.Random(4)
    sketch = members(rng, 200)
    path = tmp_path / "news.hashdb"
    write_entry_layout(path, sketch, {}, ENTRY_FORMATS[0])
    # What a kill between two of the conversion's batches leaves: some blocks moved whole, the rest not.
    blocks = sorted({key >> 6 for key in sketch})
    moved = set(blocks[: len(blocks) // 3])
    db = plyvel.DB(str(path))
    with db.write_batch() as batch:
        for block in moved:
            mine = {key & 63: value for key, value in sketch.items() if key >> 6 == block}
            batch.put(PREFIX["sketch"] + struct.pack(">Q", block), encode_block(mine))
            for index in mine:
                batch.delete(b"k" + struct.pack(">Q", block << 6 | index))
    db.close()
    with nshash.HashDBLeveldb(path) as store:
        assert store.get_many("sketch", list(sketch)) == list(sketch.values())
        assert store.count("sketch") == len(sketch)


def test_an_index_keeps_its_members_in_blocks_and_finds_its_articles_again(tmp_path: Path) -> None:
    """An index written in blocks from the start: its members read back, so its copies still join."""
    rng = random.Random(1)
    story = article(rng)
    name = str(tmp_path / "news")
    with nshash.NSHash(name=name, hashdb="leveldb") as nsh:
        first = nsh.get_similar(story)
    raw = plyvel.DB(name + ".hashdb")
    assert raw.get(FORMAT_KEY) == FORMAT_FILTERED
    assert next(raw.iterator(prefix=b"k"), None) is None and next(raw.iterator(prefix=PREFIX["sketch"]), None)
    raw.close()
    with nshash.NSHash(name=name, hashdb="leveldb") as nsh:
        assert nsh.get_similar(reprint(story, "edited", rng)) == first


def test_a_damaged_block_is_reported_not_read_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "news.hashdb"
    with nshash.HashDBLeveldb(path) as store:
        store.put_many("sketch", [(7 << 6 | part, part) for part in range(33)])
    db = plyvel.DB(str(path))
    db.put(PREFIX["sketch"] + struct.pack(">Q", 7), b"\x00" * 20)
    db.close()
    with nshash.HashDBLeveldb(path) as store, pytest.raises(StoreCorruptError, match="sketch block of 20 bytes"):
        store.get_many("sketch", [7 << 6])


def test_new_whole_members_are_written_as_the_general_merge_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nshash.stores.leveldb_view import LeveldbTransaction

    rng = random.Random(5)
    by_block: dict[int, list[tuple[int, int]]] = {}
    for key, value in members(rng, 40).items():
        by_block.setdefault(key >> 6, []).append((key, value))
    blocks = list(by_block.values())
    whole = [pair for block in blocks[:30] for pair in block]  # 30 whole new members: the fast way
    rest = [pair for block in blocks[30:] for pair in block]
    for pairs in (whole, rest):
        rng.shuffle(pairs)  # as a table hands them over: in no order
    calls = [
        whole,
        rest[:50],  # members cut short: the general way
        rest[50:],  # the rest of them, merged into what the call before wrote
        whole[:33],  # 33 entries, but of several members, some stored: the general way
        [(key, value + 1) for key, value in sorted(blocks[0])],  # a whole member rewritten: it is stored
    ]
    original = LeveldbTransaction._new_members
    dumps, fast_calls = [], []
    for fast in (True, False):
        with monkeypatch.context() as patch:
            patch.setattr(
                LeveldbTransaction,
                "_new_members",
                (lambda view, pairs: fast_calls.append(original(view, pairs)) or fast_calls[-1])
                if fast
                else (lambda view, pairs: False),
            )
            with nshash.HashDBLeveldb(tmp_path / f"{fast}.hashdb") as store:
                for pairs in calls:
                    store.put_many("sketch", pairs)
                dumps.append({key: value for key, value in store._db.iterator() if key.startswith(PREFIX["sketch"])})
                expected = dict(pair for block in blocks for pair in block) | dict(calls[-1])
                assert store.get_many("sketch", list(expected)) == list(expected.values())
    assert dumps[0] == dumps[1] and len(dumps[0]) == len(blocks)
    assert fast_calls == [True, False, False, False, False]


def test_a_page_that_becomes_a_member_writes_one_record_the_fast_way(tmp_path: Path) -> None:
    from nshash.stores.leveldb_view import LeveldbTransaction

    calls: list[bool] = []
    original = LeveldbTransaction._new_members

    def counted(view: LeveldbTransaction, pairs: list[tuple[int, int]]) -> bool:
        calls.append(original(view, pairs))
        return calls[-1]

    LeveldbTransaction._new_members = counted  # type: ignore[method-assign]
    try:
        with nshash.HashDBLeveldb(tmp_path / "m.hashdb") as store:
            nsh = nshash.NSHash(hashdb=store)
            rng = random.Random(3)
            for text in [article(rng) for _ in range(20)]:
                nsh.get_similar(text)
            assert store.count("sketch") == 20 * 33
    finally:
        LeveldbTransaction._new_members = original  # type: ignore[method-assign]
    assert calls and all(calls)
