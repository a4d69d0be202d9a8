"""The per-batch transform cache: every transform is computed once, even when several
columns (a hash column and a cross over the same key, two embeddings over one categorical
column) need it, and independent transforms may run on two threads.

>>> from colonnade.feature_columns import numeric_column
>>> cache = TransformCache({"x": [1.0, 2.0]})
>>> age = numeric_column("x")
>>> cache.get(age) is cache.get(age)
True
"""

from __future__ import annotations

import collections
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pyarrow as pa

from .base import WrapsCategorical
from .categorical import HashedCategoricalColumn, IdentityCategoricalColumn
from .dictionary_hashes import fingerprint_together
from .features import (
    ColumnArgumentError,
    Encoded,
    Features,
    Ragged,
    as_features,
    encode,
    flatten,
    value_kind,
)
from .ids import CategoricalIds
from .vocabulary import VocabularyFileCategoricalColumn, VocabularyListCategoricalColumn

__all__ = [
    "DEFAULT_NUM_THREADS",
    "TINY_ROWS",
    "BatchFeatures",
    "TransformCache",
    "ValueIds",
    "transform_features",
    "transforms_of",
]

DEFAULT_NUM_THREADS = min(2, os.cpu_count() or 1)
"""Threads used to transform the columns of one batch (hashing and lookups release the
GIL). Two: the machines this is tuned for have two cores, and more rarely pays."""

PARALLEL_MIN_ROWS = 16_384
"""Batches smaller than this are transformed on the calling thread by default: for a
training batch of ~1k rows, each column's transform is too short for handing it to a pool
(and waiting for the result) to pay."""

TINY_ROWS = 10
"""Batches of at most this many rows (one-row serving requests) may take the ids of their
hash, vocabulary and identity columns from a :class:`ValueIds` memo."""

_MISSING = object()
_executors: dict = {}
_executors_lock = threading.Lock()


def _executor(num_threads: int) -> ThreadPoolExecutor:
    with _executors_lock:
        ex = _executors.get(num_threads)
        if ex is None:
            ex = ThreadPoolExecutor(num_threads, thread_name_prefix="colonnade-fc")
            _executors[num_threads] = ex
        return ex


def _checked_transform(column, cache):
    """``column.transform(cache)``, refusing ``None`` (a column that gives no value)."""
    value = column.transform(cache)
    if value is None:
        raise ValueError(
            f"Column {column.name} is not supported: its transform gave None; a column's "
            "transform must return its value for the batch"
        )
    return value


