"""The boilerplate rule: which sentence keys stop counting.

A key is *boilerplate* (a site's header, footer, licence line or cookie
notice) when it keeps proposing clusters that the whole texts then refuse:
each time a key points a document to a candidate that fails verification,
the key gets one piece of evidence, and at ``boilerplate_after`` pieces it is
marked and no longer proposes anything.  A key that ever led to a verified
match is content of an article and is never marked, however often heavily
edited copies of that article fail later: a popular story cannot lose its
own sentences.  The evidence does not depend on how many pages a site has,
only on failed verifications, so two pages of a site suffice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from nshash.stores.view import StoreView

#: The ``fp`` value of a key marked as boilerplate.
BOILERPLATE: Final = 0
#: The ``stat`` value of a key known to be content (it led to a verified match).
CONTENT: Final = -1
STAT: Final = "stat"
FP: Final = "fp"


def without_boilerplate(
    keys: list[int], values: list[int | None], positions: list[int]
) -> tuple[list[int], list[int | None], list[int]]:
    """Drop the sentences with a key marked as boilerplate."""
    keep = [
        index
        for index in range(len(positions))
        if values[2 * index] != BOILERPLATE and values[2 * index + 1] != BOILERPLATE
    ]
    return (
        [keys[2 * index + side] for index in keep for side in (0, 1)],
        [values[2 * index + side] for index in keep for side in (0, 1)],
        [positions[index] for index in keep],
    )


def record_evidence(view: StoreView, suspects: Sequence[int], content: Sequence[int], after: int) -> None:
    """Count evidence against ``suspects``, protect ``content``; mark keys with ``after`` pieces."""
    keys = list(dict.fromkeys([*suspects, *content]))
    if not keys:
        return
    counts = dict(zip(keys, view.get_many(STAT, keys)))
    updates: dict[int, int] = {key: CONTENT for key in content if counts[key] != CONTENT}
    for key in dict.fromkeys(suspects):
        count = counts[key]
        if count != CONTENT and key not in updates:
            updates[key] = (count or 0) + 1
    if updates:
        view.put_many(STAT, list(updates.items()))
        marked = [(key, BOILERPLATE) for key, count in updates.items() if count >= after]
        if marked:
            view.put_many(FP, marked)
