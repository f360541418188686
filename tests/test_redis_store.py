"""HashDBRedis beyond the store contract: sharing, transactions, layout, errors.

Every test talks to the real redis-server of the ``redis_server`` fixture; each
uses its own key prefix.
"""

from __future__ import annotations

import functools
import multiprocessing
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

import nshash
from nshash.members import ENTRIES, MAX_MEMBERS, entry_keys
from nshash.stores.redis import BUCKETS, HashDBRedis
from nshash.stores.redis_layout import BLOCKS
from nshash.stores.redis_view import GuessView
from tests.fleet import RedisServer, free_port, labelled_corpus


@pytest.fixture
def prefix(tmp_path: Path) -> str:
    return f"t:{tmp_path.name}"


@pytest.fixture
def server(redis_server: RedisServer) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_server.url)
    yield client
    client.close()


@pytest.fixture
def stores(redis_server: RedisServer, prefix: str) -> Iterator[list[HashDBRedis]]:
    """Two store objects on the same index: two clients, as two processes would be."""
    opened = [HashDBRedis(redis_server.url, prefix=prefix) for _ in range(2)]
    yield opened
    for store in opened:
        store.close()


class CountingStore(HashDBRedis):
    """Counts round trips to the server (the real store otherwise)."""

    roundtrips = 0

    def _roundtrip(self, commands: list[Any]) -> list[Any]:
        self.roundtrips += 1
        return super()._roundtrip(commands)


def test_two_clients_share_one_index(stores: list[HashDBRedis]) -> None:
    a, b = stores
    a.put_many("fp", [(1, 10), (2**64 - 1, 20)])
    assert b.get_many("fp", [1, 2**64 - 1, 3]) == [10, 20, None]
    assert [a.allocate_id(), b.allocate_id(), a.allocate_id()] == [1, 2, 3]
    b.set_meta("options", "x")
    assert a.get_meta("options") == "x"


def test_prefixes_keep_indexes_apart(redis_server: RedisServer, prefix: str) -> None:
    with HashDBRedis(redis_server.url, prefix=prefix + "a") as a, HashDBRedis(redis_server.url, prefix=prefix) as b:
        a.put("fp", 5, 1)
        assert a.allocate_id() == 1
        assert b.get("fp", 5) is None
        assert b.allocate_id() == 1
        assert (a.count("fp"), b.count("fp")) == (1, 0)


def test_nshash_by_name_uses_the_name_as_prefix(redis_server: RedisServer, prefix: str, server: redis.Redis) -> None:
    docs, _ = labelled_corpus(2, reprints=("edited",))
    options = {"url": redis_server.url}
    with nshash.NSHash(prefix, hashdb="redis", store_options=options) as nsh:
        ids = [nsh.get_similar(doc) for doc in docs]
    assert ids == [1, 1, 2, 2]
    assert server.exists("{" + prefix + "}:store", "{" + prefix + "}:meta") == 2
    with nshash.NSHash(prefix, hashdb="redis", store_options=options) as again:
        assert again.get_similar(docs[1]) == 1
    with pytest.raises(nshash.OptionsMismatchError, match="n: stored 5, given 6"):
        nshash.NSHash(prefix, hashdb="redis", n=6, store_options=options)


def test_key_layout_and_counts(stores: list[HashDBRedis], prefix: str, server: redis.Redis) -> None:
    a, b = stores
    a.put_many("fp", [(key, key % 7) for key in range(1000)])
    b.put_many("fp", [(key, 1) for key in range(500, 1500)])  # half overwrite, half new
    a.put("parent", 3, 1)
    tag = "{" + prefix + "}"
    fp_keys = [key.decode() for key in server.scan_iter(match=f"{tag}:fp:*")]
    assert len(fp_keys) > 200  # spread over many buckets
    assert all(0 <= int(key.rsplit(":", 1)[1]) < BUCKETS for key in fp_keys)
    assert sum(server.hlen(key) for key in fp_keys) == 1500
    assert all(len(field) == 8 for key in fp_keys[:5] for field in server.hkeys(key))
    # The kept counts agree with what is really there.
    assert (a.count("fp"), b.count("parent"), a.count("stat")) == (1500, 1, 0)
    assert server.hget(f"{tag}:store", "format") == b"nshash.redis/3"


