"""The estimator life cycle: train / evaluate / predict, fit, checkpoints and warm start.

A canned estimator is a *network* (which maps features to logits and owns its
variables), a *head* (loss, predictions, metrics) and one optimizer per part of the
network. Its ``model_fn`` is the network's logits through the head's
``create_estimator_spec``; the loop, the evaluation and the predictions consume the
``EstimatorSpec`` it returns, so a custom ``Estimator(model_fn)`` shares all three. This
module holds everything that does not depend on which network or ``model_fn`` it is.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from .. import core
from .. import data as cn_data
from ..core import checkpoint_format
from ..core.autodiff import value_of
from . import input_fn as inputs
from .callbacks import Callback
from .export import export_estimator, no_predictions_frame, predictions_frame, select_keys
from .hooks import (
    CheckpointSaverHook,
    HookRunner,
    NanTensorHook,
    SessionRunArgs,
    SessionRunHook,
    StepLog,
    StepValues,
    running,
)
from .input_pipeline import transformed_batches
from .metrics import Metric
from .progress import ProgressHook, known_rows, progress_bar, resolve_verbose
from .run_config import RunConfig, WarmStartSettings
from .tensorboard import TensorBoardHook, write_eval_summary
from .tf_names import MODEL_PREFIX, key_map, optimizer_prefixes, restore_tf_checkpoint

logger = logging.getLogger("colonnade")


class History:
    """What ``fit`` returns: ``history[key]`` is the list of per-epoch values."""

    def __init__(self):
        self.history: dict[str, list] = {}
        self.epoch: list[int] = []

    def append(self, epoch: int, logs: dict) -> None:
        self.epoch.append(epoch)
        for k, v in logs.items():
            self.history.setdefault(k, []).append(v)

    def plot(self):
        """The loss and metrics per epoch (validation beside training) as a matplotlib
        Figure; needs ``pip install "colonnade[plot]"``."""
        from .plots import plot_history

        return plot_history(self)


class ModeKeys:
    """The three modes a ``model_fn`` is called in (TF's strings)."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"

    ALL = (TRAIN, EVAL, PREDICT)


# The momentum a Momentum optimizer named by string gets (a common choice; TF has none).
NAMED_MOMENTUM = 0.9
# The epsilon an Adam optimizer named by string gets: Keras' (TF 2.15's canned estimators
# build tf.keras.optimizers.legacy.Adam from the name), not TF1's 1e-8.
NAMED_ADAM_EPSILON = 1e-7


def resolve_optimizer(optimizer, default_factory, learning_rate, global_step=None):
    """An optimizer from an instance, a name ('Adam', 'Ftrl', ... see
    :data:`colonnade.core.OPTIMIZERS`), a dict ``{"name": ..., <constructor arguments>}``
    (a config file's optimizer table), a callable returning one, or None
    (``default_factory()``).

    A name, or a dict without a ``learning_rate``, gets the estimator's ``learning_rate``
    for names (a number, or a function of the optimizer class), as tf.estimator does;
    ``"Momentum"`` gets ``momentum=0.9`` unless set, ``"Adam"`` Keras' ``epsilon=1e-7``
    (what TF 2.15's canned estimators build from the name) and ``"AdagradDA"`` the
    estimator's ``global_step``, which it needs.

    >>> opt = resolve_optimizer({"name": "Momentum", "use_nesterov": True}, None, 0.2)
    >>> type(opt).__name__, opt.learning_rate, opt.hyperparameters["momentum"]
    ('MomentumOptimizer', 0.2, 0.9)
    """
    if optimizer is None:
        return default_factory()
    if isinstance(optimizer, str):
        optimizer = {"name": optimizer}
    if isinstance(optimizer, dict):
        kwargs = {k: v for k, v in optimizer.items() if k != "name"}
        cls = core.optimizer_class(optimizer.get("name"))
        if callable(learning_rate):
            learning_rate = learning_rate(cls)
        kwargs.setdefault("learning_rate", learning_rate)
        if cls is core.MomentumOptimizer:
            kwargs.setdefault("momentum", NAMED_MOMENTUM)
        if cls is core.AdamOptimizer:
            kwargs.setdefault("epsilon", NAMED_ADAM_EPSILON)
        if cls is core.AdagradDAOptimizer:
            kwargs.setdefault("global_step", global_step)
        return cls(**kwargs)
    if callable(optimizer) and not hasattr(optimizer, "apply_gradients"):
        return optimizer()
    if not hasattr(optimizer, "apply_gradients"):
        raise TypeError(
            f"optimizer must be a name, a {{'name': ...}} dict, an optimizer or a callable "
            f"returning one; got {type(optimizer).__name__}"
        )
    return optimizer


class CannedEstimator:
    """The estimator life cycle over a ``model_fn``; subclasses build ``self._network``.

    Every step, evaluation batch and prediction batch is one :meth:`_call_model_fn` call
    returning an ``EstimatorSpec``: for a canned estimator its network's logits through
    its head's ``create_estimator_spec``; a custom :class:`~.custom.Estimator` calls the
    user's ``model_fn`` instead. ``self._parts`` is a list of ``(name, optimizer,
    variables)``: each optimizer updates its own variables (the combined model has a
    linear and a DNN part).
    """

    def __init__(self, head, model_dir=None, config=None, warm_start_from=None, weight_column=None):
        config = config or RunConfig()
        if model_dir is not None and config.model_dir not in (None, model_dir):
            raise ValueError(
                f"model_dir={model_dir!r} differs from config.model_dir={config.model_dir!r}"
            )
        model_dir = model_dir or config.model_dir
        if model_dir is None:
            model_dir = tempfile.mkdtemp(prefix="colonnade_model_")
            logger.warning("using a temporary model_dir: %s", model_dir)
        self.model_dir = _directory_path(model_dir)
        self.config = config.replace(model_dir=self.model_dir)
        self.weight_column = _weight_key(weight_column)
        if head is not None and self.weight_column is not None and head.weight_column is None:
            head = dataclasses.replace(head, weight_column=self.weight_column)
        self.head = head
        if isinstance(warm_start_from, str):
            warm_start_from = WarmStartSettings(warm_start_from)
        self.warm_start_from = warm_start_from
        self._seed = np.random.SeedSequence(config.tf_random_seed)
        self._init_rng = np.random.default_rng(self._seed.spawn(1)[0])
        self._global_step = core.Variable(
            np.int64(0), name="global_step", trainable=False, dtype=np.int64
        )
        self.stop_training = False
        self.last_run = None  # what the latest train() measured on Ray (RunStats)
        self._checkpoint = None
        self._manager = None
        self._restored = False
        self._holds = None  # (checkpoint path, its mtime, its step): what the variables hold
        self._override = None  # the checkpoint_path an evaluate/predict call reads
        self._train_lock = None  # model_dir's lock while train() or fit() runs

    # ------------------------------------------------------------------ state

    @property
    def global_step(self) -> int:
        return int(self._global_step.numpy())

    def _trackables(self) -> dict:
        """What a checkpoint holds: the network, each part's optimizer, the global step."""
        out = {"model": self._network, "global_step": self._global_step}
        out.update({name: optimizer for name, optimizer, _ in self._parts})
        return out

    def _ensure_checkpointing(self):
        if self._manager is None:
            self._checkpoint = core.Checkpoint(
                key_map=key_map(optimizer_prefixes(self._parts)), **self._trackables()
            )
            self._manager = core.CheckpointManager(
                self._checkpoint,
                self.model_dir,
                max_to_keep=self.config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=self.config.keep_checkpoint_every_n_hours,
                checkpoint_name="model.ckpt",
            )

    def latest_checkpoint(self):
        """The newest checkpoint in model_dir, or None."""
        return core.latest_checkpoint(self.model_dir)

    @property
    def params(self) -> dict:
        """TF's ``Estimator.params``: a canned estimator passes none to its model (``{}``)."""
        return {}

    def _restore_or_warm_start(self):
        """Resume from model_dir's newest intact checkpoint; otherwise apply warm_start_from.

        A lost or unreadable state file, or a damaged latest checkpoint, falls back to the
        newest intact checkpoint, with a warning naming what was skipped; a model_dir whose
        checkpoints are all damaged raises rather than training from scratch over them."""
        self._ensure_checkpointing()
        latest = self._restore_newest_intact()
        if latest is not None:
            if self.warm_start_from is not None and not self._restored:
                logger.info(
                    "warm_start_from is ignored: model_dir %s already has checkpoint "
                    "%s, so training resumes from it",
                    self.model_dir,
                    latest,
                )
            self._restored = True
            return
        self._refuse_fresh_start_over_damaged_checkpoints()
        if self.warm_start_from is not None and not self._restored:
            ws = self.warm_start_from
            core.warm_start(
                ws.ckpt_to_initialize_from,
                vars_to_warm_start=ws.vars_to_warm_start,
                var_name_to_vocab_info=ws.var_name_to_vocab_info or None,
                var_name_to_prev_var_name=ws.var_name_to_prev_var_name or None,
                variables=self._model_variables(),
                rng=self._init_rng,
            )
        self._restored = True

    def _restore_newest_intact(self):
        """Restore the newest checkpoint of model_dir that reads back intact; its path, or
        None when there is none. One that fails verification while restoring (a bad
        checksum: nothing is assigned then) is skipped with a warning for the next."""
        if self._override is not None:  # evaluate/predict(checkpoint_path=...)
            self._restore_from(self._override)
            return self._override
        held = self._held_checkpoint()
        if held is not None:
            return held
        for path in checkpoint_format.intact_checkpoints(self.model_dir):
            try:
                self._restore_from(path)
            except core.CheckpointCorruptedError as e:
                logger.warning("skipping damaged checkpoint %s: %s", path, e)
                continue
            return path
        return None

    def _held_checkpoint(self):
        """The latest checkpoint when the variables already hold it and it is unchanged
        since: nothing to check or read again (evaluate and predict ask each call)."""
        if self._holds is None:
            return None
        path, stamp, step = self._holds
        if step != self.global_step:  # trained on since, without saving
            return None
        try:
            state = core.get_checkpoint_state(self.model_dir)
            unchanged = state is not None and state.model_checkpoint_path == path
            return path if unchanged and _mtime(path) == stamp else None
        except (OSError, core.CheckpointCorruptedError):
            return None

    def _restore_from(self, path) -> None:
        """Load checkpoint ``path`` unless the variables already hold its step."""
        saved_step = int(core.load_variable(path, "global_step"))
        self._holds = None
        if not (self._restored and saved_step == self.global_step):
            self._restore_checkpoint(path)
            for layer in self._network.layers:
                layer.restored()
        self._holds = (path, _mtime(path), saved_step)

    def _restore_checkpoint(self, path) -> None:
        if checkpoint_format.is_tf_checkpoint(path):
            self._ensure_checkpointing()
            restore_tf_checkpoint(path, self._checkpoint, self._parts, self._global_step)
            return
        try:
            self._checkpoint.restore(path).assert_existing_objects_matched()
        except core.CheckpointCorruptedError:
            raise
        except (ValueError, AssertionError, KeyError) as e:
            raise ValueError(
                f"model_dir {self.model_dir!r} holds a checkpoint of a different "
                f"model ({path}): {e}. Use a new model_dir, or warm_start_from to "
                f"start from it."
            ) from e

    def _refuse_fresh_start_over_damaged_checkpoints(self) -> None:
        """Raise when model_dir holds checkpoints but none is intact: starting at step 0
        would silently throw their training away."""
        damaged = checkpoint_format.numbered_checkpoints(self.model_dir)
        if damaged:
            raise core.CheckpointCorruptedError(
                f"model_dir {self.model_dir!r} holds checkpoints but none is intact "
                f"({', '.join(os.path.basename(p) for p in damaged[:5])}); refusing to train "
                "from scratch over them. Repair or remove them, or use a new model_dir"
            )

    def _model_variables(self) -> dict:
        """The network's variables by TF's name, e.g. ``dnn/hiddenlayer_0/kernel``."""
        named = core.Checkpoint(model=self._network).named_variables()
        return {k[len(MODEL_PREFIX) :]: v for k, v in named.items()}

    def save_checkpoint(self, directory=None, file_prefix=None) -> str:
        """Write a checkpoint of the model, optimizers and global step; return its path."""
        self._ensure_checkpointing()
        if file_prefix is not None:
            return self._checkpoint.save(file_prefix)
        if directory is not None and os.fspath(directory) != self.model_dir:
            return self._checkpoint.save(os.path.join(os.fspath(directory), "model.ckpt"))
        path = self._manager.save(checkpoint_number=self.global_step)
        self._holds = (path, _mtime(path), self.global_step)  # written: intact
        return path

    def get_weights(self) -> dict:
        """Host copies of every variable, by checkpoint name."""
        return {k: v.numpy().copy() for k, v in self._model_variables().items()}

    def set_weights(self, weights: dict) -> None:
        """Assign variables from ``get_weights``' form (names from before 0.x's TF names,
        ``model/...``, are accepted too)."""
        variables = self._model_variables()
        for k, value in weights.items():
            name = k[len(MODEL_PREFIX) :] if k.startswith(MODEL_PREFIX) else k
            variables[name].assign(value)

    def get_variable_names(self) -> list:
        """TF's names of every variable, slots and ``global_step`` included, as
        ``tf.estimator``'s get_variable_names lists a model_dir's latest checkpoint
        (TF's optimizer hyperparameters aside)."""
        self._ensure_checkpointing()
        if self.latest_checkpoint() is not None:
            self._restore_or_warm_start()
        return sorted(self._checkpoint.named_variables(include_slots=True))

    def _column_parts(self) -> list:
        """``(part name, feature columns)`` of each part of the network."""
        parts = []
        if self._network.linear is not None:
            parts.append(("linear", list(self._network.linear.linear.feature_columns)))
        if self._network.dnn is not None:
            parts.append(("dnn", list(self._network.dnn.input_layer.feature_columns)))
        return parts

    def summary(self, print_fn=print) -> None:
        """Print the feature columns (by part), every variable's name, shape and size, and
        the total parameter count, one line at a time through ``print_fn`` (as Keras'
        ``Model.summary``; pass ``print_fn=lines.append`` to keep the text).

        >>> import colonnade as cn
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
        variables = self._model_variables()
        rows = [(n, tuple(variables[n].shape)) for n in sorted(variables)]
        sizes = [int(np.prod(shape, dtype=np.int64)) for _, shape in rows]
        width = max([len("variable")] + [len(n) for n, _ in rows])
        swidth = max([len("shape")] + [len(str(shape)) for _, shape in rows])
        lines = [f"{type(self).__name__} (model_dir {self.model_dir})"]
        for part, columns in self._column_parts():
            lines.append(f"{part} columns: " + ", ".join(c.name for c in columns))
        lines.append(f"{'variable':<{width}}  {'shape':<{swidth}}  size")
        for (name, shape), size in zip(rows, sizes):
            lines.append(f"{name:<{width}}  {str(shape):<{swidth}}  {size:,}")
        lines.append(f"total parameters: {sum(sizes):,}")
        for line in lines:
            print_fn(line)

    def __repr__(self) -> str:
        """The class, model_dir and the arguments that shape the model."""
        args = [f"model_dir={self.model_dir!r}"]
        for part, columns in self._column_parts():
            args.append(f"{part}_columns={[c.name for c in columns]}")
        if self._network.dnn is not None:
            args.append(f"hidden_units={self._network.dnn.hidden_units}")
        head = self.head
        if hasattr(head, "label_dimension"):
            args.append(f"label_dimension={head.label_dimension}")
        else:
            args.append(f"n_classes={len(head.class_names)}")
        return f"{type(self).__name__}({', '.join(args)})"

    def get_variable_value(self, name: str):
        """The value of one variable (or slot, or ``global_step``) by its TF name."""
        self._ensure_checkpointing()
        if self.latest_checkpoint() is not None:
            self._restore_or_warm_start()
        variables = self._checkpoint.named_variables(include_slots=True)
        if name not in variables:
            raise KeyError(f"no variable named {name!r}; the model has {sorted(variables)}")
        return variables[name].numpy()

    # ------------------------------------------------------------------ one step

    def _step_rng(self, step: int | None = None) -> np.random.Generator:
        """Randomness of one training step (dropout), derived from the seed and the global
        step (``step``, default the current one), so a run resumed from a checkpoint draws
        what an uninterrupted one would."""
        step = self.global_step if step is None else int(step)
        key = np.random.SeedSequence(self._seed.entropy, spawn_key=(1, step))
        return np.random.default_rng(key)

    def _input_columns(self) -> list:
        """The raw columns the model reads (read from files with projection pushdown)."""
        return sorted(
            cn_data.required_columns(self._network.feature_columns, weight=self.weight_column)
        )

    def _call_model_fn(self, features, labels, mode, cache=None):
        """The canned ``model_fn``: the network's logits of the batch (``cache``: its
        feature transforms, done ahead on the input thread) through the head's
        ``create_estimator_spec``, whose ``train_op_fn`` updates each part of the network
        with its own optimizer."""
        if labels is None and mode != ModeKeys.PREDICT:
            raise ValueError(
                "training needs labels: build the Dataset with label=... or have input_fn "
                "yield (features, labels)"
                if mode == ModeKeys.TRAIN
                else "evaluation needs labels: build the Dataset with label=..."
            )
        if mode == ModeKeys.TRAIN:
            logits = self._network.logits(
                features, training=True, rng=self._step_rng(), cache=cache
            )
        else:
            with core.no_grad():
                logits = self._network.logits(features, training=False, rng=None, cache=cache)
        return self.head.create_estimator_spec(
            features, mode, logits, labels, train_op_fn=self._apply_gradients
        )

    def _apply_gradients(self, loss):
        """The canned ``train_op_fn``: the gradient of the recorded ``loss`` for every
        part's variables, each part applied by its own optimizer."""
        variables = [v for _, _, part in self._parts for v in part]
        grads = core.gradients([loss], variables)
        start = 0
        for _, optimizer, part in self._parts:
            pairs = list(zip(grads[start : start + len(part)], part))
            start += len(part)
            if any(g is not None for g, _ in pairs):
                optimizer.apply_gradients(pairs)
        return loss

    def _ensure_built(self, features, labels, mode) -> None:
        """Make the variables the ``model_fn`` creates in ``mode`` before its first
        batch; a canned network has made its own already."""

    def _train_step(self, features, labels, cache=None) -> float:
        """One training step: the TRAIN spec's ``train_op`` has updated the variables;
        the global step grows by one (by the estimator when the ``model_fn`` did not)."""
        self._ensure_built(features, labels, ModeKeys.TRAIN)
        step = self.global_step
        spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, cache)
        if self.global_step == step:
            self._global_step.assign_add(1)
        self._last_predictions = spec.predictions  # fetchable by hooks (_step_tensors)
        return float(_host(spec.loss).reshape(()))

    # ------------------------------------------------------------------ TF style

    def train(
        self,
        input_fn: inputs.InputFn,
        steps: int | None = None,
        max_steps: int | None = None,
        hooks: list | None = None,
        saving_listeners: list | None = None,
        verbose: int | str = "auto",
    ) -> CannedEstimator:
        """Train on batches from ``input_fn`` until it is exhausted, ``steps`` more steps are
        done, or the global step reaches ``max_steps``. Resumes from model_dir's latest
        checkpoint and saves one at the end. Returns self.

        ``verbose``: a progress bar on stderr (``"auto"``: when it is a terminal; ``0``:
        never; see :mod:`colonnade.estimators.progress`).

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
        self._refuse_while_overridden()
        with self._training_lock():
            strategy = self.config.train_distribute
            self.last_run = None
            if strategy is None:
                return self._train(input_fn, steps, max_steps, hooks, saving_listeners, verbose)
            self.last_run = strategy.train(
                self, input_fn, steps, max_steps, hooks, saving_listeners, verbose
            )
            return self

    @contextlib.contextmanager
    def _training_lock(self):
        """Hold model_dir's lock (taken once: fit() holds it across its train() calls)."""
        if self._train_lock is not None:
            yield
            return
        lock = core.DirectoryLock(self.model_dir)
        lock.acquire()
        self._train_lock = lock
        try:
            yield
        finally:
            self._train_lock = None
            lock.release()

    def _train(self, input_fn, steps, max_steps, hooks, saving_listeners, verbose="auto"):
        """The body of :meth:`train`, run under model_dir's lock."""
        if steps is not None and max_steps is not None:
            raise ValueError("set at most one of steps and max_steps")
        for name, value in (("steps", steps), ("max_steps", max_steps)):
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be > 0, got {value}")
        self._restore_or_warm_start()
        if max_steps is not None and self.global_step >= max_steps:
            logger.info(
                "skipping training: global step %d already reached max_steps=%d",
                self.global_step,
                max_steps,
            )
            return self
        last_step = (
            max_steps
            if max_steps is not None
            else (self.global_step + steps if steps is not None else None)
        )
        all_hooks, saver = self._training_hooks(
            input_fn, last_step, hooks, saving_listeners, verbose
        )
        first_step = self.global_step
        with running(self):
            runner = HookRunner(all_hooks, self)
            if self._train_steps(input_fn, last_step, runner, saver):
                # only a clean exit ends the hooks (as TF): a failed run saves no final
                # checkpoint
                runner.end()
        if self.global_step == first_step:
            raise ValueError("training got no batches from its input: the dataset is empty")
        logger.info("trained to step %d in %.1fs", self.global_step, self._trained_for)
        return self

    def _training_hooks(self, input_fn, last_step, hooks, saving_listeners, verbose):
        """The hooks of one training run, in the order they are called, and the
        checkpoint saver among them: the user's (with a ``NanTensorHook`` unless they bring
        one), then the saver, the progress bar and TensorBoard's summaries."""
        cfg = self.config
        saver = CheckpointSaverHook(
            save_steps=cfg.save_checkpoints_steps,
            save_secs=cfg.save_checkpoints_secs,
            listeners=saving_listeners,
        )
        progress = ProgressHook(
            total_rows=known_rows(input_fn),
            total_steps=None if last_step is None else last_step - self.global_step,
            verbose=verbose,
        )
        all_hooks = _with_nan_check(list(hooks or [])) + [saver, progress]
        if cfg.save_summary_steps:
            all_hooks.append(TensorBoardHook(cfg.save_summary_steps))
        return all_hooks, saver

    def _train_steps(self, input_fn, last_step, runner, saver) -> bool:
        """The steps of one ``train`` call, each between its hooks' ``before_run`` and
        ``after_run``, until the input ends, ``last_step`` or a hook stops it. The hooks
        begin at the first batch (with those the model_fn's spec brings); whether they
        did."""
        cfg = self.config
        started, step_log = time.monotonic(), StepLog(cfg.log_step_count_steps, self.global_step)
        batches = transformed_batches(
            self._network,
            input_fn,
            repeat_single=last_step is not None,
            limit=None if last_step is None else last_step - self.global_step,
            training=True,
        )
        begun = False
        try:
            for features, labels, cache in batches:
                if not begun:
                    runner.hooks += self._spec_hooks(features, labels, "train")
                    runner.begin()
                    begun = True
                context = runner.before_run()
                before = self.global_step
                loss = self._train_step(features, labels, cache)
                runner.after_run(
                    context,
                    StepValues(
                        loss,
                        before,
                        self.global_step,
                        inputs.num_rows(features),
                        self._step_tensors,
                        self._global_step,
                    ),
                )
                step_log(self.global_step, loss)
                if context.stop_requested or (
                    last_step is not None and self.global_step >= last_step
                ):
                    break
        except KeyboardInterrupt:
            batches.close()
            self._save_on_interrupt(saver)
            raise
        finally:
            batches.close()  # stops the input thread when training ends early
        self._trained_for = time.monotonic() - started
        return begun

    def _step_tensors(self) -> dict:
        """The fetchable names of the last training step beyond ``loss``,
        ``global_step`` and ``rows``: the TRAIN spec's predictions by key (``"predictions"``
        when it is one tensor; a head's are computed only when fetched) and the model's
        variables, ``name -> zero-argument function``."""
        out = {name: var.numpy for name, var in self._model_variables().items()}
        predictions = getattr(self, "_last_predictions", None)
        if predictions is not None and not isinstance(predictions, Mapping):
            predictions = {"predictions": predictions}
        for key in predictions or {}:
            out[key] = lambda key=key: _host(predictions[key])
        return out

    def _batch_tensors(self, predictions):
        """The fetchable names of an evaluation or prediction batch: its predictions by
        key and the model's variables (``tensors()`` of :class:`~.hooks.StepValues`)."""

        def table():
            out = {name: var.numpy for name, var in self._model_variables().items()}
            out.update({key: (lambda value=value: value) for key, value in predictions.items()})
            return out

        return table

    @contextlib.contextmanager
    def _hook_scope(self):
        """Where hooks' ``begin``/``end`` run: ``cn.train.get_global_step()`` is this
        estimator's step (TF's default graph holds it)."""
        store = core.VariableStore()
        store.global_step = self._global_step
        with store.as_default():
            yield

    def _save_on_interrupt(self, saver) -> None:
        """Keep the work of an interrupted run (Ctrl-C): save its state, unless it has
        diverged (the saver skips non-finite state). An interrupt that lands inside a step
        may save that step half applied, which is finite and harmless to resume from."""
        logger.warning(
            "training interrupted at step %d; saving a checkpoint of its state", self.global_step
        )
        saver.end(None)

    def _nonfinite_variables(self) -> list:
        """Checkpoint names of the floating-point variables (optimizer slots included) that
        hold a NaN or an inf: one reduction per variable, on the variable's device."""
        self._ensure_checkpointing()
        bad = []
        for name, var in self._checkpoint.named_variables(include_slots=True).items():
            value = var.value
            if value.dtype.kind in "fc" and not bool(core.get_xp(value).isfinite(value).all()):
                bad.append(name)
        return bad

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
                input_fn, label=label, batch_size=batch_size, columns=self._input_columns()
            )
        with self._from_checkpoint(checkpoint_path), running(self):
            evaluation = self._new_evaluation()
            runner = HookRunner(list(hooks or []), self)
            seen = 0
            batches = transformed_batches(self._network, input_fn, limit=steps)
            bar = progress_bar(known_rows(input_fn), "evaluate", verbose=verbose)
            for features, labels, cache in batches:
                if seen == 0:
                    runner.hooks += self._spec_hooks(features, labels, "eval")
                    runner.begin()
                bar.update(inputs.num_rows(features))
                context = runner.before_run()
                evaluation.update(features, labels, cache)
                batch_loss, predictions = evaluation.last
                runner.after_run(
                    context,
                    StepValues(
                        batch_loss,
                        self.global_step,
                        self.global_step,
                        inputs.num_rows(features),
                        self._batch_tensors(predictions),
                        self._global_step,
                    ),
                )
                seen += 1
                if context.stop_requested:
                    break
            bar.close()
            if seen == 0:
                raise ValueError("evaluation got no batches from its input")
            runner.end()
            results = evaluation.results()
            results["global_step"] = self.global_step
        write_eval_summary(self.model_dir, name, results)
        if name is not None:
            logger.info("evaluation %s: %s", name, results)
        return results

    def eval_dir(self, name: str | None = None) -> str:
        """Where :meth:`evaluate` writes its summaries: ``model_dir/eval`` or
        ``model_dir/eval_<name>``."""
        return os.path.join(self.model_dir, "eval" if not name else f"eval_{name}")

    @contextlib.contextmanager
    def _from_checkpoint(self, checkpoint_path):
        """Hold model_dir's latest state meanwhile, or with ``checkpoint_path`` that
        checkpoint's; the variables hold what they held before afterwards."""
        self._refuse_while_overridden()
        if checkpoint_path is None:
            self._restore_or_warm_start()
            yield
            return
        path = os.fspath(checkpoint_path)
        if not core.checkpoint_exists(path):
            raise ValueError(
                f"checkpoint_path {path!r} is not a checkpoint (expected a path such as "
                f"{os.path.join(self.model_dir, 'model.ckpt-100')!r})"
            )
        self._ensure_checkpointing()
        before = self._checkpoint.named_variables(include_slots=True)
        saved = {name: var.numpy().copy() for name, var in before.items()}
        state = (self._holds, self._restored)
        self._override, self._holds, self._restored = path, None, False
        try:
            self._restore_or_warm_start()
            yield
        finally:
            self._override = None
            for name, var in before.items():
                var.assign(saved[name])
            self._holds, self._restored = state
            if set(self._checkpoint.named_variables(include_slots=True)) != set(before):
                self._holds, self._restored = None, False  # new variables: restore anew

    def _refuse_while_overridden(self) -> None:
        """Refuse to use the variables while a ``predict(checkpoint_path=...)`` iterator
        holds another checkpoint's values in them (until it ends or is closed)."""
        if self._override is not None:
            raise RuntimeError(
                f"a predict(checkpoint_path={self._override!r}) iterator of this estimator "
                "is still open and holds that checkpoint's values: exhaust it or call its "
                "close() first"
            )

    def _spec_hooks(self, features, labels, mode) -> list:
        """Hooks a ``model_fn``'s spec brings for ``mode`` (custom estimators)."""
        return []

    def _new_evaluation(self):
        """What accumulates one evaluation: ``update(features, labels, cache)`` per batch
        (then ``last``, the batch's ``(loss, predictions)``), then ``results()``."""
        return _SpecEvaluation(self)

    def _batch_predictions(self, features, cache) -> dict:
        """The predictions of one batch (the PREDICT spec's), as host arrays by key."""
        self._ensure_built(features, None, ModeKeys.PREDICT)
        with core.no_grad():
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, cache)
        predictions = spec.predictions
        if not isinstance(predictions, Mapping):
            predictions = {"predictions": predictions}
        return {k: _host(v) for k, v in predictions.items()}

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
                input_fn, batch_size=batch_size, columns=self._input_columns()
            )
            return self._predict_frame(dataset, predict_keys, verbose, hooks, checkpoint_path)
        return self._predict_dicts(
            input_fn, predict_keys, yield_single_examples, verbose, hooks, checkpoint_path
        )

    def _predict_batches(self, input_fn, predict_keys, verbose=0, hooks=None, checkpoint=None):
        with self._from_checkpoint(checkpoint), running(self):
            runner = HookRunner(list(hooks or []), self)
            bar = progress_bar(known_rows(input_fn), "predict", verbose=verbose)
            begun = False
            try:
                for features, _, cache in transformed_batches(self._network, input_fn):
                    if not begun:
                        runner.hooks += self._spec_hooks(features, None, "infer")
                        runner.begin()
                        begun = True
                    context = runner.before_run()
                    predictions = self._batch_predictions(features, cache)
                    runner.after_run(
                        context,
                        StepValues(
                            None,
                            self.global_step,
                            self.global_step,
                            inputs.num_rows(features),
                            self._batch_tensors(predictions),
                            self._global_step,
                        ),
                    )
                    bar.update(inputs.num_rows(features))
                    yield (
                        predictions
                        if predict_keys is None
                        else select_keys(predictions, predict_keys)
                    )
                    if context.stop_requested:
                        break
                if begun:
                    runner.end()
            finally:
                bar.close()

    def _predict_dicts(
        self,
        input_fn,
        predict_keys,
        yield_single_examples,
        verbose="auto",
        hooks=None,
        checkpoint=None,
    ):
        batches = self._predict_batches(input_fn, predict_keys, verbose, hooks, checkpoint)
        for predictions in batches:
            if not yield_single_examples:
                yield predictions
                continue
            n = len(next(iter(predictions.values())))
            for i in range(n):
                yield {k: v[i] for k, v in predictions.items()}

    def _predict_frame(self, dataset, predict_keys, verbose="auto", hooks=None, checkpoint=None):
        batches = self._predict_batches(dataset, predict_keys, verbose, hooks, checkpoint)
        frames = [predictions_frame(p, predict_keys) for p in batches]
        if not frames:
            frames.append(no_predictions_frame(self.head, predict_keys))
        return pd.concat(frames, ignore_index=True)

    def export_saved_model(
        self,
        export_dir_base: str | os.PathLike,
        serving_input_receiver_fn: Callable | None = None,
        assets_extra: dict | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
    ) -> str:
        """Write a self-contained, versioned export under ``export_dir_base/<timestamp>``
        (feature-column config, vocabularies, weights, head); ``cn.estimators.load`` reads
        it back. Returns the export's path.

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
        if checkpoint_path is None:
            self._refuse_while_overridden()
            return export_estimator(self, export_dir_base, serving_input_receiver_fn, assets_extra)
        with self._from_checkpoint(checkpoint_path):
            return export_estimator(self, export_dir_base, serving_input_receiver_fn, assets_extra)

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn=None, **kwargs):
        """TF1's name of :meth:`export_saved_model`."""
        return self.export_saved_model(export_dir_base, serving_input_receiver_fn, **kwargs)

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
    ) -> History:
        """Train for ``epochs`` passes over ``data`` (DataFrame, Arrow table, path/glob or
        Dataset). ``validation_data`` is evaluated after each epoch (its metrics appear in
        the logs as ``val_<key>``); it may be ``(data, label)`` or data with the same label
        column. Returns a :class:`History`.

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
        if epochs < 1:
            raise ValueError(f"epochs must be >= 1, got {epochs}")
        verbose = resolve_verbose(verbose)
        if seed is None:
            seed = self.config.tf_random_seed
        callbacks = list(callbacks or [])
        for cb in callbacks:
            if not isinstance(cb, Callback):
                raise TypeError(f"callbacks must be Callback instances, got {type(cb)}")
        self.stop_training = False
        with self._training_lock():
            return self._fit_epochs(
                data, label, epochs, batch_size, validation_data, callbacks, shuffle, seed, verbose
            )

    def _fit_epochs(
        self, data, label, epochs, batch_size, validation_data, callbacks, shuffle, seed, verbose
    ):
        """The epochs of :meth:`fit`, run under model_dir's lock."""
        history = History()
        for cb in callbacks:
            cb.on_train_begin(self)
        for epoch in range(epochs):
            for cb in callbacks:
                cb.on_epoch_begin(epoch)
            epoch_seed = None if seed is None else seed + epoch
            dataset = inputs.as_dataset(
                data,
                label=label,
                batch_size=batch_size,
                shuffle=shuffle,
                seed=epoch_seed,
                columns=self._input_columns(),
            )
            losses = _LossTracker()
            bar = ProgressHook(
                total_rows=known_rows(dataset),
                desc=f"epoch {epoch + 1}/{epochs}",
                verbose=verbose,
                close_at_end=False,
            )
            self.train(dataset, hooks=[losses, bar], verbose=0)
            logs = {"loss": losses.mean()}
            if validation_data is not None:
                vdata, vlabel = (
                    validation_data
                    if isinstance(validation_data, tuple)
                    else (validation_data, label)
                )
                results = self.evaluate(vdata, label=vlabel, verbose=0)
                logs.update({f"val_{k}": v for k, v in results.items() if k != "global_step"})
            history.append(epoch, logs)
            bar.close(logs)
            if verbose == 2:
                print(
                    f"epoch {epoch + 1}/{epochs}: "
                    + ", ".join(f"{k}={v:.4f}" for k, v in logs.items())
                )
            for cb in callbacks:
                cb.on_epoch_end(epoch, logs)
            if self.stop_training:
                break
        for cb in callbacks:
            cb.on_train_end(history.history)
        return history


