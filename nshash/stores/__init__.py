"""HashDB stores and the registry that opens them by name.

``NSHash(hashdb='memory' | 'leveldb' | 'redis' | <HashDB object>)`` goes
through :func:`open_store`.  A backend whose dependency is optional is imported
only when it is asked for.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from nshash.errors import ArgumentError, ArgumentTypeError, NSHashError, StoreNameError, UnknownOptionError
from nshash.stores.base import TABLES, HashDB
from nshash.stores.leveldb import HashDBLeveldb
from nshash.stores.memory import HashDBMemory
from nshash.stores.view import StoreView

StoreFactory = Callable[..., HashDB]


# Where the file-backed kinds keep the index called NAME: the one place that says so.
_PATHS: dict[str, str] = {"memory": "{}.hashdb.pkl", "leveldb": "{}.hashdb"}


def store_path(kind: str, name: str | os.PathLike[str]) -> str | None:
    """The file or directory where ``hashdb=kind`` keeps the index ``name``; ``None`` for other kinds (servers).

    >>> store_path("leveldb", "news"), store_path("redis", "news")
    ('news.hashdb', None)
    """
    pattern = _PATHS.get(kind)
    return None if pattern is None else pattern.format(os.fspath(name))


def _memory(name: str | None, **options: Any) -> HashDB:
    _check_name(name)
    return HashDBMemory(None if name is None else store_path("memory", name), **options)


def _leveldb(name: str | None, **options: Any) -> HashDB:
    if name is None:
        raise ArgumentError("hashdb='leveldb' needs a name: its directory is '<name>.hashdb'")
    _check_name(name)
    return HashDBLeveldb(f"{store_path('leveldb', name)}", **options)


def _redis(name: str | None, **options: Any) -> HashDB:
    from nshash.stores.redis import HashDBRedis

    return HashDBRedis(prefix=name or "nshash", **options)


def _check_name(name: str | None) -> None:
    if name is not None and not os.fspath(name).strip():
        raise StoreNameError(
            f"name {name!r} would make a hidden file '.hashdb...': give a name, or name=None to stay in memory"
        )


_REGISTRY: dict[str, StoreFactory] = {"memory": _memory, "leveldb": _leveldb, "redis": _redis}


def register_store(kind: str, factory: StoreFactory) -> None:
    """Make ``hashdb=kind`` open a store built by ``factory(name, **store_options)``."""
    _REGISTRY[kind] = factory


def open_store(hashdb: str | HashDB, name: str | None, store_options: dict[str, Any] | None = None) -> HashDB:
    """The store for ``hashdb``: a registered kind opened for ``name``, or a ready store object.

    Raises:
        ArgumentError: unknown kind (a ``ValueError``).
        ArgumentTypeError: neither a kind nor a :class:`HashDB` (a ``TypeError``).
        UnknownOptionError: a store option the store does not take (a ``TypeError``).
    """
    if isinstance(hashdb, HashDB):
        if store_options:
            raise ArgumentError("store_options apply only when hashdb is given by name")
        return hashdb
    if isinstance(hashdb, str):
        try:
            factory = _REGISTRY[hashdb]
        except KeyError:
            known = ", ".join(sorted(_REGISTRY))
            raise ArgumentError(f"unknown hashdb {hashdb!r}; use one of: {known}, or a HashDB object") from None
        try:
            return factory(name, **(store_options or {}))
        except TypeError as exc:
            # A store option the store's constructor does not take: say so as an nshash error.
            if isinstance(exc, NSHashError) or "unexpected keyword argument" not in str(exc):
                raise
            raise UnknownOptionError(f"store_options for hashdb={hashdb!r}: {exc}") from exc
    raise ArgumentTypeError(f"hashdb must be a store name or a HashDB object, not {type(hashdb).__name__}")


__all__ = [
    "TABLES",
    "HashDB",
    "HashDBLeveldb",
    "HashDBMemory",
    "StoreView",
    "open_store",
    "register_store",
    "store_path",
]
