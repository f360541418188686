"""A Scrapy item pipeline that drops or tags near-duplicate pages as they are crawled.

Install with ``pip install 'nshash[scrapy]'`` and enable it in ``settings.py``::

    ITEM_PIPELINES = {"nshash.scrapy.DedupPipeline": 300}
    NSHASH_NAME = "news"            # the index: news.hashdb.pkl, news.hashdb or the Redis prefix
    NSHASH_STORE = "leveldb"        # memory (default), leveldb or redis
    NSHASH_FIELD = "content"        # the item field holding the text (str, bytes or raw HTML)
    NSHASH_ACTION = "drop"          # drop near-duplicates, or "tag" them

Settings (all optional):

``NSHASH_NAME``
    The index.  Without it the memory store keeps the index for one crawl
    only; ``leveldb`` and ``redis`` need it.
``NSHASH_STORE``
    ``memory`` (``<name>.hashdb.pkl``, saved when the spider closes),
    ``leveldb`` (``<name>.hashdb``) or ``redis`` (shared by any number of
    spiders and processes), or any store registered with
    :func:`nshash.register_store`.
``NSHASH_REDIS_URL``
    The Redis server, e.g. ``redis://localhost:6379/0``.
``NSHASH_STORE_OPTIONS``
    Other keyword arguments of the store, e.g. ``{"save_every": 1000}``.
``NSHASH_FIELD``
    The field with the text (default ``content``), or a list of fields whose
    texts are joined by newlines (``["title", "content"]``).  A list of
    strings in a field (``.getall()``) is joined too.
``NSHASH_ACTION``
    ``drop`` (default): a near-duplicate raises
    :class:`~scrapy.exceptions.DropItem` naming the id it matched; ``tag``:
    every item gets ``similar_id`` and ``is_new`` and is kept.
``NSHASH_ID_FIELD``, ``NSHASH_NEW_FIELD``
    The fields ``tag`` sets (default ``similar_id`` and ``is_new``; an empty
    ``NSHASH_NEW_FIELD`` sets no ``is_new``).  Items that are not dicts must
    declare them.
``NSHASH_OPTIONS``
    :class:`~nshash.NSHash` options, e.g. ``{"n": 5, "hashfunc": "farmhash"}``;
    ``errors`` defaults to ``"replace"`` here, so a page with a bad byte is
    still deduplicated.

A page is *new* when the id it gets was never handed out before by the
index (in this crawl, an earlier one, or another spider sharing the Redis
index), and a *duplicate* otherwise.  The crawl stats count
``nshash/new``, ``nshash/duplicates``, ``nshash/no_text`` (items whose field
is empty or ``None``: passed on unchanged) and ``nshash/merged`` (clusters
merged in the index during the crawl).

A bad setting, a store that cannot be opened, an item without the field or a
value that is not text stops the crawl with one error message saying what to
change, instead of one error per item.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from nshash.core import NSHash
from nshash.errors import NSHashError, missing_dependency
from nshash.log import get_logger

try:
    from itemadapter import ItemAdapter
    from scrapy.exceptions import DropItem
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise missing_dependency(exc.name or "scrapy", "scrapy") from exc

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

__all__ = ["DedupConfig", "DedupPipeline", "PipelineConfigError"]

log = get_logger(__name__)

ACTIONS: Final = ("drop", "tag")
#: Crawl stats keys.
STAT_NEW: Final = "nshash/new"
STAT_DUPLICATES: Final = "nshash/duplicates"
STAT_MERGED: Final = "nshash/merged"
STAT_NO_TEXT: Final = "nshash/no_text"
#: The reason the spider is closed with when an item shows the configuration is wrong.
CLOSE_REASON: Final = "nshash_config_error"
# Stores that keep nothing between crawls without a name are refused without one.
_NEEDS_NAME: Final = ("leveldb", "redis")


class PipelineConfigError(NSHashError, ValueError):
    """A ``NSHASH_*`` setting, or an item, that the pipeline cannot work with; the message says what to change."""


@dataclasses.dataclass(frozen=True)
class DedupConfig:
    """The pipeline's settings, checked.

    >>> DedupConfig.from_settings({"NSHASH_STORE": "redis", "NSHASH_NAME": "news"}).store_options
    {}
    >>> DedupConfig.from_settings({"NSHASH_ACTION": "keep"})
    Traceback (most recent call last):
    ...
    nshash.scrapy.PipelineConfigError: NSHASH_ACTION must be one of drop, tag, not 'keep'
    """

    name: str | None = None
    store: str = "memory"
    store_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    fields: tuple[str, ...] = ("content",)
    action: str = "drop"
    id_field: str = "similar_id"
    new_field: str | None = "is_new"
    options: dict[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> DedupConfig:
        """Read and check the ``NSHASH_*`` settings (a Scrapy ``Settings`` or a plain dict).

        Raises:
            PipelineConfigError: a setting of the wrong type or value, or
                algorithm options :class:`~nshash.NSHash` refuses.
        """
        name = _optional_str(settings, "NSHASH_NAME")
        store = _optional_str(settings, "NSHASH_STORE") or "memory"
        if store in _NEEDS_NAME and name is None:
            raise PipelineConfigError(f"NSHASH_STORE = {store!r} needs NSHASH_NAME (the index to create or continue)")
        store_options = _dict_setting(settings, "NSHASH_STORE_OPTIONS")
        url = _optional_str(settings, "NSHASH_REDIS_URL")
        if url is not None:
            if store != "redis":
                raise PipelineConfigError(f"NSHASH_REDIS_URL is set but NSHASH_STORE is {store!r}, not 'redis'")
            store_options["url"] = url
        action = (_optional_str(settings, "NSHASH_ACTION") or "drop").lower()
        if action not in ACTIONS:
            raise PipelineConfigError(f"NSHASH_ACTION must be one of {', '.join(ACTIONS)}, not {action!r}")
        raw_new = settings.get("NSHASH_NEW_FIELD", "is_new")
        new_field = _optional_str({"NSHASH_NEW_FIELD": raw_new}, "NSHASH_NEW_FIELD") if raw_new else None
        options = {"errors": "replace", **_dict_setting(settings, "NSHASH_OPTIONS")}
        for reserved in ("name", "hashdb", "store_options"):
            if reserved in options:
                raise PipelineConfigError(f"NSHASH_OPTIONS cannot set {reserved!r}; use the NSHASH_* setting for it")
        try:  # NSHash's own checks, on a throwaway in-memory index, before the crawl starts
            NSHash(None, **options).close()
        except (TypeError, ValueError) as exc:
            raise PipelineConfigError(f"NSHASH_OPTIONS {options!r}: {exc}") from exc
        return cls(
            name=name,
            store=store,
            store_options=store_options,
            fields=_fields(settings.get("NSHASH_FIELD", "content")),
            action=action,
            id_field=_optional_str(settings, "NSHASH_ID_FIELD") or "similar_id",
            new_field=new_field,
            options=options,
        )


class DedupPipeline:
    """Scrapy item pipeline: drop (or tag) pages whose text nshash finds to be near-duplicates.

    Configured by the ``NSHASH_*`` settings (see :mod:`nshash.scrapy`).  Opens
    the index when the spider opens, saves and closes it when the spider
    closes (also after Ctrl-C or SIGTERM, which Scrapy turns into a graceful
    close).

    Example:
        >>> pipeline = DedupPipeline(DedupConfig(action="tag"))
        >>> pipeline.open_spider()
        >>> text = "A long first sentence of the article. And a long second one."
        >>> item = pipeline.process_item({"content": text})
        >>> item["similar_id"], item["is_new"]
        (1, True)
        >>> item = pipeline.process_item({"content": "<p>Reprint!</p>" + text})
        >>> item["similar_id"], item["is_new"]
        (1, False)
        >>> pipeline.close_spider()
    """

    def __init__(self, config: DedupConfig, crawler: Crawler | None = None) -> None:
        self.config = config
        self.crawler = crawler
        self.index: NSHash | None = None
        self._merged_at_open = 0
        self._stopping = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DedupPipeline:
        """Build the pipeline from the crawler's settings (Scrapy calls this).

        Raises:
            PipelineConfigError: a bad ``NSHASH_*`` setting; Scrapy then does not start the crawl.
        """
        try:
            config = DedupConfig.from_settings(crawler.settings)
        except PipelineConfigError as exc:
            log.error("nshash: %s", exc)
            raise
        return cls(config, crawler)

    # -- the spider's life ----------------------------------------------------------------
    def open_spider(self, spider: Spider | None = None) -> None:
        """Open (or create) the index.

        Raises:
            PipelineConfigError: the store cannot be opened (unknown kind, locked
                by another process, built with other options, server unreachable).
        """
        config = self.config
        try:
            self.index = NSHash(
                config.name, hashdb=config.store, store_options=config.store_options or None, **config.options
            )
        except (NSHashError, ValueError, TypeError) as exc:
            message = f"cannot open the nshash index {config.name!r} in store {config.store!r}: {exc}"
            log.error("nshash: %s", message)
            raise PipelineConfigError(message) from exc
        store = self.index.store
        self._merged_at_open = store.count("parent")
        log.info("nshash: opened %s (action %s, field %s)", store.describe(), config.action, "+".join(config.fields))

    def close_spider(self, spider: Spider | None = None) -> None:
        """Save and close the index; record the merges of this crawl in the stats."""
        index, self.index = self.index, None
        if index is None:
            return
        try:
            merged = index.store.count("parent") - self._merged_at_open
            self._inc(STAT_MERGED, merged)
        finally:
            index.close()
        log.info("nshash: saved and closed %s (%d merges during the crawl)", index.store.describe(), merged)

    # -- one item -------------------------------------------------------------------------
    def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        """Drop ``item`` if it is a near-duplicate (``drop``), or set its id fields (``tag``).

        Raises:
            DropItem: a near-duplicate in ``drop`` mode, or any item once the
                configuration was found wrong (the spider is then closing).
        """
        if self._stopping:
            raise DropItem("nshash: the spider is closing because of a configuration error", log_level="DEBUG")
        if self.index is None:
            raise PipelineConfigError("DedupPipeline.process_item called before open_spider")
        adapter = ItemAdapter(item)
        try:
            text = self._text(adapter)
        except PipelineConfigError as exc:
            self._stop(str(exc))
            raise DropItem(f"nshash: {exc}") from exc
        if text is None:
            self._inc(STAT_NO_TEXT)
            return item
        similar_id, is_new = self._match(self.index, text)
        self._inc(STAT_NEW if is_new else STAT_DUPLICATES)
        if self.config.action == "drop":
            if not is_new:
                log.debug("nshash: dropped a near-duplicate of cluster %d", similar_id)
                raise DropItem(f"near-duplicate of nshash cluster {similar_id}", log_level="INFO")
            return item
        try:
            adapter[self.config.id_field] = similar_id
            if self.config.new_field:
                adapter[self.config.new_field] = is_new
        except KeyError as exc:
            fields = [self.config.id_field, *([self.config.new_field] if self.config.new_field else [])]
            message = (
                f"NSHASH_ACTION = 'tag' sets {', '.join(map(repr, fields))} but {type(item).__name__} does not "
                "declare them: add the fields to the item class, or set NSHASH_ID_FIELD / NSHASH_NEW_FIELD"
            )
            self._stop(message)
            raise DropItem(f"nshash: {message}") from exc
        return item

    def _match(self, index: NSHash, text: str | bytes) -> tuple[int, bool]:
        """The page's cluster id, and whether no earlier page had it (the decision's ``is_new``)."""
        decision = index.add(text)
        return decision.similar_id, decision.is_new

    def _text(self, adapter: ItemAdapter) -> str | bytes | None:
        """The text of the configured field(s); ``None`` when every one is empty."""
        parts: list[str | bytes] = []
        for field in self.config.fields:
            if field not in adapter.field_names():
                present = ", ".join(repr(name) for name in adapter.field_names()) or "none"
                raise PipelineConfigError(
                    f"NSHASH_FIELD {field!r} is not a field of {type(adapter.item).__name__} items "
                    f"(fields: {present}); set NSHASH_FIELD to the field that holds the page text"
                )
            value = adapter.get(field)  # a declared field left unset is an empty page
            if isinstance(value, (list, tuple)) and all(isinstance(part, (str, bytes)) for part in value):
                value = _join(value)
            if value is None or isinstance(value, (str, bytes)):
                if value:
                    parts.append(value)
                continue
            raise PipelineConfigError(
                f"NSHASH_FIELD {field!r} holds {type(value).__name__}, not text (str, bytes or a list of them)"
            )
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else _join(parts)

    def _stop(self, message: str) -> None:
        """Log ``message`` once and close the spider: every later item would fail the same way."""
        if self._stopping:
            return
        self._stopping = True
        log.error("nshash: %s; closing the spider", message)
        try:
            engine = None if self.crawler is None else self.crawler.engine
        except (AttributeError, RuntimeError):  # Scrapy raises RuntimeError before the crawl starts
            engine = None
        if engine is None:  # not crawling (used directly): the caller sees the DropItem
            return
        from scrapy.utils.defer import deferred_from_coro

        deferred_from_coro(engine.close_spider_async(reason=CLOSE_REASON))

    def _inc(self, key: str, count: int = 1) -> None:
        stats = getattr(self.crawler, "stats", None)
        if stats is not None:
            stats.inc_value(key, count)


# -- setting helpers ------------------------------------------------------------------------
def _optional_str(settings: Mapping[str, Any], key: str) -> str | None:
    value = settings.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise PipelineConfigError(f"{key} must be a string, not {type(value).__name__} {value!r}")
    return value


def _dict_setting(settings: Mapping[str, Any], key: str) -> dict[str, Any]:
    getdict = getattr(settings, "getdict", None)
    try:  # Scrapy's Settings also reads JSON from the command line (-s NSHASH_OPTIONS='{"n": 5}')
        value = getdict(key) if getdict is not None else settings.get(key) or {}
    except ValueError as exc:
        raise PipelineConfigError(f"{key} must be a dict or a JSON object: {exc}") from exc
    if not isinstance(value, Mapping) or not all(isinstance(name, str) for name in value):
        raise PipelineConfigError(f"{key} must be a dict of option names to values, not {value!r}")
    return dict(value)


def _fields(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        # Scrapy's -s gives strings: "title,content" names two fields.
        fields = tuple(part.strip() for part in value.split(",")) if "," in value else (value,)
    elif isinstance(value, Sequence) and all(isinstance(field, str) for field in value):
        fields = tuple(value)
    else:
        raise PipelineConfigError(f"NSHASH_FIELD must be a field name or a list of them, not {value!r}")
    if not fields or not all(fields):
        raise PipelineConfigError(f"NSHASH_FIELD must name at least one field, not {value!r}")
    return fields


def _join(parts: Sequence[str | bytes]) -> str:
    """Texts joined by newlines (each one's sentences stay whole); bytes are decoded leniently."""
    return "\n".join(part.decode("utf-8", "replace") if isinstance(part, bytes) else part for part in parts)
