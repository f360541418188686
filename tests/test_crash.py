"""Crashes: a crawler killed with SIGKILL, a Redis server killed or wiped mid-run.

What must hold: reopening works; LevelDB and Redis keep every document whose
id was acknowledged; the memory store keeps its last saved state; no id is
ever handed out twice; a document whose call failed can simply be retried.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import nshash
from nshash.stores.memory import read_state
from nshash.stores.redis import HashDBRedis
from nshash.stores.redis_scripts import APPLY_SHA
from tests.fleet import RedisServer, adjusted_rand_index, article, labelled_corpus, reprint

# The crawler: acknowledges each document by printing its id once get_similar returned.
CRAWLER = textwrap.dedent(
    """
    import json, sys
    import nshash
    name, hashdb, options, docs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.load(open(sys.argv[4]))
    nsh = nshash.NSHash(name, hashdb=hashdb, store_options=options)
    for i, doc in enumerate(docs):
        print(i, nsh.get_similar(doc), flush=True)
    """
)
DOCS = 3000
KILL_AFTER = 250
SAVE_EVERY = 64


@pytest.fixture(scope="module")
def articles() -> list[str]:
    rng = random.Random(7)
    return [article(rng) for _ in range(DOCS)]


def crawl_and_kill(tmp_path: Path, name: str, hashdb: str, options: dict[str, Any], docs: list[str]) -> dict[int, int]:
    """Run the crawler on ``docs``, SIGKILL it after KILL_AFTER acknowledgements; return them all."""
    docs_file = tmp_path / "docs.json"
    docs_file.write_text(json.dumps(docs))
    child = subprocess.Popen(
        [sys.executable, "-c", CRAWLER, name, hashdb, json.dumps(options), str(docs_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    acked: dict[int, int] = {}
    for line in child.stdout:
        i, similar_id = map(int, line.split())
        acked[i] = similar_id
        if len(acked) == KILL_AFTER:
            os.kill(child.pid, signal.SIGKILL)
            break
    # Read the rest through the same buffered stream: communicate() would read
    # the raw pipe and skip lines already buffered by the loop above.  The
    # child is dead, so both reads end at EOF.
    rest = child.stdout.read()
    errors = child.stderr.read() if child.stderr is not None else ""
    child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL, errors
    # Printed before the kill landed: acknowledged too.  A last line cut off by
    # the kill (no newline) was never acknowledged.
    for line in rest.split("\n")[:-1]:
        i, similar_id = map(int, line.split())
        acked[i] = similar_id
    assert KILL_AFTER <= len(acked) < len(docs), "the run was not killed in the middle"
    return acked


def check_survivors(nsh: nshash.NSHash, docs: list[str], acked: dict[int, int], upto: int) -> None:
    """Acknowledged documents before ``upto`` are known: their reprints get their ids; new ids are fresh."""
    rng = random.Random(1)
    for i in range(upto):
        assert nsh.get_similar(reprint(docs[i], "edited", rng)) == acked[i], f"document {i} was lost"
    unseen = article(random.Random("never seen"))
    assert nsh.get_similar(unseen) > max(acked[i] for i in range(upto))  # no kept id is handed out again


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    return redis_server.url


def test_killed_crawler_on_a_reopened_leveldb_index_loses_nothing(tmp_path: Path, articles: list[str]) -> None:
    # The first run closes cleanly and saves LevelDB's filter of written keys;
    # the second, killed, wrote keys that filter does not have: it must not be
    # trusted on the next open, or their documents would be missed.
    name, first = str(tmp_path / "news"), 400
    with nshash.NSHash(name, hashdb="leveldb") as nsh:
        before = [nsh.get_similar(doc) for doc in articles[:first]]
    assert (tmp_path / "news.hashdb" / "nshash-keys.filter").exists()
    acked = crawl_and_kill(tmp_path, name, "leveldb", {}, articles[first:])
    assert sorted(acked.values()) == list(range(first + 1, first + len(acked) + 1))
    with nshash.NSHash(name, hashdb="leveldb") as nsh:
        check_survivors(nsh, articles[first:], acked, upto=len(acked))
        rng = random.Random(2)
        assert [nsh.get_similar(reprint(doc, "edited", rng)) for doc in articles[:first]] == before


@pytest.mark.parametrize("hashdb", ["leveldb", "redis"])
def test_killed_crawler_loses_no_acknowledged_document(
    tmp_path: Path, articles: list[str], hashdb: str, request: pytest.FixtureRequest
) -> None:
    if hashdb == "redis":
        name, options = tmp_path.name, {"url": request.getfixturevalue("redis_url")}
    else:
        name, options = str(tmp_path / "news"), {}
    acked = crawl_and_kill(tmp_path, name, hashdb, options, articles)
    assert sorted(acked.values()) == list(range(1, len(acked) + 1))  # distinct articles: 1, 2, 3, ...
    with nshash.NSHash(name, hashdb=hashdb, store_options=options) as nsh:
        assert nsh.stats()["fingerprints"] >= 5 * len(acked)
        check_survivors(nsh, articles, acked, upto=len(acked))


def test_killed_crawler_memory_store_has_its_last_saved_state_or_later(tmp_path: Path, articles: list[str]) -> None:
    name = str(tmp_path / "news")
    options = {"save_every": SAVE_EVERY}
    acked = crawl_and_kill(tmp_path, name, "memory", options, articles)
    # Distinct articles each took one id, so the saved id counter tells how many were saved.
    saved = read_state(tmp_path / "news.hashdb.pkl")["next_id"] - 1
    with nshash.NSHash(name, store_options=options) as nsh:
        fingerprints = nsh.stats()["fingerprints"]
        # The log may carry the store past its last save: the highest id kept tells how far.
        kept = max(nsh.store._tables["fp"].values())  # type: ignore[attr-defined]
        # Ids handed out after the last save were reserved on disk first: never reused.
        assert nsh.get_similar(articles[-1] + "\nA brand new closing sentence for a new article.") > max(acked.values())
        check_survivors(nsh, articles, acked, upto=min(kept, len(acked)))
    # At most save_every acknowledged documents are lost (the kill came after the ack of the last one).
    assert len(acked) - SAVE_EVERY <= saved <= kept
    replay = nshash.NSHash()
    for doc in articles[:kept]:
        replay.get_similar(doc)
    assert fingerprints == replay.stats()["fingerprints"]  # exactly the state after `kept` documents


# -- the Redis server fails --------------------------------------------------------------
@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A server of this test's own, with every write fsynced to its append-only file."""
    with RedisServer(tmp_path / "redis", appendonly=True) as server:
        yield server


