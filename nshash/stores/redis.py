"""HashDBRedis: one index shared by many processes and machines through a Redis server.

Key layout, for an index with prefix ``P``::

    {P}:store          hash: format, buckets, next_id (the id counter), count:<table>
    {P}:meta           hash: get_meta/set_meta (the index options)
    {P}:<table>:<b>    hash: 8-byte big-endian key -> decimal value, for b in 0..buckets-1

Why buckets: ``WATCH`` works on whole Redis keys.  With one hash per table,
every document written by any client would abort every other client's
transaction (each reads ``fp``), so concurrent crawlers would mostly retry.
With one key per fingerprint, conflicts would be exact but Redis would spend
~89 bytes per entry.  Splitting each table over 4096 hashes makes a conflict
need two documents touching the same bucket at the same moment, and keeps
each bucket small enough (<= 512 entries, ~2M keys per table) for Redis's
compact listpack encoding: ~18 bytes per entry, against ~67 in one big hash
(measured with Redis 7.0, 200k random keys).  Keys are fixed-width binary
(8 bytes, not up to 20 digits); values are decimal so ``redis-cli`` shows ids.
Key counts are kept in ``{P}:store`` by the same MULTI/EXEC that adds keys, so
``count()`` is one command.  All keys share the hash tag ``{P}``, so the
layout stays valid on a Redis Cluster, where a transaction must stay in one
slot (this store itself talks to one server).
"""

from __future__ import annotations

import contextlib
import os
import random
import struct
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from nshash.errors import (
    ArgumentTypeError,
    OptionError,
    OptionsMismatchError,
    StoreConnectionError,
    StoreCorruptError,
    StoreDataLostError,
    StoreError,
    missing_dependency,
)
from nshash.stores.base import HashDB
from nshash.stores.view import TABLES, StoreView, ViewBase, check_items, check_keys, check_table

T = TypeVar("T")

_FORMAT = b"nshash.redis/1"
# Read at the start of every transaction: see HashDBRedis._check_identity.
_IDENTITY_FIELDS = ("format", "identity", "next_id", "lost")
#: Buckets per table for a new index; an existing index keeps the number it was created with.
BUCKETS = 4096
_KEY = struct.Struct(">Q")
# Fibonacci hashing: spreads both uniform fingerprints and consecutive cluster ids over the buckets.
_MIX = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1
# Jitter for retries comes from its own generator so it never disturbs a user's seeded `random`.
_JITTER = random.Random()

Command = tuple[Any, ...]

_MEMORY_USAGE = """
local total = 0
for _, key in ipairs(KEYS) do total = total + (redis.call('MEMORY', 'USAGE', key) or 0) end
return total
"""


class _Keys:
    """The Redis key names of one index."""

    def __init__(self, prefix: str, buckets: int) -> None:
        self.tag = "{" + prefix + "}"
        self.store = f"{self.tag}:store"
        self.meta = f"{self.tag}:meta"
        self.buckets = buckets
        self.shift = 64 - (buckets.bit_length() - 1)

    def locate(self, table: str, key: int) -> tuple[str, bytes]:
        """The Redis hash and field holding ``key`` of ``table`` (a key checked by :func:`check_keys`)."""
        field = _KEY.pack(key)
        return f"{self.tag}:{table}:{((key * _MIX) & _MASK64) >> self.shift}", field

    def every(self) -> list[str]:
        """Every key the index may use."""
        tables = [f"{self.tag}:{table}:{b}" for table in TABLES for b in range(self.buckets)]
        return [self.store, self.meta, *tables]


def _plan_reads(keys: _Keys, table: str, wanted: Iterable[int]) -> dict[str, list[tuple[int, bytes]]]:
    """Group ``wanted`` keys by the bucket hash that holds them (one HMGET per bucket)."""
    check_table(table)
    wanted = list(wanted)
    check_keys(wanted)
    plan: dict[str, list[tuple[int, bytes]]] = {}
    for key in wanted:
        bucket, field = keys.locate(table, key)
        plan.setdefault(bucket, []).append((key, field))
    return plan


def _hmgets(plan: dict[str, list[tuple[int, bytes]]]) -> list[Command]:
    return [("HMGET", bucket, *(field for _, field in fields)) for bucket, fields in plan.items()]


