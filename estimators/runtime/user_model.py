"""A user's ``model_fn`` as an estimator's model: called in its own variable store.

The estimator keeps one :class:`~colonnade.core.VariableStore` per model and enters it
around each call, so the variables the ``model_fn`` makes (``cn.core.get_variable``,
``cn.layers``, ``cn.feature_columns.input_layer``/``linear_model``) are created on the
first call and reused by name after, and an optimizer made anew in each call keeps its
slots. Training applies the update when the ``model_fn`` calls
``optimizer.minimize(loss, global_step=cn.train.get_global_step())``.

Variables exist only once the ``model_fn`` has run, so before the first batch of a
``train``/``evaluate``/``predict`` that meets a model not built yet for its mode, the
``model_fn`` is called once with ``store.building`` set (``minimize`` then only makes
slots, batch normalization moves nothing) and the checkpoint is restored into what it
made.

The ``features`` a ``model_fn`` gets for an Arrow batch carry the batch's one transform
cache (:class:`~colonnade.feature_columns.BatchFeatures`): its layers transform each
column once per step, and the columns of the layers it made in earlier calls are
transformed ahead, on the input thread, while the step before trains.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ... import core
from ...data.tensor_slices import is_whole_features
from ..export.writer import export_model_fn
from ..spec.model_fn import (
    EstimatorSpec,
    ModeKeys,
    features_dict,
    fn_name,
    is_model_variable,
    labels_array,
    model_fn_args,
)


class _NoTransforms:
    """The transforms of a batch for a ``model_fn`` network: none ahead of the step
    (its layers transform what they read when called); cannot be cut into batches."""

    def rows(self, start, stop, features):
        return None


class AheadFeatures:
    """The ``features`` dict of a batch for the ``model_fn`` (a
    :class:`~colonnade.feature_columns.BatchFeatures`), made on the input thread with the
    transforms of the columns the ``model_fn``'s layers read already computed, so that
    they overlap the training step; a chunk of batches is cut into each batch's."""

    def __init__(self, features):
        self.features = features

    def rows(self, start, stop, features):
        """Examples ``start`` to ``stop`` (the batch ``features``); ``None`` if the
        transforms cannot be cut."""
        cut = self.features.rows(start, stop)
        return None if cut is None else AheadFeatures(cut)


class StoreNetwork:
    """The network seam of the loop for a ``model_fn``: its variables live in the
    store; the input pipeline transforms ahead the columns of the feature-column layers
    the ``model_fn`` made (see :meth:`transform`)."""

    def __init__(self, store):
        self.store = store

    @property
    def layers(self) -> list:
        """The feature-column layers the ``model_fn`` made."""
        return list(self.store.layers().values())

    @property
    def feature_columns(self) -> list:
        """The feature columns of those layers (read also from the input thread)."""
        return [c for layer in self.layers for c in layer.feature_columns]

    def transform(self, features, previous=None, num_threads=None):
        """For an Arrow batch, its ``features`` dict with the columns of the layers the
        ``model_fn`` made so far transformed (each once), on the input thread, ahead of
        the step (``previous``: the batch before's, whose dictionary hashes it may
        reuse). A transform that fails is left to the ``model_fn``'s layer call, where
        it fails today (a mode may not call every layer)."""
        columns = list(dict.fromkeys(self.feature_columns))
        if not columns or not isinstance(features, (pa.RecordBatch, pa.Table)):
            return _NoTransforms()
        if is_whole_features(features.schema):  # one array, no columns to transform
            return _NoTransforms()
        before = previous.features.transform_cache if isinstance(previous, AheadFeatures) else None
        batch = features_dict(features, before)
        try:
            batch.transform_cache.compute(columns, num_threads)
        except Exception:
            return AheadFeatures(features_dict(features))
        return AheadFeatures(batch)

    def prepare(self, cache, training):
        """Nothing to prepare; ``cache`` as given."""
        return cache

    def checkpoint_children(self):
        """What a checkpoint holds of the model: the store's variables."""
        return self.store.checkpoint_children()


