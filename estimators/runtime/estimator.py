"""``Estimator(model_fn)``: the one estimator, as TF's ``tf.estimator.Estimator``.

A ``model_fn(features, labels, mode, params, config)`` (any subset of those argument
names, as TF; see :mod:`..spec.model_fn`) is called eagerly once per batch and returns an
:class:`~..spec.model_fn.EstimatorSpec`. Every training step, evaluation batch and prediction
batch is one such call: a custom ``Estimator`` calls the user's (in its variable store,
see :mod:`.user_model`), a canned estimator (linear, DNN, wide&deep) is a subclass that
passes its own (a network and a head, see :mod:`colonnade.estimators.canned.model`), as TF's
``DNNClassifierV2(EstimatorV2)``. Both are a :class:`~.model.Model`, the one protocol the
estimator knows its model by: what differs between them (the checkpoint keys it lists,
its ``repr``, its export) is a method of the model. One training loop
(:mod:`.training_loop`), one evaluation and one prediction path (:mod:`.inference`),
checkpoints and resume (:class:`~.train_state.TrainState`), hooks, TensorBoard, ``fit``
with DataFrames (:mod:`.keras_fit`) and export serve both.

>>> import colonnade as cn, numpy as np, tempfile
>>> def model_fn(features, labels, mode):
...     logits = cn.layers.dense(features["x"], 1, kernel_initializer=np.zeros((1, 1)))
...     predictions = {"y": logits}
...     if mode == cn.estimators.ModeKeys.PREDICT:
...         return cn.estimators.EstimatorSpec(mode, predictions=predictions)
...     loss = cn.losses.mean_squared_error(labels, logits)
...     train_op = cn.train.GradientDescentOptimizer(0.1).minimize(
...         loss, global_step=cn.train.get_global_step())
...     return cn.estimators.EstimatorSpec(mode, predictions, loss, train_op)
>>> x = np.array([[1.0], [2.0]], np.float32)
>>> est = cn.estimators.Estimator(model_fn, model_dir=tempfile.mkdtemp())
>>> _ = est.train(lambda: ({"x": x}, 2 * x), steps=200, verbose=0)
>>> [round(float(p["y"][0]), 1) for p in est.predict(lambda: ({"x": x}, None), verbose=0)]
[2.0, 4.0]
>>> est.get_variable_names()
['dense/bias', 'dense/kernel', 'global_step']
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from ... import core
from ..inputs import input_fn as inputs
from ..spec.model_fn import EstimatorSpec, ModeKeys
from . import inference, keras_fit, training_loop
from .callbacks import Callback
from .inspection import checkpoint_variable_names, checkpoint_variable_value, summary_lines
from .model import model_of
from .model_dir import resolve_model_dir
from .run_config import RunConfig, WarmStartSettings
from .tf_names import MODEL_PREFIX
from .train_state import TrainState


class Estimator:
    """TF's ``tf.estimator.Estimator`` over a ``model_fn`` (see the module).

    ``params`` (a dict) is passed to the ``model_fn``; ``config`` a :class:`RunConfig`;
    ``warm_start_from`` a checkpoint path or ``WarmStartSettings`` (variable names are
    the ``model_fn``'s, e.g. ``dense/kernel``). Training advances the global step by one
    per batch: through ``minimize(..., global_step=...)``, or, when the ``model_fn`` does
    not pass it, by the estimator (TF would loop forever).

    What training changes (the model, the global step, the checkpoint the variables
    hold) is in :attr:`train_state`, a :class:`~.train_state.TrainState`.
    """

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        config = config or RunConfig()
        self.model_dir = resolve_model_dir(model_dir, config.model_dir)
        self.config = config.replace(model_dir=self.model_dir)
        if isinstance(warm_start_from, str):
            warm_start_from = WarmStartSettings(warm_start_from)
        self.warm_start_from = warm_start_from
        seed = np.random.SeedSequence(config.tf_random_seed)
        self.model, global_step, init_rng = model_of(model_fn, params, self.config, seed)
        self.train_state = TrainState(
            self.model, global_step, seed, init_rng, self.model_dir, self.config, warm_start_from
        )
        self.stop_training = False
        self.last_run = None  # what the latest train() measured on Ray (RunStats)
        self.train_lock = None  # model_dir's lock while train() or fit() runs
        self.last_predictions = None  # the latest training step's, for hooks to fetch

    # ------------------------------------------------------------------ what it is

    @property
    def model_fn(self):
        """The ``model_fn`` this estimator calls (a canned one is a callable
        :class:`~colonnade.estimators.canned.model.CannedModel`)."""
        return self.model.model_fn

    @property
    def params(self) -> dict:
        """A copy of the ``params`` given to the constructor (a canned estimator's: ``{}``)."""
        return dict(self.model.params)

    @property
    def head(self):
        """A canned estimator's head (``None`` for a ``model_fn``)."""
        return self.model.head

    @property
    def weight_column(self):
        """The weight column's name (``None``: every example weighs 1)."""
        return getattr(self.model.head, "weight_column", None)

    @property
    def global_step(self) -> int:
        """The global step, as an int."""
        return self.train_state.global_step

    def latest_checkpoint(self):
        """The newest checkpoint in model_dir, or None."""
        return core.latest_checkpoint(self.model_dir)

    def eval_dir(self, name: str | None = None) -> str:
        """Where :meth:`evaluate` writes its summaries: ``model_dir/eval`` or
        ``model_dir/eval_<name>``."""
        return os.path.join(self.model_dir, "eval" if not name else f"eval_{name}")

    def input_columns(self):
        """The raw columns the model reads (read from files with projection pushdown);
        ``None`` for a ``model_fn``, which may read any."""
        return self.model.input_columns(self.weight_column)

    # ------------------------------------------------------------------ variables

    def save_checkpoint(self, directory=None, file_prefix=None) -> str:
        """Write a checkpoint of the model, optimizers and global step; return its path."""
        return self.train_state.save(directory, file_prefix)

    def nonfinite_variables(self) -> list:
        """Names of the variables (optimizer slots included) that hold a NaN or an inf:
        what the checkpoint saver checks before it saves."""
        return self.train_state.nonfinite_variables()

    def get_weights(self) -> dict:
        """Host copies of every variable, by checkpoint name."""
        return {k: v.numpy().copy() for k, v in self.train_state.model_variables().items()}

    def set_weights(self, weights: dict) -> None:
        """Assign variables from ``get_weights``' form."""
        variables = self.train_state.model_variables()
        for name, value in weights.items():
            variables[name].assign(value)

    def get_variable_names(self) -> list:
        """The names in model_dir's latest checkpoint, as TF's ``list_variables`` gives
        them: a model_dir TF wrote lists TF's own names (its TF 1 slots ``<var>/Adam``,
        ``beta1_power``, ...), one colonnade wrote lists the names it wrote, ``global_step``
        and a canned estimator's optimizer slots included. A ``model_fn``'s colonnade
        checkpoint lists its own variables only. Without a checkpoint, ``ValueError`` as TF
        ("Could not find trained model in model_dir")."""
        self._check_checkpoint_available()
        return checkpoint_variable_names(self.latest_checkpoint(), self.model)

    def get_variable_value(self, name: str):
        """The value of one variable, read from model_dir's latest checkpoint by a name
        :meth:`get_variable_names` lists (as TF's ``load_variable``)."""
        self._check_checkpoint_available()
        return checkpoint_variable_value(self.latest_checkpoint(), self.model, name)

    def _check_checkpoint_available(self) -> None:
        if self.latest_checkpoint() is None:
            raise ValueError(f"Could not find trained model in model_dir: {self.model_dir}.")

    def summary(self, print_fn=print) -> None:
        """Print the feature columns (by part), every variable's name, shape and size, and
        the total parameter count, one line at a time through ``print_fn`` (as Keras'
        ``Model.summary``; pass ``print_fn=lines.append`` to keep the text).

        >>> import colonnade as cn, tempfile
        >>> est = cn.estimators.LinearRegressor([cn.feature_columns.numeric_column("x")],
        ...                                     model_dir=tempfile.mkdtemp())
        >>> est.summary()  # doctest: +NORMALIZE_WHITESPACE
        LinearRegressor (model_dir ...)
        linear columns: x
        variable                                  shape  size
        linear/linear_model/bias_weights  (1,)    1
        linear/linear_model/x/weights     (1, 1)  1
        total parameters: 2
        """
        variables = self.train_state.model_variables()
        parts = self.model.column_parts()
        lines = summary_lines(type(self).__name__, self.model_dir, parts, variables)
        for line in lines:
            print_fn(line)

    def __repr__(self) -> str:
        """The class, model_dir and the arguments that shape the model."""
        return self.model.describe(type(self).__name__, self.model_dir)

    # ------------------------------------------------------------------ one call

    def call_model_fn(self, features, labels, mode, cache=None) -> EstimatorSpec:
        """The ``model_fn``'s spec of one batch (``cache``: its feature transforms, done
        ahead on the input thread), after building what the ``model_fn`` makes in
        ``mode`` on its first call (then restored from the checkpoint). A training call
        draws the step's randomness (dropout) from the seed and the global step."""
        self.model.ensure_built(features, labels, mode, self.restore_new_variables)
        rng = self.train_state.step_rng() if mode == ModeKeys.TRAIN else None
        return self.model.spec(features, labels, mode, cache, rng)

    def spec_hooks(self, features, labels, mode) -> list:
        """The hooks the ``model_fn``'s spec brings for ``mode``."""
        return self.model.spec_hooks(features, labels, mode, self.restore_new_variables)

    def restore_new_variables(self) -> None:
        """Give the variables a ``model_fn`` just made their values: the checkpoint's, or
        the warm start's."""
        self.train_state.restore_new_variables()

    def hook_scope(self):
        """Where hooks' ``begin``/``end`` run: ``cn.train.get_global_step()`` is this
        estimator's step (TF's default graph holds it)."""
        return self.model.hook_scope(self.train_state.global_step_variable)

    def train_step(self, features, labels, cache=None) -> float:
        """One training step: the TRAIN spec's ``train_op`` has updated the variables;
        the global step grows by one (by the estimator when the ``model_fn`` did not).
        Returns the loss; the spec's predictions are kept for the hooks to fetch."""
        step = self.global_step
        spec = self.call_model_fn(features, labels, ModeKeys.TRAIN, cache)
        if self.global_step == step:
            self.train_state.global_step_variable.assign_add(1)
        self.last_predictions = spec.predictions
        return float(inference.host(spec.loss).reshape(()))

    def new_evaluation(self):
        """What accumulates one evaluation: ``update(features, labels, cache)`` per batch
        (then ``last``, the batch's ``(loss, predictions)``), then ``results()``."""
        return inference.SpecEvaluation(self)

    def batch_predictions(self, features, cache) -> dict:
        """The predictions of one batch (the PREDICT spec's), as host arrays by key."""
        with core.no_grad():
            spec = self.call_model_fn(features, None, ModeKeys.PREDICT, cache)
        predictions = spec.predictions
        if not isinstance(predictions, Mapping):
            return inference.TensorPredictions(predictions=inference.host(predictions))
        return {k: inference.host(v) for k, v in predictions.items()}

    # ------------------------------------------------------------------ TF style

    def train(
        self,
        input_fn: inputs.InputFn,
        steps: int | None = None,
        max_steps: int | None = None,
        hooks: list | None = None,
        saving_listeners: list | None = None,
        verbose: int | str = "auto",
    ) -> Estimator:
        """Train on batches from ``input_fn`` until it is exhausted, ``steps`` more steps are
        done, or the global step reaches ``max_steps``. Resumes from model_dir's latest
        checkpoint and saves one at the end. Returns self.

        ``verbose``: a progress bar on stderr (``"auto"``: when it is a terminal; ``0``:
        never; see :mod:`colonnade.estimators.hooks.progress`).

        model_dir is locked meanwhile: a second trainer on it fails at once with
        ``DirectoryLockedError`` naming it.

        Args:
            input_fn: a zero-argument callable (TF's ``input_fn``) returning a
                ``cn.data.Dataset`` built with ``label=`` or an iterable of ``(features,
                labels)`` batches, or one of those directly.
            steps: train at most this many more steps (TF's default ``None``: until the
                input ends).
            max_steps: stop when the global step reaches this (default ``None``); set at
                most one of ``steps`` and ``max_steps``.
            hooks: ``SessionRunHook``-style objects called around each step.
            saving_listeners: callables called with each checkpoint's path once it is
                written.
            verbose: ``"auto"``, ``0``, ``1`` or ``2``, as in :meth:`fit`.

        With ``config.train_distribute`` (a ``cn.distribute.RayStrategy``) the strategy
        trains instead, on Ray workers and parameter servers, and ``last_run`` then holds
        what it measured (a ``cn.distribute.RunStats``: rows, steps, where the time and
        bytes went; ``None`` after single-process training)."""
        self.train_state.refuse_while_overridden()
        input_fn = inputs.with_estimator_args(input_fn, ModeKeys.TRAIN, self.params, self.config)
        with self.training_lock():
            strategy = self.config.train_distribute
            self.last_run = None
            if strategy is None:
                training_loop.train(
                    self, input_fn, steps, max_steps, hooks, saving_listeners, verbose
                )
                return self
            self.last_run = strategy.train(
                self, input_fn, steps, max_steps, hooks, saving_listeners, verbose
            )
            return self

    @contextlib.contextmanager
    def training_lock(self):
        """Hold model_dir's lock (taken once: fit() holds it across its train() calls)."""
        if self.train_lock is not None:
            yield
            return
        lock = core.DirectoryLock(self.model_dir)
        lock.acquire()
        self.train_lock = lock
        try:
            yield
        finally:
            self.train_lock = None
            lock.release()

    def evaluate(
        self,
        input_fn: inputs.InputFn,
        steps: int | None = None,
        hooks: list | None = None,
        checkpoint_path: str | None = None,
        name: str | None = None,
        label: inputs.Label = None,
        batch_size: int = inputs.INFERENCE_BATCH_SIZE,
        verbose: int | str = "auto",
    ) -> dict:
        """Metrics with TF's keys, plus ``global_step``, over ``input_fn``'s batches (at most
        ``steps`` of them). Keras style: ``evaluate(data, label="y")``. ``verbose``: a
        progress bar, as in :meth:`train`.

        Args:
            input_fn: a DataFrame, Arrow table, path/glob or ``Dataset`` (Keras style), or
                a TF ``input_fn``.
            steps: evaluate at most this many batches (default ``None``: all).
            hooks: ``SessionRunHook`` objects called around each batch (they may fetch
                ``loss``, the batch's mean loss, ``global_step`` and the prediction keys).
            checkpoint_path: evaluate this checkpoint rather than model_dir's latest; the
                estimator's own state is as before afterwards.
            name: a name for this evaluation: its TensorBoard events go to
                ``model_dir/eval_<name>`` (default ``None``: ``model_dir/eval``).
            label: the label column's name, or the labels as an array or Series (needed
                unless ``input_fn`` is a ``Dataset`` with a label).
            batch_size: rows per batch for tabular data (default 8192).
            verbose: ``"auto"``, ``0``, ``1`` or ``2``, as in :meth:`fit`."""
        if inputs.is_tabular(input_fn) or label is not None:
            input_fn = inputs.as_dataset(
                input_fn, label=label, batch_size=batch_size, columns=self.input_columns()
            )
        input_fn = inputs.with_estimator_args(input_fn, ModeKeys.EVAL, self.params, self.config)
        return inference.evaluate(self, input_fn, steps, hooks, checkpoint_path, name, verbose)

    def predict(
        self,
        input_fn: inputs.InputFn,
        predict_keys: Sequence[str] | None = None,
        hooks: list | None = None,
        checkpoint_path: str | None = None,
        yield_single_examples: bool = True,
        batch_size: int = inputs.INFERENCE_BATCH_SIZE,
        verbose: int | str = "auto",
    ) -> Iterator[dict] | pd.DataFrame:
        """TF style: an iterator of prediction dicts (one per example). Keras style (a
        DataFrame, Arrow table or file path): a pandas DataFrame of predictions.
        ``verbose``: a progress bar, as in :meth:`train`.

        Args:
            input_fn: tabular data (a DataFrame, Arrow table, path/glob) for a DataFrame of
                predictions, or a ``Dataset`` / TF ``input_fn`` for an iterator.
            predict_keys: the predictions to return, e.g. ``["probabilities"]`` (default
                ``None``: all of the head's).
            hooks: ``SessionRunHook`` objects called around each batch (they may fetch
                the prediction keys and ``global_step``).
            checkpoint_path: predict with this checkpoint rather than model_dir's latest;
                the estimator's own state is as before afterwards.
            yield_single_examples: TF style only: one dict per example (default ``True``)
                or one dict of arrays per batch.
            batch_size: rows per batch for tabular data (default 8192).
            verbose: ``"auto"``, ``0``, ``1`` or ``2``, as in :meth:`fit`."""
        if inputs.is_tabular(input_fn):
            dataset = inputs.as_dataset(
                input_fn, batch_size=batch_size, columns=self.input_columns()
            )
            return inference.predict_frame(
                self, dataset, predict_keys, verbose, hooks, checkpoint_path
            )
        input_fn = inputs.with_estimator_args(input_fn, ModeKeys.PREDICT, self.params, self.config)
        return inference.predict_dicts(
            self, input_fn, predict_keys, yield_single_examples, verbose, hooks, checkpoint_path
        )

    def export_saved_model(
        self,
        export_dir_base: str | os.PathLike,
        serving_input_receiver_fn: Callable | None = None,
        assets_extra: dict | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
    ) -> str:
        """Write a self-contained, versioned export under ``export_dir_base/<timestamp>``
        and return its path; ``cn.load`` reads it back. A canned estimator's holds its
        feature-column config, vocabularies, weights and head; a ``model_fn``'s holds the
        checkpoint's variables, the ``params`` and the ``model_fn``'s name, and no code:
        load it with ``cn.load(path, model_fns={name: model_fn})`` (a ``params`` value
        that is neither JSON nor a feature column is refused, naming it).

        Args:
            export_dir_base: the folder that collects this model's exports, one numbered
                sub-folder each (what ``colonnade serve`` serves the newest of).
            serving_input_receiver_fn: ``None`` (default: raw rows), or
                ``cn.estimators.build_parsing_serving_input_receiver_fn(feature_spec)``,
                which makes the export also take serialized ``tf.Example`` records
                (``predict_examples``, and ``{"examples": [{"b64": ...}]}`` in
                ``colonnade serve``), or ``build_raw_serving_input_receiver_fn``; either is
                recorded in the export.
            assets_extra: ``{destination: source file}`` copied into ``assets.extra/``.
            as_text: TF's argument, without effect (an export holds JSON, not a proto).
            checkpoint_path: export this checkpoint rather than model_dir's latest."""
        del as_text
        return self.model.export(
            self, export_dir_base, serving_input_receiver_fn, assets_extra, checkpoint_path
        )

    def export_savedmodel(
        self,
        export_dir_base,
        serving_input_receiver_fn=None,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
        strip_default_attrs=False,
    ):
        """TF1's name of :meth:`export_saved_model`; ``strip_default_attrs`` (a graph-def
        option: there is no graph) is accepted."""
        return self.export_saved_model(
            export_dir_base, serving_input_receiver_fn, assets_extra, as_text, checkpoint_path
        )

    # ------------------------------------------------------------------ Keras style

    def fit(
        self,
        data: inputs.TabularData,
        label: inputs.Label = None,
        epochs: int = 1,
        batch_size: int = inputs.DEFAULT_BATCH_SIZE,
        validation_data: inputs.TabularData | tuple | None = None,
        callbacks: list[Callback] | None = None,
        shuffle: bool = True,
        seed: int | None = None,
        verbose: int | str = "auto",
    ) -> keras_fit.History:
        """Train for ``epochs`` passes over ``data`` (DataFrame, Arrow table, path/glob or
        Dataset). ``validation_data`` is evaluated after each epoch (its metrics appear in
        the logs as ``val_<key>``); it may be ``(data, label)`` or data with the same label
        column. Returns a :class:`~.keras_fit.History`.

        As Keras's fit, the epochs go on in memory: validation and callbacks read the
        variables as they are, and one checkpoint is written at the end (and on Ctrl-C;
        none after an error), besides the config's ``save_checkpoints_steps``/``secs``
        ones; ``ModelCheckpoint`` saves one per epoch. ``train`` ends with a checkpoint
        each call, as TF's (:meth:`~.train_state.TrainState.epochs_in_memory`).

        ``shuffle=True`` gives each epoch a new order (seeded by ``seed``, or the config's
        ``tf_random_seed``, plus the epoch number): in-memory data (a DataFrame, Arrow
        table, or a Dataset over either or after ``cache()``) is permuted whole, as Keras
        does; files are streamed, their files and row groups visited in a new order and
        several read at once into a 64k-row buffer, which cannot mix rows farther apart
        than that in a large sorted row group (see ``cn.data.Dataset.shuffle``).

        ``verbose`` (as Keras): ``"auto"`` shows a progress bar per epoch when stderr is a
        terminal (rows done, rows/s, running loss, and an ETA when the data's size is
        known); ``0`` nothing; ``1`` the bar, or off a terminal a line per epoch on stdout;
        ``2`` a line per epoch.

        Args:
            data: a DataFrame, Arrow table, path/glob of Parquet/CSV/Arrow files, or a
                ``cn.data.Dataset``.
            label: the label column's name (a list for ``label_dimension > 1``), or the
                labels as an array or Series, one per row; ``None`` when ``data`` is a
                ``Dataset`` with a label.
            epochs: passes over ``data`` (default 1).
            batch_size: rows per training step (default 32, as Keras).
            validation_data: data evaluated after each epoch (default ``None``).
            callbacks: ``cn.estimators.Callback`` objects (Keras style: early stopping,
                checkpoints, ...).
            shuffle: a new row order each epoch (default ``True``).
            seed: the shuffling seed (default ``None``: ``config.tf_random_seed``).
            verbose: ``"auto"``, ``0``, ``1`` or ``2``, as above."""
        return keras_fit.fit(self, data, label, epochs, batch_size, validation_data, callbacks,
                             shuffle, seed, verbose)  # fmt: skip


__all__ = ["Estimator", "EstimatorSpec", "ModeKeys", "MODEL_PREFIX"]
