"""``cn.io``: TFRecord files and ``tf.Example`` protos, no TensorFlow needed.

The names and behaviour of ``tf.io``'s record and example functions: read and write
TFRecord files (optionally GZIP/ZLIB compressed, checksums checked) and parse serialized
``tf.Example`` / ``tf.SequenceExample`` records into Arrow tables. To train from TFRecord
files, use ``cn.data.Dataset.from_tfrecord(paths, features, label=...)``. ``cn.io.gfile``
is ``tf.io.gfile`` (local paths, and URLs through fsspec).

>>> import colonnade as cn, os, tempfile, pandas as pd
>>> path = os.path.join(tempfile.mkdtemp(), "rows.tfrecord")
>>> cn.io.write_tfrecord(pd.DataFrame({"age": [39, 50], "hours": [40.0, 13.0]}), path)
2
>>> records = list(cn.io.tf_record_iterator(path))
>>> cn.io.parse_example(records, {"age": cn.io.FixedLenFeature([], "int64")}).to_pydict()
{'age': [39, 50]}
"""

from colonnade import gfile
from colonnade.data.csv_records import decode_csv
from colonnade.data.example import (
    parse_example,
    parse_sequence_example,
    parse_single_example,
    parse_single_sequence_example,
)
from colonnade.data.example_writer import write_tfrecord
from colonnade.data.parse_spec import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    SparseFeature,
    VarLenFeature,
)
from colonnade.data.tfrecord import (
    DataLossError,
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)
from colonnade.file_io import matching_files, read_file, write_file

__all__ = [
    "DataLossError",
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "SparseFeature",
    "VarLenFeature",
    "decode_csv",
    "gfile",
    "matching_files",
    "parse_example",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "read_file",
    "tf_record_iterator",
    "write_file",
    "write_tfrecord",
]
