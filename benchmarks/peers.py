"""Every method the benchmarks compare, behind one small interface.

A :class:`Method` turns texts, given in arrival order, into one cluster label
per text, seeing the texts one at a time as a crawler would. Methods that
report which earlier documents (or clusters) an incoming text matched get
their final labels from a union-find over those matches, so transitive
merging is identical for every peer: if C matches A and B, all three end up
in one cluster.

nshash variants are listed once, in :data:`NSHASH_VARIANTS`; the runners
also take ``--variant LABEL=JSON``.

>>> [m.name for m in build_methods(["original", "simhash"])]
['original', 'simhash']
"""

from __future__ import annotations

import logging
import shutil
import sys
import tempfile
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from pathlib import Path
from typing import Any

from original import OriginalNSHash

__all__ = [
    "NSHASH_VARIANTS",
    "PEER_NAMES",
    "SPEED_ONLY_VARIANTS",
    "IndexMethod",
    "Method",
    "Unavailable",
    "UnionFind",
    "build_methods",
    "import_nshash",
    "open_nshash",
    "parse_variant",
    "select_methods",
]

# (label, NSHash keyword options). The first entry is the default nshash;
# add ablations here and every runner and the plot pick them up.
NSHASH_VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("nshash", {}),
    ("nshash verify=0.6 only", {"verify": 0.6, "verify_voted": 0.6}),
    ("nshash verify=0.8/0.6", {"verify": 0.8, "verify_voted": 0.6}),
    ("nshash members=1", {"members": 1}),
    ("nshash chrome=False", {"chrome": False}),
    ("nshash fold=False", {"fold": False}),
    ("nshash boilerplate=False", {"boilerplate": False}),
    ("nshash extra=3", {"extra": 3}),
    ("nshash anchor=12 anchor_latin=12", {"anchor_latin": 12}),
    # nshash 0.7's rules, as documented for migrating users (verification cannot be switched off: ~0 passes all).
    (
        "nshash 0.7 rules",
        {
            "split": "original",
            "normalize": False,
            "boilerplate": False,
            "anchor": 0,
            "anchor_latin": 0,
            "chrome": False,
            "fold": False,
            "verify": 1e-9,
            "verify_voted": 1e-9,
        },
    ),
]

# Variants only run_speed.py runs: the store changes speed, not the labels.
#: The variant option that makes :class:`NSHashVariant` call ``get_similar_many`` (not an NSHash option).
MANY = "get_similar_many"
SPEED_ONLY_VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("nshash leveldb", {"hashdb": "leveldb"}),
    # Not an NSHash option: the variant feeds the texts through get_similar_many instead of a loop.
    ("nshash get_similar_many", {MANY: True}),
]

NUM_PERM = 128
SHINGLE = 5
LSH_THRESHOLD = 0.7
# rensa needs num_perm divisible by the band count; 16 bands x 8 rows puts
# the S-curve's midpoint (1/16)**(1/8) = 0.707 nearest to the 0.7 threshold.
RENSA_BANDS = 16
SIMHASH_K = 3
REPO_ROOT = Path(__file__).resolve().parent.parent


class Unavailable(Exception):
    """A method cannot run here (missing package, option not accepted yet)."""


class UnionFind:
    """Disjoint sets over hashable keys; a set is named by its smallest key.

    >>> uf = UnionFind()
    >>> uf.union(3, 1); uf.union(2, 3)
    >>> uf.find(2)
    1
    """

    def __init__(self) -> None:
        self.parent: dict[Any, Any] = {}

    def find(self, x: Any) -> Any:
        parent = self.parent
        root = parent.setdefault(x, x)
        while root != parent[root]:
            root = parent[root]
        # Path compression keeps later finds O(alpha) on long merge chains.
        while x != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: Any, b: Any) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            lo, hi = (ra, rb) if ra < rb else (rb, ra)
            self.parent[hi] = lo


class Method(ABC):
    """A near-duplicate finder run online over texts in arrival order."""

    name: str
    settings: str = ""

    @abstractmethod
    def fit_labels(self, texts: Iterable[str]) -> list[Hashable]:
        """Return one cluster label per text, starting from an empty index.

        Raises:
            Unavailable: if the method cannot run in this environment.
        """


