"""Training fails safely: divergence stops it, and a failed run never becomes the latest
checkpoint (only a clean exit, or an interrupt with finite state, saves at the end)."""

import logging
import os
import signal

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
from colonnade.estimators.hooks.runner import running_estimator

E = cn.estimators
fc = cn.feature_columns

pytestmark = pytest.mark.filterwarnings(
    "ignore:overflow encountered:RuntimeWarning", "ignore:invalid value:RuntimeWarning"
)


def frame(n=64, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.normal(size=n) * 10, "y": rng.normal(size=n) * 100})


def dataset(n=64):
    return cn.data.Dataset.from_pandas(frame(n), label="y").batch(8).repeat()


def regressor(model_dir, learning_rate=1e-4, **config):
    config.setdefault("save_checkpoints_steps", 1000)
    return E.LinearRegressor(
        [fc.numeric_column("x")],
        optimizer=cn.train.GradientDescentOptimizer(learning_rate),
        config=E.RunConfig(model_dir=str(model_dir), log_step_count_steps=0, **config),
    )


def saved_steps(model_dir) -> list:
    """Global steps of the checkpoint directories in model_dir, sorted."""
    names = [n for n in os.listdir(model_dir) if n.startswith("model.ckpt-") and ".tmp-" not in n]
    return sorted(int(n.rsplit("-", 1)[1]) for n in names)


def all_finite(checkpoint) -> bool:
    reader = cn.train.load_checkpoint(checkpoint)
    arrays = [reader.get_tensor(k) for k in reader.keys()]
    return all(np.isfinite(a).all() for a in arrays if a.dtype.kind == "f")


class RaiseAt(E.SessionRunHook):
    """Raise ``error`` in after_run once the global step reaches ``step``."""

    def __init__(self, step, error):
        self.step, self.error = step, error

    def before_run(self, run_context):
        return E.SessionRunArgs({"step": "global_step"})

    def after_run(self, run_context, run_values):
        if (run_values.results["step"] + 1) >= self.step:
            raise self.error


class PoisonAt(E.SessionRunHook):
    """Overwrite the model's weights with NaN after ``step``: finite loss, diverged state."""

    def __init__(self, step):
        self.step = step

    def begin(self):
        self.estimator = running_estimator("PoisonAt")

    def before_run(self, run_context):
        return E.SessionRunArgs({"step": "global_step"})

    def after_run(self, run_context, run_values):
        if (run_values.results["step"] + 1) == self.step:
            for var in self.estimator.train_state.model_variables().values():
                var.assign(np.full(var.shape, np.nan, var.dtype))


# ---------------------------------------------------------------- divergence


def test_train_stops_on_a_diverging_loss_and_keeps_the_last_good_checkpoint(tmp_path):
    regressor(tmp_path).train(dataset(), steps=2)
    good = cn.train.latest_checkpoint(tmp_path)
    diverging = regressor(tmp_path, learning_rate=1e6)
    with pytest.raises(E.NanLossDuringTrainingError, match=r"loss = (nan|inf) at step \d+"):
        diverging.train(dataset(), steps=50)
    assert cn.train.latest_checkpoint(tmp_path) == good
    assert saved_steps(tmp_path) == [0, 2]  # model.ckpt-0: TF 2.15 saves the starting state too
    assert all_finite(good)


def test_fit_stops_on_a_diverging_loss_without_saving(tmp_path):
    est = regressor(tmp_path, learning_rate=1e6)
    with pytest.raises(E.NanLossDuringTrainingError):
        est.fit(frame(512), label="y", epochs=3, batch_size=8)
    assert saved_steps(tmp_path) == []


def test_periodic_saves_never_write_a_diverged_model(tmp_path):
    """Every-step saving: the weights overflow a step before the loss does; that step and
    the failing one are not saved, the checkpoints on disk are all finite."""
    est = regressor(tmp_path, learning_rate=1e6, save_checkpoints_steps=1)
    with pytest.raises(E.NanLossDuringTrainingError):
        est.train(dataset(), steps=50)
    steps = saved_steps(tmp_path)
    assert steps and all(all_finite(tmp_path / f"model.ckpt-{s}") for s in steps)
    assert cn.train.latest_checkpoint(tmp_path).endswith(f"model.ckpt-{steps[-1]}")


def test_a_diverged_state_with_a_finite_loss_is_not_saved(tmp_path, caplog):
    est = regressor(tmp_path, save_checkpoints_steps=1)
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        with pytest.raises(E.NonFiniteStateError, match="at step 3"):  # its refused save
            est.train(dataset(), steps=10, hooks=[PoisonAt(3)])
    assert saved_steps(tmp_path) == [0, 1, 2]  # model.ckpt-0: TF 2.15 saves the starting state too
    assert "not saving a checkpoint at step 3" in caplog.text
    assert "linear/linear_model/x/weights" in caplog.text


def test_a_users_nan_hook_that_only_stops_replaces_the_default(tmp_path, caplog):
    est = regressor(tmp_path, learning_rate=1e6)
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        est.train(dataset(), steps=50, hooks=[E.NanTensorHook(fail_on_nan_loss=False)])
    assert est.global_step < 50 and "stopping training" in caplog.text
    # a clean exit saves, but never non-finite weights
    assert all(all_finite(tmp_path / f"model.ckpt-{s}") for s in saved_steps(tmp_path))


# ---------------------------------------------------------------- exits and the final save


