"""The keys and values a ``tf.lookup.TextFileInitializer`` reads from a text file, as
TF's ``InitializeTableFromTextFile`` kernel reads them, vectorised over the lines.

Each line (``\\n``-terminated, a trailing ``\\r`` dropped) gives one entry: the whole line
(``WHOLE_LINE``, -2), its number (``LINE_NUMBER``, -1) or one of its ``delimiter``-split
fields. An empty line, a line with too few fields, a field that is not the number its
dtype asks for, or fewer lines than ``vocab_size`` is refused with TF's message, naming
the file. The file is read whole, up to the bound vocabulary files have
(:data:`~colonnade.feature_columns.vocabulary.MAX_VOCABULARY_FILE_BYTES`).
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from colonnade.feature_columns.vocabulary import read_vocabulary_bytes

WHOLE_LINE, LINE_NUMBER = -2, -1

__all__ = ["LINE_NUMBER", "WHOLE_LINE", "read_text_file_columns"]


def _read_lines(path: str, vocab_size) -> tuple[pa.Array, np.ndarray]:
    """The first ``vocab_size`` lines of ``path`` (all when ``None``) and the byte offset
    just past each one's newline."""
    try:
        data = read_vocabulary_bytes(path, path)
    except FileNotFoundError as e:  # TF's words
        raise FileNotFoundError(f"{path}; No such file or directory") from e
    if not data:
        raise ValueError(f"{path} is empty: a vocabulary file needs at least one line")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 text ({e.reason} at byte {e.start})") from e
    lines = pc.split_pattern(pa.array([data.decode("utf-8")]), "\n").values
    if len(lines) and data.endswith(b"\n"):
        lines = lines.slice(0, len(lines) - 1)  # the final newline ends the last line
    ends = np.cumsum(pc.binary_length(lines).to_numpy(zero_copy_only=False) + 1)
    if vocab_size is not None:
        if len(lines) < vocab_size:
            raise ValueError(
                f"Invalid vocab_size in {path}: expected {vocab_size} but got {len(lines)}"
            )
        lines, ends = lines.slice(0, vocab_size), ends[:vocab_size]
    lines = pc.replace_substring_regex(lines, "\r$", "")
    empty = np.flatnonzero(pc.equal(lines, "").to_numpy(zero_copy_only=False))
    if len(empty):
        raise ValueError(
            f"Invalid content in {path}: empty line found at position {int(ends[empty[0]])}."
        )
    return lines, ends


def _field(lines, fields, index: int, path: str):
    """Column ``index`` of each line (its whole text, or its number)."""
    if index == WHOLE_LINE:
        return lines
    if index == LINE_NUMBER:
        return pa.array(np.arange(len(lines), dtype=np.int64))
    counts = pc.list_value_length(fields).to_numpy(zero_copy_only=False)
    short = np.flatnonzero(counts <= index)
    if len(short):
        i = int(short[0])
        raise ValueError(
            f"Invalid number of columns in {path} line {i} ({lines[i].as_py()}) : expected at "
            f"least {index + 1} got {int(counts[i])}"
        )
    return pc.list_element(fields, index)


_NUMBER = {
    "integer": r"^\s*[+-]?[0-9]+\s*$",
    "float": r"^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*$",
}


def _typed(column, dtype: str, path: str) -> np.ndarray:
    """The text ``column`` as ``dtype`` values (strings as an object array)."""
    if dtype == "string":
        return column.to_numpy(zero_copy_only=False).astype(object)
    if pa.types.is_integer(column.type):
        return column.to_numpy().astype(dtype)
    kind = "integer" if np.dtype(dtype).kind in "iu" else "float"
    ok = pc.match_substring_regex(column, _NUMBER[kind]).to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(~ok)
    if len(bad):
        i = int(bad[0])
        name = dtype if kind == "integer" else "float"
        raise ValueError(f"Field {column[i].as_py()} in line {i} is not a valid {name}.")
    trimmed = pc.utf8_trim_whitespace(column)
    if kind == "integer":
        return pc.cast(trimmed, pa.int64()).to_numpy().astype(dtype)
    return pc.cast(trimmed, pa.float64()).to_numpy().astype(dtype)


def read_text_file_columns(
    path: str,
    key_index: int,
    key_dtype: str,
    value_index: int,
    value_dtype: str,
    vocab_size=None,
    delimiter: str = "\t",
    value_index_offset: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, values)`` of ``path``, one of each a line: see the module."""
    path = os.fspath(path)
    if len(delimiter) != 1:
        raise ValueError(f"delimiter should be only 1 char, got {delimiter!r} (file {path})")
    lines, _ = _read_lines(path, vocab_size)
    fields = None
    if key_index >= 0 or value_index >= 0:
        fields = pc.split_pattern(lines, delimiter)
    keys = _typed(_field(lines, fields, key_index, path), key_dtype, path)
    values = _typed(_field(lines, fields, value_index, path), value_dtype, path)
    if value_index == LINE_NUMBER and value_index_offset:
        values = values + np.int64(value_index_offset)
    return keys, values
