"""``cn.lookup``: TF 2's ``tf.lookup`` tables, eager: built when made, looked up with
vectorised Arrow ``index_in`` (no Python loop per key).

- :class:`KeyValueTensorInitializer` (keys and values given) and
  :class:`TextFileInitializer` (read from a text file, see :mod:`.lookup_text`);
- :class:`StaticHashTable`: each key's value, ``default_value`` for a miss;
- :class:`StaticVocabularyTable`: each key's id, a miss hashed into one of
  ``num_oov_buckets`` ids after the vocabulary, ``size + Fingerprint64(key) %
  num_oov_buckets`` (integers hashed through their decimal text), TF's values, by the
  same Fingerprint64 the vocabulary feature columns use.

Keys are strings (``str``, ``bytes`` or an object array) or integers, of any shape, or
an Arrow array (a list array looks up its values, as TF a ``RaggedTensor``); the result
has their shape. Two values for one key are refused at build time with TF's message.

>>> import colonnade as cn
>>> init = cn.lookup.KeyValueTensorInitializer(["brain", "salad"], [0, 1])
>>> table = cn.lookup.StaticVocabularyTable(init, num_oov_buckets=3)
>>> table.lookup(["salad", "tarkus"]).tolist(), int(table.size())
([1, 4], 5)
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from colonnade.array_ops import constant
from colonnade.core.tf_array_ops import numpy_dtype
from colonnade.feature_columns.hashing import hash_bucket_ids

from .lookup_text import LINE_NUMBER, WHOLE_LINE, read_text_file_columns

__all__ = [
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "TextFileIndex",
    "TextFileInitializer",
]


def dtype_name(dtype) -> str:
    """TF's name of a dtype (``"string"`` for strings)."""
    dt = numpy_dtype(dtype)
    return "string" if dt.kind == "O" else dt.name


def tf_dtype(name: str) -> str:
    """``name`` as TF prints a dtype in its messages: ``<dtype: 'int64'>``."""
    return f"<dtype: '{name}'>"


def is_integer_dtype(name: str) -> bool:
    return name != "string" and np.dtype(name).kind in "iu"


def as_array(values, dtype=None) -> np.ndarray:
    """``values`` (a list, scalar or array; strings as an object array) as numpy."""
    array = constant(values, dtype=None if dtype is None else numpy_dtype(dtype))
    if array.dtype.kind == "S" or (
        array.dtype.kind == "O" and array.size and isinstance(array.reshape(-1)[0], bytes)
    ):  # TF's strings are bytes: decoded in one Arrow cast
        text = pc.cast(pa.array(array.reshape(-1), pa.binary()), pa.string())
        array = text.to_numpy(zero_copy_only=False).astype(object).reshape(array.shape)
    return array


def _kind_name(array: np.ndarray) -> str:
    return "string" if array.dtype.kind in "OUS" else array.dtype.name


def _as_arrow(flat: np.ndarray) -> pa.Array:
    if flat.dtype.kind in "OUS":
        if len(flat) == 0:
            return pa.array([], pa.string())
        out = pa.array(flat, type=None if flat.dtype == object else pa.string())
        return out if pa.types.is_string(out.type) else pc.cast(out, pa.string())
    return pa.array(flat.astype(np.int64, copy=False))


class TextFileIndex:
    """Where a :class:`TextFileInitializer` takes a key or value from: the whole line, or
    its number; a field index (0, 1...) takes that field."""

    WHOLE_LINE = WHOLE_LINE
    LINE_NUMBER = LINE_NUMBER


