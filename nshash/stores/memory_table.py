"""The memory store's tables: the C accelerator's flat ``Table``, or a dict with the same methods.

A dict of ints takes ~100 bytes an entry; ``nshash._speedups.Table``
(``nshash/_inttable.h``) keeps keys, values and one occupancy bit a slot in
flat arrays (12 to 16 bytes an entry, over the load factor), and
``nshash._speedups.Blocks`` (``nshash/_blocks.h``), the ``sketch`` table, keeps
a cluster member's 33 words in one block.  Which is used is decided where
nshash decides C or Python (:mod:`nshash._accel`): ``NSHASH_NO_SPEEDUPS=1``
gives dicts.  All behave the same, as tested.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

from nshash._accel import speedups


class IntTable(Protocol):
    """What the memory store uses of a table of unsigned 64-bit keys to signed 64-bit values."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[int]: ...

    def __contains__(self, key: object, /) -> bool: ...

    def get(self, key: int, /) -> int | None: ...

    def get_many(self, keys: Sequence[int], /) -> list[int | None]: ...

    def put_many(self, pairs: Iterable[tuple[int, int]], /) -> None: ...

    def delete_many(self, keys: Sequence[int], /) -> list[int]: ...

    def items(self) -> Iterable[tuple[int, int]]: ...

    def to_arrays(self) -> tuple[array[int], array[int]]: ...


class DictTable(dict[int, int]):
    """The pure-Python table: a dict with the C table's batch methods."""

    def get_many(self, keys: Sequence[int], /) -> list[int | None]:
        """Each key's value, ``None`` where absent."""
        return list(map(self.get, keys))

    def put_many(self, pairs: Iterable[tuple[int, int]], /) -> None:
        """Set ``key -> value`` for each pair."""
        self.update(pairs)

    def delete_many(self, keys: Sequence[int], /) -> list[int]:
        """Remove ``keys``; the ones that were there, in order."""
        pop = self.pop
        return [key for key in keys if pop(key, None) is not None]

    def to_arrays(self) -> tuple[array[int], array[int]]:
        """Keys as ``array('Q')``, values as ``array('i')`` when they all fit (as the C table does), else ``'q'``."""
        try:
            values = array("i", self.values())
        except OverflowError:
            values = array("q", self.values())
        return array("Q", self.keys()), values


#: Whether tables refuse keys and values outside their ranges themselves (the C
#: table does, before it changes anything; a dict takes any int).
CHECKING_TABLES = speedups is not None


#: The table whose keys come in blocks of a cluster member's words (``nshash.members.entry_keys``):
#: in C a ``Blocks``, which keeps each member's 33 words together (280 bytes instead of ~890).
BLOCKED = "sketch"


def _c_type(name: str | None) -> Any:
    assert speedups is not None
    return speedups.Blocks if name == BLOCKED else speedups.Table


def new_table(name: str | None = None) -> IntTable:
    """An empty table for the store's table ``name``: C when the accelerator is there, else a :class:`DictTable`."""
    if speedups is not None:
        table: IntTable = _c_type(name)()
        return table
    return DictTable()


def table_from_arrays(keys: Sequence[int], values: Sequence[int], name: str | None = None) -> IntTable:
    """A table of ``keys[i] -> values[i]``: native buffers (``'Q'`` keys, ``'q'``/``'i'`` values) for C.

    The caller gives as many keys as values.  A key given twice: the C table
    raises ``ValueError``, the dict keeps the last value (the caller compares lengths).

    Raises:
        ValueError: (C) a key given twice, or not as many keys as values.
        TypeError: (C) buffers of other types.
    """
    if speedups is not None:
        table: IntTable = _c_type(name)(keys, values)
        return table
    # Equal values share one int object, as in a store built by writes (ids repeat).
    shared: dict[int, int] = {}
    return DictTable(zip(keys, [shared.setdefault(value, value) for value in values]))


def table_from_dict(pairs: dict[int, int], name: str | None = None) -> IntTable:
    """A table holding a dict's pairs (checked already, as by :func:`~.memory_format.check_table`)."""
    if speedups is not None:
        return table_from_arrays(array("Q", pairs.keys()), array("q", pairs.values()), name)
    shared: dict[int, int] = {}
    return DictTable({key: shared.setdefault(value, value) for key, value in pairs.items()})