class TransformCache:
    """Transforms of one batch of ``features``, each computed once.

    ``get(column)`` returns ``column.transform(cache)``, computing it on first request;
    ``memo(key, fn)`` does the same for intermediate results shared across columns
    (flattened inputs, dictionary encodings, fingerprints). It is safe to call from
    several threads: a second request for a result being computed waits for it.
    ``previous``, the cache of the batch before, lends the hashes of the dictionaries both
    batches share; ``compute`` drops it once they are taken. ``computed`` holds results
    known already (keys as :meth:`memo` takes them): how :meth:`with_results` and
    :meth:`rows` build a cache from another's.

    >>> cache = TransformCache({"k": ["a", "b", "a"]})
    >>> cache.encoded("k").dictionary.to_pylist(), cache.encoded("k").codes.tolist()
    (['a', 'b'], [0, 1, 0])
    """

    def __init__(
        self, features, previous: TransformCache | None = None, *, computed: dict | None = None
    ):
        self.features: Features = as_features(features)
        self.previous = previous  # the batch before, whose dictionary hashes may be reused
        self._results: dict = {}  # in-flight results (Futures) while computing in parallel
        self._done: dict = dict(computed or {})
        self._parallel = False
        self._lock = threading.Lock()

    @property
    def num_rows(self) -> int:
        return self.features.num_rows

    def memo(self, key, fn):
        """``fn()`` computed once per ``key`` for this batch."""
        value = self._done.get(key, _MISSING)
        if value is not _MISSING:
            return value
        if not self._parallel:
            value = self._done[key] = fn()
            return value
        with self._lock:  # several threads may ask for one result: one computes, the rest wait
            fut = self._results.get(key)
            owner = fut is None
            if owner:
                fut = Future()
                self._results[key] = fut
        if not owner:
            return fut.result()
        try:
            value = fn()
        except BaseException as e:
            fut.set_exception(e)
            raise
        self._done[key] = value
        fut.set_result(value)
        return value

    def has(self, key) -> bool:
        """Whether the result for ``key`` is already computed."""
        return key in self._done

    def get(self, column):
        """The transform of ``column`` for this batch (computed once); for a feature name,
        the raw feature (TF's ``FeatureTransformationCache.get``)."""
        if isinstance(column, str):
            return self.raw(column)
        if not hasattr(column, "transform"):
            raise TypeError(
                f'"key" must be either a "str" or "FeatureColumn". Given: {column!r}, of type '
                f"{type(column).__name__}"
            )
        return self.memo(("column", column), lambda: _checked_transform(column, self))

    def raw(self, key: str, needed_by: str | None = None):
        """The raw feature ``key`` as one Arrow array."""
        return self.features.column(key, needed_by)

    def ragged(self, key: str, needed_by: str | None = None) -> Ragged:
        """The feature ``key`` as flat values plus row splits."""
        return self.memo(("ragged", key), lambda: flatten(self.raw(key, needed_by)))

    def encoded(self, key: str, needed_by: str | None = None) -> Encoded:
        """The feature ``key`` dictionary-encoded (each distinct value once); values that
        are lists or records (a list of lists) are a ``ValueError`` naming both."""

        def compute():
            ragged = self.ragged(key, needed_by)
            kind = value_kind(ragged.values.type)
            if kind in ("list", "other"):
                raise ColumnArgumentError(
                    f"column {needed_by!r} reads strings or integers, at most one list of them "
                    f"per row, but feature {key!r} holds values of type {ragged.values.type}"
                )
            return encode(ragged)

        return self.memo(("encoded", key), compute)

    def compute(
        self, columns, num_threads: int | None = None, value_ids: ValueIds | None = None
    ) -> list:
        """Transform every column in ``columns``, on up to ``num_threads`` threads
        (default: :data:`DEFAULT_NUM_THREADS` for batches of at least
        :data:`PARALLEL_MIN_ROWS` rows, else one); returns the transforms in order. A
        batch of at most :data:`TINY_ROWS` rows takes what it can from ``value_ids``."""
        columns = list(columns)
        done = [self._done.get(("column", c), _MISSING) for c in columns]
        if all(v is not _MISSING for v in done):
            return done
        if value_ids is not None and self.num_rows <= TINY_ROWS:
            fingerprint_together(self, value_ids.fill(self, columns))
        else:
            fingerprint_together(self, columns)
        self.previous = None  # its hashes were taken; do not chain every batch in memory
        if num_threads is None:
            small = self.num_rows < PARALLEL_MIN_ROWS
            n = 1 if small else DEFAULT_NUM_THREADS
        else:
            n = int(num_threads)
        if n <= 1 or len(columns) <= 1:
            for c in sorted(columns, key=lambda c: c.name):  # in name order, as TF
                self.get(c)
            return [self.get(c) for c in columns]
        self._parallel = True
        try:
            return list(_executor(n).map(self.get, columns))
        finally:
            self._parallel = False

    def with_results(self, results: dict) -> TransformCache:
        """A copy of this batch's cache whose computed results ``results`` (``{key:
        value}``, keys as :meth:`memo` takes them, e.g. ``("column", column)``) replace
        or add to this one's, which is left as it was: how a distributed worker points a
        batch's ids at the rows it pulled instead of whole tables.

        >>> from colonnade.feature_columns import numeric_column
        >>> x = numeric_column("x")
        >>> cache = TransformCache({"x": [1.0]})
        >>> other = cache.with_results({("column", x): "replaced"})
        >>> other.get(x), cache.get(x).tolist()
        ('replaced', [[1.0]])
        """
        return TransformCache(self.features, computed={**self._done, **results})

    def rows(self, start: int, stop: int, features=None) -> TransformCache | None:
        """The transforms of examples ``start`` to ``stop``, cut from this batch's: how a
        batch gets its transforms from a larger chunk transformed at once (per-call costs
        paid once per chunk). ``features`` are that batch's raw features. ``None`` if some
        computed transform cannot be cut by rows (sequence columns pad to the batch).
        """
        cut = {}
        for key, value in self._done.items():
            if key[0] != "column":
                continue
            if isinstance(value, CategoricalIds):
                cut[key] = value.rows(start, stop)
            elif isinstance(value, np.ndarray) and value.shape[:1] == (self.num_rows,):
                cut[key] = value[start:stop]
            else:
                return None
        return TransformCache(features if features is not None else {}, computed=cut)