def test_a_failed_run_does_not_save_its_state_at_the_end(tmp_path):
    est = regressor(tmp_path)
    est.train(dataset(), steps=3)
    with pytest.raises(RuntimeError, match="hook failed"):
        est.train(dataset(), steps=10, hooks=[RaiseAt(6, RuntimeError("hook failed"))])
    assert est.global_step == 6
    assert saved_steps(tmp_path) == [0, 3]  # model.ckpt-0: TF 2.15 saves the starting state too


def test_an_input_error_fails_at_its_batch_and_saves_nothing(tmp_path):
    data = frame(32)
    data["x"] = data["x"].astype(object)
    data.loc[20, "x"] = "not a number"
    batches = [(data.iloc[i : i + 8][["x"]], data.iloc[i : i + 8]["y"].to_numpy()) for i in (0, 8)]
    bad = data.iloc[16:24]
    steps = []

    class Steps(E.SessionRunHook):
        def before_run(self, run_context):
            return E.SessionRunArgs({"step": "global_step"})

        def after_run(self, run_context, run_values):
            steps.append(run_values.results["step"] + 1)

    def input_fn():
        for features, labels in batches:
            yield {"x": features["x"].astype(float).to_numpy()}, labels
        yield {"x": bad["x"].to_numpy()}, bad["y"].to_numpy()

    est = regressor(tmp_path)
    with pytest.raises((ValueError, TypeError)):
        est.train(input_fn, hooks=[Steps()])
    assert steps == [1, 2]  # the two good batches trained; the third failed at its turn
    assert saved_steps(tmp_path) == [0]  # model.ckpt-0: TF 2.15 saves the starting state too


def test_keyboard_interrupt_saves_finite_state_then_reraises(tmp_path, caplog):
    est = regressor(tmp_path)
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        with pytest.raises(KeyboardInterrupt):
            est.train(dataset(), steps=10, hooks=[RaiseAt(4, KeyboardInterrupt())])
    assert saved_steps(tmp_path) == [0, 4]  # model.ckpt-0: TF 2.15 saves the starting state too
    assert "training interrupted at step 4" in caplog.text
    assert regressor(tmp_path).evaluate(dataset(), steps=1)["global_step"] == 4


def test_keyboard_interrupt_with_diverged_state_saves_nothing(tmp_path):
    est = regressor(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        est.train(dataset(), steps=10, hooks=[PoisonAt(2), RaiseAt(2, KeyboardInterrupt())])
    assert saved_steps(tmp_path) == [0]  # model.ckpt-0: TF 2.15 saves the starting state too


def test_a_ctrl_c_inside_a_periodic_save_still_saves_that_step(tmp_path):
    """Issue 29: the saver marked the step as saved before saving, so an interrupt that
    landed inside the save logged "saving a checkpoint" and saved nothing."""

    class InterruptFirstPeriodicSave(E.CheckpointSaverListener):
        def __init__(self):
            self.saves = []

        def before_save(self, session, global_step_value):
            self.saves.append(global_step_value)
            if len(self.saves) == 2:
                raise KeyboardInterrupt

    listener = InterruptFirstPeriodicSave()
    est = regressor(tmp_path, save_checkpoints_steps=2)
    with pytest.raises(KeyboardInterrupt):
        est.train(dataset(), max_steps=10, saving_listeners=[listener], verbose=0)
    assert listener.saves == [0, 2, 2]  # interrupted at step 2 (after TF's step-0 save)
    assert saved_steps(tmp_path) == [0, 2]


def test_a_fit_whose_optimizer_state_overflows_with_a_finite_loss_fails(tmp_path):
    """Issue 29: a 1e30 feature overflows Ftrl's accumulators while the loss stays finite;
    fit returned normally, having saved nothing, and evaluate then scored an untrained
    model."""
    est = E.LinearClassifier([fc.numeric_column("x")], model_dir=str(tmp_path))
    data = pd.DataFrame({"x": [1e30, -1e30, 1.0, 2.0] * 8, "y": [1, 0, 1, 0] * 8})
    with np.errstate(all="ignore"):
        with pytest.raises(
            E.NonFiniteStateError, match=r"at step 4 with NaN or inf in .*accumulator"
        ):
            est.fit(data, label="y", epochs=1, batch_size=8, verbose=0)
    assert cn.train.latest_checkpoint(str(tmp_path)) is None
    assert issubclass(E.NonFiniteStateError, E.NanLossDuringTrainingError)


def test_sigterm_saves_the_steps_since_the_last_checkpoint(tmp_path):
    """Issue 29: SIGTERM (a preempted job) exited silently and lost the steps since the
    last save; it is handled as Ctrl-C is, as TF saves on preemption."""

    class TermAt(E.SessionRunHook):
        def before_run(self, run_context):
            return E.SessionRunArgs("global_step")

        def after_run(self, run_context, run_values):
            if run_values.results + 1 == 3:
                os.kill(os.getpid(), signal.SIGTERM)

    est = regressor(tmp_path)  # saves every 1,000 steps
    # Python's default handling, as a plain program has (ray.init, run by earlier tests in
    # this process, installs a handler of its own, which training leaves alone)
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            est.train(dataset(), max_steps=10, hooks=[TermAt()], verbose=0)
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # handling restored
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert saved_steps(tmp_path) == [0, 3]  # model.ckpt-0: TF 2.15 saves the starting state too
