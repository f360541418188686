"""Verification in C computes exactly what nshash.verify, decide, estimate, frame and sketch specify.

The C: ``nshash/_verify.h`` over ``_member.h``, ``_estimate.h`` and ``_frame.h``.
"""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nshash import boilerplate, decide, edges, estimate, frame, site, sketch, verify, votes
from nshash import members as members_module
from nshash.edges import line_filter, member_tail
from nshash.fingerprint import Features, Fingerprinter
from nshash.members import ENTRIES, Member, entry_keys, from_entries, members_at, to_entries
from nshash.options import Options
from nshash.pieces import FLAT_MARK, piece_key, piece_keys
from nshash.sketch import Sketch
from tests.pages import sample_pages

speedups = pytest.importorskip("nshash._speedups", reason="the C accelerator is not built")


def test_the_verification_constants_come_from_the_python_specification() -> None:
    for name, value in speedups.VERIFY.items():
        modules = (frame, estimate, decide, verify, votes, boilerplate, sketch, edges, members_module, site)
        module = next(m for m in modules if hasattr(m, name))
        assert getattr(module, name) == value, name
        assert type(getattr(module, name)) is type(value), name
    assert 1 / (1 << speedups.VERIFY["_SLOT_BITS"]) == sketch._CHANCE


# Line keys from a small pool, so that documents and members share lines (headers, footers) often.
line_keys = st.lists(st.integers(0, 40).map(lambda k: (k * 0x9E3779B1) & 0xFFFFFFFF), max_size=30)
slot_bytes = st.binary(min_size=sketch.SLOTS, max_size=sketch.SLOTS)
# Site keys from a small pool too, so that documents are often of a member's site (site.same_site).
site_keys = st.lists(
    st.integers(0, 12).map(lambda k: site.site_key((k * 0x85EBCA6B) & 0xFFFFFFFF)),
    max_size=2 * site.SITE_KEYS,
    unique=True,
)


# Latin and CJK pages: a mostly CJK page is also compared without its short lines (frame.prose_body).
line_texts = st.one_of(
    st.text(alphabet="abcdefgh", max_size=150), st.text(alphabet="中文新闻报道网站", min_size=10, max_size=150)
)
# Piece keys from a small pool too, so that a member of the other form has a line's pieces (pieces.member_view).
piece_pool = st.integers(0, 40).map(lambda k: piece_key((k * 0x85EBCA77) & 0xFFFFFFFF))
# A piece's whole key: a line key of the shared pool (what a member that came flat has for a line).
line_keys_pool = st.integers(0, 40).map(lambda k: (k * 0x9E3779B1) & 0xFFFFFFFF)


@st.composite
def pieces_of(draw: st.DrawFn, lines: int) -> array[int]:
    """Features.pieces of a page of ``lines`` lines: suffix key, key, first line, last line each, in page order."""
    out = array("I")
    line = 0
    while line < lines and draw(st.integers(0, 4)):
        last = draw(st.integers(line, min(lines - 1, line + 2)))
        out.extend((draw(piece_pool), draw(line_keys_pool), line, last))
        line = last if draw(st.booleans()) else last + 1  # two pieces of one line, or the next line's
    return out


def whole_of(texts: list[str]) -> tuple[str, array[int]]:
    """The whole text and line ends of lines ``texts``."""
    ends, end = array("I"), 0
    for text in texts:
        end += len(text)
        ends.append(end)
    return "".join(texts), ends


@st.composite
def documents(draw: st.DrawFn) -> Features:
    keys = draw(line_keys)
    # Gram counts around the footer-list (100), gap (200) and short-line (frame.PROSE_SHORT) limits, where a
    # boundary slip shows.
    short = st.integers(frame.PROSE_SHORT - 3, frame.PROSE_SHORT + 3)
    sizes = st.one_of(st.integers(0, 400), st.sampled_from([99, 100, 101, 199, 200, 201]), short)
    grams = draw(st.lists(sizes, min_size=len(keys), max_size=len(keys)))
    text_grams = draw(st.integers(0, 5000))
    whole, ends = whole_of(draw(st.lists(line_texts, min_size=len(keys), max_size=len(keys))))
    site_of = array("I", draw(site_keys))
    flat = draw(st.booleans())  # a page that came without line breaks: its last line stepped over for a footer
    pieces = draw(pieces_of(len(keys)))
    return Features([], [], 1, Sketch(text_grams, draw(slot_bytes)), keys, grams, whole, ends, site_of, flat, pieces)