def _replies(plan: dict[str, list[tuple[int, bytes]]], replies: list[Any]) -> Iterator[tuple[int, Any]]:
    """``(key, raw value)`` for every key of ``plan``, from the HMGET replies."""
    for fields, values in zip(plan.values(), replies):
        for (key, _), raw in zip(fields, values):
            yield key, raw


def _decode(raw: Any) -> int | None:
    return None if raw is None else int(raw)


def _count_field(table: str) -> str:
    return f"count:{table}"


class _View(ViewBase):
    """What ``func`` sees inside :meth:`HashDBRedis.transaction`.

    Reads WATCH the buckets they read (a concurrent change then aborts the
    commit) and are cached; writes are buffered and sent in one MULTI/EXEC
    together with the tables' key counts.  Every transaction that read
    something ends with EXEC, so each one, read-only or not, is serializable.
    """

    def __init__(self, store: HashDBRedis) -> None:
        self._store = store
        self._keys = store._keys
        self._values: dict[tuple[str, int], int | None] = {}  # what func sees: read or written
        self._existed: dict[tuple[str, int], bool] = {}  # what the server had, for the counts
        self._writes: dict[str, dict[int, int | None]] = {}  # None: delete
        self._meta_values: dict[str, str | None] = {}
        self._meta_writes: dict[str, str] = {}
        self._watched: set[str] = set()
        self._checked = False

    @property
    def watching(self) -> bool:
        return bool(self._watched)

    def _call(self, commands: list[Command]) -> list[Any]:
        if not self._checked:
            # Every transaction checks that the index is still the one this
            # client opened, and no older: a server restarted without
            # persistence, flushed or restored from an older snapshot would
            # otherwise hand out ids again.
            commands = [("HMGET", self._keys.store, *_IDENTITY_FIELDS), *commands]
        replies = self._store._roundtrip(commands)
        if not self._checked:
            self._checked = True
            self._store._check_identity(replies[0])
            replies = replies[1:]
        return replies

    def _watch(self, buckets: Iterable[str]) -> list[Command]:
        new = [bucket for bucket in buckets if bucket not in self._watched]
        self._watched.update(new)
        return [("WATCH", *new)] if new else []

    def _fetch(self, table: str, keys: Iterable[int]) -> None:
        plan = _plan_reads(self._keys, table, keys)
        watch = self._watch(plan)
        replies = self._call([*watch, *_hmgets(plan)])[len(watch) :]
        for key, raw in _replies(plan, replies):
            self._existed[table, key] = raw is not None
            self._values.setdefault((table, key), _decode(raw))

    def get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        missing = [key for key in dict.fromkeys(keys) if (table, key) not in self._values]
        if missing:
            self._fetch(table, missing)
        return [self._values[table, key] for key in keys]

    def put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        check_table(table)
        writes = self._writes.setdefault(table, {})
        for key, value in check_items(items):  # a bad key is rejected now, not at commit
            writes[key] = self._values[table, key] = int(value)

    def delete_many(self, table: str, keys: Sequence[int]) -> None:
        check_table(table)
        check_keys(keys)
        writes = self._writes.setdefault(table, {})
        for key in keys:
            writes[key] = self._values[table, key] = None

    def get_meta(self, key: str) -> str | None:
        if key not in self._meta_values:
            watch = self._watch([self._keys.meta])
            raw = self._call([*watch, ("HGET", self._keys.meta, key)])[-1]
            self._meta_values[key] = None if raw is None else raw.decode()
        return self._meta_values[key]

    def set_meta(self, key: str, value: str) -> None:
        self._meta_writes[key] = self._meta_values[key] = value

    def allocate_id(self) -> int:
        # Not watched and not part of the MULTI: HINCRBY is atomic by itself,
        # and an id taken by an attempt that is retried is simply never used.
        new_id = int(self._call([("HINCRBY", self._keys.store, "next_id", 1)])[0])
        self._store._check_new_id(new_id)
        return new_id

    def count(self, table: str) -> int:
        """Keys in ``table`` as committed (like LevelDB's view, pending writes are not counted)."""
        return self._store.count(table)

    def commit(self) -> bool:
        """Send the buffered writes in one MULTI/EXEC; ``False`` if a watched key changed."""
        for table, writes in self._writes.items():
            # Blind writes (keys func never read): learn whether they are new, under WATCH.
            unknown = [key for key in writes if (table, key) not in self._existed]
            if unknown:
                self._fetch(table, unknown)
        commands: list[Command] = []
        for table, writes in self._writes.items():
            buckets: dict[str, list[Any]] = {}
            gone: dict[str, list[bytes]] = {}
            for key, value in writes.items():
                bucket, field = self._keys.locate(table, key)
                if value is None:
                    gone.setdefault(bucket, []).append(field)
                else:
                    buckets.setdefault(bucket, []).extend((field, value))
            commands.extend(("HSET", bucket, *pairs) for bucket, pairs in buckets.items())
            commands.extend(("HDEL", bucket, *fields) for bucket, fields in gone.items())
            existed = self._existed
            added = sum(value is not None and not existed[table, key] for key, value in writes.items())
            removed = sum(value is None and existed[table, key] for key, value in writes.items())
            change = added - removed
            if change:
                commands.append(("HINCRBY", self._keys.store, _count_field(table), change))
        if self._meta_writes:
            meta_pairs = [part for item in self._meta_writes.items() for part in item]
            commands.append(("HSET", self._keys.meta, *meta_pairs))
        if not commands and not self.watching:
            return True
        # Also when there is nothing to write: an empty MULTI/EXEC checks that
        # no watched key changed between the reads, so what func saw (and
        # returns) was one consistent state, not a mix of before and after
        # another client's commit.
        result = self._call([("MULTI",), *commands, ("EXEC",)])[-1]
        if result is None:
            return False
        self._store._raise_first_error(result)
        return True


