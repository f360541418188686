"""SimHash: near-duplicates as 64-bit fingerprints within a small Hamming distance.

Charikar's fingerprint as Google used it for web pages (Manku, Jain and Das
Sarma, "Detecting near-duplicates for web crawling", WWW 2007): every feature
of a document votes on each of the 64 bits with its weight; documents whose
fingerprints differ in at most ``k`` bits are near-duplicates.

Finding the stored fingerprints within distance ``k`` without a scan uses the
paper's block tables: cut the 64 bits into ``blocks`` > ``k`` blocks; two
fingerprints within distance ``k`` agree exactly on at least ``blocks - k`` of
them, so one bucket per choice of ``blocks - k`` blocks, keyed by those bits,
finds every candidate.  The buckets live in the index's own store
(:mod:`nshash.buckets`), so a lookup costs a fixed number of store round trips.
"""

from __future__ import annotations

import base64
import hashlib
import math
import os
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from itertools import combinations
from typing import TYPE_CHECKING, Any, Final, Union

from nshash.buckets import add_to_buckets, read_buckets
from nshash.clusters import find_roots, merge
from nshash.errors import ArgumentError, ArgumentTypeError, OptionError, OptionsMismatchError, StoreCorruptError
from nshash.features import U64Array, features, mix64, require_numpy
from nshash.index import Index
from nshash.match import Match
from nshash.options import IDF_DIGEST_PREFIX, SIMHASH_BITS, SimHashOptions, check_idf_weights
from nshash.stores import HashDB
from nshash.stores.view import StoreView
from nshash.text import coerce_document

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

FP: Final = "fp"
BITS: Final = SIMHASH_BITS
# idf weights are kept as integers (idf * 16, rounded) so that a fingerprint is
# computed in exact integer arithmetic: the same bits on every platform.
_IDF_SCALE: Final = 16
# Metadata key of the tf-idf table, so a reopened index needs no sample again.
_IDF_META: Final = "simhash.idf"

IdfSource = Union[Mapping[int, float], Iterable[str]]


def hamming_distance(a: int, b: int) -> int:
    """Number of bits in which two fingerprints differ.

    >>> hamming_distance(0b1011, 0b0001)
    2
    """
    return bin(a ^ b).count("1")


