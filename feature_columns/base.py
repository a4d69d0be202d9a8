"""What every feature column is: a frozen value with a ``name``, the ``input_keys`` it
reads, a ``transform`` over one batch, and a declarative ``to_config``.

Two kinds refine it, as in TensorFlow: a :class:`CategoricalColumn` turns raw data into
:class:`~colonnade.feature_columns.ids.CategoricalIds` (ids in ``[0, num_buckets)``), a
:class:`DenseColumn` into a ``(batch, dimension)`` tensor, possibly through variables its
layer owns (``variable_specs``). A bucketized column is both. Concrete columns are frozen
dataclasses in ``numeric``, ``categorical``, ``dense`` and ``sequence``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import pyarrow as pa

from .features import ColumnArgumentError

__all__ = [
    "ColumnArgumentError",
    "CategoricalColumn",
    "DenseColumn",
    "FeatureColumn",
    "KeyedColumn",
    "VariableSpec",
    "WrapsCategorical",
    "WrapsSource",
]


class FeatureColumn:
    """The protocol all columns follow (no state of its own).

    - ``name``: stable, TensorFlow's (``age_bucketized``, ``a_X_b``, ``x_embedding``, ...).
    - ``input_keys``: the raw feature names the column reads, in order.
    - ``transform(cache)``: its value for the batch held by a ``TransformCache``; call
      ``cache.get(column)`` rather than this, so it is computed once.
    - ``parse_spec()``: ``{feature name: pyarrow type}`` it needs (``make_parse_example_spec``).
    - ``to_config()``: a dict of plain values that ``from_config`` turns back into it.
    - ``children`` (columns built on others): the columns it is built from.

    >>> from colonnade.feature_columns import numeric_column
    >>> isinstance(numeric_column("x"), FeatureColumn), numeric_column("x").input_keys
    (True, ('x',))
    """

    is_sequence = False

    @property
    def name(self) -> str:  # pragma: no cover - every concrete column overrides it
        raise AttributeError(f"{type(self).__name__} has no name")

    def __lt__(self, other) -> bool:
        return self.name < other.name


class KeyedColumn:
    """For columns that read one raw feature, ``key``, and are named after it."""

    @property
    def name(self) -> str:
        return self.key

    @property
    def input_keys(self) -> tuple:
        return (self.key,)


class CategoricalColumn(FeatureColumn):
    """A column whose transform is :class:`CategoricalIds` with ``num_buckets`` ids.

    >>> from colonnade.feature_columns import categorical_column_with_identity
    >>> isinstance(categorical_column_with_identity("k", 4), CategoricalColumn)
    True
    """


class DenseColumn(FeatureColumn):
    """A column giving a ``(batch, dimension)`` float tensor through ``dense_output``.

    >>> from colonnade.feature_columns import numeric_column
    >>> x = numeric_column("x", shape=3)
    >>> isinstance(x, DenseColumn), x.dimension
    (True, 3)
    """

    def variable_specs(self) -> tuple:
        """The variables a layer must own for this column (none by default)."""
        return ()


class WrapsCategorical:
    """A column built on one ``categorical_column`` (indicator, embedding): it reads that
    column's keys, and is a sequence column exactly when that one is."""

    @property
    def input_keys(self) -> tuple:
        return self.categorical_column.input_keys

    @property
    def children(self) -> tuple:
        return (self.categorical_column,)

    @property
    def is_sequence(self) -> bool:
        return self.categorical_column.is_sequence


class WrapsSource:
    """A column built on one numeric ``source_column`` (bucketized, piecewise-linear):
    it reads that column's keys."""

    @property
    def input_keys(self) -> tuple:
        return self.source_column.input_keys

    @property
    def children(self) -> tuple:
        return (self.source_column,)

    def parse_spec(self) -> dict:
        return self.source_column.parse_spec()


@dataclass(frozen=True)
class VariableSpec:
    """A variable a layer creates for its columns: ``name`` relative to the layer
    (``x_embedding/embedding_weights``), ``shape``, ``initializer(shape, dtype, rng)``,
    ``trainable``, and an optional checkpoint to load the initial value from.

    >>> from colonnade.feature_columns import categorical_column_with_identity, embedding_column
    >>> spec = embedding_column(categorical_column_with_identity("k", 5), 2).variable_specs()[0]
    >>> spec.name, spec.shape
    ('k_embedding/embedding_weights', (5, 2))
    """

    name: str
    shape: tuple
    initializer: object
    trainable: bool = True
    ckpt_to_load_from: str | None = None
    tensor_name_in_ckpt: str | None = None


# ---------------------------------------------------------------- argument checks


def check_key(key, what: str = "key") -> str:
    if not isinstance(key, str) or not key:
        raise ColumnArgumentError(
            f"{what} must be a string. Expected a non-empty string naming a feature, got {key!r}"
        )
    return key


def check_int(value, what: str, minimum: int | None = None, column: str | None = None) -> int:
    where = f" (column {column!r})" if column else ""
    if value is None:
        raise ColumnArgumentError(f"{what} must be set{where}: give an integer")
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ColumnArgumentError(f"{what} must be an integer{where}, got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} must be at least {minimum}{where}, got {value}")
    return value


def check_type(column: FeatureColumn, key: str, arrow_type: pa.DataType, expected: str, got: str):
    """TypeError unless the feature's value kind (``string``, ``integer``, ...) is expected."""
    if got not in expected.split("|"):
        raise ColumnArgumentError(
            f"column {column.name!r} expects {expected.replace('|', ' or ')} values in feature "
            f"{key!r}, got Arrow type {arrow_type}"
        )
