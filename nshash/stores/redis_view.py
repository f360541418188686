"""The view a :class:`~nshash.stores.redis.HashDBRedis` transaction runs on: WATCHed reads, one MULTI/EXEC of writes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from nshash.stores.redis_layout import IDENTITY_FIELDS, Command, count_field, decode, hmgets, plan_reads, values_read
from nshash.stores.view import ViewBase, check_items, check_keys, check_table

if TYPE_CHECKING:
    from nshash.stores.redis import HashDBRedis


class RedisView(ViewBase):
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
            commands = [("HMGET", self._keys.store, *IDENTITY_FIELDS), *commands]
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
        plan = plan_reads(self._keys, table, keys)
        watch = self._watch(plan)
        replies = self._call([*watch, *hmgets(plan)])[len(watch) :]
        for key, raw in values_read(plan, replies):
            self._existed[table, key] = raw is not None
            self._values.setdefault((table, key), decode(raw))

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
                commands.append(("HINCRBY", self._keys.store, count_field(table), change))
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
