"""An export directory's layout and versions, and loading a canned estimator's to predict.

An export is a timestamped directory under ``export_dir_base`` (written by
:mod:`.writer`, whole or not at all)::

    1763771234/
        model.json      format and library versions, the head, the network (feature
                        columns in their to_config form, layer sizes, activation names)
        variables/      a colonnade checkpoint of the network's weights (.npy + index.json)
        assets/         vocabulary files the feature columns read, copied

Nothing in it is pickled or evaluated: loading reads JSON and ``.npy`` arrays only, so a
file from someone else cannot run code. A column with an arbitrary Python
``normalizer_fn`` cannot be exported (use one of the named normalizers). Loading treats
the directory as hostile (see :mod:`.checks` and ``docs/exports.md``): it reads
nothing outside it, allocates nothing it does not hold on disk, and reports any defect
as one :class:`ExportError`.

>>> import colonnade as cn
>>> predictor = cn.estimators.load(path)  # doctest: +SKIP
>>> predictor.predict(pandas_rows)        # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa

from ... import core
from ... import data as cn_data
from ...data.example import parse_example
from ...data.tensor_slices import table_from_columns
from ..heads import classification as heads_module
from ..inputs import input_fn as inputs
from ..inputs.pipeline import transformed_batches
from ..networks.network import Network
from . import checks
from . import receivers as receivers_module
from .checks import ExportError
from .extenders import forwarded_values

EXPORT_FORMAT_VERSION = 1
MODEL_FILE = "model.json"
VARIABLES_PREFIX = os.path.join("variables", "variables")
ASSETS_DIR = "assets"
_FILE_KEYS = ("vocabulary_file", "trees_file")  # files a column reads, copied to assets/

_HEADS = {
    "binary": heads_module.BinaryClassHead,
    "multi_class": heads_module.MultiClassHead,
    "regression": heads_module.RegressionHead,
}


def head_spec(head) -> dict:
    kind = next((k for k, cls in _HEADS.items() if type(head) is cls), None)
    if kind is None:
        raise ValueError(f"a {type(head).__name__} cannot be recorded in a canned export")
    fields = head.export_fields()
    if "label_vocabulary" in fields:
        fields["label_vocabulary"] = list(fields["label_vocabulary"])
    return {"type": kind, **fields}


def head_from_spec(spec: dict):
    spec = dict(spec)
    kind = spec.pop("type")
    if kind not in _HEADS:
        raise ValueError(f"unknown head type {kind!r} in export; expected one of {list(_HEADS)}")
    if "label_vocabulary" in spec:
        spec["label_vocabulary"] = tuple(spec["label_vocabulary"])
    return _HEADS[kind](**spec)


def portable_config(config, copy_vocabulary):
    """A column config fit for an export: each ``vocabulary_file`` (or ``trees_file``) replaced by
    ``copy_vocabulary(path)`` (its copy's path relative to the export), and the
    checkpoint initializer (``ckpt_to_load_from``, ``tensor_name_in_ckpt``) left out: it
    only gave the initial value, and the trained weights are in the export."""
    if isinstance(config, dict):
        return {
            k: copy_vocabulary(v) if k in _FILE_KEYS else portable_config(v, copy_vocabulary)
            for k, v in config.items()
            if k not in ("ckpt_to_load_from", "tensor_name_in_ckpt")
        }
    if isinstance(config, list):
        return [portable_config(v, copy_vocabulary) for v in config]
    return config


MAX_VERSION = 2**63 - 1  # TF Serving's version numbers are int64


def export_version(name: str) -> int | None:
    """The version number of an export directory named ``name``: ASCII digits only (not
    ``"²"`` or other Unicode digits, which ``str.isdigit`` accepts) of at most an int64, as
    TF Serving's versions; None for any other name.

    >>> export_version("1700000000"), export_version("²"), export_version("9" * 5000)
    (1700000000, None, None)
    """
    if isinstance(name, bytes):  # os.listdir of a bytes path
        name = os.fsdecode(name)
    if not isinstance(name, str):
        raise TypeError(f"an export version is a directory name (str), got {type(name).__name__}")
    if not (name.isascii() and name.isdigit()) or len(name) > len(str(MAX_VERSION)):
        return None
    number = int(name)
    return number if number <= MAX_VERSION else None


def asset_copier(export_path: str):
    """``copy(path) -> relative path``: copies a file the model reads (a vocabulary) into
    the export's ``assets/`` once, named so that two files of one name stay apart."""
    os.makedirs(os.path.join(export_path, ASSETS_DIR), exist_ok=True)
    copied = {}

    def copy(path):
        if path not in copied:
            name = f"{len(copied)}_{os.path.basename(path)}"
            shutil.copyfile(path, os.path.join(export_path, ASSETS_DIR, name))
            copied[path] = f"{ASSETS_DIR}/{name}"
        return copied[path]

    return copy


def resolve_export_dir(path: str) -> str:
    """``path`` itself, or the newest timestamped export inside it."""
    path = os.fspath(path)
    if os.path.isfile(os.path.join(path, MODEL_FILE)):
        return path
    if not os.path.isdir(path):
        raise FileNotFoundError(f"no export at {path!r}")
    stamps = [
        d
        for d in os.listdir(path)
        if export_version(d) is not None and os.path.isfile(os.path.join(path, d, MODEL_FILE))
    ]
    if not stamps:
        raise FileNotFoundError(f"{path!r} holds no {MODEL_FILE}, nor timestamped exports")
    return os.path.join(path, max(stamps, key=int))


class Predictor:
    """A loaded export: raw rows in, predictions out, every feature transform included.

    Attributes: ``head``, ``network``, ``metadata`` (the parsed ``model.json``),
    ``input_columns`` (the raw columns the model reads) and ``serving_input_receiver``
    (the receiver the export was made with, or None).
    """

    def __init__(self, path):
        self.path = resolve_export_dir(path)
        root = os.path.realpath(self.path)
        where = os.path.join(self.path, MODEL_FILE)
        meta = checks.read_json(root, MODEL_FILE)
        version = checks.format_version(meta, where)
        if not 1 <= version <= EXPORT_FORMAT_VERSION:
            raise ExportError(
                f"export {self.path!r} has format_version {version!r} (written by colonnade "
                f"{meta.get('library_version', '?')}); this colonnade reads 1 to "
                f"{EXPORT_FORMAT_VERSION}: upgrade colonnade to load it"
            )
        checks.check_model(meta, where)
        receiver_json = receivers_module.checked_receiver(meta, where)
        self.metadata = meta
        stored = checks.verify_weights(root, VARIABLES_PREFIX)
        network_spec = checked_network_spec(meta["network"], root, where, stored)
        self.head = checked_head(meta["head"], network_spec, where)
        try:
            self.network = Network.from_spec(network_spec)
            core.Checkpoint(model=self.network).restore(
                os.path.join(root, VARIABLES_PREFIX)
            ).assert_existing_objects_matched()
        except (ValueError, TypeError, KeyError, AssertionError) as e:
            raise ExportError(f"{self.path}: cannot rebuild the model: {e}") from e
        self.input_columns = required_input_columns(self.network)
        self.forwarded_features = checks.forwarded_features(meta, where)
        self.serving_input_receiver, self._parse_spec = None, None
        if receiver_json is not None:
            missing = sorted(set(self.input_columns) - set(receiver_json["features"]))
            if missing:
                raise ExportError(
                    f"{where}: field serving_input_receiver.features: lacks input column(s) "
                    f"{missing!r:.200} the model reads"
                )
            self.serving_input_receiver = receivers_module.receiver_from_json(receiver_json)
            self._parse_spec = receivers_module.parse_spec_of(self.serving_input_receiver)

    @property
    def takes_examples(self) -> bool:
        """Whether the export was made with a parsing serving input receiver (or a
        ``ServingInputReceiver`` of ``{"examples": serialized}``), so that
        :meth:`predict_examples` can parse serialized ``tf.Example`` records."""
        return self._parse_spec is not None

    def model_rows(self, rows):
        """``rows`` as the model reads them: through the export's serving graph when it
        was made with a ``ServingInputReceiver`` (``rows`` then hold its receiver
        tensors, by name), else as they are."""
        return receivers_module.model_rows(self.serving_input_receiver, rows)

    def parse_examples(self, serialized) -> pa.Table:
        """Serialized ``tf.Example`` records parsed with the export's recorded spec."""
        if not self.takes_examples:
            raise ValueError(
                f"export {self.path!r} takes no serialized tf.Example records: it was exported "
                "without a parsing serving input receiver. Re-export it with "
                "export_saved_model(dir, cn.estimators.build_parsing_serving_input_receiver_fn("
                "cn.feature_columns.make_parse_example_spec(feature_columns))), or call "
                "predict() with rows"
            )
        return parse_example(serialized, self._parse_spec)

    def predict_examples(
        self,
        serialized: Sequence[bytes],
        predict_keys: Sequence[str] | None = None,
        batch_size: int = 8192,
    ) -> pd.DataFrame:
        """Predictions for serialized ``tf.Example`` records (a list of bytes), as
        :meth:`predict` gives for the same rows. Needs an export made with
        ``build_parsing_serving_input_receiver_fn``; others raise ``ValueError``.

        Args:
            serialized: the records, e.g. ``list(cn.io.tf_record_iterator(path))``.
            predict_keys: as :meth:`predict`.
            batch_size: as :meth:`predict`."""
        graph_input = receivers_module.examples_input(self.serving_input_receiver)
        if graph_input is not None and self.takes_examples:
            rows = {graph_input: pa.array(list(serialized), pa.binary())}
        else:
            rows = self.parse_examples(serialized)
        return self.predict(rows, predict_keys=predict_keys, batch_size=batch_size)

    def predict(
        self,
        rows: inputs.TabularData | dict | list[dict],
        predict_keys: Sequence[str] | None = None,
        batch_size: int = 8192,
    ) -> pd.DataFrame:
        """Predictions for ``rows`` (a DataFrame, Arrow table/batch, dict of columns, list
        of row dicts ``[{"age": 39, ...}, ...]``, file path or Dataset) as a DataFrame, one
        row per input row, in order.

        Args:
            rows: the raw input columns the model reads (``input_columns``); others are
                ignored.
            predict_keys: the predictions to return, e.g. ``["probabilities"]`` (default
                ``None``: all of the head's).
            batch_size: rows transformed and predicted at once (default 8192)."""
        arrays = self.predict_arrays(rows, predict_keys, batch_size)
        if arrays is None:
            return no_predictions_frame(self.head, predict_keys)
        return predictions_frame(arrays, predict_keys)

    def predict_arrays(self, rows, predict_keys=None, batch_size: int = 8192):
        """``{prediction key: array}`` for ``rows`` (as :meth:`predict` takes them), each
        array with a row per input row, shaped as the head gives it (``probabilities``
        ``(n, n_classes)``, ``class_ids`` ``(n, 1)``...): TF's form. ``None`` when
        ``rows`` holds no row."""
        rows = self.model_rows(rows)
        if isinstance(rows, dict):
            rows = table_from_columns(rows, "predict")
        elif isinstance(rows, (list, tuple)) and rows and all(isinstance(r, dict) for r in rows):
            rows = pa.Table.from_pylist(list(rows))
        columns = list(dict.fromkeys(self.input_columns + self.forwarded_features))
        dataset = inputs.as_dataset(rows, batch_size=batch_size, columns=columns)
        parts = []
        for features, _, cache in transformed_batches(self.network, dataset):
            with core.no_grad():
                logits = self.network.logits(features, training=False, rng=None, cache=cache)
            predictions = self.head.predictions(logits.value)
            predictions.update(forwarded_values(features, self.forwarded_features, predictions))
            parts.append(
                predictions if predict_keys is None else select_keys(predictions, predict_keys)
            )
        if not parts:
            return None
        return {key: np.concatenate([np.asarray(p[key]) for p in parts]) for key in parts[0]}

    def __call__(self, inputs: dict) -> dict:
        """TF's predictor call (``tf.contrib.predictor.from_saved_model(path)(inputs)``):
        ``inputs`` is ``{"examples": [serialized tf.Example, ...]}`` for an export that
        takes examples, else a dict of raw feature columns; returns ``{prediction key:
        array}`` as :meth:`predict_arrays`."""
        if not isinstance(inputs, dict):
            raise TypeError(f"a predictor takes a dict of inputs, got {type(inputs).__name__}")
        graph = isinstance(self.serving_input_receiver, receivers_module.ServingInputReceiver)
        if self.takes_examples and set(inputs) == {"examples"} and not graph:
            rows = self.parse_examples(list(inputs["examples"]))
        else:
            rows = inputs
        arrays = self.predict_arrays(rows)
        if arrays is None:
            raise ValueError("a predictor call needs at least one row")
        return arrays


_PART_PREFIXES = {"linear": "model/linear/linear_model/", "dnn": "model/dnn/"}


def checked_network_spec(network: dict, root: str, where: str, stored: dict) -> dict:
    """The network spec of a (field-checked) ``model.json`` with its files resolved
    inside the export, after checking that the variables it makes are the ones stored
    (names and shapes): nothing is allocated that the export does not hold on disk."""
    limit = sum(math.prod(shape) for shape in stored.values())
    spec, expected = {}, {}
    for name, part in network.items():
        if name == "baseline":
            expected["model/baseline/bias"] = (part["units"],)
            spec[name] = dict(part)
            continue
        path = f"network.{name}.feature_columns"
        config = checks.resolve_column_files(part["feature_columns"], root, where, path)
        checks.check_numeric_shapes(config, limit, where, path)
        columns = checks.build_columns(config, where, path)
        prefix = _PART_PREFIXES[name]
        if name == "linear":
            shapes = checks.linear_variable_shapes(columns, part["units"], prefix)
        else:
            hidden, units, bn = part["hidden_units"], part["units"], part["batch_norm"]
            shapes = checks.dnn_variable_shapes(columns, hidden, units, bn, prefix)
        expected.update(shapes)
        spec[name] = {**part, "feature_columns": config}
    checks.check_shapes(expected, stored, where)
    return spec


def checked_head(spec: dict, network_spec: dict, where: str):
    """The head of ``model.json``, whose logits must be as wide as the network's."""
    try:
        head = head_from_spec(spec)
    except (ValueError, TypeError, KeyError) as e:
        raise ExportError(f"{where}: field head: {e}") from None
    for name, part in network_spec.items():
        if part["units"] != head.logits_dimension:
            raise ExportError(
                f"{where}: field network.{name}.units: expected {head.logits_dimension} (the "
                f"head's logits dimension), got {part['units']}"
            )
    return head


def required_input_columns(network) -> list:
    """The raw input columns the network's feature columns read."""
    layers = [
        network.linear.linear if network.linear else None,
        network.dnn.input_layer if network.dnn else None,
    ]
    columns = [c for layer in layers if layer is not None for c in layer.feature_columns]
    return sorted(cn_data.required_columns(columns))


class PredictKeysError(KeyError, ValueError):
    """``predict_keys`` names no prediction: TF's ``ValueError``, also the ``KeyError``
    colonnade raised before."""

    def __str__(self) -> str:
        return str(self.args[0])


def select_keys(predictions: dict, predict_keys) -> dict:
    if isinstance(predict_keys, str):
        predict_keys = [predict_keys]
    missing = [k for k in predict_keys if k not in predictions]
    if missing:
        raise PredictKeysError(
            f"predict_keys {missing} are not predictions; choose from {sorted(predictions)}"
        )
    return {k: predictions[k] for k in predict_keys}


def no_predictions_frame(head, predict_keys=None) -> pd.DataFrame:
    """The 0-row frame of an empty input: the columns and dtypes a row would have (taken
    from the predictions of one row of zero logits, so that strings stay strings, which an
    empty array cannot tell)."""
    predictions = head.predictions(np.zeros((1, head.logits_dimension), np.float32))
    if predict_keys is not None:
        predictions = select_keys(predictions, predict_keys)
    return predictions_frame(predictions, predict_keys).iloc[:0]


def predictions_frame(predictions: dict, predict_keys=None) -> pd.DataFrame:
    """One DataFrame column per prediction; ``(n, k)`` arrays become ``key_0 .. key_{k-1}``.
    The ``all_*`` entries (the same on every row) are left out unless ``predict_keys``
    asks for them."""
    columns = {}
    for key, value in predictions.items():
        if key.startswith("all_") and predict_keys is None:
            continue
        value = np.asarray(value)
        if value.ndim == 2 and value.shape[1] == 1:
            columns[key] = value[:, 0]
        elif value.ndim == 2:
            for i in range(value.shape[1]):
                columns[f"{key}_{i}"] = value[:, i]
        else:
            columns[key] = value
    return pd.DataFrame(columns)
