"""Feature data as Arrow: one conversion per batch, then flat views the columns read.

``features`` anywhere in ``cn.feature_columns`` may be a ``pyarrow.Table`` or
``RecordBatch``, a ``pandas.DataFrame``, or a dict of column name to numpy array, list or
Arrow array. :func:`as_features` wraps it once in :class:`Features`, which converts a
column to a single Arrow array the first time a feature column reads it (so unread
columns cost nothing) and says clearly which feature is missing.

A column is either scalar (one value per row) or a list column (multivalent, ragged).
:class:`Ragged` is the flat view of either: the values plus row splits. :class:`Encoded`
is the dictionary-encoded view that hashing and vocabulary lookups work on, so each
distinct value is hashed or looked up once per batch.

>>> f = as_features({"age": [31, 45], "tags": [["a", "b"], []]})
>>> f.num_rows, f.names
(2, ['age', 'tags'])
>>> r = flatten(f.column("tags"))
>>> r.values.to_pylist(), r.row_splits.tolist()
(['a', 'b'], [0, 2, 2])
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "ColumnArgumentError",
    "Encoded",
    "Features",
    "MissingFeatureError",
    "Ragged",
    "as_features",
    "dtype_name",
    "flatten",
    "value_kind",
    "same_array",
]


# ---------------------------------------------------------------- dtypes

_DTYPE_ALIASES = {
    "string": "string",
    "str": "string",
    "bytes": "string",
    "utf8": "string",
    "large_string": "string",
    "object": "string",
    "float": "float32",
    "double": "float64",
    "int": "int64",
    "long": "int64",
}
_NUMERIC_NAMES = (
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
)


def dtype_name(dtype) -> str:
    """A dtype given as a string, Python type, numpy dtype or Arrow type, as a canonical
    name: ``"string"``, ``"float32"``, ``"int64"``, ... (the form configs store).

    >>> dtype_name(str), dtype_name(np.int32), dtype_name(pa.float64()), dtype_name("string")
    ('string', 'int32', 'float64', 'string')
    """
    if dtype is str or dtype is bytes:
        return "string"
    if dtype is int:
        return "int64"
    if dtype is float:
        return "float32"
    if isinstance(dtype, pa.DataType):
        if value_kind(dtype) == "string":
            return "string"
        try:
            dtype = dtype.to_pandas_dtype()
        except NotImplementedError as e:
            raise ValueError(f"unsupported Arrow dtype {dtype}") from e
    if isinstance(dtype, str):
        name = _DTYPE_ALIASES.get(dtype.lower(), dtype.lower())
        if name == "string" or name in _NUMERIC_NAMES:
            return name
        raise ValueError(
            f"unknown dtype {dtype!r}; use 'string' or a numeric name such as 'int64', 'float32'"
        )
    try:
        name = np.dtype(dtype).name
    except TypeError as e:
        raise ValueError(f"unknown dtype {dtype!r}") from e
    if name in _NUMERIC_NAMES:
        return name
    if np.dtype(dtype).kind in "OUS":
        return "string"
    raise ValueError(f"unsupported dtype {dtype!r}")


# The Arrow types read as strings (binary ones too) and as lists, in all their layouts.
_STRING_TYPES = (
    pa.types.is_string,
    pa.types.is_large_string,
    pa.types.is_string_view,
    pa.types.is_binary,
    pa.types.is_large_binary,
    pa.types.is_binary_view,
)
_LIST_TYPES = (
    pa.types.is_list,
    pa.types.is_large_list,
    pa.types.is_fixed_size_list,
    pa.types.is_list_view,
    pa.types.is_large_list_view,
)


class ColumnArgumentError(ValueError, TypeError):
    """A bad argument to a feature column or a feature of the wrong kind. TensorFlow
    raises ``ValueError`` for these; it is also a ``TypeError``, which colonnade raised
    for some of them, so handlers written for either keep working."""


class MissingFeatureError(KeyError, ValueError):
    """A feature a column reads is not in the data: TensorFlow's ``ValueError``, also the
    ``KeyError`` colonnade raised before."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def value_kind(arrow_type: pa.DataType) -> str:
    """``"string"``, ``"integer"``, ``"floating"``, ``"boolean"``, ``"list"`` or
    ``"other"`` for an Arrow value type (dictionary types report their value type).

    >>> value_kind(pa.dictionary(pa.int32(), pa.large_string()))
    'string'
    """
    t = arrow_type.value_type if pa.types.is_dictionary(arrow_type) else arrow_type
    if any(is_type(t) for is_type in _STRING_TYPES):
        return "string"
    if pa.types.is_integer(t):
        return "integer"
    if pa.types.is_floating(t):
        return "floating"
    if pa.types.is_boolean(t):
        return "boolean"
    if is_list_type(t):
        return "list"
    return "other"


