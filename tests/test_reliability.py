"""Reliability of every store: fork after open, names, file modes, custom hash functions.

Issue 13, items 1, 5 (names), 9 and 10.  Real forks, real files.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import stat
from pathlib import Path

import pytest

import nshash
from nshash.hashing import named_hashfunc, resolve_hashfunc
from tests.conftest import StoreFactory
from tests.fleet import article


# -- 1. fork after open ---------------------------------------------------------------
def _in_child(store: nshash.HashDB) -> str:
    """Fork; in the child, use the store; return what happened there (class name of the error, or 'ok')."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report and leave without running exit handlers
        os.close(read)
        try:
            store.get_many("fp", [1])
            store.put_many("fp", [(2, 2)])
            store.transaction(lambda view: view.allocate_id())
            outcome = "ok"
        except Exception as exc:
            outcome = f"{type(exc).__name__}: {exc}"
        os.write(write, outcome.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        outcome = pipe.read().decode()
    os.waitpid(pid, 0)
    return outcome


def test_a_store_opened_before_fork_refuses_the_child(make_store: StoreFactory, store_kind: str) -> None:
    store = make_store()
    store.put_many("fp", [(1, 1)])
    outcome = _in_child(store)
    if store_kind == "redis":
        assert outcome == "ok"  # a shared server: the child opens its own connection
    else:
        assert outcome.startswith("StoreForkedError"), outcome
        assert "after forking" in outcome and "redis" in outcome
    # The parent is untouched and goes on.
    assert store.get_many("fp", [1]) == [1]
    assert not store.closed


def test_the_childs_exit_does_not_save_over_the_parents_file(tmp_path: Path) -> None:
    nsh = nshash.NSHash(tmp_path / "news")
    first = nsh.get_similar(article(random.Random(1)))
    pid = os.fork()
    if pid == 0:
        nshash.stores.memory._save_open_stores()  # what the child's interpreter exit runs
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    assert nsh.get_similar(article(random.Random(2))) == first + 1
    nsh.close()
    with nshash.NSHash(tmp_path / "news") as again:
        assert again.get_similar(article(random.Random(2))) == first + 1


_POOL_INDEX: nshash.NSHash | None = None


def _similar_in_worker(doc: str) -> int:
    assert _POOL_INDEX is not None
    return _POOL_INDEX.get_similar(doc)


@pytest.mark.parametrize("hashdb", ["memory", "leveldb"])
def test_a_fork_pool_over_an_open_index_is_refused(tmp_path: Path, hashdb: str) -> None:
    global _POOL_INDEX
    _POOL_INDEX = nshash.NSHash(tmp_path / "news", hashdb=hashdb)
    try:
        docs = [article(random.Random(seed)) for seed in range(8)]
        with multiprocessing.get_context("fork").Pool(2) as pool, pytest.raises(nshash.StoreForkedError):
            pool.map(_similar_in_worker, docs)
        # Done the supported way, in one process: every article its own id.
        assert [_POOL_INDEX.get_similar(doc) for doc in docs] == list(range(1, 9))
    finally:
        _POOL_INDEX.close()
        _POOL_INDEX = None


# -- 5. names ------------------------------------------------------------------------
@pytest.mark.parametrize("hashdb", ["memory", "leveldb"])
def test_empty_and_overlong_names_are_refused_before_any_file_exists(tmp_path: Path, hashdb: str) -> None:
    os.chdir(tmp_path)
    for name in ("", "   "):
        with pytest.raises(nshash.StoreNameError, match="name"):
            nshash.NSHash(name, hashdb=hashdb)
    with pytest.raises(nshash.StoreNameError, match="255 bytes"):
        nshash.NSHash(tmp_path / ("长" * 90), hashdb=hashdb)  # 270 bytes of UTF-8
    assert list(tmp_path.iterdir()) == []
    with nshash.NSHash(tmp_path / ("n" * 200), hashdb=hashdb) as nsh:  # long, but fits
        nsh.get_similar("A sentence that is long enough. Another one that is long too.")


# -- 10. file modes -----------------------------------------------------------------
@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_store_files_follow_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        with nshash.NSHash(tmp_path / "news") as nsh:
            nsh.get_similar(article(random.Random(3)))
    finally:
        os.umask(old)
    files = sorted(tmp_path.iterdir())
    assert {path.name for path in files} >= {"news.hashdb.pkl", "news.hashdb.pkl.ids", "news.hashdb.pkl.log"}
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path.name


# -- 9. custom hash functions ---------------------------------------------------------
def length_hash(text: str) -> int:
    return len(text) * 7919


def test_lambdas_and_local_functions_need_a_name() -> None:
    def local(text: str) -> int:
        return len(text)

    for func in (lambda text: len(text), local):
        with pytest.raises(nshash.HashFuncError, match="named_hashfunc"):
            nshash.NSHash(hashfunc=func)
    nsh = nshash.NSHash(hashfunc=named_hashfunc("length-v1", local))
    assert nsh.get_nshash("abcdefghij。") == [10, 11]


def test_another_function_under_the_same_name_is_refused(tmp_path: Path) -> None:
    name = tmp_path / "news"
    with nshash.NSHash(name, hashfunc=named_hashfunc("mine", length_hash)) as nsh:
        nsh.get_similar(article(random.Random(4)))
    with nshash.NSHash(name, hashfunc=named_hashfunc("mine", length_hash)) as nsh:  # the same one: fine
        nsh.get_similar(article(random.Random(4)))
    with pytest.raises(nshash.OptionsMismatchError, match="hashfunc"):
        nshash.NSHash(name, hashfunc=named_hashfunc("mine", lambda text: len(text) * 31))
    with pytest.raises(nshash.OptionsMismatchError, match="hashfunc"):
        nshash.NSHash(name, hashfunc=length_hash)  # another name


def test_a_module_function_is_recorded_by_name_and_behaviour() -> None:
    name, func = resolve_hashfunc(length_hash)
    assert name.startswith("tests.test_reliability.length_hash#")
    assert func("abc") == 3 * 7919
    assert resolve_hashfunc(length_hash)[0] == name  # stable
