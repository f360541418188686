"""Every algorithm's options: one place for their names, defaults, bounds and stored form.

:class:`Options` (NSHash), :class:`SimHashOptions` and :class:`ShinglesOptions`
are frozen and check themselves on creation.  The indexes, batch, Dask, the
worker pool, :func:`nshash.open` and the CLI all build one of them; nothing
else repeats a name, a default or a bound.  Every option that changes keys or
decisions is stored with the data (``stored()``), so an index reopened with
other options is refused instead of quietly producing ids that never match.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, ClassVar, Final, TypeVar

from nshash.errors import OptionError, UnknownOptionError
from nshash.features import FEATURES, check_tokenizer
from nshash.hashing import HashFunc, resolve_hashfunc
from nshash.text import ORIGINAL_MIN_LEN, SPLITS

#: Bumped whenever the keys or the decision rule change: an index built with
#: another version cannot be continued and must be rebuilt.
OPTIONS_VERSION: Final = 4

# (minimum, maximum) of each integer option.  The maxima keep every buffer the
# C accelerator sizes from an option small, and are far above useful values.
_INT_BOUNDS: Final = {
    "n": (1, 64),
    "extra": (0, 64),
    "min_len": (1, 10_000),
    "min_match": (1, 64),
    "anchor": (0, 1_000),
    "anchor_latin": (0, 1_000),
    "boilerplate_after": (1, 1_000_000),
    "members": (1, 4),
}
# (exclusive minimum, maximum) of the float options.
_FLOAT_BOUNDS: Final = {"verify": (0.0, 1.0), "verify_voted": (0.0, 1.0)}


def check_int(name: str, value: object, low: int, high: int) -> int:
    """An integer option, checked at the boundary (never an assert).

    >>> check_int("n", 70, 1, 64)
    Traceback (most recent call last):
    ...
    nshash.errors.OptionError: n must be an int from 1 to 64, not 70
    """
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OptionError(f"{name} must be an int from {low} to {high}, not {value!r}")
    return value


def positive_int(name: str, value: object, minimum: int = 1) -> int:
    """An integer option or setting with no upper bound (``k``, ``workers``, ...), checked at the boundary.

    >>> positive_int("workers", 0)
    Traceback (most recent call last):
    ...
    nshash.errors.OptionError: workers must be an int >= 1, not 0
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise OptionError(f"{name} must be an int >= {minimum}, not {value!r}")
    return value


def check_number(name: str, value: object, lowest: float, highest: float) -> float:
    """A number option in ``(lowest, highest]``, as a float.

    >>> check_number("threshold", 0, 0.0, 1.0)
    Traceback (most recent call last):
    ...
    nshash.errors.OptionError: threshold must be a number in (0, 1], not 0
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lowest < value <= highest:
        raise OptionError(f"{name} must be a number in ({lowest:g}, {highest:g}], not {value!r}")
    return float(value)


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """A str option that must be one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise OptionError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


#: Recorded with an index beside its options, but not options themselves.
RECORDED_ONLY: Final = ("algorithm", "version")

OptionsT = TypeVar("OptionsT", bound="StoredOptions")


class StoredOptions:
    """What every algorithm's options object shares: its names and the form saved with an index.

    Subclasses are frozen dataclasses that validate themselves in ``__post_init__``.
    """

    #: The algorithm's name, as recorded in a store (see :data:`nshash.algorithms.ALGORITHMS`).
    algorithm: ClassVar[str]
    #: Bumped whenever the keys or decisions of the algorithm change: an index
    #: built with another version cannot be continued and must be rebuilt.
    version: ClassVar[int]

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The option names, in order."""
        return tuple(field.name for field in dataclasses.fields(cls))  # type: ignore[arg-type]

    @classmethod
    def check_names(cls, given: Mapping[str, Any]) -> None:
        """Refuse a name that is not one of :meth:`names`.

        Raises:
            UnknownOptionError: with the names there are (a ``TypeError``).
        """
        unknown = sorted(set(given) - set(cls.names()))
        if unknown:
            raise UnknownOptionError(
                f"unknown option(s) {', '.join(unknown)} for {cls.algorithm}; options are {', '.join(cls.names())}"
            )

    def stored(self) -> dict[str, Any]:
        """The form saved with an index: every field, the algorithm and the version."""
        return {"algorithm": self.algorithm, "version": self.version, **dataclasses.asdict(self)}  # type: ignore[call-overload]

    @classmethod
    def from_stored(cls: type[OptionsT], stored: Mapping[str, Any]) -> OptionsT:
        """The options an index was built with, from :meth:`stored`'s form."""
        return cls(**{key: value for key, value in stored.items() if key not in RECORDED_ONLY})

    def replace(self: OptionsT, **changes: Any) -> OptionsT:
        """A copy with some options changed (validated again)."""
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


