"""The checks around pyarrow's CSV reader that turn its silent guesses and its raw
messages into one error naming the file, the line (or row), the column and what was
expected: delimiter and encoding arguments, header names, bytes not valid in the
file's encoding, an unclosed quote, a row longer than a block, and a numeric column
that one bad value would make text.

Arrow reads CSV in blocks of ``block_size`` bytes and takes the column types from the
first block of the first file. A row longer than a block is read by growing the block
(:func:`grown_format`, by :data:`BLOCK_GROWTH` up to :data:`CSV_MAX_ROW_BYTES`); a
quoted field across a block boundary by reading with ``newlines_in_values``
(:func:`multiline_format`). The scans that find a line (:func:`open_quote_line`,
:func:`long_line`, :func:`first_invalid_byte`) run only after Arrow refused a file.
"""

from __future__ import annotations

import codecs
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.dataset as pads

__all__ = [
    "BLOCK_GROWTH",
    "CSV_MAX_ROW_BYTES",
    "NUMBER_SHARE",
    "check_delimiter",
    "check_first_rows",
    "csv_error",
    "csv_retried_dataset",
    "csv_retry",
    "encoding_name",
    "first_invalid_byte",
    "first_rows_types",
    "grown_format",
    "long_line",
    "multiline_format",
    "number_share",
    "open_quote_line",
    "quote_scan",
    "retried_fragment",
    "runaway_quote",
]

# The longest CSV row read (bytes): Arrow's block grows to it, by BLOCK_GROWTH a step,
# from its 1 MiB default; a longer row is an error naming its line.
CSV_MAX_ROW_BYTES = 64 << 20
BLOCK_GROWTH = 4
# A text column whose non-null values are numbers but for at most this share is a
# numeric column that a few bad values made text (number_share).
NUMBER_SHARE = 0.01
_SCAN_CHUNK = 8 << 20
_NUMBER = r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$|^\s*[-+]?(inf|nan)\s*$"
_STRADDLE = "straddles two block boundaries"
# The last quote_scan: ((path, size, mtime, quote, delimiter), result), set in one step.
_LAST_SCAN: list = [None]
_OUT_OF_SYNC = "out of sync with chunker"


def check_delimiter(delimiter, quote_char='"', name="delimiter") -> str:
    """``delimiter`` if it is one character that is not a line end nor the quote
    character; else a ValueError saying which (``name`` is the argument's name)."""
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise ValueError(
            f"{name} must be one character (such as ',', ';' or '\\t'); got {delimiter!r}"
        )
    if delimiter in "\r\n":
        raise ValueError(f"{name} cannot be a line end; got {delimiter!r}")
    if quote_char and delimiter == quote_char:
        raise ValueError(
            f"{name} {delimiter!r} is the quote character: pick another delimiter, or turn "
            "quoting off (use_quote_delim=False)"
        )
    return delimiter


def encoding_name(encoding) -> str:
    """The codec name of ``encoding`` as Arrow takes it ("utf8" reads without
    transcoding); a name Python does not know is a ValueError."""
    try:
        name = codecs.lookup(str(encoding)).name
    except LookupError:
        raise ValueError(
            f"unknown encoding {encoding!r}: give a Python codec name such as 'utf-8', "
            "'latin-1' or 'cp1252'"
        ) from None
    return "utf8" if name == "utf-8" else name


def _read_options(fmt: pads.CsvFileFormat) -> pacsv.ReadOptions:
    return fmt.default_fragment_scan_options.read_options


def _with(fmt, read=None, parse=None) -> pads.CsvFileFormat:
    scan = fmt.default_fragment_scan_options
    return pads.CsvFileFormat(
        parse_options=parse or fmt.parse_options,
        convert_options=scan.convert_options,
        read_options=read or scan.read_options,
    )


def grown_format(fmt: pads.CsvFileFormat) -> pads.CsvFileFormat | None:
    """``fmt`` with a block :data:`BLOCK_GROWTH` times larger (at most
    :data:`CSV_MAX_ROW_BYTES`), or None when it is already that large."""
    read = _read_options(fmt)
    if read.block_size >= CSV_MAX_ROW_BYTES:
        return None
    block = min(read.block_size * BLOCK_GROWTH, CSV_MAX_ROW_BYTES)
    return _with(fmt, read=_sized(read, block))


def _sized(read: pacsv.ReadOptions, block_size: int) -> pacsv.ReadOptions:
    return pacsv.ReadOptions(
        use_threads=read.use_threads,
        block_size=block_size,
        skip_rows=read.skip_rows,
        skip_rows_after_names=read.skip_rows_after_names,
        column_names=read.column_names,
        autogenerate_column_names=read.autogenerate_column_names,
        encoding=read.encoding,
    )


