"""User keys (a page's URL, a row id): ``add(doc, key=...)`` and ``remove(key)``.

Three tables hold them.  ``key`` maps a user key's hash to the id the page
got.  For an index opened with ``removable=True``, ``undo`` keeps the
fingerprint keys the page owns (entry 0 of a key holds how many, entries
1..n the keys), and ``ref`` counts, for each fingerprint key, the removable
pages that own it: a fingerprint is deleted when the last page owning it is
removed, so removing an original leaves its reprints findable.  That costs
about ``2n + 2`` store entries a page (~25 for NSHash's defaults, ~2 KB in
the memory store).  Pages added without a key own nothing: in an index where
pages are removed, add every page with a key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import farmhash

from nshash.buckets import from_value, to_value
from nshash.errors import ArgumentTypeError
from nshash.features import mix64
from nshash.stores.view import StoreView

KEY: Final = "key"
UNDO: Final = "undo"
REF: Final = "ref"
FP: Final = "fp"
# An odd constant: entries i of different keys land far apart before mixing.
_STEP: Final = 0x9E3779B97F4A7C15
_MASK64: Final = (1 << 64) - 1


def user_key(key: object) -> int:
    """The 64-bit hash a user key (``str``, ``bytes`` or ``int``) is stored under.

    >>> user_key("https://example.com/a") == user_key(b"https://example.com/a")
    True
    """
    if isinstance(key, str):
        data = b"s" + key.encode("utf-8", "surrogatepass")
    elif isinstance(key, (bytes, bytearray, memoryview)):
        data = b"s" + bytes(key)
    elif isinstance(key, int) and not isinstance(key, bool):
        data = b"i" + str(key).encode()
    else:
        raise ArgumentTypeError(f"a key must be a str, bytes or int, not {type(key).__name__}")
    return int(farmhash.fingerprint64(data))


def _undo_keys(user: int, count: int) -> list[int]:
    return [mix64((user + index * _STEP) & _MASK64) for index in range(count + 1)]


def record(view: StoreView, user: int, similar_id: int, owned: Sequence[int] | None) -> None:
    """Store that ``user`` got ``similar_id`` and, if ``owned`` is given, which fingerprints its page owns."""
    view.put_many(KEY, [(user, similar_id)])
    if owned is None:
        return
    slots = _undo_keys(user, len(owned))
    view.put_many(UNDO, [(slots[0], len(owned)), *zip(slots[1:], map(to_value, owned))])
    counts = view.get_many(REF, owned)
    view.put_many(REF, [(key, (count or 0) + 1) for key, count in zip(owned, counts)])


def withdraw(view: StoreView, user: int) -> bool:
    """Forget ``user``'s page: release its fingerprints, deleting those no other removable page owns.

    Returns ``False`` when the page was added without ``removable=True``
    (nothing is changed then).
    """
    count = view.get_many(UNDO, _undo_keys(user, 0))[0]
    if count is None:
        return False
    slots = _undo_keys(user, count)
    owned = [from_value(value) for value in view.get_many(UNDO, slots[1:]) if value is not None]
    counts = view.get_many(REF, owned)
    released = [key for key, count in zip(owned, counts) if (count or 0) <= 1]
    view.put_many(REF, [(key, count - 1) for key, count in zip(owned, counts) if count and count > 1])
    view.delete_many(REF, released)
    values = view.get_many(FP, released)
    # A key marked as boilerplate (value 0) is knowledge about a site, not a page's: it stays.
    view.delete_many(FP, [key for key, value in zip(released, values) if value])
    view.delete_many(UNDO, slots)
    view.delete_many(KEY, [user])
    return True