class KeyValueTensorInitializer:
    """A table's entries from ``keys`` and ``values`` of the same shape (TF's
    ``tf.lookup.KeyValueTensorInitializer``); ``key_dtype``/``value_dtype`` convert them,
    else they keep their own (colonnade's: Python ints as int64, floats as float32)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys, self._values = as_array(keys, key_dtype), as_array(values, value_dtype)
        self.key_dtype, self.value_dtype = _kind_name(self._keys), _kind_name(self._values)
        self.name = name if name is not None else "key_value_init"

    def entries(self) -> tuple[np.ndarray, np.ndarray]:
        """The ``(keys, values)`` the table gets, flat."""
        if self._keys.shape != self._values.shape:
            raise ValueError(
                f"Expected shape {list(self._keys.shape)} for value, got {list(self._values.shape)}"
            )
        return self._keys.reshape(-1), self._values.reshape(-1)


class TextFileInitializer:
    """A table's entries from a text file, one a line (TF's
    ``tf.lookup.TextFileInitializer``): the key from field ``key_index`` (or
    ``TextFileIndex.WHOLE_LINE``/``LINE_NUMBER``), the value from ``value_index``, each
    split on ``delimiter``; the first ``vocab_size`` lines (all when ``None``);
    ``value_index_offset`` is added to line-number values."""

    def __init__(
        self,
        filename,
        key_dtype,
        key_index,
        value_dtype,
        value_index,
        vocab_size=None,
        delimiter="\t",
        name=None,
        value_index_offset=0,
    ):
        if not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        key_dtype, value_dtype = dtype_name(key_dtype), dtype_name(value_dtype)
        for what, index, dtype in (
            ("key", key_index, key_dtype),
            ("value", value_index, value_dtype),
        ):
            _check_index(what, index, dtype)
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self.filename, self.key_index, self.value_index = filename, key_index, value_index
        self.key_dtype, self.value_dtype = key_dtype, value_dtype
        self.vocab_size, self.delimiter, self.name = vocab_size, delimiter, name
        self.value_index_offset = value_index_offset

    def entries(self) -> tuple[np.ndarray, np.ndarray]:
        """The ``(keys, values)`` the file gives, one of each a line."""
        return read_text_file_columns(
            self.filename,
            self.key_index,
            self.key_dtype,
            self.value_index,
            self.value_dtype,
            self.vocab_size,
            self.delimiter,
            self.value_index_offset,
        )


def _check_index(what: str, index: int, dtype: str):
    """TF's checks of a text file's ``key_index``/``value_index`` against its dtype."""
    verb = "must be int64 if `key_index` is" if what == "key" else "must be int64 for `value_index`"
    if index < -2:
        tail = "." if what == "key" else ""
        raise ValueError(f"`{what}_index` should be >= -2, received: {index}{tail}")
    if index == LINE_NUMBER and dtype != "int64":
        raise ValueError(f"`{what}_dtype` {verb} {LINE_NUMBER}, received: {tf_dtype(dtype)}")
    if index == WHOLE_LINE and not (dtype == "string" or is_integer_dtype(dtype)):
        raise ValueError(
            f"`{what}_dtype` should be either integer or string for `{what}_index` "
            f"{WHOLE_LINE}, received: {tf_dtype(dtype)}"
        )


def _format(value) -> str:
    return str(value.item() if isinstance(value, np.generic) else value)


class _Entries:
    """A table's unique keys (Arrow, for ``index_in``) and their values (numpy)."""

    def __init__(self, keys: np.ndarray, values: np.ndarray):
        self.keys = _as_arrow(keys)
        first = pc.index_in(self.keys, value_set=self.keys).to_numpy(zero_copy_only=False)
        repeated = first != np.arange(len(first))
        if repeated.any():
            conflict = np.flatnonzero(repeated & (values[first] != values))
            if len(conflict):
                i = int(conflict[0])
                raise ValueError(
                    "HashTable has different value for same key. Key "
                    f"{_format(keys[i])} has {_format(values[first[i]])} and trying to add "
                    f"value {_format(values[i])}"
                )
            keys, values = keys[~repeated], values[~repeated]
            self.keys = _as_arrow(keys)
        self.values = values

    def find(self, flat_keys: pa.Array) -> tuple[np.ndarray, np.ndarray]:
        """The index of each key among the entries (0 for a miss) and whether found."""
        index = pc.index_in(flat_keys, value_set=self.keys)
        found = index.is_valid().to_numpy(zero_copy_only=False)
        return pc.fill_null(index, 0).to_numpy(zero_copy_only=False).astype(np.intp), found


def _keys(keys, key_dtype: str):
    """``(flat Arrow keys, a function giving the result its keys' shape)``, the keys'
    dtype checked against the table's (any integer width for an integer table)."""
    if isinstance(keys, pa.ChunkedArray):
        keys = keys.combine_chunks()
    if isinstance(keys, (pa.ListArray, pa.LargeListArray)):
        flat, rebuild = _keys(keys.values, key_dtype)
        mask = keys.is_null() if keys.null_count else None
        return flat, lambda out: type(keys).from_arrays(
            keys.offsets, pa.array(rebuild(out)), mask=mask
        )
    if isinstance(keys, pa.FixedSizeListArray):
        flat, rebuild = _keys(keys.flatten(), key_dtype)
        size = keys.type.list_size
        return flat, lambda out: pa.FixedSizeListArray.from_arrays(pa.array(rebuild(out)), size)
    if isinstance(keys, pa.Array):
        if pa.types.is_dictionary(keys.type):
            keys = keys.dictionary_decode()
        if keys.null_count:
            raise ValueError("lookup keys must not be null: fill or drop the nulls first")
        if pa.types.is_integer(keys.type):
            kind = str(keys.type)
        elif _is_arrow_string(keys.type):
            kind = "string"
        else:
            kind = str(keys.type)
        _check_key_dtype(kind, key_dtype)
        flat = pc.cast(keys, pa.string() if key_dtype == "string" else pa.int64())
        return flat, lambda out: out
    given = keys.numpy() if hasattr(keys, "numpy") else keys
    array = as_array(given)
    if array.size == 0 and not isinstance(given, np.ndarray):  # [] takes the table's dtype
        array = array.astype(numpy_dtype(key_dtype))
    _check_key_dtype(_kind_name(array), key_dtype)
    shape = array.shape
    return _as_arrow(array.reshape(-1)), lambda out: out.reshape(shape)


