"""``tf.io.decode_csv``: the fields of an array of CSV lines, with TF's semantics.

``decode_csv`` parses every line of a batch at once with pyarrow's CSV reader: no Python
loop over lines. Each column takes the type of its ``record_defaults`` entry (a float is
float32, an int int32, a string a string, as TF's constants; a numpy scalar keeps its
dtype), and an empty field takes that default; an entry ``[]`` makes the field required.

>>> ages, names = decode_csv(["39,Bob", ",Ann"], [[0], [""]])
>>> ages.tolist(), names.tolist()
([39, 0], ['Bob', 'Ann'])
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

__all__ = ["decode_csv", "default_and_type"]


def default_and_type(entry, column: int):
    """``(default or None if required, numpy dtype)`` of one ``record_defaults`` entry
    (``column`` is its index, for errors): TF's types of Python constants."""
    values = list(entry) if isinstance(entry, (list, tuple, np.ndarray)) else [entry]
    if len(values) > 1:
        raise ValueError(
            f"record_defaults[{column}] must hold at most one value (the default); "
            f"got {len(values)}"
        )
    if not values:
        return None, np.dtype(np.float32)
    value = values[0]
    if isinstance(value, (bytes, str)):
        return (value.decode() if isinstance(value, bytes) else value), np.dtype(object)
    if isinstance(value, np.generic):
        return value.item(), value.dtype
    if isinstance(value, bool):
        raise ValueError(f"record_defaults[{column}]: bool columns are not CSV types")
    if isinstance(value, int):
        return value, np.dtype(np.int32)
    if isinstance(value, float):
        return value, np.dtype(np.float32)
    raise ValueError(
        f"record_defaults[{column}] must be a float, int or string (or [] for a required "
        f"field); got {type(value).__name__}"
    )


def decode_csv(
    records,
    record_defaults,
    field_delim=",",
    use_quote_delim=True,
    name=None,
    na_value="",
    select_cols=None,
) -> list:
    """The columns of ``records`` (lines of CSV: an array of any shape, an Arrow array, or
    a batch of one column such as :func:`~.text_lines.TextLineDataset`'s) as a list of
    arrays of ``records``' shape, one per ``record_defaults`` entry (or per
    ``select_cols`` index).

    A field equal to ``na_value`` or empty takes its column's default; a required column
    (``[]``) without a value, a line with the wrong number of fields and a field that is
    not a number of its column's type are TF's ``ValueError``s, naming the record.

    >>> ids, scores = decode_csv([["1,0.5"], ["2,"]], [[0], [1.0]])
    >>> ids.tolist(), scores.tolist()
    ([[1], [2]], [[0.5], [1.0]])
    """
    from .csv_checks import check_delimiter

    check_delimiter(field_delim, '"' if use_quote_delim else False, "field_delim")
    if isinstance(records, (pa.RecordBatch, pa.Table)):  # a batch of TextLineDataset's
        if records.num_columns != 1:
            raise TypeError(
                f"decode_csv takes lines: a batch of one column; got {records.schema.names}"
            )
        records = records.column(0)
    shape = (
        (len(records),) if isinstance(records, (pa.Array, pa.ChunkedArray)) else np.shape(records)
    )
    lines = _as_strings(records)
    specs = [default_and_type(entry, i) for i, entry in enumerate(record_defaults)]
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if sorted(set(select_cols)) != select_cols:
            raise ValueError("select_cols must be strictly increasing column indices")
        if len(select_cols) != len(specs):
            raise ValueError(
                f"record_defaults has {len(specs)} entries but select_cols selects "
                f"{len(select_cols)} columns"
            )
    if not len(lines):
        return [np.zeros(shape, dtype) for _, dtype in specs]
    fields = len(specs) if select_cols is None else max(select_cols, default=-1) + 1
    empty = np.flatnonzero(pc.equal(lines, "").to_numpy(zero_copy_only=False))
    if empty.size:
        raise ValueError(f"Expect {fields} fields but have 0 in record {int(empty[0])}")
    if use_quote_delim:
        _check_quotes(lines)
    table = _read_strings(lines, field_delim, use_quote_delim, len(specs), select_cols)
    wanted = select_cols if select_cols is not None else range(len(specs))
    return [
        _typed_column(table.column(f"f{c}"), default, dtype, i, na_value).reshape(shape)
        for i, (c, (default, dtype)) in enumerate(zip(wanted, specs))
    ]


