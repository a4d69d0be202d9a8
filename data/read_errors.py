"""Errors of Arrow's file readers said again with the file, the row (or line), the
column and the value at fault: Arrow's JSON reader names a row of the block it was
reading and not the value; its CSV reader names a column by its index."""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.dataset as pads
import pyarrow.fs as pafs

__all__ = ["JSON_SCAN_LINES", "csv_column", "csv_conversion", "json_clash", "json_lines_clash"]

# Lines of a JSON lines file read at most to find the line its reader refused.
JSON_SCAN_LINES = 10_000_000


def _json_kind(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def json_lines_clash(path) -> str | None:
    """Where a local JSON lines file first gives a key a value of another kind than its
    first (a string where the lines before hold numbers), or a line is not JSON: "line N,
    key 'k' holds ..." (lines from 1), or None. Read only after Arrow's reader refused
    the file, whose message names a row of its block and not the value."""
    import json

    first = {}  # key -> (kind, line)
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if number > JSON_SCAN_LINES:
                    return None
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as err:
                    return f"line {number} is not JSON ({err}): {line.strip()[:80]!r}"
                if not isinstance(row, dict):
                    return f"line {number} holds {_json_kind(row)}, not an object of columns"
                for key, value in row.items():
                    kind = _json_kind(value)
                    seen = first.setdefault(key, (kind, number)) if kind else None
                    if seen is not None and seen[0] != kind:
                        return (
                            f"line {number}, key {key!r} holds {value!r} ({kind}) where line "
                            f"{seen[1]} holds {seen[0]}"
                        )
    except (OSError, UnicodeDecodeError):
        return None
    return None


def json_clash(files, filesystem) -> str | None:
    """ "'FILE': line N, key ..." for the first local JSON lines file of ``files`` with a
    value of another kind than its column's (:func:`json_lines_clash`), or None."""
    if not isinstance(filesystem, pafs.LocalFileSystem):
        return None
    for path in files:
        clash = json_lines_clash(path)
        if clash is not None:
            return f"'{path}': {clash}"
    return None


_CSV_COLUMN = re.compile(r"In CSV column #(\d+): Row #\d+: CSV conversion error to (\S+):")


def csv_column(err, physical) -> str:
    """For Arrow's "In CSV column #3: Row #N: CSV conversion error to int64: invalid value
    'x'" (a value unlike the rows its type was inferred from, or ``column_types``), the
    name of that column; else ""."""
    found = _CSV_COLUMN.search(str(err))
    if found is None or int(found.group(1)) >= len(physical.names):
        return ""
    name = physical.names[int(found.group(1))]
    return (
        f". Column #{found.group(1)} is {name!r}, read as {found.group(2)} (the type of its "
        "first rows, or column_types): fix or drop that value (Arrow's row numbers count "
        "the header as row 1)"
    )


_CSV_SOURCE = re.compile(r"Could not open CSV input source '(.+?)': Invalid: (In CSV column #.*)")


def csv_conversion(err, format) -> str | None:
    """Arrow's conversion error while it reads a CSV file's first rows for the schema
    (a ``column_types`` type that a value does not fit), as the error of a read: the
    file, Arrow's row and value, and the column's name from the file's header; else
    None."""
    found = _CSV_SOURCE.search(str(err))
    if found is None:
        return None
    path, detail = found.groups()
    try:
        csv = isinstance(format, pads.CsvFileFormat)
        options = format.default_fragment_scan_options.read_options if csv else None
        parse = format.parse_options if csv else None
        with pacsv.open_csv(path, read_options=options, parse_options=parse) as reader:
            physical = reader.schema
    except (pa.ArrowException, OSError):
        return None
    return f"error reading '{path}' (csv): {detail}{csv_column(detail, physical)}"