@dataclasses.dataclass(frozen=True)
class Options(StoredOptions):
    """NSHash's options (see :class:`nshash.NSHash` for what each does).

    Frozen and validated on creation; :meth:`stored` is the form saved with an index.

    >>> Options(n=3).n
    3
    >>> Options(verify=0)
    Traceback (most recent call last):
    ...
    nshash.errors.OptionError: verify must be a number in (0, 1], not 0
    """

    hashfunc: str = "farmhash"
    n: int = 5
    split: str = "default"
    normalize: bool = True
    min_len: int = 8
    min_match: int = 1
    extra: int = 6
    anchor: int = 12
    anchor_latin: int = 20
    fold: bool = True
    chrome: bool = True
    verify: float = 0.7
    verify_voted: float = 0.5
    members: int = 3
    boilerplate: bool = True
    boilerplate_after: int = 2

    algorithm: ClassVar[str] = "nshash"
    version: ClassVar[int] = OPTIONS_VERSION

    def __post_init__(self) -> None:
        if not isinstance(self.hashfunc, str):
            raise OptionError(f"hashfunc must be a name here, not {type(self.hashfunc).__name__}")
        if self.split not in SPLITS:
            raise OptionError(f"split must be one of {', '.join(SPLITS)}, not {self.split!r}")
        for name, (low, high) in _INT_BOUNDS.items():
            check_int(name, getattr(self, name), low, high)
        for name, (lowest, highest) in _FLOAT_BOUNDS.items():
            object.__setattr__(self, name, check_number(name, getattr(self, name), lowest, highest))
        for name in ("normalize", "fold", "chrome", "boilerplate"):
            object.__setattr__(self, name, bool(getattr(self, name)))

    @classmethod
    def build(cls, hashfunc: str | HashFunc = "farmhash", **given: Any) -> tuple[Options, HashFunc]:
        """Options from keyword arguments as users give them, and the hash function.

        ``min_len=None`` means the split's default; unknown names are an error.

        >>> Options.build(n=3, min_len=None)[0].min_len
        8
        """
        cls.check_names(given)
        if given.get("min_len") is None:
            given["min_len"] = ORIGINAL_MIN_LEN if given.get("split") == "original" else 8
        name, func = resolve_hashfunc(hashfunc)
        return cls(hashfunc=name, **given), func


#: The option names, in order (what the CLI's ``-O`` and :func:`nshash.similar_ids` accept).
OPTION_NAMES: Final = Options.names()

# -- SimHash ---------------------------------------------------------------------------

#: Bits of a SimHash fingerprint.
SIMHASH_BITS: Final = 64
#: How a feature weighs in a SimHash fingerprint.
WEIGHTS: Final = ("tf", "binary", "logtf", "tfidf")
#: The prefix of a SimHash idf table's digest (the form ``idf`` takes in options).
IDF_DIGEST_PREFIX: Final = "sha256:"
# A fingerprint is looked up in C(blocks, k) buckets; more than this is a
# misconfiguration, not a speed trade-off.
_MAX_TABLES: Final = 256


def check_idf_weights(weights: str) -> None:
    """Refuse an idf table for weights that do not use one."""
    if weights != "tfidf":
        raise OptionError("idf= is used only with weights='tfidf'")


