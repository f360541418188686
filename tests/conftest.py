"""Fixtures shared by the suites: every store kind, opened fresh in a temp dir."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import nshash
from nshash.stores.redis import HashDBRedis
from tests.fleet import RedisServer

StoreFactory = Callable[[], nshash.HashDB]

#: Store kinds whose data outlives the object (reopening must see it).
PERSISTENT_KINDS = ("memory-file", "leveldb", "redis")
#: Store kinds one process has to itself (a second open is refused); Redis is shared by design.
LOCKING_KINDS = ("memory-file", "leveldb")
#: 'readme' is the "Your own store" example of the README, run as written.
STORE_KINDS = ("memory", "readme", *PERSISTENT_KINDS)

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_store_class() -> type[nshash.HashDB]:
    """The store class the README shows users, executed from the README itself."""
    text = README.read_text(encoding="utf-8")
    block = next(b for b in text.split("```python")[1:] if "class DictStore" in b)
    namespace: dict[str, object] = {}
    exec(block.split("```")[0], namespace)
    store_class = namespace["DictStore"]
    assert isinstance(store_class, type) and issubclass(store_class, nshash.HashDB)
    return store_class


def open_store_kind(kind: str, directory: Path, redis_url: str | None = None) -> nshash.HashDB:
    """Open the store of ``kind`` whose data lives in ``directory`` (Redis: under the prefix ``directory``)."""
    if kind == "memory":
        return nshash.HashDBMemory()
    if kind == "readme":
        return readme_store_class()()
    if kind == "memory-file":
        return nshash.HashDBMemory(directory / "t.hashdb.pkl")
    if kind == "leveldb":
        return nshash.HashDBLeveldb(directory / "t.hashdb")
    if kind == "redis":
        if redis_url is None:
            raise ValueError("kind 'redis' needs redis_url (the redis_server fixture's url)")
        return HashDBRedis(redis_url, prefix=str(directory))
    raise ValueError(kind)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One real redis-server for the session; each test uses its own key prefix."""
    with RedisServer(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture(params=STORE_KINDS)
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_store(store_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[StoreFactory]:
    """Opens (and reopens) the store of the current kind; closes them all at the end."""
    opened: list[nshash.HashDB] = []
    redis_url = request.getfixturevalue("redis_server").url if store_kind == "redis" else None

    def factory() -> nshash.HashDB:
        store = open_store_kind(store_kind, tmp_path, redis_url)
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()


@pytest.fixture
def store(make_store: StoreFactory) -> nshash.HashDB:
    return make_store()
