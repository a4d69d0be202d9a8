"""Exports of custom estimators: a ``model_fn`` recorded by name, never by code.

An export of an :class:`~colonnade.estimators.Estimator` holds the trained variables, the
``params`` (JSON values, feature columns through their ``to_config`` form, vocabulary
files copied in) and the name of the ``model_fn``. Nothing in it is imported or
executed: ``cn.load(path, model_fns={"census_model": census_model})`` gets the function
from the caller, by the name the export records, and rebuilds the model by calling it in
PREDICT mode, then restores the exported weights into what it made.

>>> import colonnade as cn, numpy as np, tempfile
>>> def linear(features, mode, params):
...     w = cn.core.get_variable("w", [1, 1], initializer=np.full((1, 1), params["scale"]))
...     x = np.asarray(features["x"], np.float32).reshape(-1, 1)
...     return cn.estimators.EstimatorSpec(mode, predictions={"y": x @ w})
>>> export = tempfile.mkdtemp()
>>> write_model_fn_export(export, "linear", {"scale": 2.0}, {"w": np.full((1, 1), 3.0)})
>>> predictor = cn.load(export, model_fns={"linear": linear})
>>> predictor.predict({"x": np.array([1.0, 2.0])})["y"].tolist()
[3.0, 6.0]
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping

import numpy as np

from ... import core
from ... import feature_columns as fc
from ..heads.outputs import ClassificationOutput, PredictOutput, RegressionOutput
from . import checks, receivers
from .checks import ExportError
from .directory import MODEL_FILE, VARIABLES_PREFIX, asset_copier, portable_config

__all__ = [
    "SIGNATURE_METHODS",
    "export_signatures",
    "params_from_json",
    "params_to_json",
    "signatures_from_json",
    "signatures_json",
    "write_model_fn_export",
]

logger = logging.getLogger("colonnade.estimators")

SIGNATURE_METHODS = ("predict", "classify", "regress")
"""What a signature answers: TF's ``PredictOutput``, ``ClassificationOutput`` and
``RegressionOutput`` (TF Serving's ``:predict``, ``:classify`` and ``:regress``)."""

FORMAT_VERSION = 1
_COLUMN = "feature_column"  # the key that marks a feature column in saved params


def params_to_json(params: dict, copy_file=None) -> dict:
    """``params`` as JSON values: numbers, strings, booleans, None, lists and dicts with
    string keys as they are; a feature column as ``{"feature_column": its to_config}``
    (vocabulary files passed through ``copy_file``). Anything else is refused, naming
    the key.

    >>> from colonnade.feature_columns import numeric_column
    >>> params_to_json({"units": [8, 4], "column": numeric_column("x")})["column"]
    {'feature_column': {'type': 'numeric_column', 'key': 'x', 'shape': [1], 'dtype': 'float32'}}
    """

    def encode(value, where):
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, (np.integer, np.floating, np.bool_)):
            return value.item()
        if isinstance(value, (list, tuple)):
            return [encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            if set(value) == {_COLUMN}:
                raise ValueError(f"{where}: the key {_COLUMN!r} alone is reserved for columns")
            return {k: encode(v, f"{where}[{k!r}]") for k, v in value.items()}
        if isinstance(value, fc.FeatureColumn):
            (config,) = fc.to_config([value])["feature_columns"]
            if copy_file is not None:
                config = portable_config(config, copy_file)
            return {_COLUMN: config}
        raise ValueError(
            f"{where} cannot be saved in an export: a {type(value).__name__}. params may hold "
            "JSON values (numbers, strings, booleans, None, lists, dicts with string keys) "
            "and feature columns"
        )

    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict, got {type(params).__name__}")
    return {k: encode(v, f"params[{k!r}]") for k, v in params.items()}


def params_from_json(params, root: str, where: str) -> dict:
    """The inverse of :func:`params_to_json` for the export at ``root``: feature columns
    rebuilt (their vocabulary files resolved inside the export)."""

    def decode(value, path):
        if isinstance(value, list):
            return [decode(v, f"{path}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, dict):
            if set(value) == {_COLUMN}:
                config = checks.resolve_column_files([value[_COLUMN]], root, where, path)
                return checks.build_columns(config, where, path)[0]
            return {k: decode(v, f"{path}[{k!r}]") for k, v in value.items()}
        return value

    if not isinstance(params, dict):
        raise ExportError(f"{where}: field params: expected an object, got {params!r:.80}")
    return {k: decode(v, f"params[{k!r}]") for k, v in params.items()}


def write_model_fn_export(path: str, model_fn_name: str, params: dict, weights: dict, **meta):
    """Write an export into the new directory ``path``: ``model.json`` (the model_fn's
    name, the params, ``meta``) and ``weights`` (``{variable name: array}``)."""
    copy_file = asset_copier(path)
    model = {
        "format_version": FORMAT_VERSION,
        "library_version": core.library_version(),
        "estimator": "Estimator",
        "model_fn": model_fn_name,
        "params": params_to_json(params, copy_file),
        **meta,
    }
    variables = {name: core.Variable(np.asarray(value)) for name, value in weights.items()}
    core.Checkpoint(model=variables).write(os.path.join(path, VARIABLES_PREFIX))
    with open(os.path.join(path, MODEL_FILE), "w") as f:
        json.dump(model, f, indent=2)


# --------------------------------------------------------------------------- signatures


def _output_fields(output) -> tuple:
    """``(method, {signature output: value})`` of one of TF's export outputs, with TF's
    signature output names (``classes``/``scores``, ``outputs`` for a regression)."""
    if isinstance(output, ClassificationOutput):
        return "classify", output.outputs
    if isinstance(output, RegressionOutput):
        return "regress", {"outputs": output.value}
    if isinstance(output, PredictOutput):
        outputs = output.outputs
        return "predict", dict(outputs) if isinstance(outputs, Mapping) else {"output": outputs}
    raise TypeError(
        "export_outputs values must be cn.estimators.export.PredictOutput, "
        f"ClassificationOutput or RegressionOutput, got {type(output).__name__}"
    )


def _prediction_key(name: str, value, predictions: Mapping):
    """The key of ``predictions`` whose value ``value`` is (by identity, or, for a
    same-named prediction, by equal values), else ``None``."""
    for key, candidate in predictions.items():
        if candidate is value:
            return key
    if name in predictions:
        left, right = np.asarray(getattr(value, "value", value)), predictions[name]
        right = np.asarray(getattr(right, "value", right))
        if left.shape == right.shape and np.array_equal(left, right):
            return name
    return None


def signatures_json(export_outputs, predictions) -> dict:
    """The signatures of a ``model_fn``'s PREDICT spec as ``model.json`` records them:
    ``{key: {"method": "predict" | "classify" | "regress", "outputs": {signature output:
    prediction key}}}``, each export output's values found among the ``predictions``
    (what the server computes): a value that is not a prediction is ``None`` and its
    signature is refused when asked for, naming it. As TF's ``EstimatorSpec``, one
    export output not named ``serving_default`` also serves as ``serving_default``.

    >>> y = np.zeros((1, 1))
    >>> signatures_json({"prediction": PredictOutput({"y": y})}, {"y": y})["serving_default"]
    {'method': 'predict', 'outputs': {'y': 'y'}}
    """
    if not isinstance(predictions, Mapping):
        predictions = {"predictions": predictions}
    if not export_outputs:
        return {}
    if not isinstance(export_outputs, Mapping):
        raise TypeError(f"export_outputs must be a dict, got {type(export_outputs).__name__}")
    recorded = {}
    for key, output in export_outputs.items():
        method, fields = _output_fields(output)
        outputs = {str(n): _prediction_key(n, v, predictions) for n, v in fields.items()}
        recorded[str(key)] = {"method": method, "outputs": outputs}
    if len(recorded) == 1 and "serving_default" not in recorded:
        recorded["serving_default"] = dict(next(iter(recorded.values())))
    return recorded


def signatures_from_json(meta: dict, where: str) -> dict | None:
    """The (checked) ``signatures`` a ``model.json`` records, or ``None``."""
    value = meta.get("signatures") if isinstance(meta, dict) else None
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ExportError(f"{where}: field signatures: expected an object, got {value!r:.80}")
    for key, signature in value.items():
        at = f"{where}: signatures[{key!r}]"
        if not isinstance(signature, dict) or signature.get("method") not in SIGNATURE_METHODS:
            raise ExportError(
                f"{at}: expected {{'method': one of {list(SIGNATURE_METHODS)}, 'outputs': "
                f"{{...}}}}, got {signature!r:.80}"
            )
        outputs = signature.get("outputs")
        if not isinstance(outputs, dict) or not all(
            isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in outputs.items()
        ):
            raise ExportError(
                f"{at}: outputs must map output names to prediction keys, got {outputs!r:.80}"
            )
    return value


def export_signatures(predict_spec, receiver):
    """The :func:`signatures_json` of a ``model_fn`` export with ``receiver``: the
    ``EstimatorSpec`` that ``predict_spec(batch)`` returns (the model_fn in PREDICT
    mode, in a scratch variable store) for one row of zeros of the receiver's features.
    ``None`` without a receiver (the features are then not known before a request), or
    when the model_fn fails on that row (logged: the export then serves its predictions
    under ``serving_default`` and ``predict`` only)."""
    try:
        batch = receivers.probe_rows(receiver)
        if batch is None:
            return None
        spec = predict_spec(batch)
        named = spec.export_outputs if spec.names_signatures else None
        return signatures_json(named, spec.predictions)
    except Exception as e:  # noqa: BLE001 - the user's model_fn on made-up zeros
        logger.warning(
            "the export records no signatures (export_outputs): the model_fn failed on a "
            "row of zeros of its serving input receiver's features (%s: %s); it serves its "
            "predictions under 'serving_default' and 'predict'",
            type(e).__name__,
            e,
        )
        return None
