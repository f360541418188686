"""HashDB: the base class of every store (the protocol itself is :class:`~nshash.stores.view.StoreView`).

A store maps unsigned 64-bit ``int`` keys to ``int`` values in a few named
tables, keeps a small ``str -> str`` metadata map, and hands out cluster ids.
The algorithms own the meaning and encoding of everything in it; a store only
keeps it.  A new backend writes six methods, ``_get_many``, ``_put_many``, ``_get_meta``,
``_set_meta``, ``_allocate_id`` and ``_count``; the public ones check that the
store is open and the table exists before calling them.  See the README
("Your own store") for a 30-line example.
"""

from __future__ import annotations

import os
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import ClassVar, NoReturn, TypeVar

from nshash.errors import ArgumentTypeError, StoreClosedError, StoreError, StoreForkedError
from nshash.stores.view import TABLES, StoreView, ViewBase, check_items, check_keys, check_table

T = TypeVar("T")


class HashDB(ViewBase, ABC):
    """Base class of the key-value stores behind every nshash index.

    A store is a :class:`~nshash.stores.view.StoreView`.  Subclasses implement
    the abstract ``_``-methods; the argument checks (open, table, key ranges),
    ``close()``, the context manager, ``get``/``put`` and the default
    :meth:`transaction` come from here.

    Example:
        >>> from nshash import HashDBMemory
        >>> with HashDBMemory() as db:
        ...     db.put_many("fp", [(7, 1)])
        ...     db.get_many("fp", [7, 8])
        [1, None]
    """

    #: Whether a child forked after opening may go on using the store.  A store
    #: whose state lives in this process (dicts, a LevelDB handle) is not: parent
    #: and child would hand out the same ids and overwrite each other's files.
    #: A store that reconnects to a shared server after a fork sets it (Redis).
    fork_safe: ClassVar[bool] = False

    #: Whether an index may decide a chunk of documents (``get_similar_many``,
    #: batch, Dask) in one transaction.  A store a fleet shares (Redis) commits
    #: a document at a time: a chunk's transaction would hold the other clients
    #: up, and be run again whole after a conflict.
    chunk_transactions: ClassVar[bool] = True

    #: Whether NSHash's C decision may run on a cache read through this store's
    #: transaction views (which then say so too): :class:`nshash.native.ReadThrough`.
    reads_through: ClassVar[bool] = False

    def __init__(self) -> None:
        self._closed = False
        self._forked = False
        self._opened_pid = os.getpid()
        # Reentrant so that a transaction may call the store's own methods.
        self._lock = threading.RLock()
        if not self.fork_safe:
            _IN_THIS_PROCESS.add(self)

    # -- what a backend implements (called only while open, with a valid table) --
    @abstractmethod
    def _get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        """Values of ``keys`` in ``table`` (``None`` where absent), in order."""

    @abstractmethod
    def _put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        """Set ``key -> value`` for every pair in ``table``."""

    @abstractmethod
    def _get_meta(self, key: str) -> str | None:
        """A metadata value, or ``None``."""

    @abstractmethod
    def _set_meta(self, key: str, value: str) -> None:
        """Set a metadata value."""

    @abstractmethod
    def _allocate_id(self) -> int:
        """A cluster id never handed out before by this store (1, 2, 3, ...)."""

    @abstractmethod
    def _count(self, table: str) -> int:
        """Number of keys in ``table``."""

    # -- the public protocol: checks, then the backend --------------------------
    def get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        """Values of ``keys`` in ``table`` (``None`` where absent), in order."""
        # Checks inlined: this is on every document's path.
        if self._closed or table not in TABLES:
            self._check_open()
            check_table(table)
        check_keys(keys)
        return self._get_many(table, keys)

    def put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        """Set ``key -> value`` for every pair in ``table``."""
        if self._closed or table not in TABLES:
            self._check_open()
            check_table(table)
        self._put_many(table, check_items(items))

    def delete_many(self, table: str, keys: Sequence[int]) -> None:
        """Remove ``keys`` from ``table`` (absent ones are ignored)."""
        self._check_open()
        check_table(table)
        check_keys(keys)
        self._delete_many(table, keys)

    def _delete_many(self, table: str, keys: Sequence[int]) -> None:
        """Remove keys; optional for a backend (only ``remove(key)`` needs it)."""
        raise StoreError(f"{self.describe()} cannot delete keys, so remove() is not available on it")

    def get_meta(self, key: str) -> str | None:
        """A metadata value (options, format version), or ``None``."""
        self._check_open()
        return self._get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        """Set a metadata value."""
        self._check_open()
        self._set_meta(key, value)

    def allocate_id(self) -> int:
        """A cluster id never handed out before by this store (1, 2, 3, ...)."""
        if self._closed:
            self._check_open()
        return self._allocate_id()

    def highest_id(self) -> int | None:
        """The highest cluster id handed out so far (0 for none), or ``None`` if this store cannot tell.

        Optional for a backend; an id returned later that is above it is new.
        """
        self._check_open()
        return None

    def count(self, table: str) -> int:
        """Number of keys in ``table``."""
        self._check_open()
        check_table(table)
        return self._count(table)

    def transaction(self, func: Callable[[StoreView], T]) -> T:
        """Run ``func(view)`` so that no other writer interleaves with it.

        ``func`` reads and writes through ``view``.  The default holds a
        process-local lock and lets ``func`` use the store itself; backends
        shared between processes override this (Redis retries ``func`` on a
        conflict, so ``func`` must have no side effects beyond the view).
        """
        self._check_open()
        with self._lock:
            return func(self)

    def flush(self) -> None:
        """Make everything written so far durable (a no-op where writes already are)."""
        self._check_open()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (in this process)."""
        return self._closed and not self._forked

    def close(self) -> None:
        """Flush and release the store; later use raises :class:`StoreClosedError`."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            self._release()

    def _release(self) -> None:
        """Free backend resources (file handles, locks, connections)."""

    def _check_open(self) -> None:
        if self._closed:
            if self._forked:
                raise StoreForkedError(
                    f"{self.describe()} was opened in process {self._opened_pid} and is used in process "
                    f"{os.getpid()}, forked from it: both would hand out the same ids and overwrite each "
                    "other's data.  Open the index after forking (in each worker, e.g. a Pool initializer), "
                    "or use hashdb='redis', which processes share"
                )
            raise StoreClosedError(f"{self.describe()} is closed")

    def _forked_off(self) -> None:
        """In a forked child: refuse every later call, and never flush or release the parent's data."""
        if not self._closed:
            self._forked = True
            # The fast paths test only _closed; close() then does nothing in the child.
            self._closed = True

    def describe(self) -> str:
        """Where the store keeps its data, for messages and ``nshash stats``."""
        return type(self).__name__

    def size_bytes(self) -> int | None:
        """Bytes the store's data takes on disk, when that is known."""
        return None

    def __repr__(self) -> str:
        try:
            where = self.describe()
        except AttributeError:  # a store whose __init__ failed before it knew where it is
            where = type(self).__name__
        return f"<{where}{' closed' if getattr(self, '_closed', False) else ''}>"

    def __reduce_ex__(self, protocol: object) -> NoReturn:
        # Without this, pickle fails on the lock with "cannot pickle '_thread.RLock' object", which names
        # neither the store nor what to do (a multiprocessing Pool handed an index's bound method).
        raise ArgumentTypeError(
            f"cannot pickle {self.describe()}: an open store belongs to the process that opened it; open it "
            "in each process instead (hashdb='redis' is one store several processes share)"
        )

    def __enter__(self: HashDBT) -> HashDBT:
        self._check_open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


HashDBT = TypeVar("HashDBT", bound=HashDB)

# Every open store that a forked child must not use; checked once per fork,
# so operations pay nothing for the check.
_IN_THIS_PROCESS: weakref.WeakSet[HashDB] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for store in list(_IN_THIS_PROCESS):
        store._forked_off()
    _IN_THIS_PROCESS.clear()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


__all__ = ["TABLES", "HashDB", "StoreView", "check_table"]
