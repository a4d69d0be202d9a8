"""A :class:`Dataset` source reading TFRecord files of ``tf.Example`` s.

Each file is a unit (so shuffling the file order and sharding by file work as for
Parquet); a file is read a chunk of records at a time (``tfrecord.CHUNK_BYTES`` of
decompressed data) and each chunk is parsed into one record batch, so memory stays a few
chunks however large the files are. Only the features of the selected columns are parsed.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa

from .example import parse_records
from .parse_spec import normalize_features
from .sources import READ_BATCH_SIZE as READ_ROWS
from .sources import Unit, resolve_paths
from .tfrecord import CHUNK_BYTES, compression_name, read_record_chunks
from .wire import pad

__all__ = ["TFRecordSource"]


class TFRecordSource:
    """Rows parsed from the ``tf.Example`` records of TFRecord files.

    >>> import os, tempfile, pandas as pd
    >>> from colonnade.data.example_writer import write_tfrecord
    >>> from colonnade.data.parse_spec import FixedLenFeature
    >>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
    >>> _ = write_tfrecord(pd.DataFrame({"x": [1, 2]}), path)
    >>> source = TFRecordSource(path, {"x": FixedLenFeature([], "int64")})
    >>> [b.num_rows for u in source.units() for b in source.read(u)]
    [2]
    """

    def __init__(self, paths, features, compression_type=None, chunk_bytes=CHUNK_BYTES):
        self.features = features
        self.specs = normalize_features(features)
        self.compression_type = compression_name(compression_type)
        self.chunk_bytes = chunk_bytes
        shown = repr(os.fspath(paths)) if isinstance(paths, (str, os.PathLike)) else None
        _, _, self.files = resolve_paths(paths)
        if not self.files:
            raise FileNotFoundError(f"no TFRecord files found in {paths!r}")
        self.description = shown or f"{len(self.files)} paths"
        empty = np.zeros(0, dtype=np.int64)
        self.schema = parse_records(pad(b""), empty, empty, features).schema

    def describe(self):
        return f"{self.description} (tfrecord, {len(self.files)} files)"

    def units(self, filter=None, split=False):
        return [Unit(path, path) for path in self.files]

    @property
    def read_rows(self):
        """Rows a read yields at a time, at most (a chunk's records may be fewer)."""
        return READ_ROWS

    def num_rows(self):
        """Unknown without reading every record: None."""
        return None

    def read(self, unit, columns=None, filter=None, batch_rows=None):
        features = self.features
        if columns is not None:
            if isinstance(features, pa.Schema):
                features = pa.schema([features.field(name) for name in columns])
            else:
                features = {name: self.specs[name] for name in columns}
        for chunk in read_record_chunks(unit.payload, self.compression_type, self.chunk_bytes):
            table = parse_records(
                chunk.buf, chunk.starts, chunk.ends, features, chunk.first_index, unit.payload
            )
            if filter is not None:
                table = table.filter(filter)
            yield from table.to_batches(max_chunksize=batch_rows or READ_ROWS)
