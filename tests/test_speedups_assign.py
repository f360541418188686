"""The decision in C (``nshash/_assign.h``) decides and writes exactly what ``nshash.decide.assign_python`` does."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import nshash
import nshash._accel
import nshash.bodies
import nshash.decide
import nshash.native
import nshash.votes
from nshash.many import get_similar_many
from nshash.native import TABLES
from nshash.stores.memory import HashDBMemory
from tests.corpora import excerpt_pages, hard_corpus, manual_corpus, menu_corpus, popular_copies, split_stories

speedups = pytest.importorskip("nshash._speedups", reason="the C accelerator is not built")
if nshash._accel.speedups is None:  # built but switched off (NSHASH_NO_SPEEDUPS): the store keeps dicts
    pytest.skip("the C accelerator is switched off", allow_module_level=True)


class Counting:
    """The C module, counting what its ``assign`` decided and what it handed back to Python."""

    def __init__(self) -> None:
        self.decided = self.handed_back = self.site_body_checks = self.cross_site_failures = 0
        self.siblings = self.merge_checks = self.far_failures = self.line_joins = 0
        self.one_call: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        return getattr(speedups, name)

    def assign(self, *args: Any) -> Any:
        out = speedups.assign(*args)
        if out is None:
            self.handed_back += 1
        else:
            self.decided += 1
        return out

    def similar(self, *args: Any) -> Any:
        match, features = out = speedups.similar(*args)
        self.one_call["decided" if match is not None else "features" if features is not None else "none"] += 1
        return out

    def similar_many(self, texts: list[str], start: int, *args: Any) -> Any:
        ids, stop, features = out = speedups.similar_many(texts, start, *args)
        self.one_call["decided"] += len(ids)
        if stop < len(texts):
            self.one_call["features" if features is not None else "none"] += 1
        self.one_call["chunk calls"] += 1
        return out


def decide_all(
    path: Path, docs: list[str], native: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[tuple[Any, ...]], dict[str, list[tuple[int, int]]], dict[str, list[tuple[int, int]]], Counting]:
    """Matches, tables and the log's pending writes after feeding ``docs`` (then their first 40 again)."""
    counting = Counting()
    with monkeypatch.context() as patch:
        patch.setattr(nshash.native, "speedups", counting)
        if not native:
            patch.setattr(HashDBMemory, "native_tables", lambda self, names: None)
            spec = nshash.decide.body_agrees

            def body_agrees(*args: Any) -> bool:
                counting.site_body_checks += 1
                agrees = spec(*args)
                if not agrees and not nshash.frame.shared_frame(args[0], args[1], args[2]):
                    counting.cross_site_failures += 1  # no frame shared: failed on its known lines
                return agrees

            patch.setattr(nshash.decide, "body_agrees", body_agrees)
            sibling_spec = nshash.bodies.template_sibling

            def template_sibling(*args: Any) -> bool:
                found = sibling_spec(*args)
                counting.siblings += found
                return found

            patch.setattr(nshash.bodies, "template_sibling", template_sibling)
            far_spec = nshash.bodies.far_body_agrees

            def far_body_agrees(*args: Any) -> bool:
                agrees = far_spec(*args)
                counting.far_failures += not agrees
                return agrees

            patch.setattr(nshash.bodies, "far_body_agrees", far_body_agrees)
            lines_spec = nshash.decide.join_by_lines

            def join_by_lines(*args: Any) -> Any:
                joined = lines_spec(*args)
                counting.line_joins += joined is not None
                return joined

            patch.setattr(nshash.decide, "join_by_lines", join_by_lines)
            merge_spec = nshash.decide.members_score

            def members_score(*args: Any) -> float:
                counting.merge_checks += 1
                return merge_spec(*args)

            patch.setattr(nshash.decide, "members_score", members_score)
        store = HashDBMemory(path, log_interval=3600)  # no commit while feeding: the log's writes all pending
        nsh = nshash.NSHash(hashdb=store)
        matches = [tuple(nsh.add(doc)) for doc in [*docs, *docs[:40]]]
        tables = {name: sorted(store._tables[name].items()) for name in TABLES}
        pending = {name: sorted(store._pending[name].items()) for name in TABLES if name in store._pending}
        store.close()
    return matches, tables, pending, counting


