"""The Scrapy pipeline, on Scrapy's own objects and in real crawls of a local copy of the bundled sample.

The crawls run the example project (``examples/scrapy_project``) with
``scrapy crawl`` in a subprocess, against ``sample_site.py`` serving
``examples/data/news_sample.jsonl`` on 127.0.0.1, and read what a user reads:
the exported items, the crawl stats and the log.  How many reprints nshash
finds belongs to the algorithm (measured in ``benchmarks/``); these tests
check what the pipeline guarantees whatever the algorithm decides, and print
the detection figures.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

scrapy = pytest.importorskip("scrapy")
attr = pytest.importorskip("attr")

import nshash  # noqa: E402
from nshash.scrapy import DedupConfig, DedupPipeline, PipelineConfigError  # noqa: E402
from tests.fleet import RedisServer  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "examples" / "scrapy_project"
sys.path.insert(0, str(PROJECT))
import sample_site  # noqa: E402

ARTICLE = (
    "The council approved the new budget for the city's schools on Tuesday evening. "
    "Teachers will get a raise of three percent starting in September of next year. "
    "The vote followed months of negotiations between the union and the district."
)
REPRINT = "<div class='byline'>By Staff</div><p>" + ARTICLE.replace("Tuesday", "Tuesday,") + "</p>"
OTHER = "A storm closed the mountain pass for two days. Drivers were told to wait in the valley below."


# -- the pipeline on Scrapy's objects -------------------------------------------------------
class NewsItem(scrapy.Item):  # type: ignore[misc]
    content = scrapy.Field()
    similar_id = scrapy.Field()
    is_new = scrapy.Field()


@dataclasses.dataclass
class NewsData:
    content: Any
    similar_id: int | None = None
    is_new: bool | None = None


@attr.s(auto_attribs=True)
class NewsAttrs:
    content: Any
    similar_id: int | None = None
    is_new: bool | None = None


ITEM_KINDS = {
    "dict": lambda text: {"content": text},
    "scrapy.Item": lambda text: NewsItem(content=text),
    "dataclass": NewsData,
    "attrs": NewsAttrs,
}
TEXT_KINDS = {"str": lambda text: text, "bytes": lambda text: text.encode("utf-8")}


def pipeline(**settings: Any) -> tuple[DedupPipeline, Any]:
    from scrapy.utils.test import get_crawler

    crawler = get_crawler(settings_dict=settings)
    pipe = DedupPipeline.from_crawler(crawler)
    pipe.open_spider()
    return pipe, crawler.stats


def field(item: Any, name: str) -> Any:
    return item[name] if isinstance(item, (dict, scrapy.Item)) else getattr(item, name)


@pytest.mark.parametrize("text_kind", sorted(TEXT_KINDS))
@pytest.mark.parametrize("item_kind", sorted(ITEM_KINDS))
def test_tag_sets_the_same_ids_as_get_similar(item_kind: str, text_kind: str) -> None:
    pipe, stats = pipeline(NSHASH_ACTION="tag")
    texts = [ARTICLE, OTHER, REPRINT, OTHER]
    items = [pipe.process_item(ITEM_KINDS[item_kind](TEXT_KINDS[text_kind](text))) for text in texts]
    pipe.close_spider()
    expected = nshash.NSHash(errors="replace").get_similar_many(texts)
    assert [field(item, "similar_id") for item in items] == expected == [1, 2, 1, 2]
    assert [field(item, "is_new") for item in items] == [True, True, False, False]
    assert stats.get_value("nshash/new") == 2 and stats.get_value("nshash/duplicates") == 2


@pytest.mark.parametrize("item_kind", sorted(ITEM_KINDS))
def test_drop_raises_dropitem_naming_the_matched_id(item_kind: str) -> None:
    from scrapy.exceptions import DropItem

    pipe, stats = pipeline()
    make = ITEM_KINDS[item_kind]
    first = make(ARTICLE)
    assert pipe.process_item(first) is first
    with pytest.raises(DropItem, match=r"near-duplicate of nshash cluster 1\b"):
        pipe.process_item(make(REPRINT))
    assert pipe.process_item(make(OTHER)) is not None
    pipe.close_spider()
    assert (stats.get_value("nshash/new"), stats.get_value("nshash/duplicates")) == (2, 1)
    assert stats.get_value("nshash/merged") == 0


def test_several_fields_lists_and_empty_values() -> None:
    pipe, stats = pipeline(NSHASH_ACTION="tag", NSHASH_FIELD=["title", "content"])
    sentences = ARTICLE.split(". ")
    a = pipe.process_item({"title": "Budget", "content": sentences})  # .getall(): a list of strings
    b = pipe.process_item({"title": None, "content": ARTICLE})
    empty = pipe.process_item({"title": "", "content": None})
    pipe.close_spider()
    assert a["similar_id"] == b["similar_id"] and b["is_new"] is False
    assert "similar_id" not in empty and stats.get_value("nshash/no_text") == 1


def test_reopened_index_knows_its_ids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        pipe, _ = pipeline(NSHASH_NAME="news", NSHASH_STORE="memory", NSHASH_ACTION="tag")
        items = [pipe.process_item({"content": text}) for text in (ARTICLE, OTHER)]
        pipe.close_spider()
    assert [item["is_new"] for item in items] == [False, False]  # the second crawl: nothing new
    assert (tmp_path / "news.hashdb.pkl").exists()


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"NSHASH_ACTION": "keep"}, "NSHASH_ACTION must be one of drop, tag, not 'keep'"),
        ({"NSHASH_STORE": "leveldb"}, "NSHASH_STORE = 'leveldb' needs NSHASH_NAME"),
        ({"NSHASH_REDIS_URL": "redis://x"}, "NSHASH_REDIS_URL is set but NSHASH_STORE is 'memory'"),
        ({"NSHASH_OPTIONS": {"n": 0}}, "n must be an int from 1 to 64"),
        ({"NSHASH_OPTIONS": {"nn": 3}}, "unknown option(s) nn"),
        ({"NSHASH_OPTIONS": '{"n": '}, "NSHASH_OPTIONS must be a dict or a JSON object"),
        ({"NSHASH_OPTIONS": {"hashdb": "redis"}}, "NSHASH_OPTIONS cannot set 'hashdb'"),
        ({"NSHASH_FIELD": 3}, "NSHASH_FIELD must be a field name or a list of them"),
        ({"NSHASH_NAME": 7}, "NSHASH_NAME must be a string"),
    ],
)
def test_bad_settings_are_refused_before_the_crawl(settings: dict[str, Any], message: str) -> None:
    from scrapy.utils.test import get_crawler

    with pytest.raises(PipelineConfigError, match=re.escape(message)):
        DedupPipeline.from_crawler(get_crawler(settings_dict=settings))


def test_comma_separated_fields_from_the_command_line() -> None:
    assert DedupConfig.from_settings({"NSHASH_FIELD": "title, content"}).fields == ("title", "content")


def test_a_store_that_cannot_be_opened_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    held = nshash.NSHash("news", hashdb="leveldb")  # another crawl holds the index
    try:
        with pytest.raises(
            PipelineConfigError, match="cannot open the nshash index 'news' in store 'leveldb'.*another"
        ):
            pipeline(NSHASH_NAME="news", NSHASH_STORE="leveldb")
    finally:
        held.close()


def test_tag_on_items_without_the_id_fields_stops() -> None:
    from scrapy.exceptions import DropItem

    class Bare(scrapy.Item):  # type: ignore[misc]
        content = scrapy.Field()

    pipe, _ = pipeline(NSHASH_ACTION="tag")
    with pytest.raises(DropItem, match="does not declare them"):
        pipe.process_item(Bare(content=ARTICLE))
    with pytest.raises(DropItem, match="closing"):  # every later item is dropped quietly
        pipe.process_item(Bare(content=OTHER))
    pipe.close_spider()


def test_import_is_lazy_and_a_missing_scrapy_names_the_extra() -> None:
    code = (
        "import sys, nshash\n"
        "assert 'scrapy' not in sys.modules and 'itemadapter' not in sys.modules\n"
        "sys.modules['scrapy'] = None\n"
        "try:\n"
        "    import nshash.scrapy\n"
        "except nshash.MissingDependencyError as exc:\n"
        "    print(exc)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=60)
    assert result.returncode == 0, result.stderr
    assert "pip install 'nshash[scrapy]'" in result.stdout


# -- real crawls -------------------------------------------------------------------------------
@dataclasses.dataclass
class Crawl:
    returncode: int
    items: list[dict[str, Any]]
    stats: dict[str, Any]
    log: str

    @property
    def dropped_ids(self) -> list[int]:
        return [int(i) for i in re.findall(r"Dropped: near-duplicate of nshash cluster (\d+)", self.log)]


def _env() -> dict[str, str]:
    paths = [str(ROOT), str(PROJECT), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p), "PYTHONIOENCODING": "utf-8"}


def start_crawl(workdir: Path, url: str, *settings: str, part: str = "0/1", out: str = "items.jsonl") -> Any:
    """``scrapy crawl news`` of the example project, run in ``workdir`` (where the index lives)."""
    args = [sys.executable, "-m", "scrapy", "crawl", "news", "-a", f"start_url={url}", "-a", f"part={part}"]
    args += ["-O", str(workdir / out), "-s", "CONCURRENT_REQUESTS=1", "-s", "LOG_LEVEL=INFO"]
    for setting in settings:
        args += ["-s", setting]
    env = {**_env(), "SCRAPY_SETTINGS_MODULE": "newsdedup.settings"}
    log = open(workdir / f"{out}.log", "wb")  # noqa: SIM115 - closed by finish_crawl
    process = subprocess.Popen(args, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT)
    process.log_file = log  # type: ignore[attr-defined]
    process.paths = (workdir / out, workdir / f"{out}.log")  # type: ignore[attr-defined]
    return process


def finish_crawl(process: Any, timeout: float = 240) -> Crawl:
    process.wait(timeout=timeout)
    process.log_file.close()
    out, log_path = process.paths
    log = log_path.read_text(encoding="utf-8")
    items = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
    stats: dict[str, Any] = {}
    dump = log.split("Dumping Scrapy stats:", 1)
    if len(dump) == 2:
        for key, value in re.findall(r"'([\w/]+)': (\d+|'[^']*')", dump[1].split("Spider closed", 1)[0]):
            stats[key] = value.strip("'") if value.startswith("'") else int(value)
    return Crawl(process.returncode, items, stats, log)


def crawl(workdir: Path, url: str, *settings: str, **kwargs: Any) -> Crawl:
    return finish_crawl(start_crawl(workdir, url, *settings, **kwargs))


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = sample_site.serve_in_thread()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


SAMPLE = sample_site.load()
LABELS = sorted({row["label"] for row in SAMPLE})


def figures(items: list[dict[str, Any]], kept: set[str] | None = None) -> dict[str, int]:
    """Detection figures against the sample's labels: printed for the README, held to a floor (check_figures)."""
    first: dict[str, dict[str, Any]] = {}
    originals_dropped = reprints_caught = reprints_missed = wrong_cluster = 0
    for item in items:
        label = item["label"]
        is_kept = item["is_new"] if kept is None else item["url"] in kept
        if label not in first:
            first[label] = item
            originals_dropped += not is_kept
            continue
        if is_kept:
            reprints_missed += 1
        else:
            reprints_caught += 1
            wrong_cluster += item.get("similar_id", first[label].get("similar_id")) != first[label].get("similar_id")
    return {
        "pages": len(items),
        "originals_dropped": originals_dropped,
        "reprints_caught": reprints_caught,
        "reprints_missed": reprints_missed,
        "reprints_tagged_with_another_cluster": wrong_cluster,
    }


