"""Verification in C (``nshash/_verify.h``) computes exactly what nshash.decide and nshash.sketch specify."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nshash import decide, sketch
from nshash.fingerprint import Features, Fingerprinter
from nshash.options import Options
from nshash.sketch import ENTRIES, Member, Sketch, entry_keys, line_filter, to_entries

speedups = pytest.importorskip("nshash._speedups", reason="the C accelerator is not built")

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "data" / "news_sample.jsonl"


def test_the_verification_constants_come_from_the_python_specification() -> None:
    for name, value in speedups.VERIFY.items():
        module = decide if hasattr(decide, name) and not hasattr(sketch, name) else sketch
        assert getattr(module, name) == value, name
        assert type(getattr(module, name)) is type(value), name
    assert 1 / (1 << speedups.VERIFY["_SLOT_BITS"]) == sketch._CHANCE


# Line keys from a small pool, so that documents and members share lines (headers, footers) often.
line_keys = st.lists(st.integers(0, 40).map(lambda k: (k * 0x9E3779B1) & 0xFFFFFFFF), max_size=30)
slot_bytes = st.binary(min_size=sketch.SLOTS, max_size=sketch.SLOTS)


@st.composite
def documents(draw: st.DrawFn) -> Features:
    keys = draw(line_keys)
    # Gram counts around the footer-list (100) and gap (200) limits, where a boundary slip shows.
    sizes = st.one_of(st.integers(0, 400), st.sampled_from([99, 100, 101, 199, 200, 201]))
    grams = draw(st.lists(sizes, min_size=len(keys), max_size=len(keys)))
    text_grams = draw(st.integers(0, 5000))
    return Features([], [], 1, Sketch(text_grams, draw(slot_bytes)), keys, grams)


@st.composite
def members(draw: st.DrawFn) -> Member:
    # Members that share slots with others: a realistic spread of containments.
    base = draw(slot_bytes)
    changed = draw(st.lists(st.tuples(st.integers(0, sketch.SLOTS - 1), st.integers(0, 255)), max_size=128))
    slots = bytearray(base)
    for index, value in changed:
        slots[index] = value
    return Member(Sketch(draw(st.integers(0, 5000)), bytes(slots)), line_filter(draw(line_keys)))


def _entries(clusters: list[list[Member]], per: int) -> list[int | None]:
    out: list[int | None] = []
    for found in clusters:
        for index in range(per):
            out += to_entries(found[index]) if index < len(found) else [None] * ENTRIES
    return out


@settings(max_examples=500, deadline=None)
@given(documents(), st.lists(st.lists(members(), max_size=4), max_size=4), st.integers(1, 4))
def test_c_verify_equals_verify_score(doc: Features, clusters: list[list[Member]], per: int) -> None:
    clusters = [found[:per] for found in clusters]
    # Documents that are their members' near copies too, so that scores cross the thresholds.
    if clusters and clusters[0]:
        doc = doc._replace(sketch=Sketch(clusters[0][0].sketch.grams + 3, clusters[0][0].sketch.slots))
    entries = _entries(clusters, per)
    got = speedups.verify(doc.line_keys, doc.line_grams, *doc.sketch, entries, len(clusters), per)
    assert got == [(decide.verify_score(doc, found), len(found)) for found in clusters]


def test_a_missing_member_hides_the_ones_after_it() -> None:
    member = Member(Sketch(50, bytes(range(128))), line_filter([1, 2]))
    entries = [*([None] * ENTRIES), *to_entries(member)]
    assert speedups.verify([], [], 50, bytes(range(128)), entries, 1, 2) == [(0.0, 0)]
    assert decide.members_at(entries, 0, 2) == []


def test_c_verify_on_real_pages_equals_the_specification() -> None:
    fingerprinter = Fingerprinter(Options())
    docs = [json.loads(line)["content"] for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    features = [fingerprinter.features(doc) for doc in docs]
    stored = [Member(f.sketch, line_filter(f.line_keys)) for f in features]
    for index, doc in enumerate(features):
        # Each page against clusters made of the pages around it (one site's siblings sit together).
        clusters = [stored[max(0, index - 3) : index], stored[index + 1 : index + 4], [stored[index]]]
        entries = _entries(clusters, 3)
        got = speedups.verify(doc.line_keys, doc.line_grams, *doc.sketch, entries, 3, 3)
        assert got == [(decide.verify_score(doc, found), len(found)) for found in clusters]


@settings(max_examples=200, deadline=None)
@given(documents())
def test_c_member_entries_equal_to_entries(doc: Features) -> None:
    expected = to_entries(Member(doc.sketch, line_filter(doc.line_keys)))
    assert speedups.member_entries(doc.line_keys, *doc.sketch) == expected


@pytest.mark.parametrize("clusters", [[], [1], [7, 2**40, 1], [2**56 - 1]])
@pytest.mark.parametrize("per", [1, 3, 4])
def test_c_entry_keys_equal_entry_keys(clusters: list[int], per: int) -> None:
    expected = [key for cluster in clusters for member in range(per) for key in entry_keys(cluster, member)]
    assert speedups.entry_keys(clusters, per) == expected


@pytest.mark.parametrize("cluster", [2**56, 2**63, 2**64 - 1])
def test_ids_past_the_c_keys_are_left_to_python(cluster: int) -> None:
    assert speedups.entry_keys([1, cluster], 3) is None


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (([], [], 1, b"x", [], 0, 3), ValueError),  # slots of the wrong size
        (([1], [], 1, bytes(128), [], 0, 3), ValueError),  # lines and grams differ
        (([], [], 1, bytes(128), [None], 1, 3), ValueError),  # entries do not fit
        (([], [], 1, bytes(128), [], 0, 5), ValueError),  # more members than the layout holds
        (([], [], 1, bytes(128), ["x"] * ENTRIES, 1, 1), TypeError),
        (([], [], 1, bytes(128), [2**64] * ENTRIES, 1, 1), OverflowError),
    ],
)
def test_c_verify_refuses_bad_arguments(args: tuple[object, ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        speedups.verify(*args)


@pytest.mark.parametrize("gap", [99, 100, 199, 200, 201])
def test_c_verify_at_the_gap_and_list_limits(gap: int) -> None:
    # Lines 0..5; the member has 0, 2, 4, 5: line 1 is a gap in the header when short enough.
    keys = [(k * 0x9E3779B1) & 0xFFFFFFFF for k in range(1, 7)]
    grams = [120, gap, 150, 300, 120, 130]
    slots = bytes(range(128))
    member = Member(Sketch(1500, slots[:64] + bytes(64)), line_filter([keys[0], keys[2], keys[4], keys[5]]))
    doc = Features([], [], 1, Sketch(1400, slots), keys, grams)
    expected = decide.verify_score(doc, [member])
    got = speedups.verify(keys, grams, *doc.sketch, to_entries(member), 1, 1)
    assert got == [(expected, 1)]
    # The limit matters here: with the gap crossed, the header is larger and the score other.
    other = Features([], [], 1, doc.sketch, keys, [*grams[:1], 500, *grams[2:]])
    assert (expected != decide.verify_score(other, [member])) == (gap < 200)
