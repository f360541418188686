"""HashDBMemory: dicts in memory, pickled atomically to ``<name>.hashdb.pkl``, with a log between saves.

Files of a store at ``news.hashdb.pkl``:

    news.hashdb.pkl        the tables as of the last save (header with a CRC-32, then a pickle)
    news.hashdb.pkl.log    writes acknowledged since that save, fsynced in groups (:mod:`.journal`)
    news.hashdb.pkl.ids    ids reserved ahead, so no id is handed out twice after a crash
    news.hashdb.pkl.lock   held while the store is open
"""

from __future__ import annotations

import atexit
import io
import itertools
import logging
import os
import pickle
import struct
import sys
import threading
import zlib
from array import array
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from nshash.errors import NSHashError, OptionError, StoreCorruptError, StoreWriteError
from nshash.migrate import check_07_name, refuse_07_memory
from nshash.stores.base import HashDB
from nshash.stores.files import (
    check_file_name,
    lock_exclusive,
    os_error,
    remove_stale_temp_files,
    write_atomically,
)
from nshash.stores.journal import Journal, read_log
from nshash.stores.view import MAX_KEY, MIN_VALUE, TABLES, StoreView

T = TypeVar("T")

_FORMAT = "nshash.hashdb.memory"
#: 2: a header with a checksum in front of the pickle, and a log generation.
_VERSION = 2
_MAGIC = b"NSHASHDB"
_FILE_HEADER = struct.Struct("<8sIQI")  # magic, version, payload length, crc32
_IDS_FORMAT = "nshash-ids-1"
# Ids reserved on disk at a time: one small fsync per this many new clusters.
_ID_BLOCK = 1024
# Tables the C accelerator writes directly (HashDB.local_tables): their changes
# are found at commit time instead of being recorded write by write.
_SHARED = ("fp", "parent", "stat")
# A log entry of deletions names its table with this prefix (no table name starts with it).
_DELETED = "-"

# Stores still open at interpreter exit are saved then: crawler scripts that
# never call close() must not lose their index (the original relied on __del__,
# which is not guaranteed to run).
# A strong set: an index dropped without close() must still be saved at exit.
_OPEN_STORES: set[HashDBMemory] = set()


@atexit.register
def _save_open_stores() -> None:
    failed = []
    for store in list(_OPEN_STORES):
        try:
            store.close()
        except Exception as exc:  # every store gets its chance to save
            failed.append(f"{store.describe()}: {exc}")
    if failed:
        # An exception in an exit handler is printed, yet the process exits 0:
        # a script's caller would believe the index was saved.
        sys.stderr.write(
            "nshash: ERROR: could not save at exit (the log keeps what was acknowledged up to the last "
            "group commit; it is replayed on the next open):\n  " + "\n  ".join(failed) + "\n"
        )
        if "logging" in sys.modules:
            logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)


