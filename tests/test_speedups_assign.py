"""The decision in C (``nshash/_assign.h``) decides and writes exactly what ``nshash.decide.assign_python`` does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import nshash
import nshash.decide
import nshash.native
from nshash.native import TABLES
from nshash.stores.memory import HashDBMemory
from tests.corpora import hard_corpus, manual_corpus, popular_copies

speedups = pytest.importorskip("nshash._speedups", reason="the C accelerator is not built")


class Counting:
    """The C module, counting what its ``assign`` decided and what it handed back to Python."""

    def __init__(self) -> None:
        self.decided = self.handed_back = self.site_body_checks = self.cross_site_failures = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(speedups, name)

    def assign(self, *args: Any) -> Any:
        out = speedups.assign(*args)
        if out is None:
            self.handed_back += 1
        else:
            self.decided += 1
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
                if not agrees and not nshash.frame.shared_frame(args[0], args[1]):
                    counting.cross_site_failures += 1  # no frame shared: failed on its known lines
                return agrees

            patch.setattr(nshash.decide, "body_agrees", body_agrees)
        store = HashDBMemory(path, log_interval=3600)  # no commit while feeding: the log's writes all pending
        nsh = nshash.NSHash(hashdb=store)
        matches = [tuple(nsh.add(doc)) for doc in [*docs, *docs[:40]]]
        tables = {name: sorted(store._tables[name].items()) for name in TABLES}
        pending = {name: sorted(store._pending[name].items()) for name in TABLES if name in store._pending}
        store.close()
    return matches, tables, pending, counting


@pytest.mark.parametrize(
    "docs", [popular_copies, hard_corpus, manual_corpus], ids=["popular-story copies", "hard corpus", "manual"]
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
    assert python[3].site_body_checks > 0  # pages passing on sentence votes: the C checked their bodies too
    if docs is manual_corpus:  # templated siblings of another site, failed without their known lines
        assert python[3].cross_site_failures > 0
    # The C decided most pages, and the rare turns were handed back (and then decided as Python does).
    assert c[3].decided >= 0.8 * len(c[0])
    assert c[3].handed_back > 0


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


def test_c_assign_leaves_an_empty_page_to_python() -> None:
    features = nshash.NSHash().fingerprinter.features("")
    assert features.doc_key is None
    tables = store_tables()
    assert speedups.assign(tables, None, features, OPTIONS, int) is None
    assert all(len(table) == 0 for table in tables)  # type: ignore[arg-type]
