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

from nshash.errors import ArgumentTypeError, HashFuncError, OptionError

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


#: Texts a custom hash function is tried on when an index opens: their hashes
#: go into the recorded name, so a different function under the same name is
#: detected (the stored options then differ) instead of silently giving new ids.
_PROBES = ("", "a", "nshash", "第一句话足够长，可以作为指纹。", "\x01tail mark", "x" * 300)


class NamedHashFunc:
    """A custom hash function with the name the index records for it (see :func:`named_hashfunc`)."""

    def __init__(self, name: str, func: Callable[[str], int | bytes]) -> None:
        if not isinstance(name, str) or not name.strip():
            raise HashFuncError(f"a hash function's name must be a non-empty str, not {name!r}")
        if not callable(func):
            raise ArgumentTypeError(f"func must be callable, not {type(func).__name__}")
        self.name = name
        self.func = func

    def __call__(self, text: str) -> int | bytes:
        return self.func(text)

    def __repr__(self) -> str:
        return f"named_hashfunc({self.name!r}, {self.func!r})"


def named_hashfunc(name: str, func: Callable[[str], int | bytes]) -> NamedHashFunc:
    """Give a custom hash function (a lambda, a local function) the name the index records.

    Change the name whenever the function changes: an index built with one
    function gives ids that never match another's.

    >>> h = named_hashfunc("length-x7919", lambda s: len(s) * 7919)
    >>> resolve_hashfunc(h)[0]
    'length-x7919#8e97de64'
    """
    return NamedHashFunc(name, func)


def resolve_hashfunc(hashfunc: str | HashFunc) -> tuple[str, HashFunc]:
    """Return ``(name, function)`` for a hash function given by name or as a callable.

    A callable must map ``str`` to ``int`` (taken modulo 2**64) or ``bytes``
    (the first 8 bytes are used).  The store records its name,
    ``module.qualname`` (or the one given with :func:`named_hashfunc`),
    followed by a digest of its hashes of a few fixed texts, so reopening a
    store with another function, even one of the same name, is refused.

    Raises:
        OptionError: unknown name (a ``ValueError``).
        HashFuncError: a callable that cannot be found again by its name (a
            lambda, a function defined inside another): wrap it in
            :func:`named_hashfunc`.  Also a ``ValueError``.
        ArgumentTypeError: neither a name nor a callable (a ``TypeError``).
    """
    if isinstance(hashfunc, str):
        try:
            return hashfunc, HASHFUNCS[hashfunc]
        except KeyError:
            known = ", ".join(sorted(HASHFUNCS))
            raise OptionError(f"unknown hashfunc {hashfunc!r}; use one of: {known}, or a callable") from None
    if isinstance(hashfunc, NamedHashFunc):
        name, func = hashfunc.name, hashfunc.func
    elif callable(hashfunc):
        name, func = _qualified_name(hashfunc), hashfunc
    else:
        raise ArgumentTypeError(f"hashfunc must be a name or a callable, not {type(hashfunc).__name__}")
    wrapped = _wrap_user_hash(func)
    return f"{name}#{_behaviour_digest(wrapped)}", wrapped


def _qualified_name(func: Callable[..., object]) -> str:
    """``module.qualname`` of a function that can be found again by that name."""
    module = getattr(func, "__module__", None)
    qualname = getattr(func, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        shown = f"{module}.{qualname}" if isinstance(qualname, str) else repr(func)
        raise HashFuncError(
            f"hashfunc {shown} cannot be identified when the index is reopened (a lambda, a local "
            "function or a callable object); give it a name: "
            "hashfunc=nshash.hashing.named_hashfunc('my-hash-v1', func)"
        )
    return f"{module}.{qualname}"


def _behaviour_digest(func: HashFunc) -> str:
    """8 hex digits that change when ``func`` hashes the probe texts differently."""
    values = []
    for text in _PROBES:
        try:
            values.append(func(text))
        except Exception as exc:
            raise HashFuncError(f"hashfunc failed on the test text {text!r}: {exc!r}") from exc
    return hashlib.sha256(repr(values).encode()).hexdigest()[:8]


def _wrap_user_hash(func: Callable[[str], int | bytes]) -> HashFunc:
    def wrapped(text: str) -> int:
        value = func(text)
        if isinstance(value, bytes):
            if len(value) < 8:
                raise HashFuncError(f"hashfunc returned {len(value)} bytes; at least 8 are needed")
            return int.from_bytes(value[:8], "big")
        if isinstance(value, int):
            return value & _MASK64
        raise ArgumentTypeError(f"hashfunc must return int or bytes, not {type(value).__name__}")

    return wrapped
