"""Dense views of categorical columns: indicator (multi-hot counts) and embeddings,
including embedding tables shared by several columns.

An embedding lookup is ``gather`` of the ids' rows (whose gradient is ``IndexedRows``,
sparse) followed by the combiner as a segment op, exactly TensorFlow's
``safe_embedding_lookup_sparse``: invalid ids (< 0) are dropped, and for the ``mean`` and
``sqrtn`` combiners so are weights <= 0; an example without ids gets zeros.

>>> import colonnade as cn
>>> from colonnade.feature_columns import CategoricalIds
>>> table = cn.core.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
>>> ids = CategoricalIds(np.array([0, 2, 1]), np.array([0, 2, 3, 3]), num_buckets=3)
>>> embedding_lookup(table, ids, "mean").numpy().tolist()
[[2.0, 3.0], [2.0, 3.0], [0.0, 0.0]]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..core import ops
from ..core.autodiff import Tensor, as_tensor
from ..core.backend import DEFAULT_DTYPE, get_xp, to_device
from .base import CategoricalColumn, DenseColumn, VariableSpec, WrapsCategorical, check_int
from .ids import CategoricalIds
from .named_initializers import Initializer, initializer_from_config

__all__ = [
    "COMBINERS",
    "EmbeddingColumn",
    "IndicatorColumn",
    "SharedEmbeddingColumn",
    "SharedEmbeddingSpec",
    "embedding_column",
    "embedding_lookup",
    "indicator_column",
    "shared_embedding_columns",
    "shared_embeddings",
]

COMBINERS = ("mean", "sqrtn", "sum")
"""How the ids of one example combine: TensorFlow's ``combiner`` / ``sparse_combiner``."""

_SEGMENT_OPS = {"sum": ops.segment_sum, "mean": ops.segment_mean, "sqrtn": ops.segment_sqrtn}


def check_combiner(combiner, what: str = "combiner") -> str:
    if combiner not in COMBINERS:
        raise ValueError(f"unknown {what} {combiner!r}; choose one of {list(COMBINERS)}")
    return combiner


def _clip_rows(rows: Tensor, max_norm: float) -> Tensor:
    """Scale rows whose l2 norm exceeds ``max_norm`` down to it (``tf.clip_by_norm`` per
    row, with its guard against the zero vector's undefined gradient)."""
    xp = get_xp(rows.value)
    l2sum = ops.sum(ops.square(rows), axis=1, keepdims=True)
    positive = l2sum.value > 0
    safe = ops.where(positive, l2sum, xp.ones((), dtype=rows.value.dtype))
    norm = ops.where(positive, ops.sqrt(safe), l2sum)
    return ops.divide(ops.multiply(rows, max_norm), ops.maximum(norm, max_norm))