@pytest.mark.parametrize("version", [1, 2, 3])
def test_a_clusters_members_share_a_bucket_from_format_2_and_are_a_field_each_from_3(
    redis_server: RedisServer, prefix: str, server: redis.Redis, version: int
) -> None:
    tag = "{" + prefix + "}"
    if version < 3:  # an index made by an earlier release: it keeps its layout
        mapping = {"format": f"nshash.redis/{version}", "buckets": BUCKETS, "identity": "ab"}
        server.hset(f"{tag}:store", mapping=mapping)
    docs, _ = labelled_corpus(10, seed=5)
    serial = nshash.NSHash()
    with nshash.NSHash(hashdb=HashDBRedis(redis_server.url, prefix=prefix)) as nsh:
        assert [nsh.get_similar(doc) for doc in docs] == [serial.get_similar(doc) for doc in docs]
        assert nsh.stats()["fingerprints"] == serial.stats()["fingerprints"]
        assert nsh.store.count("sketch") == serial.store.count("sketch")
    buckets = [key for key in server.scan_iter(match=f"{tag}:sketch:*")]
    fields = sum(server.hlen(key) for key in buckets)
    members = serial.store.count("sketch") // ENTRIES
    # 10 clusters of up to 3 stored members each: ~10 buckets, or one per entry in format 1.
    assert len(buckets) <= 10 if version > 1 else len(buckets) > fields * 0.9
    assert fields == (members if version == 3 else members * ENTRIES)
    assert server.hget(f"{tag}:store", "format") == f"nshash.redis/{version}".encode()


def test_a_sketch_block_is_written_on_the_value_it_was_read_with(
    redis_server: RedisServer, stores: list[HashDBRedis], prefix: str
) -> None:
    """Two clients writing entries of one block (format 3) lose neither's, and counts stay exact."""
    a, b = stores
    block = entry_keys(7, 1)
    a.put_many("sketch", [(block[0], 10)])
    assert b.get_many("sketch", block[:3]) == [10, None, None]  # b remembers the block as {0: 10}
    a.put_many("sketch", [(block[1], 11)])  # b does not know
    b.put_many("sketch", [(block[2], -12)])  # on a guess of {0: 10}: refused, then read again and merged
    assert a.get_many("sketch", block[:4]) == [10, 11, -12, None]  # absent in what a saw: checked
    with HashDBRedis(redis_server.url, prefix=prefix) as fresh:
        assert fresh.get_many("sketch", block[:4]) == [10, 11, -12, None]
        assert fresh.count("sketch") == 3
    b.delete_many("sketch", block[:2])
    with HashDBRedis(redis_server.url, prefix=prefix) as fresh:
        assert (fresh.get_many("sketch", block[:3]), fresh.count("sketch")) == ([None, None, -12], 1)
    b.delete_many("sketch", [block[2]])
    with HashDBRedis(redis_server.url, prefix=prefix) as fresh:
        assert (fresh.get_many("sketch", block[:3]), fresh.count("sketch")) == ([None, None, None], 0)


def test_a_block_written_unread_is_checked_and_merged_when_reading_first(stores: list[HashDBRedis]) -> None:
    # Without a guess, a block written but not read (a new cluster's member) is assumed to be what the
    # client last saw there, else absent, and the commit checks it: a wrong assumption costs a retry, not a key.
    a, b = stores
    a.guess = False
    block = entry_keys(9, 2)
    b.put_many("sketch", [(block[0], 1)])
    a.put_many("sketch", [(block[1], 2)])  # assumed absent: refused, then written on what b left
    assert (a.conflicts, b.get_many("sketch", block[:3]), b.count("sketch")) == (1, [1, 2, None], 2)
    a.put_many("sketch", [(block[2], 3)])  # a remembers the block now: no retry
    assert (a.conflicts, b.get_many("sketch", block[:3]), b.count("sketch")) == (1, [1, 2, 3], 3)


