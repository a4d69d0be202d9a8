"""Dense views of categorical columns: indicator (multi-hot counts) and embeddings, and the
checks and table settings embedding columns share (:mod:`.shared_embedding` reads them
too); the lookup itself is :mod:`.embedding_lookup`.

>>> from colonnade.feature_columns import categorical_column_with_identity, input_layer
>>> k = categorical_column_with_identity("k", 3)
>>> input_layer({"k": [[0, 2], [1, 1]]}, [indicator_column(k)]).numpy().tolist()
[[1.0, 0.0, 1.0], [0.0, 2.0, 0.0]]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.autodiff import Tensor
from ..core.backend import DEFAULT_DTYPE, to_device
from .base import CategoricalColumn, DenseColumn, VariableSpec, WrapsCategorical, check_int
from .embedding_lookup import check_column_combiner, embedding_lookup
from .ids import CategoricalIds
from .named_initializers import Initializer, initializer_from_config

__all__ = ["EmbeddingColumn", "IndicatorColumn", "embedding_column", "indicator_column"]


def default_initializer(dimension: int) -> Initializer:
    # TF's default: truncated normal, mean 0, stddev 1/sqrt(dimension).
    return Initializer("truncated_normal", (("mean", 0.0), ("stddev", 1.0 / math.sqrt(dimension))))


def sequence_error(column) -> ValueError:
    return ValueError(
        f"In {type(column).__name__} {column.name!r}: its categorical column "
        f"{column.categorical_column.name!r} is a sequence column. Use it in SequenceFeatures, "
        "or give a non-sequence categorical_column_with_* to use it in DenseFeatures, "
        "input_layer or linear_model"
    )


def not_sequence_error(column) -> ValueError:
    return ValueError(
        f"SequenceFeatures needs sequence columns; {column.name!r} wraps the non-sequence column "
        f"{column.categorical_column.name!r} (use a sequence_categorical_column_with_* column)"
    )


def check_categorical(column, fn: str):
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
            raise sequence_error(self)
        return Tensor(to_device(cache.get(self)))

    def sequence_output(self, cache, variables):
        if not self.is_sequence:
            raise not_sequence_error(self)
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
    return IndicatorColumn(check_categorical(categorical_column, "indicator_column"))


# ---------------------------------------------------------------- embedding


def check_embedding_args(dimension, initializer, ckpt, tensor_name, max_norm, trainable, where):
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


def initializer_config(init, where: str) -> dict:
    if isinstance(init, Initializer):
        return init.to_config()
    raise ValueError(
        f"{where}: its initializer {init!r} is an arbitrary callable, which cannot be written to "
        "a config; use cn.feature_columns.initializer(name, **params) with one of "
        "'truncated_normal', 'random_normal', 'random_uniform', 'glorot_uniform', 'zeros', "
        "'ones', 'constant'"
    )


def embedding_table_spec(table, name: str, num_buckets: int) -> VariableSpec:
    """The ``(num_buckets, dimension)`` table of an embedding, with ``table``'s settings
    (the column's own, or its shared spec's)."""
    return VariableSpec(
        name,
        (num_buckets, table.dimension),
        table.initializer or default_initializer(table.dimension),
        table.trainable,
        table.ckpt_to_load_from,
        table.tensor_name_in_ckpt,
    )


def embedding_config(column, type_name: str, table, named: dict) -> dict:
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
        out["initializer"] = initializer_config(table.initializer, f"column {column.name!r}")
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
        return (embedding_table_spec(self, self.table_name, num_buckets),)

    def transform(self, cache):
        """The ids the lookup will use (the categorical column's transform)."""
        return cache.get(self.categorical_column)

    def dense_output(self, cache, variables) -> Tensor:
        if self.is_sequence:
            raise sequence_error(self)
        table = variables[self.table_name]
        return embedding_lookup(
            table, cache.get(self.categorical_column), self.combiner, self.max_norm
        )

    def sequence_output(self, cache, variables):
        if not self.is_sequence:
            raise not_sequence_error(self)
        from .sequence import pad

        ids = cache.get(self.categorical_column)
        table = variables[self.table_name]
        steps = embedding_lookup(table, ids.steps, self.combiner, self.max_norm)
        return pad(steps, ids.row_splits), ids.lengths

    def parse_spec(self) -> dict:
        return self.categorical_column.parse_spec()

    def to_config(self) -> dict:
        return embedding_config(self, "embedding_column", self, {})


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
    check_categorical(categorical_column, "embedding_column")
    where = f"column '{categorical_column.name}_embedding'"
    check_safe_lookup(use_safe_embedding_lookup, where)
    dimension, max_norm = check_embedding_args(
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
