"""Many processes on one index: Redis shares it consistently, file stores refuse a second opener.

The processes are real (forked, each with its own connection); they start
together behind a barrier so their transactions overlap.
"""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import nshash
from tests.fleet import LoggedStore, RedisServer, adjusted_rand_index, commit_order, labelled_corpus, site_corpus

PROCESSES = 4
CONTEXT = multiprocessing.get_context("fork")


def _crawler(url: str, prefix: str, docs: list[tuple[int, str]], barrier: Any, queue: Any) -> None:
    barrier.wait()  # open the fresh index at the same moment: the options race too
    with LoggedStore(url, prefix=prefix) as store:
        nsh = nshash.NSHash(hashdb=store)
        barrier.wait()
        ids, finished = [], []
        for i, doc in docs:
            store.doc = i
            ids.append((i, nsh.get_similar(doc)))
            finished.append((time.perf_counter_ns(), i))
        queue.put((ids, store.conflicts, finished))


def crawl_concurrently(url: str, prefix: str, docs: list[str]) -> tuple[dict[int, int], int, list[int]]:
    """Insert ``docs`` from PROCESSES processes, process k taking ``docs[k::PROCESSES]``.

    Returns the id each document got, the number of retried transactions and
    the order in which the server committed the documents.
    """
    barrier = CONTEXT.Barrier(PROCESSES)
    queue = CONTEXT.Queue()
    slices = [list(enumerate(docs))[k::PROCESSES] for k in range(PROCESSES)]
    workers = [CONTEXT.Process(target=_crawler, args=(url, prefix, part, barrier, queue)) for part in slices]
    for worker in workers:
        worker.start()
    results = [queue.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    ids = {i: similar_id for part, _, _ in results for i, similar_id in part}
    finished = [i for _, i in sorted(pair for _, _, part in results for pair in part)]
    with LoggedStore(url, prefix=prefix) as store:
        order = commit_order(finished, store.commits())
    return ids, sum(conflicts for _, conflicts, _ in results), order


def one_process(docs: list[str], order: Sequence[int]) -> list[int]:
    """The clustering (canonical id per document) of one in-memory process inserting ``docs`` in ``order``."""
    nsh = nshash.NSHash()
    ids = {i: nsh.get_similar(docs[i]) for i in order}
    return nsh.resolve_many([ids[i] for i in range(len(docs))])


def test_concurrent_crawlers_cluster_like_one_process(redis_server: RedisServer, tmp_path: Path) -> None:
    # Article k's four versions are adjacent, so the four processes insert
    # reprints of the same article at the same moment.
    docs, labels = labelled_corpus(50, seed=11)
    assert len(docs) == 200 and PROCESSES == 4

    serial = nshash.NSHash()
    serial_ids = serial.resolve_many([serial.get_similar(doc) for doc in docs])

    ids, conflicts, _ = crawl_concurrently(redis_server.url, tmp_path.name, docs)
    assert sorted(ids) == list(range(len(docs)))
    with nshash.NSHash(tmp_path.name, hashdb="redis", store_options={"url": redis_server.url}) as nsh:
        resolved = nsh.resolve_many([ids[i] for i in range(len(docs))])
        stats = nsh.stats()
        next_id = nsh.store.allocate_id()

    ari = adjusted_rand_index(serial_ids, resolved)
    print(f"ARI concurrent vs one process: {ari:.4f}; retried transactions: {conflicts}")
    assert ari >= 0.99
    assert adjusted_rand_index(labels, resolved) >= adjusted_rand_index(labels, serial_ids) - 0.01
    # No id was handed out twice: ids of different articles never coincide.
    owners: dict[int, set[int]] = {}
    for i, similar_id in ids.items():
        owners.setdefault(similar_id, set()).add(labels[i])
    assert all(len(articles) == 1 for articles in owners.values())
    assert max(ids.values()) < next_id
    assert stats["fingerprints"] == serial.stats()["fingerprints"]
    assert stats["merged_clusters"] == serial.stats()["merged_clusters"]


def test_concurrent_new_articles_get_distinct_ids(redis_server: RedisServer, tmp_path: Path) -> None:
    docs, _ = labelled_corpus(120, seed=5, reprints=())
    ids, conflicts, _ = crawl_concurrently(redis_server.url, tmp_path.name, docs)
    assert len(set(ids.values())) == len(docs)  # no id handed out twice
    # Ids burnt by retried transactions are skipped, never reused.
    assert max(ids.values()) <= len(docs) + conflicts


def test_concurrent_run_equals_one_process_in_commit_order(redis_server: RedisServer, tmp_path: Path) -> None:
    # Site footers make the clusters depend on arrival order (a shuffled
    # serial run gets ARI ~0.8 against the file-order one), so only a run
    # equivalent to one process in the same order can match exactly.
    docs, _ = site_corpus(60, seed=3)
    ids, conflicts, order = crawl_concurrently(redis_server.url, tmp_path.name, docs)
    assert sorted(order) == list(range(len(docs)))
    with nshash.NSHash(tmp_path.name, hashdb="redis", store_options={"url": redis_server.url}) as nsh:
        resolved = nsh.resolve_many([ids[i] for i in range(len(docs))])
    print(f"retried transactions: {conflicts}")
    assert adjusted_rand_index(one_process(docs, order), resolved) == 1.0


def _increment(url: str, prefix: str, times: int, barrier: Any, queue: Any) -> None:
    from nshash.stores.redis import HashDBRedis

    with HashDBRedis(url, prefix=prefix) as store:
        barrier.wait()
        for _ in range(times):
            store.transaction(lambda view: view.put("stat", 1, (view.get("stat", 1) or 0) + 1))
        queue.put(store.conflicts)


def test_read_modify_write_never_loses_an_update(redis_server: RedisServer, tmp_path: Path) -> None:
    times = 150
    barrier = CONTEXT.Barrier(PROCESSES)
    queue = CONTEXT.Queue()
    args = (redis_server.url, tmp_path.name, times, barrier, queue)
    workers = [CONTEXT.Process(target=_increment, args=args) for _ in range(PROCESSES)]
    for worker in workers:
        worker.start()
    conflicts = sum(queue.get(timeout=120) for _ in workers)
    for worker in workers:
        worker.join(timeout=60)
    from nshash.stores.redis import HashDBRedis

    with HashDBRedis(redis_server.url, prefix=tmp_path.name) as store:
        assert store.get("stat", 1) == PROCESSES * times
    print(f"{PROCESSES} processes x {times} increments of one key: {conflicts} retried transactions")


SECOND_OPENER = textwrap.dedent(
    """
    import sys
    import nshash
    try:
        nshash.NSHash(sys.argv[1], hashdb=sys.argv[2])
    except nshash.StoreLockedError as exc:
        print("StoreLockedError:", exc)
        sys.exit(3)
    print("opened")
    """
)


def open_in_other_process(name: Path, hashdb: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SECOND_OPENER, str(name), hashdb], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("hashdb", ["leveldb", "memory"])
def test_second_process_gets_a_clear_error_and_the_first_is_unaffected(tmp_path: Path, hashdb: str) -> None:
    docs, _ = labelled_corpus(3, reprints=("edited",))
    name = tmp_path / "news"
    with nshash.NSHash(name, hashdb=hashdb) as nsh:
        first = [nsh.get_similar(doc) for doc in docs[:4]]
        result = open_in_other_process(name, hashdb)
        assert result.returncode == 3, result.stderr
        assert "StoreLockedError:" in result.stdout and str(name) in result.stdout
        assert "another process" in result.stdout
        # The first process carries on as if nothing happened.
        assert [nsh.get_similar(doc) for doc in docs] == [*first, 3, 3]
        assert nsh.resolve_many(first) == [1, 1, 2, 2]
    assert open_in_other_process(name, hashdb).stdout.strip() == "opened"  # free once closed