def c_verify(doc: Features, entries: list[int | None], clusters: int, per: int, known: tuple[int, ...] = ()) -> object:
    return speedups.verify(
        doc.line_keys,
        doc.line_grams,
        *doc.sketch,
        entries,
        clusters,
        per,
        doc.whole,
        doc.line_ends,
        known,
        doc.site_keys,
        doc.flat,
        doc.pieces,
    )


def stored(doc: Features) -> Member:
    """What a cluster keeps of ``doc`` (members.stored_form), in Python."""
    lines = line_filter(doc.line_keys) | line_filter(doc.site_keys) | line_filter(piece_keys(doc))
    lines |= line_filter([FLAT_MARK]) if doc.flat else 0
    return Member(doc.sketch, lines, member_tail(doc.line_keys, doc.line_grams))


@st.composite
def members(draw: st.DrawFn) -> Member:
    # Members that share slots with others: a realistic spread of containments.
    base = draw(slot_bytes)
    changed = draw(st.lists(st.tuples(st.integers(0, sketch.SLOTS - 1), st.integers(0, 255)), max_size=128))
    slots = bytearray(base)
    for index, value in changed:
        slots[index] = value
    keys = draw(line_keys)
    grams = draw(st.lists(st.sampled_from([0, 40, 99, 100, 300]), min_size=len(keys), max_size=len(keys)))
    # Its tail names lines of the shared pool (or is not known, as in a member stored before tails).
    tail = draw(st.sampled_from([0, member_tail(keys, grams)]))
    lines = line_filter(keys) | line_filter(draw(site_keys)) | line_filter(draw(st.lists(piece_pool, max_size=12)))
    lines |= line_filter([FLAT_MARK]) if draw(st.booleans()) else 0  # a member that came flat, or not
    return Member(Sketch(draw(st.integers(0, 5000)), bytes(slots)), lines, tail)


def _entries(clusters: list[list[Member]], per: int) -> list[int | None]:
    out: list[int | None] = []
    for found in clusters:
        for index in range(per):
            out += to_entries(found[index]) if index < len(found) else [None] * ENTRIES
    return out


def lines_sketch(doc: Features, lines: list[int]) -> Sketch:
    """The sketch of the document's ``lines`` (indices, in order) joined: a member made of some of its lines."""
    starts = [0, *doc.line_ends[:-1]]
    return sketch.sketch("".join(doc.whole[starts[i] : doc.line_ends[i]] for i in lines))


@settings(max_examples=500, deadline=None)
@given(
    documents(),
    st.lists(st.lists(members(), max_size=4), max_size=4),
    st.integers(1, 4),
    st.data(),
)
def test_c_verify_equals_verify_score(
    doc: Features, clusters: list[list[Member]], per: int, data: st.DataObject
) -> None:
    clusters = [found[:per] for found in clusters]
    # Documents that are their members' near copies too, so that scores cross the thresholds.
    if clusters and clusters[0]:
        doc = doc._replace(sketch=Sketch(clusters[0][0].sketch.grams + 3, clusters[0][0].sketch.slots))
    # A member made of some of the document's lines: the page without its known lines finds it.
    if len(clusters) > 1 and doc.line_keys:
        kept = data.draw(st.sets(st.integers(0, len(doc.line_keys) - 1)))
        clusters[1] = [Member(lines_sketch(doc, sorted(kept)), line_filter(doc.line_keys)), *clusters[1][: per - 1]]
    # A member made of the document's long lines: a mostly CJK page without its short lines finds it.
    if len(clusters) > 2 and doc.line_keys:
        long_lines = [i for i, grams in enumerate(doc.line_grams) if grams >= frame.PROSE_SHORT]
        clusters[2] = [Member(lines_sketch(doc, long_lines), 0), *clusters[2][: per - 1]]
    known = sorted(data.draw(st.sets(st.integers(0, max(0, len(doc.line_keys) - 1)), max_size=len(doc.line_keys))))
    entries = _entries(clusters, per)
    got = c_verify(doc, entries, len(clusters), per, tuple(known))
    assert got == [(verify.verify_score(doc, found, known), len(found)) for found in clusters]


def test_a_missing_member_hides_the_ones_after_it() -> None:
    member = Member(Sketch(50, bytes(range(128))), line_filter([1, 2]))
    entries = [*([None] * ENTRIES), *to_entries(member)]
    assert speedups.verify([], [], 50, bytes(range(128)), entries, 1, 2, "", [], [], [], False, []) == [(0.0, 0)]
    assert members_at(entries, 0, 2) == []


