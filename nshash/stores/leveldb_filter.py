"""KeyFilter: a Bloom filter of the keys a LevelDB store holds, so absent keys are not looked up.

Most keys a page reads are absent (a new page's sentences, the members a
cluster does not have yet), and in LevelDB an absent key costs as much as a
present one: every level is searched.  The filter answers "certainly absent"
for most of them in a few Python operations.

It is never allowed a false negative: a key is added before the write batch
that stores it is written, the filter is rebuilt from the keys when it fills
up, and a saved filter is trusted on open only when the store recorded, at a
clean close, the token of that very file (see
:class:`~nshash.stores.leveldb.HashDBLeveldb`).

What it holds is a *group* per key: ``key >> 6`` of one table.  The
``sketch`` table writes a cluster member's entries as one group of 33 keys,
so a member costs one filter entry; other tables' keys are hashes, one group
each.  Memory: :data:`BITS_PER_GROUP` to twice that bits per group, so 2 to 4
bytes per fingerprint and under 0.13 bytes per ``sketch`` key; at least
:data:`MIN_BITS` bits (128 KiB).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Sequence
from pathlib import Path

from nshash._accel import speedups
from nshash.errors import ArgumentError
from nshash.stores.files import write_atomically

#: Bits per group at the most, before the filter doubles: two probes give ~1.4% false positives there.
BITS_PER_GROUP = 16
#: The smallest filter (bits); the one an empty store starts with.
MIN_BITS = 1 << 20
#: A key's group: keys that differ only in their low bits are one filter entry.
GROUP_SHIFT = 6
#: What a key's group is multiplied by before its two probes are taken from the product's bits.
MIX = 0x9E3779B97F4A7C15
_MASK = (1 << 64) - 1
_MAGIC = b"nshash-keyfilter/1\n"
# The probes in C when the accelerator is built (nshash/_keyfilter.h): a seventh of a LevelDB page's time in Python.
_PROBE = getattr(speedups, "keyfilter_probe", None)
_HEADER = struct.Struct(">16sBQ32s")  # token, log2(bits), groups, sha256 of the bits


def table_salt(index: int) -> int:
    """What a table's groups are mixed with, so that equal keys of two tables are two entries."""
    return ((index + 1) * 0x632BE59BD9B4E019) & _MASK


class KeyFilter:
    """A Bloom filter of ``(table, key >> GROUP_SHIFT)`` groups: two probes, doubled when full.

    Example:
        >>> f = KeyFilter()
        >>> f.add(table_salt(0), [42])
        >>> f.may_contain(table_salt(0), [42, 1 << 40])
        [1, 0]
    """

    def __init__(
        self, log2_bits: int = MIN_BITS.bit_length() - 1, groups: int = 0, bits: bytes | memoryview | None = None
    ) -> None:
        if not 10 <= log2_bits <= 40:
            raise ArgumentError(f"log2_bits must be 10..40, got {log2_bits}")
        self.log2_bits = log2_bits
        #: Groups added (each counted once, apart from false positives).
        self.groups = groups
        self.bits = bytearray(bits) if bits is not None else bytearray(1 << (log2_bits - 3))
        if len(self.bits) != 1 << (log2_bits - 3):
            raise ArgumentError("filter bits do not match their size")
        # Byte index of each probe: the hash's top bits, then the bits below them.
        self._shift1 = 64 - (log2_bits - 3)
        self._shift2 = 64 - 2 * (log2_bits - 3)
        self._byte_mask = (1 << (log2_bits - 3)) - 1

    @property
    def capacity(self) -> int:
        """Groups it holds before it should double (:data:`BITS_PER_GROUP` bits each)."""
        return (1 << self.log2_bits) // BITS_PER_GROUP

    def may_contain(self, salt: int, keys: Sequence[int]) -> list[int]:
        """For each key, 0 if it was certainly never added, else 1 (which may be a false positive)."""
        if _PROBE is not None:
            return _PROBE(self.bits, self.log2_bits, salt, keys, GROUP_SHIFT, MIX, False)  # type: ignore[no-any-return]
        return self.may_contain_python(salt, keys)

    def may_contain_python(self, salt: int, keys: Sequence[int]) -> list[int]:
        """:meth:`may_contain` in Python: the specification the C follows."""
        bits, s1, s2, bm, shift = self.bits, self._shift1, self._shift2, self._byte_mask, GROUP_SHIFT
        # One expression per key: this is on every read of every page.
        return [
            bits[(h := (((key >> shift) ^ salt) * MIX) & _MASK) >> s1] >> (h & 7) & 1
            and bits[(h >> s2) & bm] >> ((h >> 3) & 7) & 1
            for key in keys
        ]

    def add(self, salt: int, keys: Iterable[int]) -> None:
        """Add keys (their groups); the caller doubles the filter once :attr:`groups` passes :attr:`capacity`."""
        if _PROBE is not None:
            self.groups += _PROBE(self.bits, self.log2_bits, salt, keys, GROUP_SHIFT, MIX, True)
            return
        self.add_python(salt, keys)

    def add_python(self, salt: int, keys: Iterable[int]) -> None:
        """:meth:`add` in Python: the specification the C follows."""
        bits, s1, s2, bm, shift = self.bits, self._shift1, self._shift2, self._byte_mask, GROUP_SHIFT
        new = 0
        last = -1
        for key in keys:
            group = key >> shift
            if group == last:  # a member's entries come in a row
                continue
            last = group
            h = ((group ^ salt) * MIX) & _MASK
            i1, b1 = h >> s1, 1 << (h & 7)
            i2, b2 = (h >> s2) & bm, 1 << ((h >> 3) & 7)
            if not (bits[i1] & b1 and bits[i2] & b2):
                new += 1
                bits[i1] |= b1
                bits[i2] |= b2
        self.groups += new

    @staticmethod
    def log2_bits_for(groups: int) -> int:
        """The size (log2 of bits) that holds ``groups`` with room to grow to twice as many."""
        log2 = MIN_BITS.bit_length() - 1
        while (1 << log2) < 2 * groups * BITS_PER_GROUP:
            log2 += 1
        return log2

    # -- the file a clean close leaves ----------------------------------------------
    def save(self, path: Path, token: bytes) -> None:
        """Write the filter to ``path`` atomically, tagged with ``token``."""
        header = _HEADER.pack(token, self.log2_bits, self.groups, hashlib.sha256(self.bits).digest())

        def write(handle: object) -> None:
            for part in (_MAGIC, header, self.bits):
                handle.write(part)  # type: ignore[attr-defined]

        write_atomically(path, write)

    @classmethod
    def load(cls, path: Path, token: bytes) -> KeyFilter | None:
        """The filter saved in ``path`` with ``token``, or ``None`` if it is missing, another one, or damaged."""
        try:
            data = path.read_bytes()
        except OSError:
            return None
        start = len(_MAGIC) + _HEADER.size
        if not data.startswith(_MAGIC) or len(data) < start:
            return None
        found, log2_bits, groups, digest = _HEADER.unpack_from(data, len(_MAGIC))
        bits = memoryview(data)[start:]
        if found != token or not 10 <= log2_bits <= 40 or len(bits) != 1 << (log2_bits - 3):
            return None
        if hashlib.sha256(bits).digest() != digest:
            return None
        return cls(log2_bits, groups, bits)
