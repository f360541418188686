"""nshash.dask.similar_ids on a real LocalCluster: the same ids as the local batch API, however split."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

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


# -- files read by glob: unknown divisions, partitions Dask fuses (issue 14) -----------------------
def write_pages(directory: Path, texts: list[str], files: int, suffix: str) -> None:
    """``texts`` split over ``files`` files, each with a large extra column (so that reading only
    the text column lets Dask fuse several files into one partition)."""
    directory.mkdir()
    step = -(-len(texts) // files)
    for number, start in enumerate(range(0, len(texts), step)):
        chunk = texts[start : start + step]
        frame = pd.DataFrame(
            {"url": [f"u{number}-{i}" for i in range(len(chunk))], "html": ["x" * 20_000] * len(chunk)}
        )
        frame["content"] = chunk
        path = directory / f"part{number:03d}{suffix}"
        if suffix == ".parquet":
            frame.to_parquet(path)
        else:
            path.write_text("".join(json.dumps(row) + "\n" for row in frame.to_dict("records")), encoding="utf-8")


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl"])
def test_globs_with_unknown_divisions_give_the_batch_ids(client: object, tmp_path: Path, suffix: str) -> None:
    pytest.importorskip("pyarrow")
    texts, _ = make_corpus(seed=7, articles=30)
    write_pages(tmp_path / "pages", texts, files=24, suffix=suffix)
    pattern = str(tmp_path / "pages" / f"*{suffix}")
    ddf = dd.read_parquet(pattern) if suffix == ".parquet" else dd.read_json(pattern, lines=True, blocksize=None)
    assert not ddf.known_divisions
    expected = nshash.similar_ids(texts)
    assert nshash_dask.similar_ids(ddf, column="content").compute().tolist() == expected
    # Every file's index starts at 0: the ids must go to their own rows, not be joined on the index.
    ddf["similar_id"] = nshash_dask.similar_ids(ddf, column="content")
    got = ddf.compute()
    assert got["content"].tolist() == texts
    assert got["similar_id"].tolist() == expected


def test_reading_only_the_text_column_fuses_partitions_and_ids_stay_in_place(client: object, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    texts, _ = make_corpus(seed=8, articles=20)
    write_pages(tmp_path / "pages", texts, files=40, suffix=".parquet")
    texts_only = dd.read_parquet(str(tmp_path / "pages" / "*.parquet"))["content"]
    # The situation of the reported failure: fewer partitions read than the collection declares.
    assert len(texts_only.to_delayed()) < texts_only.npartitions
    assert nshash_dask.similar_ids(texts_only).compute().tolist() == nshash.similar_ids(texts)


def test_attaching_the_ids_reads_the_index_not_the_texts_again(client: object, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    texts, _ = make_corpus(seed=9, articles=20)
    write_pages(tmp_path / "pages", texts, files=6, suffix=".parquet")
    ddf = dd.read_parquet(str(tmp_path / "pages" / "*.parquet"))
    result = nshash_dask.similar_ids(ddf, column="content")  # the ids are computed here
    # The files lose their text column: the lazy result still computes (it reads the index alone).
    for path in (tmp_path / "pages").glob("*.parquet"):
        pd.read_parquet(path).drop(columns=["content"]).to_parquet(path)
    assert result.compute().tolist() == nshash.similar_ids(texts)


def test_progress_bar_counts_the_documents(client: object, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")
    texts, _ = make_corpus(seed=4, articles=6)
    series = dd.from_pandas(pd.Series(texts, dtype=object), npartitions=3, sort=False)
    assert nshash_dask.similar_ids(series, progress=True).compute().tolist() == nshash.similar_ids(texts)
    assert f"{len(texts)} doc" in capsys.readouterr().err


def test_a_dask_that_passes_delayed_arguments_on_uncomputed_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import dask

    series = dd.from_pandas(pd.Series(["a"], dtype=object), npartitions=1)
    monkeypatch.setattr(dask, "__version__", "2025.4.1")  # the last release that did (dask/dask#11907)
    with pytest.raises(nshash.MissingDependencyError, match=r"dask 2025\.5 or later, found 2025\.4\.1"):
        nshash_dask.similar_ids(series)


def test_progress_without_tqdm_names_the_extra(client: object, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "tqdm", None)  # what an uninstalled module looks like to import
    series = dd.from_pandas(pd.Series(["a"], dtype=object), npartitions=1)
    with pytest.raises(nshash.MissingDependencyError, match=r"nshash\[progress\]"):
        nshash_dask.similar_ids(series, progress=True)


def test_a_worker_with_another_version_is_refused() -> None:
    from nshash.dask import _partition_features

    with pytest.raises(nshash.NSHashError, match="install the same version"):
        _partition_features(pd.Series(["text"]), {}, "0.0.1")
