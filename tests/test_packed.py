"""Features packed for transfer (``nshash.packed``), and the decision read from them: as the features' own decision."""

from __future__ import annotations

import struct
from array import array
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nshash
import nshash._accel
import nshash.native
from nshash.batch import assign_all
from nshash.fingerprint import Features, Fingerprinter
from nshash.options import Options
from nshash.packed import HEADER_SIZE, pack, pack_python, unpack
from nshash.sketch import Sketch
from nshash.stores.memory import HashDBMemory
from tests.corpora import hard_corpus, popular_copies
from tests.test_batch import make_corpus
from tests.test_speedups_assign import PYTHON_FEATURES_PAGE, fed

#: Pages of every character size (1, 2 and 4 bytes), empty ones, and one the C features hand back.
ODD_PAGES = [
    "",
    "   ",
    "Hi!",
    "Caf\u00e9 cr\u00e8me is a long enough sentence here. And na\u00efve ones too, long as well.",
    "第一句话足够长，可以作为指纹。第二句也一样长，可以作为指纹。",
    "\U0001f600 an emoji line that is long enough.\nAnother line of text, long enough too.",
    "x\n" * 300,
    PYTHON_FEATURES_PAGE,
    "A page whose line breaks were removed, sentence after sentence. " * 12,  # Features.flat
]


def features_of(texts: list[str], hashfunc: str = "farmhash") -> list[Features]:
    opts, hash_ = Options.build(hashfunc)
    fingerprinter = Fingerprinter(opts, hash_)
    return [fingerprinter.features(text) for text in texts]


def wide_page() -> Features:
    """A page whose line counts and ends are 8-byte arrays (as past 2**32 characters)."""
    return Features(
        [1, 2**64 - 1],
        [0],
        12345,
        Sketch(9, bytes(range(128))),
        array("I", [7, 8]),
        array("q", [3, 2**40]),
        "a whole text \U0001f600",
        array("q", [5, 13]),
    )


@pytest.mark.parametrize("hashfunc", ["farmhash", "md5"])
def test_features_come_back_equal(hashfunc: str) -> None:
    texts, _ = make_corpus(seed=2, articles=8)
    features = [*features_of([*texts, *ODD_PAGES], hashfunc), wide_page()]
    assert any(f.flat for f in features) and not all(f.flat for f in features)
    assert list(unpack(pack_python(features))) == features
    assert list(unpack(pack(features))) == features
    assert list(unpack(pack([]))) == []


def test_the_c_packer_gives_the_python_packers_bytes() -> None:
    speedups = pytest.importorskip("nshash._speedups", reason="the C accelerator is not built")
    texts = [*hard_corpus()[:60], *ODD_PAGES]
    features = [*features_of(texts), wide_page()]
    assert speedups.pack_features(features) == pack_python(features)
    with pytest.raises(TypeError, match="Features tuples"):
        speedups.pack_features([("not", "features")])


def test_a_damaged_or_foreign_blob_is_refused() -> None:
    blob = pack_python(features_of(hard_corpus()[:5]))
    with pytest.raises(ValueError, match="truncated or damaged"):
        list(unpack(blob[:-7]))
    with pytest.raises(nshash.NSHashError, match="not packed nshash features"):
        list(unpack(b"NSF0" + blob[4:]))
    swapped = blob[:4] + struct.pack("=I", 0x04030201) + blob[8:]
    with pytest.raises(nshash.NSHashError, match="another byte order"):
        list(unpack(swapped))
    nsh = nshash.NSHash()
    with pytest.raises(nshash.NSHashError, match="another byte order"):
        nsh._assign_packed(swapped)
    if nshash.native.speedups is not None:
        with pytest.raises(ValueError, match="truncated or damaged"):
            nsh._assign_packed(blob[:-7])


class Spy:
    """The C module, counting the pages its packed and list decisions took and handed back."""

    def __init__(self, speedups: Any) -> None:
        self.speedups = speedups
        self.decided = self.handed = self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.speedups, name)

    def assign_packed(self, blob: bytes, offset: int, *args: Any) -> Any:
        ids, offset, handed = out = self.speedups.assign_packed(blob, offset, *args)
        self.calls += 1
        self.decided += len(ids)
        self.handed += handed is not None
        return out

    def assign_many(self, features: list[Any], start: int, *args: Any) -> Any:
        ids, stop = out = self.speedups.assign_many(features, start, *args)
        self.calls += 1
        self.decided += len(ids)
        self.handed += stop < len(features)
        return out


