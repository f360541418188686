"""What survives a restart: ids, the id counter, options; and what a bad file does."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import nshash
from nshash.stores.memory import read_state
from tests.test_nshash import ARTICLE, ENGLISH

# The child inserts documents and exits WITHOUT close(): crawler scripts rely
# on the index being saved at interpreter exit.
CHILD = textwrap.dedent(
    """
    import json, sys
    import nshash
    name, hashdb, hashfunc = sys.argv[1:4]
    nsh = nshash.NSHash(name, hashfunc=hashfunc, hashdb=hashdb)
    docs = json.load(sys.stdin)
    print(json.dumps([nsh.get_similar(doc) for doc in docs]))
    """
)


def run_child(name: Path, hashdb: str, docs: list[str], hashfunc: str = "farmhash") -> list[int]:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(name), hashdb, hashfunc],
        input=json.dumps(docs),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise AssertionError(result.stderr)
    return list(json.loads(result.stdout))


def unrelated(i: int) -> str:
    return "".join(f"第{i}篇文章的第{j}句话在这里，内容互不相同，编号{i * 100 + j}。" for j in range(5))


@pytest.mark.parametrize("hashdb", ["memory", "leveldb"])
def test_restart_continues_where_it_stopped(tmp_path: Path, hashdb: str) -> None:
    name = tmp_path / "news"
    first = run_child(name, hashdb, [ARTICLE, ENGLISH, unrelated(1)])
    assert first == [1, 2, 3]
    second = run_child(name, hashdb, ["转载\n" + ENGLISH, unrelated(2), "来源：某报\n" + ARTICLE, unrelated(3)])
    # Reprints of old articles get their old ids; new articles never reuse one.
    assert second == [2, 4, 1, 5]


@pytest.mark.parametrize("hashdb", ["memory", "leveldb"])
def test_restart_with_other_hashfunc_is_refused(tmp_path: Path, hashdb: str) -> None:
    name = tmp_path / "news"
    run_child(name, hashdb, [ARTICLE], hashfunc="md5")
    with pytest.raises(AssertionError, match="OptionsMismatchError: .*hashfunc: stored 'md5', given 'farmhash'"):
        run_child(name, hashdb, [ARTICLE], hashfunc="farmhash")
    assert run_child(name, hashdb, [ARTICLE], hashfunc="md5") == [1]


def test_memory_store_saves_atomically_and_explicitly(tmp_path: Path) -> None:
    name = tmp_path / "news"
    nsh = nshash.NSHash(name)
    nsh.get_similar(ARTICLE)
    path = tmp_path / "news.hashdb.pkl"
    assert not path.exists()  # nothing written until a save
    nsh.flush()
    saved = path.read_bytes()
    assert not list(tmp_path.glob("*.tmp"))  # the temp file was renamed into place
    nsh.get_similar(ENGLISH)
    nsh.close()
    assert path.read_bytes() != saved
    with nshash.NSHash(name) as again:
        assert again.get_similar(ENGLISH) == 2


def test_closing_an_index_only_read_from_does_not_rewrite_its_file(tmp_path: Path) -> None:
    name = tmp_path / "news"
    path = tmp_path / "news.hashdb.pkl"
    with nshash.NSHash(name) as nsh:
        nsh.get_similar(ARTICLE)
    written = path.stat()
    with nshash.NSHash(name) as nsh:  # reads only: the same text again, a query, stats
        assert nsh.get_similar(ARTICLE) == 1 and nsh.query(ENGLISH).is_new
        nsh.flush()
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    with nshash.NSHash(name) as nsh:
        assert nsh.get_similar(ENGLISH) == 2
    assert path.stat().st_ino != written.st_ino  # a change is saved (a new file renamed into place)
    with nshash.NSHash(name) as nsh:
        assert nsh.get_similar(ENGLISH) == 2 and nsh.get_similar("A third, new article, long enough to key.") == 3


def test_save_every_bounds_what_a_crash_can_lose(tmp_path: Path) -> None:
    path = tmp_path / "news.hashdb.pkl"
    nsh = nshash.NSHash(tmp_path / "news", store_options={"save_every": 3})
    for inserted in range(1, 12):
        nsh.get_similar(unrelated(inserted))
        saved_ids = read_state(path)["next_id"] - 1 if path.exists() else 0
        assert inserted - 3 < saved_ids <= inserted
    nsh.close()


GARBAGE = [
    b"",
    b"not a pickle at all",
    pickle.dumps([1, 2, 3]),
    pickle.dumps({"format": "something-else"}),
    pickle.dumps(Path("/etc/passwd")),  # a class: refused, never instantiated
    pickle.dumps({"format": "nshash.hashdb.memory", "version": 99}),
    pickle.dumps({"format": "nshash.hashdb.memory", "version": 1, "tables": {}}),
]


@pytest.mark.parametrize("content", GARBAGE)
def test_corrupt_memory_file_raises_and_is_never_overwritten(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "news.hashdb.pkl"
    path.write_bytes(content)
    with pytest.raises(nshash.StoreCorruptError, match="news.hashdb.pkl"):
        nshash.NSHash(tmp_path / "news")
    assert path.read_bytes() == content
    # The failed open must not hold the lock or schedule an exit-time save.
    with pytest.raises(nshash.StoreCorruptError):
        nshash.HashDBMemory(path)
    assert path.read_bytes() == content


def test_corrupt_leveldb_raises_and_is_left_alone(tmp_path: Path) -> None:
    name = tmp_path / "news"
    with nshash.NSHash(name, hashdb="leveldb") as nsh:
        nsh.get_similar(ARTICLE)
    current = tmp_path / "news.hashdb" / "CURRENT"
    current.write_text("MANIFEST-999999\n")
    with pytest.raises(nshash.StoreCorruptError, match="not a readable LevelDB"):
        nshash.NSHash(name, hashdb="leveldb")
    assert current.read_text() == "MANIFEST-999999\n"


def test_foreign_leveldb_is_refused(tmp_path: Path) -> None:
    import plyvel

    db = plyvel.DB(str(tmp_path / "other.hashdb"), create_if_missing=True)
    db.put(b"f" + b"\x00" * 8, b"someone else's data")
    db.close()
    with pytest.raises(nshash.StoreCorruptError, match="not written by nshash"):
        nshash.NSHash(tmp_path / "other", hashdb="leveldb")


def test_leveldb_path_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "x.hashdb").write_text("hello")
    with pytest.raises(nshash.StoreCorruptError, match="is a file"):
        nshash.NSHash(tmp_path / "x", hashdb="leveldb")


@pytest.mark.parametrize(
    ("platform", "says"),
    [("linux", "pip install 'nshash\\[leveldb\\]'"), ("win32", "does not build on Windows.*name=None")],
)
def test_leveldb_without_plyvel_says_what_to_install_or_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, platform: str, says: str
) -> None:
    # plyvel is a core dependency except on Windows (pyproject.toml), where it does not build.
    from nshash.stores import leveldb

    monkeypatch.setitem(sys.modules, "plyvel", None)  # import plyvel: ImportError
    monkeypatch.setattr(leveldb.sys, "platform", platform)
    with pytest.raises(nshash.MissingDependencyError, match=says):
        leveldb.HashDBLeveldb(tmp_path / "x.hashdb")
    assert not (tmp_path / "x.hashdb").exists()


def test_ids_are_never_reused_after_a_crash_before_any_save(tmp_path: Path) -> None:
    # The child hands out ids, then dies without saving (os._exit skips exit handlers).
    child = textwrap.dedent(
        """
        import os, sys
        import nshash
        nsh = nshash.NSHash(sys.argv[1])
        texts = ["今天上午市政府召开新闻发布会介绍城市交通规划。", "气象台预计明天夜间到后天白天有一次明显降雨过程。",
                 "本届运动会共有来自三十个国家的两千名运动员参加。", "研究人员发现这种新材料在低温条件下具有超导特性。",
                 "图书馆将于下月起延长周末开放时间方便读者借阅。"]
        ids = [nsh.get_similar(text) for text in texts]
        print(max(ids), flush=True)
        os._exit(0)
        """
    )
    name = tmp_path / "news"
    out = subprocess.run([sys.executable, "-c", child, str(name)], capture_output=True, text=True, check=True)
    issued = int(out.stdout)
    assert issued == 5
    assert not (tmp_path / "news.hashdb.pkl").exists()  # nothing was saved...
    with nshash.NSHash(name) as nsh:
        assert nsh.get_similar(ARTICLE) > issued  # ...but the ids handed out are not handed out again


def test_a_clean_restart_has_no_id_gap(tmp_path: Path) -> None:
    with nshash.NSHash(tmp_path / "news") as nsh:
        assert nsh.get_similar(ARTICLE) == 1
    with nshash.NSHash(tmp_path / "news") as nsh:
        assert nsh.get_similar(ENGLISH) == 2


def test_corrupt_id_reservation_raises_and_is_left_alone(tmp_path: Path) -> None:
    with nshash.NSHash(tmp_path / "news") as nsh:
        nsh.get_similar(ARTICLE)
    ids = tmp_path / "news.hashdb.pkl.ids"
    ids.write_text("garbage")
    with pytest.raises(nshash.StoreCorruptError, match="id reservation"):
        nshash.NSHash(tmp_path / "news")
    assert ids.read_text() == "garbage"