@pytest.mark.parametrize(
    "docs",
    [popular_copies, hard_corpus, manual_corpus, menu_corpus, split_stories, excerpt_pages],
    ids=["popular-story copies", "hard corpus", "manual", "menu pages", "split stories", "excerpt pages"],
)
def test_c_assign_decides_and_writes_what_python_does(
    docs: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = docs()
    c = decide_all(tmp_path / "c.hashdb.pkl", texts, True, monkeypatch)
    python = decide_all(tmp_path / "python.hashdb.pkl", texts, False, monkeypatch)
    assert c[0] == python[0]  # ids, new or not, scores, clusters matched
    assert c[1] == python[1]  # every table
    assert {name: rows for name, rows in c[2].items() if rows} == {n: r for n, r in python[2].items() if r}  # the log
    assert python[3].decided == 0 and python[3].handed_back == 0
    if docs is not excerpt_pages:  # pages passing on sentence votes: the C checked their bodies too
        assert python[3].site_body_checks > 0
    if docs is manual_corpus:  # templated siblings of another site, failed without their known lines
        assert python[3].cross_site_failures > 0
    if docs is menu_corpus:  # templated siblings sharing whole lines, failed on what lies between them
        assert python[3].siblings > 0
        assert python[3].far_failures > 0  # and a page's body far smaller than a member, beside a known frame
    # The C decided every page, merges too: two clusters passed, and their members were compared (not among the
    # excerpt pages since a page far smaller than a member agrees no more than its body: they join by lines).
    assert c[3].decided == len(c[0]) and c[3].handed_back == 0
    assert python[3].merge_checks > 0 or docs is excerpt_pages
    if docs is split_stories:
        assert sum(len(match[3]) > 1 for match in c[0]) >= 3  # and some were merged
    if docs is excerpt_pages:  # pages whose keys were all other stories', joined through their paragraphs
        assert python[3].line_joins > 0


#: A page the C features hand back (a tag name followed by a letter re.IGNORECASE takes for "s").
PYTHON_FEATURES_PAGE = "<script\u017f>x</script>A first sentence that is long enough to key. And a second one, as long."
#: A page the C decision hands back with its features: nothing left once cleaned (Python gives it an id).
EMPTY_PAGE = "<p> </p>\n\n"


def fed(
    path: Path, monkeypatch: pytest.MonkeyPatch, feed: Any
) -> tuple[list[int], dict[str, list[tuple[int, int]]], dict[str, list[tuple[int, int]]], Counting]:
    """``feed(nsh)``'s ids on a new memory store at ``path``: its tables, its log's pending writes, the C calls."""
    counting = Counting()
    monkeypatch.setattr(nshash.native, "speedups", counting)
    store = HashDBMemory(path, log_interval=3600)  # no commit while feeding: the log's writes all pending
    ids = list(feed(nshash.NSHash(hashdb=store)))
    tables = {name: sorted(store._tables[name].items()) for name in TABLES}
    pending = {name: sorted(store._pending[name].items()) for name in TABLES if name in store._pending}
    store.close()
    return ids, tables, pending, counting


@pytest.mark.parametrize(
    "docs", [popular_copies, hard_corpus, split_stories], ids=["popular-story copies", "hard corpus", "split stories"]
)
def test_get_similar_in_one_c_call_gives_the_ids_and_tables_of_two_steps(
    docs: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nshash.index import Index

    texts = [*docs(), PYTHON_FEATURES_PAGE, EMPTY_PAGE, PYTHON_FEATURES_PAGE]
    assert speedups.features(PYTHON_FEATURES_PAGE, *nshash.NSHash().fingerprinter.c_features_args) is None
    feed = [*texts, *texts[:40]]
    ids, tables, pending, counting = fed(
        tmp_path / "one.hashdb.pkl", monkeypatch, lambda nsh: list(map(nsh.get_similar, feed))
    )
    # Two steps: the features, then the decision in a transaction (what every other store runs).
    two_ids, two_tables, two_pending, two_counting = fed(
        tmp_path / "two.hashdb.pkl", monkeypatch, lambda nsh: [Index._similar(nsh, doc) for doc in feed]
    )
    assert ids == two_ids and tables == two_tables and pending == two_pending
    # Every page went through the one call: all decided there but the empty page, handed back with
    # its features, and the page the C features cannot reproduce, with none (and then its Python
    # features decided by the C decision alone).
    assert sum(counting.one_call.values()) == len(ids)
    assert counting.one_call["decided"] == len(ids) - 3 and counting.one_call["features"] == 1
    assert counting.one_call["none"] == counting.decided == 2
    assert not two_counting.one_call and two_counting.decided > 0


@pytest.mark.parametrize(
    "docs", [popular_copies, hard_corpus, split_stories], ids=["popular-story copies", "hard corpus", "split stories"]
)
def test_get_similar_many_in_one_c_call_a_chunk_gives_the_ids_and_tables_of_a_loop(
    docs: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = docs()
    feed = [*texts[:50], PYTHON_FEATURES_PAGE, EMPTY_PAGE, *texts[50:], PYTHON_FEATURES_PAGE, *texts[:40]]
    ids, tables, pending, counting = fed(
        tmp_path / "many.hashdb.pkl", monkeypatch, lambda nsh: get_similar_many(nsh, feed, chunk_size=64)
    )
    loop_ids, loop_tables, loop_pending, loop_counting = fed(
        tmp_path / "loop.hashdb.pkl", monkeypatch, lambda nsh: nsh.resolve_many(map(nsh.get_similar, feed))
    )
    calls, loop_calls = counting.one_call, loop_counting.one_call
    assert ids == loop_ids and tables == loop_tables and pending == loop_pending
    # Every page went through a chunk's call; a call ends at a chunk's end or at a page handed back
    # (with its features: the empty page; or none: the page the C features cannot reproduce), the
    # chunk going on after it.
    chunks = -(-len(feed) // 64)
    handed_back = calls["features"] + calls["none"]
    assert calls["decided"] + handed_back == len(ids)
    assert calls["features"] == 1 and calls["none"] == 2
    assert chunks <= calls["chunk calls"] <= chunks + handed_back
    assert calls["decided"] == loop_calls["decided"] and loop_calls["chunk calls"] == 0


def test_get_similar_many_counts_documents_for_save_every_page_by_page(tmp_path: Path) -> None:
    texts = hard_corpus()[:30]
    with HashDBMemory(tmp_path / "s.hashdb.pkl", save_every=10) as store:
        nsh = nshash.NSHash(hashdb=store)
        saved, save = [], store.save

        def counted_save() -> None:
            saved.append(len(saved))
            save()

        store.save = counted_save  # type: ignore[method-assign]
        get_similar_many(nsh, texts, chunk_size=64)
        assert len(saved) == 3  # after every 10 documents, as a get_similar loop: not once a chunk


def test_after_a_deletion_the_memory_store_leaves_the_decision_to_python(tmp_path: Path) -> None:
    with HashDBMemory(tmp_path / "d.hashdb.pkl", log_interval=3600) as store:
        tables, pending = store.native_tables(TABLES)
        assert tables[0] is store._tables["fp"] and pending is not None and pending[0] is store._pending["fp"]
        store.put_many("fp", [(1, 1)])
        store.delete_many("fp", [1])
        # A write must now also leave the log's deleted keys, which only put_many does.
        assert store.native_tables(TABLES) is None
        nsh = nshash.NSHash(hashdb=store)
        text = "A first sentence that is long enough to key. And a second one, long enough too."
        assert nsh.get_similar(text) == nsh.get_similar(text)
        other = "Another page with sentences long enough to key. Nothing in it is like the first one."
        first, second = get_similar_many(nsh, [text, other])
        assert (nsh.get_similar(text), nsh.get_similar(other)) == (first, second) and first != second
    with HashDBMemory(None) as store:
        assert store.native_tables(TABLES)[1] is None  # no log: no pending writes to keep


def store_tables() -> tuple[object, ...]:
    """Empty tables as the memory store has them: (fp, parent, stat, sketch, line), the sketch a Blocks."""
    return tuple(speedups.Blocks() if name == "sketch" else speedups.Table() for name in TABLES)


OPTIONS = (5, 1, 3, 0.7, 0.5, True, 2)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((("fp",) * 5, None, None, OPTIONS, int), TypeError),  # not Tables
        (((speedups.Table(),) * 5, None, None, OPTIONS, int), TypeError),  # the sketch table not a Blocks
        ((store_tables()[:4], None, None, OPTIONS, int), TypeError),  # four tables
        ((store_tables(), store_tables(), None, OPTIONS, int), TypeError),  # pending writes are all Tables
        ((store_tables(), None, (), OPTIONS, int), TypeError),  # not Features
        ((store_tables(), None, None, (5, 1, 9, 0.7, 0.5, True, 2), int), ValueError),  # members > 4
        ((store_tables(), None, None, (5, 1, 3), int), TypeError),  # options
    ],
)
def test_c_assign_refuses_bad_arguments(args: tuple[object, ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        speedups.assign(*args)


def test_the_one_call_refuses_bad_arguments() -> None:
    args = nshash.NSHash().fingerprinter.c_features_args
    with pytest.raises(TypeError):
        speedups.similar("text", args[:4], store_tables(), None, OPTIONS, int)  # not features()'s 8 ints
    with pytest.raises(TypeError):
        speedups.similar("text", args, store_tables(), None, OPTIONS)  # no allocate_id
    with pytest.raises(TypeError):
        speedups.similar(b"text", args, store_tables(), None, OPTIONS, int)  # not a str
    with pytest.raises(TypeError):
        speedups.similar("A long first sentence here. And a second.", args, store_tables()[:4], None, OPTIONS, int)


def test_c_assign_leaves_an_empty_page_to_python() -> None:
    features = nshash.NSHash().fingerprinter.features("")
    assert features.doc_key is None
    tables = store_tables()
    assert speedups.assign(tables, None, features, OPTIONS, int) is None
    assert all(len(table) == 0 for table in tables)  # type: ignore[arg-type]


def test_c_assign_with_as_many_clusters_voted_as_two_a_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """128 sentences (n=64, extra=64), each head and tail leading to a cluster of its own: 256 clusters voted.

    Every one of them is read back when the evidence is recorded: the C sizes what it keeps of each for two a
    sentence (``votes.sentence_votes``), and writes what Python writes.
    """
    import random

    rng = random.Random(7)

    def words(count: int) -> str:
        return "".join(chr(0x4E00 + rng.randrange(20_000)) for _ in range(count))

    heads, tails = [words(14) for _ in range(128)], [words(14) for _ in range(128)]
    docs = [head + words(20) + "。" for head in heads] + [words(20) + tail + "。" for tail in tails]
    page = "".join(head + words(10) + tail + "。\n" for head, tail in zip(heads, tails))

    def feed(path: Path, native: bool) -> tuple[list[Any], dict[str, list[tuple[int, int]]]]:
        with monkeypatch.context() as patch:
            if not native:
                patch.setattr(HashDBMemory, "native_tables", lambda self, names: None)
            store = HashDBMemory(path, log_interval=3600)
            nsh = nshash.NSHash(hashdb=store, n=64, extra=64)
            matches = [tuple(nsh.add(doc)) for doc in [*docs, page, page]]
            assert nsh.explain(page)[0]["cluster"] is not None
            tables = {name: sorted(store._tables[name].items()) for name in TABLES}
            store.close()
        return matches, tables

    votes = nshash.votes.sentence_votes([*range(1, 257)])
    assert len(votes) == 256  # each head's cluster and each tail's, one vote each
    c, python = feed(tmp_path / "c.hashdb.pkl", True), feed(tmp_path / "python.hashdb.pkl", False)
    assert c == python
    assert c[0][-2][1] and not c[0][-1][1]  # the page is new (nothing verified), then the same text again