def test_a_damaged_sketch_block_is_named(stores: list[HashDBRedis], prefix: str, server: redis.Redis) -> None:
    a, _ = stores
    key = entry_keys(3, 0)[0]
    a.put_many("sketch", [(key, 5)])
    tag = "{" + prefix + "}"
    (bucket,) = [name for name in server.scan_iter(match=f"{tag}:sketch:*")]
    (field,) = server.hkeys(bucket)
    server.hset(bucket, field, "not a block!")
    with HashDBRedis(a._url, prefix=prefix) as fresh, pytest.raises(nshash.StoreCorruptError, match="sketch block"):
        fresh.get_many("sketch", [key])


def test_batches_are_pipelined(redis_server: RedisServer, prefix: str) -> None:
    with CountingStore(redis_server.url, prefix=prefix) as store:
        store.roundtrips = 0
        store.put_many("fp", [(key, 1) for key in range(1000)])
        assert store.roundtrips == 1  # one conditional write; the script counts the keys it created
        store.roundtrips = 0
        assert store.get_many("fp", list(range(2000))) == [1] * 1000 + [None] * 1000
        assert store.roundtrips == 1
        assert store.count("fp") == 1000


def test_a_new_page_costs_one_round_trip(redis_server: RedisServer, prefix: str) -> None:
    docs, _ = labelled_corpus(20, reprints=(), seed=3)
    url = redis_server.url
    with CountingStore(url, prefix=prefix) as store, CountingStore(url, prefix=prefix) as other:
        nsh = nshash.NSHash(hashdb=store)
        for doc in docs:  # 20 different articles: every one is a new page
            store.roundtrips = 0
            similar_id = nsh.get_similar(doc)
            assert store.roundtrips == 1  # the guess "nothing found" was right, and wrote the page
            assert similar_id == store.highest_id()
        for doc in docs:  # the same pages again: the client remembers what it wrote
            store.roundtrips = 0
            nsh.get_similar(doc)
            assert store.roundtrips == 1
        again = nshash.NSHash(hashdb=other)
        for doc in docs:  # ... which another client does not
            other.roundtrips = 0
            again.get_similar(doc)
            # The wrong guess read the fingerprints under WATCH, then the parents, then an empty MULTI/EXEC
            assert other.roundtrips == 3
        store.guess = False
        store.roundtrips = 0
        nsh.get_similar(labelled_corpus(1, reprints=(), seed=99)[0][0])
        # Without guessing: WATCH+read of the fingerprints, read of the page's lines, MULTI/EXEC
        # taking the id from the counter read.
        assert store.roundtrips == 3


@pytest.mark.parametrize(("guess", "remember"), [(True, 200_000), (True, 50), (False, 0)])
def test_ids_equal_the_memory_stores(redis_server: RedisServer, prefix: str, guess: bool, remember: int) -> None:
    # Guessing right, guessing mostly wrong (a client remembering 50 values), or reading first.
    docs, _ = labelled_corpus(75, seed=8)
    memory = nshash.NSHash()
    expected = [memory.get_similar(doc) for doc in docs]
    store = HashDBRedis(redis_server.url, prefix=prefix)
    store.guess, store.remember = guess, remember
    with nshash.NSHash(hashdb=store) as nsh:
        assert [nsh.get_similar(doc) for doc in docs] == expected
        counts = ("fingerprints", "merged_clusters")
        assert {k: nsh.stats().get(k) for k in counts} == {k: memory.stats().get(k) for k in counts}
    assert len(docs) == 300 and store.conflicts == 0
    if guess and remember == 50:
        assert store.guessed_wrong > 50


def test_a_client_guesses_on_what_it_last_saw(stores: list[HashDBRedis]) -> None:
    a, b = stores
    a.remember = 4
    a.put_many("fp", [(key, key) for key in range(1, 7)])
    assert len(a._known) <= 4  # the oldest forgotten
    runs = 0

    def read(view: Any) -> list[int | None]:
        nonlocal runs
        runs += 1
        return list(view.get_many("fp", [5, 6]))

    assert [a.transaction(read), a.transaction(read)] == [[5, 6], [5, 6]]
    assert runs == 2  # guessed right from memory: one run, one round trip each
    b.put("fp", 6, 60)  # a's memory of key 6 is now wrong
    assert a.transaction(read) == [5, 60]  # the run on the wrong guess was not committed
    assert runs == 4
    assert a.transaction(read) == [5, 60] and runs == 5  # and a remembers the real value
    b.allocate_id()  # ids taken by others do not spoil a guess that takes none
    assert a.transaction(read) == [5, 60] and runs == 6
    assert (a.guessed_right, a.guessed_wrong) == (5, 1)  # put_many too was a (right) guess