def check_figures(found: dict[str, int]) -> None:
    """The README's crawl figures, held to a floor: no article's first page dropped, none of its reprints
    put in another article's cluster, 95% of the reprints caught."""
    assert found["originals_dropped"] == 0, found
    assert found["reprints_tagged_with_another_cluster"] == 0, found
    reprints = found["reprints_caught"] + found["reprints_missed"]
    assert reprints == len(SAMPLE) - len(LABELS), found
    assert found["reprints_caught"] >= 0.95 * reprints, found


def test_crawl_tags_every_page_as_get_similar_does(site: str, tmp_path: Path) -> None:
    result = crawl(tmp_path, site, "NSHASH_ACTION=tag", "NSHASH_STORE=memory", "NSHASH_NAME=")
    assert result.returncode == 0, result.log[-3000:]
    items = result.items
    assert sorted(item["url"] for item in items) == sorted(f"{site}page/{n}.html" for n in range(len(SAMPLE)))
    # The pipeline adds nothing of its own: the ids are a get_similar loop's over the same fields in crawl order.
    reference = nshash.NSHash(n=5, errors="replace")
    assert [item["similar_id"] for item in items] == [reference.get_similar(item["content"]) for item in items]
    # New exactly when the id shows up for the first time; the counts add up.
    seen: set[int] = set()
    assert [item["is_new"] for item in items] == [
        not (i in seen or seen.add(i)) for i in (x["similar_id"] for x in items)
    ]  # type: ignore[func-returns-value]
    assert result.stats["nshash/new"] == len(seen) == sum(item["is_new"] for item in items)
    assert result.stats["nshash/new"] + result.stats["nshash/duplicates"] == result.stats["item_scraped_count"]
    found = figures(items)
    print("\ntag crawl:", found, f"{len(seen)} ids for {len(LABELS)} labels")
    check_figures(found)


