"""Tokens and their 64-bit hashes for SimHash and Shingles, computed with numpy.

A document becomes a sequence of *units*: a word of a space-separated script
(English) or a single character of Chinese/Japanese, where words are not
separated (``tokenizer='jieba'`` makes Chinese words the units instead).  A
feature is ``n`` consecutive units (:func:`ngram_hashes`, Shingles' shingles)
or a run of ``n`` characters inside a unit (:func:`char_ngram_hashes`,
SimHash's default), hashed to an unsigned 64-bit int.

Hashing runs over whole arrays, never a Python loop per token: the document's
code points go into a ``uint64`` array, a span's hash is a polynomial hash read
off prefix sums (every product wraps modulo 2**64, which numpy does natively),
an n-gram's hash combines ``n`` unit hashes the same way, and MurmurHash3's
64-bit finaliser mixes the result.  Everything is fixed-width integer
arithmetic, so the values are the same on every platform; they are persisted
in stores, so they must never change (the tests pin some).
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any, Final

from nshash.errors import OptionError, missing_dependency
from nshash.text import strip_html

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    U64Array = npt.NDArray[np.uint64]
else:
    U64Array = Any


def require_numpy() -> None:
    """Fail early, with the extra to install, when numpy (SimHash, Shingles) is missing."""
    try:
        import numpy  # noqa: F401
    except ImportError as exc:
        raise missing_dependency("numpy", "algorithms") from exc


#: Names of the tokenizers; the name is persisted with a store.
TOKENIZERS: Final = ("default", "jieba")

_MASK64: Final = (1 << 64) - 1
# Odd multiplier of the polynomial hashes (the golden-ratio constant), so it has
# an inverse modulo 2**64 and prefix sums can be "divided" out.
_BASE: Final = 0x9E3779B97F4A7C15
_BASE_INV: Final = pow(_BASE, -1, 1 << 64)
_MIX1: Final = 0xFF51AFD7ED558CCD
_MIX2: Final = 0xC4CEB9FE1A85EC53

# Runs of anything but letters and digits become one space.
_NON_WORD: Final = re.compile(r"[\W_]+")
# Code points at or above this are never letters or digits (unassigned planes,
# tags, private use), so the classification table stops here.
_TABLE_SIZE: Final = 0x40000
# Scripts written without spaces between words: each character is a unit.
_CJK_RANGES: Final = ((0x2E80, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x3FFFF))
_BREAK, _LETTER, _CJK = 0, 1, 2


def mix64(value: int) -> int:
    """MurmurHash3's 64-bit finaliser: a bijection that spreads every input bit.

    >>> mix64(1)
    12994781566227106604
    """
    value &= _MASK64
    value ^= value >> 33
    value = (value * _MIX1) & _MASK64
    value ^= value >> 33
    value = (value * _MIX2) & _MASK64
    return value ^ (value >> 33)


def mix64_array(values: U64Array) -> U64Array:
    """:func:`mix64` of every element of a ``uint64`` array."""
    import numpy as np

    shift = np.uint64(33)
    values = values ^ (values >> shift)
    values *= np.uint64(_MIX1)
    values ^= values >> shift
    values *= np.uint64(_MIX2)
    values ^= values >> shift
    return values


class _Powers:
    """``BASE**t`` and ``BASE**-t`` modulo 2**64, grown on demand and shared by threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # One attribute, replaced whole: a reader never sees one new and one old array.
        self._tables: tuple[U64Array, U64Array] | None = None

    def get(self, length: int) -> tuple[U64Array, U64Array]:
        tables = self._tables
        if tables is not None and len(tables[0]) >= length:
            return tables
        import numpy as np

        with self._lock:
            size = max(4096, 1 << max(length - 1, 1).bit_length())
            one = np.ones(1, dtype=np.uint64)
            # cumprod wraps modulo 2**64 like every uint64 product in numpy.
            up = np.cumprod(np.full(size - 1, _BASE, dtype=np.uint64), dtype=np.uint64)
            down = np.cumprod(np.full(size - 1, _BASE_INV, dtype=np.uint64), dtype=np.uint64)
            tables = (np.concatenate([one, up]), np.concatenate([one, down]))
            self._tables = tables
            return tables


_POWERS = _Powers()