class _SpecEvaluation:
    """One evaluation: the mean of the batches' EVAL-spec losses (TF's ``loss``) and
    each ``eval_metric_ops`` metric merged over all batches (a metric the ``model_fn``
    makes anew for each batch has its counts added to the first batch's)."""

    def __init__(self, estimator):
        self.estimator = estimator
        self.loss_total, self.batches = 0.0, 0
        self.metrics: dict = {}

    def update(self, features, labels, cache) -> None:
        est = self.estimator
        est._ensure_built(features, labels, ModeKeys.EVAL)
        with core.no_grad():
            spec = est._call_model_fn(features, labels, ModeKeys.EVAL, cache)
        loss = float(_host(spec.loss).reshape(()))
        self.loss_total += loss
        self.batches += 1
        predictions = spec.predictions
        if predictions is not None and not isinstance(predictions, Mapping):
            predictions = {"predictions": predictions}
        self.last = (loss, {k: _host(v) for k, v in (predictions or {}).items()})
        for name, op in spec.eval_metric_ops.items():
            metric = _metric_of(op)
            known = self.metrics.get(name)
            if known is None:
                self.metrics[name] = metric
            elif known is not metric:
                known.merge_state([metric])

    def results(self) -> dict:
        out = {"loss": self.loss_total / max(self.batches, 1)}
        out.update({name: float(m.result()) for name, m in self.metrics.items()})
        return out


