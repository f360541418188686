"""What NSHash keeps of a document: sentence keys, a whole-text key and a sketch.

:class:`Fingerprinter` is pure and picklable (options in, features out, no
store), so worker processes and Dask partitions compute exactly what the
online path computes.  The decision is :mod:`nshash.decide`'s.
"""

from __future__ import annotations

import heapq
from array import array
from collections import deque
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Final, NamedTuple

from nshash._accel import speedups
from nshash.chrome import drop_chrome, wrap_width
from nshash.encoding import repair_mojibake
from nshash.escaped import unescape_json
from nshash.fold import fold_chars
from nshash.hashing import HashFunc, farmhash64
from nshash.linebreaks import edge_lengths, restore_edges, restore_lines, unify_breaks
from nshash.options import Options
from nshash.pieces import PIECE_LINES, page_pieces
from nshash.site import SITE_KEYS, SITE_MIN_CHARS, site_key
from nshash.sketch import GRAM, Sketch, sketch
from nshash.text import (
    _CJK_RE,
    _LINE_RE,
    SPLITS,
    ascii_lower,
    delimit,
    normalize_line,
    split_sentences,
    strip_html,
)

#: A key blanked out because it is a page template (see ``_drop_template_keys``).
NO_KEY = 0
# Prefixed to tails before hashing so that a tail never equals a head.
_TAIL_MARK = "\x01"
# Prefixed to lines, so that their keys never equal a sentence's.
_LINE_MARK = "\x02"
# Separates whole-document keys from sentence keys, so a short document can
# never collide with a sentence of a longer one.
_WHOLE_TEXT_PREFIX = "\x00doc:"
#: A sentence at least this many anchors long, and shorter than two, is keyed
#: by its halves (the first and the last half, an odd length's middle
#: character in both) instead of whole: one typo in it then leaves one key.
#: On the independent corpus's pages of short Chinese articles (under 300
#: characters), 15% of the sentences keyed are 12 to 23 characters long (one
#: to two CJK anchors), and a copy with an edited character in each of them
#: shared none of their keys with its source.  Measured (2026-12-05), against whole keys: the
#: independent corpus zh F1 -0.002 / +0.011 / +0.011 / +0.011 (seeds 1-4;
#: recall +1.0 to +2.2 points; seed 1's precision -1.4 points: templated
#: siblings of a manual), en unchanged or up; the 95 synthetic files of
#: nineteen seeds F1 up on 48, down on 7 (-0.0010 at most; zh recall +0.29
#: points in the mean), all 38 zh files now at 0.95 or more; seeds 2025, 6174
#: and 7919 F1 up on 7 of 15, down on none; real pages, real chrome and the
#: sample unchanged (its popular-story check up on one seed).  Also measured:
#: halves from 7/6, 6/5, 4/3 or 3/2 of an anchor, with or without the shared
#: middle character: the same within 0.004 in the mean F1 of the independent
#: zh files measured and within 0.0003 in the 95 files' mean.
HALVES_FROM: Final = 1
#: A sentence holding one of these (normalised: no spaces, ASCII lower-cased)
#: is a legal, licence or consent notice, never one of the longest sentences
#: keyed: a cookie banner, a copyright line, a privacy notice, a Creative
#: Commons or GPL paragraph.  Such a notice is often a page's longest
#: "sentence" and its wording is copied across sites and across a manual's
#: pages, so the first page carrying it spends a key slot on it and its
#: article's own sentences go unkeyed; later it only proposes clusters that
#: fail.  It stays in the text that verification compares.  Measured on the 15
#: synthetic files of three seeds: the consent, privacy and copyright markers
#: recall +0.28 points, precision +0.04 (F1 up on 13 files, down on none), real
#: pages all forms F1 0.950 -> 0.951, text forms 0.966 -> 0.969; the licence
#: markers then recall +0.12, precision +0.02 (F1 up on 9, down on none), the
#: popular-story check up on 6 of 8 seeds (seed 5: P/R 0.975/0.918 ->
#: 0.993/0.988; seed 4: P 1.000 -> 0.993), real pages unchanged.  "Disclaimer"
#: (免责声明) was tried too: no gain on those, and on one seed of the
#: popular-story check precision 0.995 -> 0.973.
NOTICE_MARKERS: tuple[str, ...] = (
    "cookie",
    "privacypolicy",
    "allrightsreserved",
    "隐私政策",
    "版权所有",
    "creativecommons",
    "知识共享",
    "gnugeneralpubliclicense",
    "freesoftwarefoundation",
)


