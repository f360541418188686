"""The algorithms by name, and :func:`open`: an index reopened with the algorithm and options it was built with.

Every index records its algorithm and fingerprint options in its store (the
meta key ``options``), so a program that only reads an index, or adds to it
later, need not repeat them.  The ``nshash`` command reopens indexes through
here too.
"""

from __future__ import annotations

import importlib
import json
import os
from typing import Any, Final

from nshash.errors import (
    IndexNotFoundError,
    OptionError,
    OptionsMismatchError,
    StoreCorruptError,
    UnknownOptionError,
)
from nshash.index import RUN_SETTINGS, Index
from nshash.log import get_logger
from nshash.options import RECORDED_ONLY
from nshash.stores import HashDB, open_store, store_path

log = get_logger(__name__)

#: Algorithm names (as recorded in a store, and ``nshash --algorithm``) -> ``"module:Class"``
#: of an :class:`~nshash.Index` subclass, imported only when used.  A new algorithm adds one line here.
ALGORITHMS: dict[str, str] = {
    "nshash": "nshash.core:NSHash",
    "shingles": "nshash.shingles:Shingles",
    "simhash": "nshash.simhash:SimHash",
}
DEFAULT: Final = "nshash"


def algorithm_class(name: str) -> type[Index]:
    """The :class:`~nshash.Index` subclass of an algorithm name.

    >>> algorithm_class("simhash").__name__
    'SimHash'

    Raises:
        OptionError: an unknown name (a ``ValueError``).
    """
    try:
        target = ALGORITHMS[name]
    except (KeyError, TypeError):
        raise OptionError(f"unknown algorithm {name!r}; choose one of: {', '.join(sorted(ALGORITHMS))}") from None
    module, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module), attr)
    if not (isinstance(cls, type) and issubclass(cls, Index)):
        raise OptionError(f"algorithm {name!r} ({target}) is not an nshash Index")
    return cls


def check_options(cls: type[Index], options: dict[str, Any]) -> dict[str, Any]:
    """``options``, after checking that ``cls`` takes each of them.

    Raises:
        UnknownOptionError: a name ``cls`` does not take (a ``TypeError``), with the ones it does.
    """
    unknown = sorted(set(options) - {*cls.option_names, *RUN_SETTINGS})
    if unknown:
        known = ", ".join(cls.option_names)
        raise UnknownOptionError(f"unknown option(s) {', '.join(unknown)} for {cls.__name__}; options: {known}")
    return options


def recorded_options(store: HashDB) -> dict[str, Any] | None:
    """The algorithm and options recorded in ``store``, or ``None`` when it holds no index.

    Raises:
        StoreCorruptError: the record is unreadable.
    """
    raw = store.get_meta("options")
    if raw is None:
        return None
    try:
        recorded = json.loads(raw)
    except ValueError:
        recorded = None
    if not isinstance(recorded, dict):
        raise StoreCorruptError(f"{store.describe()} has unreadable options {raw!r}")
    return recorded


def open(
    name: str | os.PathLike[str],
    hashdb: str | HashDB = "memory",
    *,
    store_options: dict[str, Any] | None = None,
    algorithm: str | None = None,
    create: bool = False,
    **options: Any,
) -> Index:
    """Reopen the index ``name`` with the algorithm (NSHash, SimHash, Shingles) and options it was built with.

    Args:
        name: the index's name (as given to ``NSHash(name, ...)``).
        hashdb: ``'memory'``, ``'leveldb'``, ``'redis'``, another registered
            kind, or a ready :class:`~nshash.HashDB` (which the index then closes).
        store_options: passed to the store when ``hashdb`` is a kind.
        algorithm: the algorithm expected (``'nshash'``, ``'simhash'``,
            ``'shingles'``); ``None`` takes the recorded one.  With ``create``,
            the algorithm of a new index (default ``'nshash'``).
        create: make a new index when there is none, instead of raising.
        options: run settings (``errors``, ``removable``) and options that must
            agree with the recorded ones (a new index: its options).

    Returns:
        The index (an :class:`~nshash.NSHash`, :class:`~nshash.SimHash` or
        :class:`~nshash.Shingles`); closing it closes its store.

    Raises:
        IndexNotFoundError: no index under that name (a :class:`~nshash.StoreError`).
        OptionsMismatchError: ``algorithm`` or an option differs from the recorded one.
        UnknownOptionError: an option the algorithm does not take.

    Example:
        >>> import os, tempfile, nshash
        >>> name = os.path.join(tempfile.mkdtemp(), "news")
        >>> with nshash.SimHash(name, hashdb="leveldb", k=4) as built:
        ...     first = built.get_similar("One page of text about the weather today.")
        >>> with nshash.open(name, hashdb="leveldb") as index:
        ...     type(index).__name__, index.k, index.get_similar("One page of text about the weather today.")
        ('SimHash', 4, 1)
    """
    name = os.fspath(name)
    if isinstance(hashdb, str) and not create:
        # Looking must not create a file-backed index.
        path = store_path(hashdb, name)
        if path is not None and not os.path.exists(path):
            raise IndexNotFoundError(f"no nshash index {name!r} in store {hashdb!r} (looked for {path})")
    store = open_store(hashdb, name, store_options)
    owned = not isinstance(hashdb, HashDB)
    try:
        recorded = recorded_options(store)
        if recorded is None:
            if not create:
                raise IndexNotFoundError(f"{store.describe()} holds no nshash index {name!r}: pass create=True")
            cls = algorithm_class(algorithm or DEFAULT)
            given = options
        else:
            built_with = str(recorded.get("algorithm"))
            if algorithm is not None and algorithm != built_with:
                raise OptionsMismatchError(
                    f"index {name!r} was built with algorithm {built_with!r}, not {algorithm!r}; use another name"
                )
            cls = algorithm_class(built_with)
            # The recorded options, and the given ones on top: the index refuses any that differ.
            given = {key: value for key, value in recorded.items() if key not in RECORDED_ONLY} | options
        log.info("opened %s (%s)", store.describe(), "new index" if recorded is None else "existing index")
        # The index gets the open store, so a large memory store is loaded once.
        index = cls(name, hashdb=store, **check_options(cls, given))
    except BaseException:
        if owned:
            store.close()
        raise
    # Opened here, so the index closes it (an index given a store object only flushes it).
    index._owns_store = owned
    return index
