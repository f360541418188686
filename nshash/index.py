"""What every algorithm shares: its store, persisted options, input checks, cluster ids."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Any, ClassVar, TypeVar

from nshash.clusters import find_roots
from nshash.errors import OptionsMismatchError, StoreCorruptError
from nshash.stores import HashDB, open_store
from nshash.text import coerce_document

IndexT = TypeVar("IndexT", bound="Index")

_OPTIONS_KEY = "options"
_ERRORS = ("strict", "replace", "ignore", "surrogateescape", "backslashreplace")


def _check_id(similar_id: int) -> int:
    # Ids are unsigned 64-bit keys in every store; anything else was never handed out.
    if not 1 <= similar_id < 2**64:
        raise ValueError(f"similar ids are between 1 and 2**64 - 1, got {similar_id}")
    return similar_id


def positive_int(name: str, value: object, minimum: int = 1) -> int:
    """Check an integer option at the boundary: ``ValueError`` naming it, never an assert."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, not {value!r}")
    return value


class Index:
    """Base class of the near-duplicate indexes (:class:`nshash.NSHash` and its siblings).

    A subclass defines ``algorithm``, computes a document's keys in
    :meth:`_features` (pure, no store access) and decides its cluster in
    :meth:`_assign`, which runs inside one store transaction.
    """

    algorithm: ClassVar[str] = ""
    #: Attributes that hold on to the store (left behind when fingerprints are computed elsewhere).
    store_bound: ClassVar[tuple[str, ...]] = ()

    @property
    def cheap_fingerprints(self) -> bool:
        """Whether a document is keyed faster here than it can be sent to a worker process.

        :meth:`get_similar_many` then ignores ``workers`` (the ids are the same either way).
        """
        return False

    def __init__(
        self,
        name: str | os.PathLike[str] | None,
        hashdb: str | HashDB,
        options: dict[str, Any],
        errors: str = "strict",
        store_options: dict[str, Any] | None = None,
    ) -> None:
        if name is not None and not isinstance(name, (str, os.PathLike)):
            raise TypeError(f"name must be a str, a path or None, not {type(name).__name__}")
        if errors not in _ERRORS:
            raise ValueError(f"errors must be one of {', '.join(_ERRORS)}, not {errors!r}")
        self.name = None if name is None else os.fspath(name)
        self.errors = errors
        self.options: dict[str, Any] = {"algorithm": self.algorithm, **options}
        self._owns_store = not isinstance(hashdb, HashDB)
        self.store = open_store(hashdb, self.name, store_options)
        try:
            self.store.transaction(self._check_options)
        except BaseException:
            if self._owns_store:
                self.store.close()
            raise

    def _check_options(self, view: Any) -> None:
        """Record the options in a new store; refuse a store built with other ones."""
        raw = view.get_meta(_OPTIONS_KEY)
        if raw is None:
            if view.count("fp") or view.count("parent"):
                raise StoreCorruptError(
                    f"{self.store.describe()} holds data but no nshash options: it was not written by nshash"
                )
            view.set_meta(_OPTIONS_KEY, json.dumps(self.options, sort_keys=True))
            return
        try:
            stored = json.loads(raw)
        except ValueError as exc:
            raise StoreCorruptError(f"{self.store.describe()} has unreadable options {raw!r}") from exc
        if stored.get("algorithm") == self.algorithm and stored.get("version") != self.options.get("version"):
            raise OptionsMismatchError(
                f"{self.store.describe()} was built by an older nshash (options version {stored.get('version')}, "
                f"this one is {self.options.get('version')}): its keys and decisions cannot be continued; "
                "rebuild it by feeding the documents again into a new store (another name)"
            )
        if stored != self.options:
            keys = sorted(set(stored) | set(self.options))
            diff = ", ".join(
                f"{key}: stored {stored.get(key)!r}, given {self.options.get(key)!r}"
                for key in keys
                if stored.get(key) != self.options.get(key)
            )
            raise OptionsMismatchError(
                f"{self.store.describe()} was built with other options ({diff}); "
                "reopen it with the stored options or use another name"
            )

    # -- public API -------------------------------------------------------------
    def get_similar(self, doc: str | bytes) -> int:
        """The cluster id of ``doc``: the id of an earlier near-duplicate, or a new one.

        Raises:
            DocumentTypeError: ``doc`` is not ``str``/``bytes`` (a ``TypeError``).
            DocumentDecodeError: invalid UTF-8 bytes (a ``ValueError``).
        """
        features = self._features(coerce_document(doc, self.errors))
        return self.store.transaction(lambda view: self._assign(view, features))

    def get_similar_many(self, docs: Iterable[str | bytes], workers: int = 1, progress: bool = False) -> list[int]:
        """Final cluster ids of many documents, in order: a ``get_similar`` loop, then ``resolve_many``.

        ``workers > 1`` computes fingerprints in that many processes (same ids),
        unless :attr:`cheap_fingerprints`; ``progress`` shows a bar on stderr.
        See :func:`nshash.many.get_similar_many`.

        >>> import nshash
        >>> text = "Same long sentence here. And more."
        >>> nshash.NSHash().get_similar_many([text, "Another long sentence.", text])
        [1, 2, 1]
        """
        from nshash.many import get_similar_many

        return get_similar_many(self, docs, workers=workers, progress=progress)

    def resolve(self, similar_id: int) -> int:
        """The current canonical id of an id returned earlier (clusters merge over time).

        >>> import nshash
        >>> nsh = nshash.NSHash()
        >>> nsh.resolve(nsh.get_similar("Hello, near-duplicate world! A second long sentence."))
        1
        """
        if isinstance(similar_id, bool) or not isinstance(similar_id, int):
            raise TypeError(f"similar_id must be an int, not {type(similar_id).__name__}")
        return find_roots(self.store, [_check_id(similar_id)])[similar_id]

    def resolve_many(self, similar_ids: Sequence[int]) -> list[int]:
        """:meth:`resolve` for many ids at once."""
        ids = [_check_id(int(i)) for i in similar_ids]
        roots = find_roots(self.store, ids)
        return [roots[i] for i in ids]

    def stats(self) -> dict[str, Any]:
        """Counts and settings of the index: fingerprints, merges, ids handed out, options."""
        return {
            "store": self.store.describe(),
            "options": dict(self.options),
            "fingerprints": self.store.count("fp"),
            "merged_clusters": self.store.count("parent"),
            "store_bytes": self.store.size_bytes(),
        }

    def flush(self) -> None:
        """Make everything stored so far durable (saves a memory store's file)."""
        self.store.flush()

    def close(self) -> None:
        """Save and close the store (a store object passed in is flushed, not closed)."""
        if self._owns_store:
            self.store.close()
        elif not self.store.closed:
            self.store.flush()

    def __enter__(self: IndexT) -> IndexT:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- what an algorithm defines ------------------------------------------------
    def _features(self, text: str) -> Any:
        raise NotImplementedError

    def _assign(self, view: Any, features: Any) -> int:
        raise NotImplementedError