def embedding_lookup(table, ids: CategoricalIds, combiner: str = "mean", max_norm=None) -> Tensor:
    """Combine the rows of ``table`` that each example's ids pick: ``(num_rows, dim)``.

    ``combiner``: ``sum`` (weighted sum), ``mean`` (divided by the sum of weights) or
    ``sqrtn`` (divided by the root of the sum of squared weights). ``max_norm`` clips each
    looked-up row's l2 norm before combining. The gradient with respect to ``table`` is
    ``IndexedRows``.

    >>> t = np.eye(3, dtype=np.float32)
    >>> embedding_lookup(t, CategoricalIds(np.array([1, 2]), num_buckets=3), "sum").numpy()
    array([[0., 1., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    check_combiner(combiner)
    table = as_tensor(table)
    ids = ids.pruned(prune_weights=combiner != "sum")
    xp = get_xp(table.value)
    rows = ops.gather(table, to_device(ids.ids, xp))
    if max_norm is not None:
        rows = _clip_rows(rows, float(max_norm))
    if ids.univalent and ids.weights is None:
        return rows
    weights = None
    if ids.weights is not None:
        weights = to_device(ids.weights.astype(table.value.dtype, copy=False), xp)
    segment = to_device(ids.segment_ids, xp)
    return _SEGMENT_OPS[combiner](rows, segment, ids.num_rows, weights=weights)


def check_column_combiner(column) -> None:
    """The combiner of an embedding ``column``, checked when a layer first uses it: as TF,
    the column itself accepts any name, and the lookup refuses an unknown one."""
    if column.combiner not in COMBINERS:
        raise ValueError(
            f"unknown combiner {column.combiner!r} of column {column.name!r}: combiner must be "
            f"one of 'mean', 'sqrtn' or 'sum'"
        )


def _default_initializer(dimension: int) -> Initializer:
    # TF's default: truncated normal, mean 0, stddev 1/sqrt(dimension).
    return Initializer("truncated_normal", (("mean", 0.0), ("stddev", 1.0 / math.sqrt(dimension))))


def _sequence_error(column) -> ValueError:
    return ValueError(
        f"In {type(column).__name__} {column.name!r}: its categorical column "
        f"{column.categorical_column.name!r} is a sequence column. Use it in SequenceFeatures, "
        "or give a non-sequence categorical_column_with_* to use it in DenseFeatures, "
        "input_layer or linear_model"
    )


def _not_sequence_error(column) -> ValueError:
    return ValueError(
        f"SequenceFeatures needs sequence columns; {column.name!r} wraps the non-sequence column "
        f"{column.categorical_column.name!r} (use a sequence_categorical_column_with_* column)"
    )


def _check_categorical(column, fn: str):
    if not isinstance(column, CategoricalColumn):
        raise ValueError(
            f"Unsupported input type. {fn} needs a categorical column (categorical_column_with_*, "
            "bucketized or crossed), "
            f"got {type(column).__name__}: {column!r}"
        )
    return column


# ---------------------------------------------------------------- indicator


def id_counts(ids: CategoricalIds) -> np.ndarray:
    """Multi-hot ``(num_rows, num_buckets)`` counts (weighted sums when weighted)."""
    ids = ids.select(ids.ids >= 0)
    nb = ids.num_buckets
    flat = ids.segment_ids * nb + ids.ids
    counts = np.bincount(flat, weights=ids.weights, minlength=ids.num_rows * nb)
    return counts.reshape(ids.num_rows, nb).astype(DEFAULT_DTYPE)


@dataclass(frozen=True)
class IndicatorColumn(WrapsCategorical, DenseColumn):
    """Multi-hot counts; see :func:`indicator_column`.

    >>> from colonnade.feature_columns import categorical_column_with_identity
    >>> indicator_column(categorical_column_with_identity("k", 4)).dimension
    4
    """

    categorical_column: CategoricalColumn

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_indicator"

    @property
    def dimension(self) -> int:
        return self.categorical_column.num_buckets

    @property
    def variable_shape(self) -> list:
        """TF's ``[1, num_buckets]``: the dense tensor of one example."""
        return [1, self.categorical_column.num_buckets]

    def transform(self, cache):
        """``(batch, num_buckets)`` counts; for a sequence column ``(padded, lengths)``
        with one multi-hot vector per step."""
        ids = cache.get(self.categorical_column)
        if self.categorical_column.is_sequence:
            from .sequence import pad_host

            return pad_host(id_counts(ids.steps), ids.row_splits, 0.0), ids.lengths
        return id_counts(ids)

    def dense_output(self, cache, variables) -> Tensor:
        if self.is_sequence:
            raise _sequence_error(self)
        return Tensor(to_device(cache.get(self)))

    def sequence_output(self, cache, variables):
        if not self.is_sequence:
            raise _not_sequence_error(self)
        padded, lengths = cache.get(self)
        return Tensor(to_device(padded)), lengths

    def parse_spec(self) -> dict:
        return self.categorical_column.parse_spec()

    def to_config(self) -> dict:
        return {
            "type": "indicator_column",
            "categorical_column": self.categorical_column.to_config(),
        }


