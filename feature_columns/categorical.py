"""Categorical columns: hashed, identity, vocabulary (list or file), weighted and crossed.

Every one turns raw Arrow data into :class:`CategoricalIds` with TensorFlow's ids. The
single-feature columns work on the dictionary-encoded feature, so each distinct value is
hashed or looked up once per batch and the ids are then taken by index; nulls give no id.

>>> colors = categorical_column_with_vocabulary_list("colors", ["R", "G", "B", "Y"],
...                                                  num_oov_buckets=2)
>>> from colonnade.feature_columns import transform_features
>>> transform_features({"colors": [["B", "R"], ["Y"], []]}, [colors])["colors"].to_lists()
[[2, 0], [3], []]
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .base import CategoricalColumn, KeyedColumn, check_int, check_key, check_type
from .features import Ragged, dtype_name, kind_of, same_array
from .hashing import DEFAULT_HASH_KEY, fingerprint64, fingerprint_cat64
from .ids import CategoricalIds

__all__ = [
    "CrossedColumn",
    "HashedCategoricalColumn",
    "IdentityCategoricalColumn",
    "VocabularyFileCategoricalColumn",
    "VocabularyListCategoricalColumn",
    "WeightedCategoricalColumn",
    "categorical_column_with_hash_bucket",
    "categorical_column_with_identity",
    "categorical_column_with_vocabulary_file",
    "categorical_column_with_vocabulary_list",
    "crossed_column",
    "weighted_categorical_column",
]


# ---------------------------------------------------------------- shared machinery


@dataclass(frozen=True)
class FlatIds:
    """Ids of a single-feature column aligned with the feature's flat values: ``ids[i]``
    is the id of value ``i``, meaningful where ``valid`` (``None``: everywhere) holds."""

    ids: np.ndarray
    valid: np.ndarray | None
    ragged: Ragged


def drop_invalid(values: np.ndarray, valid, row_splits, num_rows: int):
    """``values`` without the entries ``valid`` rejects, and the row splits that follow."""
    if valid is None:
        return values, row_splits
    if row_splits is None:
        counts = valid.astype(np.int64)
    else:
        rows = np.repeat(np.arange(num_rows, dtype=np.int64), np.diff(row_splits))
        counts = np.bincount(rows[valid], minlength=num_rows)
    splits = np.zeros(num_rows + 1, dtype=np.int64)
    np.cumsum(counts, out=splits[1:])
    return values[valid], splits


def compact(flat: FlatIds, num_buckets: int) -> CategoricalIds:
    ids, splits = drop_invalid(flat.ids, flat.valid, flat.ragged.row_splits, flat.ragged.num_rows)
    return CategoricalIds(ids, splits, num_buckets, num_rows=flat.ragged.num_rows)


def _expected_kind(dtype: str) -> str:
    return "string" if dtype == "string" else "integer"


def check_input(column, key: str, arrow_type: pa.DataType, dtype: str) -> None:
    """TypeError unless feature ``key`` holds what a column of ``dtype`` reads: strings for
    ``string``; integers (or integral floats, as pandas stores ints with missing values)
    otherwise."""
    got = kind_of(arrow_type)
    if dtype != "string" and got == "floating":
        return
    check_type(column, key, arrow_type, _expected_kind(dtype), got)


def as_int64(column, key: str, arr: pa.Array) -> pa.Array:
    """``arr`` as int64, refusing (TypeError) floats that are not whole numbers."""
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(arr.type.value_type)
    try:
        return pc.cast(arr, pa.int64(), safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise TypeError(
            f"column {column.name!r} reads integers, but feature {key!r} of type {arr.type} has "
            f"values that are not whole numbers: {e}"
        ) from e


def dictionary_fingerprints(cache, key: str, needed_by) -> np.ndarray:
    """Fingerprint64 of each dictionary entry of feature ``key`` (integers through their
    decimal strings), computed once per batch for every column that hashes ``key``."""

    def compute():
        dictionary = cache.encoded(key, needed_by.name).dictionary
        if kind_of(dictionary.type) in ("integer", "floating"):
            dictionary = pc.cast(as_int64(needed_by, key, dictionary), pa.string())
        return fingerprint64(dictionary)

    return cache.memo(("fingerprint64", key), compute)


@functools.lru_cache(maxsize=256)
def _hashed_keys(columns: tuple) -> dict:
    """``{raw key: name of a column that hashes it}`` for ``columns`` and the columns they
    are built from (``children``); the same columns come every batch, hence the cache."""
    out: dict = {}
    stack = list(columns)
    while stack:
        column = stack.pop(0)
        if isinstance(column, HashedCategoricalColumn):
            out.setdefault(column.key, column.name)
        elif isinstance(column, CrossedColumn):
            for k in column.leaf_keys:
                if isinstance(k, str):
                    out.setdefault(k, column.name)
        stack.extend(getattr(column, "children", ()))
    return out


def fingerprint_together(cache, columns) -> None:
    """Fingerprint the dictionaries of every string key ``columns`` hash in one call.

    Equivalent to letting each column hash its own key, but one vectorized pass over the
    concatenated dictionaries costs a third of 26 separate ones for a 1k-row batch.
    Keys that are not plain strings are left to the columns (which also check types).
    """
    needed_by = _hashed_keys(tuple(columns))
    keys = [k for k in needed_by if not cache.has(("fingerprint64", k))]
    keys = [k for k in keys if kind_of(cache.ragged(k, needed_by[k]).values.type) == "string"]
    keys = [k for k in keys if not _reuse_fingerprints(cache, k, needed_by[k])]
    if len(keys) < 2:
        return
    dictionaries = [cache.encoded(k, needed_by[k]).dictionary for k in keys]
    if len({d.type for d in dictionaries}) != 1:
        return
    hashes = fingerprint64(pa.concat_arrays(dictionaries))
    start = 0
    for key, dictionary in zip(keys, dictionaries):
        part = hashes[start : start + len(dictionary)]
        cache.memo(("fingerprint64", key), lambda part=part: part)
        start += len(dictionary)


def _reuse_fingerprints(cache, key: str, needed_by: str) -> bool:
    """Take the fingerprints of ``key``'s dictionary from ``cache.previous`` when both
    batches share that dictionary (consecutive chunks of one Parquet row group do)."""
    previous = cache.previous
    if previous is None or not (
        previous.has(("fingerprint64", key)) and previous.has(("encoded", key))
    ):
        return False
    if not same_array(previous.encoded(key).dictionary, cache.encoded(key, needed_by).dictionary):
        return False
    hashes = previous.memo(("fingerprint64", key), None)
    cache.memo(("fingerprint64", key), lambda: hashes)
    return True


def _check_dtype_arg(dtype, column: str) -> str:
    name = dtype_name(dtype)
    if name != "string" and not name.startswith(("int", "uint")):
        raise ValueError(
            f"column {column!r}: dtype must be a string or integer type, got {dtype!r}"
        )
    return name


def _list_spec(dtype: str) -> pa.DataType:
    return pa.list_(pa.string() if dtype == "string" else pa.from_numpy_dtype(np.dtype(dtype)))


# ---------------------------------------------------------------- hash bucket


@dataclass(frozen=True)
class HashedCategoricalColumn(KeyedColumn, CategoricalColumn):
    """Ids by hashing; see :func:`categorical_column_with_hash_bucket`.

    >>> categorical_column_with_hash_bucket("kw", 10)
    HashedCategoricalColumn(key='kw', hash_bucket_size=10, dtype='string')
    """

    key: str
    hash_bucket_size: int
    dtype: str = "string"

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size

    def flat_ids(self, cache) -> FlatIds:
        def compute():
            enc = cache.encoded(self.key, self.name)
            check_input(self, self.key, enc.ragged.values.type, self.dtype)
            fp = dictionary_fingerprints(cache, self.key, self)
            dict_ids = (fp % np.uint64(self.hash_bucket_size)).astype(np.int64)
            return FlatIds(dict_ids[enc.codes], enc.valid, enc.ragged)

        return cache.memo(("flat_ids", self), compute)

    def transform(self, cache) -> CategoricalIds:
        """``Fingerprint64(value) % hash_bucket_size`` for each value."""
        return compact(self.flat_ids(cache), self.num_buckets)

    def parse_spec(self) -> dict:
        return {self.key: _list_spec(self.dtype)}

    def to_config(self) -> dict:
        return {
            "type": "categorical_column_with_hash_bucket",
            "key": self.key,
            "hash_bucket_size": self.hash_bucket_size,
            "dtype": self.dtype,
        }


def categorical_column_with_hash_bucket(
    key: str, hash_bucket_size: int, dtype: str = "string"
) -> HashedCategoricalColumn:
    """Ids set by hashing: ``Fingerprint64(value) % hash_bucket_size`` (TF's
    ``categorical_column_with_hash_bucket``); integers are hashed through their decimal
    string, so ``7`` and ``"7"`` get the same id. Nulls give no id.

    Args:
        key: the input feature's name (the column of the data).
        hash_bucket_size: the number of ids, at least 1.
        dtype: ``"string"`` (TF's default) or an integer type.

    >>> c = categorical_column_with_hash_bucket("keywords", 10)
    >>> from colonnade.feature_columns import transform_features
    >>> transform_features({"keywords": [["a", "b"], None]}, [c])["keywords"].to_lists()
    [[9, 2], []]
    """
    key = check_key(key)
    size = check_int(hash_bucket_size, "hash_bucket_size", 1, key)
    return HashedCategoricalColumn(key, size, _check_dtype_arg(dtype, key))


# ---------------------------------------------------------------- identity


@dataclass(frozen=True)
class IdentityCategoricalColumn(KeyedColumn, CategoricalColumn):
    """Integer values used as ids; see :func:`categorical_column_with_identity`.

    >>> categorical_column_with_identity("item", 5).num_buckets
    5
    """

    key: str
    num_buckets: int
    default_value: int | None = None

    def flat_ids(self, cache) -> FlatIds:
        def compute():
            ragged = cache.ragged(self.key, self.name)
            values = ragged.values
            check_input(self, self.key, values.type, "int64")
            values = as_int64(self, self.key, values)
            valid = None
            if values.null_count:
                valid = values.is_valid().to_numpy(zero_copy_only=False)
                values = pc.fill_null(values, 0)
            ids = values.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
            bad = (ids < 0) | (ids >= self.num_buckets)
            if valid is not None:
                bad &= valid
            if bad.any():
                if self.default_value is None:
                    example = int(ids[np.flatnonzero(bad)[0]])
                    raise ValueError(
                        f"column {self.name!r}: feature {self.key!r} has {int(bad.sum())} values "
                        f"outside [0, {self.num_buckets}), e.g. {example}; give "
                        "categorical_column_with_identity(..., default_value=...) to map them "
                        "to an id"
                    )
                ids = np.where(bad, self.default_value, ids)
            return FlatIds(ids, valid, ragged)

        return cache.memo(("flat_ids", self), compute)

    def transform(self, cache) -> CategoricalIds:
        """The values themselves; out-of-range values become ``default_value``."""
        return compact(self.flat_ids(cache), self.num_buckets)

    def parse_spec(self) -> dict:
        return {self.key: pa.list_(pa.int64())}

    def to_config(self) -> dict:
        out = {
            "type": "categorical_column_with_identity",
            "key": self.key,
            "num_buckets": self.num_buckets,
        }
        if self.default_value is not None:
            out["default_value"] = self.default_value
        return out


def categorical_column_with_identity(
    key: str, num_buckets: int, default_value: int | None = None
) -> IdentityCategoricalColumn:
    """Integer values in ``[0, num_buckets)`` used as their own ids (TF's
    ``categorical_column_with_identity``). Values outside become ``default_value``; without
    one they are an error naming the column. Nulls give no id.

    Args:
        key: the input feature's name (the column of the data).
        num_buckets: the number of ids; values must be in ``[0, num_buckets)``.
        default_value: the id of values outside that range (TF's default ``None``: an
            error).

    >>> c = categorical_column_with_identity("video_id", 100, default_value=0)
    >>> from colonnade.feature_columns import transform_features
    >>> transform_features({"video_id": [5, 500, None]}, [c])["video_id"].to_lists()
    [[5], [0], []]
    """
    key = check_key(key)
    n = check_int(num_buckets, "num_buckets", 1, key)
    if default_value is not None:
        default_value = check_int(default_value, "default_value", None, key)
        if not 0 <= default_value < n:
            raise ValueError(
                f"column {key!r}: default_value must be in [0, {n}), got {default_value}"
            )
    return IdentityCategoricalColumn(key, n, default_value)


# ---------------------------------------------------------------- vocabularies


def _check_vocabulary(values: list, dtype: str, column: str, source: str) -> pa.Array:
    if not values:
        raise ValueError(f"column {column!r}: the vocabulary {source}is empty")
    counts = Counter(values)
    dups = [v for v, c in counts.items() if c > 1]
    if dups:
        raise ValueError(
            f"column {column!r}: the vocabulary {source}has duplicate entries {sorted(dups)[:10]}"
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
    return FlatIds(dict_ids[enc.codes], enc.valid, enc.ragged)


def _check_oov(num_oov_buckets, default_value, vocab_size: int, column: str):
    num_oov = check_int(num_oov_buckets, "num_oov_buckets", 0, column)
    if default_value is None:
        default_value = -1
    default_value = check_int(default_value, "default_value", None, column)
    if num_oov and default_value != -1:
        raise ValueError(
            f"column {column!r}: give either num_oov_buckets ({num_oov}) or default_value "
            f"({default_value}), not both"
        )
    if default_value != -1 and not 0 <= default_value < vocab_size:
        raise ValueError(
            f"column {column!r}: default_value must be -1 (drop misses) or an id in "
            f"[0, {vocab_size}), got {default_value}"
        )
    return num_oov, default_value


class _VocabularyColumn(KeyedColumn, CategoricalColumn):
    """What the vocabulary list and file columns share: their ``_table`` lookup, the OOV
    rules, and the config fields for them."""

    def flat_ids(self, cache) -> FlatIds:
        return cache.memo(("flat_ids", self), lambda: _vocab_lookup(self, cache, self._table))

    def transform(self, cache) -> CategoricalIds:
        """Each value's index in the vocabulary; misses as the OOV rules say."""
        return compact(self.flat_ids(cache), self.num_buckets)

    def parse_spec(self) -> dict:
        return {self.key: _list_spec(self.dtype)}

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
        if self._table is None:
            table = _check_vocabulary(list(self.vocabulary_list), self.dtype, self.key, "")
            object.__setattr__(self, "_table", table)
        # Hashed once: the transform cache looks columns up by value, and a long
        # vocabulary would otherwise be rehashed on every lookup.
        fields = (self.key, self.vocabulary_list, self.dtype, self.default_value)
        object.__setattr__(self, "_hash", hash(fields + (self.num_oov_buckets,)))

    def __hash__(self) -> int:
        return self._hash

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
    if isinstance(vocabulary_list, (str, bytes)) or not hasattr(vocabulary_list, "__iter__"):
        raise TypeError(f"column {key!r}: vocabulary_list must be a list or tuple of values")
    values = vocabulary_list.tolist() if hasattr(vocabulary_list, "tolist") else vocabulary_list
    values = list(values)
    if not values:
        raise ValueError(f"column {key!r}: vocabulary_list is empty")
    if all(isinstance(v, str) for v in values):
        inferred = "string"
    elif all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        inferred = "int64"
        values = [int(v) for v in values]
    else:
        raise ValueError(
            f"column {key!r}: vocabulary_list must be all strings or all integers, got "
            f"{sorted({type(v).__name__ for v in values})}"
        )
    dtype = inferred if dtype is None else _check_dtype_arg(dtype, key)
    if _expected_kind(dtype) != _expected_kind(inferred):
        raise ValueError(
            f"column {key!r}: dtype {dtype} does not match a vocabulary of {inferred} values"
        )
    num_oov, default_value = _check_oov(num_oov_buckets, default_value, len(values), key)
    table = _check_vocabulary(values, dtype, key, "")
    return VocabularyListCategoricalColumn(key, tuple(values), dtype, default_value, num_oov, table)


def read_vocabulary_file(path: str, vocabulary_size, dtype: str, column: str) -> list:
    """The first ``vocabulary_size`` lines of ``path`` (all when ``None``), one entry a line."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise ValueError(f"column {column!r}: vocabulary_file must be a path, got {path!r}")
    try:
        with open(path, encoding="utf-8", newline="") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise ValueError(
            f"column {column!r}: vocabulary_file {str(path)!r} cannot be read: {e.strerror}"
        ) from e
    if lines and lines[-1] == "":
        lines.pop()  # the file's final newline ends the last entry
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    if vocabulary_size is not None:
        size = check_int(vocabulary_size, "vocabulary_size", 1, column)
        if size > len(lines):
            raise ValueError(
                f"column {column!r}: vocabulary_size={size} but vocabulary_file {str(path)!r} "
                f"has only {len(lines)} lines"
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
    _table: pa.Array = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self._table is None:
            values = read_vocabulary_file(
                self.vocabulary_file, self.vocabulary_size, self.dtype, self.key
            )
            source = f"in file {self.vocabulary_file!r} "
            table = _check_vocabulary(values, self.dtype, self.key, source)
            object.__setattr__(self, "_table", table)

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
        return self._with_oov_config(out)


def categorical_column_with_vocabulary_file(
    key: str,
    vocabulary_file: str | os.PathLike,
    vocabulary_size: int | None = None,
    dtype: str = "string",
    default_value: int | None = None,
    num_oov_buckets: int = 0,
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

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "states.txt")
    >>> _ = open(path, "w").write("CA\\nNY\\nTX\\n")
    >>> c = categorical_column_with_vocabulary_file("states", path, num_oov_buckets=1)
    >>> c.vocabulary_size, c.num_buckets
    (3, 4)
    """
    key = check_key(key)
    dtype = _check_dtype_arg(dtype, key)
    path = vocabulary_file
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    values = read_vocabulary_file(path, vocabulary_size, dtype, key)
    num_oov, default_value = _check_oov(num_oov_buckets, default_value, len(values), key)
    table = _check_vocabulary(values, dtype, key, f"in file {path!r} ")
    return VocabularyFileCategoricalColumn(
        key, path, len(values), dtype, default_value, num_oov, table
    )


# ---------------------------------------------------------------- weighted


@dataclass(frozen=True)
class WeightedCategoricalColumn(CategoricalColumn):
    """Ids with per-id weights; see :func:`weighted_categorical_column`.

    >>> weighted_categorical_column(categorical_column_with_identity("i", 3), "w").input_keys
    ('i', 'w')
    """

    categorical_column: CategoricalColumn
    weight_feature_key: str
    dtype: str = "float32"

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def input_keys(self) -> tuple:
        return self.categorical_column.input_keys + (self.weight_feature_key,)

    @property
    def children(self) -> tuple:
        return (self.categorical_column,)

    @property
    def num_buckets(self) -> int:
        return self.categorical_column.num_buckets

    def transform(self, cache) -> CategoricalIds:
        """The categorical column's ids, each with the weight at its position."""
        flat = self.categorical_column.flat_ids(cache)
        key = self.weight_feature_key
        w = cache.ragged(key, self.name)
        check_type(self, key, w.values.type, "floating|integer", kind_of(w.values.type))
        id_splits, w_splits = flat.ragged.row_splits, w.row_splits
        same = (id_splits is None and w_splits is None) or np.array_equal(
            flat.ragged.splits(), w.splits()
        )
        if not same:
            raise ValueError(
                f"column {self.name!r}: weights {key!r} must have one value per value of "
                f"{self.categorical_column.input_keys[0]!r}, row by row; their list lengths differ"
            )
        values = w.values
        if pa.types.is_dictionary(values.type):
            values = values.cast(values.type.value_type)
        weights = pc.fill_null(values, 0).to_numpy(zero_copy_only=False).astype(np.float32)
        if values.null_count:
            w_valid = values.is_valid().to_numpy(zero_copy_only=False)
            missing = ~w_valid if flat.valid is None else flat.valid & ~w_valid
            if missing.any():
                raise ValueError(
                    f"column {self.name!r}: {int(missing.sum())} values have an id but a null "
                    f"weight in {key!r}"
                )
        ids = compact(flat, self.num_buckets)
        if flat.valid is not None:
            weights = weights[flat.valid]
        return ids.with_weights(weights)

    def parse_spec(self) -> dict:
        spec = dict(self.categorical_column.parse_spec())
        if self.weight_feature_key in spec:
            raise ValueError(
                f"column {self.name!r}: weight feature {self.weight_feature_key!r} is also the "
                "categorical feature"
            )
        spec[self.weight_feature_key] = pa.list_(pa.from_numpy_dtype(np.dtype(self.dtype)))
        return spec

    def to_config(self) -> dict:
        return {
            "type": "weighted_categorical_column",
            "categorical_column": self.categorical_column.to_config(),
            "weight_feature_key": self.weight_feature_key,
            "dtype": self.dtype,
        }


def weighted_categorical_column(
    categorical_column: CategoricalColumn, weight_feature_key: str, dtype: str = "float32"
) -> WeightedCategoricalColumn:
    """Give each id of a categorical column a weight from a parallel feature (TF's
    ``weighted_categorical_column``): the weights column has the same shape as the ids'
    feature (scalar, or lists of equal lengths row by row).

    Args:
        categorical_column: a ``categorical_column_with_*`` column (hash bucket, identity
            or vocabulary).
        weight_feature_key: the feature holding each id's weight.
        dtype: the weights' type (TF's default ``"float32"``).

    >>> terms = categorical_column_with_hash_bucket("terms", 1000)
    >>> weighted_categorical_column(terms, "frequencies").name
    'terms_weighted_by_frequencies'
    """
    if (
        not isinstance(categorical_column, CategoricalColumn)
        or not hasattr(categorical_column, "flat_ids")
        or categorical_column.is_sequence
    ):
        raise ValueError(
            "weighted_categorical_column needs a categorical_column_with_* column (hash bucket, "
            f"identity or vocabulary), got {type(categorical_column).__name__}"
        )
    key = check_key(weight_feature_key, "weight_feature_key")
    if key in categorical_column.input_keys:
        raise ValueError(
            f"weight_feature_key {key!r} must differ from the categorical feature's key"
        )
    dtype = dtype_name(dtype)
    if not dtype.startswith("float"):
        raise ValueError(f"weighted_categorical_column: dtype must be a float type, got {dtype!r}")
    return WeightedCategoricalColumn(categorical_column, key, dtype)


# ---------------------------------------------------------------- crossed


def _leaf_keys(keys) -> list:
    out = []
    for k in keys:
        if isinstance(k, CrossedColumn):
            out.extend(_leaf_keys(k.keys))
        else:
            out.append(k)
    return out


@dataclass(frozen=True)
class CrossedColumn(CategoricalColumn):
    """Hashed cross of features; see :func:`crossed_column`.

    >>> crossed_column([crossed_column(["a", "b"], 10), "c"], 100).leaf_keys
    ['a', 'b', 'c']
    """

    keys: tuple
    hash_bucket_size: int
    hash_key: int | None = None

    @property
    def leaf_keys(self) -> list:
        """The keys with nested crosses expanded, in order."""
        return _leaf_keys(self.keys)

    @property
    def name(self) -> str:
        names = [k if isinstance(k, str) else k.name for k in self.leaf_keys]
        return "_X_".join(sorted(names))

    @property
    def input_keys(self) -> tuple:
        out = []
        for k in self.leaf_keys:
            for key in (k,) if isinstance(k, str) else k.input_keys:
                if key not in out:
                    out.append(key)
        return tuple(out)

    @property
    def children(self) -> tuple:
        return tuple(k for k in self.keys if not isinstance(k, str))

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size

    def _leaf_hashes(self, cache, leaf):
        """One key's feature hashes: Fingerprint64 for strings, the value for integers."""
        n = cache.num_rows
        if not isinstance(leaf, str):
            ids = cache.get(leaf)
            return ids.ids.view(np.uint64), ids.row_splits
        ragged = cache.ragged(leaf, self.name)
        kind = kind_of(ragged.values.type)
        if kind != "floating":
            check_type(self, leaf, ragged.values.type, "string|integer", kind)
        if kind == "string":
            enc = cache.encoded(leaf, self.name)
            hashes = dictionary_fingerprints(cache, leaf, self)[enc.codes]
            return drop_invalid(hashes, enc.valid, ragged.row_splits, n)
        values = as_int64(self, leaf, ragged.values)
        valid = values.is_valid().to_numpy(zero_copy_only=False) if values.null_count else None
        ints = pc.fill_null(values, 0).to_numpy(zero_copy_only=False)
        return drop_invalid(ints.view(np.uint64), valid, ragged.row_splits, n)

    def transform(self, cache) -> CategoricalIds:
        """Fold each combination's feature hashes with FingerprintCat64 from ``hash_key``,
        then ``% hash_bucket_size``; a row gets the cartesian product of its keys' values
        (the last key varying fastest, as TensorFlow's SparseCrossOp)."""
        n = cache.num_rows
        leaves = [self._leaf_hashes(cache, leaf) for leaf in self.leaf_keys]
        key = DEFAULT_HASH_KEY if self.hash_key is None else self.hash_key
        size = np.uint64(self.hash_bucket_size)
        if all(splits is None for _, splits in leaves):
            acc = np.full(n, key, dtype=np.uint64)
            for hashes, _ in leaves:
                acc = fingerprint_cat64(acc, hashes)
            return CategoricalIds((acc % size).astype(np.int64), None, self.hash_bucket_size)
        starts, counts = [], []
        for _, splits in leaves:
            if splits is None:
                starts.append(np.arange(n, dtype=np.int64))
                counts.append(np.ones(n, dtype=np.int64))
            else:
                starts.append(splits[:-1])
                counts.append(np.diff(splits))
        total = np.prod(np.stack(counts), axis=0)
        out_splits = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(total, out=out_splits[1:])
        rows = np.repeat(np.arange(n, dtype=np.int64), total)
        local = np.arange(out_splits[-1], dtype=np.int64) - out_splits[rows]
        acc = np.full(rows.shape[0], key, dtype=np.uint64)
        strides = [None] * len(leaves)
        stride = np.ones(n, dtype=np.int64)
        for i in range(len(leaves) - 1, -1, -1):
            strides[i] = stride
            stride = stride * counts[i]
        for i, (hashes, _) in enumerate(leaves):
            c = counts[i][rows]
            index = starts[i][rows] + (local // strides[i][rows]) % np.maximum(c, 1)
            acc = fingerprint_cat64(acc, hashes[index])
        return CategoricalIds((acc % size).astype(np.int64), out_splits, self.hash_bucket_size)

    def parse_spec(self) -> dict:
        spec = {}
        for k in self.keys:
            spec.update({k: pa.list_(pa.string())} if isinstance(k, str) else k.parse_spec())
        return spec

    def to_config(self) -> dict:
        out = {
            "type": "crossed_column",
            "keys": [k if isinstance(k, str) else k.to_config() for k in self.keys],
            "hash_bucket_size": self.hash_bucket_size,
        }
        if self.hash_key is not None:
            out["hash_key"] = self.hash_key
        return out


def crossed_column(
    keys: Sequence[str | CategoricalColumn], hash_bucket_size: int, hash_key: int | None = None
) -> CrossedColumn:
    """Hashed cross of two or more features (TF's ``crossed_column``).

    ``keys`` are feature names (string features contribute ``Fingerprint64(value)``,
    integer features the value) or categorical columns (vocabulary, identity, bucketized
    or crossed ones, contributing their ids), but not hashed columns: cross the raw feature
    instead. Each combination's hashes are folded with FingerprintCat64 starting from
    ``hash_key`` (default ``0xDECAFCAFFE``), then taken ``% hash_bucket_size``. Multivalent
    rows cross as the cartesian product of their values.

    Args:
        keys: two or more feature names or categorical columns, as above.
        hash_bucket_size: the number of ids, at least 1.
        hash_key: the seed of the folded hashes (TF's default ``None``: ``0xDECAFCAFFE``).

    >>> c = crossed_column(["b", "a"], 100)
    >>> c.name, c.num_buckets
    ('a_X_b', 100)
    """
    if isinstance(keys, (str, bytes)) or not hasattr(keys, "__iter__"):
        raise ValueError(f"crossed_column: keys must be a list of two or more keys, got {keys!r}")
    keys = tuple(keys)
    if len(keys) < 2:
        raise ValueError(f"crossed_column needs at least two keys, got {len(keys)}: {keys!r}")
    for k in keys:
        if isinstance(k, str):
            check_key(k, "a crossed_column key")
            continue
        if isinstance(k, HashedCategoricalColumn):
            raise ValueError(
                f"crossed_column does not cross the hashed column {k.name!r}: hashing before "
                f"crossing adds collisions; use the feature name {k.key!r} as the key instead"
            )
        if isinstance(k, WeightedCategoricalColumn):
            raise ValueError(
                f"crossed_column does not support the weighted column {k.name!r}; cross its "
                "categorical column instead"
            )
        if not isinstance(k, CategoricalColumn) or k.is_sequence:
            raise ValueError(
                "crossed_column keys must be feature names or categorical columns, got "
                f"{type(k).__name__}: {k!r}"
            )
    size = check_int(hash_bucket_size, "hash_bucket_size", 1, "crossed_column")
    if hash_key is not None:
        hash_key = check_int(hash_key, "hash_key", 0)
        if hash_key >= 2**64:
            raise ValueError(f"hash_key must fit in 64 bits, got {hash_key}")
    return CrossedColumn(keys, size, hash_key)