def first_rows_types(path, filesystem, fmt, rows: int) -> dict:
    """``{column: Arrow type}`` that Arrow infers from the first ``rows`` rows of the CSV
    file ``path`` alone (not from its whole first block), as TF's ``make_csv_dataset``
    infers from ``num_rows_for_inference`` rows; a column with no value there is left
    out. Empty when those rows cannot be read (the read of the file then says why)."""
    read = _read_options(fmt)
    lines = read.skip_rows + (0 if read.column_names else 1) + rows
    prefix, seen = bytearray(), 0
    with _open(path, filesystem) as f:
        while seen < lines and len(prefix) < CSV_MAX_ROW_BYTES:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            prefix += chunk
            seen += chunk.count(b"\n")
    ends = np.flatnonzero(np.frombuffer(bytes(prefix), np.uint8) == 10)
    if seen >= lines:
        prefix = prefix[: int(ends[lines - 1]) + 1]
    elif len(prefix) >= CSV_MAX_ROW_BYTES and ends.size:
        prefix = prefix[: int(ends[-1]) + 1]  # the rows that fit the bound
    try:
        table = pacsv.read_csv(
            pa.BufferReader(bytes(prefix)),
            read_options=_sized(read, max(read.block_size, len(prefix) + 1)),
            parse_options=fmt.parse_options,
            convert_options=fmt.default_fragment_scan_options.convert_options,
        )
    except (pa.ArrowException, UnicodeDecodeError):
        return {}
    return {f.name: f.type for f in table.schema if not pa.types.is_null(f.type)}


def multiline_format(fmt: pads.CsvFileFormat) -> pads.CsvFileFormat | None:
    """``fmt`` reading quoted fields that hold line ends across blocks, or None when it
    already does."""
    parse = fmt.parse_options
    if parse.newlines_in_values:
        return None
    multiline = pacsv.ParseOptions(
        delimiter=parse.delimiter,
        quote_char=parse.quote_char,
        double_quote=parse.double_quote,
        escape_char=parse.escape_char,
        newlines_in_values=True,
        ignore_empty_lines=parse.ignore_empty_lines,
    )
    return _with(fmt, parse=multiline)


def _open(path, filesystem):
    """The file's bytes, decompressed as Arrow reads ``.gz`` and ``.bz2`` files, and
    memory-mapped when local and plain (the scans run on a file Arrow refused)."""
    import pyarrow.fs as pafs

    lower = str(path).lower()
    compression = "gzip" if lower.endswith(".gz") else "bz2" if lower.endswith(".bz2") else None
    if compression is None and isinstance(filesystem, pafs.LocalFileSystem):
        return pa.memory_map(path)
    stream = filesystem.open_input_stream(path)
    return pa.CompressedInputStream(stream, compression) if compression else stream


def _line_of(data, offset: int) -> int:
    """The line (from 1) holding byte ``offset`` of ``data``."""
    return int(np.count_nonzero(np.frombuffer(data, np.uint8, count=offset) == 10)) + 1


def _bytes(path, filesystem):
    with _open(path, filesystem) as f:
        return f.read_buffer()


def _quote_patterns(parse) -> tuple:
    """Two patterns over bytes: the longest prefix in which every quoted field closes
    (text, closed quoted fields at a field's start, and quotes inside unquoted fields,
    which Arrow keeps as text), and a quoted field holding a line end. A closing quote
    is one not followed by another (``""`` is a quote inside the field)."""
    q = re.escape(parse.quote_char.encode())
    d = re.escape(parse.delimiter.encode())
    at_start = rb"(?<![^" + d + rb"\n\r])"
    quoted = q + rb"[^" + q + rb"]*(?:" + q + q + rb"[^" + q + rb"]*)*" + q + rb"(?!" + q + rb")"
    literal = rb"(?<=[^" + q + d + rb"\n\r])" + q
    closed = re.compile(rb"(?:[^" + q + rb"]+|" + at_start + quoted + rb"|" + literal + rb")*")
    spanning = re.compile(at_start + q + rb"(?:[^" + q + rb"\n\r]|" + q + q + rb")*[\n\r]")
    return closed, spanning


def quote_scan(path, filesystem, fmt) -> tuple:
    """``(line, spans)``: the line where a quoted field of ``path`` opens and is never
    closed (Arrow then reads the rest of the file as that field; None when every quote
    closes), and whether a quoted field holds a line end. Two regular expressions over
    the bytes, no Python step per field: linear in the file."""
    parse = fmt.parse_options
    if not parse.quote_char:
        return None, False
    info = filesystem.get_file_info(path)
    key = (path, info.size, info.mtime_ns, parse.quote_char, parse.delimiter)
    last = _LAST_SCAN[0]
    if last is not None and last[0] == key and info.mtime_ns is not None:
        return last[1]  # a refused read scans once: for the retry, then for its error
    closed, spanning = _quote_patterns(parse)
    data = _bytes(path, filesystem)
    view = memoryview(data)
    end = closed.match(view).end()
    spans = spanning.search(view, 0, end) is not None
    found = (None if end == len(view) else _line_of(data, end)), spans
    _LAST_SCAN[0] = (key, found)
    return found


