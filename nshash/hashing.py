"""Named, stable 64-bit hash functions for sentence fingerprints.

Fingerprints are persisted in stores, so a hash function must give the same
value on every platform and every version of its library: FarmHash's
``Fingerprint64`` is documented as stable, ``hash64`` is not.  md5 is kept for
users of the original nshash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import farmhash

HashFunc = Callable[[str], int]

_MASK64 = (1 << 64) - 1


def _encode(text: str) -> bytes:
    # Lone surrogates cannot be encoded strictly; surrogatepass keeps them
    # distinct instead of crashing or collapsing them to '?'.
    return text.encode("utf-8", "surrogatepass")


def farmhash64(text: str) -> int:
    """FarmHash Fingerprint64 of the UTF-8 bytes of ``text`` (unsigned 64-bit).

    >>> farmhash64("abc")
    2640714258260161385
    """
    try:
        return farmhash.fingerprint64(text)  # type: ignore[no-any-return]
    except UnicodeEncodeError:
        return farmhash.fingerprint64(_encode(text))  # type: ignore[no-any-return]


def md5_64(text: str) -> int:
    """The first 8 bytes of the md5 digest of ``text``, as an unsigned big-endian int.

    >>> md5_64("abc")
    10376663631224000432
    """
    return int.from_bytes(hashlib.md5(_encode(text)).digest()[:8], "big")


HASHFUNCS: dict[str, HashFunc] = {"farmhash": farmhash64, "md5": md5_64}


def resolve_hashfunc(hashfunc: str | HashFunc) -> tuple[str, HashFunc]:
    """Return ``(name, function)`` for a hash function given by name or as a callable.

    A callable must map ``str`` to ``int`` (taken modulo 2**64) or ``bytes``
    (the first 8 bytes are used).  Its name, ``module.qualname``, is what the
    store records, so reopening a store with another function is detected.

    Raises:
        ValueError: unknown name.
        TypeError: neither a name nor a callable.
    """
    if isinstance(hashfunc, str):
        try:
            return hashfunc, HASHFUNCS[hashfunc]
        except KeyError:
            known = ", ".join(sorted(HASHFUNCS))
            raise ValueError(f"unknown hashfunc {hashfunc!r}; use one of: {known}, or a callable") from None
    if callable(hashfunc):
        name = f"{getattr(hashfunc, '__module__', '?')}.{getattr(hashfunc, '__qualname__', repr(hashfunc))}"
        return name, _wrap_user_hash(hashfunc)
    raise TypeError(f"hashfunc must be a name or a callable, not {type(hashfunc).__name__}")


def _wrap_user_hash(func: Callable[[str], int | bytes]) -> HashFunc:
    def wrapped(text: str) -> int:
        value = func(text)
        if isinstance(value, bytes):
            if len(value) < 8:
                raise ValueError(f"hashfunc returned {len(value)} bytes; at least 8 are needed")
            return int.from_bytes(value[:8], "big")
        if isinstance(value, int):
            return value & _MASK64
        raise TypeError(f"hashfunc must return int or bytes, not {type(value).__name__}")

    return wrapped
