"""The files of a memory store: the saved state (header, checksum, pickle), log entries, the id reservation.

Only data is ever unpickled (:class:`DataOnlyUnpickler`), and everything read
is checked (:func:`load_state`) before the store uses it: a damaged or
foreign file is refused, never half loaded.

Format versions: 1 a bare pickle of dicts; 2 the same behind a header with a
CRC-32; 3 (written since the tables are flat C arrays) each table as two
packed arrays, keys ``'Q'`` and values ``'q'`` (``'i'`` when all fit), so a
million pages reload in well under a second.  All three are read.  The log's framing is
:mod:`.journal`'s; what a frame holds is defined here.
"""

from __future__ import annotations

import io
import mmap
import os
import pickle
import struct
import sys
import threading
import zlib
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from nshash._accel import speedups
from nshash.errors import StoreCorruptError
from nshash.migrate import refuse_07_memory
from nshash.stores.files import write_atomically
from nshash.stores.memory_table import IntTable, table_from_arrays, table_from_dict
from nshash.stores.view import MAX_KEY, MIN_VALUE, TABLES

_FORMAT = "nshash.hashdb.memory"
#: 2: a header with a checksum in front of the pickle, and a log generation; 3: tables as packed arrays.
_VERSION = 3
_VERSIONS = (2, 3)
_MAGIC = b"NSHASHDB"
_FILE_HEADER = struct.Struct("<8sIQI")  # magic, version, payload length, crc32
_LAYOUT = struct.Struct("<QQ")  # version 3: pickle length, number of out-of-band arrays
_IDS_FORMAT = "nshash-ids-1"
# A body at least this long has its checksum computed on a thread while its tables are built.
_CHECK_BEHIND = 16 << 20
# Tables of at least this many entries are built on threads of their own.
_BUILD_APART = 1 << 20
# A log entry of deletions names its table with this prefix (no table name starts with it).
DELETED = "-"


class DataOnlyUnpickler(pickle.Unpickler):
    """Loads plain dicts/ints/strs only: a foreign pickle cannot run code."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")


def encode_state(
    meta: dict[str, str], next_id: int, tables: Mapping[str, IntTable], generation: int
) -> list[bytes | memoryview]:
    """The parts of a store file, to be written in order: header (magic, version, length, CRC-32), then the payload.

    The payload of version 3: the pickle's length and the sizes of the arrays
    (``<QQ`` and ``Q`` each), the pickled state, then the arrays' bytes, which
    the pickle refers to out of band: they are written from the arrays
    themselves and read back as views of the file, never copied on the way.
    """
    packed = {}
    for table, contents in tables.items():
        if len(contents):
            keys, values = contents.to_arrays()
            # The arrays' own buffers go into the pickle: no bytes copy of them is made first.
            packed[table] = (
                keys.typecode,
                values.typecode,
                sys.byteorder,
                pickle.PickleBuffer(keys),
                pickle.PickleBuffer(values),
            )
    state = {
        "format": _FORMAT,
        "version": _VERSION,
        "meta": meta,
        "next_id": next_id,
        "tables": packed,
        "log_generation": generation,
    }
    buffers: list[pickle.PickleBuffer] = []
    pickled = pickle.dumps(state, protocol=5, buffer_callback=buffers.append)
    arrays = [buffer.raw() for buffer in buffers]
    layout = _LAYOUT.pack(len(pickled), len(arrays)) + struct.pack(f"<{len(arrays)}Q", *(a.nbytes for a in arrays))
    parts: list[bytes | memoryview] = [layout, pickled, *arrays]
    crc = 0
    for part in parts:
        crc = zlib.crc32(part, crc)
    length = sum(len(part) if isinstance(part, bytes) else part.nbytes for part in parts)
    return [_FILE_HEADER.pack(_MAGIC, _VERSION, length, crc), *parts]


def load_state(path: Path) -> tuple[dict[str, str], int, int, dict[str, IntTable], bool]:
    """``(meta, next_id, log generation, tables, current)`` of a store file, every part checked, tables built.

    ``current``: the file is in this version's format (else the next save rewrites it).

    Raises:
        StoreCorruptError: not a readable nshash memory store, a failed
            checksum, a value of the wrong type or out of range, an unknown
            table, a key twice, a cycle of merges.
    """
    state, checked = _read(path)
    try:
        loaded = _load(state, path)
    except BaseException:
        checked()  # a damaged file is reported by its checksum first
        raise
    checked()
    return loaded


def _load(state: dict[str, Any], path: Path) -> tuple[dict[str, str], int, int, dict[str, IntTable], bool]:
    try:
        if state["version"] < 3:
            meta, next_id, generation, pairs = check_state(state, path)
            tables = {table: table_from_dict(pairs.get(table, {}), table) for table in TABLES}
            return meta, next_id, generation, tables, False
        meta, next_id, generation = _check_header_fields(state)
        tables = _tables(state)
        check_acyclic(tables["parent"])
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise StoreCorruptError(
            f"{str(path)!r} is a damaged nshash memory store ({exc}); it was left untouched"
        ) from exc
    return meta, next_id, generation, tables, state["version"] == _VERSION


def _tables(state: dict[str, Any]) -> dict[str, IntTable]:
    """A version 3 state's tables, the large ones built side by side (the C builds them without the GIL)."""
    arrays = {table: _arrays(table, packed) for table, packed in _packed(state).items()}
    large = sorted(
        (table for table in TABLES if len(arrays[table][0]) >= _BUILD_APART), key=lambda t: -len(arrays[t][0])
    )
    workers = min(len(large), os.cpu_count() or 1)
    if speedups is None or workers < 2:
        return {table: _table(table, *arrays[table]) for table in TABLES}
    with ThreadPoolExecutor(workers, thread_name_prefix="nshash-load") as pool:
        building = {table: pool.submit(_table, table, *arrays[table]) for table in large}
        built = {table: _table(table, *arrays[table]) for table in TABLES if table not in building}
        built.update((table, future.result()) for table, future in building.items())
    return {table: built[table] for table in TABLES}


