"""HashDBMemory: tables in memory, saved atomically to ``<name>.hashdb.pkl``, with a log between saves.

Each table is a flat C hash table of 64-bit keys and values (:mod:`.memory_table`;
a dict with ``NSHASH_NO_SPEEDUPS=1``).

Files of a store at ``news.hashdb.pkl``:

    news.hashdb.pkl        the tables as of the last save (header with a CRC-32, then a pickle)
    news.hashdb.pkl.log    writes acknowledged since that save, fsynced in groups (:mod:`.journal`)
    news.hashdb.pkl.ids    ids reserved ahead, so no id is handed out twice after a crash
    news.hashdb.pkl.lock   held while the store is open

What the files hold, and the checks on reading them, are in :mod:`.memory_format`.
"""

from __future__ import annotations

import atexit
import io
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from nshash.errors import ArgumentTypeError, NSHashError, OptionError, StoreCorruptError, StoreWriteError
from nshash.migrate import check_07_name
from nshash.stores.base import HashDB
from nshash.stores.files import (
    check_file_name,
    lock_exclusive,
    os_error,
    remove_stale_temp_files,
    write_atomically,
)
from nshash.stores.journal import Journal, read_log
from nshash.stores.memory_format import (
    DELETED,
    check_acyclic,
    decode_log_entry,
    encode_log_entry,
    encode_state,
    load_state,
    log_file_path,
    read_reservation,
    read_state,
    write_reservation,
)
from nshash.stores.memory_table import CHECKING_TABLES, IntTable, new_table
from nshash.stores.view import TABLES, StoreView, check_items, check_table

T = TypeVar("T")

