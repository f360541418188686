"""What every algorithm shares: its store, persisted options, input checks, cluster ids."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Any, ClassVar, NoReturn, Protocol, TypeVar

from nshash._accel import warn_if_pure_python
from nshash.clusters import find_roots
from nshash.errors import (
    ArgumentError,
    ArgumentTypeError,
    NotRemovableError,
    NSHashError,
    OptionError,
    OptionsMismatchError,
    StoreCorruptError,
    UnknownKeyError,
)
from nshash.keys import KEY, record, user_key, withdraw
from nshash.many import get_similar_many
from nshash.match import Match
from nshash.options import StoredOptions
from nshash.stores import HashDB, open_store
from nshash.stores.view import StoreView
from nshash.text import coerce_document
from nshash.views import DryRun, Recorder

IndexT = TypeVar("IndexT", bound="Index")

_OPTIONS_KEY = "options"
_ERRORS = ("strict", "replace", "ignore", "surrogateescape", "backslashreplace")


def _check_id(similar_id: int) -> int:
    # Ids are unsigned 64-bit keys in every store; anything else was never handed out.
    if not 1 <= similar_id < 2**64:
        raise ArgumentError(f"similar ids are between 1 and 2**64 - 1, got {similar_id}")
    return similar_id


#: Arguments of every index that are settings of a run, not options saved with the data.
RUN_SETTINGS: tuple[str, ...] = ("errors", "removable")


class FeatureSource(Protocol):
    """Options in, a document's features out: pure and picklable, so worker processes compute them."""

    def features(self, text: str) -> Any:
        """The features (keys, sketch, fingerprint...) of a decoded text."""


