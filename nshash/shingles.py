"""Shingles: near-duplicates as documents sharing most of their runs of ``w`` words.

Broder's shingling ("On the resemblance and containment of documents", 1997):
a canonical text's shingles are its runs of ``w`` consecutive words; two
documents' similarity is ``2 * |common| / (|A| + |B|)`` over their shingle
sets.  Comparing whole sets needs a scan, so each document keeps a fixed
sample of ``num_perm`` min-hashes (84 classically): the share of equal
min-hashes estimates the sets' Jaccard index ``J``, and ``2J / (1 + J)`` the
similarity above.  Candidates come from LSH bands of the sample (a lookup
costs a fixed number of store round trips, :mod:`nshash.buckets`) and are
kept only when their estimated similarity reaches ``threshold``.

The sample is drawn by one-permutation hashing (Li, Owen and Zhang, NIPS
2012): one hash splits the shingles into ``num_perm`` bins and each bin keeps
its minimum, which estimates ``J`` as well as ``num_perm`` separate hash
functions at the cost of one; a bin left empty by a short document borrows
the minimum of another, picked by a fixed probe sequence (Shrivastava's
"optimal densification", ICML 2017).

This is what MinHash LSH libraries index, w-shingles and all, so nshash has
no separate ``MinHash`` class: ``Shingles(num_perm=128)`` is that index.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from nshash.buckets import add_to_buckets, offset_keys, read_buckets
from nshash.clusters import find_roots, merge
from nshash.features import U64Array, features, mix64, mix64_array, require_numpy
from nshash.index import Index
from nshash.match import Match
from nshash.options import ShinglesOptions, choose_bands
from nshash.stores import HashDB
from nshash.stores.view import StoreView
from nshash.text import coerce_document

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

FP: Final = "fp"
SIG: Final = "sig"
# Each signature keeps an 8-bit digest of every min-hash for verification,
# eight to a stored value: b-bit min-hashing (Li and König, WWW 2010).  Unequal
# min-hashes agree by chance once in 256, which the estimate corrects for.
_DIGEST_BITS: Final = 8
_PER_WORD: Final = 64 // _DIGEST_BITS
_CHANCE: Final = 1 / (1 << _DIGEST_BITS)
# Bins an empty bin probes (in a fixed pseudo-random order) for a minimum to borrow.
_PROBES: Final = 16
_EMPTY: Final = 1 << 32
_GOLDEN: Final = 0x9E3779B97F4A7C15


class Signature(NamedTuple):
    """What :class:`Shingles` stores and looks up for one document."""

    entry: int  # 64-bit key of the whole signature
    bands: list[int]  # one bucket key per LSH band
    digests: npt.NDArray[np.uint8]  # an 8-bit digest of each min-hash
    words: list[int]  # the digests packed eight to a stored value


def _splitmix(seed: int, count: int) -> list[int]:
    # SplitMix64: a fixed, documented generator, so the hash functions (and every
    # stored signature) never depend on numpy's random number generators.
    out = []
    state = seed & ((1 << 64) - 1)
    for _ in range(count):
        state = (state + _GOLDEN) & ((1 << 64) - 1)
        out.append(mix64(state))
    return out


def _agreements(digests: npt.NDArray[np.uint8], stored: npt.NDArray[np.uint8]) -> npt.NDArray[np.intp]:
    """How many digests of each row of ``stored`` equal those of ``digests``."""
    return (stored == digests).sum(axis=1)  # type: ignore[no-any-return]


def _similarity(agreements: int, num_perm: int) -> float:
    """The similarity ``2J/(1+J)`` that ``agreements`` equal digests out of ``num_perm`` estimate."""
    # Digests of unequal min-hashes still agree once in 2**bits: take that share out.
    jaccard = max(agreements / num_perm - _CHANCE, 0.0) / (1 - _CHANCE)
    return 2 * jaccard / (1 + jaccard)


class Shingles(Index):
    """Shingles with a min-hash sample: near-duplicates share most of their ``w``-word runs.

    Args:
        name: where the store lives (as for :class:`~nshash.NSHash`); ``None``
            keeps a memory store in memory only.
        hashdb: ``'memory'``, ``'leveldb'``, ``'redis'`` or a :class:`~nshash.HashDB` object.
        w: units (words, or CJK characters) per shingle.
        threshold: smallest similarity ``2|A∩B|/(|A|+|B|)`` of near-duplicates, in (0, 1].
        num_perm: min-hashes per document (84 in the classic algorithm).
        bands: LSH bands (``num_perm // bands`` min-hashes each); by default the
            fewest that find pairs at ``threshold`` with probability 0.8.
        bucket_size: entries an LSH bucket remembers (the oldest are dropped beyond it).
        tokenizer: ``'default'`` or ``'jieba'`` (Chinese words; needs ``nshash[jieba]``).
        seed: picks the hash function that orders the shingles.
        errors: how ``bytes`` documents are decoded (``'strict'`` raises).
        store_options: keyword arguments for the store opened by name.

    Every option but ``errors`` and ``store_options`` is saved with the store;
    reopening it with other values raises :class:`~nshash.OptionsMismatchError`.

    Example:
        >>> import nshash
        >>> sh = nshash.Shingles(w=4)
        >>> story = "the council approved the new budget for schools and roads after a long debate " * 2
        >>> a = sh.get_similar("City news. " + story)
        >>> b = sh.get_similar(story + "Share this article.")
        >>> a == b, round(sh.similarity("City news. " + story, story + "Share this article."), 2)
        (True, 0.85)
    """

    algorithm = "shingles"
    option_names = ShinglesOptions.names()
    opts: ShinglesOptions
    fingerprinter: ShinglesFingerprinter

    def __init__(
        self,
        name: str | os.PathLike[str] | None = None,
        hashdb: str | HashDB = "memory",
        *,
        w: int = 5,
        threshold: float = 0.7,
        num_perm: int = 84,
        bands: int | None = None,
        bucket_size: int = 8,
        tokenizer: str = "default",
        seed: int = 1,
        errors: str = "strict",
        store_options: dict[str, Any] | None = None,
        removable: bool = False,
    ) -> None:
        self.opts = ShinglesOptions(w, threshold, num_perm, bands, bucket_size, tokenizer, seed)
        self.fingerprinter = ShinglesFingerprinter(self.opts)
        self.w, self.threshold, self.num_perm = self.opts.w, self.opts.threshold, self.opts.num_perm
        self.bands, self.rows = int(self.opts.bands or 0), self.opts.rows
        self.bucket_size, self.tokenizer, self.seed = self.opts.bucket_size, self.opts.tokenizer, self.opts.seed
        self._words = self.fingerprinter.words
        # Verification counts equal digests: the fewest whose estimate reaches the threshold.
        self._needed = next(
            count for count in range(self.num_perm + 1) if _similarity(count, self.num_perm) >= self.threshold
        )
        require_numpy()
        super().__init__(
            name, hashdb, self.opts.stored(), errors=errors, store_options=store_options, removable=removable
        )

    # -- shingles and similarity --------------------------------------------------
    def shingles(self, doc: str | bytes) -> set[int]:
        """The set of 64-bit hashes of ``doc``'s shingles (one shingle of everything when shorter than ``w``).

        >>> import nshash
        >>> len(nshash.Shingles(w=2).shingles("a b c a b"))
        3
        """
        return set(self._shingle_hashes(coerce_document(doc, self.errors)).tolist())

    def _shingle_hashes(self, text: str) -> U64Array:
        return features(text, self.w, self.tokenizer)

    def similarity(self, a: str | bytes, b: str | bytes) -> float:
        """Exact similarity ``2 * |common| / (|A| + |B|)`` of the two documents' shingle sets.

        Two documents without words are alike (1.0); one without words is like nothing (0.0).

        >>> import nshash
        >>> round(nshash.Shingles(w=2).similarity("a b c d", "a b c e"), 3)
        0.667
        """
        first, second = self.shingles(a), self.shingles(b)
        if not first and not second:
            return 1.0
        return 2 * len(first & second) / (len(first) + len(second))

    def estimate(self, a: str | bytes, b: str | bytes) -> float:
        """:meth:`similarity` as the index sees it: estimated from the two documents' min-hashes.

        >>> import nshash
        >>> sh = nshash.Shingles(w=2)
        >>> sh.estimate("a b c d", "a b c d"), sh.estimate("a b c d", "x y z")
        (1.0, 0.0)
        """
        first = self._features(coerce_document(a, self.errors))
        second = self._features(coerce_document(b, self.errors))
        if first is None or second is None:
            return 1.0 if first is second else 0.0
        return _similarity(int(_agreements(first.digests, second.digests[None, :])[0]), self.num_perm)

    def signature(self, doc: str | bytes) -> list[int]:
        """The ``num_perm`` min-hashes of ``doc`` (unsigned 32-bit ints), empty when it has no words."""
        minimum = self.fingerprinter.minhashes(self._shingle_hashes(coerce_document(doc, self.errors)))
        return [] if minimum is None else minimum.tolist()

    def _features(self, text: str) -> Signature | None:
        return self.fingerprinter.features(text)

    def _agreements(self, view: StoreView, signature: Signature, candidates: list[int]) -> list[int]:
        """Equal digests between ``signature`` and each candidate's stored signature."""
        import numpy as np

        values = view.get_many(SIG, offset_keys(candidates, self._words))
        raw = np.array([value or 0 for value in values], dtype="<i8")
        stored = raw.view(np.uint8).reshape(len(candidates), -1)[:, : self.num_perm]
        return _agreements(signature.digests, stored).tolist()  # type: ignore[no-any-return]

    def _decide(self, view: StoreView, signature: Signature | None) -> Match:
        if signature is None:
            return Match(int(view.allocate_id()), True, 0.0, ())
        counts, candidates = read_buckets(view, signature.bands, self.bucket_size)
        candidates = [candidate for candidate in candidates if candidate != signature.entry]
        matched, scores = [], []
        if candidates:
            agreements = self._agreements(view, signature, candidates)
            for candidate, count in zip(candidates, agreements):
                if count >= self._needed:
                    matched.append(candidate)
                    scores.append(count / self.num_perm)
        # The document's own signature may be stored already (an exact copy).
        matched.append(signature.entry)
        scores.append(1.0)
        ids = view.get_many(FP, matched)
        found = [value for value in ids if value]
        if found:
            roots = find_roots(view, found)
            score = max(score for score, value in zip(scores, ids) if value)
            match = Match(merge(view, roots.values()), False, score, tuple(sorted(set(roots.values()))))
        else:
            match = Match(int(view.allocate_id()), True, 0.0, ())
        if ids[-1] is None:
            view.put_many(FP, [(signature.entry, match.similar_id)])
            view.put_many(SIG, zip(offset_keys([signature.entry], self._words), signature.words))
            add_to_buckets(view, signature.bands, counts, signature.entry, self.bucket_size)
        return match


class ShinglesFingerprinter:
    """Options in, a document's :class:`Signature` out: pure and picklable (worker processes use it)."""

    def __init__(self, options: ShinglesOptions) -> None:
        import numpy as np

        self.options = options
        randoms = _splitmix(options.seed, 1 + options.num_perm * _PROBES)
        self._salt = np.uint64(randoms[0])
        probes = np.array(randoms[1:], dtype=np.uint64) % np.uint64(options.num_perm)
        self._probes = probes.astype(np.intp).reshape(-1, _PROBES)
        #: Stored values a signature's digests take, eight to a value.
        self.words = -(-options.num_perm // _PER_WORD)
        self._positions = np.arange(options.num_perm, dtype=np.uint64) * np.uint64(_GOLDEN)

    def minhashes(self, hashes: U64Array) -> U64Array | None:
        """The minimum of each of the ``num_perm`` bins (32-bit values), or ``None`` for no shingles."""
        import numpy as np

        if not len(hashes):
            return None
        # Shingle hashes are already mixed: XOR with the seed's salt reorders them
        # (a different min-hash per seed) at the cost of one pass.
        mixed = hashes ^ self._salt
        # The high half of a hash picks its bin, the low half is its value.
        bins = ((mixed >> np.uint64(32)) * np.uint64(self.options.num_perm)) >> np.uint64(32)
        minimum = np.full(self.options.num_perm, _EMPTY, dtype=np.uint64)
        np.minimum.at(minimum, bins, mixed & np.uint64(_EMPTY - 1))
        empty = np.flatnonzero(minimum == _EMPTY)
        if len(empty):
            self._densify(minimum, empty)
        return minimum

    def _densify(self, minimum: U64Array, empty: npt.NDArray[np.intp]) -> None:
        """Fill each empty bin with the minimum of the first filled bin along its probe sequence."""
        import numpy as np

        probes = self._probes[empty]
        filled = minimum[probes] != _EMPTY
        first = filled.argmax(axis=1)
        rows = np.arange(len(empty))
        found = filled[rows, first]
        source = probes[rows, first]
        lost = empty[~found]
        if len(lost):
            # Almost every bin is empty (a document of a few shingles): fall
            # back to the next filled bin to the right, wrapping around.
            filled_bins = np.flatnonzero(minimum != _EMPTY)
            after = np.searchsorted(filled_bins, lost) % len(filled_bins)
            source[~found] = filled_bins[after]
        minimum[empty] = minimum[source]

    def features(self, text: str) -> Signature | None:
        """The signature of a decoded text, or ``None`` when it has no shingles."""
        import numpy as np

        minimum = self.minhashes(features(text, self.options.w, self.options.tokenizer))
        if minimum is None:
            return None
        mixed = mix64_array(minimum ^ self._positions)
        entry = int(np.bitwise_xor.reduce(mixed))
        # A band's key combines its rows' mixed min-hashes (mixed with their
        # positions, so the band's number and the order count): already random bits.
        bands = int(self.options.bands or 0)
        rows = mixed[: bands * self.options.rows].reshape(bands, self.options.rows)
        band_keys = np.bitwise_xor.reduce(rows, axis=1)
        digests = (mixed >> np.uint64(64 - _DIGEST_BITS)).astype(np.uint8)
        padded = np.zeros(self.words * _PER_WORD, dtype=np.uint8)
        padded[: self.options.num_perm] = digests
        # Read as signed 64-bit: the form a store keeps (see nshash.buckets.to_value).
        words = padded.view("<i8").tolist()
        return Signature(entry, band_keys.tolist(), digests, words)


__all__ = ["Shingles", "Signature", "choose_bands"]
