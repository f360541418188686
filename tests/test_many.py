"""get_similar_many: the ids of a get_similar loop, with or without worker processes."""

from __future__ import annotations

import multiprocessing
import pickle
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nshash
from nshash import many
from nshash._accel import speedups
from nshash.many import document_counts, get_similar_many
from tests.conftest import open_store_kind

T = TypeVar("T")

# Sentences long enough to be fingerprinted; documents drawn from them share
# sentences in every combination (exact copies, partial overlaps, boilerplate).
SENTENCES = [
    "第一句话足够长可以作为指纹",
    "第二句也一样长但是内容不同",
    "The third sentence is in English and long enough",
    "版权所有未经授权禁止转载本站内容",
    "记者从有关部门获悉了最新的消息",
    "A fifth sentence that several documents share",
    "第七句话讲述了另一件完全不同的事情",
]
DELIMS = ["。", "！", "\n", ". "]

documents = st.lists(
    st.one_of(
        st.lists(st.sampled_from(SENTENCES), max_size=6).flatmap(
            lambda parts: st.sampled_from(DELIMS).map(lambda delim: delim.join(parts))
        ),
        st.text(max_size=40),
    ),
    max_size=40,
)


def loop_ids(index: nshash.Index, docs: list[Any]) -> list[int]:
    """What a crawler would do: one get_similar per document, resolved at the end."""
    return index.resolve_many([index.get_similar(doc) for doc in docs])


def corpus(count: int) -> list[str]:
    """Documents made of the shared sentences, deterministic, with many near-duplicates."""
    docs = []
    for i in range(count):
        picked = [SENTENCES[(i * 3 + k) % len(SENTENCES)] for k in range(i % 4 + 1)]
        docs.append(f"标题{i}\n" + "。".join(picked))
    return docs


@pytest.mark.parametrize("workers", [1, 2])
def test_same_ids_as_a_get_similar_loop(
    store_kind: str, workers: int, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    docs = [*corpus(60), "", "   ", b"bytes: " + SENTENCES[0].encode(), SENTENCES[0]]
    url = request.getfixturevalue("redis_server").url if store_kind == "redis" else None
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one_store = open_store_kind(store_kind, tmp_path / "a", url)
    other_store = open_store_kind(store_kind, tmp_path / "b", url)
    with nshash.NSHash(hashdb=one_store) as one, nshash.NSHash(hashdb=other_store) as other:
        expected = loop_ids(one, docs)
        assert get_similar_many(other, docs, workers=workers, chunk_size=7) == expected
        assert len(set(expected)) < len(docs)  # the corpus does hold duplicates
        # The index goes on from there like any other: the next document agrees too.
        assert one.get_similar(docs[5]) == other.get_similar(docs[5])
    one_store.close()
    other_store.close()


def test_the_index_method_is_the_same_function() -> None:
    docs = corpus(30)
    assert nshash.NSHash().get_similar_many(docs) == get_similar_many(nshash.NSHash(), docs)


def test_continues_an_index_that_already_holds_documents() -> None:
    docs = corpus(40)
    loop, many = nshash.NSHash(), nshash.NSHash()
    assert loop_ids(loop, docs[:20]) == many.get_similar_many(docs[:20])
    assert loop_ids(loop, docs[20:]) == many.get_similar_many(docs[20:], workers=2)


def pooled() -> nshash.NSHash:
    """An index whose fingerprints are computed by the workers (md5: in Python, and sent packed)."""
    nsh = nshash.NSHash(hashfunc="md5")
    assert not nsh.cheap_fingerprints
    return nsh


def test_ids_are_final_after_a_merge() -> None:
    # Find a corpus in which a later document merges two earlier clusters
    # (which documents do that is the algorithm's business, not this test's).
    rng = random.Random(5)
    for _ in range(300):
        docs = ["。".join(rng.sample(SENTENCES, rng.randint(1, 5))) for _ in range(8)]
        nsh = nshash.NSHash()
        raw = [nsh.get_similar(doc) for doc in docs]
        final = nsh.resolve_many(raw)
        if raw != final:
            break
    else:
        pytest.skip("the algorithm merged no clusters in 300 random corpora")
    assert nshash.NSHash().get_similar_many(docs) == final
    assert get_similar_many(nshash.NSHash(), docs, workers=2, chunk_size=3) == final
    assert get_similar_many(pooled(), docs, workers=2, chunk_size=3) == loop_ids(pooled(), docs)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=documents, chunk_size=st.integers(1, 9))
def test_two_workers_give_the_ids_of_one(docs: list[str], chunk_size: int) -> None:
    serial = get_similar_many(pooled(), docs, workers=1, chunk_size=chunk_size)
    parallel = get_similar_many(pooled(), iter(docs), workers=2, chunk_size=chunk_size)
    assert parallel == serial == loop_ids(pooled(), docs)