@pytest.mark.parametrize("store", ["memory", "leveldb"])
def test_crawl_drops_near_duplicates_and_a_second_crawl_drops_everything(site: str, tmp_path: Path, store: str) -> None:
    settings = ("NSHASH_ACTION=drop", f"NSHASH_STORE={store}", 'NSHASH_OPTIONS={"n": 5, "boilerplate": false}')
    first = crawl(tmp_path, site, *settings, out="first.jsonl")
    assert first.returncode == 0, first.log[-3000:]
    tag_crawl = crawl(
        tmp_path, site, "NSHASH_ACTION=tag", "NSHASH_STORE=memory", "NSHASH_NAME=", settings[2], out="t.jsonl"
    )
    assert tag_crawl.returncode == 0, tag_crawl.log[-3000:]
    tagged = tag_crawl.items
    kept = {item["url"] for item in first.items}
    # Dropped exactly the pages that a tag crawl over the same pages in the same order calls duplicates ...
    assert kept == {item["url"] for item in tagged if item["is_new"]}
    # ... each with the message naming a kept page's id, and stats that match what was exported.
    kept_ids = {item["similar_id"] for item in tagged if item["is_new"]}
    assert len(first.dropped_ids) == len(SAMPLE) - len(kept) and set(first.dropped_ids) <= kept_ids
    assert first.stats["nshash/new"] == first.stats["item_scraped_count"] == len(kept)
    assert first.stats["nshash/duplicates"] == first.stats["item_dropped_count"] == len(SAMPLE) - len(kept)
    found = figures(tagged, kept)
    print(f"\ndrop crawl ({store}, boilerplate off):", found)
    check_figures(found)

    second = crawl(tmp_path, site, *settings, out="second.jsonl")
    assert second.returncode == 0, second.log[-3000:]
    assert second.items == []
    assert second.stats["nshash/duplicates"] == second.stats["item_dropped_count"] == len(SAMPLE)
    assert "nshash/new" not in second.stats
    assert "saved and closed" in second.log


