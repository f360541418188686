"""NSHash: near-duplicates by the fingerprints of a document's longest sentences, verified by whole texts.

A document goes through three parts, each in its own module:

    Options (:mod:`nshash.options`)
      -> Fingerprinter (:mod:`nshash.fingerprint`): keys, whole-text key, sketch; pure
      -> assign (:mod:`nshash.decide`): candidates, verification, join/merge, boilerplate evidence
      -> similar_id
"""

from __future__ import annotations

import os
from typing import Any

from nshash.boilerplate import BOILERPLATE, FP, STAT
from nshash.clusters import find_roots
from nshash.compat import Compat07
from nshash.decide import (
    CJK_EASING,
    FRAMELESS_EASING,
    VOTED_SHARE,
    agrees,
    assign,
    assign_python,
    eased_need,
    whole_text_need,
)
from nshash.fingerprint import Features, Fingerprinter
from nshash.hashing import HashFunc
from nshash.index import Index
from nshash.match import Match
from nshash.native import assign_many_native, assign_packed_native, similar_many_native, similar_native
from nshash.options import OPTION_NAMES, Options
from nshash.packed import HEADER_SIZE, check, unpack
from nshash.stores import HashDB
from nshash.stores.view import StoreView
from nshash.text import coerce_document
from nshash.verify import cjk_page
from nshash.views import DryRun


