"""NSHash: near-duplicates by the fingerprints of a document's longest sentences."""

from __future__ import annotations

import os
from typing import Any, NamedTuple

import farmhash

from nshash.clusters import PARENT, find_roots, merge
from nshash.hashing import HashFunc, resolve_hashfunc
from nshash.index import Index, positive_int
from nshash.stores import HashDB
from nshash.text import ORIGINAL_MIN_LEN, SPLITS, coerce_document, ranked_sentences, strip_html, whole_text_key

try:  # the optional C accelerator (setup.py); the pure-Python path gives the same keys
    from nshash import _speedups
except ImportError:  # pragma: no cover - depends on the build
    _speedups = None  # type: ignore[assignment]

FP = "fp"
STAT = "stat"
#: A key blanked out because it is a page template (see ``_drop_template_keys``).
NO_KEY = 0
# Prefixed to tails before hashing so that a tail never equals a head.
_TAIL_MARK = "\x01"
#: Value of a fingerprint found to be site boilerplate: it no longer counts.
BOILERPLATE = 0
# Separates whole-document keys from sentence keys, so a short document can
# never collide with a sentence of a longer one.
_WHOLE_TEXT_PREFIX = "\x00doc:"


class Features(NamedTuple):
    """What ``get_similar`` needs of a document, computed without the store."""

    #: Two keys per candidate sentence, longest sentence first: head, tail.
    keys: list[int]
    #: Each candidate sentence's line index in the document.
    positions: list[int]


