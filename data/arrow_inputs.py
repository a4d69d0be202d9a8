"""What users hand a :class:`~.dataset.Dataset` constructor, turned into Arrow: tables
from Arrow objects, DataFrames and dicts, and the CSV reading options.

Each conversion happens once, when the Dataset is built; a failure names what was
expected and, for a DataFrame, the column and row Arrow could not convert.

>>> as_arrow_table({"x": [1, 2]}, "from_dict takes a mapping").num_rows
2
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa
import pyarrow.dataset as pads

from .columns import pandas_conversion_error
from .polars_frames import as_arrow, is_polars

__all__ = ["as_arrow_table", "csv_format", "table_from_arrow", "table_from_pandas"]


def as_arrow_table(data, accepted: str) -> pa.Table:
    """``pa.table(data)``, or a ``TypeError`` that starts with ``accepted`` (what the
    caller takes) and names the type it got.

    >>> as_arrow_table(3, "write_tfrecord takes a table")
    Traceback (most recent call last):
    TypeError: write_tfrecord takes a table; got int
    """
    try:
        return pa.table(data)
    except (TypeError, pa.ArrowException) as err:
        raise TypeError(f"{accepted}; got {type(data).__name__}") from err


def table_from_arrow(data) -> pa.Table:
    """One table of an Arrow Table, RecordBatch, list of RecordBatches, RecordBatchReader
    (read whole), in-memory ``pyarrow.dataset.Dataset`` or polars DataFrame (its Arrow
    memory, :mod:`.polars_frames`).

    >>> table_from_arrow([pa.record_batch({"x": [1]}), pa.record_batch({"x": [2]})]).num_rows
    2
    """
    data = as_arrow(data, "from_arrow's data")
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pads.Dataset):
        return data.to_table()
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if isinstance(data, pa.RecordBatchReader):
        return data.read_all()
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], pa.RecordBatch):
        return pa.Table.from_batches(list(data))
    return as_arrow_table(
        data,
        "from_arrow takes a pyarrow Table, RecordBatch, list of RecordBatches, "
        "RecordBatchReader or pyarrow.dataset.Dataset",
    )


def table_from_pandas(df, preserve_index: bool) -> pa.Table:
    """``df`` as an Arrow table without pandas' schema metadata; a column Arrow cannot
    convert is a ``TypeError`` naming it and its first offending row
    (:func:`~.columns.pandas_conversion_error`). A polars DataFrame (no index) is its
    Arrow memory.

    >>> import pandas as pd
    >>> table_from_pandas(pd.DataFrame({"x": [1.0]}), preserve_index=False).schema.metadata
    """
    if is_polars(df):
        return as_arrow(df, "from_pandas' df")
    try:
        table = pa.Table.from_pandas(df, preserve_index=preserve_index)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as err:
        raise _first_failing_column(df, err) from err
    return table.replace_schema_metadata(None)


def _first_failing_column(df, err) -> TypeError:
    for name in df.columns:
        try:
            pa.Array.from_pandas(df[name])
        except (pa.ArrowInvalid, pa.ArrowTypeError) as column_err:
            return pandas_conversion_error(name, df[name], column_err)
    return TypeError(f"the DataFrame cannot be converted to Arrow: {err}")


def csv_format(
    column_types: Mapping[str, pa.DataType | str] | None,
    delimiter: str,
    column_names: Sequence[str] | None,
    null_values: Sequence[str] | None,
    skip_rows: int,
    quoted: bool = True,
    encoding: str = "utf-8",
    delimiter_name: str = "delimiter",
) -> pads.CsvFileFormat:
    """The ``pyarrow.dataset`` CSV format of :meth:`~.dataset.Dataset.from_csv`'s
    options: ``column_types`` may name types by alias (``"float32"``), and
    ``null_values`` apply to string columns too. A delimiter that is not one character
    (or is a line end or the quote) and an unknown ``encoding`` are ValueErrors
    (``delimiter_name`` names the argument in them).

    >>> csv_format({"x": "int64"}, ";", None, None, 0).parse_options.delimiter
    ';'
    """
    import pyarrow.csv as pacsv

    from .csv_checks import check_delimiter, encoding_name

    quote = '"' if quoted else False
    check_delimiter(delimiter, quote, delimiter_name)
    types = {
        name: pa.type_for_alias(t) if isinstance(t, str) else t
        for name, t in (column_types or {}).items()
    }
    convert = pacsv.ConvertOptions(column_types=types)
    if null_values is not None:
        convert.null_values = list(null_values)
        convert.strings_can_be_null = True
    read = pacsv.ReadOptions(skip_rows=skip_rows, encoding=encoding_name(encoding))
    if column_names is not None:
        read.column_names = list(column_names)
    return pads.CsvFileFormat(
        parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=quote),
        convert_options=convert,
        read_options=read,
    )