def is_list_type(t: pa.DataType) -> bool:
    """Whether ``t`` is a list type of any layout (list, large, fixed-size, view)."""
    return any(is_type(t) for is_type in _LIST_TYPES)


# ---------------------------------------------------------------- features


def _to_arrow(key: str, value) -> pa.Array:
    if isinstance(value, pa.ChunkedArray):
        return value.combine_chunks() if value.num_chunks != 1 else value.chunk(0)
    if isinstance(value, pa.Array):
        return value
    if hasattr(value, "__dataframe__") and not hasattr(value, "shape"):
        raise TypeError(f"feature {key!r}: expected an array or list, got {type(value).__name__}")
    if type(value).__module__.startswith("pandas"):
        try:
            return pa.Array.from_pandas(value)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            from ..data.columns import pandas_conversion_error

            raise pandas_conversion_error(key, value, e) from e
    if hasattr(value, "get") and type(value).__module__.startswith("cupy"):
        value = value.get()
    if isinstance(value, np.ndarray) and value.ndim > 1:
        flat = pa.array(value.reshape(-1))
        width = int(np.prod(value.shape[1:]))
        return pa.FixedSizeListArray.from_arrays(flat, width)
    try:
        return pa.array(value)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as e:
        raise ColumnArgumentError(f"feature {key!r} cannot be converted to Arrow: {e}") from e


class Features:
    """One batch of raw feature data, read as Arrow arrays.

    Build it with :func:`as_features`. ``column(key)`` returns the whole column as one
    ``pyarrow.Array`` (chunks combined, converted on first use, then kept).

    >>> f = as_features({"x": [1.0, 2.0]})
    >>> f.column("x").type
    DataType(double)
    """

    def __init__(self, source: Mapping, num_rows: int):
        self._source = source
        self.num_rows = int(num_rows)
        self._arrays: dict = {}
        self._lock = threading.Lock()

    @property
    def names(self) -> list:
        """The feature names present."""
        return list(self._source.keys())

    def __contains__(self, key) -> bool:
        return key in self._source

    def column(self, key: str, needed_by: str | None = None) -> pa.Array:
        """The feature ``key`` as one Arrow array; a clear ``MissingFeatureError`` (a
        ``KeyError`` and TF's ``ValueError``) if it is absent."""
        with self._lock:
            arr = self._arrays.get(key)
        if arr is not None:
            return arr
        if key not in self._source:
            who = f" (needed by feature column {needed_by!r})" if needed_by else ""
            raise MissingFeatureError(
                f"{key} is not in features dictionary: feature {key!r} not found{who}; the "
                f"data has columns {sorted(self.names)}"
            )
        arr = _to_arrow(key, self._source[key])
        if _all_null_untyped(arr):
            who = f" (needed by feature column {needed_by!r})" if needed_by else ""
            raise ValueError(
                f"feature {key!r}{who} has only missing values and so no type (Arrow type "
                f"{arr.type}, e.g. a pandas column of None); expected a typed column. Give it "
                f"a dtype, e.g. df[{key!r}].astype('string') or .astype('float64'); a typed "
                "column of nulls is read as missing values"
            )
        if len(arr) != self.num_rows:
            raise ValueError(
                f"feature {key!r} has {len(arr)} rows but the batch has {self.num_rows}"
            )
        with self._lock:
            self._arrays[key] = arr
        return arr


