"""Bucketized columns: a number discretized by boundaries (TF's ``bucketized_column``),
usable as a dense one-hot column or as a categorical one.

>>> from colonnade.feature_columns import numeric_column, transform_features
>>> b = bucketized_column(numeric_column("price"), boundaries=[0.0, 10.0, 100.0])
>>> transform_features({"price": [-5.0, 10.0, 150.0]}, [b])["price_bucketized"].ids.tolist()
[0, 2, 3]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.autodiff import Tensor
from ..core.backend import DEFAULT_DTYPE, to_device
from .base import CategoricalColumn, DenseColumn, WrapsSource
from .ids import CategoricalIds
from .numeric import NumericColumn

__all__ = ["COMPARE_MAX_BOUNDARIES", "BucketizedColumn", "bucketize", "bucketized_column"]


COMPARE_MAX_BOUNDARIES = 16
"""Up to this many boundaries, bucket ids are counted by comparisons (one vectorized pass
per boundary, with no per-element branching: cheaper than a binary search for the usual
handful)."""


def bucketize(values, boundaries):
    """The bucket of each value: how many ``boundaries`` (sorted) are ``<=`` it, as
    TensorFlow's Bucketize.

    >>> bucketize(np.array([0.5, 1.0, 7.0]), np.array([1.0, 5.0])).tolist()
    [0, 1, 2]
    """
    if len(boundaries) > COMPARE_MAX_BOUNDARIES:
        return np.searchsorted(boundaries, values, side="right")
    buckets = np.full(values.shape, len(boundaries), np.int64)
    for boundary in boundaries:
        buckets -= values < boundary  # counting from the top puts NaN last, as TF does
    return buckets


@dataclass(frozen=True)
class BucketizedColumn(WrapsSource, DenseColumn, CategoricalColumn):
    """Discretized numeric feature; see :func:`bucketized_column`.

    >>> from colonnade.feature_columns import numeric_column
    >>> bucketized_column(numeric_column("age"), [18, 65]).boundaries
    (18.0, 65.0)
    """

    source_column: NumericColumn
    boundaries: tuple

    @property
    def name(self) -> str:
        return f"{self.source_column.name}_bucketized"

    @property
    def num_buckets(self) -> int:
        return (len(self.boundaries) + 1) * self.source_column.dimension

    @property
    def dimension(self) -> int:
        return self.num_buckets

    @property
    def variable_shape(self) -> tuple:
        """TF's shape of the one-hot dense tensor per example: ``(values, buckets)``."""
        return (self.source_column.dimension, len(self.boundaries) + 1)

    def transform(self, cache) -> CategoricalIds:
        """Bucket ids: element ``i`` of a row falls in ``i * (len(boundaries) + 1) + bucket``."""
        values = cache.get(self.source_column)
        # TensorFlow's Bucketize compares float32 values with float32 boundaries.
        buckets = bucketize(
            values.astype(np.float32, copy=False), np.asarray(self.boundaries, np.float32)
        )
        width = values.shape[1]
        if width > 1:
            buckets = buckets + (len(self.boundaries) + 1) * np.arange(width)
            splits = np.arange(0, values.size + 1, width, dtype=np.int64)
            return CategoricalIds(buckets.reshape(-1), splits, self.num_buckets)
        return CategoricalIds(buckets.reshape(-1), None, self.num_buckets)

    def dense_output(self, cache, variables) -> Tensor:
        ids = cache.get(self)
        out = np.zeros((ids.num_rows, self.num_buckets), dtype=DEFAULT_DTYPE)
        out[ids.segment_ids, ids.ids] = 1
        return Tensor(to_device(out))

    def to_config(self) -> dict:
        return {
            "type": "bucketized_column",
            "source_column": self.source_column.to_config(),
            "boundaries": list(self.boundaries),
        }


def bucketized_column(
    source_column: NumericColumn, boundaries: Sequence[float]
) -> BucketizedColumn:
    """Discretize a numeric column: buckets include their left edge (TF's
    ``bucketized_column``).

    ``boundaries=[0., 1., 2.]`` makes the buckets ``(-inf, 0)``, ``[0, 1)``, ``[1, 2)``,
    ``[2, inf)``: ids 0..3. Boundaries must be strictly increasing. A source of shape
    ``(k,)`` gives ``k`` ids a row, element ``i``'s offset by ``i * (len(boundaries) + 1)``.
    Usable as a dense column (one-hot) or as a categorical one (linear models, crosses).

    Args:
        source_column: the ``numeric_column`` to discretize.
        boundaries: the buckets' edges, strictly increasing.

    >>> from colonnade.feature_columns import numeric_column
    >>> b = bucketized_column(numeric_column("age"), [18, 65])
    >>> b.name, b.num_buckets
    ('age_bucketized', 3)
    """
    if not isinstance(source_column, NumericColumn):
        raise ValueError(
            "source_column must be a column generated with numeric_column(); "
            "bucketized_column needs a numeric_column as source_column, got "
            f"{type(source_column).__name__}"
        )
    if len(source_column.shape) != 1:
        raise ValueError(
            "source_column must be one-dimensional column: "
            f"bucketized_column needs a one-dimensional source column; {source_column.name!r} "
            f"has shape {source_column.shape}"
        )
    name = f"{source_column.name}_bucketized"
    if boundaries is None or (isinstance(boundaries, (list, tuple)) and not boundaries):
        raise ValueError(f"column {name!r}: boundaries must not be empty, got {boundaries!r}")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError(
            f"column {name!r}: boundaries must be a sorted list (non-empty, of numbers), "
            f"got {boundaries!r}"
        )
    for b in boundaries:
        if isinstance(b, bool) or not isinstance(b, numbers.Real) or math.isnan(b):
            raise ValueError(f"column {name!r}: boundaries must be numbers, got {b!r}")
    values = tuple(float(b) for b in boundaries)
    for lo, hi in zip(values, values[1:]):
        if not lo < hi:
            raise ValueError(
                f"column {name!r}: boundaries must be a sorted list without duplicates, but "
                f"{lo} is followed by {hi}"
            )
    as32 = np.asarray(values, dtype=np.float32)
    if np.any(np.diff(as32) <= 0):
        raise ValueError(
            f"column {name!r}: boundaries {list(values)} collapse to duplicates in float32, "
            "the precision TensorFlow bucketizes in"
        )
    return BucketizedColumn(source_column, values)
