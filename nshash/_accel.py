"""The one place where the C accelerator or the pure-Python specification is chosen.

``NSHASH_NO_SPEEDUPS=1`` runs pure Python (for bug reports and for checking
that both give the same results).  A missing or broken build runs pure Python
too, and the first index a process opens says so with a
:class:`~nshash.PurePythonWarning`; ``NSHASH_REQUIRE_SPEEDUPS=1`` makes it an
error instead (CI sets it).
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from types import ModuleType

from nshash.errors import MissingDependencyError, PurePythonWarning

#: What this version of nshash calls in the compiled module.
_NEEDED = ("sketch", "features", "assign_many", "pack_features", "assign_packed", "Table")
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _load() -> tuple[ModuleType | None, str | None]:
    """The compiled module, or ``None`` and why not."""
    if os.environ.get("NSHASH_NO_SPEEDUPS") == "1":
        return None, _ASKED
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
        return None, str(exc)
    return speedups, None


_ASKED = "NSHASH_NO_SPEEDUPS=1"

#: The compiled module, or ``None`` when nshash runs in pure Python.
speedups: ModuleType | None
#: Why nshash runs in pure Python (``None`` when the accelerator is loaded).
why_pure_python: str | None
speedups, why_pure_python = _load()
_warned = False


def describe() -> str:
    """Which implementation runs, for ``nshash --version`` and bug reports."""
    return "C accelerator" if speedups is not None else f"pure Python: {why_pure_python}"


def warn_if_pure_python() -> None:
    """Once a process: a :class:`~nshash.PurePythonWarning` when the accelerator failed to load.

    Not when pure Python was asked for (``NSHASH_NO_SPEEDUPS=1``).  Without the
    warning, a build that silently fell back (no compiler) only shows as an
    index tens of times slower than it should be.
    """
    global _warned
    if speedups is not None or _warned or why_pure_python == _ASKED:
        return
    _warned = True
    frame, level = sys._getframe(), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1  # to the caller's line, outside nshash
    warnings.warn(
        f"nshash runs without its C accelerator ({why_pure_python}), tens of times slower; install a wheel, "
        "or a C compiler and the Python headers and reinstall nshash (NSHASH_NO_SPEEDUPS=1 chooses pure "
        "Python without this warning)",
        PurePythonWarning,
        stacklevel=level,
    )
