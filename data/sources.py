"""Where rows come from: an in-memory Arrow table, or files through ``pyarrow.dataset``.

A source splits its rows into *units* (slices of a table; files, or Parquet row groups
when shuffling or sharding needs finer pieces), reads one unit at a time as record
batches with the column projection and row filter pushed down to the reader, and names
the file in every error it raises.
"""

from __future__ import annotations

import errno
import fnmatch
import glob
import os
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.dataset as pads
import pyarrow.fs as pafs

from .csv_checks import (
    check_first_rows,
    csv_error,
    csv_retried_dataset,
    retried_fragment,
    runaway_quote,
)
from .parquet_stream import parquet_batches
from .protocols import check_protocol
from .read_errors import csv_column, csv_conversion, json_clash

__all__ = [
    "FileSource",
    "TableSource",
    "Unit",
    "first_non_number",
    "first_non_number_in",
    "guess_format",
    "open_files",
    "resolve_paths",
]

# An in-memory table is visited in slices of this many rows (its units for shuffling
# the visiting order and for sharding).
TABLE_UNIT_ROWS = 65_536

# Reader defaults: rows per record batch read from a file, and how many batches the
# reader may decode ahead. Small enough that a scan's memory stays a few batches.
READ_BATCH_SIZE = 65_536
BATCH_READAHEAD = 2

_EXTENSIONS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".parq": "parquet",
    ".csv": "csv",
    ".tsv": "csv",
    ".feather": "ipc",
    ".arrow": "ipc",
    ".ipc": "ipc",
    ".jsonl": "json",  # JSON lines: one object a line
    ".ndjson": "json",
}
_GLOB_CHARS = "*?["
# Compressed text files pyarrow decompresses by their extension (``data.csv.gz``).
_COMPRESSION_SUFFIXES = (".gz", ".bz2")


def _extension(path: str) -> str:
    """The format extension of ``path``, lower-cased, past a compression suffix."""
    stem, ext = os.path.splitext(path.lower())
    return os.path.splitext(stem)[1] if ext in _COMPRESSION_SUFFIXES else ext


@dataclass(frozen=True, eq=False)
class Unit:
    """One independently readable piece of a source; ``name`` is used in errors."""

    name: str
    payload: object


class TableSource:
    """Rows of an in-memory :class:`pyarrow.Table`, visited in slices."""

    def __init__(self, table, description="in-memory table", unit_rows=TABLE_UNIT_ROWS):
        self.table = table
        self.schema = table.schema
        self.description = description
        self.unit_rows = unit_rows

    def describe(self):
        return f"{self.description}: {self.table.num_rows} rows"

    def units(self, filter=None, split=False):
        n, step = self.table.num_rows, self.unit_rows
        return [Unit(self.description, (start, step)) for start in range(0, n, step)]

    @property
    def read_rows(self):
        return self.unit_rows

    def num_rows(self):
        """Rows in the table (before any filter)."""
        return self.table.num_rows

    def read(self, unit, columns=None, filter=None, batch_rows=None):
        start, length = unit.payload
        table = self.table.slice(start, length)
        if filter is not None:
            table = table.filter(filter)
        if columns is not None:
            table = table.select(list(columns))
        yield from table.to_batches()