def test_workers_with_non_default_options_and_md5() -> None:
    docs = corpus(50)
    options: dict[str, Any] = {"hashfunc": "md5", "n": 3, "min_match": 1, "split": "design"}
    assert get_similar_many(nshash.NSHash(**options), docs, workers=2, chunk_size=4) == loop_ids(
        nshash.NSHash(**options), docs
    )


def test_workers_do_not_need_the_store(tmp_path: Path) -> None:
    # A LevelDB store is locked by this process: a worker opening it would fail.
    with nshash.NSHash(tmp_path / "news", hashdb="leveldb", hashfunc="md5") as nsh:
        ids = nsh.get_similar_many(corpus(20), workers=2)
    with nshash.NSHash(tmp_path / "other", hashdb="leveldb", hashfunc="md5") as nsh:
        assert ids == loop_ids(nsh, corpus(20))


class CountingStore(nshash.HashDBMemory):
    """Records, at each transaction, how far the input was read beyond what was assigned."""

    # No C tables lent: a transaction a page (with them, a chunk is decided in one), so transactions count pages.
    native_tables = None

    def __init__(self, pulled: list[int]) -> None:
        super().__init__()
        self.pulled = pulled
        self.assigned = 0
        self.ahead = 0

    def transaction(self, func: Callable[[nshash.HashDB], T]) -> T:
        self.assigned += 1
        self.ahead = max(self.ahead, self.pulled[0] - self.assigned)
        return super().transaction(func)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stream_is_read_only_a_few_chunks_ahead(workers: int) -> None:
    pulled = [0]

    def stream() -> Iterator[str]:
        for doc in corpus(400):
            pulled[0] += 1
            yield doc

    store = CountingStore(pulled)
    ids = get_similar_many(nshash.NSHash(hashdb=store, hashfunc="md5"), stream(), workers=workers, chunk_size=10)
    assert len(ids) == 400
    # Read ahead: the chunk being assigned; with workers, up to 2 * workers more.
    assert store.ahead <= (1 if workers == 1 else 2 * workers + 1) * 10
    assert store.ahead >= 5  # a whole chunk is read before its first document is assigned


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("bad", "error"),
    [(12345, nshash.DocumentTypeError), (b"\xff\xfe not utf-8", nshash.DocumentDecodeError)],
)
def test_a_bad_document_stops_after_the_ones_before_it(
    workers: int, stream: bool, bad: object, error: type[Exception]
) -> None:
    docs: list[Any] = corpus(25)
    docs[17] = bad
    nsh = pooled()
    with pytest.raises(error, match="document 17"):
        get_similar_many(nsh, iter(docs) if stream else docs, workers=workers, chunk_size=4)
    counts = document_counts(nsh.store)
    assert counts is not None and counts["documents"] == 17
    reference = pooled()
    loop_ids(reference, docs[:17])
    assert nsh.get_similar(docs[20]) == reference.get_similar(docs[20])


def test_errors_replace_decodes_bad_bytes_in_workers_too() -> None:
    docs: list[Any] = [b"\xff" + SENTENCES[0].encode(), b"\xfe\n" + SENTENCES[0].encode(), SENTENCES[0]]
    docs += [bytearray(b"\xfd\n" + SENTENCES[1].encode()), memoryview(SENTENCES[1].encode())]
    ids = nshash.NSHash(errors="replace", hashfunc="md5").get_similar_many(docs, workers=2)
    assert ids == loop_ids(nshash.NSHash(errors="replace", hashfunc="md5"), docs)
    assert ids[1] == ids[2]  # the bad byte on its own line changes no sentence


def test_counts_add_up_over_calls() -> None:
    nsh = nshash.NSHash()
    assert document_counts(nsh.store) is None
    first = nsh.get_similar_many(corpus(30))
    second = nsh.get_similar_many(corpus(45), workers=2)
    assert document_counts(nsh.store) == {"documents": 75, "highest_id": max(first + second)}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"workers": 0}, "workers must be an int >= 1"), ({"chunk_size": 0}, "chunk_size must be an int >= 1")],
)
def test_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        get_similar_many(nshash.NSHash(), ["x"], **kwargs)


def test_a_single_string_is_not_an_iterable_of_documents() -> None:
    with pytest.raises(TypeError, match="not a single document"):
        nshash.NSHash().get_similar_many("one document")  # type: ignore[arg-type]