class HashDBRedis(HashDB):
    """A store in a Redis server, shared by every process that opens the same ``url`` and ``prefix``.

    Each ``get_similar`` runs as one optimistic transaction (WATCH the buckets
    it reads, MULTI/EXEC its writes, retried from scratch when another client
    changed a watched bucket), so concurrent crawlers see the same clusters as
    one process would and never get the same new id.

    Args:
        url: ``redis://[:password@]host:port/db``, ``rediss://...`` (TLS) or
            ``unix:///path/to/socket?db=0``.
        prefix: names this index's keys (``{prefix}:...``), so many indexes
            share one server.
        timeout: seconds to wait for the server before raising
            :class:`~nshash.StoreConnectionError`.
        create: create the index when the prefix holds none; ``False`` raises
            :class:`~nshash.StoreDataLostError` instead (for workers of a fleet,
            so a server that lost its data is refused, not started over).
        max_conflicts: retries of one transaction before giving up with a
            :class:`~nshash.StoreError` (never reached unless clients fight over a
            handful of keys).
        buckets: Redis hashes per table, a power of two fixed when the index is
            created (default 4096: compact up to ~2M keys per table; beyond,
            Redis spends ~67 instead of ~18 bytes per key, so take 65536 for
            an index of ~30M fingerprints).  ``None`` takes the index's own.

    Durability is the server's.  Run Redis with ``appendonly yes`` and
    ``appendfsync always`` (every acknowledged write on disk before the reply)
    or ``everysec`` (a crash of the server may lose its last second); RDB
    snapshots alone (``save ...``) lose everything since the last snapshot.
    Never ``FLUSHALL``/``FLUSHDB`` a server that holds an index.

    An id is never handed out twice, even by a server that lost data: the
    index has an identity (a random token made when it is created) and every
    client keeps the highest id it has seen.  A client that finds the identity
    gone or changed (restart without persistence, a flush) or the id counter
    below its mark (an older snapshot restored, an ``everysec`` crash) raises
    :class:`~nshash.StoreDataLostError` and leaves a ``lost`` mark in
    ``{prefix}:store``, so every other client, new ones too, refuses the index
    until an operator deletes that key (``DEL {prefix}:store``, which starts the
    index over).  A client started *after* a flush, before any old client has
    run, cannot know the index existed: start the workers of a fleet with
    ``create=False`` once the index is created, and they refuse a missing
    index instead of starting it over at id 1.  A store object holds one
    connection; threads sharing it take turns.

    Raises:
        StoreConnectionError: the server cannot be reached (the message names it).
        StoreCorruptError: keys under ``prefix`` were not written by nshash.
        StoreDataLostError: the index disappeared, changed or went back in time
            on the server (a :class:`~nshash.StoreCorruptError`).
        OptionsMismatchError: ``buckets`` differs from the existing index's.
        MissingDependencyError: ``redis`` is not installed (``pip install 'nshash[redis]'``).

    Example:
        >>> import nshash
        >>> nsh = nshash.NSHash("news", hashdb="redis",
        ...                     store_options={"url": "redis://localhost:6379/0"})  # doctest: +SKIP
        >>> db = HashDBRedis("redis://localhost:6379/0", prefix="news")  # doctest: +SKIP
        >>> nsh = nshash.NSHash(hashdb=db)  # the same index  # doctest: +SKIP
    """

    #: A forked child opens its own connection; the index lives in the server.
    fork_safe = True

    def __init__(
        self,
        url: str = "redis://localhost:6379/0",
        prefix: str = "nshash",
        *,
        timeout: float = 10.0,
        max_conflicts: int = 1000,
        buckets: int | None = None,
        create: bool = True,
    ) -> None:
        super().__init__()
        if not isinstance(url, str):
            raise ArgumentTypeError(f"url must be a str such as 'redis://localhost:6379/0', not {type(url).__name__}")
        if not isinstance(prefix, str) or not prefix:
            raise OptionError(f"prefix must be a non-empty str, not {prefix!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise OptionError(f"timeout must be a number of seconds > 0, not {timeout!r}")
        if isinstance(max_conflicts, bool) or not isinstance(max_conflicts, int) or max_conflicts < 0:
            raise OptionError(f"max_conflicts must be an int >= 0, not {max_conflicts!r}")
        if buckets is not None and (
            isinstance(buckets, bool) or not isinstance(buckets, int) or not 1 <= buckets <= 2**20 or not _pow2(buckets)
        ):
            raise OptionError(f"buckets must be a power of two between 1 and 2**20, not {buckets!r}")
        try:
            import redis
        except ImportError as exc:
            raise missing_dependency("redis", "redis") from exc
        self.prefix = prefix
        self.max_conflicts = max_conflicts
        #: Transactions retried because another client changed what they read (for monitoring).
        self.conflicts = 0
        try:
            self._url = _without_password(url)
            self._pool: Any = redis.ConnectionPool.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        except ValueError as exc:  # a bad port, or redis-py's own check of the URL's scheme and parts
            # Not the URL itself in the message: it may hold a password.
            raise OptionError(
                f"url is not a Redis URL ({exc}); use redis://[:password@]host:port/db, rediss://... "
                "or unix:///path/to/socket?db=0"
            ) from exc
        self._server = _server_name(self._pool.connection_kwargs)
        # Everything but an error reply means the connection can no longer be trusted.
        self._connection_errors = (redis.RedisError, OSError)
        self._response_error: type[Exception] = redis.ResponseError
        self._connection: Any = None
        self._pid = os.getpid()
        # Set when the server may still hold WATCHes of a finished transaction;
        # an UNWATCH then rides along with the next command sent.
        self._stale_watch = False
        self._keys = _Keys(prefix, BUCKETS if buckets is None else buckets)
        #: The index's identity token and the highest id this client has seen.
        self._identity: bytes | None = None
        self._high_water = 0
        try:
            self._keys = _Keys(prefix, self._open_index(buckets, bool(create)))
        except BaseException:
            self._release()
            raise

    # -- protocol ------------------------------------------------------------
    def _get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        plan = _plan_reads(self._keys, table, dict.fromkeys(keys))
        with self._lock:
            replies = self._roundtrip(_hmgets(plan))
        found = {key: _decode(raw) for key, raw in _replies(plan, replies)}
        return [found[key] for key in keys]

    def _put_many(self, table: str, items: Iterable[tuple[int, int]]) -> None:
        pairs = list(items)  # a retried transaction must see the same items again
        self.transaction(lambda view: view.put_many(table, pairs))

    def _delete_many(self, table: str, keys: Sequence[int]) -> None:
        self.transaction(lambda view: view.delete_many(table, keys))

    def _get_meta(self, key: str) -> str | None:
        with self._lock:
            raw = self._roundtrip([("HGET", self._keys.meta, key)])[0]
        return None if raw is None else str(raw.decode())

    def _set_meta(self, key: str, value: str) -> None:
        self.transaction(lambda view: view.set_meta(key, value))

    def _allocate_id(self) -> int:
        return int(self.transaction(lambda view: view.allocate_id()))

    def highest_id(self) -> int:
        self._check_open()
        with self._lock:
            raw = self._roundtrip([("HGET", self._keys.store, "next_id")])[0]
        return int(raw or 0)

    def _count(self, table: str) -> int:
        with self._lock:
            raw = self._roundtrip([("HGET", self._keys.store, _count_field(table))])[0]
        return int(raw or 0)

    def transaction(self, func: Callable[[StoreView], T]) -> T:
        """Run ``func(view)`` atomically across all clients of the index.

        ``func`` may run more than once (after another client changed what it
        read), so it must not have side effects beyond the view.
        """
        self._check_open()
        with self._lock:
            attempt = 0
            while True:
                view = _View(self)
                try:
                    result = func(view)
                    committed = view.commit()
                except BaseException:
                    self._stale_watch = self._stale_watch or view.watching
                    raise
                if committed:
                    return result
                self.conflicts += 1
                attempt += 1
                if attempt > self.max_conflicts:
                    raise StoreError(
                        f"{self.describe()}: gave up after {attempt} conflicting transactions in a row; "
                        "other clients keep changing the same keys"
                    )
                # Random backoff so clients that collided do not collide again.
                time.sleep(_JITTER.uniform(0, min(0.05, 0.0001 * 2**attempt)))

    # -- connection ------------------------------------------------------------
    def _open_index(self, buckets: int | None, create: bool) -> int:
        """Check (or create) the index's format marker and identity; return its bucket count."""
        keys = self._keys
        fields = ("format", "buckets", "identity", "next_id", "lost")
        with self._lock:
            found, meta_exists = self._roundtrip([("HMGET", keys.store, *fields), ("EXISTS", keys.meta)])
            if found[4] is not None:
                self._raise_lost(found[4].decode(errors="replace"), mark=False)
            if found[0] is None:
                if meta_exists:
                    raise StoreCorruptError(
                        f"{self.describe()}: keys under this prefix were not written by nshash "
                        "(or the index lost its format marker); use another prefix"
                    )
                if not create:
                    raise StoreDataLostError(
                        f"{self.describe()}: there is no index under this prefix (never created, or the server "
                        "lost it); create it with create=True"
                    )
                # HSETNX: clients creating the index at the same moment agree on one marker.
                found = self._roundtrip(
                    [
                        ("HSETNX", keys.store, "format", _FORMAT),
                        ("HSETNX", keys.store, "buckets", keys.buckets),
                        ("HSETNX", keys.store, "identity", os.urandom(16).hex()),
                        ("HMGET", keys.store, *fields),
                    ]
                )[-1]
        if found[0] != _FORMAT:
            raise StoreCorruptError(f"{self.describe()}: keys under this prefix have format {found[0]!r}, not ours")
        try:
            stored = int(found[1])
        except (TypeError, ValueError):
            stored = 0
        if stored < 1 or not _pow2(stored):
            raise StoreCorruptError(f"{self.describe()}: damaged bucket count {found[1]!r}")
        if buckets is not None and buckets != stored:
            raise OptionsMismatchError(
                f"{self.describe()} was created with buckets={stored}, not {buckets}; pass buckets=None"
            )
        if found[2] is None:  # an index made before identities: give it one
            with self._lock:
                found = self._roundtrip(
                    [("HSETNX", keys.store, "identity", os.urandom(16).hex()), ("HMGET", keys.store, *fields)]
                )[-1]
        self._identity = found[2]
        self._high_water = _int_or_zero(found[3])
        return stored

    def _check_identity(self, found: list[Any]) -> None:
        """Refuse an index that is gone, another one, or older than this client has seen."""
        format_, identity, next_id, lost = found
        if lost is not None:
            self._raise_lost(lost.decode(errors="replace"), mark=False)
        if format_ != _FORMAT:
            self._raise_lost(
                "the index is gone from the server (restarted without persistence, flushed or its keys deleted)"
            )
        if identity != self._identity:
            self._raise_lost("the index was replaced by another one (the server lost it and a client created it again)")
        counter = _int_or_zero(next_id)
        if counter < self._high_water:
            self._raise_lost(
                f"the id counter went back from {self._high_water} to {counter} (an older snapshot restored)"
            )
        self._high_water = counter

    def _check_new_id(self, new_id: int) -> None:
        if new_id <= self._high_water:
            self._raise_lost(f"the id counter handed out {new_id}, not above {self._high_water} seen before")
        self._high_water = new_id

    def _raise_lost(self, reason: str, *, mark: bool = True) -> None:
        if mark:
            # Every client, and every one started later, refuses until an operator decides.
            note = f"{reason}; seen by a client at id {self._high_water}"
            with contextlib.suppress(StoreError):
                self._roundtrip([("HSET", self._keys.store, "lost", note)])
        raise StoreDataLostError(
            f"{self.describe()}: {reason}; nshash stops rather than hand out ids again.  Configure Redis "
            "with appendonly yes (see the HashDBRedis docstring); to start the index over, delete "
            f"{self._keys.store!r} and every key of the prefix"
        )

    def _conn(self) -> Any:
        if self._connection is None or self._pid != os.getpid():
            # After a fork the parent's socket is not ours: open a new one.
            self._connection = self._pool.make_connection()
            self._pid = os.getpid()
            self._stale_watch = False
        return self._connection

    def _roundtrip(self, commands: list[Command]) -> list[Any]:
        """Send ``commands`` in one pipeline; return their replies (errors raised after all are read)."""
        unwatch = False
        try:
            conn = self._conn()  # a new connection has no stale WATCH to drop
            unwatch, self._stale_watch = self._stale_watch, False
            if unwatch:
                commands = [("UNWATCH",), *commands]
            conn.send_packed_command(conn.pack_commands(commands))
            replies = []
            for _ in commands:
                try:
                    replies.append(conn.read_response())
                except self._response_error as exc:
                    replies.append(exc)  # read the rest so the connection stays in step
        except self._connection_errors as exc:
            self._drop_connection()
            raise StoreConnectionError(
                f"cannot reach the Redis server at {self._server} ({self._url}): {exc}; "
                "a document whose get_similar failed here may be retried safely"
            ) from exc
        except BaseException:
            # Interrupted between replies (KeyboardInterrupt): unread replies would
            # be taken for the answers to the next commands, so drop the connection.
            self._drop_connection()
            raise
        if unwatch:
            replies = replies[1:]
        self._raise_first_error(replies)
        return replies

    def _raise_first_error(self, replies: list[Any]) -> None:
        for reply in replies:
            if isinstance(reply, Exception):
                if "WRONGTYPE" in str(reply):
                    raise StoreCorruptError(
                        f"{self.describe()}: a key under this prefix holds data not written by nshash ({reply})"
                    ) from reply
                raise StoreError(f"the Redis server at {self._server} refused a command: {reply}") from reply

    def _drop_connection(self) -> None:
        connection, self._connection = self._connection, None
        self._stale_watch = False  # the server forgets a closed connection's WATCHes
        if connection is not None and self._pid == os.getpid():
            connection.disconnect()

    def _release(self) -> None:
        self._drop_connection()

    # -- description ------------------------------------------------------------
    def describe(self) -> str:
        return f"HashDBRedis({self._url}, prefix={self.prefix!r})"

    def size_bytes(self) -> int | None:
        """Memory the index's keys take in Redis (``MEMORY USAGE``, sampled), or ``None`` if refused."""
        self._check_open()
        keys = self._keys.every()
        try:
            with self._lock:  # summed server-side: one reply instead of one per bucket
                return int(self._roundtrip([("EVAL", _MEMORY_USAGE, len(keys), *keys)])[0])
        except StoreConnectionError:
            raise
        except StoreError:
            return None  # managed servers may disable MEMORY or scripting


def _int_or_zero(raw: Any) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return 0


def _pow2(value: int) -> bool:
    return value > 0 and not value & (value - 1)


def _without_password(url: str) -> str:
    """``url`` fit for messages: the password is replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    netloc = f"{user}:***@{host}" + (f":{parts.port}" if parts.port is not None else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _server_name(options: dict[str, Any]) -> str:
    """``host:port`` (or the socket path) the connections go to."""
    if "path" in options:
        return str(options["path"])
    return f"{options.get('host', 'localhost')}:{options.get('port', 6379)}"
