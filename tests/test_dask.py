"""nshash.dask.similar_ids on a real LocalCluster: the same ids as the local batch API, however split."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nshash

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
nshash_dask = pytest.importorskip("nshash.dask")

from tests.test_batch import make_corpus  # noqa: E402


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    # Shuffle start/stop notices are logged as warnings; they are not ours to fix.
    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def dask_ids(texts: list[str], npartitions: int, **options: object) -> pd.Series:
    series = pd.Series(texts, dtype=object)
    return nshash_dask.similar_ids(dd.from_pandas(series, npartitions=npartitions, sort=False), **options).compute()


@pytest.mark.parametrize("npartitions", [1, 3])
def test_same_ids_as_the_local_batch_api(client: object, npartitions: int) -> None:
    texts, _ = make_corpus(seed=3, articles=12)
    texts += ["", "   ", "Hi!", "hi"]  # no fingerprint, no fingerprint, a short exact copy
    got = dask_ids(texts, npartitions)
    assert got.tolist() == nshash.similar_ids(texts)
    assert got.name == "similar_id"
    assert got.index.tolist() == list(range(len(texts)))


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 1000), npartitions=st.integers(1, 5), min_match=st.sampled_from([1, 2]))
def test_property_any_partitioning_gives_the_batch_ids(
    client: object, seed: int, npartitions: int, min_match: int
) -> None:
    texts, _ = make_corpus(seed, articles=10)
    assert dask_ids(texts, npartitions, min_match=min_match, boilerplate_after=2).tolist() == nshash.similar_ids(
        texts, min_match=min_match, boilerplate_after=2
    )


def test_dataframe_column_empty_partitions_and_index(client: object) -> None:
    texts, _ = make_corpus(seed=5, articles=9)
    frame = pd.DataFrame({"text": texts, "keep": [i % 4 != 0 for i in range(len(texts))]})
    frame.index = [f"doc{i}" for i in range(len(texts))]
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    # Dropping rows leaves partitions of other sizes; an empty one is made explicitly.
    ddf = ddf[ddf["keep"]]
    ddf = dd.concat([ddf, dd.from_pandas(frame.iloc[:0], npartitions=1)])
    result = nshash_dask.similar_ids(ddf, column="text")
    assert result.npartitions == ddf.npartitions
    got = result.compute()
    kept = frame[frame["keep"]]
    assert got.index.tolist() == kept.index.tolist()
    assert got.tolist() == nshash.similar_ids(kept["text"].tolist())


def test_nothing_to_cluster(client: object) -> None:
    assert dask_ids(["", " "], 2).tolist() == [1, 2]
    empty = dd.from_pandas(pd.Series([], dtype=object), npartitions=1)
    assert nshash_dask.similar_ids(empty).compute().tolist() == []


def test_bad_arguments_and_documents(client: object) -> None:
    frame = dd.from_pandas(pd.DataFrame({"text": ["a", "b"]}), npartitions=1)
    with pytest.raises(ValueError, match="column="):
        nshash_dask.similar_ids(frame)
    with pytest.raises(ValueError, match="no column 'body'"):
        nshash_dask.similar_ids(frame, column="body")
    with pytest.raises(TypeError, match="Dask DataFrame or Series"):
        nshash_dask.similar_ids(["a", "b"])
    with pytest.raises(TypeError, match="unknown option"):
        nshash_dask.similar_ids(frame["text"], hashdb="memory")
    bad = dd.from_pandas(pd.Series(["fine text here.", None, "more"], dtype=object), npartitions=2, sort=False)
    with pytest.raises(nshash.DocumentTypeError, match="document 1"):
        nshash_dask.similar_ids(bad)


@pytest.mark.parametrize("workers", [1, 4])
def test_one_or_four_workers_give_the_batch_ids(workers: int) -> None:
    texts, _ = make_corpus(seed=11, articles=12)
    with (
        distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        assert dask_ids(texts, npartitions=5).tolist() == nshash.similar_ids(texts)