def _metric_of(op) -> Metric:
    """The metric of an ``eval_metric_ops`` value: a metric, or a ``(value, update)``
    pair's value."""
    return op if isinstance(op, Metric) else op[0]


def _host(x):
    """A host numpy array of a Tensor, Variable or array."""
    return np.asarray(core.to_host(value_of(x)))


def _with_nan_check(hooks: list) -> list:
    """``hooks`` with a failing :class:`NanTensorHook` first, unless one was passed (as
    tf.estimator, which always adds one): a NaN or inf loss stops training with
    ``NanLossDuringTrainingError`` before any other hook, the saver included, sees the
    step. It checks the float loss the step already returns: no extra device sync."""
    if any(isinstance(hook, NanTensorHook) for hook in hooks):
        return list(hooks)
    return [NanTensorHook()] + list(hooks)


class _LossTracker(SessionRunHook):
    """The mean training loss of a ``train`` call (``fit``'s epoch loss)."""

    _fetches = SessionRunArgs("loss")

    def __init__(self):
        self.total, self.count = 0.0, 0

    def before_run(self, run_context):
        return self._fetches

    def after_run(self, run_context, run_values):
        self.total += float(run_values.results)
        self.count += 1

    def mean(self) -> float:
        return self.total / self.count if self.count else float("nan")


def _directory_path(model_dir) -> str:
    """``model_dir`` as a string; ``NotADirectoryError`` naming it when it is a file."""
    path = os.fspath(model_dir)
    if os.path.exists(path) and not os.path.isdir(path):
        raise NotADirectoryError(
            f"model_dir {path!r} is a file; model_dir must be a directory (or a path that "
            "does not exist yet, created at the first save)"
        )
    return path


def _weight_key(weight_column):
    if weight_column is None or isinstance(weight_column, str):
        return weight_column
    key = getattr(weight_column, "key", None)
    if key is None:
        raise TypeError(
            f"weight_column must be a column name or a numeric_column, got {weight_column!r}"
        )
    return key


def _mtime(path: str) -> int:
    """When checkpoint ``path`` was written (a TF checkpoint: its ``.index`` file)."""
    if checkpoint_format.is_tf_checkpoint(path):
        path += ".index"
    return os.stat(path).st_mtime_ns
