"""Errors for an input a canned estimator cannot use as given, each saying what was
passed and what to do for that kind of input: features as a numpy array or a dict (a
canned model reads its features by column name), and data with no label where training
or evaluation needs one.

>>> import pandas as pd
>>> err = missing_label_error(pd.DataFrame({"x": [1.0], "y": [0]}), "fit", ["x"])
>>> print(err)  # doctest: +NORMALIZE_WHITESPACE
fit needs labels, and got a pandas DataFrame of 1 rows (columns ['x', 'y']) with no
label: pass label='<column>' naming its label column (of its columns, no feature column
reads ['y']), or the labels themselves, label=y (an array, Series or list, one per row)
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow as pa

from ... import data as cn_data
from ...data.plan import in_memory
from ...data.sources import FileSource, first_non_number, first_non_number_in
from ...data.tfrecord_source import TFRecordSource

__all__ = ["array_features_error", "describe_input", "located_error", "missing_label_error"]

# Column names shown in a message at most.
SHOWN_COLUMNS = 12


def _names(names) -> str:
    names = list(names)
    more = f" and {len(names) - SHOWN_COLUMNS} more" if len(names) > SHOWN_COLUMNS else ""
    return f"{names[:SHOWN_COLUMNS]}{more}"


def describe_input(data) -> str:
    """What ``data`` is, in a few words, for a message."""
    if isinstance(data, pd.DataFrame):
        return f"a pandas DataFrame of {len(data)} rows (columns {_names(data.columns)})"
    if isinstance(data, (pa.Table, pa.RecordBatch)):
        kind = type(data).__name__
        return f"a pyarrow {kind} of {data.num_rows} rows (columns {_names(data.schema.names)})"
    if isinstance(data, np.ndarray):
        return f"a numpy array of shape {data.shape}"
    if isinstance(data, dict):
        return f"a dict of {len(data)} arrays (keys {_names(data)})"
    if isinstance(data, (str, os.PathLike)):
        return f"the file(s) {os.fspath(data)!r}"
    if isinstance(data, (list, tuple)) and data and all(isinstance(p, str) for p in data):
        return f"the files {_names(data)}"
    if isinstance(data, cn_data.Dataset):
        return repr(data)
    if callable(data):
        return f"the input_fn {getattr(data, '__name__', type(data).__name__)}"
    return f"a {type(data).__module__}.{type(data).__name__}"


def array_features_error(data, label, feature_keys) -> TypeError:
    """Features given as a numpy array or a dict of arrays, which a canned estimator's
    ``fit``/``evaluate``/``predict`` do not take: they read columns by name."""
    keys = sorted(feature_keys) if feature_keys else None
    labelled = label is not None and not isinstance(label, str)
    with_label = ", label=y" if labelled else ""
    if isinstance(data, dict):
        return TypeError(
            f"features given as {describe_input(data)}: pass them as a DataFrame, "
            f"fit(pd.DataFrame(features){with_label or ', label=...'}), or TF style, an "
            "input_fn returning cn.data.Dataset.from_tensor_slices((features, labels))"
            ".batch(n)"
        )
    wanted = f"by name ({keys})" if keys else "by name"
    width = data.shape[1] if data.ndim == 2 else None
    names = repr(keys) if keys and width == len(keys) else "[...]"
    example = f"pd.DataFrame(X, columns={names})"
    shape_note = ""
    if keys and width is not None and width != len(keys):
        shape_note = f" (the array has {width} columns, the feature columns read {len(keys)})"
    return TypeError(
        f"features given as {describe_input(data)}: a canned estimator reads its features "
        f"{wanted}, and an array has no column names{shape_note}. Pass a DataFrame of those "
        f"columns, e.g. {example} with the array's columns in that order{with_label}; or "
        "use colonnade.sklearn's estimators, which take arrays as they are"
    )


def _scan_source(dataset):
    """The source a Dataset reads (a table, files...), under its steps; None if none."""
    node = dataset.plan
    while getattr(node, "source", None) is None:
        node = getattr(node, "child", None)
        if node is None:
            return None
    return node.source


def _column_names(data):
    if isinstance(data, pd.DataFrame):
        return [str(c) for c in data.columns]
    if isinstance(data, (pa.Table, pa.RecordBatch)):
        return list(data.schema.names)
    try:
        if isinstance(data, (str, os.PathLike, list, tuple)):
            return list(cn_data.Dataset.from_files(data).schema.names)
    except (OSError, ValueError, TypeError, pa.ArrowException):
        return None  # the read itself will say what is wrong
    return None


def _candidates(names, feature_keys) -> str:
    """Where the label column may be among ``names``: those no feature column reads."""
    if names is None:
        return ""
    unread = [n for n in names if n not in set(feature_keys or ())]
    if unread:
        return f" (of its columns, no feature column reads {_names(unread)})"
    return f" (the data holds no other column: feature columns read each of {_names(names)})"


def missing_label_error(data, verb, feature_keys) -> ValueError:
    """``verb`` (``"fit"``, ``"evaluate"``) got ``data`` with no label: what to pass, for
    that kind of input, with the columns no feature column reads as the candidates. A
    ``Dataset`` is described by the rows it reads (a DataFrame passed to ``evaluate``
    arrives as one)."""
    values = ", or the labels themselves, label=y (an array, Series or list, one per row)"
    if isinstance(data, cn_data.Dataset):
        source = _scan_source(data)
        if source is None:
            got, names, in_memory_rows = repr(data), None, False
        else:
            names = list(source.schema.names)
            got = f"{source.describe()}, columns {_names(names)}"
            in_memory_rows = in_memory(data.plan)
        return ValueError(
            f"{verb} needs labels, and its input ({got}) has none: pass label='<column>' to "
            f"{verb} naming its label column{_candidates(names, feature_keys)}"
            + (values if in_memory_rows else "")
            + "; a cn.data.Dataset may also be built with label='<column>'"
        )
    if callable(data):
        return ValueError(
            f"{verb} needs labels, and {describe_input(data)} gave features only: return "
            "(features, labels) batches from it, or a cn.data.Dataset built with "
            "label='<column>'"
        )
    in_memory_data = isinstance(data, (pd.DataFrame, pa.Table, pa.RecordBatch))
    return ValueError(
        f"{verb} needs labels, and got {describe_input(data)} with no label: pass "
        f"label='<column>' naming its label column"
        f"{_candidates(_column_names(data), feature_keys)}" + (values if in_memory_data else "")
    )


def _is_text(type_) -> bool:
    """Text, a dictionary of text, or lists of them (a TFRecord feature)."""
    while (
        pa.types.is_list(type_)
        or pa.types.is_large_list(type_)
        or (pa.types.is_fixed_size_list(type_))
    ):
        type_ = type_.value_type
    if pa.types.is_dictionary(type_):
        type_ = type_.value_type
    return pa.types.is_string(type_) or pa.types.is_large_string(type_)


def _text_for_numbers(network, features) -> str | None:
    """The first feature the network reads as numbers that ``features`` holds as text."""
    try:
        from ...feature_columns.spec import make_parse_example_spec

        spec = make_parse_example_spec(network.feature_columns)
    except (AttributeError, TypeError, ValueError):  # a model_fn's network, or no columns
        return None
    names = set(features.schema.names) if isinstance(features, pa.RecordBatch) else set()
    for field in spec:
        numeric = pa.types.is_integer(field.type) or pa.types.is_floating(field.type)
        if numeric and field.name in names and _is_text(features.schema.field(field.name).type):
            return field.name
    return None


def _row_in(source, name, row) -> str:
    """Row ``row`` (from 0) of the unit ``name`` of ``source``, as its reader counts."""
    if isinstance(source, TFRecordSource):
        return f"'{name}', record {row} (from 0)"
    if not isinstance(source, FileSource):
        return f"the {name}, row {row} (from 0)"
    if source.format == "json":
        return f"'{name}', line {row + 1}"
    if source.format == "csv":
        return f"'{name}', row {row} (from 0, the header not counted)"
    return f"'{name}', row {row} (from 0)"


def located_error(err, network, features, dataset):
    """``err`` (a feature column refusing a batch) again, with where its culprit is: the
    file (or table), row and value of the first text value in a column the network reads
    as numbers, found by reading that column of ``dataset``'s source again; None when
    that is not what went wrong (``err`` stands as it is)."""
    key = _text_for_numbers(network, features)
    if key is None:
        return None
    source = _scan_source(dataset) if isinstance(dataset, cn_data.Dataset) else None
    found = None
    if source is not None:
        try:
            found = first_non_number(source, key)
        except (OSError, ValueError, TypeError, KeyError, pa.ArrowException):
            found = None  # the source cannot be read again: the batch still tells
    if found is None:
        in_batch = first_non_number_in(features.column(features.schema.get_field_index(key)))
        if in_batch is None:
            return None
        row, value = in_batch
        where = f"row {row} of the batch ({features.num_rows} rows)"
    else:
        name, row, value = found
        where = _row_in(source, name, row)
    return type(err)(
        f"{err}: {where} holds {value!r}, not a number, in column {key!r}; fix or drop "
        "that value (one such value makes a CSV or JSON file's whole column text), or read "
        "the column with a categorical column"
    )