def serial_partition(docs: list[str]) -> list[int]:
    serial = nshash.NSHash()
    return serial.resolve_many([serial.get_similar(doc) for doc in docs])


def test_server_killed_between_documents(own_server: RedisServer) -> None:
    docs, _ = labelled_corpus(15, seed=2)
    nsh = nshash.NSHash("news", hashdb="redis", store_options={"url": own_server.url, "timeout": 5})
    ids = [nsh.get_similar(doc) for doc in docs[:30]]
    own_server.kill()
    for _ in range(2):  # the connection drops, then the server is unreachable
        with pytest.raises(nshash.StoreConnectionError) as caught:
            nsh.get_similar(docs[30])
        assert f"127.0.0.1:{own_server.port}" in str(caught.value)
        assert own_server.url in str(caught.value)
    own_server.start()  # same port, same append-only file
    ids += [nsh.get_similar(doc) for doc in docs[30:]]
    nsh.close()
    # Nothing acknowledged was lost and the failed document simply went in on retry.
    serial = nshash.NSHash()
    assert ids == [serial.get_similar(doc) for doc in docs]


class KilledBeforeCommit(HashDBRedis):
    """The real store; the server is SIGKILLed just before one transaction's commit (MULTI/EXEC or APPLY) goes out."""

    server: RedisServer
    armed = False

    def _roundtrip(self, commands: list[Any]) -> list[Any]:
        if self.armed and any(command[0] == "MULTI" or command[1:2] == (APPLY_SHA,) for command in commands):
            self.armed = False
            self.server.kill()
        return super()._roundtrip(commands)


def test_server_killed_inside_a_transaction_leaves_no_partial_document(own_server: RedisServer) -> None:
    docs, _ = labelled_corpus(10, seed=4)
    store = KilledBeforeCommit(own_server.url, prefix="news", timeout=5)
    store.server = own_server
    nsh = nshash.NSHash(hashdb=store)
    ids = [nsh.get_similar(doc) for doc in docs[:21]]
    before = nsh.stats()
    store.armed = True
    with pytest.raises(nshash.StoreConnectionError, match=f"127.0.0.1:{own_server.port}"):
        nsh.get_similar(docs[21])  # the 2nd version of article 5: reads done, writes never sent
    own_server.start()
    assert nsh.stats()["fingerprints"] == before["fingerprints"]
    assert nsh.stats()["merged_clusters"] == before["merged_clusters"]
    ids += [nsh.get_similar(doc) for doc in docs[21:]]  # the retry and the rest
    resolved = nsh.resolve_many(ids)
    nsh.close()
    assert adjusted_rand_index(serial_partition(docs), resolved) == 1.0


def test_retrying_an_applied_document_changes_nothing(redis_server: RedisServer, tmp_path: Path) -> None:
    # A reply lost after EXEC ran looks like a failure to the crawler, which retries.
    docs, _ = labelled_corpus(6, seed=9)
    with nshash.NSHash(tmp_path.name, hashdb="redis", store_options={"url": redis_server.url}) as nsh:

        def state() -> list[int]:
            return [nsh.store.count(table) for table in ("fp", "parent", "stat")]

        for doc in docs:
            similar_id = nsh.get_similar(doc)
            before = state()
            assert nsh.get_similar(doc) == similar_id
            assert state() == before


def test_server_restarted_without_persistence_is_detected(tmp_path: Path) -> None:
    docs, _ = labelled_corpus(3, reprints=())
    with RedisServer(tmp_path / "redis", appendonly=False) as server:
        nsh = nshash.NSHash("news", hashdb="redis", store_options={"url": server.url})
        assert [nsh.get_similar(doc) for doc in docs[:2]] == [1, 2]
        server.kill()
        with pytest.raises(nshash.StoreConnectionError):
            nsh.get_similar(docs[2])
        server.start()  # empty: nothing was persisted
        with pytest.raises(nshash.StoreCorruptError, match="gone from the server"):
            nsh.get_similar(docs[2])  # rather than hand out id 1 again
        nsh.close()