@dataclasses.dataclass(frozen=True)
class SimHashOptions(StoredOptions):
    """:class:`~nshash.SimHash`'s options (see there for what each does).

    ``blocks=None`` means ``k + 1``; ``idf`` is the digest of a tf-idf table
    (``None``: no table, or, with ``weights='tfidf'``, the one the store keeps).

    >>> SimHashOptions(k=4).blocks
    5
    >>> SimHashOptions(k=40)
    Traceback (most recent call last):
    ...
    nshash.errors.OptionError: k must be < 32 (fingerprints further apart are unrelated), not 40
    """

    k: int = 3
    blocks: int | None = None
    bucket_size: int = 64
    features: str = "chars"
    ngram: int = 3
    tokenizer: str = "default"
    weights: str = "tf"
    idf: str | None = None

    algorithm: ClassVar[str] = "simhash"
    version: ClassVar[int] = 1

    def __post_init__(self) -> None:
        k = positive_int("k", self.k, minimum=0)
        if k >= SIMHASH_BITS // 2:
            raise OptionError(f"k must be < {SIMHASH_BITS // 2} (fingerprints further apart are unrelated), not {k}")
        blocks = positive_int("blocks", k + 1 if self.blocks is None else self.blocks, minimum=k + 1)
        if blocks > SIMHASH_BITS:
            raise OptionError(f"blocks must be <= {SIMHASH_BITS}, not {blocks}")
        tables = math.comb(blocks, k)
        if tables > _MAX_TABLES:
            raise OptionError(
                f"blocks={blocks} with k={k} needs {tables} bucket lookups per document; "
                f"choose blocks so that C(blocks, k) <= {_MAX_TABLES} (blocks=k+1 or k+2)"
            )
        object.__setattr__(self, "blocks", blocks)
        check_choice("features", self.features, FEATURES)
        positive_int("ngram", self.ngram)
        check_tokenizer(self.tokenizer)
        positive_int("bucket_size", self.bucket_size)
        check_choice("weights", self.weights, WEIGHTS)
        if self.idf is not None:
            check_idf_weights(self.weights)
            if not isinstance(self.idf, str) or not self.idf.startswith(IDF_DIGEST_PREFIX):
                raise OptionError(f"idf must be an idf table's digest ({IDF_DIGEST_PREFIX}...) here, not {self.idf!r}")


# -- Shingles --------------------------------------------------------------------------

# Chance that a pair exactly at the threshold becomes a candidate (the bands
# are chosen for it); pairs above it are found far more often (at similarity
# 0.8, 21 bands of 4 rows find 99%).  A target of 0.95 took a third more bands
# and candidates to verify for the same F1 on the benchmark corpus.
_CANDIDATE_TARGET: Final = 0.8


def choose_bands(num_perm: int, threshold: float) -> int:
    """The number of LSH bands: the most rows per band that still find pairs at ``threshold``.

    ``threshold`` is a similarity ``2J/(1+J)``; a pair with that similarity
    becomes a candidate with probability >= 0.8.

    >>> choose_bands(84, 0.7), choose_bands(84, 0.5)
    (21, 42)
    """
    jaccard = threshold / (2 - threshold)
    for rows in range(num_perm, 0, -1):
        bands = num_perm // rows
        if 1 - (1 - jaccard**rows) ** bands >= _CANDIDATE_TARGET:
            return bands
    return num_perm  # pragma: no cover - rows=1 always qualifies for threshold > 0


@dataclasses.dataclass(frozen=True)
class ShinglesOptions(StoredOptions):
    """:class:`~nshash.Shingles`' options (see there for what each does); ``bands=None`` is chosen from the threshold.

    >>> ShinglesOptions(threshold=0.5).bands
    42
    """

    w: int = 5
    threshold: float = 0.7
    num_perm: int = 84
    bands: int | None = None
    bucket_size: int = 8
    tokenizer: str = "default"
    seed: int = 1

    algorithm: ClassVar[str] = "shingles"
    version: ClassVar[int] = 1

    def __post_init__(self) -> None:
        positive_int("w", self.w)
        object.__setattr__(self, "threshold", check_number("threshold", self.threshold, 0.0, 1.0))
        positive_int("num_perm", self.num_perm)
        if self.bands is None:
            object.__setattr__(self, "bands", choose_bands(self.num_perm, self.threshold))
        elif positive_int("bands", self.bands) > self.num_perm:
            raise OptionError(f"bands must be <= num_perm ({self.num_perm}), not {self.bands}")
        positive_int("bucket_size", self.bucket_size)
        check_tokenizer(self.tokenizer)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise OptionError(f"seed must be an int, not {self.seed!r}")

    @property
    def rows(self) -> int:
        """Min-hashes per LSH band."""
        return self.num_perm // (self.bands or 1)
