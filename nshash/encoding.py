"""Decoding the bytes of a text file: a named encoding, or one detected by charset-normalizer.

Used by :mod:`nshash.io` and the ``nshash`` command (``--encoding``).  A bad
byte is an :class:`~nshash.errors.InputError` naming its line, like every other
problem with an input file.
"""

from __future__ import annotations

import codecs

from nshash.errors import InputError, UnknownEncodingError, missing_dependency
from nshash.log import get_logger

log = get_logger(__name__)


def check_encoding(encoding: str) -> None:
    """Refuse an encoding Python does not know, before any file is read."""
    if encoding == "auto":
        return
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise UnknownEncodingError(
            f"unknown encoding {encoding!r} (e.g. utf-8, gb18030, big5, latin-1, or auto)"
        ) from None


def decode_bytes(data: bytes, source: str, encoding: str) -> str:
    """``data`` decoded as ``encoding`` (``'auto'``: detected); a bad byte is an error naming its line.

    >>> decode_bytes("标题".encode("gb18030"), "f.csv", "gb18030")
    '标题'
    """
    if encoding == "auto":
        encoding = detect_encoding(data, source)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{source} line {line}: not valid {encoding} ({exc.reason})") from exc


def detect_encoding(data: bytes, source: str) -> str:
    """The encoding ``charset-normalizer`` finds most likely for ``data`` (``nshash[detect]``)."""
    try:
        from charset_normalizer import from_bytes
    except ImportError as exc:
        raise missing_dependency("charset-normalizer", "detect") from exc
    best = from_bytes(data).best()
    if best is None:
        raise InputError(f"{source}: cannot tell its encoding; give it with --encoding")
    log.info("%s: detected encoding %s", source, best.encoding)
    return str(best.encoding)
