"""Format 3 of the Redis store: its ``sketch`` table kept a block a field, as a view sees it.

A view reads and writes the ``sketch`` table's entries as every store's view
does (int -> int); :class:`SketchBlocks` loads the block of each entry asked
(read, or guessed on a first attempt: :mod:`.redis_view`) and, at commit,
turns the entries written into whole blocks, each written on the value it
was loaded with (see :mod:`.redis_layout` for the layout).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from nshash.members import SKETCH
from nshash.stores.blocks import BLOCK_BITS, IN_BLOCK
from nshash.stores.redis_layout import BLOCKS, Keys, count_field, decode_value, encode_value
from nshash.stores.redis_scripts import Program, write_fields
from nshash.stores.view import check_keys

if TYPE_CHECKING:
    from nshash.stores.redis import HashDBRedis

# Where a format 3 index counts its sketch blocks (the entries are counted in count:sketch).
BLOCK_COUNT = count_field(BLOCKS)


class SketchBlocks:
    """The sketch blocks of one transaction's view (inert unless the index is of format 3)."""

    _store: HashDBRedis
    _keys: Keys
    _values: dict[tuple[str, int], int | None]
    _writes: dict[str, dict[int, int | None]]

    def _init_blocks(self, keys: Keys) -> None:
        # Each block's entries as read or guessed, and its field's value then (None: absent), which its
        # write is based on; at commit, the blocks written and their values.
        self._blocked = keys.blocks
        self._bases: dict[int, dict[int, int]] = {}
        self._raws: dict[int, str | None] = {}
        self._blocks_out: dict[int, str | None] = {}
        self._sizes_out: dict[int, int] = {}  # entries in each of them

    def _load_blocks(self, blocks: list[int]) -> None:
        """Read (or guess) ``blocks``, none of them loaded yet, into :meth:`_set_block`."""
        raise NotImplementedError

    def _load(self, keys: Iterable[int], *, writing: bool = False) -> None:
        bases = self._bases
        wanted = [block for block in dict.fromkeys(key >> BLOCK_BITS for key in keys) if block not in bases]
        if wanted:
            (self._assume_blocks if writing else self._load_blocks)(wanted)

    def _assume_blocks(self, blocks: list[int]) -> None:
        """Blocks to be written without having been read: as :meth:`_load_blocks` unless a view can do better."""
        self._load_blocks(blocks)

    def _set_block(self, block: int, value: int | str | None) -> None:
        """``block`` as read, guessed or remembered: its field's value (a str; ``None``: absent)."""
        raw = value if isinstance(value, str) else None  # a block's value is never an int
        self._raws[block] = raw
        self._bases[block] = {} if raw is None else decode_value(raw, self._store.describe())

    def _set_remembered(self, block: int) -> str | None:
        """``block`` as this client last saw it (``None``: never, or forgotten: absent), for a guess."""
        self._set_block(block, self._store._known.get((BLOCKS, block)))
        return self._raws[block]

    def _get_sketch(self, keys: Sequence[int]) -> list[int | None]:
        check_keys(keys)
        self._load(keys)
        values, bases = self._values, self._bases
        out = [
            values[SKETCH, key] if (SKETCH, key) in values else bases[key >> BLOCK_BITS].get(key & IN_BLOCK)
            for key in keys
        ]
        raws = self._raws
        for key, value in zip(keys, out):
            if value is None and raws[key >> BLOCK_BITS] is not None and (SKETCH, key) not in values:
                self._read_absent(key >> BLOCK_BITS)
        return out

    def _read_absent(self, block: int) -> None:
        """A key absent from a block that is there was read (a guess checks the block: another client may
        have added the key; a member's entries, all written at once, are never read so)."""

    def _block_changes(self) -> dict[int, str | None]:
        """The blocks the sketch writes change, and each one's new value (``None``: no entry left)."""
        changed: dict[int, dict[int, int]] = {}
        for key, value in self._writes.get(SKETCH, {}).items():
            block = key >> BLOCK_BITS
            entries = changed.get(block)
            if entries is None:
                entries = changed[block] = dict(self._bases[block])
            if value is None:
                entries.pop(key & IN_BLOCK, None)
            else:
                entries[key & IN_BLOCK] = value
        out = {}
        self._sizes_out = {}
        for block, entries in changed.items():
            raw = encode_value(entries) if entries else None
            if raw != self._raws[block]:
                out[block] = raw
                self._sizes_out[block] = len(entries)
        return out

    def _add_block_writes(self, program: Program) -> None:
        """The changed blocks as HSETs (and HDELs of emptied ones), and the change in the entries' count."""
        placed = ((*self._keys.locate_block(block), raw) for block, raw in self._blocks_out.items())
        write_fields(program, placed, BLOCK_COUNT)
        added = sum(self._sizes_out.values()) - sum(len(self._bases[block]) for block in self._blocks_out)
        if added:
            program.command(("HINCRBY", self._keys.store, count_field(SKETCH), added))
