"""``cn.compat.v1.lookup``: TF 1's lookup tables (``tf.compat.v1.lookup`` and the
``index_table_from_*`` helpers of TF 1's ``tf.contrib.lookup``), eager: a table is
ready when made, so ``tables_initializer()`` has nothing to run.

- :func:`index_table_from_tensor` / :func:`index_table_from_file`: each string's (or
  integer's) index in a vocabulary; a miss gets ``default_value`` or, with
  ``num_oov_buckets``, ``vocabulary size + Fingerprint64(key) % num_oov_buckets``;
- :func:`index_to_string_table_from_tensor` / :func:`index_to_string_table_from_file`:
  the reverse, an index's string (``default_value``, ``"UNK"``, out of range), and
  TF 1's one-call :func:`index_to_string`;
- :class:`HashTable` (TF 1's ``StaticHashTable``) and :class:`IdTableWithHashBuckets`,
  with TF 2's initializers (:mod:`colonnade.lookup`).

>>> import colonnade as cn
>>> table = cn.compat.v1.lookup.index_table_from_tensor(["a", "b"], num_oov_buckets=1)
>>> table.lookup(["b", "zz"]).tolist(), int(table.size())
([1, 2], 3)
"""

from __future__ import annotations

import collections

import numpy as np

from colonnade.core.tf_control import no_op
from colonnade.lookup import (
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
    as_array,
    dtype_name,
    hashed_lookup,
    is_integer_dtype,
    tf_dtype,
)

__all__ = [
    "FastHashSpec",
    "HasherSpec",
    "HashTable",
    "IdTableWithHashBuckets",
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "TextFileIdTableInitializer",
    "TextFileIndex",
    "TextFileInitializer",
    "TextFileStringTableInitializer",
    "index_table_from_file",
    "index_table_from_tensor",
    "index_to_string",
    "index_to_string_table_from_file",
    "index_to_string_table_from_tensor",
    "tables_initializer",
]


class HasherSpec(collections.namedtuple("HasherSpec", ["hasher", "key"])):
    """TF's choice of the hash that buckets out-of-vocabulary keys."""


FastHashSpec = HasherSpec("fasthash", None)
"""Fingerprint64, TF's default and the only hash colonnade's tables use."""


class HashTable(StaticHashTable):
    """TF 1's ``tf.compat.v1.lookup.StaticHashTable`` (``tf.contrib.lookup.HashTable``):
    :class:`colonnade.lookup.StaticHashTable` with TF 1's ``init`` (nothing to run)."""

    @property
    def init(self):
        """TF 1's initializer op: the table was built when made."""
        return no_op()

    initializer_op = init


class IdTableWithHashBuckets:
    """``table``'s id for each key, a miss (the table's ``-1``) hashed into one of
    ``num_oov_buckets`` ids after the table's (TF 1's ``IdTableWithHashBuckets``)."""

    def __init__(self, table, num_oov_buckets, hasher_spec=FastHashSpec, name=None, key_dtype=None):
        _check_hasher(hasher_spec)
        if table is None and num_oov_buckets <= 0:
            raise ValueError("`oov_buckets` must be > 0 if no `table` is supplied.")
        self.table, self.num_oov_buckets = table, int(num_oov_buckets)
        self.key_dtype = dtype_name(key_dtype) if key_dtype is not None else None
        self.key_dtype = self.key_dtype or (table.key_dtype if table is not None else "string")
        self.value_dtype, self.name = "int64", name

    def lookup(self, keys, name=None):
        """Each key's id, a miss ``table.size() + its hash bucket``."""
        return hashed_lookup(self.table, self.num_oov_buckets, keys, self.key_dtype)

    __getitem__ = lookup

    def size(self, name=None) -> np.int64:
        """The table's size plus ``num_oov_buckets``."""
        inner = self.table.size() if self.table is not None else 0
        return np.int64(inner + self.num_oov_buckets)


def _check_hasher(hasher_spec):
    if hasher_spec != FastHashSpec:
        raise ValueError(
            f"hasher_spec {hasher_spec!r}: colonnade's tables hash with TF's FastHashSpec "
            "(Fingerprint64) only; StrongHashSpec's keyed SipHash is not available"
        )


def _oov(table, num_oov_buckets, hasher_spec, key_dtype):
    return IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec, key_dtype=key_dtype)


