"""``cn.load``: an export directory back as a predictor, whichever estimator made it."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import weakref

import numpy as np
import pandas as pd
import pyarrow as pa

from .. import core
from ..data.tensor_slices import table_from_columns
from .export import checks, receivers
from .export.checks import ExportError
from .export.directory import MODEL_FILE, VARIABLES_PREFIX, Predictor, resolve_export_dir
from .export.extenders import WithForwardedFeatures
from .export.model_fn_export import params_from_json
from .inputs import input_fn as inputs
from .runtime.estimator import Estimator
from .runtime.inference import predict_batches
from .runtime.run_config import RunConfig
from .runtime.user_model import UserModel

__all__ = ["ModelFnPredictor", "load"]

logger = logging.getLogger("colonnade")


def load(path: str | os.PathLike, model_fns: dict | None = None):
    """Load an export (its directory, or a base directory of timestamped exports: the
    newest is taken) and return its predictor, whose ``predict(rows)`` gives a DataFrame:
    a :class:`~colonnade.estimators.Predictor` for a canned estimator's export; for a
    custom ``Estimator``'s, a :class:`~colonnade.estimators.export.model_fn_export.ModelFnPredictor`
    over ``model_fns[name]``, the function the caller gives for the ``model_fn`` name the
    export records (nothing is imported by name from the export).

    Args:
        path: an export directory written by ``export_saved_model``, or the base
            directory holding several (numbered) exports.
        model_fns: ``{name: model_fn}`` for exports of custom estimators.

    Raises ``ExportError`` naming what is wrong with an export it cannot read.

    >>> load("/nonexistent")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no export at '/nonexistent'
    """
    resolved = resolve_export_dir(path)
    meta = checks.read_json(os.path.realpath(resolved), MODEL_FILE)
    if isinstance(meta, dict) and "model_fn" in meta:
        return ModelFnPredictor(resolved, meta, model_fns)
    return Predictor(resolved)


class ModelFnPredictor:
    """A loaded export of a custom Estimator: its ``model_fn`` (given by the caller, by
    the name the export records) over the exported weights. ``predict(rows)`` as
    :class:`~colonnade.estimators.Predictor`'s; ``params`` and ``metadata`` as saved;
    with a parsing serving input receiver recorded, ``predict_examples(serialized)``
    parses ``tf.Example`` records into the features the model_fn is given."""

    def __init__(self, path: str, meta: dict, model_fns):
        root = os.path.realpath(path)
        where = os.path.join(path, MODEL_FILE)
        name = checks.model_fn_name(meta, where)
        if model_fns is not None and not isinstance(model_fns, dict):
            raise TypeError(
                f"model_fns must be a dict of name -> model_fn, got {type(model_fns).__name__}"
            )
        model_fn = (model_fns or {}).get(name)
        if model_fn is None:
            raise ExportError(
                f"{path} is an export of the model_fn {name!r}: load it with "
                f"cn.load(path, model_fns={{{name!r}: <your function>}}); given "
                f"{sorted(model_fns or {})}"
            )
        self.path, self.metadata = path, meta
        self.params = params_from_json(meta.get("params", {}), root, where)
        receiver_json = receivers.checked_receiver(meta, where)
        self.serving_input_receiver = None
        if receiver_json is not None:
            self.serving_input_receiver = receivers.receiver_from_json(receiver_json)
        self._parse_spec = receivers.parse_spec_of(self.serving_input_receiver)
        stored = checks.verify_weights(root, VARIABLES_PREFIX)
        model_dir = tempfile.mkdtemp(prefix="colonnade_predictor_")  # never written to
        weakref.finalize(self, shutil.rmtree, model_dir, ignore_errors=True)
        self._estimator = _ExportedEstimator(
            model_fn, model_dir, self.params, os.path.join(root, VARIABLES_PREFIX), stored, path
        )
        self.forwarded_features = checks.forwarded_features(meta, where)
        if self.forwarded_features:
            model = self._estimator.model
            self._estimator.model = WithForwardedFeatures(model, self.forwarded_features)

    @property
    def model_fn(self):
        return self._estimator.model_fn

    # As a canned export's: serialized tf.Example records through the recorded receiver.
    takes_examples = Predictor.takes_examples
    parse_examples = Predictor.parse_examples
    predict_examples = Predictor.predict_examples
    model_rows = Predictor.model_rows

    def predict(self, rows, predict_keys=None, batch_size=8192) -> pd.DataFrame:
        """Predictions for ``rows`` (a DataFrame, Arrow table, dict of columns or list of
        row dicts), one row per input row, in order. In a dict, a 2-D array is one
        multi-valued feature (a row per row)."""
        return self._estimator.predict(
            _as_rows(self.model_rows(rows)),
            predict_keys=predict_keys,
            batch_size=batch_size,
            verbose=0,
        )

    def predict_arrays(self, rows, predict_keys=None, batch_size: int = 8192, features=False):
        """``{prediction key: array}`` of the model_fn's predictions for ``rows`` (as
        :meth:`predict` takes them), each array with a row per input row in the shape the
        model_fn gives it: what ``colonnade serve`` answers. ``None`` when ``rows`` holds
        no row. ``features``: ``rows`` are the model's features already (the serving
        graph applied, or serialized examples parsed, by the caller), not fed through
        the receiver's serving graph again."""
        rows = rows if features else self.model_rows(rows)
        dataset = inputs.as_dataset(_as_rows(rows), batch_size=batch_size, columns=None)
        parts = list(predict_batches(self._estimator, dataset, predict_keys))
        if not parts:
            return None
        return {key: np.concatenate([np.asarray(p[key]) for p in parts]) for key in parts[0]}


