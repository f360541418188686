"""The decision in C: one C call a page (``nshash/_assign.h``).

The C implements :func:`nshash.decide.assign_python`; tests compare the two.
On the memory store it reads and writes the store's own C tables (and its log
of pending writes).  A store without C tables (LevelDB, Redis) marks its view
``reads_through``: the C then decides on a :class:`ReadThrough` cache in front
of the view, fetching what it reads through ``view.get_many`` in batches, and
its writes go to ``view.put_many`` after the call.
:func:`similar_native` computes the features in the same call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from nshash._accel import speedups
from nshash.boilerplate import FP, LINE, STAT
from nshash.clusters import PARENT
from nshash.fingerprint import Features
from nshash.match import Match
from nshash.members import SKETCH
from nshash.options import Options
from nshash.sketch import Sketch
from nshash.stores.memory_table import IntTable, new_table
from nshash.stores.view import StoreView

#: The tables the decision reads and writes, in the order the C's ``assign`` takes them.
TABLES: Final = (FP, PARENT, STAT, SKETCH, LINE)


def assign_native(view: StoreView, features: Features, options: Options) -> Match | None:
    """The decision made in C, when ``view`` lends its C tables or reads through; ``None`` leaves it to Python.

    The C hands back the rare turns before it writes anything: an empty page,
    a candidate whose id is past the 64-bit entry keys.
    """
    decided = _in_c(
        view,
        lambda tables, pending: speedups.assign(  # type: ignore[union-attr]
            tables, pending, features, _c_options(options), view.allocate_id
        ),
    )
    return None if decided is None else Match(*decided)


def similar_native(
    view: StoreView, text: str, feature_args: tuple[int, ...], options: Options
) -> Match | Features | None:
    """A document's features and decision in one C call, when ``view`` lends its C tables or reads through.

    ``feature_args``: what :meth:`~nshash.fingerprint.Fingerprinter.features`
    passes the C.  The :class:`~nshash.Match`; or, for the rare turns the C
    decision hands back (nothing written), the :class:`~nshash.fingerprint.Features`
    for :func:`~nshash.decide.assign_python`; ``None`` when the C cannot take
    the page (no C tables, or features only Python computes).
    """
    out = _in_c(
        view,
        lambda tables, pending: speedups.similar(  # type: ignore[union-attr]
            text, feature_args, tables, pending, _c_options(options), view.allocate_id
        ),
    )
    if out is None:
        return None
    match, found = out
    if match is not None:
        return Match(*match)
    return None if found is None else _features(found)


def similar_many_native(
    view: StoreView, texts: list[str], start: int, feature_args: tuple[int, ...], options: Options
) -> tuple[list[int], int, Features | None] | None:
    """:func:`similar_native` on ``texts[start:]`` in one C call, in order, until the C hands a page back.

    ``(ids, stop, features)``: the similar ids of ``texts[start:stop]``; ``stop``,
    the page handed back (``len(texts)`` when none was) and its features, as
    :func:`similar_native` gives them (``None`` when only Python computes them).
    ``None`` when ``view`` takes no C decision.
    """
    out = _in_c(
        view,
        lambda tables, pending: speedups.similar_many(  # type: ignore[union-attr]
            texts, start, feature_args, tables, pending, _c_options(options), view.allocate_id
        ),
    )
    if out is None:
        return None
    ids, stop, found = out
    return ids, stop, None if found is None else _features(found)


def assign_many_native(
    view: StoreView, features: list[Features], start: int, options: Options
) -> tuple[list[int], int] | None:
    """:func:`assign_native` on ``features[start:]`` in one C call, in order, until the C hands a page back.

    ``(ids, stop)``: the similar ids of ``features[start:stop]``; ``stop``, the
    page handed back, nothing written for it (``len(features)`` when none was).
    ``None`` when ``view`` takes no C decision.
    """
    out = _in_c(
        view,
        lambda tables, pending: speedups.assign_many(  # type: ignore[union-attr]
            features, start, tables, pending, _c_options(options), view.allocate_id
        ),
    )
    if out is None:
        return None
    ids, stop = out
    return ids, stop


def assign_packed_native(
    view: StoreView, blob: bytes, offset: int, options: Options
) -> tuple[list[int], int, Features | None] | None:
    """:func:`assign_native` on the pages packed in ``blob`` (:mod:`nshash.packed`) from byte ``offset`` on, one C call.

    ``(ids, offset, features)``: the similar ids of the pages decided, where
    the next page starts, and the features of the page the C handed back
    (nothing written for it; ``None`` when none was).  ``None`` when ``view``
    takes no C decision.
    """
    out = _in_c(
        view,
        lambda tables, pending: speedups.assign_packed(  # type: ignore[union-attr]
            blob, offset, tables, pending, _c_options(options), view.allocate_id
        ),
    )
    if out is None:
        return None
    ids, offset, found = out
    return ids, offset, None if found is None else _features(found)


def _features(found: tuple[Any, ...]) -> Features:
    keys, positions, doc_key, (grams, slots), *lines = found
    return Features(keys, positions, doc_key, Sketch(grams, slots), *lines)


def _in_c(view: StoreView, call: Callable[[Any, Any], Any]) -> Any:
    """``call(tables, pending)`` on the C tables ``view`` lends, or on a cache read through it (its writes then
    handed to the view); ``None`` when ``view`` takes no C decision."""
    if speedups is None or (lent := _lent_tables(view)) is None:
        return None
    tables, pending, cache = lent
    out = call(tables, pending)
    if cache is not None:
        cache.flush()
    return out


def _lent_tables(view: StoreView) -> tuple[tuple[Any, ...], tuple[Any, ...] | None, ReadThrough | None] | None:
    """The C tables :data:`TABLES`, their log of pending writes and the cache to flush after the call.

    The memory store's own (``native_tables``), a :class:`ReadThrough` cache
    when the view ``reads_through``, else ``None``.
    """
    native = getattr(view, "native_tables", None)
    if native is not None:
        lent = native(TABLES)
        return None if lent is None else (*lent, None)
    if getattr(view, "reads_through", False):
        kept = getattr(view, "kept_cache", None)
        cache = ReadThrough(view, None if kept is None else kept(TABLES))
        return cache.tables, cache.pending, cache
    return None


class ReadThrough:
    """C tables in front of a store view that has none, for one C call.

    The C fetches the keys it is about to read (:meth:`fetch`: a page's
    fingerprints in one call, its lines in another, the parents of the clusters
    they name in a third, a candidate's first members in one more) and keeps
    what it got, absences too.  Its writes go to those tables and to the
    pending ones, which :meth:`flush` hands to the view.  A cache lives for
    one call (between calls, Python may write to the view), unless the view
    keeps one (``kept_cache``: :meth:`~nshash.stores.leveldb.HashDBLeveldb.kept_cache`,
    a store no other process writes); its writes then go to ``view.put_cached``,
    so the view knows they are in the cache.
    """

    def __init__(self, view: StoreView, kept: tuple[Any, ...] | None = None) -> None:
        self.view = view
        tables = kept if kept is not None else [new_table(name) for name in TABLES]
        # With a kept cache, the store's filter of the keys it holds: the C marks a key it rules out absent
        # without a fetch (a new page's keys, mostly).
        probe = view.kept_filter(TABLES) if kept is not None else None  # type: ignore[attr-defined]
        self.tables: tuple[Any, ...] = (*tables, self.fetch, probe)
        self.pending: tuple[IntTable, ...] = tuple([new_table() for _ in TABLES])
        # A kept cache's view takes the C's own keys and writes unchecked, and knows the cache holds the writes.
        self._get = view.get_cached if kept is not None else view.get_many  # type: ignore[attr-defined]
        self._put = view.put_cached if kept is not None else view.put_many  # type: ignore[attr-defined]

    def fetch(self, table: int, keys: list[int]) -> list[int | None]:
        """The values of ``keys`` in table ``TABLES[table]`` (``None`` where absent)."""
        return self._get(TABLES[table], keys)

    def flush(self) -> None:
        """The C's writes, to the view."""
        for name, written in zip(TABLES, self.pending):
            if len(written):
                self._put(name, list(written.items()))


#: The last options and their C tuple: an index passes the same Options object on every page,
#: and hashing it (all its fields) for a cache took as long as the rest of this module's Python.
_last_options: tuple[Options, tuple[int, int, int, float, float, bool, int]] | None = None


def _c_options(options: Options) -> tuple[int, int, int, float, float, bool, int]:
    global _last_options
    last = _last_options
    if last is not None and last[0] is options:
        return last[1]
    values = (
        options.n,
        options.min_match,
        options.members,
        options.verify,
        options.verify_voted,
        options.boilerplate,
        options.boilerplate_after,
    )
    _last_options = (options, values)
    return values