def _table(table: str, keys: Sequence[int], values: Sequence[int]) -> IntTable:
    if len(keys) != len(values):
        raise ValueError(f"table {table!r} has {len(keys)} keys but {len(values)} values")
    found = table_from_arrays(keys, values, table)
    if len(found) != len(keys):
        raise ValueError(f"table {table!r} has a key twice")
    return found


def _packed(state: dict[str, Any]) -> dict[str, Any]:
    """A version 3 state's packed tables, every table present (an empty one is not written)."""
    tables = state["tables"]
    if not isinstance(tables, dict):
        raise TypeError("tables must be a dict")
    unknown = set(tables) - set(TABLES)
    if unknown:
        raise ValueError(f"unknown tables {sorted(unknown)}")
    empty = ("Q", "q", sys.byteorder, b"", b"")
    return {table: tables.get(table, empty) for table in TABLES}


def _arrays(table: str, packed: Any) -> tuple[Sequence[int], Sequence[int]]:
    """A packed table's keys and values as native buffers (views of the file's bytes when the byte order is ours)."""
    if not isinstance(packed, tuple) or len(packed) != 5:
        raise TypeError(f"table {table!r} is not (key type, value type, byte order, keys, values)")
    key_code, value_code, order, keys, values = packed
    if key_code != "Q" or value_code not in ("q", "i") or order not in ("little", "big"):
        raise ValueError(f"table {table!r} holds arrays of {key_code!r} and {value_code!r} in {order!r} byte order")
    if not isinstance(keys, (bytes, bytearray, memoryview)) or not isinstance(values, (bytes, bytearray, memoryview)):
        raise TypeError(f"table {table!r}'s arrays are not bytes")
    found: list[Any] = []  # memoryviews cast to the array's type
    for code, raw in ((key_code, keys), (value_code, values)):
        numbers = array(code)
        if len(raw) % numbers.itemsize:
            raise ValueError(f"table {table!r} holds a torn array")
        if order == sys.byteorder:
            found.append(memoryview(raw).cast(code))
        else:
            numbers.frombytes(raw)
            numbers.byteswap()
            found.append(memoryview(numbers))
    # The C table takes the buffers; the dict of pure Python ints as tolist makes them.
    if speedups is not None:
        return found[0], found[1]
    return found[0].tolist(), found[1].tolist()