def open_quote_line(path, filesystem, fmt) -> int | None:
    """The line where a quoted field of ``path`` opens and is never closed, or None."""
    return quote_scan(path, filesystem, fmt)[0]


def long_line(path, filesystem, limit: int) -> tuple | None:
    """``(line, bytes)`` of the first line of ``path`` longer than ``limit`` bytes, or None."""
    line, run = 1, 0
    with _open(path, filesystem) as f:
        while True:
            chunk = f.read(_SCAN_CHUNK)
            if not chunk:
                return None
            ends = np.flatnonzero(np.frombuffer(chunk, np.uint8) == 10)
            lengths = np.diff(np.concatenate([[-1], ends])) - 1
            if ends.size:
                lengths[0] += run
                over = np.flatnonzero(lengths > limit)
                if over.size:
                    return line + int(over[0]), int(lengths[over[0]])
                line += ends.size
                run = len(chunk) - 1 - int(ends[-1])
            else:
                run += len(chunk)
            if run > limit:
                return line, run


def first_invalid_byte(path, filesystem, encoding) -> tuple | None:
    """``(line, byte offset, bytes)`` of the first bytes of ``path`` that are not valid
    in ``encoding`` (offsets from 0), or None."""
    decoder = codecs.getincrementaldecoder(encoding)()
    fed, newlines = 0, 0
    with _open(path, filesystem) as f:
        while True:
            chunk = f.read(_SCAN_CHUNK)
            pending = decoder.getstate()[0]
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as err:
                joined = pending + chunk
                offset = fed - len(pending) + err.start
                before = joined[: err.start].count(b"\n") + newlines - pending.count(b"\n")
                return before + 1, offset, bytes(joined[err.start : err.end])
            if not chunk:
                return None
            fed += len(chunk)
            newlines += chunk.count(b"\n")


def _encoding(fmt) -> str:
    return _read_options(fmt).encoding


def _invalid_bytes_error(path, filesystem, fmt, column=None) -> ValueError | None:
    encoding = _encoding(fmt)
    found = first_invalid_byte(path, filesystem, "utf-8" if encoding == "utf8" else encoding)
    if found is None:
        return None
    line, offset, bad = found
    where = f" (column {column!r})" if column is not None else ""
    return ValueError(
        f"'{path}': line {line}, byte offset {offset} holds {bad!r}{where}, which is not "
        f"valid {'UTF-8' if encoding == 'utf8' else encoding}: pass encoding= (from_csv, "
        "make_csv_dataset) with the file's encoding (such as 'latin-1' or 'cp1252'), or "
        "fix those bytes"
    )


def _quote_error(path, filesystem, fmt) -> ValueError | None:
    line = open_quote_line(path, filesystem, fmt)
    if line is None:
        return None
    quote = fmt.parse_options.quote_char
    return ValueError(
        f"'{path}': the quote {quote!r} that opens a field on line {line} is never closed, "
        "so the rest of the file would be read as that one field: close it (a quote inside "
        f"a quoted field is written twice, {quote * 2!r}), or read without quoting"
    )


def _long_row_error(path, filesystem) -> ValueError:
    found = long_line(path, filesystem, CSV_MAX_ROW_BYTES)
    where = f"line {found[0]} is {found[1]:,} bytes" if found else "a row is"
    return ValueError(
        f"'{path}': {where}, longer than the longest CSV row colonnade reads "
        f"({CSV_MAX_ROW_BYTES:,} bytes, data.csv_checks.CSV_MAX_ROW_BYTES): split the "
        "row's field, or store it in Parquet"
    )


def csv_error(path, filesystem, fmt, err) -> ValueError | None:
    """The error to raise for Arrow's (or a codec's) ``err`` on the CSV file ``path``
    read with ``fmt``: bytes not valid in its encoding, an unclosed quote, a row longer
    than :data:`CSV_MAX_ROW_BYTES`, each naming the line; None when it is none of these."""
    text = str(err)
    if isinstance(err, UnicodeDecodeError) or "invalid UTF8" in text:
        found = _invalid_bytes_error(path, filesystem, fmt)
        if found is not None:
            return found
    if isinstance(err, pa.ArrowInvalid):
        quoted = _quote_error(path, filesystem, fmt)
        if quoted is not None:
            return quoted
    if _STRADDLE in text:
        return _long_row_error(path, filesystem)
    if "Empty CSV file" in text:
        return ValueError(f"'{path}' has no header line nor rows: expected CSV with a header")
    return None


