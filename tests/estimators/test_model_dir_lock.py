"""One trainer per model_dir: a lock held during train()/fit(), released on every exit and
by the kernel when its process dies; a model_dir that is a file is refused by name."""

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

E = cn.estimators
fc = cn.feature_columns


def frame(n=32):
    x = np.linspace(-1, 1, n)
    return pd.DataFrame({"x": x, "y": 2 * x})


def regressor(model_dir):
    return E.LinearRegressor(
        [fc.numeric_column("x")],
        config=E.RunConfig(model_dir=str(model_dir), log_step_count_steps=0),
    )


class AtStep(E.SessionRunHook):
    """Call ``fn()`` once at global step ``step``; keep what it raised."""

    def __init__(self, step, fn):
        self.step, self.fn, self.error = step, fn, None

    def before_run(self, run_context):
        return E.SessionRunArgs({"step": "global_step"})

    def after_run(self, run_context, run_values):
        if (run_values.results["step"] + 1) == self.step:
            try:
                self.fn()
            except Exception as e:  # noqa: BLE001 - the test inspects it
                self.error = e


def test_a_second_trainer_on_the_same_model_dir_fails_at_once(tmp_path):
    second = regressor(tmp_path)
    hook = AtStep(2, lambda: second.fit(frame(), label="y", batch_size=8))
    regressor(tmp_path).train(
        cn.data.Dataset.from_pandas(frame(), label="y").batch(8), hooks=[hook]
    )
    assert isinstance(hook.error, cn.core.DirectoryLockedError)
    assert str(tmp_path) in str(hook.error) and str(os.getpid()) in str(hook.error)
    assert second.global_step == 0  # it did nothing
    second.fit(frame(), label="y", batch_size=8)  # released when the first one finished
    assert second.global_step == 8


def test_the_lock_is_released_when_training_fails(tmp_path):
    class Fail(E.SessionRunHook):
        def after_run(self, run_context, run_values):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        regressor(tmp_path).train(
            cn.data.Dataset.from_pandas(frame(), label="y").batch(8), hooks=[Fail()]
        )
    regressor(tmp_path).fit(frame(), label="y", batch_size=8)  # not locked out


def test_fit_holds_the_lock_across_its_epochs(tmp_path):
    locked_out = []

    class Probe(E.Callback):
        def on_epoch_end(self, epoch, logs):
            try:
                cn.core.DirectoryLock(tmp_path).acquire()
            except cn.core.DirectoryLockedError:
                locked_out.append(epoch)

    regressor(tmp_path).fit(frame(), label="y", epochs=2, batch_size=8, callbacks=[Probe()])
    assert locked_out == [0, 1]


def test_a_lock_held_by_another_process_blocks_until_it_dies(tmp_path):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time, colonnade as cn\n"
            f"cn.core.DirectoryLock({str(tmp_path)!r}).acquire()\n"
            "print('locked', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(cn.core.DirectoryLockedError, match=rf"{holder.pid}@"):
            regressor(tmp_path).fit(frame(), label="y", batch_size=8)
    finally:
        holder.kill()
        holder.wait()
    est = regressor(tmp_path)
    est.fit(frame(), label="y", batch_size=8)  # a dead holder's lock is no lock
    assert est.global_step == 4


def test_a_model_dir_that_is_a_file_is_refused_by_name(tmp_path):
    path = tmp_path / "model"
    path.write_text("not a directory")
    with pytest.raises(NotADirectoryError, match=r"model_dir .*model.* is a file"):
        regressor(path)
    with pytest.raises(NotADirectoryError, match="is a file"):
        cn.core.DirectoryLock(path).acquire()


def test_dir_lock_docstring_examples_run():
    import doctest

    from colonnade.core import dir_lock

    result = doctest.testmod(dir_lock)
    assert result.failed == 0 and result.attempted > 0