class Features(NamedTuple):
    """What the decision needs of a document, computed without the store."""

    #: Two keys per candidate sentence, longest sentence first: head, tail.
    keys: list[int]
    #: Each candidate sentence's index among the document's pieces.
    positions: list[int]
    #: The key of the whole normalised text (``None`` for an empty document):
    #: the same text always finds its cluster again through it.
    doc_key: int | None
    #: The sketch of the whole normalised text, for verification.
    sketch: Sketch
    #: 32-bit keys of the page's lines, in order (headers and footers are lines):
    #: an ``array('I')``, 4 bytes a line, so a page of millions of tiny lines
    #: stays within a few bytes a character (a list of ints costs ~40 a line).
    line_keys: array[int]
    #: How many 5-grams each of those lines has (``array('I')``; ``'q'`` when
    #: a line has more than 2**32 - 1).
    line_grams: array[int]
    #: The whole normalised text the sketch is made of.
    whole: str = ""
    #: Where each of those lines ends in ``whole`` (``array('I')``, ``'q'`` past
    #: 32 bits): line ``i`` is ``whole[line_ends[i - 1]:line_ends[i]]``, so the
    #: decision can sketch the page without the lines it knows as frame.
    line_ends: array[int] = array("I")
    #: The page's site signature: :func:`~nshash.site.site_key` of a few of
    #: the chrome lines it dropped at its edges (:func:`site_keys`,
    #: ``array('I')``).  A cluster's member keeps them in its line filter, so
    #: that a later page tells a sibling of the member's site
    #: (:func:`~nshash.site.same_site`) from a copy elsewhere.
    site_keys: array[int] = array("I")
    #: Whether the page arrived without a line break and its first or last line (that is not
    #: blank) was broken after its sentence ends (:func:`~nshash.linebreaks.restore_lines`,
    #: :func:`~nshash.linebreaks.restore_edges`), whatever lines its markup gave it: its first
    #: and last lines are then chrome glued to text, and a footer is looked for above its last
    #: line whatever its size (:func:`~nshash.edges.chrome_lines`).
    flat: bool = False
    #: The pieces the page's lines make joined and broken after their sentence ends
    #: (:func:`~nshash.pieces.flat_pieces`): ``suffix key, key, first line, last line`` each, ``array('I')``.
    pieces: array[int] = array("I")