def _all_null_untyped(arr: pa.Array) -> bool:
    """Whether ``arr`` (or its list values) has Arrow's ``null`` type: values whose kind no
    one can tell, such as a pandas object column holding only None."""
    t = arr.type
    while is_list_type(t):
        t = t.value_type
    return pa.types.is_null(t) and len(arr) > 0


def as_features(features) -> Features:
    """Wrap a batch (``pyarrow.Table``/``RecordBatch``, ``pandas.DataFrame``, dict of
    arrays/lists, or :class:`Features`) for reading by feature columns.

    >>> as_features(pa.table({"a": [1, 2, 3]})).num_rows
    3
    """
    if isinstance(features, Features):
        return features
    if isinstance(features, (pa.Table, pa.RecordBatch)):
        source = {name: features.column(i) for i, name in enumerate(features.schema.names)}
        return Features(source, features.num_rows)
    if type(features).__module__.startswith("pandas") and hasattr(features, "columns"):
        source = {str(name): features[name] for name in features.columns}
        return Features(source, len(features))
    if isinstance(features, Mapping):
        lengths = {}
        for key, value in features.items():
            if not isinstance(key, str):
                raise TypeError(f"feature names must be strings, got {key!r}")
            if isinstance(value, (Mapping, set, frozenset)):
                raise ValueError(
                    f"Feature {key!r} is a {type(value).__name__}, which has no row order: "
                    "give an array or list with one entry per row"
                )
            if not hasattr(value, "__len__") or getattr(value, "ndim", 1) == 0:
                raise ValueError(
                    f"Feature {key!r} cannot have rank 0: give an array or list with one entry "
                    f"per row, got {type(value).__name__} {value!r}"
                )
            lengths[key] = len(value)
        if len(set(lengths.values())) > 1:
            raise ValueError(
                "Batch size (first dimension) of each feature must be same. Features have "
                f"different numbers of rows: {lengths}"
            )
        num_rows = next(iter(lengths.values())) if lengths else 0
        return Features(dict(features), num_rows)
    raise ColumnArgumentError(
        "features should be a dict of arrays, a pyarrow.Table or RecordBatch, or a "
        "pandas.DataFrame (TF: features should be a dictionary of `Tensor`s); got "
        f"{type(features).__name__}"
    )


# ---------------------------------------------------------------- flat views


@dataclass(frozen=True)
class Ragged:
    """A column as flat ``values`` plus ``row_splits``: row ``r`` holds
    ``values[row_splits[r]:row_splits[r + 1]]``. ``row_splits`` is ``None`` for a scalar
    column (exactly one value per row). Null values stay in ``values``; null lists are
    empty rows."""

    values: pa.Array
    row_splits: np.ndarray | None
    num_rows: int

    def splits(self) -> np.ndarray:
        """Row splits, materialized also for scalar columns."""
        if self.row_splits is None:
            return np.arange(self.num_rows + 1, dtype=np.int64)
        return self.row_splits

    @property
    def rectangular(self) -> bool:
        """Whether every row holds as many values (a scalar, fixed-size or equal-length
        list column): what TensorFlow holds as a dense tensor, whose ignore values (``''``,
        ``-1``, weight ``0``) its categorical columns drop, rather than as a
        ``SparseTensor``, whose values they all keep."""
        if self.row_splits is None or self.num_rows < 2:
            return True
        lengths = np.diff(self.row_splits)
        return bool((lengths == lengths[0]).all())


def flatten(arr: pa.Array) -> Ragged:
    """The :class:`Ragged` view of a scalar or list column (one level of lists)."""
    if is_list_type(arr.type):
        if arr.null_count:
            lengths = pc.fill_null(pc.list_value_length(arr), 0)
        else:
            lengths = pc.list_value_length(arr)
        splits = np.zeros(len(arr) + 1, dtype=np.int64)
        np.cumsum(lengths.to_numpy(zero_copy_only=False), out=splits[1:])
        values = pc.list_flatten(arr)
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        return Ragged(values, splits, len(arr))
    return Ragged(arr, None, len(arr))


