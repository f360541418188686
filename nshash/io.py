"""Tables of documents in files: JSONL, CSV, Parquet and Excel, chosen by extension.

Used by ``nshash dedup``.  JSONL and CSV are read and written with the
standard library (values round-trip exactly, row by row, with line numbers
for every error); Parquet and Excel go through pandas (``nshash[parquet]``,
``nshash[excel]``).  ``-`` is standard input or output, as JSONL.

Every problem with a file is an :class:`InputError` whose message is one line
naming the file and the line (or row) numbers, and no row is ever skipped.
"""

from __future__ import annotations

import csv
import json
import math
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Final

from nshash.errors import NSHashError, missing_dependency

#: File extensions and the format each one means.
FORMATS: Final = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".parquet": "parquet",
    ".xlsx": "excel",
}
STDIO: Final = "-"
# The library pandas needs for each format (named in the install hint).
_ENGINES: Final = {"parquet": "pyarrow", "excel": "openpyxl"}
# How many bad line numbers one message lists before it says "and N more".
_SHOWN_ERRORS: Final = 10


class InputError(NSHashError, ValueError):
    """A file of documents cannot be read or written as asked (missing, malformed, no such column)."""


def file_format(path: str) -> str:
    """The format of ``path`` by its extension (``'-'`` is JSONL).

    >>> file_format("pages.JSONL"), file_format("-")
    ('jsonl', 'jsonl')
    """
    if path == STDIO:
        return "jsonl"
    suffix = Path(path).suffix.lower()
    try:
        return FORMATS[suffix]
    except KeyError:
        known = ", ".join(FORMATS)
        raise InputError(f"{path}: unknown file type {suffix or '(no extension)'!r}; use one of {known}") from None


class Table:
    """Rows of a file: a list of dicts (JSONL, CSV) or a pandas DataFrame (Parquet, Excel).

    ``where(i)`` names row ``i`` in messages the way the user finds it in
    the file: a line number for text files, a row number for the others.
    """

    def __init__(self, source: str, rows: Any, columns: list[str], places: Sequence[int] | None, unit: str) -> None:
        self.source = source
        self.rows = rows
        self.columns = columns
        self._places = places
        self._unit = unit

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def is_frame(self) -> bool:
        return not isinstance(self.rows, list)

    def where(self, index: int) -> str:
        place = self._places[index] if self._places is not None else index + 1
        return f"{self._unit} {place}"

    def texts(self, field: str) -> list[str]:
        """The documents in column ``field``, one per row.

        Raises:
            InputError: no such column, or rows whose value is missing or not text
                (all of their line numbers are given).
        """
        if self.is_frame:
            if field not in self.rows.columns:
                raise InputError(f"{self.source}: no column {field!r} (columns: {_names(self.columns)})")
            values = self.rows[field].tolist()
        else:
            if self.rows and not any(field in row for row in self.rows):
                raise InputError(f"{self.source}: no field {field!r} in any row (fields: {_names(self.columns)})")
            values = [row.get(field) for row in self.rows]
        errors = _Errors(self.source)
        for index, value in enumerate(values):
            if not isinstance(value, str):
                what = "missing" if is_missing(value) else f"{type(value).__name__}, not text"
                errors.add(self.where(index), f"field {field!r} is {what}")
        errors.raise_if_any()
        return list(values)

    def add_column(self, name: str, values: Sequence[Any]) -> None:
        """Set column ``name`` (replaced in place if it exists, else added last)."""
        if self.is_frame:
            self.rows[name] = list(values)
        else:
            for row, value in zip(self.rows, values):
                row[name] = value
        if name not in self.columns:
            self.columns.append(name)

    def keep(self, mask: Sequence[bool]) -> None:
        """Keep only the rows where ``mask`` is true."""
        if self.is_frame:
            self.rows = self.rows[list(mask)].reset_index(drop=True)
        else:
            self.rows = [row for row, kept in zip(self.rows, mask) if kept]
        self._places = None if self._places is None else [p for p, kept in zip(self._places, mask) if kept]


# -- reading ------------------------------------------------------------------------------
def read_table(path: str) -> Table:
    """Read a file of documents (``'-'``: JSONL from standard input).

    Raises:
        InputError: missing or unreadable file, malformed rows (with line numbers).
        MissingDependencyError: Parquet or Excel without its extra.
    """
    kind = file_format(path)
    if path == STDIO:
        return _read_jsonl(sys.stdin.buffer, "<stdin>")
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a file")
    if kind in ("jsonl", "csv"):
        try:
            with open(path, "rb") as handle:
                return _read_jsonl(handle, path) if kind == "jsonl" else _read_csv(handle, path)
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror})") from exc
    return _read_frame(path, kind)


