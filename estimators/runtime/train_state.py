"""An estimator's mutable training state, in one public place: :class:`TrainState`.

The model (its network and the optimizers of its parts), the global step, the
randomness of each step, and the checkpoints of ``model_dir``: which one the variables
hold, resuming from the newest intact one (or warm starting), saving, and evaluating or
predicting from another checkpoint for a while. The estimator's loop, its hooks, export,
TensorBoard, the zero-configuration models and ``colonnade.distribute`` all use it
through the methods below.

>>> import colonnade as cn, tempfile
>>> est = cn.estimators.LinearRegressor([cn.feature_columns.numeric_column("x")],
...                                     model_dir=tempfile.mkdtemp())
>>> state = est.train_state
>>> [(type(o).__name__, [v.name for v in vs]) for o, vs in state.trained_parts()]
[('FtrlOptimizer', ['linear/linear_model/x/weights', 'linear/linear_model/bias_weights'])]
>>> state.set_global_step(7)
>>> est.global_step, state.step_rng(7).random() == state.step_rng().random()
(7, True)
"""

from __future__ import annotations

import contextlib
import copy
import logging
import os

import numpy as np

from ... import core
from ...core import checkpoint_format
from .tf_names import TFBundleSaver, key_map, optimizer_prefixes, restore_tf_checkpoint

logger = logging.getLogger("colonnade")


