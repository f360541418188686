"""NSHash's options: one place for their names, defaults, bounds and stored form.

The index, batch, Dask, the worker pool and the CLI all build an
:class:`Options`; nothing else repeats a name, a default or a bound.  Every
option that changes keys or decisions is stored with the data (see
:meth:`Options.stored`), so an index reopened with other options is refused
instead of quietly producing ids that never match.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from nshash.errors import OptionError, UnknownOptionError
from nshash.hashing import HashFunc, resolve_hashfunc
from nshash.text import ORIGINAL_MIN_LEN, SPLITS

#: Bumped whenever the keys or the decision rule change: an index built with
#: another version cannot be continued and must be rebuilt.
OPTIONS_VERSION: Final = 2

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


@dataclasses.dataclass(frozen=True)
class Options:
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

    def __post_init__(self) -> None:
        if not isinstance(self.hashfunc, str):
            raise OptionError(f"hashfunc must be a name here, not {type(self.hashfunc).__name__}")
        if self.split not in SPLITS:
            raise OptionError(f"split must be one of {', '.join(SPLITS)}, not {self.split!r}")
        for name, (low, high) in _INT_BOUNDS.items():
            check_int(name, getattr(self, name), low, high)
        for name, (lowest, highest) in _FLOAT_BOUNDS.items():
            number = getattr(self, name)
            if isinstance(number, bool) or not isinstance(number, (int, float)) or not lowest < number <= highest:
                raise OptionError(f"{name} must be a number in ({lowest:g}, {highest:g}], not {number!r}")
            object.__setattr__(self, name, float(number))
        for name in ("normalize", "fold", "chrome", "boilerplate"):
            object.__setattr__(self, name, bool(getattr(self, name)))

    @classmethod
    def build(cls, hashfunc: str | HashFunc = "farmhash", **given: Any) -> tuple[Options, HashFunc]:
        """Options from keyword arguments as users give them, and the hash function.

        ``min_len=None`` means the split's default; unknown names are an error.

        >>> Options.build(n=3, min_len=None)[0].min_len
        8
        """
        unknown = sorted(set(given) - set(OPTION_NAMES))
        if unknown:
            raise UnknownOptionError(f"unknown option(s) {', '.join(unknown)}; options are {', '.join(OPTION_NAMES)}")
        if given.get("min_len") is None:
            given["min_len"] = ORIGINAL_MIN_LEN if given.get("split") == "original" else 8
        name, func = resolve_hashfunc(hashfunc)
        return cls(hashfunc=name, **given), func

    def stored(self) -> dict[str, Any]:
        """The form saved with an index: every field, the algorithm and the version."""
        return {"algorithm": "nshash", "version": OPTIONS_VERSION, **dataclasses.asdict(self)}

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any]) -> Options:
        """The options an index was built with, from :meth:`stored`'s form."""
        fields = {key: value for key, value in stored.items() if key not in ("algorithm", "version")}
        return cls(**fields)

    def replace(self, **changes: Any) -> Options:
        """A copy with some options changed (validated again)."""
        return dataclasses.replace(self, **changes)


#: The option names, in order (what the CLI's ``-O`` and :func:`nshash.similar_ids` accept).
OPTION_NAMES: Final = tuple(field.name for field in dataclasses.fields(Options))
