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

from .base import CategoricalColumn, KeyedColumn, WrapsCategorical, check_int, check_key
from .categorical_inputs import as_int64, check_dtype_arg, check_input, list_spec
from .dictionary_hashes import dictionary_fingerprints, valid_values
from .features import ColumnArgumentError, dtype_name, value_kind
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
            if value_kind(values.type) == "string":
                raise ColumnArgumentError(
                    f"Invalid input, not integer. key: {self.key} dtype: string: column "
                    f"{self.name!r} expects integer values in feature {self.key!r}, got Arrow "
                    f"type {values.type}"
                )
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
            if self.default_value is None:
                # As TF: negative values stay, ids that lookups drop; too large is an error.
                self._check_below_num_buckets(ids if valid is None else np.where(valid, ids, 0))
                return FlatIds(ids, valid, ragged)
            bad = (ids < 0) | (ids >= self.num_buckets)
            if valid is not None:
                bad &= valid
            if bad.any():
                ids = np.where(bad, self.default_value, ids)
            return FlatIds(ids, valid, ragged)

        return cache.memo(("flat_ids", self), compute)

    def _check_below_num_buckets(self, ids: np.ndarray) -> None:
        """ValueError naming the first id >= ``num_buckets`` (TF's gather error)."""
        big = np.flatnonzero(ids >= self.num_buckets)
        if big.size:
            first, n = int(big[0]), self.num_buckets
            raise ValueError(
                f"column {self.name!r}: feature {self.key!r} has {big.size} values outside "
                f"[0, {n}): indices[{first}] = {int(ids[first])} is not in [0, {n}); give "
                "categorical_column_with_identity(..., default_value=...) to map them to an id"
            )

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
    one, as in TF, a negative value stays an invalid id that lookups and indicators drop,
    and a value ``>= num_buckets`` is an error naming the column. Nulls give no id.

    Args:
        key: the input feature's name (the column of the data).
        num_buckets: the number of ids; values must be in ``[0, num_buckets)``.
        default_value: the id of values outside that range (TF's default ``None``: see
            above).

    >>> c = categorical_column_with_identity("video_id", 100, default_value=0)
    >>> from colonnade.feature_columns import transform_features
    >>> transform_features({"video_id": [5, 500, None]}, [c])["video_id"].to_lists()
    [[5], [0], []]
    """
    key = check_key(key)
    n = check_int(num_buckets, "num_buckets", None, key)
    if n < 1:
        raise ValueError(f"num_buckets {n} < 1, column_name {key}: give at least one bucket")
    if default_value is not None:
        default_value = check_int(default_value, "default_value", None, key)
        if not 0 <= default_value < n:
            raise ValueError(
                f"default_value {default_value} not in range [0, {n}), column_name {key}"
            )
    return IdentityCategoricalColumn(key, n, default_value)


# ---------------------------------------------------------------- weighted


def _kept_per_row(splits: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """How many values each row of a ragged column keeps."""
    rows = np.repeat(np.arange(len(splits) - 1), np.diff(splits))
    return np.bincount(rows[keep], minlength=len(splits) - 1)


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
        """The categorical column's ids, each with the weight at its position. As TF, the
        weights are read first, and a rectangular (TF: dense) feature's ignore values (-1
        ids, 0.0 weights) are dropped before ids and weights are paired."""
        key = self.weight_feature_key
        w = cache.ragged(key, self.name)
        if value_kind(w.values.type) not in ("floating", "integer"):
            raise ColumnArgumentError(
                f"Bad dtype, expected {self.dtype}, but got {value_kind(w.values.type)}: column "
                f"{self.name!r} expects floating or integer values in feature {key!r}, got "
                f"Arrow type {w.values.type}"
            )
        flat = self.categorical_column.flat_ids(cache)
        values = w.values
        if pa.types.is_dictionary(values.type):
            values = values.cast(values.type.value_type)
        weights = pc.fill_null(values, 0).to_numpy(zero_copy_only=False).astype(np.float32)
        w_valid = values.is_valid().to_numpy(zero_copy_only=False)
        w_keep = w_valid & (weights != 0) if w.rectangular else w_valid  # TF's ignore value
        id_keep = np.ones(len(flat.ids), bool) if flat.valid is None else flat.valid
        if np.array_equal(flat.ragged.splits(), w.splits()):
            missing = int((id_keep & ~w_valid).sum())
            if missing:
                raise ValueError(
                    f"column {self.name!r}: {missing} values have an id but a null weight in "
                    f"{key!r}"
                )
            id_keep = id_keep & w_keep
            w_keep = id_keep
        else:
            self._check_pairing(flat.ragged.splits(), id_keep, w.splits(), w_keep)
        ids = compact(FlatIds(flat.ids, id_keep, flat.ragged), self.num_buckets)
        return ids.with_weights(weights[w_keep])

    def _check_pairing(self, id_splits, id_keep, w_splits, w_keep) -> None:
        """ValueError unless the kept ids and kept weights have equal counts row by row."""
        n_ids, n_w = int(id_keep.sum()), int(w_keep.sum())
        ids_of = self.categorical_column.input_keys[0]
        if n_ids != n_w:
            raise ValueError(
                f"column {self.name!r}: Incompatible shapes: weights {self.weight_feature_key!r} "
                f"have {n_w} values but {ids_of!r} has {n_ids} ids (Dimensions {n_w} and {n_ids} "
                "are not compatible); give one weight per id"
            )
        rows = len(id_splits) - 1
        if len(w_splits) - 1 != rows or not np.array_equal(
            _kept_per_row(id_splits, id_keep), _kept_per_row(w_splits, w_keep)
        ):
            raise ValueError(
                f"column {self.name!r}: weights {self.weight_feature_key!r} must have one value "
                f"per value of {ids_of!r}, row by row; their list lengths differ"
            )

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
            f"Parse config for {key} already exists: weight_feature_key {key!r} must differ "
            "from the categorical feature's key"
        )
    name = dtype_name(dtype) if dtype is not None else None
    if name is None or not name.startswith("float"):
        raise ValueError(
            f"dtype {dtype!r} is not convertible to float: weighted_categorical_column needs a "
            "float type such as 'float32'"
        )
    dtype = name
    return WeightedCategoricalColumn(categorical_column, key, dtype)