def _check_header_fields(state: dict[str, Any]) -> tuple[dict[str, str], int, int]:
    """A state's ``(meta, next_id, log generation)``, checked."""
    meta = state["meta"]
    if not isinstance(meta, dict):
        raise TypeError("meta must be a dict")
    if not all(type(key) is str and type(value) is str for key, value in meta.items()):
        raise TypeError("meta must map str to str")
    next_id = state["next_id"]
    if type(next_id) is not int or not 1 <= next_id <= MAX_KEY:
        raise ValueError(f"next_id {next_id!r} is not an id")
    generation = state.get("log_generation", 0)
    if type(generation) is not int or generation < 0:
        raise ValueError(f"log_generation {generation!r}")
    return meta, next_id, generation


def check_state(state: dict[str, Any], path: Path) -> tuple[dict[str, str], int, int, dict[str, dict[int, int]]]:
    """``(meta, next_id, log generation, tables)`` of a state read by :func:`read_state`, all checked.

    Raises:
        StoreCorruptError: a value of the wrong type or out of range, an unknown table, a cycle of merges.
    """
    try:
        tables = state["tables"]
        if not isinstance(tables, dict):
            raise TypeError("tables must be a dict")
        meta, next_id, generation = _check_header_fields(state)
        unknown = set(tables) - set(TABLES)
        if unknown:
            raise ValueError(f"unknown tables {sorted(unknown)}")
        for table, pairs in tables.items():
            check_table(table, pairs)
        check_acyclic(tables.get("parent", {}))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise StoreCorruptError(
            f"{str(path)!r} is a damaged nshash memory store ({exc}); it was left untouched"
        ) from exc
    return meta, next_id, generation, tables


def encode_log_entry(
    next_id: int, meta: dict[str, str], entries: Sequence[tuple[str, Iterable[int], Iterable[int]]]
) -> bytes:
    """One log frame's payload: the id counter, changed meta, and each table's written (or deleted) keys and values."""
    return pickle.dumps((next_id, meta, [_pack(table, keys, values) for table, keys, values in entries]), protocol=5)


def decode_log_entry(payload: bytes) -> tuple[int, dict[str, str], list[tuple[str, dict[int, int], bool]]]:
    """``(next_id, meta, [(table, pairs, deleted), ...])`` of a log frame, each table checked.

    Raises:
        Exception: anything unreadable (the caller reports the log as corrupt).
    """
    next_id, meta, entries = DataOnlyUnpickler(io.BytesIO(payload)).load()
    decoded = []
    for table, keys, values in entries:
        pairs = dict(zip(_unpack(keys), _unpack(values)))
        deleted = table.startswith(DELETED)
        if deleted:
            table = table[len(DELETED) :]
        check_table(table, pairs)
        decoded.append((table, pairs, deleted))
    return int(next_id), dict(meta), decoded


