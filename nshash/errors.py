"""The exceptions nshash raises.

Every error derives from :class:`NSHashError`, so ``except nshash.NSHashError``
catches all of them.  Where a built-in exception type is the natural one
(``TypeError`` for a wrong argument type, ``ValueError`` for a bad value,
``ImportError`` for a missing optional dependency) the nshash error derives from
it too, so code written against the built-ins keeps working.

    NSHashError
    ├── DocumentTypeError      (also TypeError)   a document that is not str/bytes
    ├── DocumentDecodeError    (also ValueError)  bytes that are not valid UTF-8
    ├── MissingDependencyError (also ImportError) an optional extra is not installed
    ├── ArgumentError          (also ValueError)  an argument out of its range (an id, a store key, a column)
    ├── ArgumentTypeError      (also TypeError)   an argument of the wrong type
    ├── OptionError            (also ValueError)  an option out of its documented range
    │   ├── UnknownOptionError (also TypeError)   an option name nshash does not know
    │   └── UnknownEncodingError (also LookupError) an encoding Python does not know
    ├── HashFuncError          (also ValueError)  a hash function that cannot be identified
    ├── InputError             (also ValueError)  a file of documents that cannot be read as asked
    ├── UnknownKeyError        (also KeyError)    remove() of a key no page was added under
    ├── NotRemovableError                         remove() of a page added without removable=True
    └── StoreError                                 anything about a HashDB
        ├── StoreClosedError                       used after close()
        ├── StoreCorruptError                      unreadable, corrupt or foreign data
        │   ├── StoreDataLostError                 a server (Redis) lost data it had acknowledged
        │   └── LegacyStoreError                   a store written by nshash 0.7: rebuild it
        ├── IndexNotFoundError                     nshash.open() found no index under that name
        ├── StoreLockedError                       another process holds the store
        ├── StoreForkedError                       used in a child forked after the store was opened
        ├── StoreConnectionError                   a server (Redis) cannot be reached
        ├── StoreWriteError      (also OSError)    the disk refused a write (full, read-only, I/O error)
        ├── StoreNameError       (also ValueError) a store name no file system accepts
        └── OptionsMismatchError (also ValueError) reopened with other fingerprint options

    PurePythonWarning (a UserWarning, not an error): the C accelerator did not load
"""

from __future__ import annotations


class NSHashError(Exception):
    """Base class of every error raised by nshash."""


class DocumentTypeError(NSHashError, TypeError):
    """A document was neither ``str`` nor ``bytes``."""


class DocumentDecodeError(NSHashError, ValueError):
    """A ``bytes`` document could not be decoded as UTF-8."""


class MissingDependencyError(NSHashError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class ArgumentError(NSHashError, ValueError):
    """An argument outside its documented range: a cluster id, a store key or value, a column, a count."""


class ArgumentTypeError(NSHashError, TypeError):
    """An argument of the wrong type (a single document where a list is expected, a key that is not an int)."""


class OptionError(NSHashError, ValueError):
    """An algorithm option has the wrong type or lies outside its documented range."""


class UnknownOptionError(OptionError, TypeError):
    """An option name that the algorithm does not have."""


class UnknownEncodingError(OptionError, LookupError):
    """An ``encoding=`` (or ``--encoding``) that Python's codecs do not know."""


class InputError(NSHashError, ValueError):
    """A file of documents cannot be read or written as asked (missing, malformed, no such column)."""


class UnknownKeyError(NSHashError, KeyError):
    """``remove(key)`` of a key that no page was added under."""

    def __str__(self) -> str:
        # KeyError's str() is the repr of its argument: keep the message readable.
        return str(self.args[0]) if self.args else ""


class NotRemovableError(NSHashError):
    """``remove(key)`` of a page added while the index was not opened with ``removable=True``."""


class StoreError(NSHashError):
    """Base class of errors about a HashDB store."""


class StoreClosedError(StoreError):
    """The store was used after ``close()``."""


class StoreCorruptError(StoreError):
    """The store's data is unreadable, corrupt or was not written by nshash."""


class StoreDataLostError(StoreCorruptError):
    """The server lost data it had acknowledged (restarted without persistence, flushed, an
    older snapshot restored): going on would hand out cluster ids a second time."""


class LegacyStoreError(StoreCorruptError):
    """A store written by nshash 0.7; it cannot be read or converted (see :mod:`nshash.migrate`).

    The message says why and how to rebuild the index.  A ``StoreCorruptError``,
    which is what such a file raised before it was recognised.
    """


class IndexNotFoundError(StoreError):
    """:func:`nshash.open` found no index under that name (and ``create`` was not set)."""


class StoreLockedError(StoreError):
    """Another process has the store open."""


class StoreForkedError(StoreError):
    """The store was opened before ``os.fork()`` and used in the child.

    Parent and child would each hand out the same ids and overwrite each
    other's files: open the index in each process after forking, or use Redis.
    """


class StoreWriteError(StoreError, OSError):
    """The disk refused a write: full (``ENOSPC``), read-only, quota or I/O error."""


class StoreNameError(StoreError, ValueError):
    """A store name that no file can have (empty, or a file name over 255 bytes)."""


class HashFuncError(NSHashError, ValueError):
    """A custom hash function that cannot be identified when the index is reopened."""


class StoreConnectionError(StoreError):
    """The store's server cannot be reached."""


class OptionsMismatchError(StoreError, ValueError):
    """The store was built with fingerprint options other than the ones given."""


def missing_dependency(module: str, extra: str) -> MissingDependencyError:
    """Build the error for an optional dependency that failed to import."""
    return MissingDependencyError(
        f"{module!r} is required for this feature; install it with: pip install 'nshash[{extra}]'"
    )


class PurePythonWarning(UserWarning):
    """The C accelerator did not build or load: nshash gives the same ids, tens of times slower."""
