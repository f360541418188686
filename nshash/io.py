"""Tables of documents in files: JSONL, CSV, Parquet and Excel, chosen by extension.

Used by ``nshash dedup``; writing is in :mod:`nshash.output`.  JSONL and CSV are read and written with the
standard library (values round-trip exactly, row by row, with line numbers
for every error); Parquet and Excel go through pandas (``nshash[parquet]``,
``nshash[excel]``).  ``-`` is standard input or output, as JSONL.

Every problem with a file is an :class:`InputError` whose message is one line
naming the file and the line (or row) numbers, and no row is ever skipped.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Final

from nshash.encoding import check_encoding, decode_bytes
from nshash.errors import InputError as InputError  # re-exported: nshash.io.InputError stays valid
from nshash.errors import missing_dependency

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
ENGINES: Final = {"parquet": "pyarrow", "excel": "openpyxl"}
# How many bad line numbers one message lists before it says "and N more".
_SHOWN_ERRORS: Final = 10


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

    def __init__(
        self,
        source: str,
        rows: Any,
        columns: list[str],
        places: Sequence[int] | None,
        unit: str,
        sheets: list[tuple[str, list[str]]] | None = None,
        sheet_of: list[str] | None = None,
    ) -> None:
        self.source = source
        self.rows = rows
        self.columns = columns
        self._places = places
        self._unit = unit
        #: A workbook's sheets in order, each with its own columns (``None`` for other formats).
        self.sheets = sheets
        # The sheet of each row, when the workbook has more than one.
        self._sheet_of = sheet_of

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def is_frame(self) -> bool:
        return not isinstance(self.rows, list)

    def where(self, index: int) -> str:
        place = self._places[index] if self._places is not None else index + 1
        sheet = f"sheet {self._sheet_of[index]!r} " if self._sheet_of is not None else ""
        return f"{sheet}{self._unit} {place}"

    def sheet_column(self) -> list[str] | None:
        """The sheet of each row, for a workbook of several sheets (else ``None``)."""
        return None if self._sheet_of is None else list(self._sheet_of)

    def texts(self, field: str) -> list[str]:
        """The documents in column ``field``, one per row.

        Raises:
            InputError: no such column, or rows whose value is missing or not text
                (all of their line numbers are given).
        """
        if (self.is_frame or self.rows) and field not in self.columns:  # no row has it (some rows lack it: below)
            hint = _field_hint(self.columns)
            raise InputError(f"{self.source}: no field {field!r} (fields: {_names(self.columns)}); {hint}")
        values = self.rows[field].tolist() if self.is_frame else [row.get(field) for row in self.rows]
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
        if self._sheet_of is not None:
            self._sheet_of = [sheet for sheet, kept in zip(self._sheet_of, mask) if kept]


# -- reading ------------------------------------------------------------------------------
def read_table(path: str, encoding: str = "utf-8") -> Table:
    """Read a file of documents (``'-'``: JSONL from standard input).

    Args:
        path: the file; its extension gives the format (:data:`FORMATS`).
        encoding: of a JSONL or CSV file (``'gb18030'``, ...), or ``'auto'`` to
            detect it (``nshash[detect]``); output is always UTF-8.

    Raises:
        InputError: missing or unreadable file, a directory, malformed rows (with line numbers).
        MissingDependencyError: Parquet or Excel without its extra, ``'auto'`` without ``nshash[detect]``.
        UnknownEncodingError: an unknown encoding (a ``LookupError``).
    """
    if path != STDIO and os.path.isdir(path):
        check_input_path(path)
    kind = file_format(path)
    check_encoding(encoding)
    if path == STDIO:
        return _read_text_table(kind, sys.stdin.buffer, "<stdin>", encoding)
    check_input_path(path)
    if kind in ("jsonl", "csv"):
        try:
            with open(path, "rb") as handle:
                return _read_text_table(kind, handle, path, encoding)
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror})") from exc
    return _read_frame(path, kind)


def check_input_path(path: str) -> None:
    """Refuse a path that does not exist or is a directory, with a message that says which.

    >>> check_input_path(".")
    Traceback (most recent call last):
    ...
    nshash.errors.InputError: .: is a directory; give a file (JSONL, CSV, Parquet or Excel)
    """
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory; give a file (JSONL, CSV, Parquet or Excel)")
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")


def _read_text_table(kind: str, stream: IO[bytes], source: str, encoding: str) -> Table:
    if encoding == "auto" or codecs.lookup(encoding).name != "utf-8":
        # Decoded whole, then read as UTF-8: the line numbers stay those of the file.
        stream = io.BytesIO(decode_bytes(stream.read(), source, encoding).encode("utf-8", "surrogatepass"))
    return _read_jsonl(stream, source) if kind == "jsonl" else _read_csv(stream, source)


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
            # Some of json's messages end in "at" and expect the position after them.
            place = f"column {exc.colno}" if exc.msg.endswith(" at") else f"at column {exc.colno}"
            errors.add(f"line {number}", f"invalid JSON: {exc.msg} {place}")
            continue
        except RecursionError:
            errors.add(f"line {number}", "invalid JSON: nested too deeply")
            continue
        except ValueError as exc:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
            # In words of our own: Python's differ between versions ("(4300)", "(4300 digits)").
            limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
            problem = f"an integer of more than {limit} digits" if limit else str(exc).split(":")[0]
            errors.add(f"line {number}", f"invalid JSON: {problem}")
            continue
        if not isinstance(row, dict):
            errors.add(f"line {number}", f"expected a JSON object, found {type(row).__name__}")
            continue
        if "\\u" in text and _has_lone_surrogate(row):
            errors.add(f"line {number}", "invalid JSON: a \\ud800-\\udfff escape that is not part of a pair")
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
    pd = require_pandas(kind)
    try:
        # Every sheet of a workbook: {name: frame}, in the workbook's order.
        read = pd.read_parquet(path) if kind == "parquet" else pd.read_excel(path, sheet_name=None)
    except ImportError as exc:
        raise missing_dependency(exc.name or ENGINES[kind], kind) from exc
    except Exception as exc:  # pyarrow, openpyxl and zipfile each raise their own types for a bad file
        raise InputError(f"{path}: not a readable {kind.capitalize()} file ({type(exc).__name__}: {exc})") from exc
    if kind == "parquet":
        frame = _string_columns(read)
        return Table(path, frame, list(frame.columns), range(1, len(frame) + 1), "row")
    frames = {str(name): _string_columns(sheet) for name, sheet in read.items()}
    sheets = [(name, list(sheet.columns)) for name, sheet in frames.items()]
    # Excel users see the header on row 1, so data row i is row i + 2.
    places = [row + 2 for sheet in frames.values() for row in range(len(sheet))]
    sheet_of = [name for name, sheet in frames.items() for _ in range(len(sheet))] if len(frames) > 1 else None
    frame = pd.concat(list(frames.values()), ignore_index=True) if len(frames) > 1 else next(iter(frames.values()))
    columns = list(dict.fromkeys(column for _, names in sheets for column in names))
    return Table(path, frame, columns, places, "row", sheets=sheets, sheet_of=sheet_of)


def _string_columns(frame: Any) -> Any:
    frame.columns = [str(name) for name in frame.columns]
    return frame.reset_index(drop=True)


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


def _has_lone_surrogate(value: Any) -> bool:
    """Whether a string in a loaded JSON value holds a lone surrogate (no UTF-8 text can)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


#: Column names datasets give their texts, in the order a missing ``--field`` suggests them.
_TEXT_FIELDS: Final = ("text", "content", "body", "article", "html", "page", "document", "doc")


def _field_hint(columns: Sequence[str]) -> str:
    # The default field, 'content', is not every dataset's name: say which flag picks another.
    likely = [c for name in _TEXT_FIELDS for c in columns if c.lower() == name] or list(columns[-1:])
    return "name the text's with --field" + (f", e.g. --field {likely[0]}" if likely else "")


def _names(names: Sequence[str]) -> str:
    return ", ".join(repr(name) for name in names) or "none"


def require_pandas(kind: str) -> Any:
    try:
        import pandas as pd
    except ImportError as exc:
        raise missing_dependency("pandas", kind) from exc
    return pd
