"""Datasets made the way TF programs make them, whose ``map`` works as TF's does.

``from_tensor_slices``, ``from_generator``, ``TextLineDataset``, ``TFRecordDataset`` and
``list_files`` give datasets with a *view* (one of the ``as_*`` functions here: what a
batch is to a map function). Their ``map`` function is TF's per-element function run on
a batch of elements at once (the rows of one reader batch; :func:`element_map`):

- it receives what TF's would, a batch deep: a real ``dict`` of numpy arrays (one row
  per element; a fixed-size list column as a 2-D array), so ``features.pop("label")``
  works; on a labelled stream ``(features_dict, labels)``; a ``TextLineDataset``'s lines
  as a one-column RecordBatch (``decode_csv`` takes it); a ``TFRecordDataset``'s
  serialized records as a binary Arrow array (``parse_single_example`` and
  ``parse_example`` take it); ``list_files``' names as a numpy array;
- it may return a dict of columns (arrays of any rank, colonnade ``Tensor`` s, Arrow
  arrays), one array or Tensor (on a one-column stream: that column again), a
  RecordBatch, or a ``(features, labels)`` pair, which labels the dataset.

TF traces a map function once to learn what it returns; here it is called once on an
empty batch of the stream's schema (known through earlier maps by calling each on an
empty batch too). A function that cannot take an empty batch is mapped as one that
returns one batch.

>>> import numpy as np
>>> from colonnade.data import Dataset
>>> ds = Dataset.from_tensor_slices({"x": np.arange(4.0), "y": [0, 1, 0, 1]})
>>> def split(features):
...     label = features.pop("y")
...     return {"x2": np.stack([features["x"], features["x"] ** 2], axis=1)}, label
>>> features, labels = next(iter(ds.map(split).batch(2)))
>>> features.column("x2").to_pylist(), labels.tolist()
([[0.0, 0.0], [1.0, 1.0]], [0, 1])
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np
import pyarrow as pa

from .batches import to_record_batch
from .columns import label_values
from .pair_maps import pair_of
from .plan import Map, SameSchema
from .tensor_slices import is_whole_features, mark_whole_features

__all__ = [
    "element_map",
    "as_batch_view",
    "as_dict",
    "as_records",
    "as_values",
    "traced_schema",
]


def as_dict(batch: pa.RecordBatch) -> dict:
    """A batch as TF's element dict, a batch deep: ``{name: numpy array}`` (a fixed-size
    list column as an ``(n, width)`` array, strings as objects); a variable-length list
    column stays an Arrow array (TF's ragged values have no numpy form). The batch of
    ``from_tensor_slices`` given one array (not a dict) is that array, as TF's element
    is the one tensor (:func:`.tensor_slices.is_whole_features`)."""
    if is_whole_features(batch.schema):
        return label_values(batch.column(0))
    out = {}
    for name, column in zip(batch.schema.names, batch.columns):
        kind = column.type
        if pa.types.is_list(kind) or pa.types.is_large_list(kind):
            out[name] = column
        else:
            out[name] = label_values(column)
    return out


def as_batch_view(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch itself (what a ``TextLineDataset``'s map function takes)."""
    return batch


def as_values(batch: pa.RecordBatch) -> np.ndarray:
    """The one column as numpy (what a map of ``list_files``' names takes)."""
    return label_values(batch.column(0))


def as_records(batch: pa.RecordBatch) -> pa.Array:
    """The one column of serialized records (what a ``TFRecordDataset``'s map takes)."""
    return batch.column(0)


def traced_schema(node):
    """``node``'s schema, or, after maps, the schema their functions give on empty
    batches (TF's trace); None when a function cannot take an empty batch."""
    if node.schema is not None:
        return node.schema
    if isinstance(node, SameSchema):
        return traced_schema(node.child)
    if not isinstance(node, Map):
        return None
    schema = traced_schema(node.child)
    if schema is None or node.label is not None:
        return None
    try:
        return to_record_batch(node.fn(pa.RecordBatch.from_pylist([], schema=schema))).schema
    except Exception:  # a function written for non-empty batches: no trace
        return None


def element_map(node, fn, view, label, single_label) -> tuple:
    """``(node, label, view)`` of TF's ``map(fn)`` over ``node``, whose batches ``view``
    turns into what ``fn`` takes (``label``: the dataset's label names, or None): the
    mapped plan, the label it then has (a pair's, on an unlabelled stream) and the view
    of what the next map receives."""
    if label is not None:
        return Map(node, _labelled(fn), label, single_label), label, as_dict
    viewed = _viewed(fn, view)
    probe = _trace(viewed, traced_schema(node))
    paired, pair_label = pair_of(viewed, probe)
    if pair_label is not None:
        return Map(node, paired), pair_label, as_dict
    next_view = as_dict if view is as_dict or isinstance(probe, Mapping) else as_batch_view
    return Map(node, viewed), None, next_view


def _trace(fn, schema):
    """What ``fn`` returns on an empty batch of ``schema`` (None when it cannot say)."""
    if schema is None:
        return None
    try:
        return fn(pa.RecordBatch.from_pylist([], schema=schema))
    except Exception:  # a function written for non-empty batches: no trace
        return None


def _viewed(fn, view):
    """``fn`` on ``view(batch)``, its result as columns (one array: the batch's one column)."""

    @functools.wraps(fn)
    def mapped(batch):
        result = fn(view(batch))
        if isinstance(result, tuple) and len(result) == 2 and is_whole_features(batch.schema):
            return _named(result[0], batch), result[1]  # one tensor's (features, labels)
        return _named(result, batch)

    return mapped


def _labelled(fn):
    @functools.wraps(fn)
    def mapped(features, labels):
        result = fn(as_dict(features), labels)
        if isinstance(result, tuple) and len(result) == 2:
            return _named(result[0], features), result[1]
        return result

    return mapped


def _named(result, batch):
    """A bare array or Tensor returned for a one-column batch becomes that column, under
    its name (still the whole features, when it was). Anything else is returned as it is
    (``to_record_batch`` checks it)."""
    whole = is_whole_features(batch.schema)
    if isinstance(result, (Mapping, tuple, pa.RecordBatch, pa.Table)) or hasattr(result, "to_dict"):
        return result
    if isinstance(result, (np.ndarray, pa.Array, pa.ChunkedArray)) or hasattr(result, "__array__"):
        if batch.num_columns != 1:
            raise TypeError(
                f"Dataset.map: the function returned one {type(result).__name__} for elements "
                f"of {batch.num_columns} columns {batch.schema.names}; return a dict of "
                "columns (or a (features, labels) pair)"
            )
        named = {batch.schema.names[0]: result}
        return mark_whole_features(to_record_batch(named)) if whole else named
    return result