def test_c_verify_on_real_pages_equals_the_specification() -> None:
    fingerprinter = Fingerprinter(Options())
    docs = sample_pages()
    features = [fingerprinter.features(doc) for doc in docs]
    kept = [stored(f) for f in features]
    for index, doc in enumerate(features):
        # Each page against clusters made of the pages around it (one site's siblings sit together).
        clusters = [kept[max(0, index - 3) : index], kept[index + 1 : index + 4], [kept[index]]]
        entries = _entries(clusters, 3)
        # Every third line known to another cluster: the page without them is compared too; the
        # first and last lines known: a frame shared with a member is known (estimate.frame_free_score).
        count = len(doc.line_keys)
        edges = [i for i in range(count) if i < count // 3 or i >= count - count // 3]
        for known in ([], list(range(0, count, 3)), edges):
            got = c_verify(doc, entries, 3, 3, tuple(known))
            assert got == [(verify.verify_score(doc, found, known), len(found)) for found in clusters]


@settings(max_examples=200, deadline=None)
@given(documents())
def test_c_member_entries_equal_to_entries(doc: Features) -> None:
    expected = to_entries(stored(doc))
    got = speedups.member_entries(doc.line_keys, doc.line_grams, *doc.sketch, doc.site_keys, doc.pieces, doc.flat)
    assert got == expected


def test_a_gram_count_past_32_bits_is_capped_and_keeps_the_tail() -> None:
    keys, grams = [1 << 31, 5 << 28], [300, 20]
    member = Member(Sketch(2**33 + 5, bytes(range(128))), line_filter(keys), member_tail(keys, grams))
    stored = from_entries(to_entries(member))
    assert stored is not None and stored.tail == member.tail and stored.sketch.grams == 2**32 - 1
    assert speedups.member_entries(keys, grams, 2**33 + 5, bytes(range(128)), [], [], False) == to_entries(member)


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
        (([], [], 1, b"x", [], 0, 3, "", [], [], [], False, []), ValueError),  # slots of the wrong size
        (([1], [], 1, bytes(128), [], 0, 3, "", [], [], [], False, []), ValueError),  # lines and grams differ
        (([], [], 1, bytes(128), [None], 1, 3, "", [], [], [], False, []), ValueError),  # entries do not fit
        (
            ([], [], 1, bytes(128), [], 0, 5, "", [], [], [], False, []),
            ValueError,
        ),  # more members than the layout holds
        (([], [], 1, bytes(128), ["x"] * ENTRIES, 1, 1, "", [], [], [], False, []), TypeError),
        (([], [], 1, bytes(128), [2**64] * ENTRIES, 1, 1, "", [], [], [], False, []), OverflowError),
        (([], [], 1, bytes(128), [], 0, 3, b"", [], [], [], False, []), TypeError),  # whole is not a str
        (([1], [5], 1, bytes(128), [], 0, 3, "abc", [4], [], [], False, []), ValueError),  # a line ends past the text
        (([1, 2], [5, 5], 1, bytes(128), [], 0, 3, "abc", [2, 1], [], [], False, []), ValueError),  # ends fall
        (([1], [5], 1, bytes(128), [], 0, 3, "abc", [], [], [], False, []), ValueError),  # a line without an end
        (([1], [5], 1, bytes(128), [], 0, 3, "abc", [3], [1], [], False, []), ValueError),  # a known line it lacks
        (([], [], 1, bytes(128), [], 0, 3, "", [], [], [], False, [], 1), TypeError),  # one argument too many
        (
            ([], [], 1, bytes(128), [], 0, 3, "", [], [], list(range(17)), False, []),
            ValueError,
        ),  # more site keys than a page has
        (([], [], 1, bytes(128), [], 0, 3, "", [], [], None, False, []), TypeError),  # site keys are not a sequence
        (([1], [5], 1, bytes(128), [], 0, 3, "abc", [3], [], [], False, [7, 8, 0]), ValueError),  # not fours
        (([1], [5], 1, bytes(128), [], 0, 3, "abc", [3], [], [], False, [7, 8, 0, 1]), ValueError),  # a line it lacks
        (([1], [5], 1, bytes(128), [], 0, 3, "abc", [3], [], [], False, None), TypeError),  # pieces not a sequence
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
    doc = Features([], [], 1, Sketch(1400, slots), keys, grams, *whole_of([""] * len(keys)))
    expected = verify.verify_score(doc, [member])
    got = c_verify(doc, to_entries(member), 1, 1)
    assert got == [(expected, 1)]
    # The limit matters here: with the gap crossed, the header is larger and the score other.
    other = doc._replace(line_grams=[*grams[:1], 500, *grams[2:]])
    assert (expected != verify.verify_score(other, [member])) == (gap < 200)