@pytest.fixture
def stores_format_2(redis_server: RedisServer, prefix: str, server: redis.Redis) -> Iterator[list[HashDBRedis]]:
    """:func:`stores` on an index made by a release before format 3 (a sketch entry a field)."""
    mapping = {"format": "nshash.redis/2", "buckets": BUCKETS, "identity": "ab"}
    server.hset("{" + prefix + "}:store", mapping=mapping)
    opened = [HashDBRedis(redis_server.url, prefix=prefix) for _ in range(2)]
    yield opened
    for store in opened:
        store.close()


def _checked(view: GuessView) -> list[tuple[str, int]]:
    return sorted((table, key) for reads in view._reads.values() for table, key, _, _ in reads)


def test_a_member_a_client_saw_is_not_checked_again(stores: list[HashDBRedis]) -> None:
    # Format 3: a member is one block, written whole and once (members.add_member): a block this client
    # saw needs no check in the commit, unless a key it lacks is read; a block guessed absent does.
    a, b = stores
    member = entry_keys(1, 0)  # block 4: keys 256 to 288
    a.put_many("sketch", [(key, -key) for key in member])
    a.put_many("fp", [(256, 9)])
    view = GuessView(a)
    assert view.get_many("sketch", member) == [-key for key in member]
    assert view.get_many("fp", [256]) == [9]
    assert _checked(view) == [("fp", 256)]
    assert view.get_many("sketch", [296, 320]) == [None, None]  # a key block 4 lacks, and block 5 (unknown)
    assert _checked(view) == [("fp", 256), (BLOCKS, 4), (BLOCKS, 5)]
    b.put_many("sketch", [(296, 5)])  # another client adds the key a guessed absent
    assert a.transaction(lambda view: view.get_many("sketch", [256, 296])) == [-256, 5]
    assert a.guessed_wrong == 1


def test_an_absent_member_is_checked_by_its_block(stores: list[HashDBRedis]) -> None:
    # Of the members a client guesses absent, the commit checks only the block of the first one.
    a, b = stores
    words = [entry_keys(5, member) for member in range(MAX_MEMBERS)]
    blocks = [member[0] >> 6 for member in words]
    every = [key for member in words for key in member]
    view = GuessView(a)
    assert view.get_many("sketch", every) == [None] * (MAX_MEMBERS * ENTRIES)
    assert _checked(view) == [(BLOCKS, blocks[0])]
    b.put_many("sketch", [(key, key) for key in words[0]])  # another client adds member 0
    assert a.transaction(lambda view: view.get_many("sketch", every)) == [*words[0], *[None] * (3 * ENTRIES)]
    assert a.guessed_wrong == 1
    view = GuessView(a)  # a now knows member 0: it checks member 1's block only
    view.get_many("sketch", every)
    assert _checked(view) == [(BLOCKS, blocks[1])]
    b.put_many("sketch", [(key, -key) for key in words[1]])  # ... which b adds next
    assert a.transaction(lambda view: view.get_many("sketch", every))[ENTRIES : 2 * ENTRIES] == [-k for k in words[1]]
    assert a.guessed_wrong == 2


def test_sketch_words_a_client_saw_are_not_checked_again(stores_format_2: list[HashDBRedis]) -> None:
    # A member's sketch words are written once and never changed (members.add_member): a word
    # this client saw needs no check in the commit; a word it guesses absent does.
    a, b = stores_format_2
    a.put_many("sketch", [(256, 7), (257, 8)])
    a.put_many("fp", [(256, 9)])
    view = GuessView(a)
    assert view.get_many("sketch", [256, 257, 258]) == [7, 8, None]
    assert view.get_many("fp", [256]) == [9]
    checked = sorted((table, key) for reads in view._reads.values() for table, key, _, _ in reads)
    assert checked == [("fp", 256), ("sketch", 258)]
    b.put_many("sketch", [(258, 5)])  # another client adds the word a guessed absent
    assert a.transaction(lambda view: view.get_many("sketch", [256, 258])) == [7, 5]
    assert a.guessed_wrong == 1