@dataclass(frozen=True)
class Encoded:
    """A column's flat values dictionary-encoded: value ``i`` is ``dictionary[codes[i]]``
    unless ``valid`` (``None`` when every value is present) says it is null."""

    codes: np.ndarray
    dictionary: pa.Array
    valid: np.ndarray | None
    ragged: Ragged


def _valid_mask(arr: pa.Array) -> np.ndarray | None:
    if arr.null_count == 0:
        return None
    return arr.is_valid().to_numpy(zero_copy_only=False)


def ignored_entries(values: pa.Array) -> np.ndarray | None:
    """Where ``values`` hold TensorFlow's ignore value of categorical input, ``''`` for
    strings and ``-1`` for numbers (TF drops them when a dense feature becomes sparse
    ids: see :attr:`Ragged.rectangular`), or ``None`` when none do. Checked on a
    dictionary, so once per distinct value; the hashing columns check their
    fingerprints instead (``dictionary_hashes.valid_values``), which is cheaper."""
    kind = value_kind(values.type)
    if kind == "string":
        # empty strings are equal neighbouring offsets: numpy on the offsets buffer costs
        # an eighth of Arrow's binary_length + equal + any on this per-batch path
        large = pa.types.is_large_string(values.type) or pa.types.is_large_binary(values.type)
        offsets = np.frombuffer(values.buffers()[1], np.int64 if large else np.int32)
        offsets = offsets[values.offset : values.offset + len(values) + 1]
        mask = offsets[1:] == offsets[:-1]
    elif kind in ("integer", "floating"):
        mask = values.to_numpy(zero_copy_only=False) == -1
    else:
        return None
    return mask if mask.any() else None


def encode(ragged: Ragged) -> Encoded:
    """Dictionary-encode the flat values of ``ragged`` (dictionary-typed input is used as
    it is, trimmed to the entries this batch uses when the dictionary is the larger)."""
    values = ragged.values
    if not pa.types.is_dictionary(values.type):
        values = pc.dictionary_encode(values)
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
    indices = values.indices
    valid = _valid_mask(indices)
    codes = pc.fill_null(indices, 0) if valid is not None else indices
    codes = codes.to_numpy(zero_copy_only=False)
    dictionary = values.dictionary
    if dictionary.null_count:
        dict_valid = dictionary.is_valid().to_numpy(zero_copy_only=False)
        entry_valid = dict_valid[codes]
        valid = entry_valid if valid is None else valid & entry_valid
        dictionary = pc.fill_null(dictionary, "" if value_kind(dictionary.type) == "string" else 0)
    if len(dictionary) == 0 and len(codes):
        # Every value is null (missing): TF gives such rows no ids. One placeholder entry
        # keeps ``codes`` (all 0, all invalid) indexable by the lookups.
        placeholder = "" if value_kind(dictionary.type) == "string" else 0
        dictionary = pa.array([placeholder]).cast(dictionary.type)
        valid = np.zeros(len(codes), dtype=bool)
    if len(dictionary) > max(len(codes), 1024):
        # A batch sliced from a big dictionary-encoded chunk: look up only what it uses.
        used = np.unique(codes)
        remap = np.zeros(len(dictionary), dtype=np.int64)
        remap[used] = np.arange(used.shape[0])
        dictionary = dictionary.take(pa.array(used))
        codes = remap[codes]
    return Encoded(codes, dictionary, valid, ragged)


def same_array(a: pa.Array, b: pa.Array) -> bool:
    """Whether two Arrow arrays are views of the same memory (so equal, as Arrow buffers
    never change), without comparing their contents."""
    if a.type != b.type or len(a) != len(b) or a.offset != b.offset:
        return False
    for x, y in zip(a.buffers(), b.buffers()):
        if (x is None) != (y is None) or (
            x is not None and (x.address, x.size) != (y.address, y.size)
        ):
            return False
    return True