class Fingerprinter:
    """Options -> a document's :class:`Features`; pure, picklable when its hash function is.

    >>> from nshash.options import Options
    >>> f = Fingerprinter(Options())
    >>> f.sentences("第一句话足够长，可以作为指纹。短句。")
    ['第一句话足够长可以作为指纹']
    """

    def __init__(self, options: Options, hashfunc: HashFunc = farmhash64) -> None:
        self.options = options
        self._hash = hashfunc
        # The arguments of the C accelerator's features(), which hashes with
        # FarmHash only: other hash functions always run the specification.
        self._c_args = None
        if hashfunc is farmhash64:
            self._c_args = (
                *(SPLITS.index(options.split), options.normalize, options.chrome, options.fold),
                *(options.n + options.extra, options.min_len, options.anchor, options.anchor_latin),
            )

    @property
    def c_features_args(self) -> tuple[int, ...] | None:
        """What the C accelerator's ``features`` takes after the text; ``None`` when only Python computes features."""
        return self._c_args if speedups is not None else None

    def clean(self, text: str, edges: list[str] | None = None) -> str:
        """The page's text as it is split: JSON escapes and misread bytes read again, markup, chrome and wrapping
        removed, folded, lost line breaks restored.

        ``edges``: receives the chrome lines dropped at the page's edges (:func:`~nshash.chrome.drop_chrome`).
        """
        return self._clean(text, edges)[0]

    def _clean(self, text: str, edges: list[str] | None = None) -> tuple[str, bool]:
        """:meth:`clean`, and whether the page came without a line break and lines were restored (``Features.flat``)."""
        opts = self.options
        if opts.normalize:  # first: what follows reads the page's characters, not their escapes or bytes
            text = repair_mojibake(unescape_json(text))
        text = unify_breaks(text)
        joined = "\n" not in text  # before markup: a joined page's block tags give it lines, not its breaks
        if opts.normalize:
            text = strip_html(text)
        if opts.fold:  # before the chrome is judged: a line typed in full-width letters is the same line
            text = fold_chars(text)
        # Before the chrome is judged (a joined page's menus and link lists are lines again) and
        # after wrapped lines are joined (a paragraph is broken the same way, wrapped or not).
        edges_before = edge_lengths(text) if joined else (0, 0)
        # The width the page came wrapped at, before long lines are broken: their pieces are no wraps.
        width = wrap_width(text) if opts.chrome else 0
        text = restore_lines(text)
        if joined:
            text = restore_edges(text)
        # Markup gives a joined page lines (a few <p> amid its header and footer): it is flat all the
        # same when its first or last line was broken, chrome glued to text as on a page without markup.
        flat = joined and any(after < before for after, before in zip(edge_lengths(text), edges_before))
        if opts.chrome:
            text = restore_lines(drop_chrome(text, edges, width))
            if joined:
                text = restore_edges(text)
        return text, flat

    def pieces(self, text: str) -> list[str]:
        """The normalised pieces (sentences) of a raw document, in order."""
        opts = self.options
        return split_sentences(self.clean(text), opts.split, opts.normalize, markup=False, keep_empty=False)

    def sentences(self, text: str) -> list[str]:
        """The normalised sentences that may be keyed, longest first (``n + extra`` at most)."""
        return self._ranked(self.pieces(text))[0]

    def _ranked(self, pieces: Iterable[str]) -> tuple[list[str], list[int]]:
        """The ``n + extra`` longest distinct pieces of at least ``min_len`` characters, and their indices.

        Longest first; equal lengths keep document order; a repeated piece
        is one vote, not two (its first occurrence counts); a notice
        (:data:`NOTICE_MARKERS`) is left out.  A heap of the best so far, so
        a page of millions of pieces keeps ``n + extra``.
        """
        opts = self.options
        k, min_len = opts.n + opts.extra, opts.min_len
        best: list[tuple[int, int, str]] = []  # (length, -index, piece): the smallest goes first
        chosen: set[str] = set()
        for index, piece in enumerate(pieces):
            if len(piece) < min_len or (len(best) == k and len(piece) <= best[0][0]):
                continue  # a later piece of the same length ranks below every one kept
            if opts.normalize:
                piece = ascii_lower(piece)
            if piece in chosen or any(marker in piece for marker in NOTICE_MARKERS):
                continue
            chosen.add(piece)
            if len(best) == k:
                chosen.discard(heapq.heapreplace(best, (len(piece), -index, piece))[2])
            else:
                heapq.heappush(best, (len(piece), -index, piece))
        best.sort(reverse=True)
        return [piece for _, _, piece in best], [-index for _, index, _ in best]

    def features(self, text: str) -> Features:
        """The keys, positions, whole-text key, sketch and edge lines of a (decoded) document.

        Computed by the C accelerator when it is there (:mod:`nshash._accel`)
        and the document is one it reproduces exactly, else by
        :meth:`features_python`, the specification.
        """
        if speedups is not None and self._c_args is not None:
            found = speedups.features(text, *self._c_args)
            if found is None and self.options.normalize:
                # The C hands a JSON line and bytes read in another encoding to Python: once read again here,
                # the C takes the rest of the cleaning (normalize 2: what it would have read again is read).
                split, _, *rest = self._c_args
                found = speedups.features(repair_mojibake(unescape_json(text)), split, 2, *rest)
            if found is not None:
                keys, positions, doc_key, grams, slots, *lines = found  # lines: line keys ... site keys
                return Features(keys, positions, doc_key, Sketch(grams, slots), *lines)
        return self.features_python(text)

    def features_python(self, text: str) -> Features:
        """:meth:`features` in pure Python: the specification the C version is tested against."""
        edges: list[str] = []
        clean, flat = self._clean(text, edges)
        site = site_keys(edges, self._hash)
        del edges
        # The pieces are the lines of one delimited string, read one at a time; each
        # copy of the page is let go once what it gives is taken (a page may be large).
        delimited = delimit(clean, self.options.split, self.options.normalize, markup=False)
        whole = delimited.replace("\n", "")
        if self.options.normalize:
            whole = ascii_lower(whole)
        if not whole:
            return Features([], [], None, sketch(""), array("I"), array("I"))
        sentences, positions = self._ranked(match.group() for match in _LINE_RE.finditer(delimited))
        del delimited
        line_keys, line_grams, line_ends, pieces = self._lines(clean)
        del clean
        keys = self._keys(sentences)
        if len(set(keys)) < len(keys):
            keys, positions = _drop_template_keys(keys, positions)
        doc_key = self._hash(_WHOLE_TEXT_PREFIX + whole)
        return Features(
            keys, positions, doc_key, sketch(whole), line_keys, line_grams, whole, line_ends, site, flat, pieces
        )

    def _lines(self, clean: str) -> tuple[array[int], array[int], array[int], array[int]]:
        """32-bit keys, gram counts and ends in the whole text of the page's non-empty lines (one line at a time),
        and the pieces they make joined (:func:`~nshash.pieces.flat_pieces`).

        A line's part of the whole text is the line delimited and normalised
        on its own (sentence ends and noise removed): the whole text is those
        parts joined, since no delimiter spans a line break.
        """
        opts = self.options
        keys = array("I")
        grams = array("I")
        ends = array("I")
        end = 0
        edge: list[str] = []  # the first and last PIECE_LINES keyed lines, stripped, for page_pieces
        last: deque[str] = deque(maxlen=PIECE_LINES)
        for match in _LINE_RE.finditer(clean):
            line = match.group()
            part = delimit(line, opts.split, opts.normalize, markup=False)
            end += len(part) - part.count("\n")
            normalised = normalize_line(line)
            if normalised:
                (edge if len(keys) < PIECE_LINES else last).append(line.strip())
                keys.append(line_key(normalised, self._hash))
                count = max(0, len(normalised) - GRAM + 1)
                if count > 0xFFFFFFFF:  # a line of 4 G characters
                    grams = array("q", grams)
                grams.append(count)
                if end > 0xFFFFFFFF:
                    ends = array("q", ends)
                ends.append(end)
        pieces = page_pieces(edge + list(last), len(keys), partial(line_key, hashfunc=self._hash))
        return keys, grams, ends, pieces

    def _keys(self, sentences: list[str]) -> list[int]:
        """Two keys per sentence, head then tail.

        Anchors are sized by script: a CJK character carries about as much as
        a Latin word's worth of letters, so CJK sentences use ``anchor``
        characters and others ``anchor_latin``.  A sentence shorter than two
        anchors but at least one is keyed by its halves (:data:`HALVES_FROM`);
        a shorter one is its own head and tail.
        """
        opts = self.options
        hash_ = self._hash
        keys: list[int] = []
        for sentence in sentences:
            anchor = opts.anchor if _CJK_RE.search(sentence) else opts.anchor_latin
            if anchor and len(sentence) >= 2 * anchor:
                head, tail = sentence[:anchor], sentence[-anchor:]
            elif anchor and len(sentence) >= HALVES_FROM * anchor:
                half = (len(sentence) + 1) // 2  # an odd length's middle character is in both
                head, tail = sentence[:half], sentence[-half:]
            else:
                head = tail = sentence
            keys.append(hash_(head))
            # The mark keeps a tail from ever matching a head, so a key repeated
            # within one document always means a template (see _drop_template_keys).
            keys.append(hash_(_TAIL_MARK + tail))
        return keys

    def nshash(self, text: str) -> list[int]:
        """The keys of the ``n`` longest sentences, deduplicated (what ``get_nshash`` returns)."""
        keys = self.features(text).keys[: 2 * self.options.n]
        return list(dict.fromkeys(keys))