# Ids reserved on disk at a time: one small fsync per this many new clusters.
_ID_BLOCK = 1024

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
        self._tables: dict[str, IntTable] = {table: new_table(table) for table in TABLES}
        self._meta: dict[str, str] = {}
        self._next_id = 1
        # Ids below this may have been handed out: it is on disk before they are.
        self._reserved = 1
        self._writes_since_save = 0
        # Anything changed since the file was read or written: closing an index
        # only read from must not rewrite a file of a million pages (~2 s).
        self._changed = False
        self._saved_writes = 0
        self._lock_file: io.BufferedWriter | None = None
        # Taken before self._lock, never after it: commits and saves in order.
        self._commit_lock = threading.RLock()
        # The log: writes since the last commit.
        self._journal: Journal | None = None
        self._generation = 0
        # Per table, the keys written since the last commit with their last value,
        # and the keys deleted since: a key is in one of the two at most, so a
        # frame's deletions and writes replay in either order.  Tables like the
        # store's own (C when built): logging a page costs two C calls, not a
        # Python dict entry per key.
        self._pending: dict[str, IntTable] = {}
        self._pending_deleted: dict[str, set[int]] = {}
        self._pending_meta: dict[str, str] = {}
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
            check_07_name(path, read_state)
        log_path = log_file_path(path)
        found = read_log(log_path)
        if found is not None and found[0] == self._generation:
            for payload in found[1]:
                self._replay(payload, log_path)
            try:
                check_acyclic(self._tables["parent"])
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
        self._reserved = max(self._next_id, read_reservation(path))
        self._next_id = self._logged_next_id = self._reserved
        if self.log_interval is not None:
            try:
                # A log of an older generation is folded into the file already.
                keep = found[2] if found is not None and found[0] == self._generation else None
                self._journal = Journal(log_path, self._generation, keep)
            except OSError as exc:
                raise os_error(exc, self.describe(), "opening the log") from exc

    # -- protocol ------------------------------------------------------------
    def put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        """Set ``key -> value`` for every pair in ``table``."""
        if not CHECKING_TABLES:
            super().put_many(table, items)
            return
        if self._closed or table not in TABLES:
            self._check_open()
            check_table(table)
        # A C table converts every pair before it changes anything and refuses
        # what does not fit: the Python range check is needed only to name the
        # error (it was ~10% of a page's time, on every document's path).
        pairs = items if isinstance(items, list) else list(items)
        try:
            self._put_many(table, pairs)
        except (OverflowError, TypeError) as exc:
            check_items(pairs)  # raises the store's own error for what the table refused
            raise ArgumentTypeError(f"store keys and values are ints: {exc}") from exc

    def _get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        return self._tables[table].get_many(keys)

    def _put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        self._changed = True
        if self._journal is None:
            self._tables[table].put_many(items)
            return
        pairs = items if isinstance(items, list) else list(items)
        with self._lock:
            self._tables[table].put_many(pairs)
            pending = self._pending.get(table)
            if pending is None:
                pending = self._pending[table] = new_table()
            pending.put_many(pairs)
            deleted = self._pending_deleted.get(table)
            if deleted:
                deleted.difference_update(key for key, _ in pairs)

    def _delete_many(self, table: str, keys: Sequence[int]) -> None:
        self._changed = True
        with self._lock:
            gone = self._tables[table].delete_many(keys)
            if self._journal is not None and gone:
                pending = self._pending.get(table)
                if pending is not None:
                    pending.delete_many(gone)
                self._pending_deleted.setdefault(table, set()).update(gone)

    def _get_meta(self, key: str) -> str | None:
        return self._meta.get(key)

    def _set_meta(self, key: str, value: str) -> None:
        self._changed = True
        with self._lock:
            self._meta[key] = value
            self._pending_meta[key] = value

    def _allocate_id(self) -> int:
        self._changed = True
        new_id = self._next_id
        if self.path is not None and new_id >= self._reserved:
            self.write_reservation(new_id + _ID_BLOCK)
        self._next_id += 1
        return new_id

    def _count(self, table: str) -> int:
        return len(self._tables[table])

    def native_tables(self, names: Sequence[str]) -> tuple[tuple[IntTable, ...], tuple[IntTable, ...] | None] | None:
        """The C tables ``names`` and their log of pending writes, for C code that writes them directly.

        ``None`` when the tables are dicts (no accelerator) or a deletion is
        pending (a write must then also leave the log's deleted keys, which
        only :meth:`put_many` does).  Call it inside :meth:`transaction`: a
        commit takes the pending tables away.
        """
        # On every page's path: the common case (no deletion pending) is told by the dict being empty.
        if not CHECKING_TABLES or (self._pending_deleted and any(self._pending_deleted.values())):
            return None
        tables = tuple([self._tables[name] for name in names])
        if self._journal is None:
            return tables, None
        pending = []
        for name in names:
            table = self._pending.get(name)
            if table is None:
                table = self._pending[name] = new_table()
            pending.append(table)
        return tables, tuple(pending)

    def highest_id(self) -> int:
        self._check_open()
        return self._next_id - 1

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
        # Commits (and saves) one at a time; the store itself is locked only while
        # the changes are taken, so documents go on while the frame is written and
        # fsynced (holding it through the fsync cost the crawler ~25% of its speed).
        with self._commit_lock:
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
        pending, self._pending = self._pending, {}
        meta, self._pending_meta = self._pending_meta, {}
        deleted, self._pending_deleted = self._pending_deleted, {}
        entries: list[tuple[str, Iterable[int], Iterable[int]]] = []
        for table, gone in deleted.items():
            if gone:
                entries.append((DELETED + table, list(gone), [0] * len(gone)))
        for table, written in pending.items():
            if len(written):
                # Two packed arrays straight from the table: no Python int a key
                # in the committing thread, which shares the GIL with the crawl.
                entries.append((table, *written.to_arrays()))
        if not entries and not meta and self._next_id == self._logged_next_id:
            return None
        self._logged_next_id = self._next_id
        return encode_log_entry(self._next_id, meta, entries)

    def _replay(self, payload: bytes, log_path: Path) -> None:
        self._changed = True  # the next save folds the log into the file
        try:
            next_id, meta, entries = decode_log_entry(payload)
        except NSHashError:
            raise
        except Exception as exc:
            raise StoreCorruptError(
                f"the log {str(log_path)!r} holds an invalid entry ({exc!r}); it was left untouched"
            ) from exc
        self._meta.update(meta)
        self._next_id = max(self._next_id, next_id)
        for table, pairs, deleted in entries:
            if deleted:
                self._tables[table].delete_many(list(pairs))
            else:
                self._tables[table].put_many(pairs.items())

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
        with self._commit_lock, self._lock:
            # The log first: if the file cannot be written, the log still has everything.
            self.commit()
            if not self._changed and self._table_writes() == self._saved_writes and self.path.exists():
                return  # the file holds everything already
            generation = self._generation + 1
            parts = encode_state(self._meta, self._next_id, self._tables, generation)
            try:
                write_atomically(self.path, lambda handle: [handle.write(part) for part in parts])
                self._generation = generation
                if self._journal is not None:
                    self._journal.restart(generation)
                # Saved exactly: a clean reopen continues at the next id, without a gap.
                self.write_reservation(self._next_id)
            except OSError as exc:
                raise os_error(
                    exc, self.describe(), "saving", "The previous file and the log are intact; nothing is lost."
                ) from exc
            self._writes_since_save = 0
            self._changed = False
            self._saved_writes = self._table_writes()

    def _table_writes(self) -> int:
        """Changes made to the C tables since they were built (the C decision writes them directly)."""
        return sum(getattr(table, "writes", 0) for table in self._tables.values())

    def flush(self) -> None:
        self.save()

    def write_reservation(self, next_id: int) -> None:
        """Record on disk that ids below ``next_id`` may be in use (one fsync per block of ids)."""
        if self.path is not None:
            try:
                write_reservation(self.path, next_id)
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
        meta, next_id, generation, self._tables, current = load_state(path)
        self._saved_writes = self._table_writes()
        self._changed = not current  # an older format is saved in this one
        self._meta = dict(meta)
        self._next_id = next_id
        self._generation = generation

    def describe(self) -> str:
        return f"HashDBMemory({str(self.path) if self.path else 'in memory'})"

    def size_bytes(self) -> int | None:
        if self.path is not None and self.path.exists():
            return self.path.stat().st_size
        return None


# read_state is public here since the store was one module.
__all__ = ["HashDBMemory", "read_state"]