def index_table_from_tensor(
    vocabulary_list,
    num_oov_buckets=0,
    default_value=-1,
    hasher_spec=FastHashSpec,
    dtype="string",
    name=None,
):
    """A table of each key's index in ``vocabulary_list`` (strings or integers, as
    ``dtype``); misses as the module says. A key listed twice is refused (TF's
    ``HashTable has different value for same key``)."""
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` must be specified.")
    if num_oov_buckets < 0:
        raise ValueError(
            f"`num_oov_buckets` must be greater or equal than 0, got {num_oov_buckets}."
        )
    dtype = dtype_name(dtype)
    if dtype != "string" and not is_integer_dtype(dtype):
        raise TypeError("`dtype` must either be integer or string.")
    _check_hasher(hasher_spec)
    keys = as_array(vocabulary_list)
    got = "string" if keys.dtype == object else keys.dtype.name
    if (got == "string") == is_integer_dtype(dtype):
        expected = "integer" if is_integer_dtype(dtype) else "non-integer"
        raise ValueError(f"Invalid `dtype`: Expected {expected}, got {tf_dtype(got)}.")
    values = np.arange(keys.size, dtype=np.int64)
    keys = keys.reshape(-1).astype(object if dtype == "string" else np.int64)
    table = HashTable(KeyValueTensorInitializer(keys, values), default_value, name=name)
    return _oov(table, num_oov_buckets, hasher_spec, dtype) if num_oov_buckets else table


class TextFileIdTableInitializer(TextFileInitializer):
    """TF's initializer of a key -> id table from a text file: whole lines to their line
    numbers by default."""

    def __init__(
        self,
        filename,
        key_column_index=TextFileIndex.WHOLE_LINE,
        value_column_index=TextFileIndex.LINE_NUMBER,
        vocab_size=None,
        delimiter="\t",
        name="text_file_id_table_init",
        key_dtype="string",
    ):
        super().__init__(
            filename, key_dtype, key_column_index, "int64", value_column_index, vocab_size,
            delimiter, name,
        )  # fmt: skip


class TextFileStringTableInitializer(TextFileInitializer):
    """TF's initializer of an id -> string table from a text file: line numbers to whole
    lines by default."""

    def __init__(
        self,
        filename,
        key_column_index=TextFileIndex.LINE_NUMBER,
        value_column_index=TextFileIndex.WHOLE_LINE,
        vocab_size=None,
        delimiter="\t",
        name="text_file_string_table_init",
    ):
        super().__init__(
            filename, "int64", key_column_index, "string", value_column_index, vocab_size,
            delimiter, name,
        )  # fmt: skip


def _check_file(vocabulary_file, vocab_size):
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(
            f"`vocab_size` must be greater than 0, got {vocab_size} for vocabulary_file: "
            f"{vocabulary_file}."
        )


def index_table_from_file(
    vocabulary_file=None,
    num_oov_buckets=0,
    vocab_size=None,
    default_value=-1,
    hasher_spec=FastHashSpec,
    key_dtype="string",
    name=None,
    key_column_index=TextFileIndex.WHOLE_LINE,
    value_column_index=TextFileIndex.LINE_NUMBER,
    delimiter="\t",
):
    """A table of each key's id from ``vocabulary_file``: by default each line's text to
    its line number (the first ``vocab_size`` lines); misses as the module says. A
    missing file names its path; a key on two lines is refused."""
    _check_file(vocabulary_file, vocab_size)
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got {num_oov_buckets}.")
    key_dtype = dtype_name(key_dtype)
    if key_dtype != "string" and not is_integer_dtype(key_dtype):
        raise TypeError("Dtype for `keys` should be either integer or string.")
    _check_hasher(hasher_spec)
    init = TextFileIdTableInitializer(
        vocabulary_file,
        key_column_index,
        value_column_index,
        vocab_size,
        delimiter,
        key_dtype="int64" if is_integer_dtype(key_dtype) else key_dtype,
    )
    table = HashTable(init, default_value, name=name)
    return _oov(table, num_oov_buckets, hasher_spec, key_dtype) if num_oov_buckets else table


def index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None):
    """A table of each index's string in ``vocabulary_list``; ``default_value`` for an
    index out of range."""
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` argument must be specified.")
    values = np.asarray(vocabulary_list, dtype=object).reshape(-1)
    keys = np.arange(values.size, dtype=np.int64)
    return HashTable(KeyValueTensorInitializer(keys, values, "int64", "string"), default_value)


def index_to_string_table_from_file(
    vocabulary_file,
    vocab_size=None,
    default_value="UNK",
    name=None,
    key_column_index=TextFileIndex.LINE_NUMBER,
    value_column_index=TextFileIndex.WHOLE_LINE,
    delimiter="\t",
):
    """A table of each line number's text in ``vocabulary_file`` (by default; or of the
    fields ``key_column_index`` and ``value_column_index``)."""
    _check_file(vocabulary_file, vocab_size)
    init = TextFileStringTableInitializer(
        vocabulary_file, key_column_index, value_column_index, vocab_size, delimiter
    )
    return HashTable(init, default_value, name=name)


def index_to_string(tensor, mapping, default_value="UNK", name=None):
    """TF 1's ``tf.contrib.lookup.index_to_string``: each index of ``tensor`` as its
    string in ``mapping`` (``default_value`` out of range), in one call."""
    table = index_to_string_table_from_tensor(mapping, default_value=default_value)
    return table.lookup(tensor)


def tables_initializer(name="init_all_tables"):
    """``tf.compat.v1.tables_initializer``: nothing to run, as every table was built when
    made (``sess.run`` of it, through colonnade's eager programs, is never needed)."""
    return no_op(name=name)
