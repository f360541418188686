"""HashDBMemory: dicts in memory, pickled atomically to ``<name>.hashdb.pkl``."""

from __future__ import annotations

import atexit
import io
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from nshash.errors import StoreCorruptError, StoreError, StoreLockedError
from nshash.stores.base import TABLES, HashDB

T = TypeVar("T")

_FORMAT = "nshash.hashdb.memory"
_VERSION = 1
_IDS_FORMAT = "nshash-ids-1"
# Ids reserved on disk at a time: one small fsync per this many new clusters.
_ID_BLOCK = 1024

# Stores still open at interpreter exit are saved then: crawler scripts that
# never call close() must not lose their index (the original relied on __del__,
# which is not guaranteed to run).
# A strong set: an index dropped without close() must still be saved at exit.
_OPEN_STORES: set[HashDBMemory] = set()


@atexit.register
def _save_open_stores() -> None:
    for store in list(_OPEN_STORES):
        store.close()


class _DataOnlyUnpickler(pickle.Unpickler):
    """Loads plain dicts/ints/strs only: a foreign pickle cannot run code."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")


class HashDBMemory(HashDB):
    """In-memory store, optionally persisted to one pickle file.

    Args:
        path: file to load from and save to; ``None`` keeps everything in memory only.
        save_every: also save after every ``save_every`` documents (bounds what a
            crash can lose); ``None`` saves only on :meth:`save`, :meth:`close`
            and at interpreter exit.

    Raises:
        StoreCorruptError: ``path`` exists but is not a readable nshash store;
            the file is left untouched.
        StoreLockedError: another process has ``path`` open.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "news.hashdb.pkl")
        >>> with HashDBMemory(path) as db:
        ...     db.put_many("fp", [(42, 1)])
        >>> HashDBMemory(path).get_many("fp", [42])
        [1]
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, save_every: int | None = None) -> None:
        super().__init__()
        if save_every is not None and (not isinstance(save_every, int) or save_every < 1):
            raise ValueError(f"save_every must be a positive int or None, not {save_every!r}")
        self.path = Path(path) if path is not None else None
        self.save_every = save_every
        self._tables: dict[str, dict[int, int]] = {table: {} for table in TABLES}
        self._meta: dict[str, str] = {}
        self._next_id = 1
        # Ids below this may have been handed out: it is on disk before they are.
        self._reserved = 1
        self._writes_since_save = 0
        self._lock_file: io.BufferedWriter | None = None
        if self.path is not None:
            self._lock_file = _lock_exclusive(self.path)
            try:
                if self.path.exists():
                    self._load(self.path)
                # After a crash the file lags behind the ids already handed out;
                # the reservation does not, so no id is ever given out twice.
                self._reserved = max(self._next_id, _read_reservation(self.path))
                self._next_id = self._reserved
            except BaseException:
                self._lock_file.close()
                raise
            _OPEN_STORES.add(self)

    # -- protocol ------------------------------------------------------------
    def _get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        get = self._tables[table].get
        return [get(key) for key in keys]

    def _put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        self._tables[table].update(items)

    def _get_meta(self, key: str) -> str | None:
        return self._meta.get(key)

    def _set_meta(self, key: str, value: str) -> None:
        self._meta[key] = value

    def _allocate_id(self) -> int:
        new_id = self._next_id
        if self.path is not None and new_id >= self._reserved:
            self._write_reservation(new_id + _ID_BLOCK)
        self._next_id += 1
        return new_id

    def _count(self, table: str) -> int:
        return len(self._tables[table])

    def highest_id(self) -> int:
        self._check_open()
        return self._next_id - 1

    def local_tables(self) -> dict[str, dict[int, int]] | None:
        # A subclass that changes how tables are read or written must be called, not bypassed.
        cls = type(self)
        if cls._get_many is not HashDBMemory._get_many or cls._put_many is not HashDBMemory._put_many:
            return None
        return self._tables

    def transaction(self, func: Callable[[HashDB], T]) -> T:
        # The base class's, inlined: this is on every document's path.
        if self._closed:
            self._check_open()
        with self._lock:
            result = func(self)
        if self.save_every is not None:
            self._writes_since_save += 1
            if self._writes_since_save >= self.save_every:
                self.save()
        return result

    # -- persistence ---------------------------------------------------------
    def save(self) -> None:
        """Write the store to its file atomically (temp file, fsync, rename).

        A crash at any moment leaves either the previous or the new file, never
        a torn one.  Does nothing for a store without a path.
        """
        self._check_open()
        if self.path is None:
            return
        with self._lock:
            state = {
                "format": _FORMAT,
                "version": _VERSION,
                "meta": self._meta,
                "next_id": self._next_id,
                "tables": self._tables,
            }
            _write_atomically(self.path, lambda handle: pickle.dump(state, handle, protocol=pickle.HIGHEST_PROTOCOL))
            # Saved exactly: a clean reopen continues at the next id, without a gap.
            self._write_reservation(self._next_id)
            self._writes_since_save = 0

    def flush(self) -> None:
        self.save()

    def _write_reservation(self, next_id: int) -> None:
        """Record on disk that ids below ``next_id`` may be in use (one fsync per block of ids)."""
        if self.path is not None:
            _write_reservation(self.path, next_id)
        self._reserved = next_id

    def _release(self) -> None:
        _OPEN_STORES.discard(self)
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def _load(self, path: Path) -> None:
        try:
            with open(path, "rb") as handle:
                state = _DataOnlyUnpickler(handle).load()
        except OSError as exc:
            raise StoreCorruptError(f"cannot read nshash store {str(path)!r}: {exc}") from exc
        except Exception as exc:  # any unpickling failure means the file is not ours
            raise StoreCorruptError(
                f"{str(path)!r} is not a readable nshash memory store ({type(exc).__name__}: {exc}); "
                "it was left untouched: move it away or pass another name"
            ) from exc
        if not isinstance(state, dict) or state.get("format") != _FORMAT:
            raise StoreCorruptError(f"{str(path)!r} is not an nshash memory store; it was left untouched")
        if state.get("version") != _VERSION:
            raise StoreCorruptError(
                f"{str(path)!r} has store format version {state.get('version')!r}; this nshash reads {_VERSION}"
            )
        try:
            tables = state["tables"]
            self._meta = dict(state["meta"])
            self._next_id = int(state["next_id"])
            # Pickle writes each value int separately; share equal ones again so a
            # reloaded store is as small as a freshly built one.
            shared: dict[int, int] = {}
            self._tables = {
                # .get: a store saved before a table existed simply has none of it.
                table: {key: shared.setdefault(value, value) for key, value in tables.get(table, {}).items()}
                for table in TABLES
            }
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StoreCorruptError(f"{str(path)!r} is a damaged nshash memory store: {exc!r}") from exc

    def describe(self) -> str:
        return f"HashDBMemory({str(self.path) if self.path else 'in memory'})"

    def size_bytes(self) -> int | None:
        if self.path is not None and self.path.exists():
            return self.path.stat().st_size
        return None