def test_an_absent_member_is_checked_by_its_first_word(stores_format_2: list[HashDBRedis]) -> None:
    # Members are written whole and in order (members.add_member): of the members a client
    # guesses absent, the commit checks only the first word of the first one.
    a, b = stores_format_2
    words = [entry_keys(5, member) for member in range(MAX_MEMBERS)]
    view = GuessView(a)
    assert view.get_many("sketch", [key for member in words for key in member]) == [None] * (MAX_MEMBERS * ENTRIES)
    checked = [key for reads in view._reads.values() for _, key, _, _ in reads]
    assert checked == [words[0][0]]

    def read_all(view: Any) -> list[int | None]:
        return list(view.get_many("sketch", [key for member in words for key in member]))

    b.put_many("sketch", [(key, key) for key in words[0]])  # another client adds member 0
    assert a.transaction(read_all) == [*words[0], *[None] * ((MAX_MEMBERS - 1) * ENTRIES)]
    assert a.guessed_wrong == 1
    view = GuessView(a)  # a now knows member 0: it checks member 1's first word only
    read_all(view)
    assert [key for reads in view._reads.values() for _, key, _, _ in reads] == [words[1][0]]
    b.put_many("sketch", [(key, -key) for key in words[1]])  # ... which b adds next
    assert a.transaction(read_all) == [*words[0], *(-key for key in words[1]), *[None] * ((MAX_MEMBERS - 2) * ENTRIES)]
    assert a.guessed_wrong == 2
    a._known.pop(("sketch", words[1][3]))  # a word a forgot is guessed absent: checked, as its member is not
    view = GuessView(a)
    read_all(view)
    assert sorted(key for reads in view._reads.values() for _, key, _, _ in reads) == [words[1][3], words[2][0]]
    assert a.transaction(read_all)[ENTRIES + 3] == -words[1][3]


@pytest.mark.parametrize("seed", range(4))
def test_two_clients_interleaved_read_what_a_dict_holds(stores: list[HashDBRedis], seed: int) -> None:
    # Each client guesses from what it last saw, and the other changes it behind its back: every read, in a
    # transaction or not, must still be what one dict of every write holds.  Sketch words are written once,
    # as NSHash writes them (the guess protocol relies on it).
    rng = random.Random(seed)
    for client, remember in zip(stores, rng.sample([4, 64, 100_000], 2)):
        client.remember = remember  # a small memory forgets guesses, a large one keeps stale ones
    model: dict[tuple[str, int], int] = {}
    keys = [rng.getrandbits(64) for _ in range(10)] + [(rng.getrandbits(40) << 8) | part for part in range(4)]

    def apply(view: nshash.HashDB, table: str, chosen: list[int], roll: float) -> tuple[str, list[Any], list[Any]]:
        found = view.get_many(table, chosen)  # checked once committed: a guess that fails raises nothing here
        if roll < 0.5:
            values = [rng.randrange(-5, 1000) for _ in chosen]
            items = [(k, v) for k, v, f in zip(chosen, values, found) if table != "sketch" or f is None]
            view.put_many(table, items)
            return "put", items, found
        if roll < 0.65 and table != "sketch":
            view.delete_many(table, chosen)
            return "delete", chosen, found
        return "read", [], found

    for _ in range(200):
        client, table = rng.choice(stores), rng.choice(["fp", "line", "parent", "stat", "sketch"])
        chosen, roll = rng.sample(keys, rng.randint(1, 5)), rng.random()
        expected = [model.get((table, key)) for key in chosen]
        if roll >= 0.8:
            assert client.get_many(table, chosen) == expected
            continue
        kind, items, found = client.transaction(functools.partial(apply, table=table, chosen=chosen, roll=roll))
        assert found == expected  # what the committed run read: a wrong guess is retried, never kept
        if kind == "put":
            model.update(((table, key), value) for key, value in items)
        for key in items if kind == "delete" else []:
            model.pop((table, key), None)
    assert sum(client.guessed_wrong for client in stores) > 0  # the other client did change what was guessed


