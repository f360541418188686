"""Batch near-duplicate clustering on a Dask cluster: :func:`nshash.similar_ids` at scale.

The expensive part of deciding, reading and fingerprinting pages, runs on the
workers, partition by partition; the decision itself (:mod:`nshash.decide`)
runs here, in input order, exactly as :func:`nshash.similar_ids` runs it, so
the ids are the same for any partitioning.

Memory here stays small per page: the features of a partition are assigned as
soon as they arrive (workers compute the next partitions meanwhile) and
dropped; what is kept is the in-memory index of the run and one 64-bit id a
page.  The ids go back to the workers, which attach them to their own
partitions, so the result is aligned with ``data`` even when its divisions are
unknown (``read_parquet``/``read_json`` globs) and Dask fuses or splits
partitions differently when the result is computed.
"""

from __future__ import annotations

import re
import sys
from array import array
from collections import deque
from collections.abc import Iterator
from typing import Any, Final

from nshash.batch import all_features, final_ids, new_index
from nshash.errors import ArgumentError, ArgumentTypeError, MissingDependencyError, NSHashError, missing_dependency
from nshash.packed import pack

#: Partitions being fingerprinted on the workers ahead of the assignment, per worker.
AHEAD_PER_WORKER = 2


#: The oldest Dask that passes the ids on: from 2024.3 to 2025.4 its map_partitions gave a delayed
#: argument to the function uncomputed ("Delayed objects of unspecified length have no len()").
DASK_MIN: Final = (2025, 5)


def _dask() -> tuple[Any, Any]:
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:
        raise missing_dependency("dask", "dask") from exc
    version = str(getattr(dask, "__version__", "0"))
    if tuple(int(part) for part in re.findall(r"\d+", version)[:2]) < DASK_MIN:
        raise MissingDependencyError(
            f"nshash.dask needs dask {DASK_MIN[0]}.{DASK_MIN[1]} or later, found {version}: "
            "pip install -U 'nshash[dask]'"
        )
    return dask, dd


def _version() -> str:
    from nshash import __version__

    return __version__


def _partition_features(texts: Any, options: dict[str, Any], version: str) -> bytes:
    """On a worker: the features of one partition's documents, in order, packed (:mod:`nshash.packed`).

    One ``bytes`` a partition travels as a buffer, and the C decides straight
    from it here (:meth:`NSHash._assign_packed <nshash.NSHash>`): as Python objects, the
    features cost more to pack, send and unpack than the decision itself.
    """
    if _version() != version:
        # Another version may key or clean pages differently: the ids would silently differ.
        raise NSHashError(f"a Dask worker has nshash {_version()}, this process {version}: install the same version")
    return pack(all_features(new_index(options), texts.tolist(), texts.index))


def _lengths(index: Any) -> Any:
    import pandas as pd

    return pd.Series([len(index)], dtype="int64")


def _with_ids(index: Any, end: Any, ids: Any) -> Any:
    """On a worker: a partition's slice of the ids on its ``index`` (``end``: rows up to its end)."""
    import pandas as pd

    stop = int(end.iloc[0])
    start = stop - len(index)
    if stop > len(ids) or start < 0:
        raise NSHashError(
            f"the input has other rows now than when its ids were computed ({stop:,} read, {len(ids):,} ids): "
            "compute the result from the same, unchanged data"
        )
    return pd.Series(ids[start:stop], index=index, name="similar_id", dtype="int64")


def _text_series(data: Any, column: str | None, dd: Any) -> Any:
    if isinstance(data, dd.DataFrame):
        if column is None:
            raise ArgumentError(f"pass column= to say which column holds the texts (columns: {list(data.columns)})")
        if column not in data.columns:
            raise ArgumentError(f"no column {column!r}; columns: {list(data.columns)}")
        return data[column]
    if isinstance(data, dd.Series):
        if column is not None:
            raise ArgumentError("column= is for a Dask DataFrame; this is a Series")
        return data
    raise ArgumentTypeError(f"data must be a Dask DataFrame or Series, not {type(data).__name__}")


