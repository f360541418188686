"""The memory store's append-only log: writes acknowledged since the last save, fsynced in groups.

A log file starts with a header (magic, the generation of the store file it
extends) and holds frames: payload length, CRC-32, payload.  A frame is one
group commit.  The store file records the generation of the log that extends
it; saving writes the store file with the next generation, then starts a new
log, so a log from before the last save is recognised as folded in, whatever
moment a crash picked.  A frame cut off by a kill is dropped on open (it was
never complete on disk); a damaged frame followed by good ones is corruption
and is refused.
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

from nshash.errors import StoreCorruptError

_MAGIC = b"NSHLOG01"
_HEADER = struct.Struct("<8sQ")  # magic, generation
_FRAME = struct.Struct("<II")  # payload length, crc32


def read_log(path: Path) -> tuple[int, list[bytes], int] | None:
    """``(generation, payloads, length of the good prefix)`` of the log at ``path``; ``None`` if absent.

    Raises:
        StoreCorruptError: not a log, or a damaged frame before the last one.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreCorruptError(f"cannot read the log {str(path)!r}: {exc.strerror or exc}") from exc
    if len(data) < _HEADER.size:
        # A kill while the header was written: nothing was ever logged to it.
        return (-1, [], 0) if _MAGIC.startswith(data[:8]) else _foreign(path)
    magic, generation = _HEADER.unpack_from(data)
    if magic != _MAGIC:
        _foreign(path)
    payloads: list[bytes] = []
    offset = _HEADER.size
    while offset < len(data):
        if offset + _FRAME.size > len(data):
            break  # a torn frame header at the end
        length, crc = _FRAME.unpack_from(data, offset)
        start, end = offset + _FRAME.size, offset + _FRAME.size + length
        if end > len(data):
            break  # a torn frame at the end
        payload = data[start:end]
        if zlib.crc32(payload) != crc:
            if end == len(data):
                break  # the last frame, cut off while it was written
            raise StoreCorruptError(
                f"the log {str(path)!r} is damaged at byte {offset} (a checksum does not match); it was "
                "left untouched: restore it from a backup, or move it away to open the store as last saved"
            )
        payloads.append(payload)
        offset = end
    return generation, payloads, offset


def _foreign(path: Path) -> tuple[int, list[bytes], int]:
    raise StoreCorruptError(
        f"{str(path)!r} is not an nshash log; it was left untouched: move it away or pass another name"
    )


class Journal:
    """An open log, appended to by group commits."""

    def __init__(self, path: Path, generation: int, good_length: int | None) -> None:
        """Open the log of ``generation`` for appending, cut to ``good_length``; ``None`` starts a new one."""
        self.path = path
        self.generation = generation
        if good_length is None:
            self._fd = self._create(generation)
            self._size = _HEADER.size
        else:
            self._fd = os.open(path, os.O_WRONLY)
            os.ftruncate(self._fd, good_length)
            os.lseek(self._fd, good_length, os.SEEK_SET)
            self._size = good_length

    def _create(self, generation: int) -> int:
        # Written in place: a torn header reads as "nothing logged", and the
        # store file's generation already says which log extends it.
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        try:
            os.write(fd, _HEADER.pack(_MAGIC, generation))
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def append(self, payload: bytes) -> None:
        """Write one frame and fsync it; on failure the file is cut back to its last good frame."""
        frame = _FRAME.pack(len(payload), zlib.crc32(payload)) + payload
        try:
            written = 0
            while written < len(frame):
                written += os.write(self._fd, frame[written:])
            os.fsync(self._fd)
        except BaseException:
            # A half frame followed by later ones would read as corruption.
            os.ftruncate(self._fd, self._size)
            os.lseek(self._fd, self._size, os.SEEK_SET)
            raise
        self._size += len(frame)

    def restart(self, generation: int) -> None:
        """Start an empty log for ``generation`` (after the store file of that generation is saved)."""
        os.close(self._fd)
        self._fd = self._create(generation)
        self._size = _HEADER.size
        self.generation = generation

    def close(self) -> None:
        os.close(self._fd)
