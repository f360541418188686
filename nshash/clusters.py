"""Cluster ids that merge transitively: a union-find kept in the store's ``parent`` table.

Every algorithm uses these functions, so merging behaves the same whatever
finds the matches.  A merged cluster always points to the smaller id, so the
canonical id of a cluster is the id of its oldest document.
"""

from __future__ import annotations

from collections.abc import Iterable

from nshash.stores.view import StoreView

PARENT = "parent"


def find_roots(view: StoreView, ids: Iterable[int]) -> dict[int, int]:
    """Map each id to its current canonical id, compressing long chains on the way.

    ``view`` is a store or a store transaction view.
    """
    pending = list(dict.fromkeys(ids))
    parents = view.get_many(PARENT, pending)
    if not any(parents):  # the common case: no cluster here was ever merged
        return dict(zip(pending, pending))
    roots: dict[int, int] = {}
    compress: list[tuple[int, int]] = []
    for start, parent in zip(pending, parents):
        if parent is None:
            roots[start] = start
            continue
        chain = [start]
        node = parent
        while True:
            above = view.get_many(PARENT, [node])[0]
            if above is None:
                break
            chain.append(node)
            node = above
        roots[start] = node
        if len(chain) > 1:
            compress.extend((member, node) for member in chain)
    if compress:
        view.put_many(PARENT, compress)
    return roots


def merge(view: StoreView, roots: Iterable[int]) -> int:
    """Merge the clusters with these canonical ids into the smallest; return it."""
    ordered = sorted(set(roots))
    target = ordered[0]
    if len(ordered) > 1:
        view.put_many(PARENT, [(root, target) for root in ordered[1:]])
    return target