def line_key(normalised: str, hashfunc: HashFunc) -> int:
    """The 32-bit key of a line normalised by :func:`~nshash.text.normalize_line` (:attr:`Features.line_keys`)."""
    return hashfunc(_LINE_MARK + normalised) & 0xFFFFFFFF


def site_keys(edges: Iterable[str], hashfunc: HashFunc) -> array[int]:
    """A page's site signature (:attr:`Features.site_keys`) from the chrome lines dropped at its edges.

    The :func:`~nshash.site.site_key` of each line of at least
    :data:`~nshash.site.SITE_MIN_CHARS` characters, normalised, once each, in
    page order; the first and last :data:`~nshash.site.SITE_KEYS` of them.
    """
    keys: dict[int, None] = {}
    for line in edges:
        normalised = normalize_line(line)
        if len(normalised) >= SITE_MIN_CHARS:
            keys[site_key(line_key(normalised, hashfunc))] = None
    found = list(keys)
    if len(found) > 2 * SITE_KEYS:
        found = found[:SITE_KEYS] + found[-SITE_KEYS:]
    return array("I", found)


def line_counts(grams: Sequence[int]) -> array[int]:
    """Gram counts of lines as :attr:`Features.line_grams` holds them: ``array('I')``, ``'q'`` past 32 bits."""
    return array("I" if not grams or max(grams) <= 0xFFFFFFFF else "q", grams)


def _drop_template_keys(keys: list[int], positions: list[int]) -> tuple[list[int], list[int]]:
    """Blank keys that two sentences of one page share (a template such as a
    repeated "see section 12.1" ending says nothing about the page); drop
    sentences left without a key."""
    seen: set[int] = set()
    shared: set[int] = set()
    for index in range(len(positions)):
        for key in {keys[2 * index], keys[2 * index + 1]} - {NO_KEY}:
            (shared if key in seen else seen).add(key)
    out_keys: list[int] = []
    out_positions: list[int] = []
    for index, position in enumerate(positions):
        head, tail = (key if key not in shared else NO_KEY for key in keys[2 * index : 2 * index + 2])
        if head == NO_KEY and tail == NO_KEY:
            continue
        # A sentence with one good key uses it in both places.
        out_keys.extend((head or tail, tail or head))
        out_positions.append(position)
    return out_keys, out_positions
