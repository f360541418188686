"""The memory store under kills, signals, full disks and damaged files (issue 13, items 3, 5, 6).

Real child processes killed with real signals, a real tmpfs filled up, real
bit flips; the log's replay is compared with the live tables.
"""

from __future__ import annotations

import os
import pickle
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nshash
from nshash.stores import memory_format
from nshash.stores.memory import read_state
from tests.fleet import article, labelled_corpus, site_corpus

# Acknowledges each document on stdout, with the time it was acknowledged.
CRAWLER = textwrap.dedent(
    """
    import json, signal, sys, time
    import nshash
    # A runner started under nohup passes SIGHUP on as ignored: the crawler must die of it as a crawler does.
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    nsh = nshash.NSHash(sys.argv[1])
    for i, doc in enumerate(json.load(open(sys.argv[2]))):
        print(i, nsh.get_similar(doc), time.monotonic(), flush=True)
        time.sleep(0.002)
    """
)


def crawl_until_signal(tmp_path: Path, sig: int, docs: list[str], after: float) -> tuple[dict[int, int], float]:
    """Run the crawler, send ``sig`` ``after`` seconds into it; return the acknowledged ids and the kill time."""
    docs_file = tmp_path / "docs.json"
    docs_file.write_text(__import__("json").dumps(docs))
    child = subprocess.Popen(
        [sys.executable, "-c", CRAWLER, str(tmp_path / "news"), str(docs_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    acked: dict[int, tuple[int, float]] = {}
    start = None
    for line in child.stdout:
        i, similar_id, when = line.split()
        acked[int(i)] = (int(similar_id), float(when))
        start = start or time.monotonic()
        if time.monotonic() - start > after:
            os.kill(child.pid, sig)
            break
    for line in child.stdout.read().split("\n")[:-1]:
        i, similar_id, when = line.split()
        acked[int(i)] = (int(similar_id), float(when))
    child.wait(timeout=30)
    assert child.returncode == -sig
    assert len(acked) < len(docs), "the crawl ended before the signal"
    return {i: value[0] for i, value in acked.items()}, max(value[1] for value in acked.values())


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP])
def test_a_killed_crawler_loses_at_most_a_second(tmp_path: Path, sig: int) -> None:
    rng = random.Random(sig)
    docs = [article(rng) for _ in range(3000)]
    acked, _ = crawl_until_signal(tmp_path, sig, docs, after=1.6)
    with nshash.NSHash(tmp_path / "news") as nsh:
        fp = nsh.store._tables["fp"]  # type: ignore[attr-defined]
        kept = max(fp.values())  # distinct articles: 1, 2, 3, ... in order
        # The log was committed at least once (every 1 s), so about a second at most is missing.
        assert kept >= 1
        lost = len(acked) - kept
        per_second = len(acked) / 1.6
        assert lost <= 1.3 * per_second, (lost, len(acked))
        for i in range(kept):  # what was kept is exactly the first documents, with their ids
            assert nsh.get_similar(docs[i]) == acked[i]
        assert nsh.get_similar(article(random.Random("new"))) > max(acked.values())  # no id twice


def files_as_they_are(folder: Path, name: str) -> Path:
    """A copy of a memory store's files (file, log, ids; not the lock) in ``folder/copy``: what a kill -9 leaves."""
    copy = folder / "copy"
    copy.mkdir()
    for path in folder.glob(name + "*"):
        if not path.name.endswith(".lock"):
            shutil.copy(path, copy / path.name)
    return copy / name


def test_the_log_replays_to_exactly_the_live_tables(tmp_path: Path) -> None:
    # Site pages share headers and footers: boilerplate marking and merges, the
    # writes that overwrite values, are all in this stream.
    docs, _ = site_corpus(150, seed=3)
    more, _ = labelled_corpus(150, seed=4)
    nsh = nshash.NSHash(tmp_path / "news")
    store = nsh.store
    assert isinstance(store, nshash.HashDBMemory)
    for doc in docs + more:
        nsh.get_similar(doc)
    store.commit()
    live = {table: dict(values) for table, values in store._tables.items()}
    assert live["stat"] and any(value == 0 for value in live["fp"].values())  # evidence and boilerplate
    # What a kill -9 now leaves: the files as they are (no save ran).
    copy = files_as_they_are(tmp_path, "news.hashdb.pkl")
    nsh.close()
    with nshash.HashDBMemory(copy) as replayed:
        assert {table: dict(values) for table, values in replayed._tables.items()} == live


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.booleans(), st.lists(st.integers(0, 12), min_size=1, max_size=4), st.integers(1, 9), st.booleans()
        ),
        max_size=25,
    )
)
def test_puts_and_deletions_of_one_key_in_one_frame_replay_to_the_last(
    steps: list[tuple[bool, list[int], int, bool]],
) -> None:
    # A key written, deleted and written again between two commits (and the
    # other way round) must replay to its last state, in C and in pure Python.
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = nshash.HashDBMemory(folder / "s.hashdb.pkl", log_interval=3600)
        try:
            for put, keys, value, commit in steps:
                if put:
                    store.put_many("fp", [(key, value + key) for key in keys])
                else:
                    store.delete_many("fp", keys)
                if commit:
                    store.commit()
            store.commit()
            live = dict(store._tables["fp"].items())
            copy = files_as_they_are(folder, "s.hashdb.pkl")
        finally:
            store.close()
        with nshash.HashDBMemory(copy) as replayed:
            assert dict(replayed._tables["fp"].items()) == live


