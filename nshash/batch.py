"""Batch near-duplicate clustering: a whole list (or Series) of documents in one call.

:func:`similar_ids` runs :mod:`nshash.decide`'s rule, the very rule of the
online :meth:`nshash.NSHash.get_similar`, over the documents in input order on
a private in-memory index, with a pre-pass that sees every document first:

1. **Pre-pass.**  The documents are assigned once to learn which sentences
   are boilerplate (keys whose candidates fail verification) and which are
   content (keys that led to a verified match).
2. **Pass.**  A fresh index that starts with that knowledge assigns them
   again, so a site's footer is known before its first page is met, and an
   article's copies that arrive before it are judged as its later copies are.
3. **Ids** are numbered 1, 2, 3... by the first document of each cluster.

Both passes run the same decision, so the batch result is at least as precise
as the online one: it differs only in knowing the boilerplate from the start.
:mod:`nshash.dask` computes the features on a cluster and makes the same calls.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Union

from nshash.boilerplate import STAT, carry_over
from nshash.errors import DocumentDecodeError, DocumentTypeError, UnknownOptionError
from nshash.options import OPTION_NAMES

if TYPE_CHECKING:
    import pandas as pd

    from nshash.core import NSHash
    from nshash.fingerprint import Features

Texts = Union[Iterable[Union[str, bytes]], "pd.Series[Any]"]


def new_index(options: dict[str, Any]) -> NSHash:
    """The private in-memory index of a batch run (validates the options)."""
    from nshash.core import NSHash

    unknown = sorted(set(options) - {*OPTION_NAMES, "hashfunc", "errors"})
    if unknown:
        raise UnknownOptionError(
            f"unknown option(s) {', '.join(unknown)}; similar_ids takes {', '.join(OPTION_NAMES)} and errors"
        )
    return NSHash(None, **options)


def assign_all(index: NSHash, features: Iterable[Features]) -> list[int]:
    """Assign every document's features in order; return the raw ids."""
    assign = index._assign
    transaction = index.store.transaction
    return [transaction(lambda view, f=f: assign(view, f)) for f in features]  # type: ignore[misc]


def cluster_features(options: dict[str, Any], features: Sequence[Features]) -> list[int]:
    """Steps 1-3 on precomputed features: the batch ids of the documents they came from."""
    index = new_index(options)
    if index.opts.boilerplate:
        assign_all(index, features)
        learned = index.store.local_tables()
        fresh = new_index(options)
        if learned is not None:
            carry_over(learned[STAT], fresh.store, index.opts.boilerplate_after)
        index = fresh
    return number_components(index.resolve_many(assign_all(index, features)))


def number_components(roots: Iterable[int]) -> list[int]:
    """Renumber cluster ids 1, 2, 3... in order of first appearance.

    >>> number_components([7, 3, 7, 9])
    [1, 2, 1, 3]
    """
    ids: dict[int, int] = {}
    return [ids.setdefault(root, len(ids) + 1) for root in roots]


def all_features(index: NSHash, texts: Iterable[Any], labels: Sequence[Any] | None = None, start: int = 0) -> list[Any]:
    """Every document's features; a bad one raises with its position (from ``start``) and label."""
    if isinstance(texts, (str, bytes, bytearray)):
        raise TypeError("texts must be a list (or Series) of documents, not a single document")
    from nshash.text import coerce_document

    out = []
    for position, doc in enumerate(texts):
        try:
            out.append(index._features(coerce_document(doc, index.errors)))
        except (DocumentTypeError, DocumentDecodeError) as exc:
            where = f"document {start + position}"
            if labels is not None:
                where += f" (index {labels[position]!r})"
            missing = doc is None or (isinstance(doc, float) and doc != doc)
            hint = "; fill missing values first, e.g. series.fillna('')" if missing else ""
            raise type(exc)(f"{where}: {exc}{hint}") from exc
    return out


def similar_ids(texts: Texts, **options: Any) -> list[int] | pd.Series[Any]:
    """Cluster ids of many documents, decided with every document seen first.

    The same decision rule as a ``get_similar`` loop (see :mod:`nshash.batch`),
    with boilerplate known from a pre-pass.  Deterministic; ids are 1, 2, 3...
    by the first document of each cluster.

    Args:
        texts: ``str``/``bytes`` documents: a list or any iterable (returns a
            ``list[int]``), or a pandas Series (returns a Series named
            ``similar_id`` with the same index).
        **options: :class:`~nshash.NSHash`'s options (``hashfunc``, ``n``,
            ``verify``, ...) and ``errors``.

    Raises:
        DocumentTypeError, DocumentDecodeError: a bad document (the message gives its position).
        OptionError: an unknown option or a bad option value (a ``ValueError``).

    >>> import nshash
    >>> article = "The first long sentence of the article. The second long sentence of it."
    >>> nshash.similar_ids([article, "Something else entirely, long enough.", "By Jane. " + article])
    [1, 2, 1]
    """
    index = new_index(options)
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(texts, pd.Series):
        ids = cluster_features(options, all_features(index, texts.tolist(), texts.index))
        return pd.Series(ids, index=texts.index, name="similar_id", dtype="int64")
    return cluster_features(options, all_features(index, texts))