class UserModel:
    """A ``model_fn(features, labels, mode, params, config)`` (any subset of those
    names) with its variable store: the model of a custom ``Estimator`` (a
    :class:`~.model.Model`).

    ``seed`` seeds the store's initializers; ``global_step`` is what
    ``cn.train.get_global_step()`` returns inside the ``model_fn``."""

    head = None
    parts: list = []  # its optimizers live in the store

    def __init__(self, model_fn, params, config, global_step, seed):
        if not callable(model_fn):
            raise TypeError(f"model_fn must be callable, got {type(model_fn).__name__}")
        self.model_fn = model_fn
        self.args = model_fn_args(model_fn)
        if params and "params" not in self.args:
            raise ValueError(
                f"model_fn ({fn_name(model_fn)}) does not include params argument, but "
                f"params ({params}) is passed to Estimator."
            )
        self.params = dict(params or {})
        self.config = config
        self.store = core.VariableStore(seed=seed)
        self.store.global_step = global_step
        self.network = StoreNetwork(self.store)
        self.built_modes: set = set()
        self.hooks_by_mode: dict = {}  # whether the model_fn's spec brings hooks, by mode
        self.train_summaries: dict = {}  # the last training step's cn.summary values

    def __repr__(self) -> str:
        return fn_name(self.model_fn)

    def describe(self, class_name: str, model_dir: str) -> str:
        """``Estimator(model_fn=<its name>, model_dir=...)``, whatever the class."""
        return f"Estimator(model_fn={self!r}, model_dir={model_dir!r})"

    def lists_variable(self, name: str) -> bool:
        """The ``model_fn``'s variables and the global step, not optimizer state."""
        return is_model_variable(name)

    def trackables(self) -> dict:
        """What a checkpoint holds besides the global step."""
        return {"model": self.network, "optimizer": self.store.optimizers}

    def variables(self) -> dict:
        """The variables the ``model_fn`` made, by name."""
        return self.store.variables()

    def reset_local_variables(self) -> None:
        """The ``model_fn``'s local variables back to their initial values."""
        self.store.reset_local_variables()

    def input_columns(self, weight_column=None):
        """``None``: the ``model_fn`` may read any column."""
        return None

    def column_parts(self) -> list:
        """No parts of feature columns to list in a summary."""
        return []

    def hook_scope(self, global_step):
        """Where hooks' ``begin``/``end`` run: in the store, whose global step is the
        estimator's (``global_step``)."""
        return self.store.as_default()

    def spec(self, features, labels, mode, cache=None, rng=None) -> EstimatorSpec:
        """Call the ``model_fn`` on one batch in the store; its checked spec."""
        ahead = isinstance(cache, AheadFeatures)
        kwargs = {
            "features": cache.features if ahead else features_dict(features),
            "labels": labels_array(labels),
            "mode": mode,
            "params": dict(self.params),
            "config": self.config,
        }
        with self.store.as_default(), core.model_calls.recording() as call:
            spec = self.model_fn(**{k: kwargs[k] for k in self.args})
        if mode == ModeKeys.TRAIN:
            self.train_summaries = call.summaries
        if not isinstance(spec, EstimatorSpec):
            raise TypeError(
                f"model_fn {fn_name(self.model_fn)} must return an EstimatorSpec, got "
                f"{type(spec).__name__}"
            )
        if spec.mode != mode:
            raise ValueError(
                f"model_fn {fn_name(self.model_fn)} was called in mode {mode!r} but returned "
                f"an EstimatorSpec of mode {spec.mode!r}"
            )
        return spec

    def ensure_built(self, features, labels, mode, restore_new) -> None:
        """Before the first batch of a mode: build what the model_fn makes in it, and
        have ``restore_new()`` give anything new its values."""
        if mode not in self.built_modes:
            self.build(features, labels, mode, restore_new)

    def build(self, features, labels, mode, restore_new) -> EstimatorSpec:
        """Call the model_fn once without training (``store.building``) and, when it made
        variables, call ``restore_new()``; its spec."""
        size = len(self.store)
        local = self.store.local_variables()
        every = [self.store.global_step, *self.store.variables().values(), *local.values()]
        kept = [(v, v.value) for v in every]
        self.store.building = True
        try:
            with core.no_grad():
                spec = self.spec(features, labels, mode)
        finally:
            self.store.building = False
            for variable, value in kept:  # TF builds its graph without running the train_op
                variable.value = value
            made = set(self.store.local_variables()) - set(local)
            self.store.reset_local_variables(made)
        self.built_modes.add(mode)
        if len(self.store) != size:
            restore_new()
        return spec

    def spec_hooks(self, features, labels, mode, restore_new) -> list:
        """The hooks of the spec the model_fn returns for ``mode``: asked once per run,
        before its first batch, as TF builds the graph once (a model_fn whose first spec
        of a mode brought none is not called again for them)."""
        if self.hooks_by_mode.get(mode) is False:
            return []
        hooks = self.build(features, labels, mode, restore_new).hooks()
        self.hooks_by_mode[mode] = bool(hooks)
        return hooks

    def for_worker(self):
        """Distributed training takes canned networks only."""
        raise TypeError(
            "train_distribute trains the canned estimators (linear, DNN, wide&deep: a "
            "network of feature columns and its optimizers), not a model_fn; got "
            f"model_fn {fn_name(self.model_fn)}"
        )

    def scratch_predict_spec(self, batch) -> EstimatorSpec:
        """The model_fn's PREDICT spec of ``batch`` in a scratch variable store (this
        model's variables untouched): what its export records of ``export_outputs``."""
        step = core.Variable(np.int64(0), name="global_step", trainable=False, dtype=np.int64)
        scratch = UserModel(self.model_fn, self.params, self.config, step, 0)
        return scratch.build(batch, None, ModeKeys.PREDICT, restore_new=lambda: None)

    def export(
        self, estimator, export_dir_base, serving_input_receiver_fn, assets_extra, checkpoint_path
    ) -> str:
        """The checkpoint's variables, the ``params`` and the ``model_fn``'s name, and no
        code (see :func:`~colonnade.estimators.export.writer.export_model_fn`)."""
        return export_model_fn(
            estimator,
            export_dir_base,
            serving_input_receiver_fn,
            assets_extra,
            checkpoint_path,
            predict_spec=self.scratch_predict_spec,
        )