class NSHash(Compat07, Index):
    """Top-n longest sentences hash: documents sharing their longest sentences, and their text, are one article.

    A document's text is cleaned (HTML, scripts and styles removed; on whole
    pages, menus, link lists and short chrome lines dropped; hard-wrapped
    lines joined; traditional Chinese folded to simplified, full-width digits
    and letters to ASCII), split into
    sentences and normalised (whitespace and punctuation removed, ASCII
    lower-cased).  Its ``n`` longest sentences are keyed by the hashes of
    their head and tail; the keys propose earlier clusters, and a cluster is
    joined only when the whole texts agree (see :mod:`nshash.decide`).

    Args:
        name: where the store lives (``<name>.hashdb.pkl`` for ``'memory'``,
            ``<name>.hashdb`` for ``'leveldb'``); ``None`` keeps a memory store
            in memory only.
        hashfunc: ``'farmhash'`` (FarmHash Fingerprint64), ``'md5'`` or a callable
            ``str -> int | bytes``.
        hashdb: ``'memory'``, ``'leveldb'``, ``'redis'`` or a :class:`~nshash.HashDB` object.
        n: how many of the longest sentences are keyed (1-64).
        split: ``'default'``; ``'design'`` (。！？ and newlines only); ``'original'``
            (nshash 0.7: also ``：:；】``, only pieces longer than 30 chars).
        normalize: remove HTML, whitespace and punctuation before hashing.
        min_len: shortest sentence (in normalised characters) worth a key.
        min_match: sentences that must point to a cluster for it to be a candidate.
        extra: sentences looked up beyond ``n`` to replace ones known to be boilerplate.
        anchor: a CJK sentence of at least ``2 * anchor`` characters is keyed by
            the hashes of its first and its last ``anchor`` characters, so one
            edited character spoils one key, not the sentence; ``0`` hashes
            whole sentences.
        anchor_latin: the same for other scripts (letters carry less than ideographs).
        fold: fold traditional Chinese characters to simplified ones, and
            full-width digits and letters to ASCII.
        chrome: drop menus, link lists and short lines of whole pages (40+ lines).
        verify: how much of the smaller text must lie in the larger one (estimated
            containment of character 5-grams) to join a cluster or merge two.
        members: how many of a cluster's first documents it is verified against.
        boilerplate: learn which sentences keep proposing clusters that fail verification, and ignore them.
        boilerplate_after: failed verifications that mark a sentence as boilerplate.
        errors: how ``bytes`` documents are decoded (``'strict'`` raises).
        removable: remember which fingerprints each page added under a key
            (``add(doc, key=...)``), so that :meth:`remove` can withdraw it.
        store_options: keyword arguments for the store opened by name
            (e.g. ``{'save_every': 1000}`` for ``'memory'``, ``{'url': ...}`` for ``'redis'``).

    Every option but ``errors``, ``removable`` and ``store_options`` is saved with the store;
    reopening it with other values raises :class:`~nshash.OptionsMismatchError`.
    ``removable`` is a choice per page: a page added without it cannot be removed later.
    Out-of-range values raise :class:`~nshash.OptionError` (a ``ValueError``).

    Example:
        >>> import nshash
        >>> nsh = nshash.NSHash()  # in memory only
        >>> a = nsh.get_similar("第一句话足够长，可以作为指纹。第二句也一样长，内容不同。第三句话也很长。")
        >>> b = nsh.get_similar("记者 张三\\n第一句话足够长，可以作为指纹。第二句也一样长，内容不同。第三句话也很长。")
        >>> a == b
        True
    """

    algorithm = "nshash"
    option_names = OPTION_NAMES
    opts: Options
    fingerprinter: Fingerprinter

    def __init__(
        self,
        name: str | os.PathLike[str] | None = None,
        hashfunc: str | HashFunc = "farmhash",
        hashdb: str | HashDB = "memory",
        n: int = 5,
        *,
        errors: str = "strict",
        store_options: dict[str, Any] | None = None,
        removable: bool = False,
        **options: Any,
    ) -> None:
        self.opts, hash_ = Options.build(hashfunc, n=n, **options)
        self.fingerprinter = Fingerprinter(self.opts, hash_)
        super().__init__(
            name, hashdb, self.opts.stored(), errors=errors, store_options=store_options, removable=removable
        )

    def __getattr__(self, name: str) -> Any:
        # Options read as attributes (nsh.n, nsh.anchor, ...), as in nshash 1.0.
        opts = self.__dict__.get("opts")
        if opts is not None and name in type(opts).__dataclass_fields__:
            return getattr(opts, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- documents in ------------------------------------------------------------------
    def _features(self, text: str) -> Features:
        return self.fingerprinter.features(text)

    def _decide(self, view: StoreView, features: Features) -> Match:
        return assign(view, features, self.opts)

    def _similar(self, text: str) -> int:
        # The default path, one C call a page (features and decision) on a store that lends its
        # C tables; measured interleaved, 0.2-2 us a page less than the features and the decision apart.
        args = self._one_call_args()
        if args is None:
            return super()._similar(text)
        return self.store.transaction(lambda view: self._similar_native(view, text, args))

    def _similar_all(self, texts: list[str]) -> list[int]:
        # A chunk of get_similar_many in one transaction and one C call, so the
        # store's lock and the Python around each page are paid once a chunk.
        args = self._one_call_args()
        if args is None or not self._chunks_in_c():
            return super()._similar_all(texts)
        return self.store.transaction(lambda view: self._similar_native_all(view, texts, args))

    def _assign_all(self, features: list[Features]) -> list[int]:
        # Features computed elsewhere (batch, Dask): a chunk in one transaction and one C call, as
        # _similar_all; the Python around each page was most of the decision's cost (Dask's driver).
        if not self._chunks_in_c():
            return super()._assign_all(features)
        return self.store.transaction(lambda view: self._assign_native_all(view, features))

    def _assign_native_all(self, view: StoreView, features: list[Features]) -> list[int]:
        ids: list[int] = []
        start = 0
        while start < len(features):
            found = assign_many_native(view, features, start, self.opts)
            if found is None:  # no C decision on this view now (a memory store with a deletion pending)
                return ids + [self._assign(view, each) for each in features[start:]]
            decided, stop = found
            ids += decided
            if stop < len(features):  # a turn the C hands back, having written nothing for that page
                ids.append(assign_python(view, features[stop], self.opts).similar_id)
            start = stop + 1
        return ids

    def _assign_packed(self, blob: bytes) -> list[int]:
        """The raw ids of the pages of :func:`nshash.packed.pack`'s ``blob``, in order (Dask's driver)."""
        check(blob)
        if not self._chunks_in_c():
            return self._assign_all(list(unpack(blob)))
        return self.store.transaction(lambda view: self._assign_packed_native(view, blob))

    def _assign_packed_native(self, view: StoreView, blob: bytes) -> list[int]:
        ids: list[int] = []
        offset = HEADER_SIZE
        while offset < len(blob):
            found = assign_packed_native(view, blob, offset, self.opts)
            if found is None:  # no C decision on this view now (a memory store with a deletion pending)
                return ids + [self._assign(view, each) for each in unpack(blob, offset)]
            decided, offset, handed = found
            ids += decided
            if handed is not None:  # a turn the C hands back, having written nothing for that page
                ids.append(assign_python(view, handed, self.opts).similar_id)
        return ids

    def _chunks_in_c(self) -> bool:
        """Whether computed features can be decided a chunk in one transaction and one C call (as :meth:`_similar_all`).

        Not without the C decision (:meth:`_decides_in_c`), nor on a store that commits a
        document at a time (``chunk_transactions``: Redis), nor with ``save_every``: that
        store counts documents by transactions.
        """
        return (
            self._decides_in_c()
            and getattr(self.store, "chunk_transactions", True)
            and not getattr(self.store, "save_every", None)
        )

    def _one_call_args(self) -> tuple[int, ...] | None:
        """The C features' arguments when features and decision can be one C call (:meth:`_decides_in_c`)."""
        args = self.fingerprinter.c_features_args
        return None if args is None or not self._decides_in_c() else args

    def _decides_in_c(self) -> bool:
        """Whether the store's view takes the C decision: its own C tables (memory), or a cache read through it."""
        return getattr(self.store, "native_tables", None) is not None or getattr(self.store, "reads_through", False)

    def _similar_native_all(self, view: StoreView, texts: list[str], args: tuple[int, ...]) -> list[int]:
        ids: list[int] = []
        start = 0
        while start < len(texts):
            found = similar_many_native(view, texts, start, args, self.opts)
            if found is None:  # no C decision on this view now (a memory store with a deletion pending)
                return ids + [self._similar_native(view, text, args) for text in texts[start:]]
            decided, stop, features = found
            ids += decided
            if stop < len(texts):  # a turn the C hands back, having written nothing for that page
                ids.append(self._decide_handed(view, texts[stop], features))
            start = stop + 1
        return ids

    def _similar_native(self, view: StoreView, text: str, args: tuple[int, ...]) -> int:
        found = similar_native(view, text, args, self.opts)
        if isinstance(found, Match):
            return found.similar_id
        return self._decide_handed(view, text, found)

    def _decide_handed(self, view: StoreView, text: str, features: Features | None) -> int:
        """A page the C decision handed back (with its features) or could not take (``None``)."""
        if features is not None:  # the C features, for the decision it left to Python
            return assign_python(view, features, self.opts).similar_id
        return self._assign(view, self._features(text))

    # -- fingerprints ------------------------------------------------------------------
    def sentences(self, doc: str | bytes) -> list[str]:
        """The normalised sentences that may be keyed, longest first (``n + extra`` at most)."""
        return self.fingerprinter.sentences(coerce_document(doc, self.errors))

    def get_nshash(self, doc: str | bytes, n: int | None = None) -> list[int]:
        """The keys (unsigned 64-bit ints) of ``doc``'s ``n`` longest sentences (``n``: the index's by default).

        Two per sentence: head and tail (for a short sentence, the whole
        sentence both ways).  This ignores what the store knows; :meth:`get_similar`
        skips sentences it has found to be boilerplate and looks further down.

        >>> import nshash
        >>> nshash.NSHash().get_nshash("")
        []
        """
        return self._fingerprinter_for(n).nshash(coerce_document(doc, self.errors))

    def explain_decision(self, doc: str | bytes) -> dict[str, Any]:
        """What :meth:`query` decides for ``doc``, and why; nothing is stored.

        ``similar_id``, ``is_new``, ``score`` and ``matched`` are :meth:`query`'s
        :class:`~nshash.Match`; ``candidates`` lists each candidate cluster with
        ``sentences`` (the looked-up sentences that point to it), ``share`` (of
        the ``n`` longest, :func:`~nshash.votes.vote_shares`), ``containment`` (the verified score against its
        closest member), ``shared_frame`` (the page's lines, normalised, that
        it shares with the members as a header or footer and that were left out
        of the comparison), ``frame_seen_elsewhere`` (where it shares none: its
        lines that other clusters have and a member has too, when they bound the
        score as a frame, :func:`~nshash.estimate.unframed_score`), ``same_site``
        (whether the page is of a member's site: the menus both dropped are one,
        :func:`~nshash.site.same_site`), ``members_overlapping`` (how many of its
        ``members`` overlap the page: a later member's score counts only when
        another overlaps too, :func:`~nshash.estimate.corroborated`),
        ``needs`` (the containment it needed), ``passed`` and the ``rule`` that decided.

        >>> import nshash
        >>> nsh = nshash.NSHash()
        >>> story = "A long first sentence of the story here. A second long sentence of it."
        >>> first = nsh.get_similar(story)
        >>> why = nsh.explain_decision(story.replace("second", "2nd"))
        >>> (candidate,) = why["candidates"]
        >>> why["similar_id"] == first, candidate["passed"], candidate["rule"]
        (True, True, 'containment of at least verify')
        """
        features = self._features(coerce_document(doc, self.errors))
        trace: list[dict[str, Any]] = []
        match = self.store.transaction(lambda view: assign_python(DryRun(view), features, self.opts, trace))
        return {**match._asdict(), "candidates": [_with_rule(c, features, self.opts) for c in trace]}

    def explain(self, doc: str | bytes) -> list[dict[str, Any]]:
        """For debugging a surprising id: each candidate sentence, its keys and stored cluster.

        Each entry has ``sentence``, ``position`` (index of the piece in the
        document), ``keys`` (head and tail), ``cluster`` (canonical id or
        ``None``), ``boilerplate`` (bool) and ``evidence`` (failed
        verifications; ``-1`` for a sentence known to be content).
        """
        text = coerce_document(doc, self.errors)
        pieces = self.fingerprinter.pieces(text)
        features = self._features(text)
        values = self.store.get_many(FP, features.keys)
        evidence = self.store.get_many(STAT, features.keys)
        roots = find_roots(self.store, [value for value in values if value])
        rows = []
        for index, position in enumerate(features.positions):
            pair = features.keys[2 * index : 2 * index + 2]
            found = values[2 * index : 2 * index + 2]
            match = next((value for value in found if value), None)
            rows.append(
                {
                    "sentence": pieces[position],
                    "position": position,
                    "keys": list(dict.fromkeys(pair)),
                    "cluster": roots[match] if match else None,
                    "boilerplate": BOILERPLATE in found,
                    "evidence": max(count or 0 for count in evidence[2 * index : 2 * index + 2]),
                }
            )
        return rows


def _line(features: Features, index: int) -> str:
    """The document's ``index``-th line as the decision sees it (normalised)."""
    ends = features.line_ends
    return features.whole[ends[index - 1] if index else 0 : ends[index]]


def _with_rule(candidate: dict[str, Any], features: Features, options: Options) -> dict[str, Any]:
    """A candidate of the decision's trace: its frame as lines, the containment it needed, the rule that decided.

    Which rule let it pass is asked of :func:`~nshash.decide.agrees` itself, first without the sentence votes.
    """
    if "containment" not in candidate:
        return candidate  # the same text again
    lines = candidate.pop("frame_lines")
    seen_elsewhere = candidate.pop("unframed_lines")
    edited = candidate.pop("edited_copy")
    split = candidate.pop("split_article", False)
    score, share, passed = candidate["containment"], candidate["share"], candidate["passed"]
    frameless = not lines
    cjk = cjk_page(features)
    if candidate.pop("by_lines", False):
        need, rule = options.verify, "its paragraphs were seen there: containment of at least verify, its body's too"
        if not passed:
            rule = "its paragraphs were seen there, but the containment or its body's without its frame is below verify"
    elif edited:
        need, rule = 0.0, "an edited copy: its lines shared verbatim span most of it, the rest is the member's"
    elif score >= options.verify:
        need, rule = options.verify, "containment of at least verify"
    elif agrees(score, 0.0, options, frameless, cjk):
        need = whole_text_need(options, frameless=True, cjk=cjk)
        rule = f"a page of another site: containment of at least verify - {FRAMELESS_EASING}"
        if cjk:
            rule += f" - {CJK_EASING} (a mostly CJK page)"
    elif agrees(score, share, options, cjk=cjk):
        need = eased_need(share, options, cjk)
        rule = "sentence votes: the containment they ask"
        if not passed:
            rule = "sentence votes, but its body disagrees without its frame, or it is a templated sibling"
    else:
        need = eased_need(share, options, cjk) if share >= VOTED_SHARE else whole_text_need(options, frameless, cjk)
        rule = "containment below what it needs"
    if not passed and candidate["members"] >= 2 and candidate["members_overlapping"] < 2:
        rule += ", and one member alone overlaps it (a later one that holds another article too?)"
    if seen_elsewhere:
        rule += ", its lines other clusters have left out as a frame"
    if split:  # decide.split_article
        rule += ", most of its sentences lead here: its lines other clusters have are its article's, not a frame"
    frame = [_line(features, index) for index in lines]
    elsewhere = [_line(features, index) for index in seen_elsewhere]
    return {**candidate, "shared_frame": frame, "frame_seen_elsewhere": elsewhere, "needs": need, "rule": rule}
