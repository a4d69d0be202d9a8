"""``TFRecordDataset``: the serialized records of TFRecord files, one binary column
``record``, as ``tf.data.TFRecordDataset`` gives them.

TF programs parse them in a map, either record-wise before batching
(``.map(lambda rec: tf.io.parse_single_example(rec, spec))``) or batch-wise after it
(``.batch(n).map(lambda recs: tf.io.parse_example(recs, spec))``). Both run here, and
give the same rows. The design is the simplest vectorised one: a map function is called
once per reader batch with the batch's records as one binary Arrow array (see
:mod:`.element_streams`), and ``parse_single_example`` given such an array parses all of
them at once, with :func:`~.example.parse_example`'s vectorised parser, returning one
column per feature with a leading row axis. So no Python step runs per record, and the
function sees the shapes TF's record-wise one sees, a batch deep.

Files are read in order, each framed a chunk of records at a time (checksums checked, as
:mod:`.tfrecord` does). ``num_parallel_reads`` > 1 reads that many files at once with
their records alternating one by one, as TF's parallel interleave of the files does
(``cycle_length=num_parallel_reads, block_length=1``).

>>> import os, tempfile
>>> from colonnade.data.tfrecord import TFRecordWriter
>>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
>>> with TFRecordWriter(path) as writer:
...     writer.write(b"one")
...     writer.write(b"two")
>>> TFRecordDataset(path).to_table().column("record").to_pylist()
[b'one', b'two']
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa

from .dataset import Dataset
from .element_streams import as_records
from .interleaves import Interleave
from .plan import Scan
from .sources import Unit, resolve_paths
from .tfrecord import CHUNK_BYTES, compression_name, read_record_chunks

__all__ = ["RECORD_COLUMN", "RecordSource", "TFRecordDataset"]

RECORD_COLUMN = "record"
SCHEMA = pa.schema([(RECORD_COLUMN, pa.binary())])
OP = "TFRecordDataset"


def records_array(chunk) -> pa.BinaryArray:
    """A chunk's records as one binary array: one numpy gather of their bytes."""
    lengths = chunk.ends - chunk.starts
    offsets = np.zeros(lengths.size + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    at = np.repeat(chunk.starts - offsets[:-1], lengths) + np.arange(offsets[-1])
    data = chunk.buf[at]
    return pa.BinaryArray.from_buffers(
        pa.binary(), lengths.size, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


class RecordSource:
    """The raw records of TFRecord files, each file a unit."""

    schema = SCHEMA

    def __init__(self, files, compression_type=None, chunk_bytes=CHUNK_BYTES):
        self.files = files
        self.compression_type = compression_name(compression_type)
        self.chunk_bytes = chunk_bytes

    @property
    def read_rows(self):
        return 1024

    def describe(self):
        return f"{OP}({len(self.files)} files)"

    def num_rows(self):
        return None

    def units(self, filter=None, split=False):
        return [Unit(path, path) for path in self.files]

    def read(self, unit, columns=None, filter=None, batch_rows=None):
        for chunk in read_record_chunks(unit.payload, self.compression_type, self.chunk_bytes):
            batch = pa.RecordBatch.from_arrays([records_array(chunk)], schema=SCHEMA)
            if filter is not None:
                batch = batch.filter(filter)
            yield from pa.Table.from_batches([batch]).to_batches(batch_rows or self.read_rows)


def _file_names(filenames) -> list:
    if isinstance(filenames, (str, bytes, os.PathLike)):
        filenames = [filenames]
    elif not hasattr(filenames, "__len__") and not hasattr(filenames, "__array__"):
        raise TypeError(
            f"{OP}: filenames must be a path, a list of paths or a dataset of them; got "
            f"{type(filenames).__name__}"
        )
    paths = [os.fspath(n) if isinstance(n, os.PathLike) else n for n in _flat(filenames)]
    array_like = hasattr(filenames, "__array__") and not isinstance(filenames, list)
    values = np.asarray(filenames) if array_like else np.asarray(paths)
    if values.size and values.dtype.kind not in "USO":
        # TF's message: a list of Python ints is TF's int32 tensor
        python_ints = isinstance(filenames, (list, tuple)) and values.dtype.kind == "i"
        dtype = "int32" if python_ints else values.dtype
        raise TypeError(
            "The `filenames` argument must contain `tf.string` elements. Got "
            f"`tf.{dtype}` elements."
        )
    names = []
    for name in paths:
        if isinstance(name, bytes):
            name = name.decode()
        if not isinstance(name, str):
            raise TypeError(
                "The `filenames` argument must contain `tf.string` elements. Got "
                f"`{type(name).__name__}` elements."
            )
        names.append(name)
    return names


def _flat(filenames) -> list:
    if hasattr(filenames, "__array__") and not isinstance(filenames, list):
        return np.asarray(filenames).reshape(-1).tolist()
    return list(filenames)


def TFRecordDataset(  # noqa: N802 (TF's name)
    filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None
) -> Dataset:
    """The records of ``filenames`` (a path, a list of paths or globs, or a dataset of
    file names) as the binary column ``record``, file after file (see the module
    docstring). ``compression_type``: None, ``""``, ``"ZLIB"`` or ``"GZIP"``.
    ``buffer_size`` (TF's read buffer in bytes) is checked and not needed: files are read
    in chunks of their own. ``name`` is accepted and unused.

    >>> import os, tempfile
    >>> from colonnade.data.tfrecord import TFRecordWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord.gz")
    >>> with TFRecordWriter(path, "GZIP") as writer:
    ...     writer.write(b"x")
    >>> [b.num_rows for b in TFRecordDataset([path], compression_type="GZIP")]
    [1]
    """
    if buffer_size is not None and (
        isinstance(buffer_size, bool)
        or not isinstance(buffer_size, (int, np.integer))
        or buffer_size < 0
    ):
        raise ValueError(f"{OP}: buffer_size must be None or a count >= 0, got {buffer_size!r}")
    reads = 1 if num_parallel_reads in (None, 1) else num_parallel_reads
    if reads == -1:
        reads = os.cpu_count() or 1
    if isinstance(reads, bool) or not isinstance(reads, (int, np.integer)) or reads < 1:
        raise ValueError(
            f"{OP}: num_parallel_reads must be a positive count or AUTOTUNE, got "
            f"{num_parallel_reads!r}"
        )
    compression = compression_name(compression_type)

    def one_file(element):
        name = element if isinstance(element, str) else next(iter(element.values()))
        return TFRecordDataset(name, compression)

    if hasattr(filenames, "record_batches"):  # a dataset of names, read again each pass
        schema = filenames.schema
        if schema is not None and (len(schema) != 1 or not pa.types.is_string(schema.types[0])):
            raise TypeError(f"{OP}: a dataset of file names has one string column; got {schema}")
        node = Interleave(
            filenames.plan, one_file, int(reads), 1, filenames.interleaves_scalars, SCHEMA
        )
        return Dataset(node, view=as_records)
    files = []
    for entry in _file_names(filenames):
        _, _, found = resolve_paths(entry)
        if not found:
            raise FileNotFoundError(f"{OP}: no file found at {entry!r}")
        files.extend(found)
    if reads == 1 or len(files) < 2:
        return Dataset(Scan(RecordSource(files, compression)), view=as_records)
    node = Interleave(Scan(_names_source(files)), one_file, int(reads), 1, known_schema=SCHEMA)
    return Dataset(node, view=as_records)


def _names_source(files):
    from .sources import TableSource

    return TableSource(pa.table({"filename": files}), "file names")