class MatchingMethod(Method):
    """A method whose index reports the earlier documents a text matched."""

    @abstractmethod
    def new_index(self) -> Callable[[int, str], Iterable[int]]:
        """Return ``match(i, text)``: earlier doc numbers matched, then index it."""

    def fit_labels(self, texts: Iterable[str]) -> list[Hashable]:
        match = self.new_index()
        uf = UnionFind()
        n = 0
        for i, text in enumerate(texts):
            uf.find(i)
            for j in match(i, text):
                uf.union(i, j)
            n = i + 1
        return [uf.find(i) for i in range(n)]


class Original(Method):
    """The 2019 nshash; ``merge=True`` adds union-find over the ids it found."""

    def __init__(self, name: str, n: int = 5, merge: bool = False) -> None:
        self.name = name
        self.n = n
        self.merge = merge
        how = "union-find over found ids" if merge else "label = id returned on arrival"
        self.settings = f"split on `：:；？。！】\\n`, pieces > 30 chars (else all), {n} longest, md5; {how}"

    def fit_labels(self, texts: Iterable[str]) -> list[Hashable]:
        nsh = OriginalNSHash(self.n)
        if not self.merge:
            return [nsh.get_similar(t) for t in texts]
        uf = UnionFind()
        sids = []
        for text in texts:
            sid, found = nsh.add(text)
            for f in found:
                uf.union(sid, f)
            sids.append(sid)
        return [uf.find(s) for s in sids]


def _shingles(text: str) -> set[str]:
    if len(text) <= SHINGLE:
        return {text}
    return {text[i : i + SHINGLE] for i in range(len(text) - SHINGLE + 1)}


class Simhash(MatchingMethod):
    """PyPI ``simhash``: default features, 64 bits, ``SimhashIndex(k=3)``."""

    name = "simhash"
    settings = (
        "`Simhash(text)` default features (lowercase, keep \\w and CJK, "
        f"char 4-grams), f=64; `SimhashIndex(k={SIMHASH_K})`; query then add; counts over 255 passed as "
        "numpy.int64 (simhash 2.1 overflows on numpy 2)"
    )

    def new_index(self) -> Callable[[int, str], Iterable[int]]:
        try:
            from simhash import Simhash as SH
            from simhash import SimhashIndex
        except ImportError as e:
            raise Unavailable("pip install simhash") from e
        # The index warns on every bucket over 200 entries; silence it so
        # logging does not dominate the timing on clusters of many reprints.
        log = logging.getLogger("benchmarks.simhash")
        log.setLevel(logging.ERROR)
        index = SimhashIndex([], k=SIMHASH_K, log=log)

        def match(i: int, text: str) -> list[int]:
            try:
                sh = SH(text)
            except OverflowError:
                sh = _simhash_heavy(SH, text)
            found = [int(j) for j in index.get_near_dups(sh)]
            index.add(str(i), sh)
            return found

        return match


def _simhash_heavy(sh_class: Any, text: str) -> Any:
    """``Simhash(text)`` for a text with a 4-gram seen more than 255 times (raw HTML).

    simhash 2.1 multiplies a ``uint8`` bit array by the feature's count; under
    numpy 2 a count above 255 raises ``OverflowError``. The same features and
    counts, with those counts as ``numpy.int64``, give the value the library
    means to compute.
    """
    import numpy as np

    probe = sh_class("")
    feats = Counter(probe._tokenize(text))
    return sh_class({k: (np.int64(n) if n > 255 else n) for k, n in feats.items()})


class DatasketchLSH(MatchingMethod):
    """datasketch ``MinHashLSH`` over character 5-gram sets."""

    name = "datasketch-lsh"
    settings = (
        f"`MinHash(num_perm={NUM_PERM})` (seed 1, sha1_hash32) of the set of "
        f"char {SHINGLE}-grams (utf-8); `MinHashLSH(threshold={LSH_THRESHOLD}, "
        f"num_perm={NUM_PERM})` (its optimiser picks 14 bands x 9 rows); "
        "query then insert, candidates not verified"
    )

    def new_index(self) -> Callable[[int, str], Iterable[int]]:
        try:
            from datasketch import MinHash, MinHashLSH
        except ImportError as e:
            raise Unavailable("pip install datasketch") from e
        lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM)
        # Copying one initialised MinHash skips regenerating the permutations
        # per document; datasketch's own MinHash.generator does the same.
        template = MinHash(num_perm=NUM_PERM)

        def match(i: int, text: str) -> list[int]:
            m = template.copy()
            m.update_batch([s.encode("utf-8") for s in _shingles(text)])
            found = [int(j) for j in lsh.query(m)]
            lsh.insert(i, m)
            return found

        return match


