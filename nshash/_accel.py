"""The one place where the C accelerator or the pure-Python specification is chosen.

``NSHASH_NO_SPEEDUPS=1`` runs pure Python (for bug reports and for checking
that both give the same results); ``NSHASH_REQUIRE_SPEEDUPS=1`` makes a
missing or broken build an error instead of a silent fallback (CI sets it).
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

from nshash.errors import MissingDependencyError

#: What this version of nshash calls in the compiled module.
_NEEDED = ("sketch", "features", "assign_many", "pack_features", "assign_packed", "Table")


def _load() -> ModuleType | None:
    if os.environ.get("NSHASH_NO_SPEEDUPS") == "1":
        return None
    try:
        speedups = importlib.import_module("nshash._speedups")
        # A build of another version (an older install found first) lacks what this one calls.
        missing = [name for name in _NEEDED if not hasattr(speedups, name)]
        if missing:
            raise ImportError(f"nshash._speedups at {speedups.__file__} is stale: it has no {', '.join(missing)}")
    except ImportError as exc:
        if os.environ.get("NSHASH_REQUIRE_SPEEDUPS") == "1":
            raise MissingDependencyError(
                f"NSHASH_REQUIRE_SPEEDUPS=1 but the C accelerator did not build or load ({exc}); "
                "install a C compiler and the Python headers, then reinstall nshash"
            ) from exc
        return None
    return speedups


#: The compiled module, or ``None`` when nshash runs in pure Python.
speedups: ModuleType | None = _load()
