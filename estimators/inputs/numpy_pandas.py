"""TF 1's ``tf.compat.v1.estimator.inputs``: ``numpy_input_fn`` and ``pandas_input_fn``.

Each returns an ``input_fn`` for ``train`` / ``evaluate`` / ``predict`` that feeds the
arrays (or the DataFrame's columns) in batches: ``num_epochs`` passes (``None``: forever),
``batch_size`` rows a batch, the passes running on into each other as TF's queue runs on,
the last batch smaller when the passes end. TF shuffles through a queue of
``queue_capacity`` rows; here a shuffled pass is a full permutation of the in-memory rows
(every row equally likely at every position), and ``queue_capacity``/``num_threads`` are
accepted for TF's signature.

>>> import numpy as np
>>> input_fn = numpy_input_fn({"age": np.arange(5.0)}, np.arange(5), batch_size=2, shuffle=False)
>>> [labels.tolist() for _, labels in input_fn()]
[[0, 1], [2, 3], [4]]
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...data.dataset import Dataset
from ...data.polars_frames import as_arrow, is_polars

__all__ = ["numpy_input_fn", "pandas_input_fn"]

# The signatures' defaults are TF's (tensorflow_estimator/.../inputs/numpy_io.py,
# pandas_io.py): 128 rows a batch, one epoch, a queue of 1000, the label named "target".


def _check_shuffle(shuffle) -> None:
    if not isinstance(shuffle, bool):
        raise ValueError(
            "shuffle must be provided and explicitly set as boolean "
            f"(it is recommended to set it as True for training); got {shuffle}"
        )


def _batches(dataset: Dataset, batch_size, num_epochs, shuffle) -> Dataset:
    if shuffle:
        dataset = dataset.shuffle(None)
    return dataset.repeat(num_epochs).batch(batch_size)


def _checked_features(x) -> dict:
    """TF's ``_validate_and_convert_features``, for a dict of arrays: one array ``x``,
    which TF feeds as a features tensor, is refused (feature columns read a dict)."""
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
        raise TypeError(
            f"x is one array of shape {x.shape}: TF feeds it as a features tensor, which "
            "feature columns cannot read; pass a dict such as {'x': x} and a "
            "numeric_column('x', shape=...)"
        )
    if not isinstance(x, Mapping):
        raise TypeError(f"x must be a dict or array; got {type(x).__name__}")
    if not x:
        raise ValueError("x cannot be an empty dict")
    return {key: np.asarray(value) for key, value in x.items()}


def _checked_labels(features: dict, y):
    if y is None:
        return None
    if isinstance(y, Mapping):
        if not y:
            raise ValueError("y cannot be empty dict, use None instead.")
        duplicate_keys = sorted(set(features) & set(y))
        if duplicate_keys:
            raise ValueError(
                f"{len(duplicate_keys)} duplicate keys are found in both x and y: {duplicate_keys}"
            )
        return {key: np.asarray(value) for key, value in y.items()}
    return np.asarray(y)


def _check_lengths(features: dict, labels) -> None:
    shapes_of_x = {key: value.shape for key, value in features.items()}
    if labels is None:
        shape_of_y = None
        lengths = {len(value) for value in features.values()}
    elif isinstance(labels, dict):
        shape_of_y = {key: value.shape for key, value in labels.items()}
        lengths = {len(value) for value in (*features.values(), *labels.values())}
    else:
        shape_of_y = labels.shape
        lengths = {len(value) for value in (*features.values(), labels)}
    if len(lengths) != 1:
        raise ValueError(
            "Length of tensors in x and y is mismatched. All elements in x and y must have "
            f"the same length.\nShapes in x: {shapes_of_x}\nShapes in y: {shape_of_y}\n"
        )


def numpy_input_fn(
    x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1
):
    """TF's ``numpy_input_fn``: an ``input_fn`` feeding the dict of arrays ``x`` (one row
    per entry along each array's first axis) with the labels ``y`` (an array, a dict of
    arrays, or ``None`` for ``predict``). ``shuffle`` must be given as a bool, as TF
    requires; ``x`` and ``y`` are checked when the ``input_fn`` is called, as in TF.

    >>> import numpy as np
    >>> fn = numpy_input_fn({"x": np.ones((3, 2))}, batch_size=3, shuffle=False)
    >>> next(iter(fn())).num_rows
    3
    """
    _check_shuffle(shuffle)

    def input_fn() -> Dataset:
        features = _checked_features(x)
        labels = _checked_labels(features, y)
        _check_lengths(features, labels)
        slices = features if labels is None else (features, labels)
        return _batches(Dataset.from_tensor_slices(slices), batch_size, num_epochs, shuffle)

    return input_fn


def _pandas_of_polars(data, what):
    """A polars DataFrame or Series as pandas (a copy, with a ``RangeIndex``: rows match
    by position, as polars has no index); anything else unchanged."""
    if not is_polars(data):
        return data
    return as_arrow(data, what).to_pandas()


def pandas_input_fn(
    x,
    y=None,
    batch_size=128,
    num_epochs=1,
    shuffle=None,
    queue_capacity=1000,
    num_threads=1,
    target_column="target",
):
    """TF's ``pandas_input_fn``: an ``input_fn`` feeding the DataFrame ``x``'s columns as
    features, with ``y`` (a Series, or a DataFrame of several label columns; its index
    must match ``x``'s) as labels, or none for ``predict``. Polars frames and Series are
    taken too, converted to pandas (their rows match by position).

    >>> import pandas as pd
    >>> fn = pandas_input_fn(pd.DataFrame({"x": [1.0, 2.0]}), pd.Series([0, 1]), shuffle=False)
    >>> [labels.tolist() for _, labels in fn()]
    [[0, 1]]
    """
    _check_shuffle(shuffle)
    if not isinstance(target_column, str):
        raise TypeError("target_column must be a string type")
    x, y = _pandas_of_polars(x, "x"), _pandas_of_polars(y, "y")
    if not isinstance(x, pd.DataFrame):
        raise TypeError(f"x must be a pandas DataFrame; got {type(x).__name__}")
    frame, label = x, None
    if y is not None:
        if target_column in x:
            raise ValueError(
                f"Cannot use name {target_column} for target column: DataFrame already has a "
                f"column with that name: {x.columns}"
            )
        if not np.array_equal(x.index, y.index):
            raise ValueError(
                f"Index for x and y are mismatched.\nIndex for x: {x.index}\n"
                f"Index for y: {y.index}\n"
            )
        targets = y if isinstance(y, pd.DataFrame) else y.to_frame(target_column)
        clash = sorted(set(targets.columns) & set(x.columns))
        if clash:
            raise ValueError(f"{clash} are columns of both x and y")
        frame = pd.concat([x, targets], axis=1)
        label = target_column if isinstance(y, pd.Series) else list(targets.columns)

    def input_fn() -> Dataset:
        dataset = Dataset.from_pandas(frame, label=label)
        return _batches(dataset, batch_size, num_epochs, shuffle)

    return input_fn
