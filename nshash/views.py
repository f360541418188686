"""Views an index puts around a store's transaction view.

:class:`DryRun` lets the decision rule run without storing anything
(``query``); :class:`Recorder` notes the fingerprints a document uses, so that
``remove(key)`` can withdraw them later.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from nshash.clusters import find_roots
from nshash.stores.view import StoreView, ViewBase

FP = "fp"


class DryRun(ViewBase):
    """Reads through to ``view``; keeps writes to itself and hands out id 0 (never a real id)."""

    def __init__(self, view: StoreView) -> None:
        self._view = view
        self._writes: dict[str, dict[int, int | None]] = {}

    def get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        written = self._writes.get(table)
        if not written:
            return list(self._view.get_many(table, keys))
        unseen = [key for key in keys if key not in written]
        stored = dict(zip(unseen, self._view.get_many(table, unseen))) if unseen else {}
        return [written[key] if key in written else stored[key] for key in keys]

    def put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        self._writes.setdefault(table, {}).update(items)

    def delete_many(self, table: str, keys: Sequence[int]) -> None:
        self._writes.setdefault(table, {}).update(dict.fromkeys(keys))

    def allocate_id(self) -> int:
        return 0

    def get_meta(self, key: str) -> str | None:
        return self._view.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        pass

    def count(self, table: str) -> int:
        return self._view.count(table)


class Recorder(ViewBase):
    """Passes everything to ``view`` and notes which fingerprint keys the document used.

    See :meth:`owned`: the keys it wrote, and the keys it read that lead to
    the cluster it joined.
    """

    def __init__(self, view: StoreView) -> None:
        self._view = view
        self._read: dict[int, int] = {}
        self._written: list[int] = []

    def owned(self, similar_id: int) -> list[int]:
        """The fingerprint keys that are the document's: written by it, or read and leading to ``similar_id``."""
        values = set(self._read.values())
        roots = find_roots(self._view, [value for value in values if value > 0])
        read = [key for key, value in self._read.items() if value > 0 and roots[value] == similar_id]
        return list(dict.fromkeys([*self._written, *read]))

    def get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        values: list[int | None] = self._view.get_many(table, keys)
        if table == FP:
            for key, value in zip(keys, values):
                if value is not None:
                    self._read.setdefault(key, value)
        return values

    def put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        pairs = list(items)
        if table == FP:
            self._written.extend(key for key, value in pairs if value > 0 and key not in self._read)
        self._view.put_many(table, pairs)

    def delete_many(self, table: str, keys: Sequence[int]) -> None:
        self._view.delete_many(table, keys)

    def allocate_id(self) -> int:
        return int(self._view.allocate_id())

    def get_meta(self, key: str) -> str | None:
        return self._view.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self._view.set_meta(key, value)

    def count(self, table: str) -> int:
        return self._view.count(table)
