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
import os

import numpy as np

from ... import core
from ... import feature_columns as fc
from . import checks
from .checks import ExportError
from .directory import MODEL_FILE, VARIABLES_PREFIX, asset_copier, portable_config

__all__ = ["params_from_json", "params_to_json", "write_model_fn_export"]

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