def block_masks(blocks: int, k: int) -> list[int]:
    """The bit masks of the candidate tables: each covers ``blocks - k`` of ``blocks`` near-equal blocks.

    >>> [hex(mask) for mask in block_masks(4, 3)]
    ['0xffff', '0xffff0000', '0xffff00000000', '0xffff000000000000']
    """
    sizes = [BITS // blocks + (1 if index < BITS % blocks else 0) for index in range(blocks)]
    block_bits = []
    start = 0
    for size in sizes:
        block_bits.append(((1 << size) - 1) << start)
        start += size
    return [sum(block_bits[index] for index in chosen) for chosen in combinations(range(blocks), blocks - k)]


class SimHash(Index):
    """64-bit SimHash fingerprints; documents within Hamming distance ``k`` are near-duplicates.

    A document's features are, by default, the runs of 3 characters inside
    its words (a Chinese or Japanese character is a feature of its own), each
    weighing as often as it occurs: on the benchmark corpus this beat words
    and word n-grams in both languages (``benchmarks/results/algorithms.md``).
    A document joins the cluster of every stored fingerprint within distance
    ``k``; clusters found together merge.

    Args:
        name: where the store lives (as for :class:`~nshash.NSHash`); ``None``
            keeps a memory store in memory only.
        hashdb: ``'memory'``, ``'leveldb'``, ``'redis'`` or a :class:`~nshash.HashDB` object.
        k: largest Hamming distance between near-duplicates (3 in the paper).
        features: ``'chars'`` (runs of ``ngram`` characters inside words) or
            ``'words'`` (runs of ``ngram`` words; a CJK character is a word).
        ngram: characters or words per feature.
        tokenizer: ``'default'`` or ``'jieba'`` (Chinese words; needs ``nshash[jieba]``).
        weights: ``'tf'`` (occurrences), ``'logtf'`` (1 + log of them), ``'binary'``
            (present or not) or ``'tfidf'`` (occurrences times inverse document frequency).
        idf: for ``'tfidf'``: sample texts to learn document frequencies from, or
            a table (:attr:`idf` of another index).  The table is kept in the
            store, so reopening the index needs no ``idf``.
        blocks: how many blocks the 64 bits are cut into (``k + 1`` by default);
            ``k + 2`` keeps buckets small beyond a few million documents, at the
            cost of C(blocks, k) buckets per document instead of ``k + 1``.
        bucket_size: entries a bucket remembers (the oldest are dropped beyond it).
        errors: how ``bytes`` documents are decoded (``'strict'`` raises).
        store_options: keyword arguments for the store opened by name.

    Every option but ``errors`` and ``store_options`` is saved with the store
    (``idf`` as a digest, beside the table); reopening it with other values raises
    :class:`~nshash.OptionsMismatchError`.

    Example:
        >>> import nshash
        >>> sh = nshash.SimHash()
        >>> text = "The quick brown fox jumps over the lazy dog near the river bank. " * 3
        >>> a = sh.get_similar(text + "Reported by Alice.")
        >>> b = sh.get_similar(text + "Reported by Bob.")
        >>> c = sh.get_similar("An entirely different story about markets, rates and the central bank.")
        >>> (a == b, a == c)
        (True, False)
    """

    algorithm = "simhash"
    option_names = SimHashOptions.names()
    opts: SimHashOptions
    fingerprinter: SimHashFingerprinter

    def __init__(
        self,
        name: str | os.PathLike[str] | None = None,
        hashdb: str | HashDB = "memory",
        k: int = 3,
        *,
        features: str = "chars",
        ngram: int = 3,
        tokenizer: str = "default",
        weights: str = "tf",
        idf: IdfSource | None = None,
        blocks: int | None = None,
        bucket_size: int = 64,
        errors: str = "strict",
        store_options: dict[str, Any] | None = None,
        removable: bool = False,
    ) -> None:
        table: _IdfTable | None = None
        digest: str | None = None
        if isinstance(idf, str):
            if not idf.startswith(IDF_DIGEST_PREFIX):
                raise ArgumentTypeError("idf must be sample texts (a list of str), a table, or a stored table's digest")
            digest = idf
        self.opts = SimHashOptions(k, blocks, bucket_size, features, ngram, tokenizer, weights, digest)
        if idf is not None and digest is None:
            check_idf_weights(self.opts.weights)
            table = _IdfTable.build(idf, partial(_hashes, self.opts))
            self.opts = self.opts.replace(idf=table.digest)
        # Without a table, a tf-idf index takes the one its store keeps: checked when it is opened.
        self._needs_stored_idf = weights == "tfidf" and table is None
        self.fingerprinter = SimHashFingerprinter(self.opts, table)
        self.k, self.blocks = self.opts.k, int(self.opts.blocks or 0)
        self.bucket_size, self.features, self.ngram = self.opts.bucket_size, self.opts.features, self.opts.ngram
        self.tokenizer, self.weights = self.opts.tokenizer, self.opts.weights
        self._masks = block_masks(self.blocks, self.k)
        self._salts = [mix64(table + 1) for table in range(len(self._masks))]
        require_numpy()
        super().__init__(
            name, hashdb, self.opts.stored(), errors=errors, store_options=store_options, removable=removable
        )

    def _check_options(self, view: StoreView) -> None:
        """Load a tf-idf table kept in the store, or keep the given one there; then check the options."""
        raw = view.get_meta(_IDF_META)
        if self._needs_stored_idf:
            if raw is None:
                raise OptionError(
                    "weights='tfidf' needs idf= (sample texts, or the .idf of an earlier index) "
                    f"for a new index; {self.store.describe()} keeps no idf table"
                )
            kept = _IdfTable.decode(raw)
            if self.opts.idf and self.opts.idf != kept.digest:
                raise OptionsMismatchError(
                    f"{self.store.describe()} keeps the idf table {kept.digest}, not {self.opts.idf}"
                )
            self.opts = self.opts.replace(idf=kept.digest)
            self.fingerprinter = SimHashFingerprinter(self.opts, kept)
            self.options["idf"] = kept.digest
        super()._check_options(view)
        if self.fingerprinter.idf is not None and raw is None:
            view.set_meta(_IDF_META, self.fingerprinter.idf.encode())

    # -- fingerprints ---------------------------------------------------------------
    @property
    def idf(self) -> dict[int, float] | None:
        """The idf table in use (feature hash -> weight), e.g. for ``idf=`` of another index."""
        table = self.fingerprinter.idf
        return None if table is None else table.as_dict()

    def fingerprint(self, doc: str | bytes) -> int | None:
        """The 64-bit SimHash of ``doc``, or ``None`` when it has no words at all.

        >>> import nshash
        >>> nshash.SimHash().fingerprint("Hello world, this is a test")
        9837433974326299857
        """
        return self._features(coerce_document(doc, self.errors))

    def _features(self, text: str) -> int | None:
        return self.fingerprinter.features(text)

    distance = staticmethod(hamming_distance)

    # -- index ----------------------------------------------------------------------
    def _bucket_keys(self, fingerprint: int) -> list[int]:
        # The table's number goes into the hash, so equal bits of two tables never share a bucket.
        return [mix64((fingerprint & mask) ^ salt) for mask, salt in zip(self._masks, self._salts)]

    def _near(self, view: StoreView, fingerprint: int) -> tuple[list[int], list[int], list[int]]:
        """Bucket keys, their counters, and the stored fingerprints within ``k`` of ``fingerprint``."""
        keys = self._bucket_keys(fingerprint)
        counts, entries = read_buckets(view, keys, self.bucket_size)
        near = [entry for entry in entries if hamming_distance(entry, fingerprint) <= self.k]
        return keys, counts, near

    def near(self, fingerprint: int) -> list[int]:
        """The stored fingerprints within distance ``k`` of ``fingerprint``, ascending.

        >>> import nshash
        >>> sh = nshash.SimHash(k=3)
        >>> _ = sh.get_similar_fingerprint(0b1111)
        >>> sh.near(0b0001), sh.near(0)
        ([15], [])
        """
        fingerprint = _check_fingerprint(fingerprint)
        return sorted(self.store.transaction(lambda view: self._near(view, fingerprint)[2]))

    def get_similar_fingerprint(self, fingerprint: int) -> int:
        """:meth:`get_similar` for a fingerprint computed earlier (by :meth:`fingerprint`)."""
        fingerprint = _check_fingerprint(fingerprint)
        return self.store.transaction(lambda view: self._assign(view, fingerprint))

    def _decide(self, view: StoreView, fingerprint: int | None) -> Match:
        if fingerprint is None:
            # Nothing to compare: a document without words is its own cluster.
            return Match(int(view.allocate_id()), True, 0.0, ())
        keys, counts, near = self._near(view, fingerprint)
        if fingerprint not in near:
            # It may be stored but pushed out of full buckets; the fp table knows.
            near.append(fingerprint)
        ids = view.get_many(FP, near)
        found = [value for value in ids if value]
        if found:
            roots = find_roots(view, found)
            target = merge(view, roots.values())
            closest = min(hamming_distance(entry, fingerprint) for entry, value in zip(near, ids) if value)
            match = Match(target, False, 1.0 - closest / BITS, tuple(sorted(set(roots.values()))))
        else:
            match = Match(int(view.allocate_id()), True, 0.0, ())
        if ids[near.index(fingerprint)] is None:
            view.put_many(FP, [(fingerprint, match.similar_id)])
            add_to_buckets(view, keys, counts, fingerprint, self.bucket_size)
        return match


class SimHashFingerprinter:
    """Options (and idf table) in, a document's fingerprint out: pure and picklable (worker processes use it)."""

    def __init__(self, options: SimHashOptions, idf: _IdfTable | None = None) -> None:
        self.options = options
        self.idf = idf

    def features(self, text: str) -> int | None:
        """The 64-bit SimHash of a decoded text, or ``None`` when it has no features."""
        import numpy as np

        hashes = _hashes(self.options, text)
        if not len(hashes):
            return None
        unique, counts = np.unique(hashes, return_counts=True)
        if self.options.weights == "binary":
            weight = np.ones(len(counts), dtype=np.int64)
        elif self.options.weights == "logtf":
            weight = np.rint((1 + np.log(counts)) * _IDF_SCALE).astype(np.int64)
        else:
            weight = counts.astype(np.int64)
        if self.idf is not None:
            weight *= self.idf.lookup(unique)
        # Row i holds the 64 bits of feature i, least significant first.
        bits = np.unpackbits(unique.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
        # Bit j is set when the features having it outweigh those lacking it.
        # A float product runs on BLAS, 3x faster than numpy's integer one, and
        # is exact: every partial sum is an integer below 2**53 (a document
        # would need ~10**13 characters to reach it), so the order of additions
        # cannot change a bit.
        ones = weight.astype(np.float64) @ bits.astype(np.float64)
        chosen = ones * 2 > int(weight.sum())
        return int.from_bytes(np.packbits(chosen, bitorder="little").tobytes(), "little")


def _hashes(options: SimHashOptions, text: str) -> U64Array:
    return features(text, options.ngram, options.tokenizer, options.features)


def _check_fingerprint(fingerprint: object) -> int:
    if isinstance(fingerprint, bool) or not isinstance(fingerprint, int):
        raise ArgumentTypeError(f"a fingerprint must be an int, not {type(fingerprint).__name__}")
    if not 0 <= fingerprint < 1 << BITS:
        raise ArgumentError(f"a fingerprint is an unsigned 64-bit int, got {fingerprint}")
    return fingerprint


class _IdfTable:
    """Inverse document frequencies of features, as sorted arrays for vectorised lookups."""

    def __init__(self, keys: npt.NDArray[np.uint64], weights: npt.NDArray[np.int64]) -> None:
        self.keys = keys
        self.weights = weights
        # A feature the sample never saw weighs as its rarest one; taking it from
        # the table (not the sample size) lets a saved table rebuild the same index.
        self.unseen = int(weights.max())
        digest = hashlib.sha256(keys.astype("<u8").tobytes() + weights.astype("<i8").tobytes())
        self.digest = f"{IDF_DIGEST_PREFIX}{digest.hexdigest()[:32]}"

    @classmethod
    def build(cls, source: IdfSource, hashes: Callable[[str], U64Array]) -> _IdfTable:
        import numpy as np

        if isinstance(source, bytes):
            raise ArgumentTypeError("idf must be sample texts (a list of str) or a table, not bytes")
        if isinstance(source, Mapping):
            items = sorted((int(key), float(value)) for key, value in source.items())
        else:
            frequency: dict[int, int] = {}
            documents = 0
            for doc in source:
                documents += 1
                for key in np.unique(hashes(coerce_document(doc))).tolist():
                    frequency[key] = frequency.get(key, 0) + 1
            if not documents:
                raise OptionError("idf needs at least one sample text")
            # Smoothed idf >= 1, so a feature seen everywhere still counts a little.
            items = sorted((key, _smooth_idf(documents, count)) for key, count in frequency.items())
        if not items:
            raise OptionError("idf is empty: the sample texts have no words")
        if any(not math.isfinite(value) or value <= 0 for _, value in items):
            raise OptionError("idf weights must be finite and > 0")
        keys = np.array([key for key, _ in items], dtype=np.uint64)
        weights = np.array([_quantise(value) for _, value in items], dtype=np.int64)
        return cls(keys, weights)

    def lookup(self, unique: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
        import numpy as np

        index = np.searchsorted(self.keys, unique)
        clipped = np.minimum(index, len(self.keys) - 1)
        known = self.keys[clipped] == unique
        return np.where(known, self.weights[clipped], self.unseen)

    def encode(self) -> str:
        """The table as one string for the store's metadata."""
        return base64.b64encode(self.keys.astype("<u8").tobytes() + self.weights.astype("<i8").tobytes()).decode()

    @classmethod
    def decode(cls, raw: str) -> _IdfTable:
        """The table :meth:`encode` wrote."""
        import numpy as np

        try:
            data = base64.b64decode(raw.encode(), validate=True)
        except ValueError as exc:
            raise StoreCorruptError(f"the stored idf table is unreadable: {exc}") from exc
        if not data or len(data) % 16:
            raise StoreCorruptError(f"the stored idf table has {len(data)} bytes, not a multiple of 16")
        half = len(data) // 2
        keys = np.frombuffer(data[:half], dtype="<u8").astype(np.uint64)
        weights = np.frombuffer(data[half:], dtype="<i8").astype(np.int64)
        return cls(keys, weights)

    def as_dict(self) -> dict[int, float]:
        return {int(key): int(weight) / _IDF_SCALE for key, weight in zip(self.keys.tolist(), self.weights.tolist())}


def _smooth_idf(documents: int, frequency: int) -> float:
    return math.log((documents + 1) / (frequency + 1)) + 1.0


def _quantise(value: float) -> int:
    return max(1, round(value * _IDF_SCALE))


__all__ = ["SimHash", "block_masks", "hamming_distance"]
