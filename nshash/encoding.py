"""Decoding the bytes of a text file (a named encoding, or one detected by charset-normalizer), and
repairing a page whose bytes (UTF-8, GB18030, Big5) were decoded as Latin-1 or Windows-1252, or whose
UTF-8 bytes were decoded as GBK.

Used by :mod:`nshash.io` and the ``nshash`` command (``--encoding``).  A bad
byte is an :class:`~nshash.errors.InputError` naming its line, like every other
problem with an input file.  :func:`repair_mojibake` is a step of cleaning a
page (:meth:`nshash.fingerprint.Fingerprinter.clean`).
"""

from __future__ import annotations

import codecs
import functools
import re
from itertools import combinations, product
from typing import Final

from nshash.errors import InputError, UnknownEncodingError, missing_dependency
from nshash.log import get_logger
from nshash.text import _CJK_RE

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
#: The error handler that makes Python's Windows-1252 encoder give every character of :data:`CP1252_HIGH`
#: its byte: the codec gives the others theirs, and this the C1 controls (U+0080-U+009F) that Latin-1 reads.
_C1_ERRORS: Final = "nshash.misread"


def _c1_bytes(error: UnicodeError) -> tuple[bytes, int]:
    """Encoding as Windows-1252, a C1 control (U+0080-U+009F: Latin-1's reading of those bytes) is its byte."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    part = error.object[error.start : error.end]
    if not all("\x80" <= char <= "\x9f" for char in part):
        raise error
    return part.encode("latin-1"), error.end


codecs.register_error(_C1_ERRORS, _c1_bytes)

#: Pages decoded wrongly twice over are decoded again this many times at most.
MOJIBAKE_ROUNDS: Final = 3
#: A page read as Latin-1 whose bytes are not UTF-8 is a Chinese page's bytes, GB18030 (GBK, GB2312) or
#: Big5 (a site that names its charset in a ``<meta>`` tag only: :func:`read_as_chinese`), when at least
#: this share of them are past ASCII (Chinese text: two in three; Western text: a few accented letters in a
#: hundred, which GB18030 may read: ``é`` and the letter after it are one character) ...
GB_BYTES: Final = 0.3
#: ... and at least this many (eight Chinese characters; a short Latin-1 title, ``Éléphant``, reads as two) ...
GB_MIN_BYTES: Final = 16
#: ... or, whatever their share, this many (a raw HTML page's markup and scripts leave 1-23% of its bytes
#: past ASCII: 14 of 16 real Chinese HTML pages; no Western text of 256 accented letters has every one
#: followed by a byte GB18030 takes, never by a space, a comma or a line end) ...
GB_MANY_BYTES: Final = 256
#: ... and at least this share of its characters so read that are not ASCII are CJK (half: Chinese text's
#: own quotes and dashes, “”‘’—…, are not; bytes of no text read as symbols of every script).
GB_CJK: Final = 0.5
#: Chinese text's commonest characters and marks, simplified and traditional.  Of the readings of a page's
#: bytes (:data:`CHINESE_CODECS`), the one holding most of them is the page: Big5 bytes read as GB18030 (or
#: GB18030 as Big5, where it can) give rare characters.  A page past :data:`GB_MANY_BYTES` but not dense
#: must hold one (a text of no-break spaces each before a letter, ``word\xa0word``, reads as rare
#: ideographs and none of these).
COMMON_CHINESE: Final = (
    "的一是不了在人有我他这這个個们們中来來上大为為和国國地到以说說时時要就出也得里裡后後自会會家可下而过過"
    "天去能对對小多然于於心学學之都好看起发發当當没沒成只如事把还還用第样樣道想作种種开開从從无無现現前些所同"
    "日手又行意动動方它头頭经經长長回位分因很给給名法间間知什两兩次使者被高已其进進此话話常与與正，。、「」"
)
#: The readings tried, in order (the first wins a tie): GB18030 (GBK, GB2312) and Big5 (with Hong Kong's
#: characters: big5hkscs holds Big5).
CHINESE_CODECS: Final = ("gb18030", "big5hkscs")
#: What GBK (GB18030, GBK's superset) reads the UTF-8 of text's commonest characters as: ``銆`` is the first
#: two bytes of ``。、「」《》``, ``涓`` of ``一不上中个``, ``锛`` of ``，：！？（）``, ``鐨`` and ``殑`` are ``的``
#: (one or the other, as its bytes fall in pairs), ``鈥`` is the first two of ``’“”–—…``.  A page holding
#: this many of them (rare characters: none in the real pages and the corpus, 6.7 million CJK characters; of
#: the corpus's Chinese pages so misread, 97-100% hold each, and 80% of its English ones hold ``鈥``) may be
#: UTF-8 read as GBK (:func:`read_utf8_as_gbk`) ...
GBK_MARKS: Final = "\u9286\u6d93\u951b\u9428\u6b91\u9225"
GBK_MIN_MARKS: Final = 2
#: ... and is when its characters taken back to GB18030 bytes read as UTF-8 hold this many of
#: :data:`COMMON_CHINESE` (eight: a sentence) ...
GBK_MIN_COMMON: Final = 8
#: ... making up this share of its CJK characters (Chinese text: 24-49%, 1st-99th percentile of the corpus's
#: pages so misread and read again; the bytes of a page read right, so read, 0 at the 99th) ...
GBK_COMMON: Final = 0.1
_COMMON_RE: Final = re.compile(f"[{COMMON_CHINESE}]")  # faster than str.translate's table of them
_ASCII_BYTES: Final = bytes(range(0x80))
_SLICE: Final = 1 << 10


def repair_mojibake(text: str) -> str:
    """``text`` decoded again when it is a page's bytes misread as Latin-1 or Windows-1252, else as it is.

    What ``requests`` gives for a page served as ``text/html`` without a
    charset (ISO-8859-1; ``Response.text``), and what a crawler that took the
    page for Windows-1252 stored: ``"ä¸­æ\x96\x87"`` for ``"中文"``,
    ``"donâ€™t"`` for ``"don’t"``; a Chinese page shares no character with
    itself decoded right.  The text is taken back to bytes (every character
    below U+0100 as that byte, Windows-1252's other characters as theirs);
    when those bytes are valid UTF-8 (strict: no overlong forms, no
    surrogates), that is the page, repeated for a page decoded wrongly twice,
    :data:`MOJIBAKE_ROUNDS` times at most.  Bytes that are not UTF-8 are read
    as GB18030 or Big5 when they are a Chinese page's (:func:`read_as_chinese`;
    read as Windows-1252: a browser's reading of a page without a charset).
    A text with a character beyond those bytes is UTF-8 read as GBK when
    :func:`read_utf8_as_gbk` says so; others, and Latin-1 text (``"café "``
    is ``E9`` then a space: neither UTF-8 nor Chinese), are left as they are.  The
    C accelerator does the same (``repaired`` in ``nshash/_mojibake.h``; it
    hands a page that may be Chinese bytes, or UTF-8 read as GBK, to this), tested against this.

    >>> repair_mojibake("ä¸\xadæ\x96\x87 and donâ€™t")
    '中文 and don’t'
    >>> repair_mojibake("中文的网页，八个字。".encode("gbk").decode("latin-1"))
    '中文的网页，八个字。'
    >>> repair_mojibake("café au lait")
    'café au lait'
    """
    for _ in range(MOJIBAKE_ROUNDS):
        if text.isascii():
            return text
        try:  # every character below U+0100 as that byte (requests' reading) ...
            raw = text.encode("latin-1")
        except UnicodeEncodeError:
            try:  # ... or CP1252_HIGH's as theirs too
                raw = text.encode("cp1252", errors=_C1_ERRORS)
            except UnicodeEncodeError:  # a character no single byte gives: UTF-8 read as GBK?
                return read_utf8_as_gbk(text) or text
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:  # Chinese bytes?
            return read_as_chinese(raw) or text
    return text


def read_as_chinese(raw: bytes) -> str | None:
    """``raw`` decoded as a Chinese page's bytes, GB18030 or Big5 (:data:`CHINESE_CODECS`), else ``None``.

    It is one when :data:`GB_BYTES` of its bytes, and :data:`GB_MIN_BYTES` at
    least, are past ASCII, or :data:`GB_MANY_BYTES` whatever their share; of
    the codecs that decode it strictly into a text :data:`GB_CJK` of whose
    characters past ASCII are CJK, the one whose text holds most of
    :data:`COMMON_CHINESE` (at least one, unless dense) reads it.  Shift-JIS
    or EUC-KR bytes may read as CJK too, other characters than the page's:
    such a page matched nothing before either, and its copies misread alike
    still match one another.
    """
    high = len(raw.translate(None, _ASCII_BYTES))  # the bytes left once the ASCII ones are deleted
    dense = high >= GB_MIN_BYTES and high >= GB_BYTES * len(raw)
    if not dense and high < GB_MANY_BYTES:
        return None
    best, most = None, 0 if dense else 1
    for codec in CHINESE_CODECS:
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        wide, cjk, common = _counts(text)
        if cjk >= GB_CJK * wide and ((best is None and common >= most) or common > most):
            best, most = text, common
    return best


def read_utf8_as_gbk(text: str) -> str | None:
    """``text`` read again when it is a page's UTF-8 bytes decoded as GBK (GB2312, GB18030), else ``None``.

    What a Chinese crawler that takes every page for GBK stores (``requests``
    with ``encoding = "gbk"``, ``raw.decode("gbk", "ignore")``): ``"涓枃銆"``
    for ``"中文。"``.  Such a page lost its sentence ends, and its pages of one
    site merged through their footers.  A text holding :data:`GBK_MIN_MARKS`
    of :data:`GBK_MARKS` is taken back to GB18030 bytes (a replacement
    character ``U+FFFD``, a byte the decoder replaced, as a byte no UTF-8 has)
    and read as UTF-8.  It is the page when, the characters the lost bytes
    left incomplete deleted, that holds :data:`GBK_MIN_COMMON` of
    :data:`COMMON_CHINESE`, :data:`GBK_COMMON` of its CJK characters, and more
    than the text did: then each incomplete character is the commonest one its
    bytes left allow (:func:`_restore_lost`: most are ``。`` and ``、``, whose
    byte 0x80 GBK never reads), deleted when none does.  A text that holds no
    CJK character once so read is an English page, whose curly quotes and
    dashes had become ``鈥檚``: the incomplete ones are deleted.

    >>> page = "中文的网页上，有一个大的标题。我们说：这是北京的新闻。"
    >>> read_utf8_as_gbk(page.encode("utf-8").decode("gb18030", "replace"))
    '中文的网页上，有一个大的标题。我们说：这是北京的新闻。'
    >>> read_utf8_as_gbk(page.encode("utf-8").decode("gbk", "ignore"))  # GBK drops more: some guesses are wrong
    '一文的网页上，有一一大的标高。我什说：这是北京的新闻。'
    >>> read_utf8_as_gbk("The city’s “third move” — it’s done.".encode("utf-8").decode("gbk", "ignore"))
    'The city’s “third move  it’s done.'
    """
    if sum(text.count(mark) for mark in GBK_MARKS) < GBK_MIN_MARKS:
        return None
    try:
        raw = b"".join(
            b"\xff".join(part.encode("gb18030") for part in text[at : at + _SLICE].split("\ufffd"))
            for at in range(0, len(text), _SLICE)
        )
    except UnicodeEncodeError:  # a lone surrogate: no decoder gave it
        return None
    plain = raw.decode("utf-8", errors="replace").replace("\ufffd", "")
    _, cjk, common = _counts(plain)
    if cjk == 0:
        return plain
    if common >= GBK_MIN_COMMON and common >= GBK_COMMON * cjk and common > _counts(text)[2]:
        return raw.decode("utf-8", errors=_LOST_GB18030 if _PRIVATE_USE.search(text) else _LOST_ERRORS)
    return None


#: Bytes of a character's UTF-8 that may be lost, each dropped or replaced (by a byte no UTF-8 has), and the
#: character still guessed.
_LOST_BYTES: Final = 2
_LOST_ERRORS: Final = "nshash.lost"
_LOST_GB18030: Final = "nshash.lost-gb18030"
#: Characters GB18030 reads GBK's unassigned pairs as (private use): a text holding one was read by GB18030.
_PRIVATE_USE: Final = re.compile("[\ue000-\uf8ff]")
#: The characters a byte taken for 0x80 may give in a text GBK read (:func:`_lost_0x80`).
_LIKELY: Final = COMMON_CHINESE + "\u3000"


@functools.cache
def _lost_forms() -> dict[bytes, str]:
    """What the UTF-8 of :data:`COMMON_CHINESE`'s characters becomes when bytes are lost -> the commonest."""
    forms: dict[bytes, str] = {}
    for char in COMMON_CHINESE:  # the commonest first: it keeps a form others share
        full = char.encode("utf-8")
        for count in range(1, min(_LOST_BYTES, len(full) - 1) + 1):
            # Two lost leave a byte: the character's first (a lone continuation byte says too little).
            for where in combinations(range(0 if count == 1 else 1, len(full)), count):
                for dropped in product((True, False), repeat=count):
                    lost = dict(zip(where, dropped))  # position -> dropped (or replaced)
                    kept = (0xFF if lost.get(at) is False else byte for at, byte in enumerate(full) if not lost.get(at))
                    forms.setdefault(bytes(kept), char)
    return forms


def _restore_lost(error: UnicodeError, gb18030: bool) -> tuple[str, int]:
    """Reading the bytes again (:func:`read_utf8_as_gbk`): an incomplete character is the commonest its bytes allow.

    Its bytes are those where the decoder stopped, the continuation bytes and lost bytes after them (4 at most),
    or fewer: the longest start that :func:`_lost_0x80` reads, or that some character of
    :data:`COMMON_CHINESE` leaves when bytes are lost.  None: deleted.  ``gb18030``: the text was read by
    GB18030 (see :func:`_lost_0x80`).  What the 5 bytes from there give is remembered (a page of a thousand
    characters stops the decoder ~170 times, mostly at the same few characters).
    """
    if not isinstance(error, UnicodeDecodeError):
        raise error
    char, size = _restore_window(bytes(error.object[error.start : error.start + 5]), gb18030)
    return char, error.start + size


@functools.lru_cache(maxsize=1 << 14)
def _restore_window(window: bytes, gb18030: bool) -> tuple[str, int]:
    """:func:`_restore_lost` on the bytes from where the decoder stopped (5, or fewer at the end): the character
    and how many bytes it takes."""
    try:
        window.decode("utf-8")
        invalid = 1  # not reached: the decoder stopped at the window's first byte
    except UnicodeDecodeError as error:
        invalid = error.end  # the decoder's: the bytes that are no character
    end = invalid
    while end < len(window) and end < 4 and (0x80 <= window[end] <= 0xBF or window[end] == 0xFF):
        end += 1
    forms = _lost_forms()
    for stop in range(end, 0, -1):
        seen = window[:stop]
        char = _lost_0x80(seen, window[stop] if stop < len(window) else 0, gb18030) or forms.get(seen)
        if char is not None:
            return char, stop
    return "", invalid


def _lost_0x80(seen: bytes, after: int, gb18030: bool) -> str | None:
    """The character ``seen`` is when each byte lost before a byte past ASCII was 0x80, ``None`` if no one is.

    GB18030 loses a byte that is no pair's first (0x80), or a first byte before one no pair ends with (ASCII
    but digits and letters): a lost byte followed by one past ASCII was 0x80.  ``U+3000``, an ideographic
    space (a Chinese paragraph's indent), loses it always, ``。`` and ``、`` half of the time.  GBK also
    loses the first byte of a pair it leaves unassigned (GB18030's user-defined areas, which it reads as
    private-use characters): of a text read by GBK (``gb18030`` false), only :data:`_LIKELY` characters.
    ``after``: the byte after ``seen``.  Of several, the commonest, else Chinese punctuation, then an
    ideograph, the one lost last first.
    """
    size = 2 if 0xC2 <= seen[0] <= 0xDF else 3 if 0xE0 <= seen[0] <= 0xEF else 4 if 0xF0 <= seen[0] <= 0xF4 else 0
    following = [*seen[1:], after]
    if len(seen) == size:  # lost bytes replaced, in place
        if any(byte == 0xFF and following[at] < 0x80 for at, byte in enumerate(seen)) or 0xFF not in seen:
            return None
        found = [_one_char(seen.replace(b"\xff", b"\x80"))]
    elif len(seen) + 1 == size and 0xFF not in seen and after >= 0x80:  # dropped: before ASCII, it may be any
        found = [_one_char(seen[:at] + b"\x80" + seen[at:]) for at in range(1, size)]
    else:
        return None
    chars = [char for char in found if char is not None and (gb18030 or char in _LIKELY)]
    likely = [char for char in chars if char in _LIKELY]
    if likely:
        return min(likely, key=_LIKELY.index)
    # Chinese punctuation before ideographs before the rest (CJK Extension A's are rare), the one lost last first.
    return min(
        chars[::-1], key=lambda char: (not "\u3000" <= char <= "\u303f", not "\u4e00" <= char <= "\u9fff"), default=None
    )


def _one_char(data: bytes) -> str | None:
    """``data`` as UTF-8 when it is one character."""
    try:
        char = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return char if len(char) == 1 else None


for _name, _gb18030 in ((_LOST_ERRORS, False), (_LOST_GB18030, True)):
    codecs.register_error(_name, functools.partial(_restore_lost, gb18030=_gb18030))


def _counts(text: str) -> tuple[int, int, int]:
    """``text``'s characters past ASCII, CJK and in :data:`COMMON_CHINESE`, counted a slice at a time.

    Counted whole, a page took 22 bytes a character (``benchmarks/odd_input.py``'s ``misread-gb``: its Big5
    reading alternates CJK and other characters, and ``re.sub`` keeps an object for each piece between).
    """
    wide = cjk = common = 0
    for at in range(0, len(text), _SLICE):
        part = text[at : at + _SLICE]
        wide += len(part) - len(part.encode("ascii", errors="ignore"))
        cjk += len(part) - len(_CJK_RE.sub("", part))
        common += len(part) - len(_COMMON_RE.sub("", part))
    return wide, cjk, common
