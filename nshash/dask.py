"""The batch algorithm of :mod:`nshash.batch` on Dask, for corpora larger than one machine.

:func:`similar_ids` gives exactly the ids :func:`nshash.similar_ids` gives for
the same documents in the same order, whatever the partitioning and the number
of workers.  Nothing is gathered on one machine but a few numbers per
partition; every step is a partition-wise pure function or a shuffle:

1. candidates per partition, each document numbered by its global position
   (partition offsets from partition lengths);
2. document frequencies: shuffle ``(fingerprint, position)`` by fingerprint;
3. boilerplate rounds (largest threshold first): the occurrences of shared
   fingerprints, each with its document's candidates, are shuffled by
   fingerprint and judged group by group with :func:`nshash.batch.is_boilerplate`;
   flags go back to the documents by a range shuffle on position;
4. link keys (:func:`nshash.batch.link_keys`) shuffled by key; each key group
   links its documents (:func:`nshash.batch.key_links`);
5. connected components by alternating large-star and small-star steps
   (Kiveris et al., "Connected Components in MapReduce and Beyond", 2014), each
   a shuffle by node, until neither changes an edge;
6. ids numbered by first document, from per-partition counts.

Needs ``pip install 'nshash[dask]'``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from typing import Any, Final

from nshash.batch import Plan, all_candidates, is_boilerplate, kept_fingerprints, key_links, link_keys
from nshash.errors import missing_dependency

try:
    import numpy as np
except ImportError as exc:  # numpy comes with the dask extra
    raise missing_dependency("numpy", "dask") from exc

POS: Final = "pos"
_INDEX_NAME: Final = "pos"


def _dask() -> tuple[Any, Any]:
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:
        raise missing_dependency("dask", "dask") from exc
    return dask, dd


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError as exc:
        raise missing_dependency("pandas", "dask") from exc
    return pd


# -- frames of numbers ------------------------------------------------------------
def _cand_columns(width: int) -> list[str]:
    return [f"c{j}" for j in range(width)]


def _df_columns(width: int) -> list[str]:
    # Document frequency of each candidate (1 until known; 0 for no candidate).
    return [f"d{j}" for j in range(width)]


def _key_columns(min_match: int) -> list[str]:
    return ["ksize", *(f"k{j}" for j in range(min_match))]


def _docs_meta(plan: Plan) -> Any:
    pd = _pandas()
    columns: dict[str, Any] = {"k": pd.Series([], dtype="int64")}
    for name in _cand_columns(plan.width):
        columns[name] = pd.Series([], dtype="uint64")
    for name in _df_columns(plan.width):
        columns[name] = pd.Series([], dtype="int64")
    columns["mask"] = pd.Series([], dtype="int64")
    return pd.DataFrame(columns, index=pd.Index([], dtype="int64", name=_INDEX_NAME))


def _docs_frame(texts: Any, plan: Plan, offset: int) -> Any:
    """Candidates of one partition of texts, indexed by global position."""
    pd = _pandas()
    labels = texts.index
    cands = all_candidates(plan, texts.tolist(), labels, start=offset)
    width = plan.width
    grid = np.zeros((len(cands), width), dtype=np.uint64)
    for row, fps in enumerate(cands):
        grid[row, : len(fps)] = fps
    frame = pd.DataFrame(grid, columns=_cand_columns(width))
    frame.insert(0, "k", np.array([len(fps) for fps in cands], dtype=np.int64))
    counts = frame["k"].to_numpy()
    for j, name in enumerate(_df_columns(width)):
        frame[name] = (counts > j).astype(np.int64)
    frame["mask"] = np.zeros(len(cands), dtype=np.int64)
    frame.index = pd.RangeIndex(offset, offset + len(cands), name=_INDEX_NAME)
    return frame


def _candidates(docs: Any, width: int) -> list[list[int]]:
    grid = docs[_cand_columns(width)].to_numpy(dtype=np.uint64)
    return [row[:k] for row, k in zip(grid.tolist(), docs["k"].tolist())]


# -- step 2: document frequencies -------------------------------------------------
def _occurrences(docs: Any, width: int) -> Any:
    pd = _pandas()
    cands = _candidates(docs, width)
    pos = docs.index.to_numpy()
    counts = [len(c) for c in cands]
    return pd.DataFrame(
        {
            "f": np.fromiter((fp for c in cands for fp in c), dtype=np.uint64, count=sum(counts)),
            POS: np.repeat(pos, counts).astype(np.int64),
            "slot": np.fromiter((j for c in cands for j in range(len(c))), dtype=np.int64, count=sum(counts)),
        }
    )


def _shared_counts(occ: Any) -> Any:
    """``(pos, slot, df)`` for the occurrences of fingerprints found in two documents or more."""
    df = occ.groupby("f")["f"].transform("size").astype(np.int64)
    out = occ.loc[df > 1, [POS, "slot"]].copy()
    out["df"] = df[df > 1]
    return out


def _attach_df(docs: Any, counts: Any) -> Any:
    if not len(counts):
        return docs
    docs = docs.copy()
    rows = docs.index.get_indexer(counts.index)
    names = [name for name in docs.columns if name.startswith("d")]
    grid = docs[names].to_numpy(dtype=np.int64, copy=True)
    grid[rows, counts["slot"].to_numpy()] = counts["df"].to_numpy()
    docs[names] = grid
    return docs


# -- step 3: boilerplate rounds ---------------------------------------------------
def _round_rows(docs: Any, width: int, threshold: int) -> Any:
    """One row per occurrence of a not-yet-flagged fingerprint in ``threshold`` documents or more."""
    pd = _pandas()
    dfs = docs[_df_columns(width)].to_numpy(dtype=np.int64)
    slots = np.arange(width, dtype=np.int64)
    flagged = (docs["mask"].to_numpy(dtype=np.int64)[:, None] >> slots) & 1
    rows, cols = np.nonzero((dfs >= threshold) & (flagged == 0))
    grid = docs[_cand_columns(width)].to_numpy(dtype=np.uint64)
    out = docs.iloc[rows][["k", *_cand_columns(width), "mask"]].reset_index()
    out.insert(0, "f", grid[rows, cols])
    out.insert(2, "slot", cols.astype(np.int64))
    return pd.DataFrame(out).astype(_round_meta(width).dtypes.to_dict())


def _round_meta(width: int) -> Any:
    pd = _pandas()
    columns = {"f": "uint64", POS: "int64", "slot": "int64", "k": "int64"}
    columns.update({name: "uint64" for name in _cand_columns(width)})
    columns["mask"] = "int64"
    return pd.DataFrame({name: pd.Series([], dtype=dtype) for name, dtype in columns.items()})


def _judge_groups(rows: Any, width: int, threshold: int, last_round: bool) -> Any:
    """``(pos, slot)`` of every occurrence of a fingerprint judged boilerplate in this round."""
    pd = _pandas()
    rows = rows.sort_values(["f", POS], kind="stable")
    fps = rows["f"].to_numpy(dtype=np.uint64)
    cands = _candidates(rows, width)
    masks = rows["mask"].tolist()
    starts = np.flatnonzero(np.r_[True, fps[1:] != fps[:-1]]) if len(fps) else np.zeros(0, dtype=np.int64)
    ends = np.r_[starts[1:], len(fps)]
    keep = np.zeros(len(fps), dtype=bool)
    for start, end in zip(starts.tolist(), ends.tolist()):
        if end - start < threshold:
            continue
        members = cands[start:end]
        ignore = {fp for c, mask in zip(members, masks[start:end]) for j, fp in enumerate(c) if mask >> j & 1}
        if is_boilerplate(int(fps[start]), members, ignore, threshold, last_round):
            keep[start:end] = True
    return pd.DataFrame({POS: rows[POS].to_numpy()[keep], "slot": rows["slot"].to_numpy()[keep]})


def _set_masks(docs: Any, flagged: Any) -> Any:
    if not len(flagged):
        return docs
    docs = docs.copy()
    bits = (np.int64(1) << flagged["slot"].to_numpy(dtype=np.int64)).astype(np.int64)
    extra = _pandas().Series(bits, index=flagged.index).groupby(level=0).agg(np.bitwise_or.reduce)
    docs.loc[extra.index, "mask"] = docs.loc[extra.index, "mask"].to_numpy() | extra.to_numpy()
    return docs


# -- step 4: link keys -----------------------------------------------------------
def _key_rows(docs: Any, plan: Plan) -> Any:
    pd = _pandas()
    m = plan.min_match
    key_cols = _key_columns(m)
    records: list[tuple[int, ...]] = []
    for pos, fps, mask in zip(docs.index.tolist(), _candidates(docs, plan.width), docs["mask"].tolist()):
        flagged = {fp for j, fp in enumerate(fps) if mask >> j & 1}
        keys, small = link_keys(kept_fingerprints(fps, flagged, plan.n), m)
        for key in keys:
            records.append((len(key), *key, *([0] * (m - len(key))), pos, small))
    columns = [*key_cols, POS, "small"]
    frame = pd.DataFrame.from_records(records, columns=columns) if records else pd.DataFrame(columns=columns)
    return frame.astype({"ksize": "int64", **{c: "uint64" for c in key_cols[1:]}, POS: "int64", "small": "bool"})


def _key_edges(rows: Any, min_match: int) -> Any:
    """Edges ``(u, v)``, ``u > v``, that connect the documents each key group links (contracted locally)."""
    key_cols = _key_columns(min_match)
    rows = rows[rows.duplicated(key_cols, keep=False)].sort_values([*key_cols, POS], kind="stable")
    keys = rows[key_cols].to_numpy(dtype=np.uint64)
    changes = np.r_[True, (keys[1:] != keys[:-1]).any(axis=1)] if len(keys) else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(changes)
    ends = np.r_[starts[1:], len(keys)]
    pos = rows[POS].tolist()
    smalls = rows["small"].tolist()
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        root = parent.setdefault(x, x)
        while root != parent[root]:
            root = parent[root]
        while x != root:
            parent[x], x = root, parent[x]
        return root

    for start, end in zip(starts.tolist(), ends.tolist()):
        key = tuple(keys[start, 1 : 1 + int(keys[start, 0])].tolist())
        if key_links(key, smalls[start:end], min_match):
            root = find(pos[start])
            for member in pos[start + 1 : end]:
                other = find(member)
                if other != root:
                    root, other = min(root, other), max(root, other)
                    parent[other] = root
    return _edges({node: find(node) for node in parent})


def _edges(roots: dict[int, int]) -> Any:
    pd = _pandas()
    pairs = [(u, v) for u, v in roots.items() if u != v]
    return pd.DataFrame(
        {"u": np.array([p[0] for p in pairs], dtype=np.int64), "v": np.array([p[1] for p in pairs], dtype=np.int64)}
    )


# -- step 5: connected components -------------------------------------------------
def _large_star(edges: Any) -> Any:
    """Per node ``u``: every larger neighbour is linked to the smallest of ``u`` and its neighbours."""
    edges = edges.drop_duplicates()
    smallest = np.minimum(edges.groupby("u")["v"].transform("min").to_numpy(), edges["u"].to_numpy())
    larger = edges["v"].to_numpy() > edges["u"].to_numpy()
    out = _pandas().DataFrame({"u": edges["v"].to_numpy()[larger], "v": smallest[larger]})
    out["changed"] = smallest[larger] != edges["u"].to_numpy()[larger]
    return out


def _small_star(edges: Any) -> Any:
    """Per node ``u`` (edges oriented ``u > v``): ``u`` and its smaller neighbours are linked to the smallest."""
    pd = _pandas()
    edges = edges.drop_duplicates()
    smallest = edges.groupby("u")["v"].transform("min").to_numpy()
    u, v = edges["u"].to_numpy(), edges["v"].to_numpy()
    moved = v != smallest
    out = pd.concat(
        [
            pd.DataFrame({"u": v[moved], "v": smallest[moved], "changed": True}),
            pd.DataFrame({"u": u, "v": smallest, "changed": moved}).drop_duplicates(["u", "v"]),
        ],
        ignore_index=True,
    )
    return out


def _components(edges: Any, dask: Any, dd: Any) -> Any:
    """Edges ``(u, v)`` from every non-root node to the smallest node of its component."""
    meta = _pandas().DataFrame({"u": np.zeros(0, np.int64), "v": np.zeros(0, np.int64), "changed": np.zeros(0, bool)})
    while True:
        both = dd.concat([edges[["u", "v"]], edges[["v", "u"]].rename(columns={"v": "u", "u": "v"})])
        large = both.shuffle(on="u").map_partitions(_large_star, meta=meta)
        small = large[["u", "v"]].shuffle(on="u").map_partitions(_small_star, meta=meta)
        small, changed_large, changed_small = dask.persist(small, large["changed"].sum(), small["changed"].sum())
        changed = dask.compute(changed_large, changed_small)
        edges = small[["u", "v"]]
        if not any(changed):
            return edges.map_partitions(lambda frame: frame.drop_duplicates(), meta=meta[["u", "v"]])


# -- step 6: ids --------------------------------------------------------------------
def _root_ids(links: Any, roots: Any, start: int, first_id: int) -> Any:
    """Ids of the component roots in one document partition (positions from ``start``)."""
    pd = _pandas()
    nonfirst = np.sort(links.index.to_numpy())
    root_pos = np.unique(roots.index.to_numpy())
    # A root's id: ids given to the first documents before it in this partition.
    ids = first_id + (root_pos - start) - np.searchsorted(nonfirst, root_pos)
    return pd.DataFrame({"v": root_pos.astype(np.int64), "id": ids.astype(np.int64)})


def _partition_ids(size: int, start: int, first_id: int, nonfirst: Any) -> Any:
    ids = np.zeros(size, dtype=np.int64)
    is_nonfirst = np.zeros(size, dtype=bool)
    if len(nonfirst):
        rows = nonfirst.index.to_numpy() - start
        is_nonfirst[rows] = True
        ids[rows] = nonfirst["id"].to_numpy()
    first = ~is_nonfirst
    ids[first] = first_id + np.arange(int(first.sum()), dtype=np.int64)
    return ids


def _finish(index: Any, ids: Any) -> Any:
    return _pandas().Series(np.asarray(ids, dtype=np.int64), index=index, name="similar_id")


# -- the public function -------------------------------------------------------------
def _text_series(data: Any, column: str | None, dd: Any) -> Any:
    if isinstance(data, dd.DataFrame):
        if column is None:
            raise ValueError(f"pass column= to say which column holds the texts (columns: {list(data.columns)})")
        if column not in data.columns:
            raise ValueError(f"no column {column!r}; columns: {list(data.columns)}")
        return data[column]
    if isinstance(data, dd.Series):
        if column is not None:
            raise ValueError("column= is for a Dask DataFrame; this is a Series")
        return data
    raise TypeError(f"data must be a Dask DataFrame or Series, not {type(data).__name__}")


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
    plan = Plan(options)
    texts = _text_series(data, column, dd)

    lengths = [int(n) for n in texts.map_partitions(len, meta=(None, "int64")).compute()]
    offsets = [0, *accumulate(lengths)]
    total = offsets[-1]
    text_parts = texts.to_delayed()
    # Only the index of the input is needed at the end (a column projection for file formats).
    index_parts = texts.index.to_delayed()
    if total == 0:
        return dd.from_delayed(
            [dask.delayed(_finish)(part, np.zeros(0, np.int64)) for part in index_parts],
            meta=pd.Series([], dtype="int64", name="similar_id"),
            divisions=texts.divisions,
        )
    filled = [i for i, n in enumerate(lengths) if n]
    divisions = (*(offsets[i] for i in filled), total - 1)
    docs = dd.from_delayed(
        [dask.delayed(_docs_frame)(text_parts[i], plan, offsets[i]) for i in filled],
        meta=_docs_meta(plan),
        divisions=divisions,
    ).persist()

    if plan.boilerplate:
        docs = _flag_boilerplate(docs, plan, divisions, dask, dd)

    key_meta = _key_rows(_docs_meta(plan), plan)
    keys = docs.map_partitions(_key_rows, plan, meta=key_meta)
    edges_meta = _edges({})
    edges = keys.shuffle(on=_key_columns(plan.min_match)).map_partitions(_key_edges, plan.min_match, meta=edges_meta)
    links = _components(edges, dask, dd)

    # Non-first documents (u) and their component's first document (v), by document partition.
    by_pos = links.set_index("u", divisions=divisions)
    nonfirst_counts = [int(n) for n in by_pos.map_partitions(len, meta=(None, "int64")).compute()]
    first_ids = [
        1 + offsets[i] - sum(nonfirst_counts[:k]) for k, i in enumerate(filled)
    ]  # 1 + first documents before the partition
    starts = [offsets[i] for i in filled]
    roots = links[["v"]].drop_duplicates().assign(r=1).set_index("v", divisions=divisions)
    root_ids = dd.from_delayed(
        [
            dask.delayed(_root_ids)(lk, rt, start, first)
            for lk, rt, start, first in zip(by_pos.to_delayed(), roots.to_delayed(), starts, first_ids)
        ],
        meta=pd.DataFrame({"v": np.zeros(0, np.int64), "id": np.zeros(0, np.int64)}),
    )
    nonfirst = links.merge(root_ids, on="v")[["u", "id"]].set_index("u", divisions=divisions)
    id_parts = {
        i: dask.delayed(_partition_ids)(lengths[i], start, first, part)
        for i, start, first, part in zip(filled, starts, first_ids, nonfirst.to_delayed())
    }
    return dd.from_delayed(
        [dask.delayed(_finish)(part, id_parts.get(i, np.zeros(0, np.int64))) for i, part in enumerate(index_parts)],
        meta=pd.Series([], dtype="int64", name="similar_id"),
        divisions=texts.divisions,
    )


def _flag_boilerplate(docs: Any, plan: Plan, divisions: Sequence[int], dask: Any, dd: Any) -> Any:
    """Steps 2 and 3: document frequencies, then the boilerplate rounds; returns docs with masks set."""
    pd = _pandas()
    width = plan.width
    occ_meta = pd.DataFrame({"f": np.zeros(0, np.uint64), POS: np.zeros(0, np.int64), "slot": np.zeros(0, np.int64)})
    counts_meta = pd.DataFrame({POS: np.zeros(0, np.int64), "slot": np.zeros(0, np.int64), "df": np.zeros(0, np.int64)})
    counts = (
        docs.map_partitions(_occurrences, width, meta=occ_meta)
        .shuffle(on="f")
        .map_partitions(_shared_counts, meta=counts_meta)
    )
    largest = counts["df"].max().compute()
    routed = counts.set_index(POS, divisions=list(divisions))
    docs = dd.map_partitions(_attach_df, docs, routed, align_dataframes=False, meta=docs._meta).persist()
    rounds = plan.thresholds(int(largest) if largest == largest else 0)  # NaN: nothing shared
    flagged_meta = pd.DataFrame({POS: np.zeros(0, np.int64), "slot": np.zeros(0, np.int64)})
    for threshold in rounds:
        rows = docs.map_partitions(_round_rows, width, threshold, meta=_round_meta(width))
        flagged = rows.shuffle(on="f").map_partitions(
            _judge_groups, width, threshold, threshold == rounds[-1], meta=flagged_meta
        )
        routed = flagged.set_index(POS, divisions=list(divisions))
        docs = dd.map_partitions(_set_masks, docs, routed, align_dataframes=False, meta=docs._meta).persist()
    return docs
