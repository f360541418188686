"""The public surface: what ``import nshash`` offers and what it costs."""

from __future__ import annotations

import subprocess
import sys

import nshash


def test_all_is_sorted_and_complete() -> None:
    assert nshash.__all__ == sorted(nshash.__all__)
    for name in nshash.__all__:
        assert hasattr(nshash, name), name
    public = {
        name for name in vars(nshash) if not name.startswith("_") and not isinstance(getattr(nshash, name), type(sys))
    }
    assert public <= set(nshash.__all__) | {"annotations"}


def test_import_stays_light() -> None:
    # Optional dependencies load only when a feature that needs them is used.
    code = (
        "import sys, nshash\n"
        "heavy = [m for m in ('pandas', 'dask', 'numpy', 'redis', 'tqdm', 'pyarrow', 'openpyxl', 'plyvel') "
        "if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_every_error_derives_from_nshash_error() -> None:
    errors = [getattr(nshash, name) for name in nshash.__all__ if name.endswith("Error")]
    assert len(errors) >= 9
    assert all(issubclass(error, nshash.NSHashError) for error in errors)
    assert issubclass(nshash.DocumentTypeError, TypeError)
    assert issubclass(nshash.OptionsMismatchError, ValueError)
    assert issubclass(nshash.MissingDependencyError, ImportError)
