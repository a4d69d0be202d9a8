"""Crossed columns: ids hashed from combinations of features' values.

Each combination's feature hashes (Fingerprint64 of strings, the value of integers, or
a categorical column's ids) are folded with FingerprintCat64, as TensorFlow's
SparseCrossOp does. :func:`fingerprint_together` hashes the string dictionaries that
hashed and crossed columns read in one vectorized pass per batch.

>>> crossed_column(["b", "a"], 100).name
'a_X_b'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .base import CategoricalColumn, check_int, check_key, check_type
from .categorical import HashedCategoricalColumn, WeightedCategoricalColumn
from .categorical_inputs import as_int64
from .dictionary_hashes import dictionary_fingerprints, valid_values
from .features import value_kind
from .hashing import DEFAULT_HASH_KEY, fingerprint_cat64
from .ids import CategoricalIds, drop_invalid

__all__ = ["CrossedColumn", "crossed_column"]


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
    def hashed_keys(self) -> tuple:
        """The raw keys whose string values this cross fingerprints: its raw leaves."""
        return tuple(k for k in self.leaf_keys if isinstance(k, str))

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
        kind = value_kind(ragged.values.type)
        if kind != "floating":
            check_type(self, leaf, ragged.values.type, "string|integer", kind)
        if kind == "string":
            enc = cache.encoded(leaf, self.name)
            fingerprints = dictionary_fingerprints(cache, leaf, self)
            valid = valid_values(enc, fingerprints, strings=True)
            return drop_invalid(fingerprints[enc.codes], valid, ragged.row_splits, n)
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
        raise ValueError(f"crossed_column: keys must be a list with length > 1, got {keys!r}")
    keys = tuple(keys)
    if len(keys) < 2:
        raise ValueError(
            f"crossed_column: keys must be a list with length > 1, got {len(keys)}: {keys!r}"
        )
    for k in keys:
        if isinstance(k, str):
            check_key(k, "a crossed_column key")
            continue
        if isinstance(k, HashedCategoricalColumn):
            raise ValueError(
                "categorical_column_with_hash_bucket is not supported for crossing: "
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
                "Unsupported key type. crossed_column keys must be feature names or "
                "categorical columns, got "
                f"{type(k).__name__}: {k!r}"
            )
    if (
        not isinstance(hash_bucket_size, int)
        or isinstance(hash_bucket_size, bool)
        or (hash_bucket_size <= 1)
    ):
        raise ValueError(f"crossed_column: hash_bucket_size must be > 1, got {hash_bucket_size!r}")
    size = int(hash_bucket_size)
    if hash_key is not None:
        hash_key = check_int(hash_key, "hash_key", 0)
        if hash_key >= 2**64:
            raise ValueError(f"hash_key must fit in 64 bits, got {hash_key}")
    return CrossedColumn(keys, size, hash_key)