def test_second_crawl_with_default_options_drops_everything(site: str, tmp_path: Path) -> None:
    first = crawl(tmp_path, site, out="first.jsonl")
    assert first.returncode == 0, first.log[-3000:]
    pages = [{"label": row["label"], "url": f"{site}page/{n}.html"} for n, row in enumerate(SAMPLE)]
    found = figures(pages, {item["url"] for item in first.items})
    print("\ndrop crawl (default options):", found)
    check_figures(found)
    second = crawl(tmp_path, site, out="second.jsonl")
    print("second crawl kept", len(second.items))
    assert second.items == []


def test_bad_configuration_stops_the_crawl_with_one_message(site: str, tmp_path: Path) -> None:
    unknown = crawl(tmp_path, site, "NSHASH_STORE=nosuch", out="unknown.jsonl")
    assert unknown.returncode != 0
    assert unknown.log.count("[nshash.scrapy] ERROR") == 1
    assert "cannot open the nshash index 'news' in store 'nosuch': unknown hashdb 'nosuch'" in unknown.log
    assert unknown.items == [] and "downloader/request_count" not in unknown.stats

    missing = crawl(tmp_path, site, "NSHASH_FIELD=body", "NSHASH_STORE=memory", out="missing.jsonl")
    assert missing.returncode == 0  # Scrapy's code for a spider it closed; the reason says why
    assert missing.stats["finish_reason"] == "nshash_config_error"
    errors = [line for line in missing.log.splitlines() if "[nshash.scrapy] ERROR" in line]
    assert len(errors) == 1 and "NSHASH_FIELD 'body' is not a field of dict items" in errors[0]
    assert missing.items == []
    assert missing.stats.get("downloader/request_count", 0) < len(SAMPLE) / 2  # stopped early, not per item


