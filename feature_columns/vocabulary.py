"""Vocabulary columns: ids looked up in an in-memory list or a vocabulary file.

A value's id is its index in the vocabulary; misses go to hashed out-of-vocabulary
buckets or to ``default_value``. Each distinct value of a batch's dictionary-encoded
feature is looked up once.

>>> c = categorical_column_with_vocabulary_list("colors", ["R", "G"], num_oov_buckets=1)
>>> c.num_buckets
3
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..data.tfrecord import tf_record_iterator
from .base import CategoricalColumn, KeyedColumn, check_int, check_key
from .categorical_inputs import as_int64, check_dtype_arg, check_input, expected_kind, list_spec
from .dictionary_hashes import dictionary_fingerprints
from .features import ignored_entries
from .ids import FlatIds, OneIdPerValue

__all__ = [
    "VocabularyFileCategoricalColumn",
    "VocabularyListCategoricalColumn",
    "categorical_column_with_vocabulary_file",
    "categorical_column_with_vocabulary_list",
    "read_vocabulary_file",
]


def _check_vocabulary(values: list, dtype: str, column: str, source: str) -> pa.Array:
    if not values:
        raise ValueError(f"column {column!r}: the vocabulary {source}is empty")
    counts = Counter(values)
    dups = [v for v, c in counts.items() if c > 1]
    if dups:
        raise ValueError(
            f"Duplicate keys in the vocabulary {source}of column {column!r}: duplicate entries "
            f"{sorted(dups)[:10]}; each value may appear once"
        )
    if dtype == "string":
        return pa.array(values, type=pa.string())
    return pa.array(values, type=pa.int64())


def _vocab_lookup(column, cache, table: pa.Array) -> FlatIds:
    """Ids of a vocabulary column: index in ``table``; misses hashed into the OOV buckets
    (``vocab_size + Fingerprint64(value) % num_oov_buckets``) or ``default_value``."""
    enc = cache.encoded(column.key, column.name)
    check_input(column, column.key, enc.ragged.values.type, column.dtype)
    if column.dtype == "string":
        dictionary = pc.cast(enc.dictionary, table.type)
    else:
        dictionary = as_int64(column, column.key, enc.dictionary)
    index = pc.index_in(dictionary, value_set=table)
    found = index.is_valid().to_numpy(zero_copy_only=False)
    dict_ids = pc.fill_null(index, 0).to_numpy(zero_copy_only=False).astype(np.int64)
    if not found.all():
        if column.num_oov_buckets > 0:
            fp = dictionary_fingerprints(cache, column.key, column)
            oov = len(table) + (fp % np.uint64(column.num_oov_buckets)).astype(np.int64)
        else:
            oov = np.int64(column.default_value)
        dict_ids = np.where(found, dict_ids, oov)
    valid = enc.valid
    ignored = ignored_entries(enc.dictionary)
    if ignored is not None and enc.ragged.rectangular:
        valid = ~ignored[enc.codes] if valid is None else valid & ~ignored[enc.codes]
    return FlatIds(dict_ids[enc.codes], valid, enc.ragged)


def _check_oov(num_oov_buckets, default_value, vocab_size: int | None, column: str):
    """``(num_oov_buckets, default_value)`` checked (``default_value`` against
    ``vocab_size`` when it is known)."""
    if isinstance(num_oov_buckets, int) and num_oov_buckets < 0:
        raise ValueError(
            f"column {column!r}: Invalid num_oov_buckets {num_oov_buckets}: it must be >= 0"
        )
    num_oov = check_int(num_oov_buckets, "num_oov_buckets", 0, column)
    if default_value is None:
        default_value = -1
    default_value = check_int(default_value, "default_value", None, column)
    if num_oov and default_value != -1:
        raise ValueError(
            f"Can't specify both num_oov_buckets and default_value in column {column!r} "
            f"(num_oov_buckets={num_oov}, default_value={default_value}): misses go to one "
            "or the other"
        )
    if vocab_size is not None and default_value >= vocab_size:
        raise ValueError(
            f"column {column!r}: default_value must be an id in [0, {vocab_size}) or negative "
            f"(-1: misses get no id), got {default_value}"
        )
    return num_oov, default_value


class _VocabularyColumn(OneIdPerValue, KeyedColumn, CategoricalColumn):
    """What the vocabulary list and file columns share: their ``_table`` lookup, the OOV
    rules, and the config fields for them."""

    def __post_init__(self):
        if self._table is None:  # built directly, not by the factory that checked it
            object.__setattr__(self, "_table", self._checked_vocabulary())

    def flat_ids(self, cache) -> FlatIds:
        """Each value's index in the vocabulary; misses as the OOV rules say."""
        return cache.memo(("flat_ids", self), lambda: _vocab_lookup(self, cache, self._table))

    def parse_spec(self) -> dict:
        return {self.key: list_spec(self.dtype)}

    def _with_oov_config(self, out: dict) -> dict:
        if self.default_value != -1:
            out["default_value"] = self.default_value
        if self.num_oov_buckets:
            out["num_oov_buckets"] = self.num_oov_buckets
        return out


