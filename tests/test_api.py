"""The public surface: what ``import nshash`` offers and what it costs."""

from __future__ import annotations

import ast
import builtins
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_without_fork_hooks_or_posix_locks_the_in_memory_index_works_and_a_file_store_says_why_not(
    tmp_path: Path,
) -> None:
    # What Windows lacks (os.register_at_fork, fcntl), taken away before nshash is imported: it still
    # imports and deduplicates in memory, and a store in a file refuses to open, saying what to use.
    code = (
        "import os, sys\n"
        "del os.register_at_fork\n"
        "sys.modules['fcntl'] = None\n"
        "import nshash\n"
        "docs = ['A long enough first sentence of the story here. And its second sentence.'] * 2 + ['Other.']\n"
        "print(nshash.similar_ids(docs), [nshash.NSHash().get_similar(d) for d in docs[:1]])\n"
        "try:\n"
        f"    nshash.NSHash({str(tmp_path / 'news')!r})\n"
        "except nshash.StoreError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    first, refused = done.stdout.splitlines()
    assert first == "[1, 1, 2] [1]"
    assert "needs POSIX file locks" in refused and "name=None" in refused
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_every_error_derives_from_nshash_error() -> None:
    errors = [getattr(nshash, name) for name in nshash.__all__ if name.endswith("Error")]
    assert len(errors) >= 9
    assert all(issubclass(error, nshash.NSHashError) for error in errors)
    assert issubclass(nshash.DocumentTypeError, TypeError)
    assert issubclass(nshash.OptionsMismatchError, ValueError)
    assert issubclass(nshash.MissingDependencyError, ImportError)


# Built-in exceptions raised on purpose inside the package and translated where
# they are caught, never reaching a caller: (module, function).
_CAUGHT_INSIDE = {
    ("nshash/stores/memory_format.py", "check_state"),
    ("nshash/stores/memory_format.py", "check_table"),
    ("nshash/stores/memory_format.py", "check_acyclic"),
    ("nshash/stores/memory_format.py", "read_reservation"),
    # Caught in load_state and read_state, which raise StoreCorruptError.
    ("nshash/stores/memory_format.py", "_check_header_fields"),
    ("nshash/stores/memory_format.py", "_packed"),
    ("nshash/stores/memory_format.py", "_arrays"),
    ("nshash/stores/memory_format.py", "_table"),
    ("nshash/stores/memory_format.py", "_split"),
    ("nshash/_accel.py", "_load"),
}
_BUILTIN_ERRORS = {
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, Exception)
} - {"NotImplementedError", "AttributeError"}  # for subclass authors; the attribute protocol (hasattr)


def test_the_package_raises_only_nshash_errors() -> None:
    # Every error a caller can see is an NSHashError (argument errors also
    # ValueError/TypeError): no module raises a bare built-in exception,
    # except where it is caught and translated in the same module.
    package = Path(nshash.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = f"nshash/{path.relative_to(package).as_posix()}"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                    name = getattr(node.exc.func, "id", None)
                    if name in _BUILTIN_ERRORS and (relative, function.name) not in _CAUGHT_INSIDE:
                        found.append(f"{relative}:{node.lineno} {function.name}: raise {name}")
    assert not found, "\n".join(found)


def _package_modules() -> dict[str, Path]:
    package = Path(nshash.__file__).parent
    modules = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def test_no_package_module_is_over_500_lines() -> None:
    # A module past ~500 lines is holding more than one thing (STYLE.md).
    long = {name: n for name, path in _package_modules().items() if (n := len(path.read_text().splitlines())) > 500}
    assert not long


def test_package_modules_import_each_other_without_cycles() -> None:
    # Counting imports inside functions too (a lazy import hides a cycle, it does
    # not remove it); those under `if TYPE_CHECKING:` are for annotations only.
    modules = _package_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(node)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for node in ast.walk(block)
        }
        imported = set()
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and node.module:
                imported |= {f"{node.module}.{alias.name}" for alias in node.names} | {node.module}
            elif isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
        # Not the package itself: `nshash/__init__.py` imports everything by design.
        graph[name] = {other for other in imported if other in modules and other not in (name, "nshash")}
    cycles = []
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            cycles.append(" -> ".join([*path[path.index(name) :], name]))
            return
        if name in done:
            return
        for other in sorted(graph[name]):
            visit(other, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert not cycles


def test_an_index_says_what_it_is_and_where_its_store_is(tmp_path: Path) -> None:
    with nshash.NSHash(tmp_path / "news", hashdb="leveldb") as nsh:
        assert repr(nsh) == f"<NSHash name={str(tmp_path / 'news')!r} on HashDBLeveldb({tmp_path / 'news.hashdb'})>"
    assert repr(nsh).endswith(" closed>")
    assert repr(nshash.SimHash()) == "<SimHash name=None on HashDBMemory(in memory)>"


_MISSING_ACCELERATOR = (
    "import sys, warnings\n"
    "sys.modules['nshash._speedups'] = None  # as where it did not build\n"
    "import nshash\n"
    "with warnings.catch_warnings(record=True) as caught:\n"
    "    warnings.simplefilter('always')\n"
    "    nshash.NSHash(); nshash.SimHash(); nshash.similar_ids(['a page of its own.'])\n"
    "print(len(caught), *[(w.category.__name__, w.filename, str(w.message)) for w in caught])\n"
)


@pytest.mark.parametrize("asked", [False, True], ids=["failed to load", "NSHASH_NO_SPEEDUPS=1"])
def test_an_index_without_the_accelerator_says_so_once_unless_asked(asked: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("NSHASH_NO_SPEEDUPS", "NSHASH_REQUIRE_SPEEDUPS")}
    if asked:
        env["NSHASH_NO_SPEEDUPS"] = "1"
    run = subprocess.run([sys.executable, "-c", _MISSING_ACCELERATOR], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    if asked:
        assert run.stdout.strip() == "0"
    else:  # once a process, at the caller's line, saying why and what to do
        assert run.stdout.startswith("1 ('PurePythonWarning', '<string>', 'nshash runs without its C accelerator (")
        assert "None in sys.modules" in run.stdout and "reinstall nshash" in run.stdout


def test_the_version_says_which_implementation_runs() -> None:
    def version(**env: str) -> str:
        clean = {k: v for k, v in os.environ.items() if k != "NSHASH_NO_SPEEDUPS"}
        args = [sys.executable, "-m", "nshash", "--version"]
        return subprocess.run(args, capture_output=True, text=True, check=True, env={**clean, **env}).stdout.strip()

    assert version(NSHASH_NO_SPEEDUPS="1") == f"nshash {nshash.__version__} (pure Python: NSHASH_NO_SPEEDUPS=1)"
    if importlib.util.find_spec("nshash._speedups") is not None:
        assert version() == f"nshash {nshash.__version__} (C accelerator)"