class _DataOnlyUnpickler(pickle.Unpickler):
    """Loads plain dicts/ints/strs only: a foreign pickle cannot run code."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")


class HashDBMemory(HashDB):
    """In-memory store, optionally persisted to one file, with a log of what was acknowledged since.

    Args:
        path: file to load from and save to; ``None`` keeps everything in memory only.
        save_every: also save after every ``save_every`` documents; ``None`` saves only
            on :meth:`save`, :meth:`close` and at interpreter exit.
        log_interval: seconds between group commits of the log (each one write
            and one fsync, in a background thread).  A process killed (SIGKILL,
            SIGTERM, SIGHUP, a crash) loses at most the documents acknowledged in
            the last ``log_interval`` seconds; the log is replayed on the next open
            and folded into the file by the next save.  ``None`` keeps no log:
            a kill then loses everything since the last save.

    Raises:
        StoreCorruptError: ``path`` (or its log) exists but is not a readable
            nshash store, fails its checksum or holds invalid data; the files
            are left untouched.
        StoreLockedError: another process has ``path`` open.
        StoreNameError: ``path`` has an empty file name or one over 255 bytes.
        StoreWriteError: the disk refused a write (full, read-only); nothing saved before is lost.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "news.hashdb.pkl")
        >>> with HashDBMemory(path) as db:
        ...     db.put_many("fp", [(42, 1)])
        >>> HashDBMemory(path).get_many("fp", [42])
        [1]
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        save_every: int | None = None,
        log_interval: float | None = 1.0,
    ) -> None:
        super().__init__()
        if save_every is not None and (not isinstance(save_every, int) or save_every < 1):
            raise OptionError(f"save_every must be a positive int or None, not {save_every!r}")
        if log_interval is not None and (
            isinstance(log_interval, bool) or not isinstance(log_interval, (int, float)) or not log_interval > 0
        ):
            raise OptionError(f"log_interval must be a number of seconds > 0 or None, not {log_interval!r}")
        self.path = Path(path) if path is not None else None
        self.save_every = save_every
        self.log_interval = log_interval if self.path is not None else None
        self._tables: dict[str, dict[int, int]] = {table: {} for table in TABLES}
        self._meta: dict[str, str] = {}
        self._next_id = 1
        # Ids below this may have been handed out: it is on disk before they are.
        self._reserved = 1
        self._writes_since_save = 0
        self._lock_file: io.BufferedWriter | None = None
        # The log: writes since the last commit, and what the C path's direct writes are compared with.
        self._journal: Journal | None = None
        self._generation = 0
        self._pending: list[tuple[str, list[tuple[int, int]]]] = []
        self._pending_meta: dict[str, str] = {}
        self._shared = False
        self._logged_len: dict[str, int] = {}
        self._shadow: dict[str, dict[int, int]] = {}
        self._log_failure: BaseException | None = None
        self._logged_next_id = 1
        self._committer: threading.Thread | None = None
        self._stop = threading.Event()
        if self.path is not None:
            check_file_name(self.path, "HashDBMemory")
            self._lock_file = lock_exclusive(self.path, self.describe())
            try:
                self._open_files(self.path)
            except BaseException:
                self._lock_file.close()
                self._lock_file = None
                if self._journal is not None:
                    self._journal.close()
                raise
            _OPEN_STORES.add(self)
            if self.log_interval is not None:
                self._committer = threading.Thread(target=self._commit_periodically, daemon=True)
                self._committer.start()

    def _open_files(self, path: Path) -> None:
        # Ours alone now (the lock is held): a save killed half-way left these.
        remove_stale_temp_files(path)
        if path.exists():
            self._load(path)
        else:
            check_07_name(path)
        log_path = _log_path(path)
        found = read_log(log_path)
        if found is not None and found[0] == self._generation:
            for payload in found[1]:
                self._replay(payload, log_path)
            try:
                _check_acyclic(self._tables["parent"])
            except ValueError as exc:
                raise StoreCorruptError(f"the log {str(log_path)!r} is invalid ({exc}); it was left untouched") from exc
        elif found is not None and found[0] > self._generation:
            raise StoreCorruptError(
                f"the log {str(log_path)!r} extends a newer version of {str(path)!r} than the one found "
                "(was an older copy of the store file restored?); both were left untouched: move the log "
                "away to open the store file as it is"
            )
        # After a crash the file lags behind the ids already handed out;
        # the reservation does not, so no id is ever given out twice.
        self._reserved = max(self._next_id, _read_reservation(path))
        self._next_id = self._logged_next_id = self._reserved
        if self.log_interval is not None:
            try:
                # A log of an older generation is folded into the file already.
                keep = found[2] if found is not None and found[0] == self._generation else None
                self._journal = Journal(log_path, self._generation, keep)
            except OSError as exc:
                raise os_error(exc, self.describe(), "opening the log") from exc

    # -- protocol ------------------------------------------------------------
    def _get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        get = self._tables[table].get
        return [get(key) for key in keys]

    def _put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        if self._journal is None:
            self._tables[table].update(items)
            return
        pairs = list(items)
        with self._lock:
            self._tables[table].update(pairs)
            self._pending.append((table, pairs))

    def _delete_many(self, table: str, keys: Sequence[int]) -> None:
        with self._lock:
            pop = self._tables[table].pop
            gone = [(key, 0) for key in keys if pop(key, None) is not None]
            if self._journal is not None and gone:
                self._pending.append((_DELETED + table, gone))

    def _get_meta(self, key: str) -> str | None:
        return self._meta.get(key)

    def _set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._meta[key] = value
            self._pending_meta[key] = value

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
        if self._journal is not None and not self._shared:
            with self._lock:
                # From now on the C path writes these dicts directly, unseen by
                # _put_many: commits find new keys at the end of each dict (a dict
                # keeps insertion order and this store never deletes) and changed
                # ones by comparing with a copy (see _changes).
                self._shared = True
                self._logged_len = {table: len(self._tables[table]) for table in _SHARED}
                self._shadow = {table: dict(self._tables[table]) for table in ("parent", "stat")}
        return self._tables

    def transaction(self, func: Callable[[StoreView], T]) -> T:
        # The base class's, inlined: this is on every document's path.
        if self._closed or self._log_failure is not None:
            self._check_open()
        with self._lock:
            result = func(self)
        if self.save_every is not None:
            self._writes_since_save += 1
            if self._writes_since_save >= self.save_every:
                self.save()
        return result

    def _check_open(self) -> None:
        super()._check_open()
        if self._log_failure is not None:
            failure = self._log_failure
            raise StoreWriteError(
                f"{self.describe()}: the log could not be written ({failure}); what was acknowledged "
                "since is not durable: free disk space, then close() or save() the store"
            ) from failure

    # -- the log -----------------------------------------------------------------
    def _commit_periodically(self) -> None:
        assert self.log_interval is not None
        while not self._stop.wait(self.log_interval):
            try:
                self.commit()
            except Exception as exc:  # reported by the next call of the thread that uses the store
                self._log_failure = exc.__cause__ or exc
                return

    def commit(self) -> None:
        """Append what changed since the last commit to the log and fsync it (a group commit).

        Runs every ``log_interval`` seconds by itself; call it to make the
        documents acknowledged so far durable now.  A no-op without a log.

        Raises:
            StoreWriteError: the disk refused the write; the log is left as it was.
        """
        if self._journal is None or self._closed:
            return
        with self._lock:
            journal = self._journal
            if journal is None:
                return
            payload = self._changes()
            if payload is None:
                return
            try:
                journal.append(payload)
            except OSError as exc:
                raise os_error(exc, self.describe(), "writing the log", "Nothing logged before is lost.") from exc

    def _changes(self) -> bytes | None:
        """The writes since the last call, as one log frame (``None`` if there were none)."""
        pending, self._pending = self._pending, []
        meta, self._pending_meta = self._pending_meta, {}
        entries: list[tuple[str, list[tuple[int, int]]]] = list(pending)
        if self._shared:
            tables = self._tables
            for table in _SHARED:
                current = tables[table]
                new = len(current) - self._logged_len[table]
                if new:
                    entries.append((table, list(itertools.islice(reversed(current.items()), new))))
                    self._logged_len[table] = len(current)
            # Values the C path overwrote: evidence counts, and the links of
            # merged clusters (compared with a copy, O(table) per commit: these
            # tables are small next to fp).  The only keys it overwrites in fp
            # are marked boilerplate in the same step as their evidence count
            # changes; tests/test_reliability_memory.py checks the replayed
            # tables equal the live ones.
            for table, shadow in self._shadow.items():
                get = shadow.get
                changed = [(key, value) for key, value in tables[table].items() if get(key) != value]
                if changed:
                    shadow.update(changed)
                    entries.append((table, changed))
                    if table == "stat":
                        fp = tables["fp"]
                        entries.append(("fp", [(key, fp[key]) for key, _ in changed if key in fp]))
        if not entries and not meta and self._next_id == self._logged_next_id:
            return None
        self._logged_next_id = self._next_id
        return pickle.dumps((self._next_id, meta, [_pack(table, pairs) for table, pairs in entries]), protocol=5)

    def _replay(self, payload: bytes, log_path: Path) -> None:
        try:
            next_id, meta, entries = _DataOnlyUnpickler(io.BytesIO(payload)).load()
            self._meta.update(meta)
            self._next_id = max(self._next_id, int(next_id))
            for table, keys, values in entries:
                pairs = dict(zip(_unpack(keys), _unpack(values)))
                if table.startswith(_DELETED):
                    table = table[len(_DELETED) :]
                    _check_table(table, pairs)
                    for key in pairs:
                        self._tables[table].pop(key, None)
                    continue
                _check_table(table, pairs)
                self._tables[table].update(pairs)
        except NSHashError:
            raise
        except Exception as exc:
            raise StoreCorruptError(
                f"the log {str(log_path)!r} holds an invalid entry ({exc!r}); it was left untouched"
            ) from exc

    # -- persistence ---------------------------------------------------------
    def save(self) -> None:
        """Write the store to its file atomically (temp file, fsync, rename), then start a new log.

        A crash at any moment leaves either the previous file and its log or
        the new file, never a torn one.  Does nothing for a store without a path.

        Raises:
            StoreWriteError: the disk refused the write (full, read-only); the
                previous file and the log are intact, so nothing acknowledged is
                lost: free space and call save() again.
        """
        self._check_open()
        if self.path is None:
            return
        with self._lock:
            # The log first: if the file cannot be written, the log still has everything.
            self.commit()
            generation = self._generation + 1
            state = {
                "format": _FORMAT,
                "version": _VERSION,
                "meta": self._meta,
                "next_id": self._next_id,
                "tables": self._tables,
                "log_generation": generation,
            }
            payload = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
            header = _FILE_HEADER.pack(_MAGIC, _VERSION, len(payload), zlib.crc32(payload))
            try:
                write_atomically(self.path, lambda handle: (handle.write(header), handle.write(payload)))
                self._generation = generation
                if self._journal is not None:
                    self._journal.restart(generation)
                # Saved exactly: a clean reopen continues at the next id, without a gap.
                self._write_reservation(self._next_id)
            except OSError as exc:
                raise os_error(
                    exc, self.describe(), "saving", "The previous file and the log are intact; nothing is lost."
                ) from exc
            self._writes_since_save = 0

    def flush(self) -> None:
        self.save()

    def _write_reservation(self, next_id: int) -> None:
        """Record on disk that ids below ``next_id`` may be in use (one fsync per block of ids)."""
        if self.path is not None:
            try:
                _write_reservation(self.path, next_id)
            except OSError as exc:
                raise os_error(exc, self.describe(), "reserving ids", "No id was handed out.") from exc
        self._reserved = next_id

    def _release(self) -> None:
        _OPEN_STORES.discard(self)
        self._stop.set()
        if self._committer is not None and self._committer is not threading.current_thread():
            self._committer.join()
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def _load(self, path: Path) -> None:
        state = read_state(path)
        try:
            tables = state["tables"]
            meta = state["meta"]
            if not isinstance(tables, dict) or not isinstance(meta, dict):
                raise TypeError("tables and meta must be dicts")
            if not all(type(key) is str and type(value) is str for key, value in meta.items()):
                raise TypeError("meta must map str to str")
            next_id = state["next_id"]
            if type(next_id) is not int or not 1 <= next_id <= MAX_KEY:
                raise ValueError(f"next_id {next_id!r} is not an id")
            generation = state.get("log_generation", 0)
            if type(generation) is not int or generation < 0:
                raise ValueError(f"log_generation {generation!r}")
            unknown = set(tables) - set(TABLES)
            if unknown:
                raise ValueError(f"unknown tables {sorted(unknown)}")
            for table, pairs in tables.items():
                _check_table(table, pairs)
            _check_acyclic(tables.get("parent", {}))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StoreCorruptError(
                f"{str(path)!r} is a damaged nshash memory store ({exc}); it was left untouched"
            ) from exc
        self._meta = dict(meta)
        self._next_id = next_id
        self._generation = generation
        # Pickle writes each value int separately; share equal ones again so a
        # reloaded store is as small as a freshly built one.
        shared: dict[int, int] = {}
        self._tables = {
            # .get: a store saved before a table existed simply has none of it.
            table: {key: shared.setdefault(value, value) for key, value in tables.get(table, {}).items()}
            for table in TABLES
        }

    def describe(self) -> str:
        return f"HashDBMemory({str(self.path) if self.path else 'in memory'})"

    def size_bytes(self) -> int | None:
        if self.path is not None and self.path.exists():
            return self.path.stat().st_size
        return None