class TrainState:
    """What an estimator's training changes, and the checkpoints that keep it.

    ``model`` is the estimator's model (a canned network with its optimizers, or a
    ``model_fn``'s variable store); ``global_step`` its step variable; ``seed`` the
    ``SeedSequence`` of ``config.tf_random_seed``, from which each step's randomness is
    drawn; ``init_rng`` the generator that initialized the model, which a warm start
    continues (new vocabulary rows); ``warm_start_from`` a ``WarmStartSettings`` or
    ``None``.
    """

    def __init__(self, model, global_step, seed, init_rng, model_dir, config, warm_start_from=None):
        self.model = model
        self.global_step_variable = global_step
        self.seed = seed
        self.init_rng = init_rng
        self.model_dir = model_dir
        self.config = config
        self.warm_start_from = warm_start_from
        self.checkpoint = None
        self.manager = None
        self.restored = False  # whether the variables were resumed, warm started or restored
        self.holds = None  # (checkpoint path, its mtime, its step): what the variables hold
        self.override = None  # the checkpoint_path an evaluate/predict call reads
        self.training = False  # whether train() is running (its hooks may evaluate)
        self.inferring = False  # whether evaluate/predict/export holds a checkpoint
        self.partial = False  # whether the variables hold a checkpoint without its slots
        self.tf_manager = None  # saves TF bundles in a TF model_dir taken over
        self.weights_from = None  # where the weights come from when not a checkpoint (export)
        self.in_memory = False  # whether fit()'s epochs go on from the variables as they are

    # ------------------------------------------------------------------ the model

    @property
    def global_step(self) -> int:
        """The global step, as an int."""
        return int(self.global_step_variable.numpy())

    def set_global_step(self, step: int) -> None:
        """Set the global step (steps counted elsewhere, e.g. on Ray workers)."""
        self.global_step_variable.assign(np.int64(step))

    def step_rng(self, step: int | None = None) -> np.random.Generator:
        """Randomness of one training step (dropout), derived from the seed and the global
        step (``step``, default the current one), so a run resumed from a checkpoint draws
        what an uninterrupted one would."""
        step = self.global_step if step is None else int(step)
        key = np.random.SeedSequence(self.seed.entropy, spawn_key=(1, step))
        return np.random.default_rng(key)

    @property
    def parts(self) -> list:
        """``[(name, optimizer, [variable, ...]), ...]``: each part of a canned network
        with the optimizer that updates it (empty for a ``model_fn``, whose optimizers
        live in its variable store)."""
        return self.model.parts

    def trained_parts(self) -> list:
        """``[(optimizer, [variable, ...]), ...]`` in the checkpoints' order."""
        return [(optimizer, list(variables)) for _, optimizer, variables in self.parts]

    def model_variables(self) -> dict:
        """The model's variables by TF's name, e.g. ``dnn/hiddenlayer_0/kernel``."""
        return self.model.variables()

    def named_variables(self) -> dict:
        """Every variable a checkpoint holds, optimizer slots and ``global_step`` included,
        by TF's name."""
        self.ensure_checkpointing()
        return self.checkpoint.named_variables(include_slots=True)

    def nonfinite_variables(self) -> list:
        """Checkpoint names of the floating-point variables (optimizer slots included) that
        hold a NaN or an inf: one reduction per variable, on the variable's device."""
        bad = []
        for name, var in self.named_variables().items():
            value = var.value
            if value.dtype.kind in "fc" and not bool(core.get_xp(value).isfinite(value).all()):
                bad.append(name)
        return bad

    # ------------------------------------------------------------------ checkpoints

    def ensure_checkpointing(self) -> None:
        """Make the checkpoint of the model and its manager over ``model_dir``."""
        if self.manager is None:
            trackables = {"global_step": self.global_step_variable, **self.model.trackables()}
            self.checkpoint = core.Checkpoint(
                key_map=key_map(optimizer_prefixes(self.parts)), **trackables
            )
            self.manager = core.CheckpointManager(
                self.checkpoint,
                self.model_dir,
                max_to_keep=self.config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=self.config.keep_checkpoint_every_n_hours,
                checkpoint_name="model.ckpt",
            )

    def resume(self) -> None:
        """Resume from model_dir's newest intact checkpoint; otherwise apply warm_start_from.

        A lost or unreadable state file, or a damaged latest checkpoint, falls back to the
        newest intact checkpoint, with a warning naming what was skipped; a model_dir whose
        checkpoints are all damaged raises rather than training from scratch over them."""
        self.ensure_checkpointing()
        if self.in_memory and self.override is None:
            return
        latest = self._restore_newest_intact()
        if latest is not None:
            if self.warm_start_from is not None and not self.restored:
                logger.info(
                    "warm_start_from is ignored: model_dir %s already has checkpoint "
                    "%s, so training resumes from it",
                    self.model_dir,
                    latest,
                )
            self.restored = True
            return
        self._refuse_fresh_start_over_damaged_checkpoints()
        variables = self.model_variables()
        if self.warm_start_from is not None and not self.restored and variables:
            ws = self.warm_start_from  # (a model_fn's variables exist once it has run)
            core.warm_start(
                ws.ckpt_to_initialize_from,
                vars_to_warm_start=ws.vars_to_warm_start,
                var_name_to_vocab_info=ws.var_name_to_vocab_info or None,
                var_name_to_prev_var_name=ws.var_name_to_prev_var_name or None,
                variables=variables,
                rng=self.init_rng,
            )
        self.restored = True

    def restore_new_variables(self) -> None:
        """Give variables made since the last restore (a ``model_fn``'s, on its first call
        in a mode) their values: the checkpoint's, or the warm start's."""
        self.holds, self.restored = None, False
        self.resume()

    def restore_newest(self) -> str | None:
        """Read model_dir's newest intact checkpoint again, whatever the variables hold
        now (they were changed elsewhere, e.g. on parameter servers that died); its path
        (None when model_dir has none)."""
        self.ensure_checkpointing()
        self.holds, self.restored = None, False
        path = self._restore_newest_intact()
        self.restored = True
        return path

    def _restore_newest_intact(self):
        """Restore the newest checkpoint of model_dir that reads back intact; its path, or
        None when there is none. One that fails verification while restoring (a bad
        checksum: nothing is assigned then) is skipped with a warning for the next."""
        if self.override is not None:  # evaluate/predict(checkpoint_path=...)
            self._restore_from(self.override)
            return self.override
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

    def create_slots(self) -> None:
        """Make each canned part's optimizer slots (and state) that no update has made
        yet, with their initial values: a checkpoint saved before the first step then
        holds them, as TF's does (a ``model_fn``'s are made when it is built)."""
        for optimizer, variables in self.trained_parts():
            optimizer.create_slots(variables)

    def saved_at(self, step: int) -> bool:
        """Whether model_dir's latest checkpoint is the one the variables hold, of
        ``step``: a save now would write nothing new (a run resumed from it)."""
        if self.holds is None or self.holds[2] != step:
            return False
        try:
            state = core.get_checkpoint_state(self.model_dir)
        except (OSError, core.CheckpointCorruptedError):
            return False
        return state is not None and state.model_checkpoint_path == self.holds[0]

    def _held_checkpoint(self):
        """The latest checkpoint when the variables already hold it and it is unchanged
        since: nothing to check or read again (evaluate and predict ask each call)."""
        if self.holds is None or (self.partial and not self.inferring):
            return None
        path, stamp, step = self.holds
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
        self.holds = None
        held = self.restored and saved_step == self.global_step
        if not held or (self.partial and not self.inferring):
            self._restore_checkpoint(path)
            for layer in self.model.network.layers:
                layer.restored()
        self.holds = (path, _mtime(path), saved_step)

    def optimizers_by_path(self) -> dict:
        """``{checkpoint path: optimizer}``: a canned part's (``dnn_optimizer``), or those
        of a ``model_fn``'s store (``optimizer/Adam``)."""
        out = {path: optimizer for path, optimizer, _ in self.parts}
        for key, obj in self.model.trackables().items():
            if isinstance(obj, dict):
                out.update(
                    {f"{key}/{name}": o for name, o in obj.items() if isinstance(o, core.Optimizer)}
                )
        return out

    def _restore_checkpoint(self, path) -> None:
        """Restore ``path`` (evaluate and predict: the model and global step only, as
        their TF graphs hold no optimizer); ``self.partial`` says when slots were not."""
        if checkpoint_format.is_tf_checkpoint(path):
            layout = restore_tf_checkpoint(
                path,
                self.checkpoint,
                self.parts,
                self.global_step_variable,
                self.optimizers_by_path(),
                with_slots=not self.inferring,
            )
            self.partial = self.inferring
            if not self.inferring:
                self._save_as_tf(layout)
            return
        self.partial = False
        if not self.inferring:
            self._save_as_tf(None)
        try:
            status = self.checkpoint.restore(path)
            status.assert_existing_objects_matched()
            status.expect_partial()  # another mode's variables (a model_fn's optimizer)
        except core.CheckpointCorruptedError:
            raise
        except (ValueError, AssertionError, KeyError) as e:
            raise ValueError(
                f"model_dir {self.model_dir!r} holds a checkpoint of a different "
                f"model ({path}): {e}. Use a new model_dir, or warm_start_from to "
                f"start from it."
            ) from e

    def _save_as_tf(self, layout) -> None:
        """Save as the newest checkpoint restored for training was written: a TF model_dir
        taken over stays TF's (``layout``: a :class:`~.tf_names.TFLayout`), so TF can go
        on from colonnade's checkpoints; colonnade's own format otherwise."""
        self.tf_manager = None
        if layout is None:
            return
        self.tf_manager = core.CheckpointManager(
            TFBundleSaver(self.checkpoint, layout),
            self.model_dir,
            max_to_keep=self.config.keep_checkpoint_max,
            keep_checkpoint_every_n_hours=self.config.keep_checkpoint_every_n_hours,
            checkpoint_name="model.ckpt",
        )

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

    def save(self, directory=None, file_prefix=None) -> str:
        """Write a checkpoint of the model, optimizers and global step; return its path.
        By default into model_dir, numbered by the global step, under its manager."""
        self.ensure_checkpointing()
        if file_prefix is not None:
            return self.checkpoint.save(file_prefix)
        if directory is not None and os.fspath(directory) != self.model_dir:
            return self.checkpoint.save(os.path.join(os.fspath(directory), "model.ckpt"))
        manager = self.tf_manager or self.manager
        path = manager.save(checkpoint_number=self.global_step)
        self.holds = (path, _mtime(path), self.global_step)  # written: intact
        return path

    @contextlib.contextmanager
    def training_run(self):
        """Meanwhile train() runs: an evaluate, predict or export called by its hooks
        reads a checkpoint without touching the state being trained."""
        self.training = True
        try:
            yield
        finally:
            self.training = False

    @contextlib.contextmanager
    def epochs_in_memory(self):
        """Meanwhile (``fit``'s epochs, as Keras's fit keeps its model in memory) a
        ``train`` run ends without its final checkpoint (``save_checkpoints_steps``/``secs``
        still apply), and the next run, ``evaluate`` and ``predict`` go on from the
        variables as they are, not from model_dir's latest checkpoint. On the way out one
        checkpoint is written, when training moved on, as a ``train`` run ends: after the
        last epoch or Ctrl-C, unless the state is not finite, and not after an error (the
        next call then reads the latest checkpoint again). The checkpoints a fit does not
        need per epoch cost a file per variable, synced to disk, and the removal of an older
        one: a third of a small model's fit. A ``model_fn``'s variables appear on its first
        call in each mode and are restored from the checkpoint then, so its epochs still go
        through one."""
        if not self.parts:
            yield
            return
        self.resume()
        start, self.in_memory = self.global_step, True
        clean = False
        try:
            yield
            clean = True
        except KeyboardInterrupt:
            clean = True
            raise
        finally:
            self.in_memory = False
            saved = self.holds is not None and self.holds[2] == self.global_step
            if self.global_step != start:
                if clean and not self.nonfinite_variables():
                    self.save_replacing_this_step()
                elif not saved:
                    self.holds, self.restored = None, False

    def save_replacing_this_step(self) -> str:
        """:meth:`save`, where a checkpoint of this very step that this process wrote may
        hold other values: a fit's periodic save landed on its last step, then a callback
        set the weights (``EarlyStopping(restore_best_weights=True)``). That checkpoint is
        replaced, so model_dir's latest holds what the model holds; one with the same
        values is kept as it is (the writer compares checksums)."""
        try:
            return self.save()
        except FileExistsError:
            if self.holds is None or self.holds[2] != self.global_step:
                raise
            core.remove_checkpoint(self.holds[0])
            return self.save()

    @contextlib.contextmanager
    def from_checkpoint(self, checkpoint_path, purpose="predict"):
        """Hold model_dir's latest checkpoint meanwhile, or with ``checkpoint_path`` that
        checkpoint's; ``purpose`` (``"evaluate"`` or ``"predict"``) words the warning
        when there is none (:meth:`log_untrained`). With a ``checkpoint_path``, or during
        training (a hook evaluating every N steps: TF evaluates in a graph of its own),
        the variables, optimizer slots and global step hold what they held before
        afterwards. The model's local variables start from their initial values (TF runs
        its ``local_init_op`` in each call's session)."""
        self.refuse_while_overridden()
        if checkpoint_path is None and not self.training:
            with self._inferring():
                self.resume()
                self.model.reset_local_variables()
                self.log_untrained(purpose)
                yield
            return
        path = None
        if checkpoint_path is not None:
            path = os.fspath(checkpoint_path)
            if not (core.checkpoint_exists(path) or core.checkpoint_index.is_tf_checkpoint(path)):
                raise ValueError(
                    f"checkpoint_path {path!r} is not a checkpoint (expected a path such as "
                    f"{os.path.join(self.model_dir, 'model.ckpt-100')!r})"
                )
        before = self.named_variables()
        saved = {name: var.numpy().copy() for name, var in before.items()}
        state = (self.holds, self.restored, self.partial)
        self.override = path
        if path is not None:
            self.holds, self.restored = None, False
        try:
            with self._inferring():
                self.resume()
                self.model.reset_local_variables()
                yield
        finally:
            self.override = None
            for name, var in before.items():
                var.assign(saved[name])
            self.holds, self.restored, self.partial = state
            if set(self.named_variables()) != set(before):
                self.holds, self.restored = None, False  # new variables: restore anew

    @contextlib.contextmanager
    def _inferring(self):
        before, self.inferring = self.inferring, True
        try:
            yield
        finally:
            self.inferring = before

    def log_untrained(self, purpose="predict") -> None:
        """Say in TF's words that model_dir has no checkpoint, so ``purpose`` (evaluate
        or predict) uses the model's initial values (TF's "running initialization"): at
        WARNING, where TF logs at INFO, so that an untrained model's output is never
        silent (Python shows warnings by default)."""
        if (
            self.weights_from is None
            and not self.in_memory  # fit's epochs: the variables hold its training
            and not self.holds
            and core.latest_checkpoint(self.model_dir) is None
        ):
            logger.warning(
                "Could not find trained model in model_dir: %s, running initialization to %s.",
                self.model_dir,
                purpose,
            )

    def refuse_while_overridden(self) -> None:
        """Refuse to use the variables while a ``predict(checkpoint_path=...)`` iterator
        holds another checkpoint's values in them (until it ends or is closed)."""
        if self.override is not None:
            raise RuntimeError(
                f"a predict(checkpoint_path={self.override!r}) iterator of this estimator "
                "is still open and holds that checkpoint's values: exhaust it or call its "
                "close() first"
            )

    def for_worker(self) -> TrainState:
        """A copy for a worker process, which trains steps and saves nothing: without a
        checkpoint, its manager or a record of the checkpoint it holds, and with
        state-free copies of the optimizers (the parameter servers hold their state). The
        variables are this state's own until the copy is pickled."""
        out = copy.copy(self)
        out.checkpoint = out.manager = out.holds = out.tf_manager = None
        out.model = self.model.for_worker()
        return out


def _mtime(path: str) -> int:
    """When checkpoint ``path`` was written (a TF checkpoint: its ``.index`` file)."""
    if checkpoint_format.is_tf_checkpoint(path):
        path += ".index"
    return os.stat(path).st_mtime_ns
