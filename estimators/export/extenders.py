"""``forward_features``: TF 1's ``tf.contrib.estimator.forward_features``, which copies
input features into an estimator's predictions.

A batch prediction job scores rows whose order it does not keep; the program forwards a
key column so each prediction says which row it belongs to::

    estimator = cn.estimators.forward_features(estimator, "key")
    next(estimator.predict(input_fn))  # {"predictions": array([7.1]), "key": "row-17"}

As in TF 1, the forwarded features join the PREDICT spec's predictions (so
``predict`` yields them) and the export's outputs: an export made from the returned
estimator records the keys (``model.json``'s ``forward_features``), and the loaded
predictor and ``colonnade serve`` answer each forwarded input column beside the
predictions, as TF's ``predict`` signature does. TF 2 dropped the function; its
``tf.estimator.add_metrics`` sibling is :func:`colonnade.estimators.add_metrics`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

import numpy as np
import pyarrow as pa

from ..heads.outputs import PredictOutput
from ..spec.model_fn import ModeKeys, feature_array

__all__ = [
    "WithForwardedFeatures",
    "checked_forward_keys",
    "export_forward_keys",
    "forward_features",
    "forwarded_values",
]


def checked_forward_keys(keys) -> list | None:
    """``keys`` as a list of feature names (``None``: every feature), refusing anything
    but a string or a list of strings, as TF 1."""
    if keys is None:
        return None
    if isinstance(keys, str):
        return [keys]
    if isinstance(keys, (list, tuple)) and all(isinstance(k, str) for k in keys):
        return list(keys)
    raise TypeError(
        "forward_features: keys should be either a string or a list of strings; "
        f"given {keys!r:.100}"
    )


def forward_features(estimator, keys=None, sparse_default_values=None):
    """``estimator`` whose predictions also hold the input features ``keys``, as TF 1's
    ``tf.contrib.estimator.forward_features``.

    Args:
        estimator: a ``cn.estimators`` estimator (canned or ``Estimator(model_fn)``).
        keys: a feature name, a list of them, or ``None`` (default): every feature of
            the batch (every feature of the serving receiver, in an export).
        sparse_default_values: TF's argument for ``SparseTensor`` features; a variable
            length (list) feature is forwarded as it comes, so it must be ``None``.

    Returns a copy of ``estimator`` sharing its ``model_dir``, config and variables (the
    original is unchanged). In PREDICT, each forwarded feature is added to the
    predictions under its own name, one value per row as the input gives it; a key the
    input lacks, or one the predictions already hold, raises ``ValueError`` naming it.

    >>> forwarded = cn.estimators.forward_features(regressor, "key")  # doctest: +SKIP
    >>> sorted(next(forwarded.predict(input_fn)))  # doctest: +SKIP
    ['key', 'predictions']
    """
    keys = checked_forward_keys(keys)
    if sparse_default_values is not None:
        raise ValueError(
            "forward_features: sparse_default_values is not supported (colonnade forwards a "
            f"list feature as it comes, with no padding); given {sparse_default_values!r:.100}"
        )
    forwarded = copy.copy(estimator)
    forwarded.model = WithForwardedFeatures(estimator.model, keys)
    return forwarded


class WithForwardedFeatures:
    """A model whose PREDICT spec also holds input features (see
    :func:`forward_features`); everything else is the wrapped model's.
    ``forwarded_features``: the keys, ``None`` for every feature."""

    def __init__(self, model, keys):
        self.model, self.forwarded_features = model, keys

    def __getattr__(self, name):
        return getattr(self.model, name)

    def spec(self, features, labels, mode, cache=None, rng=None):
        """The wrapped model's spec; in PREDICT, with the forwarded features added to its
        predictions."""
        spec = self.model.spec(features, labels, mode, cache, rng)
        if mode != ModeKeys.PREDICT or spec.predictions is None:
            return spec
        predictions = spec.predictions
        if not isinstance(predictions, Mapping):
            raise ValueError(
                "forward_features: the predictions should be a dict to take forwarded "
                f"features; the model_fn gives a {type(predictions).__name__}"
            )
        forwarded = forwarded_values(features, self.forwarded_features, predictions)
        spec.predictions = dict(predictions, **forwarded)
        for name in ("predict", "serving_default"):  # TF 1's: only these, when PredictOutput
            output = (spec.export_outputs or {}).get(name)
            if isinstance(output, PredictOutput):
                spec.export_outputs[name] = PredictOutput(dict(output.outputs, **forwarded))
        return spec


def export_forward_keys(model, receiver_features, input_columns) -> list:
    """The features an export of ``model`` forwards (``[]`` for a model without
    :func:`forward_features`): its keys, or for ``None`` every feature of the serving
    receiver (``receiver_features``, ``None`` without one: the model's
    ``input_columns``, ``None`` when not known, for a ``model_fn``); a key the receiver
    lacks raises ``ValueError``."""
    if not isinstance(model, WithForwardedFeatures):
        return []
    keys = model.forwarded_features
    if receiver_features is None and input_columns is None:
        if keys is None:
            raise ValueError(
                "forward_features: an export of a model_fn without a serving input receiver "
                "cannot tell which features 'every feature' (keys=None) means; give "
                "forward_features its keys, or export with a serving_input_receiver_fn"
            )
        return list(keys)
    available = list(input_columns) if receiver_features is None else list(receiver_features)
    if keys is None:
        return available
    missing = [k for k in keys if k not in available]
    if missing:
        raise ValueError(
            f"forward_features: the export cannot forward feature(s) {missing}: the serving "
            f"input receiver gives {sorted(available)}; add them to the receiver's features"
        )
    return list(keys)


def feature_names(features) -> list:
    """The names of a batch's features (an Arrow batch or table, or a dict)."""
    if isinstance(features, (pa.RecordBatch, pa.Table)):
        return list(features.column_names)
    return list(features)


def forwarded_values(features, keys, predictions=()) -> dict:
    """``{key: array}`` of the features ``keys`` (``None``: all) of one batch, as a
    ``model_fn`` sees them; a key the batch lacks, or one already in ``predictions``,
    raises ``ValueError``."""
    names = feature_names(features)
    keys = names if keys is None else keys
    missing = [k for k in keys if k not in names]
    if missing:
        raise ValueError(
            f"forward_features: feature(s) {missing} are not in the input; it has "
            f"{sorted(names)!r:.300}. Forward only features the input_fn (or the serving "
            "request) gives"
        )
    clash = [k for k in keys if k in predictions]
    if clash:
        raise ValueError(
            f"forward_features: cannot forward feature(s) {clash}: the predictions already "
            f"have that key (prediction keys: {sorted(predictions)}). Forward other features"
        )
    if isinstance(features, (pa.RecordBatch, pa.Table)):
        return {k: feature_array(features.column(k)) for k in keys}
    return {k: np.asarray(features[k]) for k in keys}