def csv_retry(fmt, err, path=None, filesystem=None) -> pads.CsvFileFormat | None:
    """The format to read again with after Arrow's ``err``: a larger block for a row
    longer than the block; multi-line quoted fields when the file ``path`` has a quoted
    field holding a line end (read in blocks cut at line ends, it comes apart); None
    when neither helps (the caller then says why: :func:`csv_error`)."""
    if _STRADDLE in str(err):
        return grown_format(fmt)
    if not isinstance(err, pa.ArrowInvalid) or fmt.parse_options.newlines_in_values:
        return None
    if _OUT_OF_SYNC in str(err):
        return multiline_format(fmt)
    if path is None:
        return None
    unclosed, spans = quote_scan(path, filesystem, fmt)
    return multiline_format(fmt) if spans and unclosed is None else None


def retried_fragment(fragment, err):
    """The CSV ``fragment`` to read again after Arrow's ``err`` (:func:`csv_retry`: a
    larger block, or multi-line quoted fields), or None."""
    if not isinstance(fragment.format, pads.CsvFileFormat):
        return None
    fmt = csv_retry(fragment.format, err, fragment.path, fragment.filesystem)
    if fmt is None:
        return None
    return fmt.make_fragment(
        fragment.path, fragment.filesystem, partition_expression=fragment.partition_expression
    )


def csv_retried_dataset(source, schema, format, filesystem, partitioning):
    """``pyarrow.dataset.dataset``; a CSV row longer than the reader's block (read for
    the schema) is read again with a larger one (:func:`csv_retry`)."""
    while True:
        try:
            return pads.dataset(
                source,
                schema=schema,
                format=format,
                filesystem=filesystem,
                partitioning=partitioning,
            )
        except pa.ArrowException as err:
            fmt = pads.CsvFileFormat() if format == "csv" else format
            retry = csv_retry(fmt, err) if isinstance(fmt, pads.CsvFileFormat) else None
            if retry is None:
                raise
            format = retry


def runaway_quote(batch, path, filesystem, fmt) -> ValueError | None:
    """An unclosed quote's error when the last row of the file's last ``batch`` holds a
    text field with a line end (Arrow read the rest of the file into it), else None."""
    if batch.num_rows == 0 or not fmt.parse_options.quote_char:
        return None
    texts = [i for i, t in enumerate(batch.schema.types) if t in (pa.string(), pa.large_string())]
    if not texts:
        return None
    last = batch.select(texts).slice(batch.num_rows - 1)
    for column in last.columns:
        if pc.any(pc.match_substring(column, "\n")).as_py():
            return _quote_error(path, filesystem, fmt)
    return None


def _header_error(path, names, fmt) -> ValueError | None:
    read = _read_options(fmt)
    if read.column_names or read.autogenerate_column_names:
        return None
    empty = [i + 1 for i, name in enumerate(names) if not name.strip()]
    if not empty:
        return None
    return ValueError(
        f"'{path}': column {empty[0]} of the header has no name"
        + (f" (and columns {empty[1:5]})" if len(empty) > 1 else "")
        + ": every column needs one, as a feature's key; name it in the file, or pass "
        "column_names= (and skip_rows=1 to skip the header line)"
    )


def number_share(column) -> float | None:
    """The share of the non-null values of a text ``column`` that are numbers (None when
    it has none): near 1, a numeric column that a few bad values made text.

    >>> number_share(pa.array([str(i) for i in range(199)] + ["abc"]))
    0.995
    """
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    valid = len(column) - column.null_count
    if not valid:
        return None
    return (pc.sum(pc.match_substring_regex(column, _NUMBER)).as_py() or 0) / valid


def check_first_rows(dataset: pads.FileSystemDataset) -> None:
    """The checks of what Arrow inferred from the first block of the first CSV file: a
    header name that is empty and a column read as binary (bytes not valid UTF-8) are
    ValueErrors naming the file, the line or column, and the bytes."""
    fmt = dataset.format
    fragments = dataset.get_fragments()
    first = next(iter(fragments), None)
    if first is None:
        return
    path, fs = first.path, dataset.filesystem
    try:
        names = dataset.schema.names
    except UnicodeDecodeError:  # the header's bytes
        names = None
    error = _invalid_bytes_error(path, fs, fmt) if names is None else None
    error = error or (_header_error(path, names, fmt) if names is not None else None)
    if names is None and error is None:
        error = ValueError(f"'{path}': the header is not valid UTF-8: pass encoding=")
    if error is not None:
        raise error
    given = fmt.default_fragment_scan_options.convert_options.column_types
    fields = list(zip(names, dataset.schema.types))
    for name, kind in fields:
        if kind == pa.binary() and name not in given:
            error = _invalid_bytes_error(path, fs, fmt, name)
            if error is not None:
                raise error