class RensaLSH(MatchingMethod):
    """rensa ``RMinHash`` + ``RMinHashLSH`` over character 5-gram sets."""

    name = "rensa-lsh"
    settings = (
        f"`RMinHash(num_perm={NUM_PERM}, seed=42)` of the set of char "
        f"{SHINGLE}-grams; `RMinHashLSH(threshold={LSH_THRESHOLD}, "
        f"num_perm={NUM_PERM}, num_bands={RENSA_BANDS})`; query then insert, "
        "candidates not verified"
    )

    def new_index(self) -> Callable[[int, str], Iterable[int]]:
        try:
            from rensa import RMinHash, RMinHashLSH
        except ImportError as e:
            raise Unavailable("pip install rensa") from e
        lsh = RMinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM, num_bands=RENSA_BANDS)

        def match(i: int, text: str) -> list[int]:
            m = RMinHash(num_perm=NUM_PERM, seed=42)
            m.update(list(_shingles(text)))
            found = [int(j) for j in lsh.query(m)]
            lsh.insert(i, m)
            return found

        return match


def import_nshash() -> Any:
    """Import the nshash package, from the repo checkout if not installed.

    Raises:
        Unavailable: if it cannot be imported.
    """
    try:
        import nshash
    except ImportError:
        # Scripts run as ``python benchmarks/x.py`` have benchmarks/ on the
        # path, not the repo root where an uninstalled package lives.
        if str(REPO_ROOT) not in sys.path:
            sys.path.insert(0, str(REPO_ROOT))
        try:
            import nshash
        except ImportError as e:
            raise Unavailable(f"cannot import nshash: {e}") from e
    if not hasattr(nshash, "NSHash"):
        raise Unavailable(f"nshash at {nshash.__path__} has no NSHash yet")
    return nshash


def open_nshash(options: dict[str, Any], workdir: str | None = None) -> Any:
    """Construct ``nshash.NSHash`` with benchmark defaults overridden by ``options``.

    Disk stores get ``name`` inside ``workdir`` unless ``options`` names one.

    Raises:
        Unavailable: if nshash is missing or rejects an option.
    """
    nshash = import_nshash()
    kwargs: dict[str, Any] = {"name": None, "hashfunc": "farmhash", "hashdb": "memory"}
    kwargs.update(options)
    if kwargs["hashdb"] != "memory" and kwargs["name"] is None:
        if workdir is None:
            raise Unavailable(f"hashdb={kwargs['hashdb']!r} needs a workdir")
        kwargs["name"] = str(Path(workdir) / "bench")
    try:
        return nshash.NSHash(**kwargs)
    except TypeError as e:
        raise Unavailable(f"option not accepted: {e}") from e
    except (ValueError, ImportError, nshash.NSHashError) as e:
        # Bad option values and a store whose dependency is missing.
        raise Unavailable(f"cannot open: {e}") from e


class NSHashVariant(Method):
    """nshash with the given options; labels are ``resolve``d after all inserts."""

    def __init__(self, name: str, options: dict[str, Any]) -> None:
        self.name = name
        self.options = options
        shown = ", ".join(f"{k}={v!r}" for k, v in options.items()) or "defaults"
        self.settings = f"`NSHash(hashfunc='farmhash', hashdb='memory')`, {shown}"

    def fit_labels(self, texts: Iterable[str]) -> list[Hashable]:
        workdir = tempfile.mkdtemp(prefix="nshash-bench-")
        options = dict(self.options)
        many = options.pop(MANY, False)
        try:
            nsh = open_nshash(options, workdir)
            try:
                if many:
                    return list(nsh.get_similar_many(texts))
                sids = [nsh.get_similar(t) for t in texts]
                resolve_many = getattr(nsh, "resolve_many", None)
                if resolve_many is not None:
                    return list(resolve_many(sids))
                return [nsh.resolve(s) for s in sids]
            finally:
                close = getattr(nsh, "close", None)
                if close is not None:
                    close()
        finally:
            shutil.rmtree(workdir, ignore_errors=True)


