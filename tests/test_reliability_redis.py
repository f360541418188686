"""A Redis server that loses data never makes nshash hand out an id twice (issue 13, item 4).

Real redis-servers: flushed under running clients, restarted without
persistence, and restored from an older snapshot.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

import nshash
from nshash.stores.redis import HashDBRedis
from tests.fleet import RedisServer, labelled_corpus

DOCS, _ = labelled_corpus(12, reprints=())


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A server of this test's own: these tests flush it."""
    with RedisServer(tmp_path / "redis") as server:
        yield server


def test_flushall_under_a_running_client_is_refused(redis_server: RedisServer, tmp_path: Path) -> None:
    prefix = f"flush:{tmp_path.name}"
    with nshash.NSHash(prefix, hashdb="redis", store_options={"url": redis_server.url}) as nsh:
        assert [nsh.get_similar(doc) for doc in DOCS[:3]] == [1, 2, 3]
        redis.Redis.from_url(redis_server.url).flushall()
        with pytest.raises(nshash.StoreDataLostError, match="gone from the server"):
            nsh.get_similar(DOCS[3])
    # The running client left a mark: a client started now refuses too.
    with pytest.raises(nshash.StoreDataLostError, match="gone from the server"):
        nshash.NSHash(prefix, hashdb="redis", store_options={"url": redis_server.url})


def test_a_new_client_after_a_flush(redis_server: RedisServer, tmp_path: Path) -> None:
    prefix = f"new:{tmp_path.name}"
    options = {"url": redis_server.url}
    old = nshash.NSHash(prefix, hashdb="redis", store_options=options)
    assert [old.get_similar(doc) for doc in DOCS[:3]] == [1, 2, 3]
    redis.Redis.from_url(redis_server.url).flushall()
    # A worker of a fleet (create=False) refuses a missing index instead of starting it over.
    with pytest.raises(nshash.StoreDataLostError, match="no index"):
        nshash.NSHash(prefix, hashdb="redis", store_options={**options, "create": False})
    # One that may create it starts a new index, with a new identity ...
    new = nshash.NSHash(prefix, hashdb="redis", store_options=options)
    # ... which the old client sees is not the one it knew: it refuses and marks it.
    with pytest.raises(nshash.StoreDataLostError, match="replaced by another"):
        old.get_similar(DOCS[4])
    with pytest.raises(nshash.StoreDataLostError, match="replaced by another"):
        new.get_similar(DOCS[5])
    old.close()
    new.close()


def test_an_older_snapshot_is_refused(tmp_path: Path) -> None:
    with RedisServer(tmp_path / "redis") as server:
        options = {"url": server.url}
        nsh = nshash.NSHash("news", hashdb="redis", store_options=options)
        assert [nsh.get_similar(doc) for doc in DOCS[:3]] == [1, 2, 3]
        client = redis.Redis.from_url(server.url)
        client.save()
        snapshot = tmp_path / "old.rdb"
        shutil.copy(tmp_path / "redis" / "dump.rdb", snapshot)
        assert [nsh.get_similar(doc) for doc in DOCS[3:6]] == [4, 5, 6]
        client.close()
        server.kill()
        shutil.copy(snapshot, tmp_path / "redis" / "dump.rdb")
        server.start()  # loads the older snapshot: the counter is back at 3
        with pytest.raises(nshash.StoreConnectionError):
            nsh.get_similar(DOCS[6])  # the connection died with the server
        with pytest.raises(nshash.StoreDataLostError, match="went back from 6 to 3"):
            nsh.get_similar(DOCS[6])  # rather than hand out id 4 again
        with pytest.raises(nshash.StoreDataLostError):
            nshash.NSHash("news", hashdb="redis", store_options=options)
        nsh.close()


def test_a_new_id_not_above_the_mark_is_never_returned(redis_server: RedisServer, tmp_path: Path) -> None:
    store = HashDBRedis(redis_server.url, prefix=f"mark:{tmp_path.name}")
    assert [store.allocate_id() for _ in range(5)] == [1, 2, 3, 4, 5]
    redis.Redis.from_url(redis_server.url).hset("{" + f"mark:{tmp_path.name}" + "}:store", "next_id", 2)
    with pytest.raises(nshash.StoreDataLostError):
        store.allocate_id()
    store.close()


def test_a_server_gone_mid_session_fails_every_operation_with_an_nshash_error(redis_server: RedisServer) -> None:
    # Not a redis.ConnectionError: callers catch nshash errors only (issue 12).
    store = HashDBRedis(redis_server.url, prefix="gone", timeout=2)
    nsh = nshash.NSHash(hashdb=store)
    nsh.get_similar(DOCS[0])
    redis_server.stop()
    operations = {
        "get_many": lambda: store.get_many("fp", [1]),
        "put_many": lambda: store.put_many("fp", [(1, 1)]),
        "delete_many": lambda: store.delete_many("fp", [1]),
        "get_meta": lambda: store.get_meta("options"),
        "set_meta": lambda: store.set_meta("x", "y"),
        "allocate_id": store.allocate_id,
        "count": lambda: store.count("fp"),
        "highest_id": store.highest_id,
        "transaction": lambda: store.transaction(lambda view: view.get_many("fp", [1])),
        "get_similar": lambda: nsh.get_similar(DOCS[1]),
        "query": lambda: nsh.query(DOCS[1]),
        "stats": nsh.stats,
    }
    for name, operation in operations.items():
        with pytest.raises(nshash.StoreConnectionError, match="cannot reach the Redis server") as caught:
            operation()
        assert isinstance(caught.value.__cause__, (redis.RedisError, OSError)), name
    store.close()
