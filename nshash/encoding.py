"""Decoding the bytes of a text file (a named encoding, or one detected by charset-normalizer), and
repairing a page whose UTF-8 bytes were decoded as Latin-1 or Windows-1252.

Used by :mod:`nshash.io` and the ``nshash`` command (``--encoding``).  A bad
byte is an :class:`~nshash.errors.InputError` naming its line, like every other
problem with an input file.  :func:`repair_mojibake` is a step of cleaning a
page (:meth:`nshash.fingerprint.Fingerprinter.clean`).
"""

from __future__ import annotations

import codecs
from typing import Final

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


#: What Windows-1252 reads the bytes 0x80-0x9F as, in order (its five unused bytes as the C1 control of
#: the same number, as the WHATWG decoder of browsers and most crawlers reads them); setup.py writes it
#: for the C.
CP1252_HIGH: Final = (
    "\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f"
    "\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178"
)
#: Windows-1252's characters past U+00FF, as the byte (a Latin-1 character) they are read from.
_CP1252_BYTES: Final = {ord(char): chr(0x80 + index) for index, char in enumerate(CP1252_HIGH) if ord(char) > 0xFF}
#: Pages decoded wrongly twice over are decoded again this many times at most.
MOJIBAKE_ROUNDS: Final = 3


def repair_mojibake(text: str) -> str:
    """``text`` decoded again as UTF-8 when it is UTF-8 bytes read as Latin-1 or Windows-1252, else as it is.

    What ``requests`` gives for a page served as ``text/html`` without a
    charset (ISO-8859-1; ``Response.text``), and what a crawler that took the
    page for Windows-1252 stored: ``"ä¸­æ\x96\x87"`` for ``"中文"``,
    ``"donâ€™t"`` for ``"don’t"``; a Chinese page shares no character with
    itself decoded right.  The text is taken back to bytes (every character
    below U+0100 as that byte, Windows-1252's other characters as theirs);
    when those bytes are valid UTF-8 (strict: no overlong forms, no
    surrogates), that is the page.  A text with any character beyond those,
    or whose bytes are not UTF-8 (Latin-1 text: ``"café "`` is ``E9`` then a
    space), is left as it is.  Repeated for a page decoded wrongly twice,
    :data:`MOJIBAKE_ROUNDS` times at most.  The C accelerator does the same
    (``repaired`` in ``nshash/_speedups.c``), tested against this.

    >>> repair_mojibake("ä¸\xadæ\x96\x87 and donâ€™t")
    '中文 and don’t'
    >>> repair_mojibake("café au lait")
    'café au lait'
    """
    for _ in range(MOJIBAKE_ROUNDS):
        if text.isascii():
            return text
        try:
            raw = text.translate(_CP1252_BYTES).encode("latin-1")
            text = raw.decode("utf-8")
        except UnicodeError:  # a character no single byte gives, or bytes that are not UTF-8
            return text
    return text