def indicator_column(categorical_column: CategoricalColumn) -> IndicatorColumn:
    """Multi-hot representation of a categorical column (TF's ``indicator_column``):
    entry ``j`` of an example counts its ids equal to ``j`` (or sums their weights).

    Args:
        categorical_column: the column whose ids are counted.

    >>> from colonnade.feature_columns import (categorical_column_with_vocabulary_list,
    ...                                        input_layer)
    >>> name = indicator_column(categorical_column_with_vocabulary_list(
    ...     "name", ["bob", "george", "wanda"]))
    >>> input_layer({"name": [["bob", "wanda"], ["bob", "bob"]]}, [name]).numpy().tolist()
    [[1.0, 0.0, 1.0], [2.0, 0.0, 0.0]]
    """
    return IndicatorColumn(_check_categorical(categorical_column, "indicator_column"))


# ---------------------------------------------------------------- embedding


def _check_embedding_args(dimension, initializer, ckpt, tensor_name, max_norm, trainable, where):
    dimension = check_int(dimension, "dimension", 1, where)
    if initializer is not None and not callable(initializer):
        raise ValueError(f"{where}: initializer must be callable, got {initializer!r}")
    if (ckpt is None) != (tensor_name is None):
        raise ValueError(
            f"{where}: give both ckpt_to_load_from and tensor_name_in_ckpt, or neither"
        )
    if max_norm is not None:
        if isinstance(max_norm, bool) or not isinstance(max_norm, numbers.Real) or max_norm <= 0:
            raise ValueError(f"{where}: max_norm must be a positive number, got {max_norm!r}")
        max_norm = float(max_norm)
    if not isinstance(trainable, bool):
        raise TypeError(f"{where}: trainable must be True or False, got {trainable!r}")
    return dimension, max_norm


def _initializer_config(init, where: str) -> dict:
    if isinstance(init, Initializer):
        return init.to_config()
    raise ValueError(
        f"{where}: its initializer {init!r} is an arbitrary callable, which cannot be written to "
        "a config; use cn.feature_columns.initializer(name, **params) with one of "
        "'truncated_normal', 'random_normal', 'random_uniform', 'glorot_uniform', 'zeros', "
        "'ones', 'constant'"
    )


def _embedding_table_spec(table, name: str, num_buckets: int) -> VariableSpec:
    """The ``(num_buckets, dimension)`` table of an embedding, with ``table``'s settings
    (the column's own, or its shared spec's)."""
    return VariableSpec(
        name,
        (num_buckets, table.dimension),
        table.initializer or _default_initializer(table.dimension),
        table.trainable,
        table.ckpt_to_load_from,
        table.tensor_name_in_ckpt,
    )


def _embedding_config(column, type_name: str, table, named: dict) -> dict:
    """The config of an embedding ``column`` whose ``table`` settings (dimension,
    initializer, checkpoint, trainable) are its own or its shared spec's; ``named``
    names the shared table."""
    out = {
        "type": type_name,
        "categorical_column": column.categorical_column.to_config(),
        "dimension": table.dimension,
        "combiner": column.combiner,
        **named,
    }
    if table.initializer is not None:
        out["initializer"] = _initializer_config(table.initializer, f"column {column.name!r}")
    if table.ckpt_to_load_from is not None:
        out["ckpt_to_load_from"] = table.ckpt_to_load_from
        out["tensor_name_in_ckpt"] = table.tensor_name_in_ckpt
    if column.max_norm is not None:
        out["max_norm"] = column.max_norm
    out["trainable"] = table.trainable
    return out