def span_hashes(codes: U64Array, starts: U64Array, ends: U64Array, mix: bool = True) -> U64Array:
    """Hash of each span ``codes[starts[i]:ends[i] + 1]`` (inclusive ends), as ``uint64``.

    The polynomial hash of a span is read off one prefix-sum array: with
    ``Q[t] = sum(c[s] * BASE**-s for s <= t)``, the span ``i..j`` hashes to
    ``(Q[j] - Q[i-1]) * BASE**j``.  The span length is mixed in as well.
    ``mix=False`` skips the finaliser, for hashes that are combined and mixed later.
    """
    import numpy as np

    raw = _polynomial(codes, starts, ends) ^ ((ends - starts + np.uint64(1)) * np.uint64(_MIX2))
    return mix64_array(raw) if mix else raw


def _polynomial(values: U64Array, starts: U64Array, ends: U64Array) -> U64Array:
    """``sum(values[t] * BASE**(end - t) for t in start..end)`` modulo 2**64 for every span."""
    import numpy as np

    up, down = _POWERS.get(len(values))
    prefix = np.zeros(len(values) + 1, dtype=np.uint64)
    np.cumsum(values * down[: len(values)], out=prefix[1:])
    return (prefix[ends + np.uint64(1)] - prefix[starts]) * up[ends]  # type: ignore[no-any-return]


def canonical(text: str) -> str:
    """The text that features are taken from: no HTML, lower case, punctuation runs as one space.

    >>> canonical("<p>Hello,  World!</p> 你好，世界。")
    ' hello world 你好 世界 '
    """
    return _NON_WORD.sub(" ", strip_html(text).lower())


Units = tuple[U64Array, U64Array, U64Array]


def units(text: str, tokenizer: str = "default") -> Units:
    """``(codes, starts, ends)``: the code points units are read from and each unit's inclusive span.

    The units are the words of :func:`canonical`, with every CJK character a
    unit of its own (jieba's words with ``tokenizer='jieba'``).
    """
    if tokenizer == "jieba":
        return _jieba_units(text)
    import numpy as np

    raw = np.frombuffer(strip_html(text).lower().encode("utf-32-le", "surrogatepass"), dtype="<u4")
    if not len(raw):
        empty = np.zeros(0, dtype=np.uint64)
        return empty, empty, empty
    # One table lookup classifies every character as [\W_] does (what canonical()
    # turns into spaces), without building the canonical string; code points past
    # the table clip to its last entry, a break.
    kind = _CLASSES.get().take(raw, mode="clip")
    # edge[i + 1]: character i ends a run of letters; both ends of the text do.
    edge = np.ones(len(raw) + 2, dtype=bool)
    np.not_equal(kind, _LETTER, out=edge[1:-1])
    cjk = kind == _CJK
    in_unit = kind != _BREAK
    # A unit starts after an edge and ends before one; a CJK character is a unit of its own.
    starts = _positions(in_unit & (cjk | edge[:-2]))
    ends = _positions(in_unit & (cjk | edge[2:]))
    return raw.astype(np.uint64), starts, ends


def _positions(mask: Any) -> U64Array:
    """Indices of the true entries, as ``uint64`` (no copy where ``intp`` is 64-bit)."""
    import numpy as np

    found = np.flatnonzero(mask)
    return found.view(np.uint64) if found.dtype.itemsize == 8 else found.astype(np.uint64)


def unit_hashes(text: str, tokenizer: str = "default") -> U64Array:
    """The 64-bit hash of each unit (word, or CJK character) of ``text``, in order.

    >>> [hex(h) for h in unit_hashes("Hi 你好")]
    ['0x5119b74336fd54ec', '0xc8b478a4f21bf978', '0x253cb11273ffc69a']
    """
    return span_hashes(*units(text, tokenizer))


def char_ngram_hashes(text: str, n: int, tokenizer: str = "default") -> U64Array:
    """Hashes of the runs of ``n`` characters inside each unit; a unit shorter than ``n`` is one run.

    A CJK character is a unit of one character, so it is a feature of its own.

    >>> len(char_ngram_hashes("hello 你好 ok", 3))  # hel ell llo, 你, 好, ok
    6
    """
    import numpy as np

    codes, starts, ends = units(text, tokenizer)
    if not len(starts):
        return starts
    size = np.uint64(n)
    lengths = ends - starts + np.uint64(1)
    long = lengths > size
    if not long.any():  # Chinese text: every unit is one run
        return span_hashes(codes, starts, ends)
    runs = np.where(long, lengths - size + np.uint64(1), np.uint64(1)).astype(np.intp)
    owner = np.repeat(np.arange(len(starts)), runs)
    first = np.cumsum(runs) - runs
    run_starts = starts[owner] + (np.arange(len(owner)) - first[owner]).astype(np.uint64)
    run_ends = np.where(long[owner], run_starts + (size - np.uint64(1)), ends[owner])
    return span_hashes(codes, run_starts, run_ends)


