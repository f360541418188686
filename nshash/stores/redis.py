"""HashDBRedis: one index shared by many processes and machines through a Redis server.

The key layout (and why tables are split into buckets) is in
:mod:`.redis_layout`; what a transaction sees, in :mod:`.redis_view`.  Here:
the connection, the index's identity (so a server that lost data is refused),
and the retries of conflicting transactions.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar, cast
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
from nshash.stores.redis_layout import (
    BUCKETS,
    FORMAT,
    FORMATS,
    MEMORY_USAGE,
    Command,
    Keys,
    count_field,
    decode,
    hmgets,
    int_or_zero,
    pack,
    plan_reads,
    pow2,
    values_read,
)
from nshash.stores.redis_scripts import SCRIPTS, ScriptsGone
from nshash.stores.redis_view import RedisView, Seed, run_guessed
from nshash.stores.view import StoreView

T = TypeVar("T")

# Jitter for retries comes from its own generator so it never disturbs a user's seeded `random`.
_JITTER = random.Random()
#: Guesses a transaction makes: a second only when just the id counter moved (other clients took ids).
_GUESSES = 2
#: A client guesses while at least this share of its recent guesses were right,
#: and otherwise on every _PROBE-th transaction.
_GUESS_RATE = 0.25
_PROBE = 8


class HashDBRedis(HashDB):
    """A store in a Redis server, shared by every process that opens the same ``url`` and ``prefix``.

    Each ``get_similar`` runs as one optimistic transaction, so concurrent
    crawlers see the same clusters as one process would and never get the
    same new id.  Its first attempt runs on a guess (each key holds what this
    client last read or wrote there, up to :attr:`remember` values, else
    nothing) and commits in one round trip with a script that writes only if
    the guess still holds; when it does not, the reply holds the real values
    (read under WATCH), the decision runs again on them and commits with
    MULTI/EXEC, retried from scratch when another client changed a watched
    bucket (see :meth:`transaction`).

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
    #: Whether a transaction's first attempt guesses what the keys it reads
    #: hold (one round trip when right); ``False`` reads first, always.
    guess = True
    #: Values a client remembers (what it last read or wrote) to guess with;
    #: beyond, the oldest are forgotten (and guessed absent).  ~176 bytes each
    #: (measured on a dict of 200,000 (table, key) -> value): ~35 MB in all.
    remember = 200_000
    reads_through, chunk_transactions = True, False

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
            isinstance(buckets, bool) or not isinstance(buckets, int) or not 1 <= buckets <= 2**20 or not pow2(buckets)
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
        #: First attempts committed on their guess, and guesses found wrong (for monitoring).
        self.guessed_right = self.guessed_wrong = 0
        # Recent share of right guesses: guessing costs a run of the decision when wrong, so a client whose
        # guesses keep failing (other clients write what it reads) mostly reads first, trying a guess now and then.
        self._guess_rate = 1.0
        # Likewise for ids taken from the counter read (rather than reserved with HINCRBY).
        self._counter_rate = 1.0
        self._transactions = 0
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
        self._noscript_error: type[Exception] = redis.exceptions.NoScriptError
        self._connection: Any = None
        self._pid = os.getpid()
        # Set when the server may still hold WATCHes of a finished transaction; an UNWATCH rides with the next command.
        self._stale_watch = False
        self._scripts_loaded = False  # on this connection's server
        self._known: dict[tuple[str, int], int | str] = {}  # see `remember`
        self._keys = Keys(prefix, BUCKETS if buckets is None else buckets)
        #: The index's identity token and the highest id this client has seen.
        self._identity: bytes | None = None
        self._high_water = 0
        try:
            self._keys = Keys(prefix, *self._open_index(buckets, bool(create)))
        except BaseException:
            self._release()
            raise

    # -- protocol ------------------------------------------------------------
    def _get_many(self, table: str, keys: Sequence[int]) -> list[int | None]:
        if table == "sketch" and self._keys.blocks:  # blocks, read as a transaction's view reads them
            return self.transaction(lambda view: view.get_many(table, keys))
        plan = plan_reads(self._keys, table, dict.fromkeys(keys))
        with self._lock:
            replies = self._roundtrip(hmgets(plan))
        found = {key: decode(raw) for key, raw in values_read(plan, replies)}
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
            raw = self._roundtrip([("HGET", self._keys.store, count_field(table))])[0]
        return int(raw or 0)

    def transaction(self, func: Callable[[StoreView], T]) -> T:
        """Run ``func(view)`` atomically across all clients of the index.

        ``func`` may run more than once (on a guess first, then after another
        client changed what it read), so it must not have side effects beyond
        the view.  The first run guesses what the keys it reads hold (what
        this client last saw, else absent:
        :class:`~nshash.stores.redis_view.GuessView`) and commits in one round
        trip if the guess was right; when wrong, the same reply holds the
        real values and ``func`` runs again on them.
        """
        self._check_open()
        with self._lock:
            attempt = guesses = 0
            seed: Seed | None = None
            self._transactions += 1
            probe = self._transactions % _PROBE == 0
            guess = self.guess and (self._guess_rate >= _GUESS_RATE or probe)
            predict = self._counter_rate >= _GUESS_RATE or probe
            while True:
                if guess:
                    guesses += 1
                    try:
                        right, result, seed = run_guessed(self, func)
                    except ScriptsGone:
                        continue
                    if right:
                        return cast(T, result)
                    # Only the id counter moved (another client took ids): guess again, with the new counter.
                    guess = seed is not None and seed.as_guessed and guesses < _GUESSES
                    if guess:
                        self._stale_watch, seed = True, None
                        continue
                view = RedisView(self, seed, predict=predict)
                seed = None
                try:
                    result = func(view)
                    committed = view.commit()
                except ScriptsGone:
                    self._stale_watch = self._stale_watch or view.watching
                    continue
                except BaseException:
                    self._stale_watch = self._stale_watch or view.watching
                    raise
                if view.took_from_counter and (committed or view.id_conflict):
                    self._counter_rate += (committed - self._counter_rate) / 8
                if committed:
                    return result
                # Ids taken from the counter again collide again under contention: reserve them (HINCRBY).
                predict = predict and not view.id_conflict
                self.conflicts += 1
                attempt += 1
                if attempt > self.max_conflicts:
                    raise StoreError(
                        f"{self.describe()}: gave up after {attempt} conflicting transactions in a row; "
                        "other clients keep changing the same keys"
                    )
                # Random backoff so clients that collided do not collide again.
                time.sleep(_JITTER.uniform(0, min(0.05, 0.0001 * 2**attempt)))

    def _commit_extras(self) -> list[Command]:
        """Write commands (on one key each) that every commit also runs: none here; a subclass may log commits."""
        return []

    # -- connection ------------------------------------------------------------
    def _open_index(self, buckets: int | None, create: bool) -> tuple[int, bytes]:
        """Check (or create) the index's format marker and identity; return its bucket count and format."""
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
                        ("HSETNX", keys.store, "format", FORMAT),
                        ("HSETNX", keys.store, "buckets", keys.buckets),
                        ("HSETNX", keys.store, "identity", os.urandom(16).hex()),
                        ("HMGET", keys.store, *fields),
                    ]
                )[-1]
        if found[0] not in FORMATS:
            newer = found[0].startswith(b"nshash.redis/")  # a later release's: upgrade rather than misread it
            why = "a newer nshash made it; upgrade nshash" if newer else "not ours"
            raise StoreCorruptError(f"{self.describe()}: keys under this prefix have format {found[0]!r}, {why}")
        try:
            stored = int(found[1])
        except (TypeError, ValueError):
            stored = 0
        if stored < 1 or not pow2(stored):
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
        self._high_water = int_or_zero(found[3])
        return stored, found[0]

    def _check_identity(self, found: list[Any]) -> None:
        """Refuse an index that is gone, another one, or older than this client has seen."""
        format_, identity, next_id, lost = found
        if lost is not None:
            self._raise_lost(lost.decode(errors="replace"), mark=False)
        if format_ != self._keys.format:
            self._raise_lost(
                "the index is gone from the server (restarted without persistence, flushed or its keys deleted)"
            )
        if identity != self._identity:
            self._raise_lost("the index was replaced by another one (the server lost it and a client created it again)")
        counter = int_or_zero(next_id)
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
            self._scripts_loaded = False
        return self._connection

    def _roundtrip(self, commands: list[Command]) -> list[Any]:
        """Send ``commands`` in one pipeline; return their replies (errors raised after all are read)."""
        skip = 0
        try:
            conn = self._conn()  # a new connection has no stale WATCH to drop
            unwatch, self._stale_watch = self._stale_watch, False
            if unwatch:
                commands = [("UNWATCH",), *commands]
                skip = 1
            if not self._scripts_loaded and any(command[0] == "EVALSHA" for command in commands):
                # Loaded in the same round trip as their first use (SCRIPT LOAD is idempotent).
                commands = [*(("SCRIPT", "LOAD", script) for script in SCRIPTS), *commands]
                skip += len(SCRIPTS)
                self._scripts_loaded = True
            conn.send_packed_command([pack(commands)])
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
            # Interrupted between replies (KeyboardInterrupt): unread ones would answer the next commands.
            self._drop_connection()
            raise
        replies = replies[skip:]
        self._raise_first_error(replies)
        return replies

    def _raise_first_error(self, replies: list[Any]) -> None:
        for reply in replies:
            if isinstance(reply, Exception):
                if isinstance(reply, self._noscript_error):
                    self._scripts_loaded = False
                    raise ScriptsGone(f"the Redis server at {self._server} forgot nshash's scripts") from reply
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
                return int(self._roundtrip([("EVAL", MEMORY_USAGE, len(keys), *keys)])[0])
        except StoreConnectionError:
            raise
        except StoreError:
            return None  # managed servers may disable MEMORY or scripting


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


# BUCKETS is public here since the store was one module.
__all__ = ["BUCKETS", "HashDBRedis"]
