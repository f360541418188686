"""query(), add(doc, key=...) and remove(key): the crawler's API, on every algorithm and store kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import nshash
from tests.conftest import PERSISTENT_KINDS, StoreFactory

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "data" / "news_sample.jsonl"
ALGORITHMS = [nshash.NSHash, nshash.SimHash, nshash.Shingles]


@pytest.fixture(scope="module")
def pages() -> list[str]:
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row["title"] + "\n" + row["content"] for row in rows[:80]]


@pytest.fixture(params=ALGORITHMS, ids=lambda cls: cls.__name__)
def algorithm(request: pytest.FixtureRequest) -> type[nshash.Index]:
    return request.param  # type: ignore[no-any-return]


def test_query_predicts_add_and_stores_nothing(algorithm: type[nshash.Index], pages: list[str]) -> None:
    index = algorithm()
    plain = algorithm()
    repeats = 0
    for page in pages:
        fingerprints = index.store.count("fp")
        predicted = index.query(page)
        assert index.store.count("fp") == fingerprints
        match = index.add(page)
        assert match.similar_id == plain.get_similar(page)  # query() changed nothing the next add sees
        assert predicted.is_new == match.is_new
        if match.is_new:
            assert predicted.similar_id == 0 and predicted.score == 0.0
        else:
            repeats += 1
            assert predicted.similar_id == match.similar_id
            assert predicted.score == match.score
            assert 0.0 < match.score <= 1.0 and match.matched
    assert repeats > 5  # the sample has reprints: the comparison above was exercised


def test_the_same_text_again_scores_one(algorithm: type[nshash.Index], pages: list[str]) -> None:
    index = algorithm()
    first = index.add(pages[0])
    again = index.add(pages[0])
    assert (first.is_new, again.is_new) == (True, False)
    assert again.similar_id == first.similar_id and again.score == 1.0
    assert again.matched == (first.similar_id,)


def test_a_key_keeps_its_id(algorithm: type[nshash.Index], pages: list[str]) -> None:
    index = algorithm()
    first = index.add(pages[0], key="https://a.example/1")
    index.add(pages[1], key=b"https://a.example/2")
    # The page under a known key changed: the key still answers with its id, nothing is added.
    fingerprints = index.store.count("fp")
    again = index.add(pages[2], key="https://a.example/1")
    assert again == nshash.Match(first.similar_id, False, 1.0, (first.similar_id,))
    assert index.store.count("fp") == fingerprints
    third = index.add(pages[3], key=3)
    assert index.add(pages[1], key=3).similar_id == third.similar_id


@pytest.mark.parametrize("bad", [None.__class__, 1.5, ["u"]])
def test_keys_of_other_types_are_refused(bad: object) -> None:
    with pytest.raises(TypeError, match="key must be"):
        nshash.NSHash().add("Some text long enough to count.", key=bad)  # type: ignore[arg-type]


def _alone(algorithm: type[nshash.Index], pages: list[str]) -> int:
    """The position of a page that no other page of ``pages`` matches."""
    ids = algorithm().get_similar_many(pages)
    return next(number for number, similar_id in enumerate(ids) if ids.count(similar_id) == 1)


def test_remove_withdraws_a_page(algorithm: type[nshash.Index], pages: list[str]) -> None:
    index = algorithm(removable=True)
    for number, page in enumerate(pages[:20]):
        index.add(page, key=number)
    alone = _alone(algorithm, pages[:20])
    target = pages[alone]
    fingerprints = index.store.count("fp")
    index.remove(alone)
    assert index.store.count("fp") < fingerprints
    # Nothing else in the index shares the page's fingerprints: it matches nothing any more.
    assert index.query(target) == nshash.Match(0, True, 0.0, ())
    with pytest.raises(nshash.UnknownKeyError, match=f"no page was added under the key {alone}"):
        index.remove(alone)
    with pytest.raises(KeyError):
        index.remove("never added")
    # The other pages are untouched.
    assert all(not index.query(page).is_new for number, page in enumerate(pages[:20]) if number != alone)


def test_remove_keeps_the_other_copies(pages: list[str]) -> None:
    nsh = nshash.NSHash(removable=True)
    copy = "转载自某网站\n" + pages[0] + "\n责任编辑：张三"
    first = nsh.add(pages[0], key="original")
    assert nsh.add(copy, key="copy").similar_id == first.similar_id
    nsh.remove("original")
    # The reprint still holds the article: a third copy joins its cluster.
    assert nsh.query(pages[0]).similar_id == first.similar_id


def test_remove_needs_removable(pages: list[str]) -> None:
    nsh = nshash.NSHash()
    nsh.add(pages[0], key="u")
    with pytest.raises(nshash.NotRemovableError, match="removable=True"):
        nsh.remove("u")
    assert not nsh.query(pages[0]).is_new  # nothing was withdrawn


def test_remove_lasts_after_reopening(make_store: StoreFactory, store_kind: str, pages: list[str]) -> None:
    if store_kind == "readme":
        pytest.skip("the README's minimal store does not delete (see the contract suite)")
    nsh = nshash.NSHash(hashdb=make_store(), removable=True)
    for number, page in enumerate(pages[:10]):
        nsh.add(page, key=f"u{number}")
    alone = _alone(nshash.NSHash, pages[:10])
    nsh.remove(f"u{alone}")
    nsh.close()
    if store_kind not in PERSISTENT_KINDS:
        nsh.store.close()
        return
    nsh.store.close()
    reopened = nshash.NSHash(hashdb=make_store(), removable=True)
    assert reopened.query(pages[alone]).is_new
    other = (alone + 1) % 10
    assert reopened.add(pages[other], key=f"u{other}").similar_id == reopened.query(pages[other]).similar_id
    with pytest.raises(nshash.UnknownKeyError):
        reopened.remove(f"u{alone}")


def test_a_removal_in_the_memory_log_survives_a_crash(tmp_path: Path, pages: list[str]) -> None:
    """The memory store's log replays deletions: a removal acknowledged before kill -9 stays removed."""
    import subprocess
    import sys

    alone = _alone(nshash.NSHash, pages[:10])
    script = f"""
import json, os, sys
import nshash
pages = json.loads(sys.stdin.read())
nsh = nshash.NSHash(name={str(tmp_path / "idx")!r}, removable=True)
for number, page in enumerate(pages):
    nsh.add(page, key=number)
nsh.flush()  # the file holds every page
nsh.remove({alone})
nsh.store.commit()  # ... and only the log holds the removal
os._exit(0)  # no save, as after kill -9
"""
    subprocess.run([sys.executable, "-c", script], input=json.dumps(pages[:10]), text=True, check=True)
    with nshash.NSHash(name=tmp_path / "idx", removable=True) as nsh:
        assert nsh.query(pages[alone]).is_new
        assert not nsh.query(pages[(alone + 1) % 10]).is_new
        with pytest.raises(nshash.UnknownKeyError):
            nsh.remove(alone)


def test_explain_decision_is_what_query_decides_on_every_store(
    make_store: StoreFactory, store_kind: str, pages: list[str]
) -> None:
    nsh, reference = nshash.NSHash(hashdb=make_store()), nshash.NSHash()
    for page in pages[:40]:
        why = nsh.explain_decision(page)
        assert why == reference.explain_decision(page)  # the memory store's, decided in C when it adds
        assert (why["similar_id"], why["is_new"], why["score"], why["matched"]) == tuple(nsh.query(page))
        assert nsh.add(page).similar_id == reference.get_similar(page)
