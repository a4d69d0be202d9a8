"""Streaming a Parquet file's row groups a batch at a time, in memory bounded by the batch.

pyarrow.dataset's scanner decodes a whole row group before it hands out the group's first
batch: a one-row-group file of a million rows is decoded whole, all its columns at once.
:meth:`pyarrow.parquet.ParquetFile.iter_batches` decodes column pages as batches are asked
for and, with a buffered stream, reads each column chunk in small pieces rather than
whole, so memory follows the batch size instead of the row group's.

The scanner stays for what this path does not do: filters (statistics pruning and row
filtering), hive partition columns, and files whose column types differ from the dataset's
schema (casts, columns a given schema adds). :func:`parquet_batches` says which applies.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq

__all__ = ["STREAM_BUFFER_BYTES", "STREAM_ROWS", "parquet_batches"]

# Rows decoded at a time: larger batches raise the peak without reading faster (the
# measurements are in benchmarks/RESULTS.md, "Streaming memory").
STREAM_ROWS = 16_384
# Bytes read from a column chunk at a time (pyarrow's default reads each chunk whole).
STREAM_BUFFER_BYTES = 1 << 16


def parquet_batches(fragment, schema: pa.Schema, columns, filter, batch_rows: int):
    """The record batches of ``fragment``'s row groups streamed through ``iter_batches``
    (``columns`` of ``schema``, all when None, in that order, at most ``batch_rows`` rows
    each), or None when the scanner must read it: a filter, no columns, a file that is not
    Parquet, a column the file lacks (partition keys, a given schema's extras) or stores as
    another type than ``schema``'s."""
    names = schema.names if columns is None else list(columns)
    if filter is not None or not names or not isinstance(fragment, pads.ParquetFileFragment):
        return None  # no columns: the scanner's batches still count the rows
    fmt = fragment.format
    file = fragment.filesystem.open_input_file(fragment.path)
    reader = pq.ParquetFile(
        file,
        read_dictionary=sorted(fmt.read_options.dictionary_columns),
        coerce_int96_timestamp_unit=fmt.read_options.coerce_int96_timestamp_unit,
        pre_buffer=False,
        buffer_size=STREAM_BUFFER_BYTES,
        page_checksum_verification=fmt.default_fragment_scan_options.page_checksum_verification,
    )
    stored = reader.schema_arrow
    for name in names:
        index = stored.get_field_index(name)
        if index < 0 or not stored.field(index).type.equals(schema.field(name).type):
            reader.close()
            file.close()
            return None
    target = pa.schema([schema.field(name) for name in names], metadata=schema.metadata)
    return _stream(file, reader, [g.id for g in fragment.row_groups], names, target, batch_rows)


def _stream(file, reader, row_groups, names, target, batch_rows):
    """``reader``'s batches as ``target`` (the dataset's fields, in the asked order)."""
    try:
        for batch in reader.iter_batches(
            batch_size=min(batch_rows, STREAM_ROWS),
            row_groups=row_groups,
            columns=names,
            use_threads=True,
        ):
            columns = [batch.column(name) for name in names]
            yield pa.RecordBatch.from_arrays(columns, schema=target)
    finally:
        reader.close()
        file.close()