@dataclass(frozen=True)
class EmbeddingColumn(WrapsCategorical, DenseColumn):
    """Dense embedding of a categorical column; see :func:`embedding_column`.

    >>> from colonnade.feature_columns import categorical_column_with_identity
    >>> embedding_column(categorical_column_with_identity("k", 4), 2).table_name
    'k_embedding/embedding_weights'
    """

    categorical_column: CategoricalColumn
    dimension: int
    combiner: str = "mean"
    initializer: object = None
    ckpt_to_load_from: str | None = None
    tensor_name_in_ckpt: str | None = None
    max_norm: float | None = None
    trainable: bool = True

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_embedding"

    @property
    def table_name(self) -> str:
        """The embedding variable's name relative to its layer."""
        return f"{self.name}/embedding_weights"

    @property
    def variable_shape(self) -> tuple:
        """TF's ``(dimension,)``: the dense tensor of one example."""
        return (self.dimension,)

    def variable_specs(self) -> tuple:
        check_column_combiner(self)
        num_buckets = self.categorical_column.num_buckets
        return (_embedding_table_spec(self, self.table_name, num_buckets),)

    def transform(self, cache):
        """The ids the lookup will use (the categorical column's transform)."""
        return cache.get(self.categorical_column)

    def dense_output(self, cache, variables) -> Tensor:
        if self.is_sequence:
            raise _sequence_error(self)
        table = variables[self.table_name]
        return embedding_lookup(
            table, cache.get(self.categorical_column), self.combiner, self.max_norm
        )

    def sequence_output(self, cache, variables):
        if not self.is_sequence:
            raise _not_sequence_error(self)
        from .sequence import pad

        ids = cache.get(self.categorical_column)
        table = variables[self.table_name]
        steps = embedding_lookup(table, ids.steps, self.combiner, self.max_norm)
        return pad(steps, ids.row_splits), ids.lengths

    def parse_spec(self) -> dict:
        return self.categorical_column.parse_spec()

    def to_config(self) -> dict:
        return _embedding_config(self, "embedding_column", self, {})


def embedding_column(
    categorical_column: CategoricalColumn,
    dimension: int,
    combiner: str = "mean",
    initializer: Callable | None = None,
    ckpt_to_load_from: str | None = None,
    tensor_name_in_ckpt: str | None = None,
    max_norm: float | None = None,
    trainable: bool = True,
    use_safe_embedding_lookup: bool = True,
) -> EmbeddingColumn:
    """Dense embedding of a categorical column (TF's ``embedding_column``).

    Its layer owns a ``(num_buckets, dimension)`` table ``<name>/embedding_weights``,
    initialized by ``initializer`` (colonnade's ``f(shape, dtype, rng)``, TF1's
    ``f(shape, dtype, partition_info=None)`` or Keras's ``f(shape, dtype=None, **kw)``;
    default: truncated normal with stddev ``1/sqrt(dimension)``, as TF) or loaded from
    ``tensor_name_in_ckpt`` in the checkpoint ``ckpt_to_load_from``. ``combiner`` is
    ``'mean'``, ``'sqrtn'`` or ``'sum'`` (another name is refused when a layer first uses
    the column, as TF's lookup does); ``max_norm`` clips each looked-up row's l2 norm;
    ``trainable=False`` freezes the table.

    Args:
        categorical_column: the column whose ids are embedded.
        dimension: the embedding's size.
        combiner: how an example's several ids combine (TF's default ``"mean"``).
        initializer: the table's initializer (TF's default ``None``: truncated normal).
        ckpt_to_load_from: a checkpoint to load the table from (TF's default ``None``).
        tensor_name_in_ckpt: the table's name in that checkpoint (needed with it).
        max_norm: clip each looked-up row to this l2 norm (TF's default ``None``).
        trainable: whether training updates the table (TF's default ``True``).
        use_safe_embedding_lookup: TF's choice of ``safe_embedding_lookup_sparse``
            (default ``True``). Lookups here always drop invalid ids and weights <= 0, as
            the safe lookup does; with ``False`` TF assumes there are none, so the results
            agree on every input TF accepts.

    >>> from colonnade.feature_columns import categorical_column_with_identity
    >>> e = embedding_column(categorical_column_with_identity("video_id", 1000), 9)
    >>> e.name, e.dimension
    ('video_id_embedding', 9)
    """
    _check_categorical(categorical_column, "embedding_column")
    where = f"column '{categorical_column.name}_embedding'"
    check_safe_lookup(use_safe_embedding_lookup, where)
    dimension, max_norm = _check_embedding_args(
        dimension, initializer, ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable, where
    )
    return EmbeddingColumn(
        categorical_column,
        dimension,
        combiner,
        initializer,
        ckpt_to_load_from,
        tensor_name_in_ckpt,
        max_norm,
        trainable,
    )