class NSHash(Index):
    """Top-n longest sentences hash: documents sharing their longest sentences are one article.

    A document's sentences are normalised (whitespace, punctuation and HTML
    remnants removed, lower-cased) and the ``n`` longest are keyed by the
    hashes of their head and tail.  A document joins the earlier cluster that
    at least ``min_match`` of its sentences point to (one suffices for
    documents with too few sentences); another cluster it matches inside the
    same stretch of text merges into it.  Sentences that keep showing up in
    documents that are otherwise different (site headers, footers,
    disclaimers) are marked as boilerplate and stop counting.

    Args:
        name: where the store lives (``<name>.hashdb.pkl`` for ``'memory'``,
            ``<name>.hashdb`` for ``'leveldb'``); ``None`` keeps a memory store
            in memory only.
        hashfunc: ``'farmhash'`` (FarmHash Fingerprint64), ``'md5'`` or a callable
            ``str -> int | bytes``.
        hashdb: ``'memory'``, ``'leveldb'``, ``'redis'`` or a :class:`~nshash.HashDB` object.
        n: how many of the longest sentences are fingerprinted.
        split: ``'default'``; ``'design'`` (。！？ and newlines only); ``'original'``
            (nshash 0.7: also ``：:；】``, only pieces longer than 30 chars).
        normalize: remove whitespace, punctuation and HTML before hashing.
        min_len: shortest sentence (in normalised characters) worth a fingerprint.
        min_match: fingerprints that must agree for a match, when a document has
            more than ``min_match`` of them.
        boilerplate: detect fingerprints shared by unrelated documents and ignore them.
        boilerplate_after: how much evidence marks a fingerprint as boilerplate.
        extra: sentences looked up beyond ``n`` to replace ones known to be boilerplate.
        anchor: a sentence of at least ``2 * anchor`` characters is keyed by the
            hashes of its first and its last ``anchor`` characters, so one edited
            character spoils one key, not the sentence; ``0`` hashes whole sentences.
        errors: how ``bytes`` documents are decoded (``'strict'`` raises).
        store_options: keyword arguments for the store opened by name
            (e.g. ``{'save_every': 1000}`` for ``'memory'``, ``{'url': ...}`` for ``'redis'``).

    Every option but ``errors`` and ``store_options`` is saved with the store;
    reopening it with other values raises :class:`~nshash.OptionsMismatchError`.

    Example:
        >>> import nshash
        >>> nsh = nshash.NSHash()  # in memory only
        >>> a = nsh.get_similar("第一句话足够长，可以作为指纹。第二句也一样长，内容不同。第三句话也很长。")
        >>> b = nsh.get_similar("记者 张三\\n第一句话足够长，可以作为指纹。第二句也一样长，内容不同。第三句话也很长。")
        >>> a == b
        True
    """

    algorithm = "nshash"
    store_bound = ("_assigner",)

    def __init__(
        self,
        name: str | os.PathLike[str] | None = None,
        hashfunc: str | HashFunc = "farmhash",
        hashdb: str | HashDB = "memory",
        n: int = 5,
        *,
        split: str = "default",
        normalize: bool = True,
        min_len: int | None = None,
        min_match: int = 2,
        boilerplate: bool = True,
        boilerplate_after: int = 3,
        extra: int = 3,
        anchor: int = 12,
        errors: str = "strict",
        store_options: dict[str, Any] | None = None,
    ) -> None:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
        if min_len is None:
            min_len = ORIGINAL_MIN_LEN if split == "original" else 8
        hash_name, self._safe_hash = resolve_hashfunc(hashfunc)
        # The raw C function when there is one: the wrapper's call costs ~10% of get_similar.
        self._hash: HashFunc = farmhash.fingerprint64 if hash_name == "farmhash" else self._safe_hash
        self._accelerated = _speedups is not None and hash_name == "farmhash" and split == "default" and bool(normalize)
        self.n = positive_int("n", n)
        self.min_len = positive_int("min_len", min_len)
        self.min_match = positive_int("min_match", min_match)
        self.boilerplate_after = positive_int("boilerplate_after", boilerplate_after)
        self.extra = positive_int("extra", extra, minimum=0)
        self.anchor = positive_int("anchor", anchor, minimum=0)
        self.split = split
        self.normalize = bool(normalize)
        self.boilerplate = bool(boilerplate)
        options = {
            "version": 1,
            "hashfunc": hash_name,
            "n": self.n,
            "split": split,
            "normalize": self.normalize,
            "min_len": self.min_len,
            "min_match": self.min_match,
            "boilerplate": self.boilerplate,
            "boilerplate_after": self.boilerplate_after,
            "extra": self.extra,
            "anchor": self.anchor,
        }
        super().__init__(name, hashdb, options, errors=errors, store_options=store_options)
        self._assigner = self._open_assigner()

    def _open_assigner(self) -> Any:
        """The C version of :meth:`_assign`, when there is one and the store's tables are local dicts."""
        tables = self.store.local_tables()
        if _speedups is None or tables is None:
            return None
        return _speedups.Assigner(
            tables[FP],
            tables[PARENT],
            tables[STAT],
            self.store.allocate_id,
            n=self.n,
            extra=self.extra,
            min_len=self.min_len,
            min_match=self.min_match,
            anchor=self.anchor,
            boilerplate=self.boilerplate,
            boilerplate_after=self.boilerplate_after,
        )

    def get_similar(self, doc: str | bytes) -> int:
        """The cluster id of ``doc``: the id of an earlier near-duplicate, or a new one.

        Raises:
            DocumentTypeError: ``doc`` is not ``str``/``bytes`` (a ``TypeError``).
            DocumentDecodeError: invalid UTF-8 bytes (a ``ValueError``).
        """
        assigner = self._assigner
        if assigner is None or not self._accelerated:
            return super().get_similar(doc)
        if type(doc) is not str:
            doc = coerce_document(doc, self.errors)
        # One C call computes the keys and assigns them, without a Python object
        # per key; None leaves the rare cases (HTML entities only html.unescape
        # knows, no sentence long enough) to the Python path.
        return self.store.transaction(lambda view: assigner(doc) or self._assign(view, self._features(doc)))

    @property
    def cheap_fingerprints(self) -> bool:
        # The C accelerator keys a page in less time than pickling it to a worker
        # and its keys back takes (benchmarks/results/batch_workers.md).
        return self._accelerated

    # -- fingerprints ---------------------------------------------------------------
    def sentences(self, doc: str | bytes) -> list[str]:
        """The normalised sentences that may be fingerprinted, longest first (``n + extra`` at most)."""
        return self._ranked(coerce_document(doc, self.errors))[0]

    def _ranked(self, text: str) -> tuple[list[str], list[int]]:
        chosen, positions = ranked_sentences(text, self.n + self.extra, self.min_len, self.split, self.normalize)
        if chosen:
            return chosen, positions
        whole = whole_text_key(text, self.split, self.normalize)
        # Empty and whitespace-only documents get no key at all, so they can
        # never share a fingerprint with anything.
        return ([_WHOLE_TEXT_PREFIX + whole], [0]) if whole else ([], [])

    def _keys(self, sentences: list[str]) -> list[int]:
        """Two keys per sentence, head then tail (a short sentence is its own head and tail)."""
        try:
            return self._keys_with(self._hash, sentences)
        except UnicodeEncodeError:  # lone surrogates: the slower, surrogate-safe path
            return self._keys_with(self._safe_hash, sentences)

    def _keys_with(self, hash_: HashFunc, sentences: list[str]) -> list[int]:
        anchor = self.anchor
        keys: list[int] = []
        for sentence in sentences:
            if anchor and len(sentence) >= 2 * anchor:
                head, tail = sentence[:anchor], sentence[-anchor:]
            else:
                head = tail = sentence
            keys.append(hash_(head))
            # The mark keeps a tail from ever matching a head, so a key repeated
            # within one document always means a template (see _drop_template_keys).
            keys.append(hash_(_TAIL_MARK + tail))
        return keys

    def _features(self, text: str) -> Features:
        if self._accelerated:
            # The C version of what follows, for the default options (identical output).
            k = self.n + self.extra
            found = _speedups.sentence_keys(text, k, self.min_len, self.anchor, True)
            if found is None:  # HTML that only Python's strip_html handles exactly
                found = _speedups.sentence_keys(strip_html(text), k, self.min_len, self.anchor, False)
            keys, positions, ranked = found  # type: ignore[misc]
            if ranked:
                return Features(keys, positions)
            # No sentence long enough: the whole-text key, in Python, from the
            # original text (stripping HTML twice is not the same as once).
        sentences, positions = self._ranked(text)
        keys = self._keys(sentences)
        if len(set(keys)) < len(keys):
            keys, positions = _drop_template_keys(keys, positions)
        return Features(keys, positions)

    def get_nshash(self, doc: str | bytes) -> list[int]:
        """The fingerprints (unsigned 64-bit ints) of ``doc``'s ``n`` longest sentences.

        Two per sentence: head and tail (for a sentence shorter than
        ``2 * anchor``, the whole sentence both ways).  This ignores what the store knows; :meth:`get_similar`
        skips sentences it has found to be boilerplate and looks further down.

        >>> import nshash
        >>> nshash.NSHash().get_nshash("")
        []
        """
        keys = self._features(coerce_document(doc, self.errors)).keys[: 2 * self.n]
        # A sentence left with one key after template dropping holds it twice.
        return list(dict.fromkeys(keys))

    # -- clustering -------------------------------------------------------------------
    def _assign(self, view: Any, features: Features) -> int:
        if self._assigner is not None and view is self.store:
            return int(self._assigner.assign(features.keys, features.positions))
        return self._assign_python(view, features)

    def _assign_python(self, view: Any, features: Features) -> int:
        """The specification of the assignment; ``_speedups.Assigner`` gives the same ids and tables."""
        keys, positions = features
        if not keys:
            return int(view.allocate_id())
        values = view.get_many(FP, keys)
        if self.boilerplate and BOILERPLATE in values:
            keys, values, positions = _without_boilerplate(keys, values, positions)
        if len(positions) > self.n:
            keys, values, positions = keys[: 2 * self.n], values[: 2 * self.n], positions[: self.n]
        # A sentence matches through its head or, when an edit spoiled that, its tail.
        matches = [head or tail for head, tail in zip(values[0::2], values[1::2])]
        if not any(matches):  # the common case: an article never seen before
            target = int(view.allocate_id())
            view.put_many(FP, [(key, target) for key in keys])
            return target
        roots = find_roots(view, [match for match in matches if match])
        clusters = [roots[match] if match else None for match in matches]
        votes: dict[int, int] = {}
        for cluster in clusters:
            if cluster is not None:
                votes[cluster] = votes.get(cluster, 0) + 1
        need = self.min_match if len(clusters) > self.min_match else 1
        top = max(votes.values())
        span: tuple[int, int] | None = None
        if top >= need:
            best = min(cluster for cluster, count in votes.items() if count == top)
            spots = [pos for cluster, pos in zip(clusters, positions) if cluster == best]
            span = (spots[0], spots[-1]) if len(spots) == 1 else (min(spots), max(spots))
            winners = [best]
            if len(votes) > 1:
                # A cluster matched inside the same stretch of text is the same
                # article (an earlier miss): merge.  One matched only around it
                # shares a header or footer: it gets boilerplate evidence instead.
                winners += [
                    cluster
                    for cluster, count in votes.items()
                    if cluster != best
                    and count >= need
                    and any(c == cluster and span[0] < pos < span[1] for c, pos in zip(clusters, positions))
                ]
            target = merge(view, winners)
        else:
            winners = []
            target = int(view.allocate_id())
        # Keys not stored yet, including the new tail of a sentence matched by its head.
        writes = [(key, target) for key, value in zip(keys, values) if value is None]
        if writes:
            view.put_many(FP, writes)
        if self.boilerplate:
            self._collect_evidence(view, keys, clusters, positions, winners, span)
        return target

    def _collect_evidence(
        self,
        view: Any,
        keys: list[int],
        clusters: list[int | None],
        positions: list[int],
        joined: list[int],
        span: tuple[int, int] | None,
    ) -> None:
        """Count evidence that sentences are boilerplate; mark those with enough.

        Evidence against a matched sentence: it points to a cluster the document
        was not put in and lies outside the stretch of text that matched (a
        header or footer shared with an unrelated article); or the document
        joined its cluster while bringing two or more new sentences, and it
        lies after all of them (a site footer under a new article).
        """
        new_positions = [pos for cluster, pos in zip(clusters, positions) if cluster is None]
        last_new = max(new_positions) if len(new_positions) >= 2 else None
        if last_new is None and all(cluster is None or cluster in joined for cluster in clusters):
            return  # nothing suspicious: the common case for a reprint
        suspects: list[int] = []
        for index, (cluster, pos) in enumerate(zip(clusters, positions)):
            if cluster is None:
                continue
            if cluster in joined:
                if last_new is None or pos <= last_new:
                    continue
            elif span is not None and span[0] <= pos <= span[1]:
                continue
            suspects += keys[2 * index : 2 * index + 2]
        if not suspects:
            return
        counts = view.get_many(STAT, suspects)
        updated = [(key, (count or 0) + 1) for key, count in zip(suspects, counts)]
        view.put_many(STAT, updated)
        marked = [(key, BOILERPLATE) for key, count in updated if count >= self.boilerplate_after]
        if marked:
            view.put_many(FP, marked)

    def explain(self, doc: str | bytes) -> list[dict[str, Any]]:
        """For debugging a surprising id: each candidate sentence, its keys and stored cluster.

        Each entry has ``sentence``, ``position`` (index of the line in the
        document), ``keys`` (head and tail), ``cluster`` (canonical id or
        ``None``), ``boilerplate`` (bool) and ``evidence`` (boilerplate evidence count).
        """
        text = coerce_document(doc, self.errors)
        sentences, all_positions = self._ranked(text)
        features = self._features(text)
        by_position = dict(zip(features.positions, range(len(features.positions))))
        values = self.store.get_many(FP, features.keys)
        evidence = self.store.get_many(STAT, features.keys)
        roots = find_roots(self.store, [value for value in values if value])
        rows = []
        for sentence, position in zip(sentences, all_positions):
            index = by_position.get(position)
            if index is None:  # both keys were page templates
                continue
            pair = features.keys[2 * index : 2 * index + 2]
            found = [values[2 * index + side] for side in (0, 1)]
            match = next((value for value in found if value), None)
            rows.append(
                {
                    "sentence": sentence,
                    "position": position,
                    "keys": list(dict.fromkeys(pair)),
                    "cluster": roots[match] if match else None,
                    "boilerplate": BOILERPLATE in found,
                    "evidence": max(count or 0 for count in evidence[2 * index : 2 * index + 2]),
                }
            )
        return rows


def _without_boilerplate(
    keys: list[int], values: list[int | None], positions: list[int]
) -> tuple[list[int], list[int | None], list[int]]:
    """Drop the sentences with a key marked as boilerplate."""
    keep = [
        index
        for index in range(len(positions))
        if values[2 * index] != BOILERPLATE and values[2 * index + 1] != BOILERPLATE
    ]
    return (
        [keys[2 * index + side] for index in keep for side in (0, 1)],
        [values[2 * index + side] for index in keep for side in (0, 1)],
        [positions[index] for index in keep],
    )


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
