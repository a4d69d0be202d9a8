"""``make_parse_example_spec``: the Arrow schema a set of feature columns reads.

TensorFlow's parse spec maps each feature to a ``FixedLenFeature`` or ``VarLenFeature``;
here the same information is an Arrow type: a ``FixedLenFeature([1], float32)`` is a
scalar ``float32`` field, ``FixedLenFeature([k])`` a fixed-size list of ``k``, and a
``VarLenFeature`` (every categorical, weight and sequence feature) a ``list`` field. The
transforms also accept a scalar column wherever a list is expected (one value a row). A
numeric column's ``default_value`` rides in its field's metadata
(``colonnade.data.parse_spec.DEFAULT_VALUE_METADATA``), so that ``parse_example`` fills a
missing feature with it, as TF's ``FixedLenFeature(..., default_value)`` does.

>>> from colonnade.feature_columns import (bucketized_column, categorical_column_with_hash_bucket,
...                                        crossed_column, numeric_column)
>>> c = bucketized_column(numeric_column("feature_c"), [0.0, 1.0])
>>> schema = make_parse_example_spec([numeric_column("feature_b"),
...                                   crossed_column(["feature_a", c], 100)])
>>> [(f.name, str(f.type)) for f in schema]
[('feature_a', 'list<item: string>'), ('feature_b', 'float'), ('feature_c', 'float')]
"""

from __future__ import annotations

import dataclasses
import json

import pyarrow as pa

from ..data.parse_spec import DEFAULT_VALUE_METADATA
from .base import FeatureColumn
from .numeric import NumericColumn

__all__ = ["make_parse_example_spec"]


def make_parse_example_spec(feature_columns) -> pa.Schema:
    """The ``pyarrow.Schema`` of the raw features ``feature_columns`` read, fields sorted by
    name. A feature two columns read with different types is an error.

    >>> from colonnade.feature_columns import numeric_column
    >>> make_parse_example_spec([numeric_column("price")]).names
    ['price']
    """
    fields: dict = {}
    owners: dict = {}
    defaults: dict = {}
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(
                "All feature_columns must be FeatureColumn instances: make_parse_example_spec "
                "takes feature columns, got "
                f"{type(column).__name__}: {column!r}"
            )
        for key, arrow_type in column.parse_spec().items():
            if key in fields and fields[key] != arrow_type:
                raise ValueError(
                    f"feature_columns contain different parse_spec for key {key}: "
                    f"feature {key!r} is read as {fields[key]} by column {owners[key]!r} but as "
                    f"{arrow_type} by column {column.name!r}"
                )
            fields[key] = arrow_type
            owners.setdefault(key, column.name)
        for key, default in _numeric_defaults(column).items():
            if defaults.setdefault(key, default) != default:
                raise ValueError(
                    f"feature_columns contain different parse_spec for key {key}: default "
                    f"{defaults[key]} and {default} (column {column.name!r})"
                )
    return pa.schema([_field(k, fields[k], defaults.get(k)) for k in sorted(fields)])


def _field(key, arrow_type, default) -> pa.Field:
    """The schema field; a numeric column's default rides in its metadata, so that
    ``parse_example`` fills a missing feature with it, as TF's spec does."""
    if default is None:
        return pa.field(key, arrow_type)
    return pa.field(key, arrow_type, metadata={DEFAULT_VALUE_METADATA: json.dumps(default)})


def _numeric_defaults(column) -> dict:
    """``{key: flat default}`` of the numeric columns ``column`` reads, itself or as a
    source (a bucketized column, a cross of one): TF's spec takes them along too."""
    if isinstance(column, NumericColumn):
        return {} if column.default_value is None else {column.key: list(column.flat_default)}
    found = {}
    for field in dataclasses.fields(column):
        value = getattr(column, field.name)
        for part in value if isinstance(value, tuple) else (value,):
            if isinstance(part, FeatureColumn):
                found.update(_numeric_defaults(part))
    return found