def test_a_torn_last_frame_is_dropped_and_the_rest_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.hashdb.pkl"
    store = nshash.HashDBMemory(path)
    store.put_many("fp", [(1, 1)])
    store.commit()
    store.put_many("fp", [(2, 2)])
    store.commit()
    log = (tmp_path / "s.hashdb.pkl.log").read_bytes()
    store._journal.close()  # type: ignore[union-attr]  # as if killed: no save
    store._journal = None
    store._forked_off()
    store._lock_file.close()  # type: ignore[union-attr]
    (tmp_path / "s.hashdb.pkl.log").write_bytes(log[:-3])
    with nshash.HashDBMemory(path) as again:
        assert again.get_many("fp", [1, 2]) == [1, None]


def test_temp_files_of_a_killed_save_are_removed_on_open(tmp_path: Path) -> None:
    with nshash.HashDBMemory(tmp_path / "news.hashdb.pkl") as store:
        store.put_many("fp", [(1, 1)])
    leftovers = ["news.hashdb.pkl.a1b2c3d4.tmp", "news.hashdb.pkl.k_9xq2ab.tmp", "news.hashdb.pkl.ids.0011aabb.tmp"]
    unrelated = ["news.hashdb.pkl.bak", "other.hashdb.pkl.a1b2c3d4.tmp", "notes.tmp"]
    for name in leftovers + unrelated:
        (tmp_path / name).write_bytes(b"x" * 100)
    with nshash.HashDBMemory(tmp_path / "news.hashdb.pkl") as store:
        assert store.get_many("fp", [1]) == [1]
    names = {path.name for path in tmp_path.iterdir()}
    assert not names & set(leftovers)
    assert set(unrelated) <= names  # never what is not ours


# -- damaged and hostile files -----------------------------------------------------------
def saved_store(tmp_path: Path) -> Path:
    path = tmp_path / "news.hashdb.pkl"
    with nshash.NSHash(tmp_path / "news") as nsh:
        for doc in labelled_corpus(20, seed=1)[0]:
            nsh.get_similar(doc)
    (tmp_path / "news.hashdb.pkl.log").unlink()
    return path