class BatchFeatures(dict):
    """A batch's features as a plain dict (what a ``model_fn`` reads, TF's dict of
    tensors) that also carries the batch's one :class:`TransformCache`.

    Every feature-column layer called on it in one step (``input_layer`` for the FM part
    and again for the deep part, ``linear_model`` for the wide part) then shares that
    cache: a column read by several layers is transformed once, and a column whose numpy
    array ``values[key]`` is a read-only view of the batch's Arrow column ``arrow[key]``
    (numbers without nulls) is read from that column rather than converted back. Once
    user code changes the dict (sets, deletes or replaces a feature),
    :meth:`shared_transforms` gives ``None`` and layers transform what the dict holds
    then, as for any dict. Its numpy arrays are made read-only: their transforms may be
    computed ahead, and TF's features are tensors, which cannot change either.

    >>> import pyarrow as pa
    >>> batch = pa.record_batch({"x": [1.0, 2.0]})
    >>> features = BatchFeatures({"x": batch.column(0).to_numpy()}, {"x": batch.column(0)})
    >>> transforms_of(features) is transforms_of(features)
    True
    >>> features["x"] = features["x"] * 2
    >>> transforms_of(features) is transforms_of(features)
    False
    """

    def __init__(self, values: dict, arrow: dict, previous: TransformCache | None = None):
        super().__init__(values)
        self.given = dict(values)  # what the dict held when made, to notice user changes
        self.arrow = arrow
        source = {k: arrow[k] if views_arrow(v, arrow.get(k)) else v for k, v in values.items()}
        for value in values.values():
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
        num_rows = len(next(iter(values.values()))) if values else 0
        self.transform_cache = TransformCache(Features(source, num_rows), previous)

    def rows(self, start: int, stop: int) -> BatchFeatures | None:
        """The features of examples ``start`` to ``stop`` with their cut of this batch's
        transforms (:meth:`TransformCache.rows`): how each small batch of a chunk
        transformed at once gets its own; ``None`` if the transforms cannot be cut."""
        cut = {k: v[start:stop] for k, v in self.given.items()}
        batch = BatchFeatures(cut, {k: v[start:stop] for k, v in self.arrow.items()})
        transforms = self.transform_cache.rows(start, stop, batch.transform_cache.features)
        if transforms is None:
            return None
        batch.transform_cache = transforms
        return batch

    def __reduce__(self):
        """Pickled and copied as the plain dict it shows (the cache belongs to this step)."""
        return (dict, (dict(self),))

    def shared_transforms(self) -> TransformCache | None:
        """The batch's shared cache while the dict holds what it was made with, else
        ``None``."""
        given = self.given
        if len(self) != len(given):
            return None
        for key, value in given.items():
            if self.get(key, _MISSING) is not value:
                return None
        return self.transform_cache


def views_arrow(value, column) -> bool:
    """Whether the numpy array ``value`` is a read-only view of ``column``, an Arrow array
    of numbers or booleans without nulls (what ``to_numpy`` gives for one): the layers
    may then read the Arrow column, which gives the same transforms."""
    if not (isinstance(value, np.ndarray) and isinstance(column, pa.Array)):
        return False
    if value.flags.writeable or column.null_count or len(value) != len(column):
        return False
    return value_kind(column.type) in ("integer", "floating", "boolean")


def transforms_of(features) -> TransformCache:
    """The transform cache to read the batch ``features`` through: the cache itself when
    given one, the batch's shared cache for an unchanged :class:`BatchFeatures`, else a
    new cache of ``features``."""
    if isinstance(features, TransformCache):
        return features
    if isinstance(features, BatchFeatures):
        shared = features.shared_transforms()
        if shared is not None:
            return shared
    return TransformCache(features)


_VALUE_COLUMNS = (
    HashedCategoricalColumn,
    IdentityCategoricalColumn,
    VocabularyListCategoricalColumn,
    VocabularyFileCategoricalColumn,
)