@dataclass(frozen=True)
class VocabularyListCategoricalColumn(_VocabularyColumn):
    """Ids from an in-memory vocabulary; see :func:`categorical_column_with_vocabulary_list`.

    >>> categorical_column_with_vocabulary_list("c", ["a", "b"], num_oov_buckets=1).num_buckets
    3
    """

    key: str
    vocabulary_list: tuple
    dtype: str = "string"
    default_value: int = -1
    num_oov_buckets: int = 0
    _table: pa.Array = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        super().__post_init__()
        # Hashed once: the transform cache looks columns up by value, and a long
        # vocabulary would otherwise be rehashed on every lookup.
        fields = (self.key, self.vocabulary_list, self.dtype, self.default_value)
        object.__setattr__(self, "_hash", hash(fields + (self.num_oov_buckets,)))

    def __hash__(self) -> int:
        return self._hash

    def _checked_vocabulary(self) -> pa.Array:
        return _check_vocabulary(list(self.vocabulary_list), self.dtype, self.key, "")

    @property
    def num_buckets(self) -> int:
        return len(self.vocabulary_list) + self.num_oov_buckets

    def to_config(self) -> dict:
        out = {
            "type": "categorical_column_with_vocabulary_list",
            "key": self.key,
            "vocabulary_list": list(self.vocabulary_list),
            "dtype": self.dtype,
        }
        return self._with_oov_config(out)


def categorical_column_with_vocabulary_list(
    key: str,
    vocabulary_list: Sequence[str] | Sequence[int],
    dtype: str | None = None,
    default_value: int = -1,
    num_oov_buckets: int = 0,
) -> VocabularyListCategoricalColumn:
    """Ids from an in-memory vocabulary (TF's ``categorical_column_with_vocabulary_list``).

    A value's id is its index in ``vocabulary_list``. Misses go to one of
    ``num_oov_buckets`` extra ids (``len(vocabulary_list) + Fingerprint64(value) %
    num_oov_buckets``), or to ``default_value`` (an id, or -1: no id for lookups). ``dtype``
    ('string' or an integer type) is inferred from the vocabulary when not given.

    Args:
        key: the input feature's name (the column of the data).
        vocabulary_list: the values, all strings or all integers, each once.
        dtype: ``"string"`` or an integer type (TF's default ``None``: from the
            vocabulary).
        default_value: the id of values not in the vocabulary (TF's default -1: no id).
        num_oov_buckets: hashed ids for values not in the vocabulary (TF's default 0).

    >>> c = categorical_column_with_vocabulary_list("colors", ("X", "R", "G", "B", "Y"),
    ...                                             default_value=0)
    >>> from colonnade.feature_columns import transform_features
    >>> transform_features({"colors": ["B", "Q"]}, [c])["colors"].ids.tolist()
    [3, 0]
    """
    key = check_key(key)
    if vocabulary_list is None:
        raise ValueError(f"vocabulary_list None must be non-empty, column_name: {key}")
    if isinstance(vocabulary_list, (str, bytes)) or not hasattr(vocabulary_list, "__iter__"):
        raise TypeError(f"column {key!r}: vocabulary_list must be a list or tuple of values")
    values = vocabulary_list.tolist() if hasattr(vocabulary_list, "tolist") else vocabulary_list
    values = list(values)
    if not values:
        raise ValueError(
            f"vocabulary_list {vocabulary_list!r} must be non-empty, column_name: {key}"
        )
    if all(isinstance(v, str) for v in values):
        inferred = "string"
    elif all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        inferred = "int64"
        values = [int(v) for v in values]
    else:
        raise ValueError(
            f"column {key!r}: vocabulary dtype must be string or integer: vocabulary_list must "
            f"be all strings or all integers, got {sorted({type(v).__name__ for v in values})}"
        )
    dtype = inferred if dtype is None else check_dtype_arg(dtype, key)
    if expected_kind(dtype) != expected_kind(inferred):
        raise ValueError(
            f"column {key!r}: dtype {dtype} and vocabulary dtype {inferred} do not match; "
            "give a dtype of the vocabulary's kind (string, or an integer type)"
        )
    num_oov, default_value = _check_oov(num_oov_buckets, default_value, len(values), key)
    table = _check_vocabulary(values, dtype, key, "")
    return VocabularyListCategoricalColumn(key, tuple(values), dtype, default_value, num_oov, table)


