"""What the adapters accept as ``X`` and ``y``, checked as scikit-learn checks them, and
the feature columns built from ``X`` when none are given.

``X`` may be anything scikit-learn's ``check_array`` takes for tabular data (an array,
a memmap, a list of rows, a DataFrame) or an Arrow table/batch. Feature columns read
columns by name: a DataFrame's or table's own names, else ``feature_names_in_`` (when
the model was fitted on named columns), else ``x0``, ``x1``, ... (scikit-learn's
``get_feature_names_out`` convention). Numeric arrays are checked for NaN and infinity
with scikit-learn's messages; DataFrames and tables keep their types (strings,
categories, timestamps) and the feature columns check their values.

>>> import numpy as np
>>> from sklearn.linear_model import LinearRegression
>>> table = tabular_input(LinearRegression(), np.array([[1.0, 2.0]]), reset=True)
>>> table.column_names, table.num_rows
(['x0', 'x1'], 1)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, column_or_1d, validate_data

from ..data.polars_frames import as_arrow, is_polars
from ..feature_columns import infer, numeric_column, standardize

__all__ = [
    "build_columns",
    "checked_classes",
    "checked_targets",
    "column_names",
    "tabular_input",
]

# What check_array accepts for a numeric X: float32 stays float32, the rest (ints,
# bools, objects holding numbers) becomes float64, as scikit-learn's linear models do.
NUMERIC_DTYPES = (np.float64, np.float32)


def column_names(estimator, n_features: int) -> list[str]:
    """The names of an unnamed ``X``'s columns: ``feature_names_in_`` when the model was
    fitted on named columns, else ``x0 ... x{n-1}``."""
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None and len(names) == n_features:
        return [str(n) for n in names]
    return [f"x{i}" for i in range(n_features)]


def _is_frame(X) -> bool:
    return isinstance(X, (pd.DataFrame, pa.Table, pa.RecordBatch))


def _check_not_empty(estimator, X) -> None:
    """scikit-learn's ``check_array`` errors for a frame without rows or columns."""
    rows, columns = X.shape
    name = type(estimator).__name__
    if rows == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is "
            f"required by {name}."
        )
    if columns == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
            f"required by {name}."
        )


def _array(estimator, X, reset: bool):
    """A 2-D array from any array-like, numeric when it can be (NaN and inf refused),
    else of objects (strings: the feature columns are inferred as for a DataFrame)."""
    try:
        return validate_data(estimator, X, reset=reset, dtype=NUMERIC_DTYPES)
    except ValueError:
        dtype = np.asarray(X).dtype if isinstance(X, (list, tuple)) else getattr(X, "dtype", None)
        if dtype is None or dtype.kind not in "OUS":
            raise  # not text: scikit-learn's error stands
        return validate_data(estimator, X, reset=reset, dtype=None)


def tabular_input(estimator, X, *, reset: bool) -> pa.Table:
    """``X`` as an Arrow table with named columns, after scikit-learn's checks:
    ``reset=True`` (fit) records ``n_features_in_`` and ``feature_names_in_``,
    ``reset=False`` (predict) checks ``X`` against them, with scikit-learn's messages."""
    X = as_arrow(X, "X")  # a polars DataFrame: its Arrow memory
    if isinstance(X, pa.RecordBatch):
        X = pa.Table.from_batches([X])
    if _is_frame(X):
        validate_data(estimator, X, reset=reset, skip_check_array=True)
        _check_not_empty(estimator, X)
        if isinstance(X, pd.DataFrame):
            names = [str(c) for c in X.columns]
            if any(not isinstance(c, str) for c in X.columns):
                names = column_names(estimator, X.shape[1])
            X = pa.Table.from_pandas(X.set_axis(names, axis=1), preserve_index=False)
        return X
    array = _array(estimator, X, reset)
    names = column_names(estimator, array.shape[1])
    if array.dtype == object:
        frame = pd.DataFrame(array, columns=names).infer_objects()
        return pa.Table.from_pandas(frame, preserve_index=False)
    return pa.table({name: array[:, i] for i, name in enumerate(names)})


def _labels(estimator, y, n_rows, numeric: bool) -> np.ndarray:
    if y is None:
        raise ValueError(
            f"This {type(estimator).__name__} estimator requires y to be passed, but the "
            "target y is None."
        )
    if is_polars(y):  # a Series (or a frame of outputs) as numpy; a LazyFrame is refused
        y = as_arrow(y, "y") and y.to_numpy()
    y = check_array(
        y,
        ensure_2d=False,
        dtype="numeric" if numeric else None,
        input_name="y",
        estimator=estimator,
    )
    check_consistent_length(np.empty((n_rows, 0)), y)
    return y


def checked_classes(estimator, y, n_rows: int) -> np.ndarray:
    """A classifier's ``y``: one discrete label per row (a column ``(n, 1)`` is raveled
    with scikit-learn's DataConversionWarning); continuous or multi-output targets are
    refused with scikit-learn's "Unknown label type" error."""
    y = column_or_1d(_labels(estimator, y, n_rows, numeric=False), warn=True)
    check_classification_targets(y)
    return y


def checked_targets(estimator, y, n_rows: int, label_dimension: int) -> np.ndarray:
    """A regressor's ``y`` as float32: ``(n,)`` for ``label_dimension=1`` (a column
    ``(n, 1)`` raveled with a DataConversionWarning), else ``(n, label_dimension)``."""
    y = _labels(estimator, y, n_rows, numeric=True)
    if label_dimension == 1:
        y = column_or_1d(y, warn=True)
    elif y.ndim != 2 or y.shape[1] != label_dimension:
        raise ValueError(
            f"y must have shape (n_samples, {label_dimension}) for "
            f"label_dimension={label_dimension}; got {y.shape}"
        )
    return y.astype(np.float32)


def _is_number(field: pa.Field) -> bool:
    t = field.type
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)


def _standardized(table: pa.Table, name: str):
    """A numeric column standardized by ``name``'s mean and standard deviation in
    ``table`` (a constant column keeps its scale: stddev 1)."""
    values = table.column(name).cast(pa.float64()).to_numpy(zero_copy_only=False)
    finite = values[np.isfinite(values)]
    mean = float(finite.mean()) if finite.size else 0.0
    std = float(finite.std()) if finite.size else 0.0
    return numeric_column(name, normalizer_fn=standardize(mean, std if std > 0 else 1.0))


def build_columns(table: pa.Table, label, task: str, seed: int) -> tuple[list, list]:
    """``(linear, dnn)`` feature columns for ``table`` when the user gave none.

    All-numeric data (what arrays become): one standardized ``numeric_column`` per column,
    in both lists, so learning rates suit any unit. Anything else (strings, categories,
    timestamps): colonnade's zero-configuration rules (:func:`colonnade.feature_columns.infer`,
    given ``label``, the encoded targets, and ``task``), its wide and deep columns.
    """
    if all(_is_number(f) for f in table.schema):
        columns = [_standardized(table, name) for name in table.column_names]
        return columns, list(columns)
    name = "label"
    while name in table.column_names:
        name = "_" + name
    plan = infer(table.append_column(name, pa.array(label)), name, task=task, seed=seed)
    if not plan.linear and not plan.dnn:
        raise ValueError(
            "no usable feature in X: the zero-configuration rules dropped every column "
            f"({'; '.join(d.line() for d in plan.decisions)}); pass feature_columns"
        )
    return list(plan.linear), list(plan.dnn)
