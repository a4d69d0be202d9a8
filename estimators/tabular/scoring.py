"""Scores of the zero-configuration models computed from their predictions: the label
values a classifier's probabilities are ordered by, accuracy, and a regressor's MAE, RMSE
and R², over data in memory or streamed batch by batch (memory bounded by a batch).

>>> totals = RegressionTotals()
>>> totals.add(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
>>> totals.add(np.array([3.0]), np.array([2.0]))
>>> {k: round(v, 4) for k, v in totals.summary().items()}
{'mae': 0.6667, 'rmse': 0.8165, 'r2': 0.0}
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .split import in_memory

__all__ = [
    "SCORE_BATCH_ROWS",
    "RegressionTotals",
    "class_ids",
    "classes_of",
    "label_type",
    "labelled_batches",
    "probabilities",
    "with_labels",
]

# Rows per batch when in-memory data is scored in pieces (the canned predict's batch).
SCORE_BATCH_ROWS = 8192


def classes_of(plan, label_type=None) -> np.ndarray:
    """The label values of a classifier's plan, in the order of its class ids (and of
    its probabilities): the label vocabulary (sorted strings), ``[False, True]`` for a
    boolean label (``label_type``, the Arrow type it was fitted on), else ``0..n-1``."""
    if plan.label_vocabulary is not None:
        return np.asarray(list(plan.label_vocabulary), dtype=object)
    if label_type is not None and pa.types.is_boolean(label_type):
        return np.array([False, True])
    return np.arange(plan.n_classes)


def class_ids(plan, column) -> np.ndarray:
    """Class ids ``0..n-1`` of a label column (through the label vocabulary if any;
    -1 for a value outside it)."""
    vocabulary = plan.label_vocabulary
    if vocabulary is None:
        values = np.asarray(column.to_numpy(zero_copy_only=False), np.float64)
        return values.astype(np.int64)
    index = pc.index_in(column.cast(pa.string()), pa.array([str(v) for v in vocabulary]))
    return np.asarray(pc.fill_null(index, -1).to_numpy(zero_copy_only=False), np.int64)


def checked_class_ids(plan, column, classes) -> np.ndarray:
    """:func:`class_ids`, refusing a value that is not one of ``classes``, naming it."""
    ids = class_ids(plan, column)
    bad = (ids < 0) | (ids >= len(classes))
    vocabulary_free = plan.label_vocabulary is None
    if vocabulary_free:
        values = np.asarray(column.to_numpy(zero_copy_only=False), np.float64)
        bad |= values != ids
    if bad.any():
        value = column[int(np.argmax(bad))].as_py()
        kind = "class ids" if vocabulary_free else "label values"
        raise ValueError(
            f"label column {plan.label!r}: {value!r} (in {int(bad.sum())} of {len(ids)} rows "
            f"of a batch) is not one of the {kind} the model was fitted on ({classes.tolist()})"
        )
    return ids


def label_type(data, label: str):
    """The Arrow type of ``data``'s ``label`` column (in memory, or a file's or
    Dataset's schema), or None where no schema tells it."""
    table = in_memory(data)
    if table is not None:
        schema = table.schema
    else:
        from ...data import Dataset

        schema = (data if isinstance(data, Dataset) else Dataset.from_files(data)).schema
    if schema is None or label not in schema.names:
        return None
    return schema.field(label).type


def with_labels(data, label: str, y, what: str):
    """``data`` with ``y`` as its ``label`` column (``y`` given: ``data`` must be in
    memory and not hold the label already), or ``data`` as it is (``y`` None)."""
    if y is None:
        return data
    table = in_memory(data)
    if table is None:
        raise TypeError(
            f"{what}(data, y): y can be joined only to data in memory (a DataFrame or Arrow "
            f"table), got {type(data).__name__}; pass data that holds the label column "
            f"{label!r} and y=None"
        )
    if label in table.column_names:
        raise ValueError(
            f"{what}(data, y): data already holds the label column {label!r}; pass y=None "
            "or drop it"
        )
    values = np.asarray(y)
    if values.ndim != 1 or len(values) != table.num_rows:
        raise ValueError(
            f"{what}(data, y): y must be one label per row, shape ({table.num_rows},); "
            f"got shape {values.shape}"
        )
    return table.append_column(label, pa.array(values))


def labelled_batches(data, label: str, rows: int = SCORE_BATCH_ROWS):
    """The rows of ``data`` that have a label, as Arrow tables: in-memory data in slices
    of ``rows``, a file/glob/list of paths or a ``cn.data.Dataset`` batch by batch as it
    streams. A missing label column is refused, naming it."""
    table = in_memory(data)
    if table is not None:
        tables = (table.slice(start, rows) for start in range(0, max(table.num_rows, 1), rows))
    else:
        from ...data import Dataset

        stream = data if isinstance(data, Dataset) else Dataset.from_files(data)
        tables = (pa.Table.from_batches([b]) for b in stream.record_batches(0))
    for piece in tables:
        if label not in piece.column_names:
            raise ValueError(
                f"the data has no label column {label!r} (its columns: {piece.column_names})"
            )
        piece = piece.filter(pc.is_valid(piece.column(label)))
        if piece.num_rows:
            yield piece


def probabilities(frame, n_classes: int) -> np.ndarray:
    """The ``(n, n_classes)`` float64 probabilities of a canned classifier's prediction
    DataFrame (its ``probabilities_<i>`` columns, or one column of arrays)."""
    names = [f"probabilities_{i}" for i in range(n_classes)]
    if all(name in frame.columns for name in names):
        return frame[names].to_numpy(np.float64)
    return np.stack(frame["probabilities"].to_numpy()).astype(np.float64)


class RegressionTotals:
    """Running sums of a regression's errors over batches: ``summary()`` gives the mean
    absolute error, the root mean squared error and R² (1 - squared error / the labels'
    squared deviation from their mean, scikit-learn's ``r2_score``; the labels' spread is
    merged batch by batch, Chan et al.'s update, so large labels lose no precision)."""

    def __init__(self):
        self.rows, self.absolute, self.squared = 0, 0.0, 0.0
        self.mean, self.spread = 0.0, 0.0

    def add(self, labels: np.ndarray, predictions: np.ndarray) -> None:
        labels = np.asarray(labels, np.float64).ravel()
        errors = labels - np.asarray(predictions, np.float64).ravel()
        n = len(labels)
        if not n:
            return
        self.absolute += float(np.abs(errors).sum())
        self.squared += float(np.square(errors).sum())
        mean = float(labels.mean())
        spread = float(np.square(labels - mean).sum())
        total = self.rows + n
        delta = mean - self.mean
        self.spread += spread + delta * delta * self.rows * n / total
        self.mean += delta * n / total
        self.rows = total

    def summary(self) -> dict:
        """``{"mae", "rmse", "r2"}``; for constant labels R² is 1 when predicted exactly
        and 0 otherwise, as ``r2_score`` gives."""
        if not self.rows:
            raise ValueError("no rows with a label to score")
        if self.spread > 0:
            r2 = 1.0 - self.squared / self.spread
        else:
            r2 = 1.0 if self.squared == 0 else 0.0
        return {
            "mae": self.absolute / self.rows,
            "rmse": float(np.sqrt(self.squared / self.rows)),
            "r2": float(r2),
        }