def test_sigterm_closes_the_crawl_gracefully_and_saves_the_index(site: str, tmp_path: Path) -> None:
    process = start_crawl(tmp_path, site, "NSHASH_STORE=memory", "DOWNLOAD_DELAY=0.1", out="stopped.jsonl")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (tmp_path / "stopped.jsonl.log").read_bytes().count(b"Dropped:") < 10:
        time.sleep(0.1)
    process.send_signal(signal.SIGTERM)
    result = finish_crawl(process)
    assert "shutting down gracefully" in result.log and "saved and closed" in result.log
    assert result.stats["finish_reason"] == "shutdown"
    assert result.stats["nshash/new"] > 0 and result.stats["nshash/duplicates"] >= 10
    # What the crawl acknowledged is on disk: the saved index knows every id it handed out.
    with nshash.NSHash(tmp_path / "news", n=5, errors="replace") as reopened:
        assert (reopened.store.highest_id() or 0) >= result.stats["nshash/new"]


def test_two_crawls_sharing_a_redis_index_behave_as_one(site: str, tmp_path: Path) -> None:
    with RedisServer(tmp_path / "redis") as server:
        shared = ("NSHASH_ACTION=tag", "NSHASH_STORE=redis", f"NSHASH_REDIS_URL={server.url}", "NSHASH_NAME=shared")
        halves = [start_crawl(tmp_path, site, *shared, part=f"{i}/2", out=f"half{i}.jsonl") for i in range(2)]
        results = [finish_crawl(process) for process in halves]
        for result in results:
            assert result.returncode == 0, result.log[-3000:]
        items = [item for result in results for item in result.items]
        assert sorted(item["url"] for item in items) == sorted(f"{site}page/{n}.html" for n in range(len(SAMPLE)))
        # Every id was new exactly once, in one of the two crawls ...
        new_ids = [item["similar_id"] for item in items if item["is_new"]]
        assert len(new_ids) == len(set(new_ids)) == len({item["similar_id"] for item in items})
        assert sum(result.stats["nshash/new"] for result in results) == len(new_ids)
        # ... and a crawl's duplicates include copies of pages the other crawl saw first.
        by_crawl = [{item["similar_id"] for item in result.items if item["is_new"]} for result in results]
        across = sum(
            1
            for mine, theirs in ((0, 1), (1, 0))
            for item in results[mine].items
            if not item["is_new"] and item["similar_id"] in by_crawl[theirs]
        )
        assert across > 0
        figures_by_label = figures(sorted(items, key=lambda item: int(item["url"].rsplit("/", 1)[1][:-5])))
        print(f"\nredis, two crawls: {len(set(new_ids))} ids, {across} duplicates across crawls,", figures_by_label)
