"""nshash: find near-duplicate documents by the hashes of their longest sentences.

>>> import nshash
>>> nsh = nshash.NSHash()  # name='news', hashdb='leveldb' to persist
>>> nsh.get_similar("A long enough first sentence here. And another long one too.")
1
"""

from __future__ import annotations

from nshash.algorithms import open
from nshash.core import NSHash
from nshash.decide import Decision
from nshash.errors import (
    ArgumentError,
    ArgumentTypeError,
    DocumentDecodeError,
    DocumentTypeError,
    HashFuncError,
    IndexNotFoundError,
    InputError,
    LegacyStoreError,
    MissingDependencyError,
    NotRemovableError,
    NSHashError,
    OptionError,
    OptionsMismatchError,
    PurePythonWarning,
    StoreClosedError,
    StoreConnectionError,
    StoreCorruptError,
    StoreDataLostError,
    StoreError,
    StoreForkedError,
    StoreLockedError,
    StoreNameError,
    StoreWriteError,
    UnknownEncodingError,
    UnknownKeyError,
    UnknownOptionError,
)
from nshash.index import Index
from nshash.match import Match
from nshash.pandas import similar_ids
from nshash.shingles import Shingles
from nshash.simhash import SimHash
from nshash.stores import HashDB, HashDBLeveldb, HashDBMemory, register_store
from nshash.stores.redis import HashDBRedis

__version__ = "2.0.0"

__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "Decision",
    "DocumentDecodeError",
    "DocumentTypeError",
    "HashDB",
    "HashDBLeveldb",
    "HashDBMemory",
    "HashDBRedis",
    "HashFuncError",
    "Index",
    "IndexNotFoundError",
    "InputError",
    "LegacyStoreError",
    "Match",
    "MissingDependencyError",
    "NSHash",
    "NSHashError",
    "NotRemovableError",
    "OptionError",
    "OptionsMismatchError",
    "PurePythonWarning",
    "Shingles",
    "SimHash",
    "StoreClosedError",
    "StoreConnectionError",
    "StoreCorruptError",
    "StoreDataLostError",
    "StoreError",
    "StoreForkedError",
    "StoreLockedError",
    "StoreNameError",
    "StoreWriteError",
    "UnknownEncodingError",
    "UnknownKeyError",
    "UnknownOptionError",
    "__version__",
    "open",
    "register_store",
    "similar_ids",
]
