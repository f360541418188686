"""``nshash.similar_ids``: the batch ids, with missing values passed through and typed overloads.

A column of pages usually has holes (a page that failed to download, a row
without a body).  :func:`similar_ids` gives those rows a missing id instead
of refusing the whole column, so ``df["similar_id"] = nshash.similar_ids(df["content"])``
just works; ``na="raise"`` keeps the strict behaviour (a
:class:`~nshash.DocumentTypeError` naming the first bad position).  The
clustering itself is :func:`nshash.batch.similar_ids`, called on the present
values only, so the ids of the other rows are those a column without the
holes gets.

pandas is not imported here: a Series is recognised only when pandas is
already loaded, so ``import nshash`` stays light.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, Protocol, Union, overload

from nshash import batch
from nshash.errors import OptionError
from nshash.io import is_missing

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NA_POLICIES", "SeriesLike", "similar_ids"]

#: What :func:`similar_ids` does with a missing value (``None``, ``NaN``, ``pd.NA``).
NA_POLICIES = ("keep", "raise")
NAPolicy = Literal["keep", "raise"]
Document = Union[str, bytes]


class SeriesLike(Protocol):
    """What :func:`similar_ids` needs of a pandas Series (a Protocol, so typing it needs no pandas stubs)."""

    @property
    def index(self) -> Any: ...
    def isna(self) -> Any: ...
    def to_numpy(self) -> Any: ...


@overload
def similar_ids(texts: SeriesLike, na: NAPolicy = ..., **options: Any) -> pd.Series[Any]: ...
@overload
def similar_ids(texts: Iterable[Document], na: NAPolicy = ..., **options: Any) -> list[int]: ...
@overload
def similar_ids(texts: Iterable[Document | None], na: Literal["keep"] = ..., **options: Any) -> list[int | None]: ...
def similar_ids(texts: Any, na: NAPolicy = "keep", **options: Any) -> Any:
    """Cluster ids of many documents, decided after seeing all of them (see :mod:`nshash.batch`).

    Args:
        texts: ``str``/``bytes`` documents: a list or any iterable (returns a
            list), or a pandas Series (returns a Series named ``similar_id``
            with the same index).
        na: ``"keep"`` (default): a missing value (``None``, ``NaN``,
            ``pd.NA``, ``NaT``) gets a missing id: ``None`` in a list, ``<NA>``
            in a Series, whose dtype is then pandas' nullable ``Int64`` (it
            stays ``int64`` when nothing is missing). ``"raise"``: a missing
            value raises, as nshash 1.0 did.
        **options: :class:`~nshash.NSHash`'s fingerprint options and ``workers``,
            processes computing the features (see :func:`nshash.batch.similar_ids`).

    Raises:
        DocumentTypeError, DocumentDecodeError: a bad document (the message gives its position).
        TypeError, ValueError: an unknown option, a bad option value or ``na``.

    >>> import nshash
    >>> article = "The first long sentence of the article. The second long sentence of it."
    >>> nshash.similar_ids([article, None, "By Jane. " + article])
    [1, None, 1]
    >>> import pandas as pd
    >>> nshash.similar_ids(pd.Series([article, float("nan")], index=[10, 20])).tolist()
    [1, <NA>]
    """
    if na not in NA_POLICIES:
        raise OptionError(f"na must be one of {', '.join(map(repr, NA_POLICIES))}, not {na!r}")
    if isinstance(texts, (str, bytes)):  # one document, not a list of them: the batch says so
        return batch.similar_ids(texts, **options)
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(texts, pd.Series):
        missing = texts.isna()
        if na == "raise" or not missing.any():
            return batch.similar_ids(texts, **options)
        present: Any = batch.similar_ids(texts[~missing], **options)  # labelled by the index: errors too
        ids = pd.Series(pd.NA, index=texts.index, name="similar_id", dtype="Int64")
        ids[~missing] = present.to_numpy()
        return ids
    docs = list(texts)
    holes = [is_missing(doc) for doc in docs] if na == "keep" else []
    if not any(holes):
        return batch.similar_ids(docs, **options)
    places = [place for place, hole in enumerate(holes) if not hole]
    try:
        present_ids = iter(batch.similar_ids([docs[place] for place in places], **options))
    except (TypeError, ValueError) as exc:
        # The batch names a bad document by its place among the present ones: name it in the input.
        match = _PLACE.match(str(exc))
        if match is None or int(match.group(1)) >= len(places):
            raise
        message = f"document {places[int(match.group(1))]}{str(exc)[match.end() :]}"
        raise type(exc)(message) from exc
    return [None if hole else next(present_ids) for hole in holes]


_PLACE = re.compile(r"document (\d+)")