def test_conflicting_transaction_is_retried_and_its_id_never_reused(stores: list[HashDBRedis]) -> None:
    a, b = stores
    a.guess = False  # the WATCH path (a guess would run increment once more, on nothing found)
    a.put("stat", 1, 0)
    calls: list[int] = []

    def increment(view: Any) -> int:
        value = view.get("stat", 1)
        new_id = int(view.allocate_id())
        if len(calls) == 0:  # another client commits between our read and our commit
            b.put("stat", 1, 100)
        if len(calls) == 1:  # another client takes the id we were about to take
            assert b.allocate_id() == new_id
        calls.append(new_id)
        view.put("stat", 1, value + 1)
        return new_id

    assert a.transaction(increment) == 2
    # The 1st attempt's id was never taken (the counter did not move); the 2nd
    # found it taken by b; the 3rd reserved a fresh one.
    assert calls == [1, 1, 2]
    assert a.conflicts == 2
    assert b.get("stat", 1) == 101  # the retries saw the other client's write: no lost update
    assert b.allocate_id() == 3


def test_a_wrong_guess_is_never_written(stores: list[HashDBRedis]) -> None:
    a, b = stores

    def cluster_of(key: int) -> Any:
        def decide(view: Any) -> int:
            found = view.get("fp", key)
            if found is not None:
                return int(found)
            new_id = int(view.allocate_id())
            view.put_many("fp", [(key, new_id)])
            return new_id

        return decide

    assert a.transaction(cluster_of(1)) == 1  # guessed right: absent, counter 0
    assert b.allocate_id() == 2  # a's idea of the counter is now wrong
    assert a.transaction(cluster_of(2)) == 3  # not 2, which b holds
    b.put("fp", 3, 2)
    assert a.transaction(cluster_of(3)) == 2  # found, though guessed absent: no id taken
    assert (b.highest_id(), b.get_many("fp", [1, 2, 3]), b.count("fp")) == (3, [1, 3, 2], 3)
    assert (a.conflicts, b.conflicts) == (0, 0)


def test_failed_func_writes_nothing_and_leaves_no_watch(stores: list[HashDBRedis]) -> None:
    a, b = stores

    def fails(view: Any) -> None:
        view.get("fp", 1)
        view.put("fp", 1, 5)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        a.transaction(fails)
    assert a.get("fp", 1) is None
    a.transaction(lambda view: view.get("fp", 2))  # read-only
    b.put_many("fp", [(1, 1), (2, 2)])  # would abort a transaction still watching keys 1 or 2
    a.transaction(lambda view: view.put("fp", 3, view.get("fp", 3) or 3))
    assert a.conflicts == 0
    assert a.get_many("fp", [1, 2, 3]) == [1, 2, 3]


def test_a_read_only_transaction_never_sees_a_mix_of_states(stores: list[HashDBRedis]) -> None:
    a, b = stores
    a.guess = False  # the WATCH path: a guess reads nothing until it commits
    first, second = 1, next(key for key in range(2, 100) if a._keys.locate("fp", key)[0] != a._keys.locate("fp", 1)[0])
    a.put_many("fp", [(first, 1), (second, 1)])
    calls = 0

    def read_both(view: Any) -> tuple[int, int]:
        nonlocal calls
        calls += 1
        one = view.get("fp", first)
        if calls == 1:  # another client updates both keys between our two reads
            b.put_many("fp", [(first, 2), (second, 2)])
        return one, view.get("fp", second)

    assert a.transaction(read_both) == (2, 2)  # never (1, 2), a state that did not exist
    assert calls == 2


