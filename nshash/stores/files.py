"""Files of the stores that live on disk: names, locks, atomic replacement, errors.

One home for the rules every file-backed store follows: file names are
checked before anything is created, new files get the mode the umask gives
(never forced private), a file is replaced atomically, temp files a kill left
behind are removed on the next open, and an ``OSError`` becomes an
:class:`~nshash.NSHashError` that names the store and what to do.
"""

from __future__ import annotations

import errno
import io
import os
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nshash.errors import StoreError, StoreLockedError, StoreNameError, StoreWriteError

#: The longest suffix a store adds to its file name (``.ids.<8 hex>.tmp``).
_LONGEST_SUFFIX = len(".ids.00000000.tmp")
_NAME_MAX = 255
_TEMP = "{name}(?:\\.ids|\\.log)?\\.[A-Za-z0-9_]{{6,16}}\\.tmp"


def check_file_name(path: Path, what: str) -> None:
    """Refuse a store path whose file name no file system takes (empty, over 255 bytes with suffixes).

    Raises:
        StoreNameError: the message says how long a name may be.
    """
    name = path.name
    if not name or name.startswith(".hashdb"):
        raise StoreNameError(f"{what} needs a non-empty name (it was {str(path)!r}); pass name=None to stay in memory")
    size = len(os.fsencode(name))
    if size + _LONGEST_SUFFIX > _NAME_MAX:
        raise StoreNameError(
            f"{what} file name {name[:40]!r}... is {size} bytes; file names are limited to {_NAME_MAX} bytes "
            f"and nshash adds up to {_LONGEST_SUFFIX}: use a name of at most {_NAME_MAX - _LONGEST_SUFFIX} bytes"
        )


def os_error(exc: OSError, what: str, action: str, advice: str = "") -> StoreError:
    """The nshash error for ``exc`` raised while ``action`` on store ``what``."""
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return StoreWriteError(
            exc.errno, f"{what}: no space left while {action} ({reason}); free disk space, then retry. {advice}"
        )
    if exc.errno in (errno.EROFS, errno.EIO, errno.EFBIG):
        return StoreWriteError(exc.errno, f"{what}: the disk refused a write while {action} ({reason}). {advice}")
    if exc.errno == errno.ENAMETOOLONG:
        return StoreNameError(f"{what}: the path is too long for the file system ({reason}); use a shorter name")
    folder = Path(os.fsdecode(exc.filename)).parent if exc.errno == errno.ENOENT and exc.filename is not None else None
    if folder is not None and not folder.is_dir():
        # A store makes its own files, never the folders above them: a mistyped path is not a new index.
        return StoreError(f"{what}: {action} failed: the folder {str(folder)!r} does not exist; create it first")
    return StoreError(f"{what}: {action} failed: {reason}. {advice}".rstrip())


def lock_exclusive(path: Path, what: str) -> io.BufferedWriter:
    """Hold an advisory lock beside ``path`` so two processes never share the store."""
    try:
        import fcntl
    except ImportError:  # Windows: its locks and writes (text-mode descriptors) would need code nobody tested
        raise StoreError(
            f"{what}: a store in a file needs POSIX file locks, which this system lacks (Windows); "
            "use name=None (an index in memory only) or a Redis store"
        ) from None

    lock_path = path.with_name(path.name + ".lock")
    try:
        handle = open(lock_path, "ab")  # noqa: SIM115 - held until close()
    except OSError as exc:  # no such directory, not a directory, no permission
        raise os_error(exc, what, "opening") from exc
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise StoreLockedError(
            f"nshash store {str(path)!r} is already open (in another process or another store object); "
            "close that one first"
        ) from None
    return handle


def remove_stale_temp_files(path: Path) -> list[Path]:
    """Delete the temp files a kill during a save left beside ``path`` (call only while holding its lock)."""
    pattern = re.compile(_TEMP.format(name=re.escape(path.name)))
    removed: list[Path] = []
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if pattern.fullmatch(entry.name) and entry.is_file():
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


def write_atomically(path: Path, write: Callable[[Any], object]) -> None:
    """Replace ``path`` with what ``write(handle)`` writes: temp file, fsync, rename, fsync dir.

    A crash at any moment leaves either the old or the new file, never a torn
    one.  The new file has the mode the umask gives, like any file the user creates.
    """
    tmp = path.with_name(f"{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    # The rename is durable only once the directory entry is on disk.
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