def _as_strings(records) -> pa.Array:
    """``records`` (str or bytes, any shape) flattened into one Arrow string array."""
    if isinstance(records, (pa.Array, pa.ChunkedArray)):
        array = records
    else:
        flat = np.asarray(records, dtype=object).reshape(-1)
        array = pa.array(
            flat, type=pa.binary() if flat.size and isinstance(flat[0], bytes) else None
        )
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    return array.cast(pa.string()) if array.type != pa.string() else array


def _check_quotes(lines: pa.Array) -> None:
    """TF's error for a record with an odd number of quotes: a quoted field not closed
    in its record (each record is one line; the reader would read on into the next)."""
    odd = pc.fill_null(pc.bit_wise_and(pc.count_substring(lines, '"'), 1), 0).to_numpy()
    if odd.any():
        record = int(np.flatnonzero(odd)[0])
        raise ValueError(
            f"Quoted field has to end with quote followed by delim or end, in record {record}:"
            f" {lines[record].as_py()[:80]!r} (a quote inside a quoted field is written twice;"
            " an unquoted field cannot hold one)"
        )


def _csv_body(lines: pa.Array) -> pa.Buffer:
    """The lines, each ended by a newline, as one buffer (built by Arrow, not per line)."""
    ended = pc.binary_join_element_wise(lines, pa.scalar(""), "\n")
    offsets = ended.buffers()[1]
    first, last = (
        int(x) for x in np.frombuffer(offsets, np.int32)[[ended.offset, ended.offset + len(ended)]]
    )
    return ended.buffers()[2].slice(first, last - first)


def _read_strings(lines, delimiter, quoted, n_fields, select_cols) -> pa.Table:
    """Every field of ``lines`` as a string column ``f0, f1, ...``; a line with another
    number of fields than the first (than ``n_fields`` without ``select_cols``) is TF's
    "Expect N fields but have M in record K"."""
    needed = n_fields if select_cols is None else max(select_cols, default=-1) + 1
    invalid = []

    def refuse(row):
        invalid.append(row)
        return "skip"

    table = pacsv.read_csv(
        pa.BufferReader(_csv_body(lines)),
        read_options=pacsv.ReadOptions(autogenerate_column_names=True),
        parse_options=pacsv.ParseOptions(
            delimiter=delimiter,
            quote_char='"' if quoted else False,
            ignore_empty_lines=False,
            invalid_row_handler=refuse,
        ),
        convert_options=pacsv.ConvertOptions(
            column_types={f"f{i}": pa.string() for i in range(needed)},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )
    if invalid:
        row = invalid[0]
        record = pc.index(lines, row.text).as_py()
        raise ValueError(
            f"Expect {row.expected_columns} fields but have {row.actual_columns} in record {record}"
        )
    if table.num_columns < needed or (select_cols is None and table.num_columns != needed):
        raise ValueError(f"Expect {needed} fields but have {table.num_columns} in record 0")
    return table


def _typed_column(column, default, dtype, index, na_value) -> np.ndarray:
    """One column of field strings as ``dtype``, its empty or ``na_value`` fields given
    ``default`` (a required column's are TF's error). A number may have whitespace around
    it, and a field of whitespace alone is empty, as TF parses them (``' 77516'`` in the
    census CSV); strings are kept as they are."""
    if dtype.kind != "O":
        column = pc.utf8_trim_whitespace(column)
    missing = pc.or_(pc.equal(column, ""), pc.equal(column, na_value))
    if pc.any(missing).as_py():
        if default is None:
            record = int(np.flatnonzero(missing.to_numpy(zero_copy_only=False))[0])
            raise ValueError(f"Field {index} is required but missing in record {record}!")
        column = pc.if_else(missing, str(default), column)
    if dtype.kind == "O":
        return column.to_numpy(zero_copy_only=False)
    try:
        return column.cast(pa.from_numpy_dtype(dtype)).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        record, text = _first_not_a(column, pa.from_numpy_dtype(dtype))
        raise ValueError(
            f"Field {index} in record {record} is not a valid {dtype.name}: {text}"
        ) from None


def _first_not_a(column, kind) -> tuple:
    """``(record, text)`` of the first field of ``column`` that does not cast to ``kind``
    (the error path only: one cast per field)."""
    for record, text in enumerate(column.to_pylist()):
        try:
            pa.scalar(text).cast(kind)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return record, text
    return -1, ""