class Index:
    """Base class of the near-duplicate indexes (:class:`nshash.NSHash` and its siblings).

    A subclass defines ``algorithm`` and ``option_names`` (from its options
    object in :mod:`nshash.options`), sets ``opts`` and ``fingerprinter`` (a
    :class:`FeatureSource`: a document's keys, pure, no store access) before
    calling ``Index.__init__``, and decides a document's cluster in
    :meth:`_decide`, which runs inside one store transaction and returns a
    :class:`~nshash.Match`.
    """

    algorithm: ClassVar[str] = ""
    #: The option names its constructor takes (its options object's fields).
    option_names: ClassVar[tuple[str, ...]] = ()
    opts: StoredOptions
    fingerprinter: FeatureSource

    @property
    def cheap_fingerprints(self) -> bool:
        """Whether a document is keyed faster here than it can be sent to a worker process (``False`` for nshash's own).

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
        removable: bool = False,
    ) -> None:
        warn_if_pure_python()
        if not isinstance(removable, bool):
            raise ArgumentTypeError(f"removable must be a bool, not {type(removable).__name__}")
        self.removable = removable
        if name is not None and not isinstance(name, (str, os.PathLike)):
            raise ArgumentTypeError(f"name must be a str, a path or None, not {type(name).__name__}")
        if errors not in _ERRORS:
            raise OptionError(f"errors must be one of {', '.join(_ERRORS)}, not {errors!r}")
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

    def _check_options(self, view: StoreView) -> None:
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
        return self._similar(coerce_document(doc, self.errors))

    def add(self, doc: str | bytes, key: str | bytes | int | None = None) -> Match:
        """Add ``doc`` (like :meth:`get_similar`) and say what was decided.

        With a ``key`` (a URL, a row id), adding the same key again returns
        the id the key got, whatever the document is now (to re-decide a
        changed page, :meth:`remove` it first); with ``removable=True`` the
        page can be withdrawn later by :meth:`remove`.

        >>> import nshash
        >>> nsh = nshash.NSHash()
        >>> text = "A long enough first sentence here. And another long one too."
        >>> nsh.add(text, key="https://a.example/1").is_new, nsh.add(text).is_new
        (True, False)
        >>> nsh.add("Other text, changed since.", key="https://a.example/1").similar_id
        1

        Raises:
            DocumentTypeError, DocumentDecodeError: as :meth:`get_similar`.
            TypeError: ``key`` is not ``str``, ``bytes``, ``int`` or ``None``.
        """
        features = self._features(coerce_document(doc, self.errors))
        if key is None:
            return self.store.transaction(lambda view: self._decide(view, features))
        user = user_key(key)
        removable = self.removable

        def decide(view: StoreView) -> Match:
            known = view.get_many(KEY, [user])[0]
            if known is not None:
                root = find_roots(view, [known])[known]
                return Match(root, False, 1.0, (root,))
            recorder = Recorder(view) if removable else None
            match = self._decide(recorder or view, features)
            record(view, user, match.similar_id, recorder.owned(match.similar_id) if recorder else None)
            return match

        return self.store.transaction(decide)

    def query(self, doc: str | bytes) -> Match:
        """What :meth:`add` would decide for ``doc``, without storing anything.

        ``similar_id`` is 0 when no cluster matches (``is_new``); the ids
        given out and the boilerplate learned are left as they are.

        >>> import nshash
        >>> nsh = nshash.NSHash()
        >>> text = "A long enough first sentence here. And another long one too."
        >>> nsh.query(text).similar_id, nsh.get_similar(text), nsh.query(text).similar_id
        (0, 1, 1)
        """
        features = self._features(coerce_document(doc, self.errors))
        return self.store.transaction(lambda view: self._decide(DryRun(view), features))

    def remove(self, key: str | bytes | int) -> None:
        """Withdraw the page added under ``key``: its fingerprints no longer match later pages.

        Needs the page to have been added with ``removable=True`` (the index
        then keeps which fingerprints each keyed page owns: about 25 store
        entries a page for NSHash, see :mod:`nshash.keys`).  A fingerprint
        other keyed pages own stays, so the reprints of a removed original
        are still found; the cluster id, merges the page caused and
        sentences found to be boilerplate stay too.

        >>> import nshash
        >>> nsh = nshash.NSHash(removable=True)
        >>> text = "A long enough first sentence here. And another long one too."
        >>> nsh.add(text, key="u1").similar_id
        1
        >>> nsh.remove("u1")
        >>> nsh.query(text).similar_id
        0

        Raises:
            UnknownKeyError: no page was added under ``key`` (a ``KeyError``).
            NotRemovableError: the page was added without ``removable=True``.
        """
        user = user_key(key)

        def withdraw_page(view: StoreView) -> None:
            known = view.get_many(KEY, [user])[0]
            if known is None:
                raise UnknownKeyError(f"no page was added under the key {key!r}")
            if not withdraw(view, user):
                raise NotRemovableError(
                    f"the page under the key {key!r} was added without removable=True: the index does not "
                    "know which fingerprints it added; open the index with removable=True before adding pages"
                )

        self.store.transaction(withdraw_page)

    def get_similar_many(self, docs: Iterable[str | bytes], workers: int = 1, progress: bool = False) -> list[int]:
        """Final cluster ids of many documents, in order: a ``get_similar`` loop, then ``resolve_many``.

        ``workers > 1`` computes the features in that many processes (same ids; with
        the C accelerator sent back packed and decided a chunk in one C call),
        unless :attr:`cheap_fingerprints`; ``progress`` shows a bar on stderr.
        See :func:`nshash.many.get_similar_many`.

        >>> import nshash
        >>> text = "Same long sentence here. And more."
        >>> nshash.NSHash().get_similar_many([text, "Another long sentence.", text])
        [1, 2, 1]
        """
        return get_similar_many(self, docs, workers=workers, progress=progress)

    def resolve(self, similar_id: int) -> int:
        """The current canonical id of an id returned earlier (clusters merge over time).

        >>> import nshash
        >>> nsh = nshash.NSHash()
        >>> nsh.resolve(nsh.get_similar("Hello, near-duplicate world! A second long sentence."))
        1
        """
        if isinstance(similar_id, bool) or not isinstance(similar_id, int):
            raise ArgumentTypeError(f"similar_id must be an int, not {type(similar_id).__name__}")
        return find_roots(self.store, [_check_id(similar_id)])[similar_id]

    def resolve_many(self, similar_ids: Sequence[int]) -> list[int]:
        """:meth:`resolve` for many ids at once."""
        try:
            ids = [_check_id(int(i)) for i in similar_ids]
        except NSHashError:
            raise
        except ValueError as exc:  # int("x")
            raise ArgumentError(f"similar ids are ints: {exc}") from exc
        except TypeError as exc:  # int(None), or not iterable
            raise ArgumentTypeError(f"similar_ids must be an iterable of ints: {exc}") from exc
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

    def __repr__(self) -> str:
        store = getattr(self, "store", None)  # none yet if __init__ failed before opening it
        on = "" if store is None else f" on {repr(store)[1:-1]}"
        return f"<{type(self).__name__} name={getattr(self, 'name', None)!r}{on}>"

    def __reduce_ex__(self, protocol: object) -> NoReturn:
        # What a Pool sends for pool.map(index.get_similar, docs): say why it cannot, and what does.
        raise ArgumentTypeError(
            f"cannot pickle {repr(self)[1:-1]}: an index holds its open store; "
            "to key documents in worker processes use get_similar_many(docs, workers=N) or "
            "nshash.similar_ids(texts, workers=N), or open the index in each process (hashdb='redis' "
            "to share one store)"
        )

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
        return self.fingerprinter.features(text)

    def _decide(self, view: StoreView, features: Any) -> Match:
        raise NotImplementedError

    def _assign(self, view: StoreView, features: Any) -> int:
        return self._decide(view, features).similar_id

    def _similar(self, text: str) -> int:
        """:meth:`get_similar` of a decoded document: its features, then its cluster in one transaction."""
        features = self._features(text)
        return self.store.transaction(lambda view: self._assign(view, features))

    def _similar_all(self, texts: list[str]) -> list[int]:
        """:meth:`_similar` of each decoded document, in order (what :func:`~nshash.many.get_similar_many` calls)."""
        return [self._similar(text) for text in texts]

    def _assign_all(self, features: list[Any]) -> list[int]:
        """:meth:`_assign` of each document's features, in order, a transaction each (batch and Dask call this)."""
        ids = []
        for each in features:
            ids.append(self.store.transaction(lambda view: self._assign(view, each)))  # noqa: B023 (called at once)
        return ids
