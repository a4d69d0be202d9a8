"""Fingerprints of the dictionaries of a batch's features, computed once per batch.

The hashed, vocabulary (out-of-vocabulary buckets) and crossed columns hash each
distinct value of a dictionary-encoded string feature with Fingerprint64; the hashes are
memoized in the batch's transform cache, computed for several features in one call
(:func:`fingerprint_together`), and borrowed from the previous batch when both share a
dictionary.

>>> from colonnade.feature_columns import TransformCache, categorical_column_with_hash_bucket
>>> cache = TransformCache({"k": ["a", "b", "a"]})
>>> len(dictionary_fingerprints(cache, "k", categorical_column_with_hash_bucket("k", 5)))
2
"""

from __future__ import annotations

import functools

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .categorical_inputs import as_int64
from .features import same_array, value_kind
from .hashing import fingerprint64

__all__ = ["dictionary_fingerprints", "fingerprint_together", "valid_values"]


def dictionary_fingerprints(cache, key: str, needed_by) -> np.ndarray:
    """Fingerprint64 of each dictionary entry of feature ``key`` (integers through their
    decimal strings), computed once per batch for every column that hashes ``key``."""

    def compute():
        dictionary = cache.encoded(key, needed_by.name).dictionary
        if value_kind(dictionary.type) in ("integer", "floating"):
            dictionary = pc.cast(as_int64(needed_by, key, dictionary), pa.string())
        return fingerprint64(dictionary)

    return cache.memo(("fingerprint64", key), compute)


IGNORED_STRING_FINGERPRINT, IGNORED_INTEGER_FINGERPRINT = (
    np.uint64(fp) for fp in fingerprint64(pa.array(["", "-1"])).tolist()
)
"""Fingerprint64 of TF's ignore values of dense categorical input: ``''`` for strings,
``-1`` for integers (hashed through their decimal strings)."""


def valid_values(enc, fingerprints: np.ndarray, strings: bool) -> np.ndarray | None:
    """Which values of an encoded feature get an id (``None``: all): not null, and, in a
    rectangular (TF: dense) feature, not TF's ignore value (``''`` if ``strings``, else
    ``-1``), found by one compare of the dictionary's ``fingerprints``."""
    target = IGNORED_STRING_FINGERPRINT if strings else IGNORED_INTEGER_FINGERPRINT
    entries = fingerprints == target
    if not entries.any() or not enc.ragged.rectangular:
        return enc.valid
    kept = ~entries[enc.codes]
    return kept if enc.valid is None else enc.valid & kept


@functools.lru_cache(maxsize=256)
def _hashed_keys(columns: tuple) -> dict:
    """``{raw key: name of a column that hashes it}`` for ``columns`` and the columns they
    are built from (``children``), from each column's ``hashed_keys`` (hashed columns and
    crosses); the same columns come every batch, hence the cache."""
    out: dict = {}
    stack = list(columns)
    while stack:
        column = stack.pop(0)
        for key in getattr(column, "hashed_keys", ()):
            out.setdefault(key, column.name)
        stack.extend(getattr(column, "children", ()))
    return out


def fingerprint_together(cache, columns) -> None:
    """Fingerprint the dictionaries of every string key ``columns`` hash in one call.

    Equivalent to letting each column hash its own key, but one vectorized pass over the
    concatenated dictionaries costs a third of 26 separate ones for a 1k-row batch.
    Keys that are not plain strings are left to the columns (which also check types).
    """
    needed_by = _hashed_keys(tuple(columns))
    keys = [k for k in needed_by if not cache.has(("fingerprint64", k))]
    keys = [k for k in keys if value_kind(cache.ragged(k, needed_by[k]).values.type) == "string"]
    keys = [k for k in keys if not _reuse_fingerprints(cache, k, needed_by[k])]
    if len(keys) < 2:
        return
    dictionaries = [cache.encoded(k, needed_by[k]).dictionary for k in keys]
    if len({d.type for d in dictionaries}) != 1:
        return
    hashes = fingerprint64(pa.concat_arrays(dictionaries))
    start = 0
    for key, dictionary in zip(keys, dictionaries):
        part = hashes[start : start + len(dictionary)]
        cache.memo(("fingerprint64", key), lambda part=part: part)
        start += len(dictionary)


def _reuse_fingerprints(cache, key: str, needed_by: str) -> bool:
    """Take the fingerprints of ``key``'s dictionary from ``cache.previous`` when both
    batches share that dictionary (consecutive chunks of one Parquet row group do)."""
    previous = cache.previous
    if previous is None or not (
        previous.has(("fingerprint64", key)) and previous.has(("encoded", key))
    ):
        return False
    if not same_array(previous.encoded(key).dictionary, cache.encoded(key, needed_by).dictionary):
        return False
    hashes = previous.memo(("fingerprint64", key), None)
    cache.memo(("fingerprint64", key), lambda: hashes)
    return True
