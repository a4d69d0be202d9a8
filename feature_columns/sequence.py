"""Sequence columns over Arrow list columns, for RNN-style inputs.

A sequence feature is a list column: row ``r`` is a sequence of steps. Numeric sequences
give ``shape`` values a step; categorical sequences one id a step (null steps give no
id, hence a zero vector). ``SequenceFeatures`` pads every column to the longest sequence
of the batch and returns ``(batch, max_len, dim)`` plus the sequence lengths.

>>> watches = sequence_categorical_column_with_identity("watches", num_buckets=10)
>>> from colonnade.feature_columns import transform_features
>>> seq = transform_features({"watches": [[3, 1], [], [7]]}, [watches])["watches"]
>>> seq.lengths.tolist(), seq.steps.ids.tolist()
([2, 0, 1], [3, 1, 7])
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core import ops
from ..core.autodiff import Tensor
from ..core.backend import DEFAULT_DTYPE, get_xp, to_device
from .base import CategoricalColumn, FeatureColumn, KeyedColumn, WrapsCategorical, check_key
from .categorical import categorical_column_with_hash_bucket, categorical_column_with_identity
from .features import is_list_type
from .ids import CategoricalIds, FlatIds, drop_invalid
from .numeric import check_normalizer, check_numeric_dtype, check_shape, with_normalizer_config
from .numeric_reading import apply_normalizer, flat_numbers
from .vocabulary import (
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
)

__all__ = [
    "SequenceCategoricalColumn",
    "SequenceIds",
    "SequenceNumericColumn",
    "sequence_categorical_column_with_hash_bucket",
    "sequence_categorical_column_with_identity",
    "sequence_categorical_column_with_vocabulary_file",
    "sequence_categorical_column_with_vocabulary_list",
    "sequence_numeric_column",
]


# ---------------------------------------------------------------- padding


def _positions(row_splits: np.ndarray):
    lengths = np.diff(row_splits)
    rows = np.repeat(np.arange(lengths.shape[0], dtype=np.int64), lengths)
    steps = np.arange(row_splits[-1], dtype=np.int64) - row_splits[rows]
    return rows, steps, lengths


def pad_host(values: np.ndarray, row_splits: np.ndarray, fill) -> np.ndarray:
    """``(num_steps, dim)`` step values as ``(batch, max_len, dim)``, padded with ``fill``."""
    rows, steps, lengths = _positions(row_splits)
    max_len = int(lengths.max()) if lengths.size else 0
    out = np.full((lengths.shape[0], max_len, values.shape[1]), fill, dtype=values.dtype)
    out[rows, steps] = values
    return out


def pad(values: Tensor, row_splits: np.ndarray) -> Tensor:
    """Differentiable :func:`pad_host` with zeros: gather from the steps plus a zero row."""
    rows, steps, lengths = _positions(row_splits)
    n = lengths.shape[0]
    max_len = int(lengths.max()) if lengths.size else 0
    index = np.full((n, max_len), int(row_splits[-1]), dtype=np.int64)
    index[rows, steps] = np.arange(row_splits[-1], dtype=np.int64)
    xp = get_xp(values.value)
    zero = xp.zeros((1, values.shape[1]), dtype=values.value.dtype)
    return ops.gather(ops.concat([values, zero], axis=0), to_device(index, xp))


# ---------------------------------------------------------------- categorical sequences


class SequenceIds:
    """Ids of a sequence column: ``steps`` holds the ids of every step (one example per
    step), ``row_splits`` which steps belong to which sequence, ``lengths`` the number of
    steps of each sequence.

    >>> seq = SequenceIds(CategoricalIds(np.array([4, 2]), num_buckets=5), np.array([0, 2, 2]))
    >>> seq.lengths.tolist()
    [2, 0]
    """

    __slots__ = ("steps", "row_splits", "lengths")

    def __init__(self, steps: CategoricalIds, row_splits: np.ndarray):
        self.steps = steps
        self.row_splits = row_splits
        self.lengths = np.diff(row_splits)

    def __repr__(self) -> str:
        return f"SequenceIds(sequences={self.lengths.shape[0]}, steps={self.steps.num_rows})"


@dataclass(frozen=True)
class SequenceCategoricalColumn(WrapsCategorical, CategoricalColumn):
    """A categorical column read as sequences; see the ``sequence_categorical_column_with_*``
    functions. Wrap it in ``embedding_column`` or ``indicator_column`` and use that in
    ``SequenceFeatures``.

    >>> sequence_categorical_column_with_identity("watches", 10).is_sequence
    True
    """

    categorical_column: CategoricalColumn
    is_sequence = True  # what it adds to the column it wraps

    @property
    def name(self) -> str:
        return self.categorical_column.name

    @property
    def num_buckets(self) -> int:
        return self.categorical_column.num_buckets

    def transform(self, cache) -> SequenceIds:
        """One id per step (none for a null step), grouped into sequences."""
        flat: FlatIds = self.categorical_column.flat_ids(cache)
        n_steps = flat.ids.shape[0]
        ids, splits = drop_invalid(flat.ids, flat.valid, None, n_steps)
        steps = CategoricalIds(ids, splits, self.num_buckets, num_rows=n_steps)
        return SequenceIds(steps, flat.ragged.splits())

    def parse_spec(self) -> dict:
        return self.categorical_column.parse_spec()

    def to_config(self) -> dict:
        out = self.categorical_column.to_config()
        out["type"] = "sequence_" + out["type"]
        return out


def sequence_categorical_column_with_hash_bucket(
    key: str, hash_bucket_size: int, dtype: str = "string"
) -> SequenceCategoricalColumn:
    """A sequence of categorical terms with hashed ids (TF's
    ``sequence_categorical_column_with_hash_bucket``).

    Args: as :func:`~colonnade.feature_columns.categorical_column_with_hash_bucket`'s.

    >>> sequence_categorical_column_with_hash_bucket("tokens", 1000).num_buckets
    1000
    """
    return SequenceCategoricalColumn(
        categorical_column_with_hash_bucket(key, hash_bucket_size, dtype)
    )


def sequence_categorical_column_with_identity(
    key: str, num_buckets: int, default_value: int | None = None
) -> SequenceCategoricalColumn:
    """A sequence of integer ids (TF's ``sequence_categorical_column_with_identity``).

    Args: as :func:`~colonnade.feature_columns.categorical_column_with_identity`'s.

    >>> sequence_categorical_column_with_identity("watches", 1000).name
    'watches'
    """
    return SequenceCategoricalColumn(
        categorical_column_with_identity(key, num_buckets, default_value)
    )


def sequence_categorical_column_with_vocabulary_file(
    key: str,
    vocabulary_file: str | os.PathLike,
    vocabulary_size: int | None = None,
    num_oov_buckets: int = 0,
    default_value: int | None = None,
    dtype: str = "string",
) -> SequenceCategoricalColumn:
    """A sequence of terms with ids from a vocabulary file (TF's
    ``sequence_categorical_column_with_vocabulary_file``).

    Args: as :func:`~colonnade.feature_columns.categorical_column_with_vocabulary_file`'s.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "v.txt")
    >>> _ = open(path, "w").write("a\\nb\\n")
    >>> sequence_categorical_column_with_vocabulary_file("t", path, num_oov_buckets=2).num_buckets
    4
    """
    return SequenceCategoricalColumn(
        categorical_column_with_vocabulary_file(
            key, vocabulary_file, vocabulary_size, dtype, default_value, num_oov_buckets
        )
    )


def sequence_categorical_column_with_vocabulary_list(
    key: str,
    vocabulary_list: Sequence[str] | Sequence[int],
    dtype: str | None = None,
    default_value: int = -1,
    num_oov_buckets: int = 0,
) -> SequenceCategoricalColumn:
    """A sequence of terms with ids from an in-memory vocabulary (TF's
    ``sequence_categorical_column_with_vocabulary_list``).

    Args: as :func:`~colonnade.feature_columns.categorical_column_with_vocabulary_list`'s.

    >>> sequence_categorical_column_with_vocabulary_list("colors", ["R", "G"]).num_buckets
    2
    """
    return SequenceCategoricalColumn(
        categorical_column_with_vocabulary_list(
            key, vocabulary_list, dtype, default_value, num_oov_buckets
        )
    )


# ---------------------------------------------------------------- numeric sequences


@dataclass(frozen=True)
class SequenceNumericColumn(KeyedColumn, FeatureColumn):
    """Sequences of numbers; see :func:`sequence_numeric_column`.

    >>> sequence_numeric_column("xy", shape=(2,)).dimension
    2
    """

    key: str
    shape: tuple = (1,)
    default_value: float = 0.0
    dtype: str = "float32"
    normalizer_fn: object = None
    is_sequence = True

    @property
    def dimension(self) -> int:
        return math.prod(self.shape)

    def transform(self, cache):
        """``(padded, lengths)``: ``(batch, max_len, dimension)`` float values (padding and
        nulls are ``default_value``; the normalizer applies to the values) and the number
        of steps of each sequence."""
        ragged = cache.ragged(self.key, self.name)
        if is_list_type(ragged.values.type):
            raise TypeError(
                f"column {self.name!r} expects a list column of numbers in feature {self.key!r}, "
                f"got nested lists ({cache.raw(self.key).type})"
            )
        values = flat_numbers(self, self.key, ragged.values, self.dtype)
        if values.null_count:
            values = pc.fill_null(values, pa.scalar(self.default_value).cast(values.type))
        flat = values.to_numpy(zero_copy_only=False)
        splits = ragged.splits()
        counts = np.diff(splits)
        size = self.dimension
        bad = np.flatnonzero(counts % size)
        if bad.size:
            r = int(bad[0])
            raise ValueError(
                f"column {self.name!r}: each step has {size} values, but sequence {r} of feature "
                f"{self.key!r} has {int(counts[r])} values, not a multiple of {size}"
            )
        steps = flat.reshape((-1,) + self.shape)
        if self.normalizer_fn is not None:
            steps = apply_normalizer(self, self.normalizer_fn, steps)
        steps = np.asarray(steps, dtype=DEFAULT_DTYPE).reshape(-1, size)
        step_splits = splits // size
        return pad_host(steps, step_splits, self.default_value), np.diff(step_splits)

    def sequence_output(self, cache, variables):
        padded, lengths = cache.get(self)
        return Tensor(to_device(padded)), lengths

    def parse_spec(self) -> dict:
        return {self.key: pa.list_(pa.from_numpy_dtype(np.dtype(self.dtype)))}

    def to_config(self) -> dict:
        config = {
            "type": "sequence_numeric_column",
            "key": self.key,
            "shape": list(self.shape),
            "default_value": self.default_value,
            "dtype": self.dtype,
        }
        return with_normalizer_config(config, self)


def sequence_numeric_column(
    key: str,
    shape: int | Sequence[int] = (1,),
    default_value: float = 0.0,
    dtype: str = "float32",
    normalizer_fn: Callable | None = None,
) -> SequenceNumericColumn:
    """Sequences of numbers, ``shape`` values a step (TF's ``sequence_numeric_column``):
    a list column whose row holds ``len * prod(shape)`` values. ``default_value`` fills
    nulls and pads shorter sequences.

    Args:
        key: the input feature's name (the column of the data).
        shape: values per step (TF's default ``(1,)``).
        default_value: fills nulls and pads (TF's default 0.0).
        dtype: the values' numeric type as read (TF's default ``"float32"``).
        normalizer_fn: applied to the values (TF's default ``None``).

    >>> t = sequence_numeric_column("temperature")
    >>> from colonnade.feature_columns import transform_features
    >>> padded, lengths = transform_features({"temperature": [[20.5, 21.0], [19.0]]}, [t])[
    ...     "temperature"]
    >>> padded[:, :, 0].tolist(), lengths.tolist()
    ([[20.5, 21.0], [19.0, 0.0]], [2, 1])
    """
    key = check_key(key)
    shape = check_shape(shape, key)
    dtype = check_numeric_dtype(dtype, key)
    if isinstance(default_value, bool) or not isinstance(default_value, (int, float, np.number)):
        raise TypeError(
            f"column {key!r}: default_value must be a single number, got {default_value!r}"
        )
    return SequenceNumericColumn(
        key, shape, float(default_value), dtype, check_normalizer(normalizer_fn, key)
    )