def check_safe_lookup(use_safe_embedding_lookup, where: str) -> None:
    """TF's ``use_safe_embedding_lookup`` must be a bool (see :func:`embedding_column`)."""
    if not isinstance(use_safe_embedding_lookup, bool):
        raise ValueError(
            f"{where}: use_safe_embedding_lookup must be True or False, got "
            f"{use_safe_embedding_lookup!r}"
        )


def embedding_column_from_config(c: dict, build) -> EmbeddingColumn:
    init = c.get("initializer")
    return embedding_column(
        build(c["categorical_column"]),
        c["dimension"],
        combiner=c.get("combiner", "mean"),
        initializer=initializer_from_config(init) if init is not None else None,
        ckpt_to_load_from=c.get("ckpt_to_load_from"),
        tensor_name_in_ckpt=c.get("tensor_name_in_ckpt"),
        max_norm=c.get("max_norm"),
        trainable=c.get("trainable", True),
    )


# ---------------------------------------------------------------- shared embeddings


@dataclass(frozen=True)
class SharedEmbeddingSpec:
    """The one table several :class:`SharedEmbeddingColumn` read: named
    ``<name>/embedding_weights`` in their layer.

    >>> SharedEmbeddingSpec("ab_shared_embedding", 4, 10).table_name
    'ab_shared_embedding/embedding_weights'
    """

    name: str
    dimension: int
    num_buckets: int
    initializer: object = None
    ckpt_to_load_from: str | None = None
    tensor_name_in_ckpt: str | None = None
    trainable: bool = True

    @property
    def table_name(self) -> str:
        return f"{self.name}/embedding_weights"


@dataclass(frozen=True)
class SharedEmbeddingColumn(WrapsCategorical, DenseColumn):
    """An embedding whose table is shared; see :func:`shared_embedding_columns`.

    >>> from colonnade.feature_columns import categorical_column_with_identity
    >>> a, b = shared_embedding_columns([categorical_column_with_identity("a", 3),
    ...                                  categorical_column_with_identity("b", 3)], 2)
    >>> a.shared is b.shared, a.dimension
    (True, 2)
    """

    categorical_column: CategoricalColumn
    shared: SharedEmbeddingSpec
    combiner: str = "mean"
    max_norm: float | None = None

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def dimension(self) -> int:
        return self.shared.dimension

    @property
    def table_name(self) -> str:
        return self.shared.table_name

    variable_shape = EmbeddingColumn.variable_shape

    def variable_specs(self) -> tuple:
        check_column_combiner(self)
        s = self.shared
        return (_embedding_table_spec(s, s.table_name, s.num_buckets),)

    transform = EmbeddingColumn.transform
    dense_output = EmbeddingColumn.dense_output
    sequence_output = EmbeddingColumn.sequence_output

    def parse_spec(self) -> dict:
        return self.categorical_column.parse_spec()

    def to_config(self) -> dict:
        named = {"shared_embedding_collection_name": self.shared.name}
        return _embedding_config(self, "shared_embedding_column", self.shared, named)


