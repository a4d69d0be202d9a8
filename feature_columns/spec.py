"""``make_parse_example_spec``: the Arrow schema a set of feature columns reads.

TensorFlow's parse spec maps each feature to a ``FixedLenFeature`` or ``VarLenFeature``;
here the same information is an Arrow type: a ``FixedLenFeature([1], float32)`` is a
scalar ``float32`` field, ``FixedLenFeature([k])`` a fixed-size list of ``k``, and a
``VarLenFeature`` (every categorical, weight and sequence feature) a ``list`` field. The
transforms also accept a scalar column wherever a list is expected (one value a row).

>>> from colonnade.feature_columns import (bucketized_column, categorical_column_with_hash_bucket,
...                                        crossed_column, numeric_column)
>>> c = bucketized_column(numeric_column("feature_c"), [0.0, 1.0])
>>> schema = make_parse_example_spec([numeric_column("feature_b"),
...                                   crossed_column(["feature_a", c], 100)])
>>> [(f.name, str(f.type)) for f in schema]
[('feature_a', 'list<item: string>'), ('feature_b', 'float'), ('feature_c', 'float')]
"""

from __future__ import annotations

import pyarrow as pa

from .base import FeatureColumn

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
    return pa.schema([pa.field(k, fields[k]) for k in sorted(fields)])
