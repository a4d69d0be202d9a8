"""``equality_column``: 1.0 where two numeric features hold the same value, 0.0 elsewhere.

Discrete-choice and transaction tables often hold a "chosen" value beside the values of
every alternative: the price paid beside each option's price, a billing amount beside a
shipping amount, the catch rate of the site chosen beside each site's. Which alternative
was chosen is then said by an equality (``price == pcharter``), which no encoding of one
column gives: buckets, normalizers and embeddings each see one number. This dense column
of one value a row is that equality, usable in the wide part (one weight) and the deep
part (one input). TF's feature columns have none (TF users compute it in their input
function); it exists so that :func:`~.infer.infer` can add it and an export still takes
the raw numbers.

Both features are read as ``dtype`` (``float32`` by default, as ``numeric_column``
parses them) before they are compared, so the training table (often float64) and a
serving request (parsed as ``dtype``) give the same answer. A null, or NaN, on either
side is "not equal": 0.0.

>>> from colonnade.feature_columns import transform_features
>>> chosen = equality_column("price", "pcharter")
>>> chosen.name
'price_equals_pcharter'
>>> transform_features({"price": [182.93, 34.5, None, 7.0],
...                     "pcharter": [182.93, 15.1, 3.0, 7]}, [chosen])[chosen.name].tolist()
[[1.0], [0.0], [0.0], [1.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.autodiff import Tensor
from ..core.backend import DEFAULT_DTYPE, to_device
from .base import DenseColumn, check_key
from .features import ColumnArgumentError, is_list_type
from .numeric import check_numeric_dtype
from .numeric_reading import flat_numbers

__all__ = ["EqualityColumn", "equality_column"]


@dataclass(frozen=True)
class EqualityColumn(DenseColumn):
    """Whether ``key`` equals ``other_key``, as 1.0 or 0.0; see :func:`equality_column`.

    >>> EqualityColumn("catch", "ccharter").input_keys
    ('catch', 'ccharter')
    """

    key: str
    other_key: str
    dtype: str = "float32"
    dimension = 1  # one number a row
    variable_shape = (1,)

    @property
    def name(self) -> str:
        return f"{self.key}_equals_{self.other_key}"

    @property
    def input_keys(self) -> tuple:
        return (self.key, self.other_key)

    def transform(self, cache) -> np.ndarray:
        """``(batch, 1)`` in the default float dtype: 1.0 where both features hold a
        value and the two are equal once read as ``dtype``, else 0.0."""
        left, left_known = self._numbers(cache, self.key)
        right, right_known = self._numbers(cache, self.other_key)
        equal = left_known & right_known & (left == right)
        return equal.astype(DEFAULT_DTYPE).reshape(-1, 1)

    def _numbers(self, cache, key: str) -> tuple:
        """``(values as dtype, present)``: nulls and NaN are not present."""
        raw = cache.raw(key, self.name)
        if is_list_type(raw.type):
            raise ColumnArgumentError(
                f"column {self.name!r} compares one number a row, but feature {key!r} holds "
                f"lists ({raw.type}); give a scalar numeric column"
            )
        # float64 holds every float32 and int32 exactly; the cast to dtype rounds as the
        # parse of a request to dtype does
        numbers = flat_numbers(self, key, raw, "float64")
        present = np.ones(len(numbers), dtype=bool)
        if numbers.null_count:
            present = numbers.is_valid().to_numpy(zero_copy_only=False)
            numbers = pc.fill_null(numbers, 0.0)
        values = numbers.to_numpy(zero_copy_only=False).astype(np.dtype(self.dtype))
        return values, present & ~np.isnan(values)

    def dense_output(self, cache, variables) -> Tensor:
        return Tensor(to_device(cache.get(self)))

    def parse_spec(self) -> dict:
        t = pa.from_numpy_dtype(np.dtype(self.dtype))
        return {self.key: t, self.other_key: t}

    def to_config(self) -> dict:
        keys = {"key": self.key, "other_key": self.other_key}
        return {"type": "equality_column", **keys, "dtype": self.dtype}


def equality_column(key: str, other_key: str, dtype: str = "float32") -> EqualityColumn:
    """1.0 where the numbers in features ``key`` and ``other_key`` are equal, 0.0 where
    they differ or either is missing (null or NaN): a dense column of one value a row,
    named ``f"{key}_equals_{other_key}"``. A colonnade column with no TF counterpart (see
    the module docstring: the chosen value beside the alternatives' values).

    Args:
        key: one numeric feature's name.
        other_key: the other's, a different feature.
        dtype: the float type both are read (and parsed, in an export) as before the
            comparison: ``"float32"`` (the default, ``numeric_column``'s) or
            ``"float64"`` (integers beyond 2**24).

    >>> equality_column("billing", "shipping").parse_spec()
    {'billing': DataType(float), 'shipping': DataType(float)}
    >>> equality_column("price", "price")
    Traceback (most recent call last):
    ...
    ValueError: column 'price_equals_price': compares two features, got 'price' twice
    """
    key = check_key(key)
    other_key = check_key(other_key, "other_key")
    name = f"{key}_equals_{other_key}"
    if key == other_key:
        raise ValueError(f"column {name!r}: compares two features, got {key!r} twice")
    dtype = check_numeric_dtype(dtype, name)
    if np.dtype(dtype).kind != "f":
        raise ValueError(
            f"column {name!r}: dtype must be a float type (float32 or float64) to read both "
            f"features in, got {dtype!r}"
        )
    return EqualityColumn(key, other_key, dtype)