def test_an_unpicklable_hashfunc_cannot_be_sent_to_workers() -> None:
    def length(text: str) -> int:
        return len(text)

    my_hash = nshash.hashing.named_hashfunc("length", length)

    docs = corpus(10)
    assert nshash.NSHash(hashfunc=my_hash).get_similar_many(docs) == loop_ids(nshash.NSHash(hashfunc=my_hash), docs)
    with pytest.raises(ValueError, match="workers=1"):
        nshash.NSHash(hashfunc=my_hash).get_similar_many(docs, workers=2)


@pytest.mark.parametrize("algorithm", [nshash.NSHash, nshash.SimHash, nshash.Shingles])
def test_an_index_handed_to_a_process_pool_says_what_to_use_instead(algorithm: Callable[..., nshash.Index]) -> None:
    # pool.map(index.get_similar, docs) pickles the index: once "cannot pickle '_thread.RLock' object".
    with algorithm() as index:
        for send in (lambda: pickle.dumps(index), lambda: pickle.dumps(index.get_similar)):
            with pytest.raises(
                nshash.ArgumentTypeError, match=r"cannot pickle \w+ name=None on HashDBMemory\(in memory\).*workers=N"
            ):
                send()
        with multiprocessing.get_context("spawn").Pool(1) as pool, pytest.raises(TypeError, match="get_similar_many"):
            pool.map(index.get_similar, corpus(3))
        assert index.get_similar_many(corpus(3), workers=2) == loop_ids(algorithm(), corpus(3))


def test_progress_bar_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    nshash.NSHash().get_similar_many(corpus(30), progress=True)
    captured = capsys.readouterr()
    assert "30/30" in captured.err
    assert captured.out == ""


def test_progress_without_tqdm_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # what an uninstalled module looks like to import
    with pytest.raises(nshash.MissingDependencyError, match=r"nshash\[progress\]"):
        nshash.NSHash().get_similar_many(corpus(3), progress=True)


class PackedSpy(nshash.NSHash):
    """Counts the chunks decided from packed features (the C accelerator's route for workers)."""

    packed_chunks = 0

    def _assign_packed(self, blob: bytes) -> list[int]:
        self.packed_chunks += 1
        return super()._assign_packed(blob)


@pytest.mark.skipif(speedups is None, reason="needs the C accelerator")
def test_workers_send_packed_features_that_the_c_decides() -> None:
    # Pages with site lines, edited copies and long texts: every part of the
    # features (keys, line keys, pieces, sketch, whole text) must survive the trip.
    rng = random.Random(3)
    articles = ["。".join(rng.sample(SENTENCES, 4)) * 3 for _ in range(12)]
    docs = []
    for i in range(240):
        body = articles[i % len(articles)]
        if i % 3:  # an edited copy on another site
            body = body.replace("长", "常", 1) + f"\n来源：站点{i % 7}"
        docs.append(f"站点{i % 5} 首页 | 新闻 | 关于\n{body}\n版权所有 站点{i % 5}")
    nsh = PackedSpy()
    parallel = get_similar_many(nsh, docs, workers=2, chunk_size=32)
    assert nsh.packed_chunks == len(docs) // 32 + 1
    assert parallel == get_similar_many(nshash.NSHash(), docs, chunk_size=32) == loop_ids(nshash.NSHash(), docs)
    assert len(set(parallel)) < len(docs) / 2  # the copies did join their articles


def test_the_batch_with_workers_gives_the_ids_without() -> None:
    docs: list[Any] = corpus(120)
    assert nshash.similar_ids(docs, workers=2) == nshash.similar_ids(docs)
    series = pd.Series([*docs[:40], None], index=[f"row{i}" for i in range(41)])
    assert nshash.similar_ids(series, workers=2).tolist() == nshash.similar_ids(series).tolist()
    docs[70] = 12345
    with pytest.raises(nshash.DocumentTypeError, match="document 70"):
        nshash.similar_ids(docs, workers=2)
    with pytest.raises(nshash.DocumentTypeError, match=r"document 1 \(index 'b'\)"):
        nshash.similar_ids(pd.Series(["fine text here.", 3], index=["a", "b"]), workers=2)
    with pytest.raises(ValueError, match="workers must be an int >= 1"):
        nshash.similar_ids(docs, workers=0)


@pytest.mark.skipif(many._START_METHOD != "forkserver", reason="no forkserver here")
def test_the_forkserver_preloads_nshash_and_keeps_what_it_preloaded() -> None:
    from multiprocessing import forkserver

    many._context()
    assert {"__main__", "nshash"} <= set(forkserver._forkserver._preload_modules)


def test_workers_started_by_spawn_give_the_same_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    # What macOS and Windows users get without a forkserver (Windows has none): a fresh interpreter a worker.
    monkeypatch.setattr(many, "_START_METHOD", "spawn")
    docs = corpus(60)
    assert get_similar_many(nshash.NSHash(), docs, workers=2, chunk_size=16) == loop_ids(nshash.NSHash(), docs)
