"""StoreView: what an algorithm reads and writes through, and the checks every store applies.

Inside ``store.transaction(func)`` an algorithm sees only a :class:`StoreView`:
the memory store passes itself, LevelDB a buffer committed as one write
batch, Redis a WATCH/MULTI view, and an index may wrap any of them
(:mod:`nshash.views`).  A new backend implements the protocol once, in its
store class (:class:`~nshash.stores.base.HashDB`) and, if its transactions need
one, in a view class deriving from :class:`ViewBase`.

The rules for what a store accepts live here, once: the table names, and keys
that are unsigned 64-bit ints with values that are signed 64-bit ints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, Protocol

from nshash.errors import ArgumentError, ArgumentTypeError

#: Tables the algorithms use; a store must accept exactly these names.
#: ``bkt``/``slot`` hold SimHash's and Shingles' candidate buckets
#: (:mod:`nshash.buckets`), ``sig`` the words of Shingles' signatures,
#: ``sketch`` NSHash's verification sketches (:mod:`nshash.sketch`), ``key``,
#: ``undo`` and ``ref`` the user keys of ``add(doc, key=...)`` (:mod:`nshash.keys`),
#: ``line`` the clusters NSHash saw each page line in (:mod:`nshash.boilerplate`).
TABLES: Final = ("fp", "parent", "stat", "bkt", "slot", "sig", "sketch", "key", "undo", "ref", "line")

#: Keys are unsigned 64-bit ints: 0 .. MAX_KEY.
MAX_KEY: Final = 2**64 - 1
#: Values are signed 64-bit ints: MIN_VALUE .. MAX_VALUE.
MIN_VALUE: Final = -(2**63)
MAX_VALUE: Final = 2**63 - 1


class StoreView(Protocol):
    """What the algorithms use of a store, inside or outside a transaction."""

    def get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        """Values of ``keys`` in ``table`` (``None`` where absent), in order."""
        ...

    def put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        """Set ``key -> value`` for every pair in ``table``."""
        ...

    def delete_many(self, table: str, keys: Sequence[int]) -> None:
        """Remove ``keys`` from ``table`` (absent ones are ignored)."""
        ...

    def get_meta(self, key: str) -> str | None:
        """A metadata value, or ``None``."""
        ...

    def set_meta(self, key: str, value: str) -> None:
        """Set a metadata value."""
        ...

    def allocate_id(self) -> int:
        """A cluster id never handed out before (1, 2, 3, ...)."""
        ...

    def count(self, table: str) -> int:
        """Number of keys in ``table`` (as committed)."""
        ...

    def get(self, table: str, key: int) -> int | None:
        """Value of one key, or ``None``."""
        ...

    def put(self, table: str, key: int, value: int) -> None:
        """Set one key."""
        ...


class ViewBase:
    """The single-key forms, derived from the batch forms a view implements."""

    def get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        raise NotImplementedError

    def put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        raise NotImplementedError

    def get(self, table: str, key: int) -> int | None:
        """Value of one key, or ``None``."""
        return self.get_many(table, [key])[0]

    def put(self, table: str, key: int, value: int) -> None:
        """Set one key."""
        self.put_many(table, [(key, value)])


def check_table(table: str) -> None:
    """Reject a table name the protocol does not define.

    Raises:
        ArgumentError: an unknown table (a ``ValueError``).
    """
    if table not in TABLES:
        raise ArgumentError(f"unknown table {table!r}; tables are {', '.join(TABLES)}")


def check_keys(keys: Sequence[int]) -> None:
    """Reject keys that are not unsigned 64-bit ints, the same way in every backend.

    Raises:
        ArgumentError: a key below 0 or above 2**64 - 1 (a ``ValueError``).
        ArgumentTypeError: a key that is not a number (a ``TypeError``).
    """
    if not len(keys):
        return
    # min/max run in C: this is on every document's path.
    try:
        low, high = min(keys), max(keys)
        if low >= 0 and high <= MAX_KEY:
            return
    except TypeError:
        raise ArgumentTypeError(f"store keys are unsigned 64-bit ints, got {list(keys)[:5]!r}") from None
    bad = low if low < 0 else high
    raise ArgumentError(f"store keys are unsigned 64-bit ints (0 to 2**64 - 1), got {bad!r}")


def check_items(items: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """``items`` as a list, after checking its keys (:func:`check_keys`) and values (signed 64-bit ints).

    Raises:
        ArgumentError: a key or value out of range (a ``ValueError``).
        ArgumentTypeError: a key or value that is not a number (a ``TypeError``).
    """
    pairs = items if isinstance(items, list) else list(items)
    if not pairs:
        return pairs
    check_keys([key for key, _ in pairs])
    values = [value for _, value in pairs]
    try:
        low, high = min(values), max(values)
        if low >= MIN_VALUE and high <= MAX_VALUE:
            return pairs
    except TypeError:
        raise ArgumentTypeError(f"store values are signed 64-bit ints, got {values[:5]!r}") from None
    bad = low if low < MIN_VALUE else high
    raise ArgumentError(f"store values are signed 64-bit ints (-2**63 to 2**63 - 1), got {bad!r}")