class FileSource:
    """Rows of the files of a :class:`pyarrow.dataset.FileSystemDataset`."""

    def __init__(
        self,
        dataset,
        description,
        read_batch_size=READ_BATCH_SIZE,
        batch_readahead=BATCH_READAHEAD,
        check_columns=True,
    ):
        self.dataset = dataset
        self.check_columns = check_columns
        self.schema = dataset.schema
        self.description = description
        self.format = dataset.format.default_extname
        self.read_batch_size = read_batch_size
        self.batch_readahead = batch_readahead

    def describe(self):
        return f"{self.description} ({self.format})"

    def schema_origin(self) -> str | None:
        """Where the schema comes from when several files could disagree: pyarrow takes
        the first file's (None for one file)."""
        files = self.dataset.files
        if len(files) < 2 or not self.check_columns:  # schema= given: it is the caller's
            return None
        return (
            f"those are the columns of '{files[0]}', the first of {len(files)} files, which "
            "the dataset's schema comes from: add the column to it, or pass schema="
        )

    def units(self, filter=None, split=False):
        """The files left after partition pruning by ``filter``; with ``split``, Parquet
        files become their row groups (those the filter's statistics cannot rule out)."""
        fragments = list(self.dataset.get_fragments(filter=filter))
        if not (split and isinstance(self.dataset.format, pads.ParquetFileFormat)):
            return [Unit(f.path, f) for f in fragments]
        units = []
        for fragment in fragments:
            try:
                pieces = fragment.split_by_row_group(filter, self.schema)
            except pa.ArrowException as err:
                raise self._error(fragment, None, err) from err
            units += [Unit(fragment.path, piece) for piece in pieces]
        return units

    @property
    def read_rows(self):
        return self.read_batch_size

    def num_rows(self):
        """Rows in the files (before any filter) when their metadata says so without
        reading data (Parquet footers), else None."""
        if not isinstance(self.dataset.format, pads.ParquetFileFormat):
            return None
        try:
            return sum(f.metadata.num_rows for f in self.dataset.get_fragments())
        except (pa.ArrowException, OSError):
            return None

    def _check_columns(self, fragment, columns, filter):
        """ValueError naming the file and column when a file lacks a column the scan
        reads: pyarrow would fill it with nulls, silently (a directory whose later files
        dropped a column, or a label column missing from one file). A dataset of one file
        has that file's schema: nothing to check (a CSV file's would be inferred again)."""
        if len(self.dataset.files) < 2:
            return None
        wanted = self.schema.names if columns is None else columns
        physical = fragment.physical_schema.names
        present = set(physical) | set(pads.get_partition_keys(fragment.partition_expression))
        missing = [n for n in wanted if n not in present]
        if missing:
            return ValueError(
                f"'{fragment.path}' lacks column {missing[0]!r}"
                + (f" (and {missing[1:]})" if len(missing) > 1 else "")
                + f": expected the columns of the dataset's schema {self.schema.names}, the "
                f"file has {physical}. Its rows would read as null; rewrite the file, or pass "
                "schema= to allow missing columns"
            )
        return None

    def read(self, unit, columns=None, filter=None, batch_rows=None):
        fragment = unit.payload
        handed = 0  # rows yielded: a CSV file read again (csv_retry) skips as many
        while True:
            skip = handed
            try:
                if self.check_columns:
                    error = self._check_columns(fragment, columns, filter)
                    if error is not None:
                        raise error
                last = None
                for batch in self._batches(fragment, columns, filter, batch_rows):
                    if skip:
                        dropped = min(skip, batch.num_rows)
                        batch, skip = batch.slice(dropped), skip - dropped
                    if batch.num_rows:
                        handed += batch.num_rows
                        last = batch
                        yield batch
                if last is not None and isinstance(fragment.format, pads.CsvFileFormat):
                    error = runaway_quote(last, fragment.path, fragment.filesystem, fragment.format)
                    if error is not None:
                        raise error
                return
            except (pa.ArrowException, OSError, UnicodeDecodeError) as err:
                retry = retried_fragment(fragment, err)
                if retry is None:
                    raise self._error(fragment, columns, err) from err
                fragment = retry

    def _batches(self, fragment, columns, filter, batch_rows):
        rows = batch_rows or self.read_batch_size
        streamed = parquet_batches(fragment, self.schema, columns, filter, rows)
        if streamed is not None:
            yield from streamed
            return
        for piece in self._row_groups(fragment, filter):
            yield from piece.to_batches(
                schema=self.schema,
                columns=None if columns is None else list(columns),
                filter=filter,
                batch_size=rows,
                batch_readahead=self.batch_readahead,
                fragment_readahead=1,
            )

    def _row_groups(self, fragment, filter):
        """A Parquet file read as a whole, one row group after the other: given the whole
        file, Arrow decodes row groups ahead of a slow reader, up to the whole file (a
        105 MB file peaked at 106 MB of Arrow memory, ~6 MB read this way)."""
        if not isinstance(fragment, pads.ParquetFileFragment) or len(fragment.row_groups) < 2:
            return [fragment]
        return fragment.split_by_row_group(filter, self.schema)

    def _error(self, fragment, columns, err):
        """An error naming the file, and the column when the schemas disagree."""
        path = fragment.path
        if isinstance(err, FileNotFoundError):
            return FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        if isinstance(fragment.format, pads.CsvFileFormat):
            found = csv_error(path, fragment.filesystem, fragment.format, err)
            if found is not None:
                return found
        try:
            physical = fragment.physical_schema
        except pa.ArrowException as inner:
            return ValueError(
                f"cannot read '{path}' as {self.format}: the file is corrupt or is not a "
                f"{self.format} file ({inner})"
            )
        wanted = self.schema.names if columns is None else list(columns)
        here = dict(zip(physical.names, physical.types))
        clashes = [
            (name, here[name], expected)
            for name, expected in zip(self.schema.names, self.schema.types)
            if name in here and here[name] != expected
        ]
        clashes.sort(key=lambda clash: clash[0] not in wanted)
        if clashes:
            name, here, expected = clashes[0]
            return ValueError(
                f"'{path}' does not match the other files: column '{name}' is {here} "
                f"there but {expected} in the dataset's schema ({err}). Pass schema= with "
                "types every file can be cast to, or rewrite the file."
            )
        clash = None
        if self.format == "json":
            clash = json_clash([path], self.dataset.filesystem)
        if clash is not None:
            return ValueError(f"error reading {clash}; a column of JSON lines has one type")
        named = csv_column(err, physical)
        return ValueError(f"error reading '{path}' ({self.format}): {err}{named}")