def read_state(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The saved state of a memory store file (``format``, ``version``, ``meta``, ``next_id``, ``tables``), checked.

    For tools and tests that inspect a file without opening the store (the log is not applied).

    Raises:
        StoreCorruptError: not a readable nshash memory store.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StoreCorruptError(f"cannot read nshash store {str(path)!r}: {exc.strerror or exc}") from exc
    return _parse(data, path)


def _parse(data: bytes, path: Path) -> dict[str, Any]:
    """The state dict in a store file's bytes, after checking its header and checksum."""
    if data.startswith(_MAGIC):
        if len(data) < _FILE_HEADER.size:
            raise StoreCorruptError(f"{str(path)!r} is a truncated nshash memory store; it was left untouched")
        _, version, length, crc = _FILE_HEADER.unpack_from(data)
        if version != _VERSION:
            raise StoreCorruptError(f"{str(path)!r} has store format version {version}; this nshash reads {_VERSION}")
        payload = data[_FILE_HEADER.size :]
        if len(payload) != length or zlib.crc32(payload) != crc:
            raise StoreCorruptError(
                f"{str(path)!r} fails its checksum (damaged on disk or truncated); it was left untouched: "
                "restore it from a backup"
            )
        expected = _VERSION
    else:
        payload, expected = data, 1  # version 1: a bare pickle, without a checksum
    try:
        state = _DataOnlyUnpickler(io.BytesIO(payload)).load()
    except Exception as exc:  # any unpickling failure means the file is not ours
        raise StoreCorruptError(
            f"{str(path)!r} is not a readable nshash memory store ({type(exc).__name__}: {exc}); "
            "it was left untouched: move it away or pass another name"
        ) from exc
    if not isinstance(state, dict) or state.get("format") != _FORMAT:
        refuse_07_memory(state, path)
        raise StoreCorruptError(f"{str(path)!r} is not an nshash memory store; it was left untouched")
    if state.get("version") != expected:
        raise StoreCorruptError(
            f"{str(path)!r} has store format version {state.get('version')!r}; this nshash reads 1 and {_VERSION}"
        )
    return state


def _check_table(table: Any, pairs: Any) -> None:
    """Refuse a table that is not a dict of unsigned 64-bit keys to 64-bit int values."""
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}")
    if not isinstance(pairs, dict):
        raise TypeError(f"table {table!r} is a {type(pairs).__name__}, not a dict")
    if not pairs:
        return
    # set(map(type, ...)) and min/max run in C: a million entries take milliseconds.
    if set(map(type, pairs)) != {int} or set(map(type, pairs.values())) != {int}:
        raise TypeError(f"table {table!r} holds keys or values that are not ints")
    if min(pairs) < 0 or max(pairs) > MAX_KEY:
        raise ValueError(f"table {table!r} holds a key outside 0..2**64-1")
    if min(pairs.values()) < MIN_VALUE or max(pairs.values()) > MAX_KEY:
        raise ValueError(f"table {table!r} holds a value outside the 64-bit range")


