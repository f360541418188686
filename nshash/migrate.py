"""Stores written by nshash 0.7 (the 2019 original): recognised when opened, refused with what to do.

What 0.7 wrote (its ``nshash.py``, reimplemented in ``benchmarks/original.py``):

* ``NSHash(name, hashdb='memory')``: ``<name>.hashdb.pkl``, a bare pickle of
  one dict ``{fingerprint: similar_id}``, saved by ``__del__``.  A fingerprint
  is the md5 hex digest of a raw sentence (a 32-character ``str``,
  ``hashfunc='md5'``, the default) or its ``farmhash.hash64`` (an ``int``,
  ``hashfunc='farmhash'``); ids are ``int``.  The id counter was never saved.
* ``NSHash(name, hashdb='leveldb')``: a LevelDB directory ``<name>.hashdb``
  (py-leveldb), each key the UTF-8 of the hex digest or the decimal digits of
  the int, each value the decimal digits of the id.

Neither can be converted to a 2.0 index, whatever the hash function: see
:data:`WHY_NOT_CONVERTED`.  The stores call the functions here on their error
paths only (a file that is not a 2.0 store), so opening a 2.0 store costs nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from nshash.errors import LegacyStoreError, StoreError
from nshash.log import get_logger

_log = get_logger(__name__)

#: Why a 0.7 index cannot be turned into a 2.0 one (part of every refusal).
WHY_NOT_CONVERTED: Final = (
    "its fingerprints cannot be converted: 0.7 stored one hash per whole sentence (the 5 longest pieces "
    "split on ：:；？。！】 and newlines, neither cleaned nor normalised), while 2.0 keys the head and tail "
    "anchors of cleaned, normalised sentences split by other rules, and verifies every join against a "
    "sketch of each cluster's whole texts, which 0.7 never kept (the file holds hashes, not texts)"
)
#: What to do instead (part of every refusal).
HOW_TO_REBUILD: Final = (
    "rebuild the index by feeding the documents again, in their original order, into nshash.NSHash(...) "
    "under another name (or move the old store away first); the old store was left untouched"
)

_MD5_HEX = re.compile(r"[0-9a-f]{32}")
_DIGITS = re.compile(rb"[0-9]{1,20}")
_MD5_HEX_BYTES = re.compile(rb"[0-9a-f]{32}")
_MAX_64 = 2**64 - 1
#: LevelDB entries looked at to recognise a 0.7 store (it is an error path; a 0.7 store is uniform).
LEVELDB_SAMPLE: Final = 10_000


def refusal(where: str, what: str, hint: str = "") -> LegacyStoreError:
    """The error for a 0.7 store at ``where`` holding ``what``; ``hint`` is added before the advice."""
    hint = f"{hint}; " if hint else ""
    return LegacyStoreError(
        f"{where} is an nshash 0.7 store ({what}); nshash 2.0 cannot read it, and {WHY_NOT_CONVERTED}. "
        f"{hint}{HOW_TO_REBUILD}"
    )


def is_07_memory_state(state: object) -> bool:
    """Whether an unpickled memory file is 0.7's: a plain dict of md5 hex digests or 64-bit ints to ids.

    >>> is_07_memory_state({"5d41402abc4b2a76b9719d911017c592": 1, 2640714258260161385: 2})
    True
    >>> is_07_memory_state({"format": "nshash.hashdb.memory", "version": 1})
    False
    """
    if type(state) is not dict:
        return False
    for key, value in state.items():
        if type(value) is not int or value < 1:
            return False
        if type(key) is str:
            if not _MD5_HEX.fullmatch(key):
                return False
        elif type(key) is not int or not 0 <= key <= _MAX_64:
            return False
    return True


def _describe_pairs(count: int) -> str:
    return f"{count} fingerprint{'s' if count != 1 else ''} of sentences, pickled"


def refuse_07_memory(state: object, path: str | os.PathLike[str]) -> None:
    """Raise :class:`~nshash.LegacyStoreError` if ``state`` (an unpickled memory file) is 0.7's.

    Called by :class:`~nshash.HashDBMemory` before it reports a file as foreign.
    """
    if isinstance(state, dict) and is_07_memory_state(state):
        raise refusal(f"{os.fspath(path)!r}", _describe_pairs(len(state)))


def is_07_leveldb(items: Iterable[tuple[bytes, bytes]]) -> bool:
    """Whether LevelDB entries are 0.7's: keys hex digests or decimal hashes, values decimal ids.

    Only the first :data:`LEVELDB_SAMPLE` entries are looked at; an empty database is not 0.7's.

    >>> is_07_leveldb([(b"5d41402abc4b2a76b9719d911017c592", b"1"), (b"2640714258260161385", b"12")])
    True
    >>> is_07_leveldb([(b"f" + bytes(8), bytes(8))])
    False
    """
    seen = 0
    for key, value in items:
        if not (_MD5_HEX_BYTES.fullmatch(key) or _DIGITS.fullmatch(key)) or not _DIGITS.fullmatch(value):
            return False
        seen += 1
        if seen >= LEVELDB_SAMPLE:
            break
    return seen > 0


def refuse_07_leveldb(items: Iterable[tuple[bytes, bytes]], where: str) -> None:
    """Raise :class:`~nshash.LegacyStoreError` if the entries of the LevelDB ``where`` are 0.7's.

    Called by :class:`~nshash.HashDBLeveldb` before it reports a directory as foreign.
    """
    if is_07_leveldb(items):
        raise refusal(where, "fingerprints of sentences as text keys, ids as text values")


def check_07_name(path: str | os.PathLike[str], read_state: Callable[[Path], object]) -> None:
    """For a new memory store at ``path``: notice 0.7's file name ``<path>.hashdb.pkl`` beside it.

    ``read_state`` reads a memory store file (passed in: the memory store's
    file format depends on this module, not the other way round).

    0.7's ``HashDBMemory(name)`` added ``.hashdb.pkl``; 2.0's takes the file's
    path (``NSHash(name)`` still adds it).  A 0.7 store there is refused, so
    a 0.7 script does not silently start an empty index; a 2.0 store there is
    logged as a warning.
    """
    old = Path(f"{os.fspath(path)}.hashdb.pkl")
    if not old.is_file():
        return
    hint = (
        f"HashDBMemory takes the file's path since 2.0 (0.7 added '.hashdb.pkl'; "
        f"NSHash({os.fspath(path)!r}) still does): pass {str(old)!r} to open the old file"
    )
    try:
        read_state(old)  # refuses a 0.7 file (see refuse_07_memory)
    except LegacyStoreError as exc:
        raise LegacyStoreError(f"{hint}. {exc}") from exc
    except StoreError:
        pass  # not ours at all: only worth the warning below
    _log.warning("opening a new memory store %r beside %r: %s", os.fspath(path), str(old), hint)
