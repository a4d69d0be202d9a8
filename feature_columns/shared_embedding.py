"""Embedding tables shared by several categorical columns (TF's
``shared_embedding_columns`` / ``shared_embeddings``): one table, read by columns of one
vocabulary.

>>> from colonnade.feature_columns import categorical_column_with_identity
>>> a, b = shared_embedding_columns([categorical_column_with_identity("a", 3),
...                                  categorical_column_with_identity("b", 3)], 2)
>>> a.table_name == b.table_name == "a_b_shared_embedding/embedding_weights"
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .base import CategoricalColumn, DenseColumn, WrapsCategorical
from .dense import (
    EmbeddingColumn,
    check_categorical,
    check_embedding_args,
    check_safe_lookup,
    embedding_config,
    embedding_table_spec,
)
from .embedding_lookup import check_column_combiner
from .named_initializers import initializer_from_config

__all__ = [
    "SharedEmbeddingColumn",
    "SharedEmbeddingSpec",
    "shared_embedding_columns",
    "shared_embeddings",
]


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
        return (embedding_table_spec(s, s.table_name, s.num_buckets),)

    transform = EmbeddingColumn.transform
    dense_output = EmbeddingColumn.dense_output
    sequence_output = EmbeddingColumn.sequence_output

    def parse_spec(self) -> dict:
        return self.categorical_column.parse_spec()

    def to_config(self) -> dict:
        named = {"shared_embedding_collection_name": self.shared.name}
        return embedding_config(self, "shared_embedding_column", self.shared, named)


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
        check_categorical(c, "shared_embedding_columns")
    where = "shared_embedding_columns"
    check_safe_lookup(use_safe_embedding_lookup, where)
    dimension, max_norm = check_embedding_args(
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
