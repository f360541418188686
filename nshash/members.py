"""What a cluster keeps of its first documents (its members), and reading them back.

A member is a document's sketch and line filter (:class:`~nshash.sketch.Member`),
stored as :data:`~nshash.sketch.ENTRIES` 64-bit words in the ``sketch`` table
under :func:`~nshash.sketch.entry_keys`, so every store holds it as ints.
"""

from __future__ import annotations

from typing import Final

from nshash._accel import speedups
from nshash.fingerprint import Features
from nshash.sketch import ENTRIES, Member, entry_keys, from_entries, line_filter, member_tail, to_entries
from nshash.stores.view import StoreView

SKETCH: Final = "sketch"


def load_entries(view: StoreView, clusters: list[int], members: int) -> list[int | None]:
    """The stored entries of each cluster's first ``members`` documents (:data:`~nshash.sketch.ENTRIES` each)."""
    if not clusters:
        return []
    keys = speedups.entry_keys(clusters, members) if speedups is not None else None
    if keys is None:  # pure Python, or ids too large for the C's 64-bit keys
        keys = [key for cluster in clusters for member in range(members) for key in entry_keys(cluster, member)]
    return list(view.get_many(SKETCH, keys))


def members_at(entries: list[int | None], index: int, members: int) -> list[Member]:
    """The stored members of the ``index``-th cluster of ``entries``, up to the first one missing."""
    found = []
    for member in range(members):
        start = (index * members + member) * ENTRIES
        value = from_entries(entries[start : start + ENTRIES])
        if value is None:
            break
        found.append(value)
    return found


def load_members(view: StoreView, clusters: list[int], members: int) -> dict[int, list[Member]]:
    """The stored members (sketch and edge lines) of each cluster's first ``members`` documents."""
    entries = load_entries(view, clusters, members)
    return {cluster: members_at(entries, index, members) for index, cluster in enumerate(clusters)}


def stored_form(features: Features) -> list[int]:
    """What a cluster keeps of a document: :func:`~nshash.sketch.to_entries` of its sketch and line filter."""
    if speedups is not None:
        return list(speedups.member_entries(features.line_keys, features.line_grams, *features.sketch))
    return to_entries(
        Member(features.sketch, line_filter(features.line_keys), member_tail(features.line_keys, features.line_grams))
    )


def add_member(view: StoreView, cluster: int, features: Features, members: int, known: int | None) -> None:
    """Keep the document as one of the cluster's first ``members`` documents, if there is room."""
    if known is None:
        known = len(load_members(view, [cluster], members)[cluster])
    if known < members:
        view.put_many(SKETCH, list(zip(entry_keys(cluster, known), stored_form(features))))