def test_every_single_bit_flip_is_detected(tmp_path: Path) -> None:
    path = saved_store(tmp_path)
    original = path.read_bytes()
    rng = random.Random(5)
    for bit in rng.sample(range(len(original) * 8), 300):
        damaged = bytearray(original)
        damaged[bit // 8] ^= 1 << (bit % 8)
        path.write_bytes(bytes(damaged))
        with pytest.raises(nshash.StoreCorruptError):
            nshash.HashDBMemory(path, log_interval=None)
        assert path.read_bytes() == damaged  # never overwritten


@pytest.mark.parametrize("behind", [False, True], ids=["checksum first", "checksum on a thread"])
def test_a_damaged_body_is_named_by_its_checksum(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, behind: bool) -> None:
    # A large file's checksum is computed while its tables are built: whatever building them
    # meets in a damaged body (a key twice, a torn pickle), the checksum is what is reported.
    threads: list[str] = []
    compute = memory_format._Checksum._compute

    def spied(self: object, body: memoryview) -> None:
        threads.append(threading.current_thread().name)
        compute(self, body)  # type: ignore[arg-type]

    monkeypatch.setattr(memory_format._Checksum, "_compute", spied)
    if behind:
        monkeypatch.setattr(memory_format, "_CHECK_BEHIND", 0)
    path = saved_store(tmp_path)
    original = path.read_bytes()
    header = struct.calcsize("<8sIQI")
    for bit in random.Random(6).sample(range(header * 8, len(original) * 8), 100):
        damaged = bytearray(original)
        damaged[bit // 8] ^= 1 << (bit % 8)
        path.write_bytes(bytes(damaged))
        with pytest.raises(nshash.StoreCorruptError, match="fails its checksum"):
            nshash.HashDBMemory(path, log_interval=None)
        assert path.read_bytes() == damaged
    assert set(threads) == ({"nshash-crc32"} if behind else {threading.current_thread().name})


def crafted(tmp_path: Path, tables: dict[str, object], next_id: object = 10) -> Path:
    """A version-1 file (a bare pickle, as older nshash wrote) holding ``tables``."""
    path = tmp_path / "news.hashdb.pkl"
    state = {"format": "nshash.hashdb.memory", "version": 1, "meta": {}, "next_id": next_id, "tables": tables}
    path.write_bytes(pickle.dumps(state))
    return path


@pytest.mark.parametrize(
    ("tables", "next_id", "message"),
    [
        ({"parent": {5: 6, 6: 7, 7: 5}}, 10, "cycle"),
        ({"parent": {5: 5}}, 10, "cycle"),
        ({"fp": {1: "3"}}, 10, "not ints"),
        ({"fp": {1: 2.0}}, 10, "not ints"),
        ({"fp": {1: True}}, 10, "not ints"),
        ({"fp": {-1: 2}}, 10, "outside"),
        ({"fp": {1: 2**64}}, 10, "outside"),
        ({"fp": [(1, 2)]}, 10, "not a dict"),
        ({"nope": {}}, 10, "unknown tables"),
        ({}, 0, "next_id"),
        ({}, "5", "next_id"),
    ],
)
def test_crafted_files_are_refused_untouched(
    tmp_path: Path, tables: dict[str, object], next_id: object, message: str
) -> None:
    path = crafted(tmp_path, tables, next_id)
    before = path.read_bytes()
    with pytest.raises(nshash.StoreCorruptError, match=message):
        nshash.NSHash(tmp_path / "news")
    assert path.read_bytes() == before


def test_an_older_file_with_valid_data_still_opens(tmp_path: Path) -> None:
    crafted(tmp_path, {"fp": {1: 3}, "parent": {3: 2}}, 4)
    with nshash.HashDBMemory(tmp_path / "news.hashdb.pkl") as store:
        assert store.get_many("fp", [1]) == [3]
    assert read_state(tmp_path / "news.hashdb.pkl")["version"] == 3  # saved with a checksum and packed arrays now


def test_a_log_newer_than_the_file_is_refused(tmp_path: Path) -> None:
    path = saved_store(tmp_path)
    older = path.read_bytes()
    with nshash.HashDBMemory(path) as store:
        store.put_many("fp", [(99, 1)])
        store.save()
        store.put_many("fp", [(98, 1)])
        store.commit()
        log = (tmp_path / "news.hashdb.pkl.log").read_bytes()
    path.write_bytes(older)  # an older copy of the file restored, next to the newer log
    (tmp_path / "news.hashdb.pkl.log").write_bytes(log)
    with pytest.raises(nshash.StoreCorruptError, match="older copy"):
        nshash.HashDBMemory(path)
    assert (tmp_path / "news.hashdb.pkl.log").read_bytes() == log


# -- a full disk ---------------------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path: Path) -> object:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], check=False).returncode:
        pytest.skip("mount refused (no CAP_SYS_ADMIN)")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(directory: Path) -> Path:
    """Fill the file system of ``directory``; return the file to delete to free it."""
    ballast = directory / "ballast"
    fd = os.open(ballast, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, bytes(4096))
    except OSError:
        pass
    finally:
        os.close(fd)
    return ballast


def test_memory_store_on_a_full_disk(small_disk: Path) -> None:
    store = nshash.HashDBMemory(small_disk / "news.hashdb.pkl")
    store.put_many("fp", [(1, 1)])
    store.save()
    ballast = fill(small_disk)
    store.put_many("fp", [(key, key) for key in range(2, 8000)])
    with pytest.raises(nshash.StoreWriteError, match=r"HashDBMemory.*no space left.*free disk space"):
        store.save()
    assert read_state(small_disk / "news.hashdb.pkl")["tables"]["fp"] == {1: 1}  # the old file is intact
    assert not list(small_disk.glob("*.tmp"))
    ballast.unlink()
    store.save()  # freeing space is enough
    store.close()
    with nshash.HashDBMemory(small_disk / "news.hashdb.pkl") as again:
        assert again.count("fp") == 7999


def test_leveldb_store_on_a_full_disk(small_disk: Path) -> None:
    store = nshash.HashDBLeveldb(small_disk / "news.hashdb")
    store.put_many("fp", [(1, 1)])
    ballast = fill(small_disk)
    with pytest.raises(nshash.StoreWriteError, match=r"HashDBLeveldb.*no space left.*free disk space"):
        for start in range(0, 10**6, 1000):
            store.put_many("fp", [(key, key) for key in range(start, start + 1000)])
    # Every write, whatever its form, fails the same way while the disk is full.
    writes = {
        "put_many": lambda: store.put_many("fp", [(key, key) for key in range(10**6, 10**6 + 5000)]),
        "delete_many": lambda: store.delete_many("fp", list(range(5000))),
        "set_meta": lambda: store.set_meta("note", "x" * 100_000),
        "transaction": lambda: store.transaction(lambda view: view.put_many("sig", [(k, k) for k in range(5000)])),
    }
    for name, write in writes.items():
        with pytest.raises(nshash.StoreWriteError, match="no space left") as caught:
            write()
        assert isinstance(caught.value, OSError), name
    ballast.unlink()
    store.put_many("fp", [(2, 2)])  # reopened by itself once there is space again
    assert store.get_many("fp", [1, 2]) == [1, 2]
    store.close()


def test_a_save_that_fails_at_exit_exits_non_zero(small_disk: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        import nshash
        store = nshash.HashDBMemory(sys.argv[1] + "/news.hashdb.pkl", log_interval=None)
        import os
        fd = os.open(sys.argv[1] + "/ballast", os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, bytes(4096))
        except OSError:
            pass
        store.put_many("fp", [(key, key) for key in range(50000)])
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(small_disk)], capture_output=True, text=True)
    assert done.returncode != 0
    assert "could not save at exit" in done.stderr and "no space left" in done.stderr


def test_a_frame_replays_each_keys_last_write(tmp_path: Path) -> None:
    # Puts and deletions of one key within one group commit: the log keeps the last of them.
    store = nshash.HashDBMemory(tmp_path / "s.hashdb.pkl")
    store.put_many("fp", [(1, 10), (2, 20), (3, 30)])
    store.delete_many("fp", [1, 2])
    store.put_many("fp", [(1, 11)])
    store.put_many("stat", [(3, 5)])
    store.put_many("stat", [(3, 6)])
    store.delete_many("fp", [3])
    store.commit()
    live = {table: dict(values) for table, values in store._tables.items()}
    copy = files_as_they_are(tmp_path, "s.hashdb.pkl")
    store.close()
    with nshash.HashDBMemory(copy) as replayed:
        assert {table: dict(values) for table, values in replayed._tables.items()} == live
        assert replayed.get_many("fp", [1, 2, 3]) == [11, None, None]
        assert replayed.get_many("stat", [3]) == [6]