def first_non_number_in(column) -> tuple | None:
    """``(row, value)`` of the first value of an Arrow ``column`` that is not a number
    (nulls, and numbers written as text, pass); a list column's row is the row holding
    the value. None when every value is one.

    >>> first_non_number_in(pa.array([["1", "2"], ["x"]]))
    (1, 'x')
    """
    import pandas as pd
    import pyarrow.compute as pc

    rows = None
    while (
        pa.types.is_list(column.type)
        or pa.types.is_large_list(column.type)
        or (pa.types.is_fixed_size_list(column.type))
    ):
        parents = pc.list_parent_indices(column).to_numpy()
        rows = parents if rows is None else rows[parents]
        column = pc.list_flatten(column)
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    values = column.to_pandas()
    bad = (values.notna() & pd.to_numeric(values, errors="coerce").isna()).to_numpy()
    if not bad.any():
        return None
    i = int(bad.argmax())
    return (i if rows is None else int(rows[i])), values.iloc[i]


def first_non_number(source, key):
    """``(unit name, row, value)`` of the first value of column ``key`` in ``source`` that
    is not a number (:func:`first_non_number_in`), counting rows from 0 in each file (each
    table) in order; None when every value is one. Read only after a feature column
    refused the column, to say where its culprit is: the one text value that made a whole
    CSV or JSON column text, or a Parquet column stored as text.

    >>> first_non_number(TableSource(pa.table({"a": ["1", None, "x"]}), "a table"), "a")
    ('a table', 2, 'x')
    """
    rows = {}  # the rows read so far in each unit name (a table's slices share one)
    for unit in source.units():
        start = rows.get(unit.name, 0)
        for batch in source.read(unit, columns=[key]):
            found = first_non_number_in(batch.column(batch.schema.get_field_index(key)))
            if found is not None:
                return unit.name, start + found[0], found[1]
            start += batch.num_rows
        rows[unit.name] = start
    return None


def _filesystem_and_path(path, filesystem):
    """``(filesystem, path)`` for a local path or a URL such as ``s3://bucket/key`` whose
    protocol is allowed (:func:`~.protocols.check_protocol`; ``filesystem=`` given by the
    caller is the caller's choice)."""
    if filesystem is not None:
        return filesystem, path
    check_protocol(path)
    if "://" in path:
        try:
            return pafs.FileSystem.from_uri(path)
        except (pa.ArrowInvalid, ValueError) as err:
            try:
                import fsspec  # optional: any fsspec URL (memory://, gcs://, ...)
            except ImportError:
                raise ValueError(
                    f"cannot open '{path}': {err}; install fsspec for other URL schemes or "
                    "pass filesystem="
                ) from err
            fs, inner = fsspec.core.url_to_fs(path)
            return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), inner
    return pafs.LocalFileSystem(), os.path.abspath(path)


def _expand_glob(pattern, filesystem, local):
    if local:
        matches = sorted(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
    else:
        parts = pattern.split("/")
        first_glob = next(i for i, part in enumerate(parts) if _is_glob(part))
        base = "/".join(parts[:first_glob]) or "/"
        infos = filesystem.get_file_info(pafs.FileSelector(base, recursive=True))
        files = [i.path for i in infos if i.type == pafs.FileType.File]
        matches = sorted(p for p in files if fnmatch.fnmatch(p, pattern))
    return matches


def _is_glob(text):
    return any(c in text for c in _GLOB_CHARS)


def _hidden(path):
    return os.path.basename(path).startswith((".", "_"))


def resolve_paths(path, filesystem=None):
    """``(filesystem, paths, files)``: what to give ``pyarrow.dataset`` and the files found.

    ``path`` is a file, a directory, a glob, a URL, or a list of those. Missing paths and
    globs matching nothing raise ``FileNotFoundError`` naming them.
    """
    items = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not items:
        raise ValueError("from_files needs at least one path; got an empty list")
    fs, targets, files = filesystem, [], []
    for item in items:
        item = os.fspath(item)
        item_fs, inner = _filesystem_and_path(item, filesystem)
        local = isinstance(item_fs, pafs.LocalFileSystem) and "://" not in item
        if fs is None:
            fs = item_fs
        elif type(item_fs) is not type(fs):
            raise ValueError(f"all paths must be on one filesystem; '{item}' is not")
        if _is_glob(inner):
            matches = _expand_glob(item if local else inner, item_fs, local)
            if not matches:
                raise FileNotFoundError(errno.ENOENT, "no files match the pattern", item)
            matches = [os.path.abspath(m) if local else m for m in matches]
            targets += matches
            files += matches
            continue
        info = item_fs.get_file_info(inner)
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), item)
        targets.append(inner)
        if info.type == pafs.FileType.Directory:
            found = item_fs.get_file_info(pafs.FileSelector(inner, recursive=True))
            files += sorted(
                i.path for i in found if i.type == pafs.FileType.File and not _hidden(i.path)
            )
        else:
            files.append(inner)
    return fs, targets, files