def _feed() -> list[str]:
    texts = popular_copies()
    # Empty pages and merges are turns the C hands back; a page the C features cannot reproduce
    # arrives with Python's features.
    return [*texts[:50], "", PYTHON_FEATURES_PAGE, *texts[50:], "", *hard_corpus()[:60], *texts[:40]]


@pytest.mark.parametrize("how", ["packed", "list"])
def test_features_decided_apart_give_the_ids_and_tables_of_a_get_similar_loop(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    speedups = pytest.importorskip("nshash._speedups", reason="the C accelerator is not built")
    feed = _feed()
    features = features_of(feed)
    spy = Spy(speedups)

    def apart(nsh: nshash.NSHash) -> list[int]:
        monkeypatch.setattr(nshash.native, "speedups", spy)
        if how == "packed":
            return nsh._assign_packed(pack(features[:100])) + nsh._assign_packed(pack(features[100:]))
        return list(assign_all(nsh, iter(features)))

    ids, tables, pending, _ = fed(tmp_path / "apart.hashdb.pkl", monkeypatch, apart)
    monkeypatch.setattr(nshash.native, "speedups", speedups)
    loop_ids, loop_tables, loop_pending, _ = fed(
        tmp_path / "loop.hashdb.pkl", monkeypatch, lambda nsh: [nsh.get_similar(doc) for doc in feed]
    )
    assert ids == loop_ids and tables == loop_tables and pending == loop_pending
    if nshash._accel.speedups is None:
        return  # pure Python (NSHASH_NO_SPEEDUPS=1): the memory store lends no C tables
    # Most pages were decided in the C's loop, the rare turns handed back and decided in Python.
    assert spy.decided >= 0.8 * len(feed) and spy.handed >= 2
    assert spy.decided + spy.handed == len(feed)
    assert spy.calls <= 2 + spy.handed + (len(feed) // 512 + 1)


def test_without_c_tables_packed_features_are_decided_page_by_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    feed = _feed()
    blob = pack(features_of(feed))
    with HashDBMemory(tmp_path / "loop.hashdb.pkl") as store:
        loop_ids = [nshash.NSHash(hashdb=store).get_similar(doc) for doc in feed]
    monkeypatch.setattr(HashDBMemory, "native_tables", lambda self, names: None)
    with HashDBMemory(tmp_path / "python.hashdb.pkl") as store:
        assert nshash.NSHash(hashdb=store)._assign_packed(blob) == loop_ids
    assert blob[HEADER_SIZE:]  # the pages themselves, after the header


@st.composite
def any_features(draw: st.DrawFn) -> Features:
    lines = draw(st.integers(0, 5))
    grams_wide, ends_wide = draw(st.booleans()), draw(st.booleans())
    grams_top, ends_top = (2**40 if wide else 2**32 - 1 for wide in (grams_wide, ends_wide))
    return Features(
        draw(st.lists(st.integers(0, 2**64 - 1), max_size=8)),
        draw(st.lists(st.integers(0, 2**40), max_size=4)),
        draw(st.none() | st.integers(0, 2**64 - 1)),
        Sketch(draw(st.integers(0, 2**40)), draw(st.binary(min_size=128, max_size=128))),
        array("I", draw(st.lists(st.integers(0, 2**32 - 1), min_size=lines, max_size=lines))),
        array("q" if grams_wide else "I", draw(st.lists(st.integers(0, grams_top), min_size=lines, max_size=lines))),
        draw(st.text(max_size=40)),  # any code point, lone surrogates included
        array("q" if ends_wide else "I", draw(st.lists(st.integers(0, ends_top), min_size=lines, max_size=lines))),
        array("I", draw(st.lists(st.integers(0, 2**32 - 1), max_size=16))),  # site keys
        draw(st.booleans()),  # flat
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(any_features(), max_size=5))
def test_any_features_pack_to_the_same_bytes_and_come_back(features: list[Features]) -> None:
    blob = pack_python(features)
    assert list(unpack(blob)) == features
    speedups = nshash._accel.speedups
    if speedups is not None:
        assert speedups.pack_features(features) == blob