def _lock_exclusive(path: Path) -> io.BufferedWriter:
    """Hold an advisory lock beside ``path`` so two processes never share the file."""
    import fcntl

    lock_path = path.with_name(path.name + ".lock")
    try:
        handle = open(lock_path, "ab")  # noqa: SIM115 - held until close()
    except OSError as exc:  # no such directory, not a directory, no permission
        raise StoreError(f"cannot open nshash store {str(path)!r}: {exc.strerror or exc}") from exc
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise StoreLockedError(
            f"nshash store {str(path)!r} is already open (in another process or another store object); "
            "close that one first"
        ) from None
    return handle


def _reservation_path(path: Path) -> Path:
    return path.with_name(path.name + ".ids")


def _write_reservation(path: Path, next_id: int) -> None:
    text = f"{_IDS_FORMAT}\n{next_id}\n".encode()
    _write_atomically(_reservation_path(path), lambda handle: handle.write(text))


def _read_reservation(path: Path) -> int:
    """The id the store's reservation file says is free, 1 when there is none."""
    ids_path = _reservation_path(path)
    if not ids_path.exists():
        return 1
    try:
        header, value = ids_path.read_text(encoding="utf-8").split()
        if header != _IDS_FORMAT:
            raise ValueError(f"unknown header {header!r}")
        return int(value)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise StoreCorruptError(
            f"{str(ids_path)!r} (the id reservation of {str(path)!r}) is unreadable: {exc}; it was left untouched"
        ) from exc


def _write_atomically(path: Path, write: Callable[[Any], object]) -> None:
    """Replace ``path`` with what ``write(handle)`` writes: temp file, fsync, rename, fsync dir.

    A crash at any moment leaves either the old or the new file, never a torn one.
    """
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    # The rename is durable only once the directory entry is on disk.
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