def _read_jsonl(stream: IO[bytes], source: str) -> Table:
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    columns: dict[str, None] = {}
    errors = _Errors(source)
    for number, raw in enumerate(stream, 1):
        text = _decode_line(raw, number, errors)
        if text is None:
            continue
        if number == 1:
            text = text.lstrip("\ufeff")
        if not text.strip():  # blank lines (a trailing newline) are not rows
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            errors.add(f"line {number}", f"invalid JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(row, dict):
            errors.add(f"line {number}", f"expected a JSON object, found {type(row).__name__}")
            continue
        rows.append(row)
        lines.append(number)
        columns.update(dict.fromkeys(row))
    errors.raise_if_any()
    return Table(source, rows, list(columns), lines, "line")


def _read_csv(stream: IO[bytes], source: str) -> Table:
    errors = _Errors(source)
    physical = [0]

    def decoded() -> Iterator[str]:
        # csv wants text; decoding line by line keeps the line number of a bad byte.
        for number, raw in enumerate(stream, 1):
            physical[0] = number
            text = _decode_line(raw, number, errors)
            yield raw.decode("utf-8", "replace") if text is None else text

    # Scraped pages are often longer than csv's default limit of 128 KiB per field.
    csv.field_size_limit(2**31 - 1)
    reader = csv.reader(decoded())
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    header: list[str] | None = None
    try:
        for record in reader:
            if not record:  # a blank line is not a row
                continue
            # The row's first line: the reader has consumed the lines of its quoted newlines too.
            start = physical[0] - sum(field.count("\n") for field in record)
            if header is None:
                header = [record[0].lstrip("\ufeff"), *record[1:]]
                duplicated = sorted({name for name in header if header.count(name) > 1})
                if duplicated:
                    raise InputError(f"{source} line {start}: duplicate column names {_names(duplicated)}")
                continue
            if len(record) != len(header):
                errors.add(f"line {start}", f"{len(record)} fields, the header has {len(header)}")
                continue
            rows.append(dict(zip(header, record)))
            lines.append(start)
    except csv.Error as exc:
        raise InputError(f"{source} line {physical[0]}: unreadable CSV ({exc})") from exc
    errors.raise_if_any()
    if header is None:
        raise InputError(f"{source}: empty CSV file (no header line)")
    return Table(source, rows, header, lines, "line")


def _read_frame(path: str, kind: str) -> Table:
    pd = _pandas(kind)
    try:
        frame = pd.read_parquet(path) if kind == "parquet" else pd.read_excel(path, sheet_name=0)
    except ImportError as exc:
        raise missing_dependency(exc.name or _ENGINES[kind], kind) from exc
    except Exception as exc:  # pyarrow, openpyxl and zipfile each raise their own types for a bad file
        raise InputError(f"{path}: not a readable {kind.capitalize()} file ({type(exc).__name__}: {exc})") from exc
    columns = [str(name) for name in frame.columns]
    frame.columns = columns
    frame = frame.reset_index(drop=True)
    # Excel users see the header on row 1, so data row i is row i + 2.
    places = range(2, len(frame) + 2) if kind == "excel" else range(1, len(frame) + 1)
    return Table(path, frame, columns, places, "row")


# -- writing ------------------------------------------------------------------------------
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
        pd = _pandas(kind)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix, dir=target.parent)
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror})") from exc
    try:
        if kind in ("parquet", "excel"):
            os.close(fd)
            frame = table.rows if table.is_frame else pd.DataFrame.from_records(table.rows, columns=table.columns)
            _write_frame(frame, kind, tmp, path)
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


def _write_frame(frame: Any, kind: str, tmp: str, path: str) -> None:
    try:
        if kind == "parquet":
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_excel(tmp, index=False)
    except ImportError as exc:
        raise missing_dependency(exc.name or _ENGINES[kind], kind) from exc
    except OSError:
        raise
    except Exception as exc:  # pyarrow and openpyxl refuse some values with their own types (mixed column types, ...)
        raise InputError(f"{path}: cannot write as {kind.capitalize()} ({type(exc).__name__}: {exc})") from exc


def _write_text(table: Table, kind: str, handle: IO[str]) -> None:
    if table.is_frame:
        if kind == "jsonl":
            table.rows.to_json(handle, orient="records", lines=True, force_ascii=False, date_format="iso")
        else:
            table.rows.to_csv(handle, index=False)
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


# -- helpers ------------------------------------------------------------------------------
class _Errors:
    """Collects bad rows so that one message lists all their line numbers."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.found: list[tuple[str, str]] = []

    def add(self, where: str, problem: str) -> None:
        self.found.append((where, problem))

    def raise_if_any(self) -> None:
        if not self.found:
            return
        where, problem = self.found[0]
        message = f"{self.source} {where}: {problem}"
        others = self.found[1:]
        if others:
            shown = ", ".join(place for place, _ in others[:_SHOWN_ERRORS])
            more = f", and {len(others) - _SHOWN_ERRORS} more" if len(others) > _SHOWN_ERRORS else ""
            message += f" (also bad: {shown}{more})"
        raise InputError(message)


def _decode_line(raw: bytes, number: int, errors: _Errors) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        errors.add(f"line {number}", f"not valid UTF-8 (byte {exc.start + 1} of the line)")
        return None


def is_missing(value: object) -> bool:
    """Whether ``value`` is a missing value: ``None``, a float ``NaN``, ``pd.NA`` or ``pd.NaT``.

    >>> [is_missing(v) for v in (None, float("nan"), "", 0)]
    [True, True, False, False]
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return True
    return type(value).__name__ in ("NAType", "NaTType")


def _names(names: Sequence[str]) -> str:
    return ", ".join(repr(name) for name in names) or "none"


def _pandas(kind: str) -> Any:
    try:
        import pandas as pd
    except ImportError as exc:
        raise missing_dependency("pandas", kind) from exc
    return pd
