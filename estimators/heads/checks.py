"""What a head checks and converts of its arguments (``n_classes``, ``thresholds``,
``loss_reduction``, ``loss_fn``, ``weight_column``) and of a batch (labels, logits and
weights as arrays of the shapes the loss and metrics work on), each refusal in TF's words
naming what was expected and what was given."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pyarrow as pa

from ...core import Reduction, to_host
from ...core.autodiff import value_of
from ...data.columns import label_values


class LabelTypeError(ValueError, TypeError):
    """Labels of a type the head cannot use (strings without a ``label_vocabulary``,
    non-numbers for a regression): TF's ``ValueError`` ("Labels dtype should be
    integer"); also the ``TypeError`` colonnade raised before, so either handler works."""


def as_column(values, name="labels"):
    """``values`` as a ``(batch, 1)`` array; a ``(batch,)`` array gains its column."""
    values = np.asarray(values)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2:
        raise ValueError(f"{name} must have shape (batch,) or (batch, 1); got {values.shape}")
    return values


def check_thresholds(thresholds) -> tuple:
    """A head's extra metric ``thresholds`` as floats, each in (0, 1) as TF requires."""
    thresholds = tuple(float(t) for t in thresholds or ())
    bad = [t for t in thresholds if not 0.0 < t < 1.0]
    if bad:
        raise ValueError(
            f"thresholds not in (0, 1): thresholds must be in (0, 1) range. Given: {bad[0]}"
        )
    return thresholds


def vocabulary_ids(names, label_vocabulary):
    """The class ids (int64, the shape of ``names``) of labels named by
    ``label_vocabulary``; a name not in it is a ValueError naming it."""
    names = np.asarray(names)
    uniques, inverse = np.unique(names.reshape(-1).astype(str), return_inverse=True)
    index = {v: i for i, v in enumerate(label_vocabulary)}
    unknown = [str(u) for u in uniques if u not in index]
    if unknown:
        raise ValueError(
            f"labels {unknown[:5]} are not in label_vocabulary {list(label_vocabulary)}"
        )
    ids = np.array([index[u] for u in uniques], np.int64)[inverse.reshape(-1)]
    return ids.reshape(names.shape)


def check_n_classes(n_classes) -> int:
    """``n_classes`` as an int: ``None`` or a non-integer is TF's ``ValueError``."""
    if n_classes is None:
        raise ValueError("n_classes cannot be None")
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)):
        raise ValueError(f"n_classes must be an integer, got {n_classes!r}")
    return int(n_classes)


def refuse_non_finite(values, what, meaning):
    """NaN or inf would train silently to NaN weights: refuse them, saying how many."""
    bad = ~np.isfinite(values)
    if bad.any():
        raise ValueError(
            f"{what} have {int(bad.sum())} NaN or infinite values (a NaN is a {meaning}); "
            "drop or fill those rows"
        )


def check_reduction(loss_reduction) -> str:
    """The reduction a head's ``loss_reduction`` names (TF1's strings accepted); ``none``
    is refused: a head's training loss is one number."""
    try:
        return Reduction.resolve(loss_reduction, allow_none=False)
    except ValueError as e:
        raise ValueError(f"Invalid loss_reduction: {loss_reduction}. {e}") from None


def check_loss_fn(loss_fn) -> None:
    """TF's check of a head's ``loss_fn``: it takes ``labels`` and ``logits`` and
    optionally ``features``, nothing else."""
    if loss_fn is None:
        return
    if not callable(loss_fn):
        raise ValueError(f"loss_fn must be callable, got {type(loss_fn).__name__}")
    args = tuple(inspect.signature(loss_fn).parameters)
    for needed in ("labels", "logits"):
        if needed not in args:
            raise ValueError(f"loss_fn must contain argument: {needed}. Given arguments: {args}")
    unexpected = [a for a in args if a not in ("labels", "logits", "features")]
    if unexpected:
        raise ValueError(f"loss_fn has unexpected args: {unexpected}")