class IndexMethod(Method):
    """An nshash index class (``SimHash``, ``Shingles``, ``NSHash``) with options; labels ``resolve``d at the end."""

    def __init__(self, name: str, options: dict[str, Any]) -> None:
        cls_name = name.split()[0].removeprefix("nshash.")
        if cls_name not in ("SimHash", "Shingles", "NSHash"):
            raise ValueError(f"a variant label starts with nshash.SimHash, .Shingles or .NSHash, not {name!r}")
        self.name = name
        self.cls_name = cls_name
        self.options = options
        shown = ", ".join(f"{k}={v!r}" for k, v in options.items()) or "defaults"
        self.settings = f"`nshash.{cls_name}(hashdb='memory')`, {shown}"
        self.entries_per_doc: float | None = None

    def fit_labels(self, texts: Iterable[str]) -> list[Hashable]:
        nshash = import_nshash()
        cls = getattr(nshash, self.cls_name, None)
        if cls is None:
            raise Unavailable(f"this nshash has no {self.cls_name}")
        with cls(**self.options) as index:
            ids = [index.get_similar(text) for text in texts]
            labels = list(index.resolve_many(ids))
            tables = nshash.stores.TABLES
            self.entries_per_doc = sum(index.store.count(t) for t in tables) / max(len(ids), 1)
            return labels


class NSHashBatch(Method):
    """``nshash.similar_ids``: the batch algorithm, which sees every document before deciding."""

    name = "nshash-batch"
    settings = "`nshash.similar_ids(texts)`, defaults (n=8); not online: decides after seeing all documents"

    def fit_labels(self, texts: Iterable[str]) -> list[Hashable]:
        nshash = import_nshash()
        if not hasattr(nshash, "similar_ids"):
            raise Unavailable("nshash.similar_ids does not exist")
        return list(nshash.similar_ids(list(texts)))


def _peers() -> dict[str, Callable[[], Method]]:
    return {
        "original": lambda: Original("original"),
        "original+uf": lambda: Original("original+uf", merge=True),
        "longest-sentence": lambda: Original("longest-sentence", n=1, merge=True),
        "simhash": Simhash,
        "datasketch-lsh": DatasketchLSH,
        "rensa-lsh": RensaLSH,
        "nshash.SimHash": lambda: IndexMethod("nshash.SimHash", {}),
        "nshash.Shingles": lambda: IndexMethod("nshash.Shingles", {}),
        "nshash-batch": NSHashBatch,
    }


PEER_NAMES = list(_peers())


def parse_variant(spec: str) -> tuple[str, dict[str, Any]]:
    """Parse ``LABEL=JSON`` from the command line.

    >>> parse_variant('nshash n=4={"n": 4}')
    ('nshash n=4', {'n': 4})

    Raises:
        ValueError: if the JSON part is missing, invalid or not an object.
    """
    import json

    label, sep, raw = spec.partition("={")
    if not sep or not label:
        raise ValueError(f"--variant wants LABEL=JSON-object, e.g. 'n4={{\"n\": 4}}'; got {spec!r}")
    options = json.loads("{" + raw)
    return label, options


def build_methods(
    names: Sequence[str] | None = None,
    variants: Sequence[tuple[str, dict[str, Any]]] = (),
) -> list[Method]:
    """Build the methods to run, peers first, then nshash variants.

    Args:
        names: method names to keep (peer names or variant labels); None
            keeps all.
        variants: extra ``(label, options)`` nshash variants, after
            :data:`NSHASH_VARIANTS`; a repeated label replaces the earlier.

    Raises:
        ValueError: if a name matches no method.
    """
    methods: list[Method] = [make() for make in _peers().values()]
    merged = dict(NSHASH_VARIANTS)
    merged.update(dict(variants))
    methods += [NSHashVariant(label, opts) for label, opts in merged.items()]
    return select_methods(methods, names)


def select_methods(methods: list[Method], names: Sequence[str] | None) -> list[Method]:
    """The methods called ``names``, in that order (all of them for None).

    Raises:
        ValueError: if a name matches no method.
    """
    if names is None:
        return methods
    by_name = {m.name: m for m in methods}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {list(by_name)}")
    return [by_name[n] for n in names]
