"""Batch near-duplicate clustering on a Dask cluster: :func:`nshash.similar_ids` at scale.

The expensive part of deciding, reading and fingerprinting pages, runs on the
workers, partition by partition; the decision itself (:mod:`nshash.decide`,
a few microseconds a page) runs here, in input order, exactly as
:func:`nshash.similar_ids` runs it, so the ids are the same for any
partitioning.  Only features travel to this process, one window of
partitions at a time, never the texts.
"""

from __future__ import annotations

from typing import Any

from nshash.batch import all_features, cluster_features, new_index
from nshash.errors import ArgumentError, ArgumentTypeError, missing_dependency


def _dask() -> tuple[Any, Any]:
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:
        raise missing_dependency("dask", "dask") from exc
    return dask, dd


def _pandas() -> Any:
    import pandas as pd

    return pd


def _partition_features(texts: Any, options: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """On a worker: the index labels and features of one partition."""
    index = new_index(options)
    return list(texts.index), all_features(index, texts.tolist(), list(texts.index))


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


def similar_ids(data: Any, column: str | None = None, **options: Any) -> Any:
    """The ids of :func:`nshash.similar_ids`, computed on a Dask cluster.

    Args:
        data: a Dask Series of ``str``/``bytes`` documents, or a Dask DataFrame
            with the documents in ``column``.
        column: the text column of a DataFrame.
        **options: the options of :func:`nshash.similar_ids`.

    Returns:
        A Dask Series named ``similar_id`` with the partitions and index of
        ``data``.  Partition lengths, document frequencies and the components
        are computed eagerly (on the cluster); the last step is lazy.

    Raises:
        MissingDependencyError: dask is not installed.
        TypeError, ValueError: bad ``data``, ``column`` or option.
        DocumentTypeError, DocumentDecodeError: a bad document, when computed.

    >>> import dask.dataframe as dd, pandas as pd
    >>> import nshash.dask
    >>> texts = pd.Series(["One long sentence of the article. Another long sentence.",
    ...                    "Something else entirely, long enough.",
    ...                    "By Jane. One long sentence of the article. Another long sentence."])
    >>> nshash.dask.similar_ids(dd.from_pandas(texts, npartitions=2)).compute().tolist()
    [1, 2, 1]
    """
    dask, dd = _dask()
    pd = _pandas()
    new_index(options)  # check the options here, before any work is sent out
    texts = _text_series(data, column, dd)
    parts = texts.to_delayed()
    labels: list[list[Any]] = []
    features: list[Any] = []
    window = max(1, 2 * _workers(dask))
    for start in range(0, len(parts), window):
        for part_labels, part_features in dask.compute(
            *[dask.delayed(_partition_features)(part, options) for part in parts[start : start + window]]
        ):
            labels.append(part_labels)
            features.extend(part_features)
    ids = cluster_features(options, features)
    out = []
    offset = 0
    for part_labels in labels:
        chunk = ids[offset : offset + len(part_labels)]
        offset += len(part_labels)
        index = pd.Index(part_labels, dtype=texts.index.dtype)
        out.append(pd.Series(chunk, index=index, name="similar_id", dtype="int64"))
    meta = pd.Series([], dtype="int64", name="similar_id", index=pd.Index([], dtype=texts.index.dtype))
    return dd.from_delayed([dask.delayed(lambda s: s)(series) for series in out], meta=meta, divisions=texts.divisions)


def _workers(dask: Any) -> int:
    """Workers of the current distributed client, 1 without one."""
    try:
        from distributed import get_client

        return len(get_client().scheduler_info()["workers"]) or 1
    except (ImportError, ValueError):
        return 1