def example_weights(weights, batch, width=1):
    """Weights as float32 ``(batch, 1)`` per example, or ``(batch, width)`` per value
    (ones when ``None``), checked."""
    if weights is None:
        return np.ones((batch, 1), np.float32)
    w = np.asarray(weights, dtype=np.float32)
    if w.ndim == 1 or (w.ndim == 2 and w.shape[1] in (1, width)):
        w = w.reshape(w.shape[0], -1)
    else:
        raise ValueError(
            f"weights shape {w.shape} must be (batch,), (batch, 1) or (batch, {width})"
        )
    refuse_non_finite(w, "example weights (weight_column)", "missing weight")
    if w.shape[0] != batch:
        raise ValueError(f"weight column has {w.shape[0]} rows but the batch has {batch}")
    return w


def check_weight_values(weights, key) -> None:
    """Refuse negative example weights of the ``weight_column`` ``key`` (a negative
    weight turns its example's loss into a gain: training pushes the model away from its
    label), and warn when every weight of a batch is 0 (the batch adds nothing to the
    loss or its gradient). TF 2.15's heads take both silently (docs/tf_differences.md)."""
    w = np.asarray(weights)
    negative = w < 0
    if negative.any():
        first = tuple(int(i) for i in np.argwhere(negative)[0])
        raise ValueError(
            f"weight_column {key!r}: example weights must be >= 0; {int(negative.sum())} of "
            f"the batch's {w.size} are negative (row {first[0]} of the batch has "
            f"{float(w[first])!r}). A negative weight makes its example's loss a gain; drop "
            "those rows, or fix the column"
        )
    if w.size and not w.any():
        warnings.warn(
            f"weight_column {key!r}: every example weight of this batch of {len(w)} rows is "
            "0, so the batch adds nothing to the loss or its gradient (its loss is 0); is "
            "that the column meant?",
            RuntimeWarning,
            stacklevel=3,
        )


def rows_of(logits_shape, values, what):
    """TF's ``[D0, ..., DN, k]`` ``values`` (labels or weights) of a batch whose logits
    have ``logits_shape`` ``[D0, ..., DN, dim]``, as ``D0 * ... * DN`` rows: the shape
    the loss and metrics work on. ``values`` must start with ``[D0, ..., DN]``."""
    outer = tuple(logits_shape[:-1])
    values = np.asarray(values)
    if values.shape[: len(outer)] != outer or values.ndim > len(outer) + 1:
        raise ValueError(
            f"{what} shape {values.shape} must be [D0, ..., DN] or [D0, ..., DN, k] of the "
            f"logits shape {tuple(logits_shape)}"
        )
    return values.reshape(int(np.prod(outer)), -1)


def logits_array(logits):
    """``logits`` as given when a Tensor; a numpy array or nested lists as a float32 array,
    as TF's heads cast them (a ValueError, not numpy's or an IndexError, when they are
    ragged or not numbers)."""
    if isinstance(logits, np.ndarray) and logits.dtype.kind not in "biuf":
        raise ValueError(
            f"logits must be a (batch, logits_dimension) array of numbers, got dtype {logits.dtype}"
        )
    if isinstance(logits, np.ndarray) and logits.dtype != np.float32:
        return logits.astype(np.float32)
    if not isinstance(logits, (list, tuple)):
        return logits
    try:
        return np.asarray(logits, dtype=np.float32)
    except (ValueError, TypeError) as e:
        raise ValueError(
            f"logits must be a rectangular (batch, logits_dimension) array of numbers: {e}"
        ) from None


def weight_key(weight_column):
    """The feature key of a ``weight_column``: a name, or a ``numeric_column``'s key."""
    if weight_column is None or isinstance(weight_column, str):
        return weight_column
    key = getattr(weight_column, "key", None)
    if not isinstance(key, str):
        raise TypeError(
            f"weight_column must be a column name or a numeric_column, got {weight_column!r}"
        )
    return key


def host(x):
    """A host numpy array of a Tensor, Variable or array."""
    return np.asarray(to_host(value_of(x)))


def fixed_width_labels(labels):
    """Arrow labels of a fixed width (a ``FixedLenFeature([k])`` parsed from tf.Examples)
    as the ``(n, k)`` array TF's parsed tensor is; any other labels unchanged."""
    if isinstance(labels, pa.ChunkedArray):
        if not pa.types.is_fixed_size_list(labels.type):
            return labels
        labels = labels.combine_chunks()
    if isinstance(labels, pa.Array) and pa.types.is_fixed_size_list(labels.type):
        return label_values(labels)
    return labels