def _as_rows(rows):
    if isinstance(rows, dict):
        return table_from_columns(rows, "predict")
    if isinstance(rows, (list, tuple)) and rows and all(isinstance(r, dict) for r in rows):
        return pa.Table.from_pylist(list(rows))
    return rows


class _CheckedModelFn:
    """A model recipe: ``model_fn`` as a :class:`~.runtime.user_model.UserModel` whose
    variable store calls ``check(name, shape, dtype)`` before it makes each variable."""

    def __init__(self, model_fn, params, check):
        self.model_fn, self.params, self.check = model_fn, params, check

    def bind(self, global_step, init_rng) -> UserModel:
        model = UserModel(self.model_fn, self.params, RunConfig(), global_step, init_rng)
        model.store.before_create = self.check
        return model


def _params_sizing(params, made: tuple, stored: tuple, most: int = 5) -> list:
    """``["name=value", ...]``: the integer params (in nested dicts and lists, walked to
    a bounded count) whose value is a size of the refused variable ``made`` and not of
    the ``stored`` one: the params an edited export most likely sized it with."""
    sizes = {int(n) for n in made} - {int(n) for n in stored}
    found, stack, seen = [], [("", params)], 0
    while stack and len(found) < most and seen < 10_000:
        name, value = stack.pop()
        seen += 1
        if isinstance(value, dict):
            stack.extend((f"{name}.{k}" if name else str(k), v) for k, v in value.items())
        elif isinstance(value, (list, tuple)):
            stack.extend((f"{name}[{i}]", v) for i, v in enumerate(value))
        elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            if int(value) in sizes:
                found.append(f"{name[:80]}={int(value)}")
    return sorted(found)


class _ExportedEstimator(Estimator):
    """An Estimator whose variables come from an export, not from a model_dir: each
    variable the model_fn asks for is checked against the export's stored shape before
    it is made (so params sizing a layer beyond the stored weights cost no memory), and
    after the model_fn has made them all, they are checked together and restored."""

    def __init__(self, model_fn, model_dir, params, weights, stored, path):
        self._weights, self._stored, self._path = weights, stored, path
        checked = _CheckedModelFn(model_fn, params, self._check_new_variable)
        super().__init__(checked, model_dir=model_dir)
        self.train_state.weights_from = path  # not untrained: no "running initialization"

    def _check_new_variable(self, name, shape, dtype) -> None:
        """Refuse, before it is made, a variable the export does not hold as asked."""
        key = f"model/{name}"
        stored = self._stored.get(key)
        if stored is not None and shape is not None and tuple(shape) == tuple(stored):
            return
        shape = None if shape is None else tuple(shape)
        what = f"missing {[key]}" if stored is None else f"shapes (made, stored) {{{key!r}: "
        what += "" if stored is None else f"({shape}, {tuple(stored)})}}"
        sizing = _params_sizing(self.params, shape or (), () if stored is None else stored)
        named = f"; the params that give these sizes: {', '.join(sizing)}" if sizing else ""
        raise ExportError(
            f"{self._path}: the model_fn {self.model_fn.__name__!r} makes variables the "
            f"export does not hold as made: {what}; refused before the variable is made "
            f"(do the export's params, such as layer sizes, match its weights? is it the "
            f"model_fn the export was made with?){named}"
        )

    def restore_new_variables(self) -> None:
        made = {f"model/{n}": tuple(v.shape) for n, v in self.model.variables().items()}
        stored = {k: tuple(s) for k, s in self._stored.items() if k.startswith("model/")}
        missing = sorted(set(made) - set(stored))
        wrong = {k: (made[k], stored[k]) for k in made if k in stored and made[k] != stored[k]}
        if missing or wrong:
            raise ExportError(
                f"{self._path}: the model_fn {self.model_fn.__name__!r} makes variables the "
                f"export does not hold as made: missing {missing}, shapes (made, stored) "
                f"{wrong}; is it the model_fn the export was made with?"
            )
        status = core.Checkpoint(model=self.model.network).restore(self._weights)
        if status.unused_keys:  # e.g. the optimizer slots of a TF checkpoint: as TF's
            status.expect_partial()  # PREDICT graph restores only what it made
            logger.info(
                "%s: the model_fn %r uses %d of the export's values; the other %d (such as "
                "optimizer slots) are not read",
                self._path,
                self.model_fn.__name__,
                len(made),
                len(status.unused_keys),
            )