class ValueIds:
    """The ids of single values of hash, vocabulary and identity columns, remembered for
    tiny batches (:meth:`TransformCache.compute`'s ``value_ids``).

    A one-row batch pays each column transform's per-call costs (Arrow's dictionary
    encoding, the vectorized fingerprint, the vocabulary's index lookup: tens of µs a
    column) for a single value. These columns give each value its id whatever else is in
    the batch, so here a value's id is computed once, by the column's own transform of
    that value alone, and then read from a dict: the ids are the same by construction.
    Only columns of plain (not list) strings or integers without nulls are taken; the
    others, and any value whose transform fails (the usual path then raises its error for
    the batch), take the usual path. At most ``max_values`` values per column and Arrow
    type are kept (then the memo starts afresh), none longer than ``max_chars``
    characters, so hostile inputs cannot grow it without bound. One ``ValueIds`` belongs
    to one model (a served version).

    >>> from colonnade.feature_columns import categorical_column_with_hash_bucket
    >>> city = categorical_column_with_hash_bucket("city", 100)
    >>> memo = ValueIds()
    >>> TransformCache({"city": ["rome"]}).compute([city], value_ids=memo)[0].ids.tolist()
    [2]
    >>> TransformCache({"city": ["rome"]}).compute([city])[0].ids.tolist()
    [2]
    """

    def __init__(self, max_values: int = 4096, max_chars: int = 256):
        self.max_values = max_values
        self.max_chars = max_chars
        self._memos: dict = {}  # (id(column), arrow type) -> (column, {value: id})

    def fill(self, cache: TransformCache, columns) -> list:
        """Put into ``cache`` the ids of the columns it can among ``columns`` and the
        categorical columns they wrap (embedding, indicator); returns the columns whose
        transforms still need the usual path's dictionary fingerprints."""
        rest = []
        for column in columns:
            inner = column.categorical_column if isinstance(column, WrapsCategorical) else column
            if not (type(inner) in _VALUE_COLUMNS and self._fill(cache, inner)):
                rest.append(column)
        return rest

    def _fill(self, cache: TransformCache, column) -> bool:
        if cache.has(("column", column)):
            return True
        try:
            array = cache.raw(column.key, column.name)
        except (KeyError, ValueError):  # the usual path raises it, naming the column
            return False
        kind = array.type
        if array.null_count or not (
            pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_integer(kind)
        ):
            return False
        memo = self._memos.get((id(column), kind))
        if memo is None or memo[0] is not column:
            memo = self._memos[(id(column), kind)] = (column, {})
        known = memo[1]
        ids = []
        for value in array.to_pylist():  # at most TINY_ROWS values
            found = known.get(value)
            if found is None:
                found = self._one(column, value, kind)
                if found is None:
                    return False
                if len(known) >= self.max_values:
                    known.clear()
                known[value] = found
            ids.append(found)
        result = CategoricalIds(np.array(ids, np.int64), None, column.num_buckets)
        cache.memo(("column", column), lambda: result)
        return True

    def _one(self, column, value, kind):
        """The id the column's own transform gives ``value`` alone, or ``None``."""
        if isinstance(value, str) and len(value) > self.max_chars:
            return None
        try:
            ids = TransformCache({column.key: pa.array([value], kind)}).get(column)
        except (ValueError, TypeError, KeyError, pa.ArrowException):
            return None
        if not ids.univalent or ids.ids.shape != (1,) or ids.weights is not None:
            return None
        return int(ids.ids[0])


def transform_features(features, feature_columns, num_threads: int | None = None) -> dict:
    """Transform a batch: a dict from column name to what the column computes from raw data.

    Categorical columns (and bucketized ones) give :class:`CategoricalIds`; numeric and
    indicator columns a ``(batch, dim)`` numpy array; embedding columns the ids of their
    categorical column (the lookup itself needs the layer's table); sequence numeric
    columns ``(padded values, lengths)``. The model-free half of ``input_layer``, as TF's
    ``transform_features``.

    >>> from colonnade.feature_columns import bucketized_column, numeric_column
    >>> out = transform_features({"x": [0.5, 7.0]}, [bucketized_column(numeric_column("x"), [1.0])])
    >>> out["x_bucketized"].ids.tolist()
    [0, 1]
    """
    cache = TransformCache(features)
    columns = list(feature_columns)
    names = [c.name for c in columns]
    dup = sorted(n for n, k in collections.Counter(names).items() if k > 1)
    if dup:
        raise ValueError(f"duplicate feature column names {dup}; every column needs its own name")
    values = cache.compute(columns, num_threads)
    return dict(zip(names, values))
