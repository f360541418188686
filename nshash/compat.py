"""Read-only attributes of nshash 0.7's ``NSHash``, kept so that scripts written for it still run.

0.7 exposed ``nsh.db`` (its store), ``nsh.max_similar_id`` (the last id given
out) and ``nsh.hashfunc`` (the function hashing a sentence), and
``get_nshash(doc, n=5)`` took ``n``.  2.0 keeps each as a cheap, read-only
alias of what it has now; what cannot be kept is listed in the documentation
(``docs/migration.md``): stores of 0.7 are refused (:mod:`nshash.migrate`), a
store's ``get``/``put`` take a table, hashes are unsigned 64-bit ints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nshash.hashing import NamedHashFunc

if TYPE_CHECKING:
    from nshash.fingerprint import Fingerprinter
    from nshash.options import Options
    from nshash.stores import HashDB


class Compat07:
    """The 0.7 attributes of :class:`nshash.NSHash` (a mixin; every one read-only).

    >>> import nshash
    >>> nsh = nshash.NSHash(hashfunc="md5")
    >>> nsh.max_similar_id, nsh.get_similar("A long enough first sentence here. And another long one too.")
    (0, 1)
    >>> nsh.max_similar_id, nsh.db is nsh.store, nsh.hashfunc.name
    (1, True, 'md5')
    """

    store: HashDB
    opts: Options
    fingerprinter: Fingerprinter

    @property
    def db(self) -> HashDB:
        """The store (0.7's ``nsh.db``); its ``get``/``put`` take a table name first since 2.0."""
        return self.store

    @property
    def max_similar_id(self) -> int:
        """The highest cluster id handed out so far, 0 before the first (0.7's counter).

        Raises:
            StoreError: the store cannot tell (a custom store without ``highest_id``).
        """
        from nshash.errors import StoreError

        highest = self.store.highest_id()
        if highest is None:
            raise StoreError(f"{self.store.describe()} cannot tell the highest id it handed out")
        return highest

    @property
    def hashfunc(self) -> NamedHashFunc:
        """The function that hashes a sentence (``str -> int``, unsigned 64-bit); ``.name`` is the option.

        0.7's md5 gave hex strings and its farmhash ``hash64``; 2.0's give ints
        (``md5``: the first 8 bytes of the digest; ``farmhash``: ``fingerprint64``).
        """
        # The fingerprinter holds the function the options were resolved to (a custom one included).
        return NamedHashFunc(self.opts.hashfunc, self.fingerprinter._hash)

    def _fingerprinter_for(self, n: int | None) -> Fingerprinter:
        """The fingerprinter with another ``n`` (0.7's ``get_nshash(doc, n=...)``), checked like the option."""
        if n is None or n == self.opts.n:
            return self.fingerprinter
        from nshash.fingerprint import Fingerprinter

        return Fingerprinter(self.opts.replace(n=n), self.fingerprinter._hash)
