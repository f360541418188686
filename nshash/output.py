"""Writing a table of documents (with their ids) to a file: JSONL, CSV, Parquet or Excel, atomically.

The counterpart of :func:`nshash.io.read_table`, used by ``nshash dedup``.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

from nshash.errors import InputError, missing_dependency
from nshash.io import ENGINES, STDIO, Table, file_format, require_pandas


def write_table(table: Table, path: str) -> None:
    """Write ``table`` to ``path`` in the format of its extension (``'-'``: JSONL to standard output).

    A file is written to a temporary name and renamed, so a failure never
    leaves half a file (and the input may be the output).
    """
    kind = file_format(path)
    if path == STDIO:
        _write_text(table, kind, sys.stdout)
        sys.stdout.flush()
        return
    target = Path(path)
    if not target.parent.is_dir():
        raise InputError(f"{path}: directory {str(target.parent)!r} does not exist")
    if kind in ("parquet", "excel"):
        pd = require_pandas(kind)
    if target.is_dir():
        raise InputError(f"{path}: is a directory; give the output file's name")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix, dir=target.parent)
        # mkstemp creates 0600; the output gets the mode of the file it replaces, or the umask's.
        os.chmod(tmp, _mode_for(target))
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror})") from exc
    try:
        if kind in ("parquet", "excel"):
            os.close(fd)
            frame = table.rows if table.is_frame else pd.DataFrame.from_records(table.rows, columns=table.columns)
            if kind == "excel" and table.sheets is not None and len(table.sheets) > 1:
                _write_sheets(pd, table, table.sheets, frame, tmp, path)
            else:
                _write_frame(_with_sheet_column(table, frame), kind, tmp, path, _sheet_name(table))
            os.chmod(tmp, _mode_for(target))  # some writers replace the file
        else:
            with open(fd, "w", encoding="utf-8", newline="") as handle:
                _write_text(table, kind, handle)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _sheet_name(table: Table) -> str:
    return table.sheets[0][0] if table.sheets else "Sheet1"


def _with_sheet_column(table: Table, frame: Any) -> Any:
    """Rows of a workbook of several sheets written as one table say which sheet they came from."""
    sheet_of = table.sheet_column()
    if sheet_of is None or "sheet" in frame.columns:
        return frame
    return frame.assign(sheet=sheet_of)


def _write_sheets(pd: Any, table: Table, sheets: list[tuple[str, list[str]]], frame: Any, tmp: str, path: str) -> None:
    """A workbook in, a workbook out: each sheet under its name, with its own columns and the added ones."""
    sheet_of = table.sheet_column()
    added = [column for column in table.columns if all(column not in names for _, names in sheets)]
    try:
        with pd.ExcelWriter(tmp) as writer:
            for name, names in sheets:
                rows = frame[[sheet == name for sheet in sheet_of or []]]
                rows[[*names, *[c for c in added if c not in names]]].to_excel(writer, sheet_name=name, index=False)
    except ImportError as exc:
        raise missing_dependency(exc.name or ENGINES["excel"], "excel") from exc
    except OSError:
        raise
    except Exception as exc:  # openpyxl refuses some values with its own types
        raise InputError(f"{path}: cannot write as Excel ({type(exc).__name__}: {exc})") from exc


def _write_frame(frame: Any, kind: str, tmp: str, path: str, sheet: str = "Sheet1") -> None:
    try:
        if kind == "parquet":
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_excel(tmp, index=False, sheet_name=sheet)
    except ImportError as exc:
        raise missing_dependency(exc.name or ENGINES[kind], kind) from exc
    except OSError:
        raise
    except Exception as exc:  # pyarrow and openpyxl refuse some values with their own types (mixed column types, ...)
        raise InputError(f"{path}: cannot write as {kind.capitalize()} ({type(exc).__name__}: {exc})") from exc


def _write_text(table: Table, kind: str, handle: IO[str]) -> None:
    if table.is_frame:
        frame = _with_sheet_column(table, table.rows)
        if kind == "jsonl":
            frame.to_json(handle, orient="records", lines=True, force_ascii=False, date_format="iso")
        else:
            frame.to_csv(handle, index=False)
        return
    if kind == "jsonl":
        for row in table.rows:
            handle.write(json.dumps(row, ensure_ascii=False))
            handle.write("\n")
        return
    writer = csv.writer(handle)
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([_csv_cell(row.get(name)) for name in table.columns])


def _csv_cell(value: Any) -> Any:
    # Nested JSON values stay JSON in a CSV cell; a missing one is an empty cell.
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return value