class _Classes:
    """The class of every code point below ``_TABLE_SIZE`` (+1 entry for all above), built once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._table: Any = None

    def get(self) -> Any:
        if self._table is None:
            import numpy as np

            with self._lock:
                # isalnum() is what re's \w means, less the underscore (~15 ms once).
                table = np.array([chr(code).isalnum() for code in range(_TABLE_SIZE)] + [False], dtype=np.uint8)
                for low, high in _CJK_RANGES:
                    table[low : high + 1] *= _CJK
                self._table = table
        return self._table


_CLASSES = _Classes()


def _code_points(text: str) -> U64Array:
    import numpy as np

    raw = text.encode("utf-32-le", "surrogatepass")
    return np.frombuffer(raw, dtype="<u4").astype(np.uint64)


def _jieba_units(text: str) -> Units:
    try:
        import jieba
    except ImportError as exc:
        raise missing_dependency("jieba", "jieba") from exc
    import numpy as np

    # jieba segments better with punctuation in place; what is left of a token
    # after canonicalisation is the unit (punctuation tokens vanish).
    words = [word for word in (_NON_WORD.sub("", token) for token in jieba.lcut(strip_html(text).lower())) if word]
    lengths = np.array([len(word) for word in words], dtype=np.uint64)
    ends = np.cumsum(lengths, dtype=np.uint64) - np.uint64(1)
    return _code_points("".join(words)), ends + np.uint64(1) - lengths, ends


def ngram_hashes(units: U64Array, n: int) -> U64Array:
    """Hashes of the ``n``-grams of consecutive units; one hash of them all when fewer than ``n``.

    >>> import numpy as np
    >>> len(ngram_hashes(np.arange(5, dtype=np.uint64), 3)), len(ngram_hashes(np.arange(2, dtype=np.uint64), 3))
    (3, 1)
    """
    import numpy as np

    count = len(units)
    if count == 0:
        return units
    n = min(n, count)
    windows = count - n + 1
    if n <= 10:  # measured: n passes beat the prefix sums' fixed ~12 up to here
        combined = units[:windows].copy()
        base = np.uint64(_BASE)
        for offset in range(1, n):
            combined *= base
            combined += units[offset : offset + windows]
    else:
        # The same polynomial, sum(u[t] * BASE**(end - t)), read off prefix sums:
        # a fixed number of passes over the array, whatever ``n``.
        starts = np.arange(windows, dtype=np.uint64)
        combined = _polynomial(units, starts, starts + np.uint64(n - 1))
    return mix64_array(combined ^ np.uint64(n))


#: What a feature is made of: runs of characters inside words, or runs of words.
FEATURES: Final = ("chars", "words")


def features(text: str, n: int, tokenizer: str = "default", kind: str = "words") -> U64Array:
    """The 64-bit hashes of the features of ``text`` (repeats kept, in order).

    ``kind='words'``: runs of ``n`` units (:func:`ngram_hashes`); ``'chars'``:
    runs of ``n`` characters inside units (:func:`char_ngram_hashes`).
    """
    if kind == "chars":
        return char_ngram_hashes(text, n, tokenizer)
    # ngram_hashes mixes its result, so the unit hashes need not be mixed first.
    return ngram_hashes(span_hashes(*units(text, tokenizer), mix=False), n)


def check_tokenizer(tokenizer: str) -> str:
    """Reject an unknown tokenizer name; fail early when jieba is asked for but missing.

    Raises:
        ValueError: unknown name.
        MissingDependencyError: ``'jieba'`` without the jieba package.
    """
    if tokenizer not in TOKENIZERS:
        raise OptionError(f"tokenizer must be one of {', '.join(TOKENIZERS)}, not {tokenizer!r}")
    if tokenizer == "jieba":
        try:
            import jieba  # noqa: F401
        except ImportError as exc:
            raise missing_dependency("jieba", "jieba") from exc
    return tokenizer
