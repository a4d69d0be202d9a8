"""Parse specs: what to read from each feature of a ``tf.Example`` (TF's
``FixedLenFeature``, ``VarLenFeature`` and ``FixedLenSequenceFeature``).

A ``tf.Example`` feature holds one of three kinds of list: ``bytes_list``, ``int64_list``
or ``float_list``. A spec's ``dtype`` names the kind it expects and the Arrow type of the
parsed column: ``"string"`` (UTF-8 text, ``pa.string()``; ``pa.binary()`` keeps raw
bytes), ``"int64"`` or ``"float32"``; numpy and pyarrow spellings (``np.int64``,
``pa.float32()``, ``"float"``, ``tf.string``'s name ``"bytes"``) are accepted too.

>>> FixedLenFeature([], "int64", default_value=0)
FixedLenFeature(shape=(), dtype='int64', default_value=0)
>>> VarLenFeature("string")
VarLenFeature(dtype='string')
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

__all__ = [
    "DEFAULT_VALUE_METADATA",
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "SparseFeature",
    "VarLenFeature",
    "arrow_type",
    "feature_list_kind",
    "normalize_features",
]

# tf.Example's three list kinds, by the field number of ``Feature.kind``.
BYTES, FLOAT, INT64 = 1, 2, 3
KIND_NAMES = {BYTES: "bytes_list", FLOAT: "float_list", INT64: "int64_list"}

_DTYPE_ALIASES = {
    "string": "string",
    "str": "string",
    "utf8": "string",
    "bytes": "binary",
    "binary": "binary",
    "int64": "int64",
    "float32": "float32",
    "float": "float32",
}
_ARROW = {
    "string": pa.string(),
    "binary": pa.binary(),
    "int64": pa.int64(),
    "float32": pa.float32(),
}


def _dtype_name(dtype) -> str:
    """``"string"``, ``"binary"``, ``"int64"`` or ``"float32"`` for any accepted spelling."""
    if isinstance(dtype, pa.DataType):
        if pa.types.is_string(dtype) or pa.types.is_large_string(dtype):
            return "string"
        if pa.types.is_binary(dtype) or pa.types.is_large_binary(dtype):
            return "binary"
        dtype = dtype.to_pandas_dtype()
    if isinstance(dtype, str) and dtype.lower() in _DTYPE_ALIASES:
        return _DTYPE_ALIASES[dtype.lower()]
    try:
        np_dtype = np.dtype(dtype)
    except TypeError:
        np_dtype = None
    if np_dtype is not None:
        if np_dtype == np.int64:
            return "int64"
        if np_dtype == np.float32:
            return "float32"
        if np_dtype.kind in "SO":
            return "binary"
        if np_dtype.kind == "U":
            return "string"
    message = (
        f"a tf.Example feature holds strings, int64 or float32; got dtype {dtype!r}. Use "
        "'string', 'int64' or 'float32' (cast the parsed column for other types)"
    )
    # TF: a name that is no dtype at all is a TypeError, an unsupported dtype a ValueError
    raise ValueError(message) if np_dtype is not None else TypeError(message)


def feature_list_kind(dtype_name: str) -> int:
    """The ``Feature.kind`` field number a dtype is read from."""
    return {"string": BYTES, "binary": BYTES, "int64": INT64, "float32": FLOAT}[dtype_name]


def arrow_type(dtype_name: str) -> pa.DataType:
    """The Arrow type of one parsed value."""
    return _ARROW[dtype_name]


def _shape(shape, what):
    if isinstance(shape, int):
        shape = [shape]
    shape = tuple(shape)
    if any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0 for d in shape):
        raise ValueError(f"{what} shape must be a list of non-negative ints, got {shape!r}")
    return tuple(int(d) for d in shape)


def flat_default(default_value, shape, dtype, what, repeat=False):
    """``default_value`` as a flat numpy array of ``prod(shape)`` values, or None.

    As in TF, the default must hold exactly that many values, in any nesting (``[1, 2]``
    and ``[[1], [2]]`` for shape ``[2, 1]``): TF 2.15 refuses a scalar default for shape
    ``[2]`` ("Input to reshape is a tensor with 1 values, but the requested shape has
    2"). ``repeat=True`` repeats a single value (colonnade's own fillers).
    """
    if default_value is None:
        return None
    size = int(np.prod(shape, dtype=np.int64))
    np_type = object if dtype in ("string", "binary") else dtype
    values = np.asarray(default_value, dtype=np_type)
    if repeat and values.size == 1 and size != 1:
        values = np.full(size, values.reshape(()).item(), dtype=np_type)
    if values.size != size:
        hint = (
            f"; write it out, e.g. {values.reshape(-1).tolist() * size}" if values.size == 1 else ""
        )
        raise ValueError(
            f"{what} default_value has {values.size} values but shape {list(shape)} needs "
            f"{size} (TF 2.15 does not repeat a default to fill a shape either){hint}"
        )
    return values.reshape(-1)


@dataclass(frozen=True)
class FixedLenFeature:
    """A feature with exactly ``prod(shape)`` values in every record (TF's
    ``tf.io.FixedLenFeature``). ``shape=[]`` parses to a plain column, ``[k]`` to a
    fixed-size list of ``k``. A record without the feature gets ``default_value``; with
    no default it is an error.

    >>> FixedLenFeature([2], "float32", default_value=[0.0, 1.0]).shape
    (2,)
    """

    shape: tuple
    dtype: str
    default_value: object = None

    def __post_init__(self):
        object.__setattr__(self, "dtype", _dtype_name(self.dtype))
        if self.shape is None:  # TF's error, when it is parsed: "Missing shape for feature"
            return
        object.__setattr__(self, "shape", _shape(self.shape, "FixedLenFeature"))
        flat_default(self.default_value, self.shape, self.dtype, "FixedLenFeature")


@dataclass(frozen=True)
class VarLenFeature:
    """A feature with any number of values (TF's ``tf.io.VarLenFeature``); parses to a
    list column, an empty list where a record lacks the feature.

    >>> VarLenFeature("int64").dtype
    'int64'
    """

    dtype: str

    def __post_init__(self):
        object.__setattr__(self, "dtype", _dtype_name(self.dtype))


@dataclass(frozen=True)
class FixedLenSequenceFeature:
    """A sequence of values of ``shape`` each (TF's ``tf.io.FixedLenSequenceFeature``).

    In :func:`parse_example` a record's values are cut into ``shape``-sized items, a list
    column of them padded with ``default_value`` (``""`` or 0 by default) to the batch's
    longest record, as TF pads; ``allow_missing=True`` is required there, as in TF. In
    :func:`parse_sequence_example` each step of the feature list is one item.

    >>> FixedLenSequenceFeature([], "float32", allow_missing=True).allow_missing
    True
    """

    shape: tuple
    dtype: str
    allow_missing: bool = False
    default_value: object = None

    def __post_init__(self):
        object.__setattr__(self, "shape", _shape(self.shape, "FixedLenSequenceFeature"))
        object.__setattr__(self, "dtype", _dtype_name(self.dtype))
        flat_default(self.default_value, (), self.dtype, "FixedLenSequenceFeature")


@dataclass(frozen=True)
class SparseFeature:
    """A sparse tensor of dense shape ``[batch] + size`` kept in a record as a feature of
    values (``value_key``) and one of indices per dimension (``index_key``: a name, or a
    list of names for several dimensions); TF's ``tf.io.SparseFeature``.
    :func:`parse_example` gives it as a struct column: one ``list<int64>`` per index key
    and the values under ``value_key``, each record's entries sorted by index unless
    ``already_sorted``.

    >>> SparseFeature("ix", "val", "float32", 10).size
    (10,)
    """

    index_key: object
    value_key: str
    dtype: str
    size: object
    already_sorted: bool = False

    def __post_init__(self):
        keys = (self.index_key,) if isinstance(self.index_key, str) else tuple(self.index_key)
        sizes = (self.size,) if isinstance(self.size, int) else tuple(self.size)
        if not keys or not all(isinstance(k, str) and k for k in keys):
            raise ValueError(f"SparseFeature: index_key must be a name or names, got {keys!r}")
        if len(sizes) != len(keys) or not all(isinstance(s, int) and s > 0 for s in sizes):
            raise ValueError(
                f"SparseFeature: size must give one positive integer per index key {keys}, "
                f"got {self.size!r}"
            )
        object.__setattr__(self, "index_key", keys[0] if len(keys) == 1 else keys)
        object.__setattr__(self, "size", sizes)
        object.__setattr__(self, "dtype", _dtype_name(self.dtype))

    @property
    def index_keys(self) -> tuple:
        """The index keys, one per dimension."""
        return (self.index_key,) if isinstance(self.index_key, str) else self.index_key


@dataclass(frozen=True)
class NullableFixed:
    """From a schema: like ``FixedLenFeature`` but a missing feature gives a null."""

    shape: tuple
    dtype: str
    arrow: pa.DataType


DEFAULT_VALUE_METADATA = b"default_value"
"""The schema field metadata key holding a feature's default (a JSON list of its
``prod(shape)`` values), which ``make_parse_example_spec`` writes for a
``numeric_column`` with a ``default_value``, as TF's spec holds it."""


def _spec_from_field(field: pa.Field):
    """A parse spec for one field of a ``make_parse_example_spec`` schema.

    A scalar field is a one-value feature and a fixed-size list of ``k`` a ``k``-value
    one (``FixedLenFeature``); a missing feature gets the default held in the field's
    metadata (:data:`DEFAULT_VALUE_METADATA`) as in TF, else becomes a null (which the
    feature columns fill with their ``default_value``) when the field is nullable, as
    schema fields are by default, and an error when it is not. A variable-length list is
    a ``VarLenFeature``. The parsed column is cast to the field's type.
    """
    t = field.type
    shape = ()
    while pa.types.is_fixed_size_list(t):
        shape += (t.list_size,)
        t = t.value_type
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        if shape:
            raise ValueError(
                f"field {field.name!r}: a list inside a fixed-size list ({field.type})"
            )
        return VarLenFeature(_feature_dtype(t.value_type, field))
    dtype = _feature_dtype(t, field)
    default = (field.metadata or {}).get(DEFAULT_VALUE_METADATA)
    if default is not None:
        try:
            return FixedLenFeature(list(shape), dtype, default_value=json.loads(default))
        except (ValueError, TypeError) as err:
            raise ValueError(f"field {field.name!r}: its default_value metadata: {err}") from None
    if field.nullable:
        return NullableFixed(shape, dtype, field.type)
    return FixedLenFeature(list(shape), dtype)


def _feature_dtype(t: pa.DataType, field: pa.Field) -> str:
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return "binary"
    if pa.types.is_integer(t) or pa.types.is_boolean(t):
        return "int64"
    if pa.types.is_floating(t):
        return "float32"
    raise ValueError(
        f"field {field.name!r} has type {field.type}, which no tf.Example feature holds "
        "(strings, integers and floats only)"
    )


def normalize_features(features, what="features") -> dict:
    """``{name: spec}`` from a dict of specs or a ``pyarrow.Schema`` (see
    :func:`_spec_from_field`), with each spec checked.

    >>> import pyarrow as pa
    >>> normalize_features(pa.schema([pa.field("ids", pa.list_(pa.int64()))]))
    {'ids': VarLenFeature(dtype='int64')}
    """
    if isinstance(features, pa.Schema):
        return {field.name: _spec_from_field(field) for field in features}
    if not isinstance(features, dict):
        raise TypeError(
            f"{what} must be a dict of name -> FixedLenFeature/VarLenFeature/"
            "FixedLenSequenceFeature, or the pyarrow.Schema of make_parse_example_spec; got "
            f"{type(features).__name__}"
        )
    known = (FixedLenFeature, VarLenFeature, FixedLenSequenceFeature, NullableFixed, SparseFeature)
    for name, spec in features.items():
        if not isinstance(name, str):
            raise TypeError(f"feature names must be strings, got {name!r}")
        if isinstance(spec, FixedLenFeature) and spec.shape is None:
            raise ValueError(f"Missing shape for feature {name}: give FixedLenFeature a shape")
        if not isinstance(spec, known):
            raise TypeError(
                f"feature {name!r}: expected FixedLenFeature, VarLenFeature or "
                f"FixedLenSequenceFeature, got {type(spec).__name__}: {spec!r}"
            )
    return dict(features)