def shared_embedding_columns(
    categorical_columns: Sequence[CategoricalColumn],
    dimension: int,
    combiner: str = "mean",
    initializer: Callable | None = None,
    shared_embedding_collection_name: str | None = None,
    ckpt_to_load_from: str | None = None,
    tensor_name_in_ckpt: str | None = None,
    max_norm: float | None = None,
    trainable: bool = True,
    use_safe_embedding_lookup: bool = True,
) -> list[SharedEmbeddingColumn]:
    """Embedding columns that share one table (TF's ``shared_embedding_columns`` /
    ``shared_embeddings``): for features of one vocabulary, e.g. watched and impression
    video ids. The columns must have equal ``num_buckets``; the table is named
    ``<collection>/embedding_weights``, the collection by default the sorted column names
    joined by ``_`` plus ``_shared_embedding``. Results follow the input order.

    Args:
        categorical_columns: the columns sharing the table, of equal ``num_buckets``.
        dimension: the embedding's size.
        combiner: ``'mean'`` (TF's default), ``'sqrtn'`` or ``'sum'``, as in
            :func:`embedding_column`.
        initializer: the table's initializer (TF's default ``None``: truncated normal).
        shared_embedding_collection_name: names the table (TF's default ``None``: see
            above).
        ckpt_to_load_from: a checkpoint to load the table from (TF's default ``None``).
        tensor_name_in_ckpt: the table's name in that checkpoint (needed with it).
        max_norm: clip each looked-up row to this l2 norm (TF's default ``None``).
        trainable: whether training updates the table (TF's default ``True``).
        use_safe_embedding_lookup: as in :func:`embedding_column`.

    >>> from colonnade.feature_columns import categorical_column_with_identity
    >>> a = categorical_column_with_identity("watched", 100)
    >>> b = categorical_column_with_identity("impression", 100)
    >>> cols = shared_embedding_columns([a, b], 8)
    >>> [c.name for c in cols]
    ['watched_shared_embedding', 'impression_shared_embedding']
    >>> cols[0].shared.table_name
    'impression_watched_shared_embedding/embedding_weights'
    """
    if isinstance(categorical_columns, CategoricalColumn) or not hasattr(
        categorical_columns, "__iter__"
    ):
        raise ValueError("shared_embedding_columns takes a list of categorical columns")
    columns = list(categorical_columns)
    if not columns:
        raise ValueError("shared_embedding_columns needs at least one categorical column")
    for c in columns:
        _check_categorical(c, "shared_embedding_columns")
    where = "shared_embedding_columns"
    check_safe_lookup(use_safe_embedding_lookup, where)
    dimension, max_norm = _check_embedding_args(
        dimension, initializer, ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable, where
    )
    sizes = {c.name: c.num_buckets for c in columns}
    if len(set(sizes.values())) > 1:
        raise ValueError(
            "shared embeddings need categorical columns with the same number of buckets; got "
            f"{sizes}"
        )
    names = sorted(c.name for c in columns)
    if len(set(names)) != len(names):
        raise ValueError(f"shared_embedding_columns got a column twice: {names}")
    name = shared_embedding_collection_name or "_".join(names) + "_shared_embedding"
    if not isinstance(name, str):
        raise TypeError(f"shared_embedding_collection_name must be a string, got {name!r}")
    spec = SharedEmbeddingSpec(
        name,
        dimension,
        columns[0].num_buckets,
        initializer,
        ckpt_to_load_from,
        tensor_name_in_ckpt,
        trainable,
    )
    return [SharedEmbeddingColumn(c, spec, combiner, max_norm) for c in columns]


shared_embeddings = shared_embedding_columns
"""TF2's name for :func:`shared_embedding_columns` (same arguments and result)."""


def shared_embedding_column_from_config(c: dict, build) -> SharedEmbeddingColumn:
    cat = build(c["categorical_column"])
    init = c.get("initializer")
    (col,) = shared_embedding_columns(
        [cat],
        c["dimension"],
        combiner=c.get("combiner", "mean"),
        initializer=initializer_from_config(init) if init is not None else None,
        shared_embedding_collection_name=c["shared_embedding_collection_name"],
        ckpt_to_load_from=c.get("ckpt_to_load_from"),
        tensor_name_in_ckpt=c.get("tensor_name_in_ckpt"),
        max_norm=c.get("max_norm"),
        trainable=c.get("trainable", True),
    )
    return col