MAX_VOCABULARY_FILE_BYTES = 1 << 30
"""The largest vocabulary file read (1 GiB: tens of millions of entries), a bound on what
a hostile config or export can make colonnade read."""


VOCABULARY_FILE_FORMATS = ("text", "tfrecord_gzip")
"""TF's vocabulary file formats: one entry a line, or one a record of a GZIP TFRecord file
(TF's default for a path ending in ``tfrecord.gz``)."""


def vocabulary_file_format(path: str, file_format) -> str:
    """TF's ``file_format`` of a vocabulary file: as given, else from the path's ending."""
    if file_format is None:
        return "tfrecord_gzip" if str(path).endswith("tfrecord.gz") else "text"
    if file_format not in VOCABULARY_FILE_FORMATS:
        raise ValueError(
            f"Unsupported file_format {file_format!r} of vocabulary_file {str(path)!r}; "
            f"expected one of {VOCABULARY_FILE_FORMATS}"
        )
    return file_format


def _tfrecord_entries(path: str, where: str) -> list:
    try:
        return [r.decode("utf-8") for r in tf_record_iterator(path, compression_type="GZIP")]
    except OSError as e:
        raise ValueError(f"{where} cannot be read: {e.strerror or e}") from e


def read_vocabulary_bytes(path, where: str) -> bytes:
    """The bytes of the vocabulary file ``path``, refused with a ``ValueError`` naming
    ``where`` when it is not a regular file (``/dev/zero`` or a FIFO would be read
    forever), cannot be read, or holds over :data:`MAX_VOCABULARY_FILE_BYTES`; a missing
    file is the ``FileNotFoundError`` itself, which callers word as their API does."""
    try:
        if os.path.exists(path) and not os.path.isfile(path):
            raise ValueError(f"{where} is not a regular file (a vocabulary file is)")
        with open(path, "rb") as f:
            # the size first: read(limit) would reserve the whole limit up front
            size = os.fstat(f.fileno()).st_size
            data = f.read(min(size, MAX_VOCABULARY_FILE_BYTES) + 1)
    except FileNotFoundError:
        raise
    except OSError as e:
        raise ValueError(f"{where} cannot be read: {e.strerror or e}") from e
    if len(data) > MAX_VOCABULARY_FILE_BYTES:
        raise ValueError(
            f"{where} is over {MAX_VOCABULARY_FILE_BYTES:,} bytes, the most a vocabulary file "
            "may hold"
        )
    return data


def read_vocabulary_file(
    path: str, vocabulary_size, dtype: str, column: str, file_format: str = "text"
) -> list:
    """The first ``vocabulary_size`` entries of ``path`` (all when ``None``): one a line,
    or, for ``file_format="tfrecord_gzip"``, one a record.

    ``path`` must be a regular file of at most :data:`MAX_VOCABULARY_FILE_BYTES` (a config
    or an export may name any path: ``/dev/zero`` or a FIFO would be read forever)."""
    if path is None or (isinstance(path, str) and not path):
        raise ValueError(f"column {column!r}: Missing vocabulary_file: give its path")
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"column {column!r}: vocabulary_file must be a path, got {path!r}")
    where = f"column {column!r}: vocabulary_file {str(path)!r}"
    if file_format == "tfrecord_gzip":
        records = _tfrecord_entries(path, where)
        size = None if vocabulary_size is None else check_vocabulary_size(vocabulary_size, column)
        if size is not None and size > len(records):  # TF's message for a TFRecord file
            raise ValueError(
                f"{where}: Input dataset was expected to contain {vocabulary_size} elements but "
                f"contained only {len(records)} elements (Invalid vocab_size); vocabulary_size "
                "must be at most that"
            )
        return _vocabulary_entries(records, vocabulary_size, dtype, column, path)
    try:
        data = read_vocabulary_bytes(path, where)
    except FileNotFoundError as e:
        raise ValueError(f"{where} cannot be read: {e.strerror}") from e
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError as e:
        raise ValueError(f"{where} is not UTF-8 text ({e.reason} at byte {e.start})") from e
    if lines and lines[-1] == "":
        lines.pop()  # the file's final newline ends the last entry
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    return _vocabulary_entries(lines, vocabulary_size, dtype, column, path)


def check_vocabulary_size(vocabulary_size, column: str) -> int:
    """``vocabulary_size``, an integer >= 1, else TF's ``Invalid vocabulary_size``."""
    if isinstance(vocabulary_size, int) and not isinstance(vocabulary_size, bool):
        if vocabulary_size < 1:
            raise ValueError(
                f"column {column!r}: Invalid vocabulary_size {vocabulary_size}: it must be >= 1"
            )
    return check_int(vocabulary_size, "vocabulary_size", 1, column)