def _check_acyclic(parent: dict[int, int]) -> None:
    """Refuse a parent table with a cycle: finding a cluster's root would never end."""
    done: set[int] = set()
    for start in parent:
        if start in done:
            continue
        path: set[int] = set()
        node: int | None = start
        while node is not None and node not in done:
            if node in path:
                raise ValueError(f"the parent table has a cycle through id {node}")
            path.add(node)
            node = parent.get(node)
        done |= path


def _pack(table: str, pairs: list[tuple[int, int]]) -> tuple[str, bytes | list[int], bytes | list[int]]:
    """A table's pairs for the log: two native arrays' bytes (lists for ints that do not fit)."""
    keys = [key for key, _ in pairs]
    values = [value for _, value in pairs]
    try:
        return table, _tagged(array("Q", keys)), _tagged(array("q", values))
    except OverflowError:
        return table, keys, values


def _tagged(numbers: array) -> bytes:  # type: ignore[type-arg]
    return numbers.typecode.encode() + (b"<" if sys.byteorder == "little" else b">") + numbers.tobytes()


def _unpack(raw: bytes | list[int]) -> list[int]:
    if isinstance(raw, list):
        return raw
    numbers = array(raw[:1].decode())
    numbers.frombytes(raw[2:])
    if raw[1:2] != (b"<" if sys.byteorder == "little" else b">"):
        numbers.byteswap()
    return numbers.tolist()


def _log_path(path: Path) -> Path:
    return path.with_name(path.name + ".log")


def _reservation_path(path: Path) -> Path:
    return path.with_name(path.name + ".ids")


def _write_reservation(path: Path, next_id: int) -> None:
    text = f"{_IDS_FORMAT}\n{next_id}\n".encode()
    write_atomically(_reservation_path(path), lambda handle: handle.write(text))


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
