"""What TF-style hooks cost a training step (issue 15).

Times the hook machinery alone — ``HookRunner.before_run`` + ``after_run`` of the hooks
every ``train()`` runs (``NanTensorHook``, the checkpoint saver, the progress bar, off) and
of those plus a ``LoggingTensorHook`` fetching ``loss``/``global_step`` every step — and,
for scale, a whole step of a small ``LinearClassifier`` (batch 1024, 8 numeric columns,
hashed categorical) in the same run. Prints one JSON line per measurement.

    python benchmarks/hooks.py [--steps 20000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import numpy as np
import pandas as pd

import colonnade as cn
from colonnade.estimators.hooks import basic as H
from colonnade.estimators.hooks import runner as hook_runner
from colonnade.estimators.hooks.progress import ProgressHook


class _Estimator:
    """What the hooks ask of an estimator, without a model."""

    def __init__(self, model_dir):
        self.model_dir = model_dir
        self.global_step = 0
        self.step_variable = cn.core.Variable(np.int64(0), dtype=np.int64)

    def hook_scope(self):
        store = cn.core.VariableStore()
        store.global_step = self.step_variable
        return store.as_default()

    def nonfinite_variables(self):
        return []

    def save_checkpoint(self, directory=None):
        return ""


def time_runner(hooks, steps, model_dir) -> float:
    """Microseconds per step of the runner's before_run + after_run."""
    est = _Estimator(model_dir)
    with hook_runner.running(est):
        runner = hook_runner.HookRunner(hooks, est)
        runner.begin()
        started = time.perf_counter()
        for _ in range(steps):
            context = runner.before_run()
            est.global_step += 1
            step = hook_runner.StepValues(
                0.5, est.global_step - 1, est.global_step, 1024, dict, None
            )
            runner.after_run(context, step)
        elapsed = time.perf_counter() - started
    return 1e6 * elapsed / steps


def time_training(steps, model_dir) -> float:
    """Microseconds per training step of a small LinearClassifier (hooks included)."""
    rng = np.random.default_rng(0)
    n = 1024 * 50
    frame = pd.DataFrame({f"x{i}": rng.normal(size=n) for i in range(8)})
    frame["c"] = rng.integers(0, 10_000, size=n).astype(str)
    frame["y"] = (frame["x0"] > 0).astype(int)
    fc = cn.feature_columns
    columns = [fc.numeric_column(f"x{i}") for i in range(8)]
    columns.append(fc.categorical_column_with_hash_bucket("c", 1000))
    config = cn.estimators.RunConfig(
        log_step_count_steps=0, save_summary_steps=0, save_checkpoints_steps=10**9
    )
    est = cn.estimators.LinearClassifier(columns, model_dir=model_dir, config=config)
    data = cn.data.Dataset.from_pandas(frame, label="y").batch(1024).cache().repeat()
    est.train(data, steps=20, verbose=0)  # warm up
    started = time.perf_counter()
    est.train(data, steps=steps, verbose=0)
    return 1e6 * (time.perf_counter() - started) / steps


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--train-steps", type=int, default=300)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as model_dir:
        default = [
            H.NanTensorHook(),
            H.CheckpointSaverHook(save_steps=10**9),
            ProgressHook(verbose=0),
        ]
        logging_hook = H.LoggingTensorHook(["loss", "global_step"], every_n_iter=10**9)
        step_us = time_training(args.train_steps, model_dir)
        for name, hooks in (("default", default), ("default+logging", default + [logging_hook])):
            us = time_runner(hooks, args.steps, model_dir)
            print(
                json.dumps(
                    {
                        "benchmark": "hooks",
                        "hooks": name,
                        "us_per_step": round(us, 2),
                        "linear_step_us": round(step_us, 1),
                        "share_of_step": round(us / step_us, 4),
                    }
                )
            )


if __name__ == "__main__":
    main()