def test_threads_sharing_a_store_match_a_serial_run(redis_server: RedisServer, prefix: str) -> None:
    docs, _ = labelled_corpus(20, seed=3)
    serial = nshash.NSHash()
    expected = serial.resolve_many([serial.get_similar(doc) for doc in docs])
    found: dict[int, int] = {}
    with nshash.NSHash(prefix, hashdb="redis", store_options={"url": redis_server.url}) as nsh:

        def work(part: int) -> None:
            for i in range(part, len(docs), 4):
                found[i] = nsh.get_similar(docs[i])

        threads = [threading.Thread(target=work, args=(part,)) for part in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        resolved = nsh.resolve_many([found[i] for i in range(len(docs))])
    # Same partition of the documents (ids may differ with arrival order).
    assert len(set(zip(expected, resolved))) == len(set(expected)) == len(set(resolved))


def _child_uses_inherited_store(store: HashDBRedis, queue: Any) -> None:
    store.put("fp", 2, 22)
    queue.put(store.get_many("fp", [1, 2]))


def test_a_forked_child_opens_its_own_connection(stores: list[HashDBRedis]) -> None:
    a, _ = stores
    a.put("fp", 1, 11)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child_uses_inherited_store, args=(a, queue))
    child.start()
    assert queue.get(timeout=30) == [11, 22]
    child.join(timeout=30)
    assert child.exitcode == 0
    assert a.get_many("fp", [1, 2]) == [11, 22]  # the parent's connection is still in step


def test_unreachable_server_names_it(tmp_path: Path) -> None:
    port = free_port()
    url = f"redis://:s3cret@127.0.0.1:{port}/0"
    with pytest.raises(nshash.StoreConnectionError) as caught:
        HashDBRedis(url, prefix="x", timeout=2)
    message = str(caught.value)
    assert f"127.0.0.1:{port}" in message
    assert f"redis://:***@127.0.0.1:{port}/0" in message
    assert "s3cret" not in message
    with pytest.raises(nshash.StoreConnectionError, match=f"127.0.0.1:{port}"):
        nshash.NSHash("news", hashdb="redis", store_options={"url": url, "timeout": 2})


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"url": 6379}, TypeError, "url must be a str"),
        ({"url": "http://localhost"}, ValueError, "redis://"),
        ({"url": "redis://:s3cret@localhost:port/0"}, ValueError, "not a Redis URL"),
        ({"prefix": ""}, ValueError, "prefix must be a non-empty str"),
        ({"prefix": None}, ValueError, "prefix must be a non-empty str"),
        ({"timeout": 0}, ValueError, "timeout"),
        ({"max_conflicts": -1}, ValueError, "max_conflicts"),
        ({"buckets": 1000}, ValueError, "power of two"),
        ({"buckets": True}, ValueError, "power of two"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match) as caught:
        HashDBRedis(**kwargs)
    assert isinstance(caught.value, nshash.NSHashError)


def test_buckets_are_fixed_at_creation(redis_server: RedisServer, prefix: str) -> None:
    with HashDBRedis(redis_server.url, prefix=prefix, buckets=1) as one:
        one.put_many("fp", [(key, key) for key in range(100)])
    with HashDBRedis(redis_server.url, prefix=prefix) as same:  # takes the stored count
        assert same.get_many("fp", [0, 99, 100]) == [0, 99, None]
    with pytest.raises(nshash.OptionsMismatchError, match="buckets=1, not 64"):
        HashDBRedis(redis_server.url, prefix=prefix, buckets=64)


@pytest.mark.parametrize("guess", [True, False])
def test_thousands_of_fields_in_one_bucket(redis_server: RedisServer, prefix: str, guess: bool) -> None:
    # The scripts read and write a bucket's fields in slices (Lua's unpack takes a few thousand values).
    with (
        HashDBRedis(redis_server.url, prefix=prefix, buckets=1) as one,
        HashDBRedis(redis_server.url, prefix=prefix) as two,
    ):
        one.put_many("fp", [(key, key + 1) for key in range(2500)])
        two.guess = guess
        keys = list(range(2600))
        assert two.transaction(lambda view: view.get_many("fp", keys)) == [*range(1, 2501), *[None] * 100]
        assert two.count("fp") == 2500


