"""Categorical columns of one feature: hashed, identity, and weighted ids.

Every one turns raw Arrow data into :class:`CategoricalIds` with TensorFlow's ids. The
hashed and identity columns work on the dictionary-encoded feature, so each distinct
value is hashed once per batch and the ids are then taken by index; nulls give no id.
Vocabulary columns are in :mod:`.vocabulary`, crossed columns in :mod:`.crossed`.

>>> ids = categorical_column_with_identity("item", 4)
>>> from colonnade.feature_columns import transform_features
>>> transform_features({"item": [[2, 0], [3], []]}, [ids])["item"].to_lists()
[[2, 0], [3], []]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .base import CategoricalColumn, KeyedColumn, WrapsCategorical, check_int, check_key, check_type
from .categorical_inputs import as_int64, check_dtype_arg, check_input, list_spec
from .dictionary_hashes import dictionary_fingerprints, valid_values
from .features import dtype_name, value_kind
from .ids import CategoricalIds, FlatIds, OneIdPerValue, compact

__all__ = [
    "HashedCategoricalColumn",
    "IdentityCategoricalColumn",
    "WeightedCategoricalColumn",
    "categorical_column_with_hash_bucket",
    "categorical_column_with_identity",
    "weighted_categorical_column",
]


# ---------------------------------------------------------------- hash bucket


@dataclass(frozen=True)
class HashedCategoricalColumn(OneIdPerValue, KeyedColumn, CategoricalColumn):
    """Ids by hashing; see :func:`categorical_column_with_hash_bucket`.

    >>> categorical_column_with_hash_bucket("kw", 10)
    HashedCategoricalColumn(key='kw', hash_bucket_size=10, dtype='string')
    """

    key: str
    hash_bucket_size: int
    dtype: str = "string"

    @property
    def hashed_keys(self) -> tuple:
        """The raw keys whose string values this column fingerprints: its own."""
        return (self.key,)

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size

    def flat_ids(self, cache) -> FlatIds:
        """``Fingerprint64(value) % hash_bucket_size`` for each value."""

        def compute():
            enc = cache.encoded(self.key, self.name)
            check_input(self, self.key, enc.ragged.values.type, self.dtype)
            fp = dictionary_fingerprints(cache, self.key, self)
            dict_ids = (fp % np.uint64(self.hash_bucket_size)).astype(np.int64)
            valid = valid_values(enc, fp, self.dtype == "string")
            return FlatIds(dict_ids[enc.codes], valid, enc.ragged)

        return cache.memo(("flat_ids", self), compute)

    def parse_spec(self) -> dict:
        return {self.key: list_spec(self.dtype)}

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
    return HashedCategoricalColumn(key, size, check_dtype_arg(dtype, key))


# ---------------------------------------------------------------- identity


@dataclass(frozen=True)
class IdentityCategoricalColumn(OneIdPerValue, KeyedColumn, CategoricalColumn):
    """Integer values used as ids; see :func:`categorical_column_with_identity`.

    >>> categorical_column_with_identity("item", 5).num_buckets
    5
    """

    key: str
    num_buckets: int
    default_value: int | None = None

    def flat_ids(self, cache) -> FlatIds:
        """The values themselves; out-of-range values become ``default_value``; nulls,
        and -1 in a rectangular (TF: dense) feature, give no id."""

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
            ignored = ids == -1  # TF's ignore value of dense integer input: no id
            if ignored.any() and ragged.rectangular:
                valid = ~ignored if valid is None else valid & ~ignored
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


# ---------------------------------------------------------------- weighted


@dataclass(frozen=True)
class WeightedCategoricalColumn(WrapsCategorical, CategoricalColumn):
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
    def num_buckets(self) -> int:
        return self.categorical_column.num_buckets

    def transform(self, cache) -> CategoricalIds:
        """The categorical column's ids, each with the weight at its position."""
        flat = self.categorical_column.flat_ids(cache)
        key = self.weight_feature_key
        w = cache.ragged(key, self.name)
        check_type(self, key, w.values.type, "floating|integer", value_kind(w.values.type))
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
        zero = weights == 0  # TF's ignore value of dense weights: the id is dropped
        if zero.any() and w.rectangular:
            kept = ~zero if flat.valid is None else flat.valid & ~zero
            flat = FlatIds(flat.ids, kept, flat.ragged)
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