def _is_arrow_string(t) -> bool:
    return (
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
    )


def _check_key_dtype(got: str, key_dtype: str):
    if got == key_dtype or (
        is_integer_dtype(key_dtype) and got != "string" and is_integer_dtype(got)
    ):
        return
    raise TypeError(
        f"Dtype of argument `keys` must be {tf_dtype(key_dtype)}, received: {tf_dtype(got)}"
    )


class StaticHashTable:
    """A table mapping each key to its value, built once from ``initializer`` (TF 2's
    ``tf.lookup.StaticHashTable``); a key not in it gives ``default_value``."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self.initializer = initializer
        self.key_dtype, self.value_dtype = initializer.key_dtype, initializer.value_dtype
        if self.key_dtype not in ("string", "int32", "int64"):
            raise TypeError(
                f"Invalid key dtype for table: {tf_dtype(self.key_dtype)}; keys are strings "
                "or integers"
            )
        self.default_value = as_array(default_value, self.value_dtype)
        if self.default_value.ndim:
            raise ValueError(
                f"default_value must be a scalar, got shape {self.default_value.shape}"
            )
        self.name = name if name is not None else "hash_table"
        keys, values = initializer.entries()
        self._entries = _Entries(keys, values.astype(self.default_value.dtype, copy=False))

    def lookup(self, keys, name=None):
        """Each key's value, ``default_value`` for a miss, in the keys' shape."""
        flat, shape = _keys(keys, self.key_dtype)
        return shape(self.find(flat))

    def find(self, flat_keys: pa.Array) -> np.ndarray:
        """:meth:`lookup` of a flat Arrow array of keys of the table's dtype."""
        index, found = self._entries.find(flat_keys)
        values = self._entries.values
        out = values[index] if len(values) else np.empty(len(index), values.dtype)
        return np.where(found, out, self.default_value).astype(values.dtype, copy=False)

    __getitem__ = lookup

    def size(self, name=None) -> np.int64:
        """How many keys the table holds."""
        return np.int64(len(self._entries.keys))

    def export(self, name=None) -> tuple[np.ndarray, np.ndarray]:
        """The table's ``(keys, values)``."""
        keys = self._entries.keys.to_numpy(zero_copy_only=False)
        keys = keys.astype(object) if self.key_dtype == "string" else keys
        return keys, self._entries.values.copy()


class StaticVocabularyTable:
    """Each key's id from ``initializer`` (int64 values), a miss hashed into one of
    ``num_oov_buckets`` ids after them (TF 2's ``tf.lookup.StaticVocabularyTable``); with
    no ``initializer`` every key is hashed. ``size()`` counts the buckets too."""

    def __init__(
        self,
        initializer,
        num_oov_buckets,
        lookup_key_dtype=None,
        name=None,
        experimental_is_anonymous=False,
    ):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        self.num_oov_buckets, self._table = int(num_oov_buckets), None
        if initializer is not None:
            if initializer.key_dtype not in ("int64", "string"):
                raise TypeError(
                    "Invalid `key_dtype`, expected one of (tf.int64, tf.string), but got "
                    f"{tf_dtype(initializer.key_dtype)}."
                )
            if initializer.value_dtype != "int64":
                raise TypeError(
                    f"Invalid `value_dtype`, expected {tf_dtype('int64')} but got "
                    f"{tf_dtype(initializer.value_dtype)}."
                )
            self._table = StaticHashTable(initializer, -1)
        key_dtype = dtype_name(lookup_key_dtype) if lookup_key_dtype is not None else None
        self.key_dtype = key_dtype or (initializer.key_dtype if initializer else "string")
        self.value_dtype = "int64"
        self.name = name if name is not None else "hash_bucket"

    def lookup(self, keys, name=None):
        """Each key's id; a miss ``size of the vocabulary + its hash bucket``."""
        return hashed_lookup(self._table, self.num_oov_buckets, keys, self.key_dtype)

    __getitem__ = lookup

    def size(self, name=None) -> np.int64:
        """The vocabulary's size plus ``num_oov_buckets``."""
        inner = self._table.size() if self._table is not None else 0
        return np.int64(inner + self.num_oov_buckets)


def hashed_lookup(table, num_oov_buckets: int, keys, key_dtype: str):
    """``table``'s id for each key, a miss (the table's ``-1``, or every key without a
    table) ``table.size() + Fingerprint64(key) % num_oov_buckets``."""
    flat, shape = _keys(keys, key_dtype)
    if table is None:
        return shape(hash_bucket_ids(flat, num_oov_buckets))
    ids = table.find(flat)
    missing = np.flatnonzero(ids == table.default_value)
    if len(missing):
        buckets = hash_bucket_ids(flat.take(pa.array(missing)), num_oov_buckets)
        ids[missing] = table.size() + buckets
    return shape(ids)