@pytest.mark.parametrize(
    "plant",
    [
        lambda r, tag: r.hset(f"{tag}:meta", "options", "{}"),  # data without our marker
        lambda r, tag: r.set(f"{tag}:store", "x"),  # a string where our hash goes
        lambda r, tag: r.hset(f"{tag}:store", mapping={"format": "other/9", "buckets": 16}),
        lambda r, tag: r.hset(f"{tag}:store", mapping={"format": "nshash.redis/1", "buckets": "many"}),
    ],
)
def test_foreign_keys_under_the_prefix_are_refused(
    redis_server: RedisServer, prefix: str, server: redis.Redis, plant: Any
) -> None:
    tag = "{" + prefix + "}"
    plant(server, tag)
    before = {key: server.dump(key) for key in server.scan_iter(match=f"{tag}:*")}
    with pytest.raises(nshash.StoreCorruptError, match="prefix"):
        HashDBRedis(redis_server.url, prefix=prefix)
    assert {key: server.dump(key) for key in server.scan_iter(match=f"{tag}:*")} == before  # untouched


def test_an_index_of_a_later_format_asks_for_an_upgrade(
    redis_server: RedisServer, prefix: str, server: redis.Redis
) -> None:
    server.hset("{" + prefix + "}:store", mapping={"format": "nshash.redis/9", "buckets": 16, "identity": "ab"})
    with pytest.raises(nshash.StoreCorruptError, match=r"redis/9'.*newer nshash made it; upgrade nshash"):
        HashDBRedis(redis_server.url, prefix=prefix)


def test_foreign_value_in_a_bucket_is_reported(stores: list[HashDBRedis], prefix: str, server: redis.Redis) -> None:
    a, _ = stores
    a.put("fp", 1, 1)
    bucket = next(key.decode() for key in server.scan_iter(match="{" + prefix + "}:fp:*"))
    server.delete(bucket)
    server.set(bucket, "not a hash")
    with pytest.raises(nshash.StoreCorruptError, match="not written by nshash"):
        a.get("fp", 1)
    elsewhere = next(key for key in range(2, 100) if a._keys.locate("fp", key)[0] != bucket)
    a.put("fp", elsewhere, 7)  # the rest of the index still works
    assert a.get("fp", elsewhere) == 7


def test_an_index_wiped_from_the_server_stops_the_store(
    redis_server: RedisServer, prefix: str, server: redis.Redis
) -> None:
    docs, _ = labelled_corpus(2, reprints=())
    with nshash.NSHash(prefix, hashdb="redis", store_options={"url": redis_server.url}) as nsh:
        assert nsh.get_similar(docs[0]) == 1
        for key in server.scan_iter(match="{" + prefix + "}:*"):
            server.delete(key)  # as a restart without persistence would
        with pytest.raises(nshash.StoreCorruptError, match="gone from the server"):
            nsh.get_similar(docs[1])
        with pytest.raises(nshash.StoreCorruptError, match="gone from the server"):
            nsh.store.allocate_id()


def test_stats_and_size(redis_server: RedisServer, prefix: str) -> None:
    docs, _ = labelled_corpus(5, reprints=("byline",))
    with nshash.NSHash(prefix, hashdb="redis", store_options={"url": redis_server.url}) as nsh:
        for doc in docs:
            nsh.get_similar(doc)
        stats = nsh.stats()
    assert stats["store"] == f"HashDBRedis({redis_server.url}, prefix={prefix!r})"
    assert stats["fingerprints"] >= 5 * 5
    assert stats["store_bytes"] > 0


def test_scripts_flushed_by_an_operator_are_loaded_again(stores: list[HashDBRedis], server: redis.Redis) -> None:
    a, _ = stores
    a.put("fp", 1, 1)
    server.script_flush()
    a.put("fp", 2, 2)  # the guess's APPLY: NOSCRIPT, loaded, sent again
    server.script_flush()
    a.guess = False
    assert a.transaction(lambda view: view.get_many("fp", [1, 2, 3])) == [1, 2, None]  # the READ script
    server.script_flush()
    a.transaction(lambda view: view.put("fp", 3, 3))  # APPLY inside MULTI/EXEC
    assert a.get_many("fp", [1, 2, 3]) == [1, 2, 3]
    assert a.count("fp") == 3