def read_state(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The saved state of a memory store file (``format``, ``version``, ``meta``, ``next_id``, ``tables``), checked.

    For tools and tests that inspect a file without opening the store (the log
    is not applied).  The tables are dicts, whatever the file's version.

    Raises:
        StoreCorruptError: not a readable nshash memory store.
    """
    path = Path(path)
    state, checked = _read(path)
    checked()
    if state["version"] >= 3:
        try:
            state["tables"] = {
                table: dict(_table(table, *_arrays(table, packed)).items()) for table, packed in _packed(state).items()
            }
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreCorruptError(
                f"{str(path)!r} is a damaged nshash memory store ({exc}); it was left untouched"
            ) from exc
    return state


def _read(path: Path) -> tuple[dict[str, Any], Callable[[], None]]:
    """The state dict in a store file, after checking its header, and a function that checks its checksum.

    The checksum of a large file is computed on a thread (``zlib.crc32``
    releases the GIL) while the caller builds the tables from the mapped
    arrays; the caller calls the function before it uses anything read, and
    first when anything fails, so that a damaged file is named as such.
    """
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            # Mapped, not read: the arrays are used where the page cache has them, never copied.
            data = memoryview(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if size else b"")
    except OSError as exc:
        raise StoreCorruptError(f"cannot read nshash store {str(path)!r}: {exc.strerror or exc}") from exc
    buffers: list[memoryview] = []
    checked = _no_checksum
    if bytes(data[: len(_MAGIC)]) == _MAGIC:
        if len(data) < _FILE_HEADER.size:
            raise StoreCorruptError(f"{str(path)!r} is a truncated nshash memory store; it was left untouched")
        _, version, length, crc = _FILE_HEADER.unpack_from(data)
        if version not in _VERSIONS:
            raise StoreCorruptError(
                f"{str(path)!r} has store format version {version}; this nshash reads 1 to {_VERSION}"
            )
        body = data[_FILE_HEADER.size :]
        checked = _Checksum(body, crc, length, path, background=version >= 3 and len(body) >= _CHECK_BEHIND).check
        expected = version
        try:
            payload = bytes(body) if version < 3 else _split(body, buffers, path)
        except StoreCorruptError:
            checked()
            raise
    else:
        payload, expected = bytes(data), 1  # version 1: a bare pickle, without a checksum
    try:
        state = DataOnlyUnpickler(io.BytesIO(payload), buffers=buffers).load()
    except Exception as exc:  # any unpickling failure means the file is not ours
        checked()
        raise StoreCorruptError(
            f"{str(path)!r} is not a readable nshash memory store ({type(exc).__name__}: {exc}); "
            "it was left untouched: move it away or pass another name"
        ) from exc
    if not isinstance(state, dict) or state.get("format") != _FORMAT:
        checked()
        refuse_07_memory(state, path)
        raise StoreCorruptError(f"{str(path)!r} is not an nshash memory store; it was left untouched")
    if state.get("version") != expected:
        checked()
        raise StoreCorruptError(
            f"{str(path)!r} has store format version {state.get('version')!r}; this nshash reads 1 to {_VERSION}"
        )
    return state, checked


def _no_checksum() -> None:
    """Version 1 files have none."""


class _Checksum:
    """A file body's CRC-32, computed now or on a thread; :meth:`check` waits for it and raises if it differs."""

    def __init__(self, body: memoryview, expected: int, length: int, path: Path, *, background: bool) -> None:
        self._expected, self._length, self._path = expected, length, path
        self._found: int | None = None
        self._thread: threading.Thread | None = None
        if background:
            self._thread = threading.Thread(target=self._compute, args=(body,), name="nshash-crc32", daemon=True)
            self._thread.start()
        else:
            self._compute(body)
            self.check()

    def _compute(self, body: memoryview) -> None:
        self._found = zlib.crc32(body) if len(body) == self._length else None

    def check(self) -> None:
        if self._thread is not None:
            self._thread.join()
        if self._found != self._expected:
            raise StoreCorruptError(
                f"{str(self._path)!r} fails its checksum (damaged on disk or truncated); it was left untouched: "
                "restore it from a backup"
            )


def _split(body: memoryview, buffers: list[memoryview], path: Path) -> bytes:
    """A version 3 payload's pickle; its arrays, views of ``body``, appended to ``buffers``."""
    try:
        pickled, count = _LAYOUT.unpack_from(body)
        if count > 2 * len(TABLES):
            raise ValueError(f"{count} arrays")
        sizes = struct.unpack_from(f"<{count}Q", body, _LAYOUT.size)
        start = _LAYOUT.size + 8 * count
        end = start + pickled
        if end + sum(sizes) != len(body):
            raise ValueError("the sizes do not add up")
    except (struct.error, ValueError, OverflowError) as exc:
        raise StoreCorruptError(
            f"{str(path)!r} is a damaged nshash memory store ({exc}); it was left untouched"
        ) from exc
    for size in sizes:
        buffers.append(body[end : end + size])
        end += size
    return bytes(body[start : start + pickled])


def check_table(table: Any, pairs: Any) -> None:
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


def check_acyclic(parent: Mapping[int, int] | IntTable) -> None:
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


def _pack(table: str, keys: Iterable[int], values: Iterable[int]) -> tuple[str, bytes | list[int], bytes | list[int]]:
    """A table's keys and values for the log: two native arrays' bytes (lists for ints that do not fit).

    Arrays of a table's own (``'Q'`` keys, ``'i'``/``'q'`` values) are taken as they are.
    """
    try:
        if not (isinstance(keys, array) and keys.typecode == "Q"):
            keys = array("Q", keys)
        if not (isinstance(values, array) and values.typecode in "iq"):
            values = array("q", values)
        return table, _tagged(keys), _tagged(values)
    except OverflowError:
        return table, list(keys), list(values)


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


def log_file_path(path: Path) -> Path:
    return path.with_name(path.name + ".log")


def _reservation_path(path: Path) -> Path:
    return path.with_name(path.name + ".ids")


def write_reservation(path: Path, next_id: int) -> None:
    text = f"{_IDS_FORMAT}\n{next_id}\n".encode()
    write_atomically(_reservation_path(path), lambda handle: handle.write(text))


def read_reservation(path: Path) -> int:
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
