"""Checkpoint saving keyed on the global step (and a clock that does not restart) across
fit's epochs, each of which is a train() call."""

import os
import re
import types

import numpy as np
import pandas as pd

import colonnade as cn
from colonnade.estimators.hooks import basic as hooks
from colonnade.estimators.hooks import runner as hook_runner
from colonnade.estimators.hooks import timers as hook_timers

fc = cn.feature_columns
E = cn.estimators


def frame(n=56, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": (x > 0).astype(int)})


def saved_steps(model_dir) -> list:
    found = {
        int(m.group(1)) for f in os.listdir(model_dir) if (m := re.match(r"model\.ckpt-(\d+)$", f))
    }
    return sorted(found)


def test_step_checkpoints_land_on_multiples_of_the_global_step_across_epochs(tmp_path):
    config = E.RunConfig(
        tf_random_seed=1, log_step_count_steps=0, save_checkpoints_steps=5, keep_checkpoint_max=100
    )
    est = E.LinearClassifier([fc.numeric_column("x")], model_dir=str(tmp_path), config=config)
    est.fit(frame(), label="y", epochs=3, batch_size=8, verbose=0)  # 7 steps an epoch
    # multiples of 5 across the epochs (not 12, 19: 5 after each epoch's start), and the
    # end of the fit (21); fit keeps its epochs in memory, so not 7 and 14
    assert saved_steps(tmp_path) == [5, 10, 15, 20, 21]


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_the_time_based_saver_goes_on_from_the_previous_train_call(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(hook_timers, "now", clock)

    class FakeEstimator:
        global_step = 0
        train_state = types.SimpleNamespace(in_memory=False)

        def nonfinite_variables(self):
            return []

        def save_checkpoint(self, directory):
            saves.append((self.global_step, clock.now))
            return "path"

    saves = []
    est = FakeEstimator()

    def run(steps, seconds_per_step):
        hook = hooks.CheckpointSaverHook(save_secs=60)
        with hook_runner.running(est):
            hook.begin()
            for _ in range(steps):
                clock.now += seconds_per_step
                est.global_step += 1
                hook.after_run(
                    hook_runner.SessionRunContext(None), hook_runner.SessionRunValues(None)
                )
            hook.end(None)

    run(4, 10.0)  # t=1010..1040: saved at its end, t=1040
    clock.now += 50  # a validation pass between epochs: t=1090
    run(4, 10.0)  # due at t=1100 (60 s after the last save, not after this call began)
    assert saves == [(4, 1040.0), (5, 1100.0), (8, 1130.0)]
