"""Same input, same order, same options: the same ids in every store and execution mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nshash
from tests.conftest import StoreFactory

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "data" / "news_sample.jsonl"


@pytest.fixture(scope="module")
def pages() -> list[str]:
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row["title"] + "\n" + row["content"] for row in rows]


@pytest.fixture(scope="module")
def reference(pages: list[str]) -> list[int]:
    nsh = nshash.NSHash()
    ids = [nsh.get_similar(page) for page in pages]
    resolved = nsh.resolve_many(ids)
    assert len(set(resolved)) < len(pages)  # the sample has reprints: the test can tell stores apart
    return resolved


def test_every_store_gives_the_same_ids(make_store: StoreFactory, pages: list[str], reference: list[int]) -> None:
    with nshash.NSHash(hashdb=make_store()) as nsh:
        assert nsh.resolve_many([nsh.get_similar(page) for page in pages]) == reference


def test_batch_of_the_online_api_gives_the_same_ids(pages: list[str], reference: list[int]) -> None:
    assert nshash.NSHash().get_similar_many(pages) == reference
    assert nshash.NSHash().get_similar_many(iter(pages), workers=2) == reference


def test_refeeding_a_document_gives_its_id_again(pages: list[str]) -> None:
    nsh = nshash.NSHash()
    first = nsh.resolve_many([nsh.get_similar(page) for page in pages])
    again = [nsh.get_similar(page) for page in pages]
    assert nsh.resolve_many(again) == nsh.resolve_many(first)


def test_batch_algorithm_is_repeatable(pages: list[str]) -> None:
    assert nshash.similar_ids(pages) == nshash.similar_ids(list(pages))


def test_every_store_gives_the_same_ids_where_pages_join_by_their_paragraphs(make_store: StoreFactory) -> None:
    from tests.corpora import excerpt_pages

    pages = excerpt_pages()
    nsh = nshash.NSHash()
    reference = nsh.resolve_many([nsh.get_similar(page) for page in pages])
    assert reference[0] == reference[1]  # a story and its forum page, met through its paragraphs
    with nshash.NSHash(hashdb=make_store()) as other:
        assert other.resolve_many([other.get_similar(page) for page in pages]) == reference
    batch = nshash.similar_ids(pages)
    assert all((batch[i] == batch[j]) == (reference[i] == reference[j]) for i in range(len(pages)) for j in range(i))


@pytest.mark.parametrize("accelerated", [True, False], ids=["C", "Python"])
def test_the_ids_do_not_depend_on_the_string_hash_seed(reference: list[int], accelerated: bool) -> None:
    # Each process hashes str with its own seed (a worker started by spawn too): no decision may follow
    # the order of a set or dict of strings.
    code = (
        "import json, sys, nshash\n"
        f"rows = [json.loads(line) for line in open({str(SAMPLE)!r}, encoding='utf-8') if line.strip()]\n"
        "nsh = nshash.NSHash()\n"
        "ids = [nsh.get_similar(row['title'] + '\\n' + row['content']) for row in rows]\n"
        "print(json.dumps(nsh.resolve_many(ids)))\n"
    )
    speed = {"NSHASH_REQUIRE_SPEEDUPS": "1"} if accelerated else {"NSHASH_NO_SPEEDUPS": "1"}
    for seed in ("1", "2"):
        env = {**os.environ, **speed, "PYTHONHASHSEED": seed}
        env.pop("NSHASH_NO_SPEEDUPS" if accelerated else "NSHASH_REQUIRE_SPEEDUPS", None)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == reference, f"PYTHONHASHSEED={seed}"
