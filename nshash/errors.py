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
    ├── InputError             (also ValueError)  a file of documents that cannot be read as asked
    └── StoreError                                 anything about a HashDB
        ├── StoreClosedError                       used after close()
        ├── StoreCorruptError                      unreadable, corrupt or foreign data
        ├── StoreLockedError                       another process holds the store
        ├── StoreConnectionError                   a server (Redis) cannot be reached
        └── OptionsMismatchError (also ValueError) reopened with other fingerprint options
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


class InputError(NSHashError, ValueError):
    """A file of documents cannot be read or written as asked (missing, malformed, no such column)."""


class StoreError(NSHashError):
    """Base class of errors about a HashDB store."""


class StoreClosedError(StoreError):
    """The store was used after ``close()``."""


class StoreCorruptError(StoreError):
    """The store's data is unreadable, corrupt or was not written by nshash."""


class StoreLockedError(StoreError):
    """Another process has the store open."""


class StoreConnectionError(StoreError):
    """The store's server cannot be reached."""


class OptionsMismatchError(StoreError, ValueError):
    """The store was built with fingerprint options other than the ones given."""


def missing_dependency(module: str, extra: str) -> MissingDependencyError:
    """Build the error for an optional dependency that failed to import."""
    return MissingDependencyError(
        f"{module!r} is required for this feature; install it with: pip install 'nshash[{extra}]'"
    )
