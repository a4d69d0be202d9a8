"""``tf.data.experimental.make_csv_dataset``: batches of ``(features, label)`` from CSV
files, with TF's arguments and defaults, over :meth:`Dataset.from_csv`.

As TF's: the header names the columns (or ``column_names`` does), ``column_defaults``
type the columns and fill their empty (or ``na_value``) fields, the rows are shuffled
(``shuffle_buffer_size`` 10,000), repeated forever (``num_epochs=None``) and batched.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.dataset as pads

from .arrow_inputs import csv_format
from .csv_checks import check_delimiter, encoding_name, first_rows_types
from .csv_records import default_and_type
from .dataset import Dataset
from .sources import resolve_paths

__all__ = ["make_csv_dataset"]


def make_csv_dataset(
    file_pattern,
    batch_size,
    column_names=None,
    column_defaults=None,
    label_name=None,
    select_columns=None,
    field_delim=",",
    use_quote_delim=True,
    na_value="",
    header=True,
    num_epochs=None,
    shuffle=True,
    shuffle_buffer_size=10000,
    shuffle_seed=None,
    prefetch_buffer_size=None,
    num_parallel_reads=None,
    sloppy=False,
    num_rows_for_inference=100,
    compression_type=None,
    ignore_errors=False,
    encoding="utf-8",
) -> Dataset:
    """Batches of ``(features, label)`` (``features`` alone without ``label_name``) read
    from the CSV files matching ``file_pattern`` (a path, glob or list of them).

    ``column_defaults`` holds one entry per column (per ``select_columns`` entry when
    given): a default value, whose type types the column (float: float32, int: int32,
    str: string), or ``[]`` for a required column of an inferred type. Without
    ``column_defaults`` the types are inferred and an empty field is a missing value.
    Without a type from ``column_defaults``, a column takes the type Arrow infers from
    the first ``num_rows_for_inference`` rows of the first file (None: its first block);
    a later value that does not fit is an error naming the file, row, column and value,
    as TF's. ``num_parallel_reads``, ``sloppy`` and ``ignore_errors`` are accepted and not
    needed (reading is streamed and ordered); ``compression_type``
    must be ``None``. ``encoding`` is a Python codec name (``"latin-1"``); bytes not
    valid in it are an error naming the file, the line and the byte offset.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    >>> _ = open(path, "w").write("age,y\\n39,1\\n50,0\\n")
    >>> ds = make_csv_dataset(path, 2, label_name="y", shuffle=False, num_epochs=1)
    >>> [(f.column("age").to_pylist(), y.tolist()) for f, y in ds]
    [([39, 50], [1, 0])]
    """
    if compression_type not in (None, ""):
        raise ValueError(
            f"make_csv_dataset reads uncompressed CSV; got compression_type={compression_type!r}"
            " (decompress the files, or convert them to Parquet)"
        )
    if not header and column_names is None:
        raise ValueError("files without a header (header=False) need column_names")
    wanted = _selected(select_columns, column_names)
    if column_defaults is not None and wanted is None and column_names is None:
        check_delimiter(field_delim, '"' if use_quote_delim else False, "field_delim")
        # the defaults pair with the header's columns by position
        column_names = _header(file_pattern, field_delim, encoding)
    defaults = _defaults(column_defaults, wanted or column_names)
    types = {
        k: pa.string() if t.kind == "O" else pa.from_numpy_dtype(t)
        for k, (_, t) in defaults.items()
    }
    nulls = [""] + ([na_value] if na_value else [])
    skip = 1 if header and column_names is not None else 0
    fmt = csv_format(
        types,
        field_delim,
        column_names,
        nulls,
        skip,
        quoted=use_quote_delim,
        encoding=encoding,
        delimiter_name="field_delim",
    )
    if num_rows_for_inference:
        fmt = _inferred_from_first_rows(file_pattern, fmt, types, num_rows_for_inference)
    dataset = Dataset.from_files(file_pattern, format=fmt, columns=wanted)
    fills = {k: d for k, (d, _) in defaults.items() if d is not None}
    if fills:
        dataset = dataset.map(lambda batch: _filled(batch, fills))
    if label_name is not None:
        dataset = dataset.with_label(label_name)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    dataset = dataset.repeat(num_epochs).batch(batch_size)
    return dataset.prefetch(prefetch_buffer_size) if prefetch_buffer_size else dataset


def _inferred_from_first_rows(file_pattern, fmt, types, rows):
    """``fmt`` with the types Arrow infers from the first ``rows`` rows of the first file
    (TF's ``num_rows_for_inference``) for the columns ``types`` leaves untyped: a value
    past those rows that does not fit its column is then an error naming the file, row,
    column and value, not a column silently read as text."""
    filesystem, _, files = resolve_paths(file_pattern)
    if not files:
        return fmt
    inferred = first_rows_types(files[0], filesystem, fmt, rows)
    untyped = {k: t for k, t in inferred.items() if k not in types}
    if not untyped:
        return fmt
    scan = fmt.default_fragment_scan_options
    convert = scan.convert_options
    convert.column_types = {**dict(convert.column_types), **untyped}
    return pads.CsvFileFormat(
        parse_options=fmt.parse_options, convert_options=convert, read_options=scan.read_options
    )


def _header(file_pattern, delimiter, encoding) -> list:
    """The column names of the first file's header."""
    fmt = pads.CsvFileFormat(
        parse_options=pacsv.ParseOptions(delimiter=delimiter),
        read_options=pacsv.ReadOptions(encoding=encoding_name(encoding)),
    )
    return Dataset.from_files(file_pattern, format=fmt).schema.names


def _selected(select_columns, column_names):
    """``select_columns`` as names (TF also takes indices into ``column_names``)."""
    if select_columns is None:
        return None
    selected = list(select_columns)
    if all(isinstance(c, int) for c in selected):
        if column_names is None:
            raise ValueError("select_columns given as indices need column_names")
        return [list(column_names)[i] for i in selected]
    return [str(c) for c in selected]


def _defaults(column_defaults, names) -> dict:
    """``{column: (default or None, numpy dtype)}`` of ``column_defaults``' typed entries."""
    if column_defaults is None:
        return {}
    if names is None:
        raise ValueError(
            "column_defaults are matched to columns by position: give column_names (or "
            "select_columns) with them"
        )
    names = list(names)
    if len(column_defaults) != len(names):
        raise ValueError(
            f"column_defaults has {len(column_defaults)} entries for {len(names)} columns"
        )
    typed = {}
    for i, (name, entry) in enumerate(zip(names, column_defaults)):
        if isinstance(entry, (list, tuple)) and not entry:
            continue  # required, type inferred
        typed[name] = default_and_type(entry, i)
    return typed


def _filled(batch: pa.RecordBatch, fills: dict) -> pa.RecordBatch:
    columns = {
        name: pc.fill_null(column, pa.scalar(fills[name], column.type)) if name in fills else column
        for name, column in zip(batch.schema.names, batch.columns)
    }
    return pa.record_batch(columns)