def guess_format(files, shown):
    """The format name for ``files`` from their extensions, or a ValueError saying why not."""
    found = {_EXTENSIONS.get(_extension(f)) for f in files} - {None}
    if len(found) == 1:
        return found.pop()
    if not found:
        raise ValueError(
            f"cannot tell the file format of {shown} from its file names; pass "
            "format='parquet', 'csv', 'json' (JSON lines) or 'ipc'"
        )
    raise ValueError(
        f"{shown} mixes file formats {sorted(found)}; pass format= to read one of them"
    )


def _parquet_format(dictionary_columns=()):
    """The Parquet format colonnade reads with, streaming column pages rather than whole
    row groups (``pre_buffer=False``, for bounded memory), and page checksums (CRC32, written by
    ``write_page_checksum=True``) verified where a file has them, so a corrupt data page
    raises an error naming the file instead of training on garbage (an uncompressed page
    with flipped bytes otherwise decodes silently); files without checksums read as before.
    """
    options = pads.ParquetReadOptions(dictionary_columns=list(dictionary_columns))
    # pre_buffer=False: pyarrow's default (True) buffers a whole row group's column chunks
    # before decoding; streaming one 1M-row group then peaked 1.8x higher than
    # ParquetFile.iter_batches (374 MB against 210 MB), 308 MB without.
    scan = pads.ParquetFragmentScanOptions(page_checksum_verification=True, pre_buffer=False)
    return pads.ParquetFileFormat(read_options=options, default_fragment_scan_options=scan)


def open_files(
    path,
    format=None,
    schema=None,
    partitioning="hive",
    filesystem=None,
    read_batch_size=READ_BATCH_SIZE,
    batch_readahead=BATCH_READAHEAD,
    strings_as_dictionary=True,
):
    """A :class:`FileSource` over ``path`` (see :func:`resolve_paths`).

    With ``strings_as_dictionary`` (and no ``schema``), Parquet string columns are read as
    ``dictionary<string>``, the way Parquet stores them: the reader then never builds each
    row's string (click logs repeat a few values many times) and feature columns hash each
    distinct value once. The values are the same strings; pandas shows them as ``category``.
    """
    shown = repr(os.fspath(path)) if isinstance(path, (str, os.PathLike)) else f"{len(path)} paths"
    fs, targets, files = resolve_paths(path, filesystem)
    if format is None:
        format = guess_format(files, shown)
        if format == "csv" and all(_extension(f) == ".tsv" for f in files):
            format = pads.CsvFileFormat(parse_options=pacsv.ParseOptions(delimiter="\t"))
    own_parquet = format == "parquet"  # a ParquetFileFormat passed in is used as given
    if own_parquet:
        format = _parquet_format()
    # One file or directory goes to pyarrow as is; several become their list of files.
    source = targets[0] if len(targets) == 1 else files
    try:
        dataset = csv_retried_dataset(source, schema, format, fs, partitioning)
    except FileNotFoundError:
        raise
    except (pa.ArrowException, UnicodeDecodeError) as err:
        name = getattr(format, "default_extname", format)
        if name == "csv" and files:
            fmt = format if isinstance(format, pads.CsvFileFormat) else pads.CsvFileFormat()
            found = csv_error(files[0], fs, fmt, err)
            if found is not None:
                raise found from err
        clash = json_clash(files, fs) if name == "json" else None
        if clash is not None:
            raise ValueError(f"cannot read {clash}; a column of JSON lines has one type") from err
        conversion = csv_conversion(err, format) if name == "csv" else None
        if conversion is not None:
            raise ValueError(conversion) from err
        raise ValueError(
            f"cannot read {shown} as {name}: a file is corrupt or is not a {name} file ({err})"
        ) from err
    if strings_as_dictionary and schema is None and own_parquet:
        strings = [f.name for f in dataset.schema if pa.types.is_string(f.type)]
        strings += [f.name for f in dataset.schema if pa.types.is_large_string(f.type)]
        if strings:
            format = _parquet_format(dictionary_columns=strings)
            dataset = pads.dataset(source, format=format, filesystem=fs, partitioning=partitioning)
    if schema is None and isinstance(dataset.format, pads.CsvFileFormat):
        check_first_rows(dataset)
    # With a schema given, files lacking some of its columns are allowed (read as null).
    return FileSource(dataset, shown, read_batch_size, batch_readahead, schema is None)
