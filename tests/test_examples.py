"""Every example runs as a user runs it (a subprocess, from the repository root) and says something true."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nshash
from tests.fleet import RedisServer

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "data" / "news_sample.jsonl"

pytestmark = pytest.mark.skipif(not SAMPLE.exists(), reason=f"the bundled sample {SAMPLE} is not there yet")


def run_example(name: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *args],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode("utf-8")


def sample() -> list[dict[str, str]]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_crawler_loop() -> None:
    out = run_example("crawler_loop.py")
    rows = sample()
    kept, skipped = map(int, re.search(r"kept (\d+), skipped (\d+) as reprints", out).groups())  # type: ignore[union-attr]
    assert kept + skipped == len(rows)
    # A page is kept when it starts a cluster: when get_similar hands out a new id.
    nsh = nshash.NSHash()
    assert kept == len({nsh.get_similar(row["content"]) for row in rows})
    caught, missed, wrong = map(int, re.search(r"(\d+) reprints caught, (\d+) missed, (\d+) pages", out).groups())  # type: ignore[union-attr]
    assert caught + missed == len(rows) - len({row["label"] for row in rows})
    assert caught + wrong == skipped
    # Right answers, not just consistent ones: no original skipped, nine reprints in ten caught.
    assert wrong == 0
    assert caught >= 0.9 * (caught + missed)


def test_pandas_dedup() -> None:
    out = run_example("pandas_dedup.py")
    rows = sample()
    distinct = len(set(nshash.similar_ids([row["content"] for row in rows])))
    assert f"{len(rows)} pages, {distinct} distinct articles, {len(rows) - distinct} reprints dropped" in out
    assert "clusters mixing stories:" in out


def test_excel_hot_news(tmp_path: Path) -> None:
    report = tmp_path / "hot.xlsx"
    out = run_example("excel_hot_news.py", str(SAMPLE), str(report))
    pd = pytest.importorskip("pandas")
    hot = pd.read_excel(report, sheet_name="hot news")
    pages = pd.read_excel(report, sheet_name="all pages")
    assert len(pages) == len(sample())
    counts = pages.groupby("similar_id").size().sort_values(ascending=False)
    assert hot["reprints"].tolist() == counts.head(len(hot)).tolist()
    assert f" 1. {hot['reprints'][0]:>3} pages" in out
    # The hottest story is the most reprinted labelled story, and each listed cluster is one story.
    rows = sample()
    ids = nshash.similar_ids([row["content"] for row in rows])
    labels_of: dict[int, set[str]] = {}
    for row, similar_id in zip(rows, ids):
        labels_of.setdefault(similar_id, set()).add(row["label"])
    assert "top clusters holding more than one labelled story: 0 of" in out
    top = max(labels_of, key=lambda similar_id: ids.count(similar_id))
    (label,) = labels_of[top]
    label_counts = [row["label"] for row in rows]
    assert label_counts.count(label) == max(label_counts.count(other) for other in set(label_counts))
    assert ids.count(top) == hot["reprints"][0]


def fleet_figures(out: str) -> tuple[list[tuple[int, int]], int, int, int, int]:
    kept_skipped = [(int(kept), int(skipped)) for kept, skipped in re.findall(r"kept (\d+), skipped (\d+) as", out)]
    pages, clusters = map(int, re.search(r"(\d+) pages, \d+ stories, (\d+) clusters", out).groups())  # type: ignore[union-attr]
    mixed, split = map(int, re.search(r"(\d+) clusters mixing stories, (\d+) stories split", out).groups())  # type: ignore[union-attr]
    assert re.search(rf"new ids handed out: {sum(kept for kept, _ in kept_skipped)}, each once: yes", out)
    return kept_skipped, pages, clusters, mixed, split


def test_crawler_fleet_on_its_own_redis_server() -> None:
    out = run_example("crawler_fleet.py", "--crawlers", "2")
    kept_skipped, pages, clusters, mixed, split = fleet_figures(out)
    rows = sample()
    assert len(kept_skipped) == 2 and pages == sum(map(sum, kept_skipped)) == len(rows)
    stories = len({row["label"] for row in rows})
    # Right answers: no story merged into another; the crawlers' order may split a story or two.
    assert mixed == 0
    assert split <= 5
    assert stories + split <= clusters <= sum(kept for kept, _ in kept_skipped)  # merges only lower the count


def test_crawler_fleet_on_a_given_server_leaves_no_keys(redis_server: RedisServer) -> None:
    import redis

    client = redis.Redis.from_url(redis_server.url)
    before = set(client.scan_iter(count=1000))
    out = run_example("crawler_fleet.py", "--crawlers", "3", "--url", redis_server.url)
    kept_skipped, pages, _, mixed, _ = fleet_figures(out)
    assert len(kept_skipped) == 3 and pages == len(sample()) and mixed == 0
    assert set(client.scan_iter(count=1000)) == before  # its keys (a fresh prefix) are gone, others untouched


def test_dask_dedup() -> None:
    pytest.importorskip("distributed")
    out = run_example("dask_dedup.py", "--workers", "2")
    assert "4 partitions on 2 workers" in out
    assert "the same ids as nshash.similar_ids on one machine: yes" in out
    distinct = int(re.search(rf"{len(sample())} pages, (\d+) distinct articles", out).group(1))  # type: ignore[union-attr]
    assert f"clusters holding more than one labelled story: 0 of {distinct}" in out
    sizes = [int(size) for size in re.findall(r"^ ?\d\.\s+(\d+) pages", out, re.MULTILINE)]
    assert len(sizes) == 5 and sizes == sorted(sizes, reverse=True)