def similar_ids(data: Any, column: str | None = None, *, progress: bool = False, **options: Any) -> Any:
    """The ids of :func:`nshash.similar_ids`, computed on a Dask cluster.

    Args:
        data: a Dask Series of ``str``/``bytes`` documents, or a Dask DataFrame
            with the documents in ``column`` (known or unknown divisions).
        column: the text column of a DataFrame.
        progress: show a progress bar of the pages assigned on stderr (needs ``nshash[progress]``).
        **options: the options of :func:`nshash.similar_ids`.

    Returns:
        A Dask Series named ``similar_id`` with the partitions and index of
        ``data``, ready for ``ddf["similar_id"] = ...``.  The ids are computed
        by this call (features on the workers, decisions here); attaching
        them to the partitions is lazy and reads ``data``'s index again
        (not its texts), which must not have changed in between.

    Raises:
        MissingDependencyError: dask (or, with ``progress``, tqdm) is not installed.
        TypeError, ValueError: bad ``data``, ``column`` or option.
        DocumentTypeError, DocumentDecodeError: a bad document (the message
            gives its partition, position in it and index label).
        NSHashError: a worker has another nshash version.

    >>> import dask.dataframe as dd, pandas as pd
    >>> import nshash.dask
    >>> texts = pd.Series(["One long sentence of the article. Another long sentence.",
    ...                    "Something else entirely, long enough.",
    ...                    "By Jane. One long sentence of the article. Another long sentence."])
    >>> nshash.dask.similar_ids(dd.from_pandas(texts, npartitions=2)).compute().tolist()
    [1, 2, 1]
    """
    dask, dd = _dask()
    import numpy as np
    import pandas as pd

    new_index(options)  # check the options here, before any work is sent out
    texts = _text_series(data, column, dd)
    bar = None
    if progress:
        from nshash.many import _tqdm

        bar = _tqdm()(unit=" doc", file=sys.stderr, dynamic_ncols=True)
    try:
        ids = np.asarray(_assign_in_order(dask, texts, options, bar), dtype="int64")
    finally:
        if bar is not None:
            bar.close()
    # Rows up to the end of each partition, as Dask partitions the data when the result is computed.
    # Only the index is read again: a DataFrame's, so that no column is (a Series' own keeps its column).
    index = data.index if isinstance(data, dd.DataFrame) else texts.index
    ends = index.map_partitions(_lengths, meta=pd.Series([], dtype="int64")).cumsum()
    meta = pd.Series([], dtype="int64", name="similar_id", index=texts._meta.index)
    return index.map_partitions(_with_ids, ends, dask.delayed(ids), meta=meta)


def _assign_in_order(dask: Any, texts: Any, options: dict[str, Any], bar: Any) -> list[int]:
    """The batch ids of every document of ``texts``, in order (the features of one partition in memory at a time)."""
    index = new_index(options)
    raw = array("Q")  # one 8-byte id a page, not a Python int object
    for number, features in enumerate(_features_in_order(dask, texts, options)):
        if isinstance(features, NSHashError):  # a bad document: say which partition it is in
            raise type(features)(f"partition {number}: {features}") from features
        before = len(raw)
        raw.extend(index._assign_packed(features))
        if bar is not None:
            bar.update(len(raw) - before)
    return final_ids(index, raw)


def _features_in_order(dask: Any, texts: Any, options: dict[str, Any]) -> Iterator[Any]:
    """Each partition's features (or its error), in order, computed ahead on the workers."""
    tasks = [dask.delayed(_partition_features)(part, options, _version()) for part in texts.to_delayed()]
    client = _client()
    if client is None:  # the local scheduler: one partition at a time
        for task in tasks:
            yield _result(lambda task=task: dask.compute(task)[0])
        return
    ahead = AHEAD_PER_WORKER * max(1, len(client.scheduler_info()["workers"]))
    pending: deque[Any] = deque()
    for start in range(0, len(tasks), ahead):
        # Submitted a batch at a time (one graph each), so Dask reads and keys
        # partitions in order while earlier ones are assigned here.
        pending.extend(client.compute(tasks[start : start + ahead]))
        while len(pending) > ahead:
            yield _result(pending.popleft().result)
    while pending:
        yield _result(pending.popleft().result)


def _result(get: Any) -> Any:
    try:
        return get()
    except NSHashError as exc:
        return exc


def _client() -> Any:
    """The current distributed client, or ``None``."""
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError):
        return None