def _vocabulary_entries(lines: list, vocabulary_size, dtype: str, column: str, path) -> list:
    """The first ``vocabulary_size`` of a file's ``lines``, as ``dtype`` values."""
    if vocabulary_size is not None:
        size = check_vocabulary_size(vocabulary_size, column)
        if size > len(lines):
            raise ValueError(
                f"column {column!r}: Invalid vocab_size in {str(path)!r}: {size}. It has only "
                f"{len(lines)} entries; vocabulary_size must be at most that"
            )
        lines = lines[:size]
    if not lines:
        raise ValueError(f"column {column!r}: vocabulary_file {str(path)!r} is empty")
    if dtype == "string":
        return lines
    try:
        return [int(ln) for ln in lines]
    except ValueError as e:
        raise ValueError(
            f"column {column!r}: vocabulary_file {str(path)!r} has a line that is not an "
            f"integer ({e}); use dtype='string' for a text vocabulary"
        ) from e


@dataclass(frozen=True)
class VocabularyFileCategoricalColumn(_VocabularyColumn):
    """Ids from a vocabulary file; see :func:`categorical_column_with_vocabulary_file`.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "v.txt")
    >>> _ = open(path, "w").write("a\\nb\\n")
    >>> categorical_column_with_vocabulary_file("c", path).vocabulary_size
    2
    """

    key: str
    vocabulary_file: str
    vocabulary_size: int
    dtype: str = "string"
    default_value: int = -1
    num_oov_buckets: int = 0
    file_format: str = "text"
    _table: pa.Array = field(default=None, compare=False, repr=False)

    def _checked_vocabulary(self) -> pa.Array:
        values = read_vocabulary_file(
            self.vocabulary_file, self.vocabulary_size, self.dtype, self.key, self.file_format
        )
        source = f"in file {self.vocabulary_file!r} "
        return _check_vocabulary(values, self.dtype, self.key, source)

    @property
    def num_buckets(self) -> int:
        return self.vocabulary_size + self.num_oov_buckets

    def to_config(self) -> dict:
        out = {
            "type": "categorical_column_with_vocabulary_file",
            "key": self.key,
            "vocabulary_file": self.vocabulary_file,
            "vocabulary_size": self.vocabulary_size,
            "dtype": self.dtype,
        }
        if self.file_format != "text":
            out["file_format"] = self.file_format
        return self._with_oov_config(out)


def categorical_column_with_vocabulary_file(
    key: str,
    vocabulary_file: str | os.PathLike,
    vocabulary_size: int | None = None,
    dtype: str = "string",
    default_value: int | None = None,
    num_oov_buckets: int = 0,
    file_format: str | None = None,
) -> VocabularyFileCategoricalColumn:
    """Ids from a vocabulary file, one entry a line (TF's
    ``categorical_column_with_vocabulary_file``): a value's id is its line number.

    The file is read once, here. ``vocabulary_size`` keeps the first lines (all by
    default); misses follow ``num_oov_buckets`` or ``default_value`` as in
    :func:`categorical_column_with_vocabulary_list`.

    Args:
        key: the input feature's name (the column of the data).
        vocabulary_file: a text file of one value a line.
        vocabulary_size: how many of its first lines to use (TF's default ``None``: all).
        dtype: ``"string"`` (TF's default) or an integer type.
        default_value: the id of values not in the vocabulary (TF's default ``None``: -1,
            no id).
        num_oov_buckets: hashed ids for values not in the vocabulary (TF's default 0).
        file_format: ``"text"`` (one entry a line) or ``"tfrecord_gzip"`` (one a record);
            TF's default ``None``: ``"tfrecord_gzip"`` for a path ending in
            ``tfrecord.gz``, else ``"text"``.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "states.txt")
    >>> _ = open(path, "w").write("CA\\nNY\\nTX\\n")
    >>> c = categorical_column_with_vocabulary_file("states", path, num_oov_buckets=1)
    >>> c.vocabulary_size, c.num_buckets
    (3, 4)
    """
    key = check_key(key)
    dtype = check_dtype_arg(dtype, key)
    path = vocabulary_file
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if path is None or path == "":
        raise ValueError(f"column {key!r}: Missing vocabulary_file: give its path")
    if vocabulary_size is not None:
        check_vocabulary_size(vocabulary_size, key)
    _check_oov(num_oov_buckets, default_value, None, key)
    file_format = vocabulary_file_format(path, file_format)
    values = read_vocabulary_file(path, vocabulary_size, dtype, key, file_format)
    num_oov, default_value = _check_oov(num_oov_buckets, default_value, len(values), key)
    table = _check_vocabulary(values, dtype, key, f"in file {path!r} ")
    return VocabularyFileCategoricalColumn(
        key, path, len(values), dtype, default_value, num_oov, file_format, table
    )
