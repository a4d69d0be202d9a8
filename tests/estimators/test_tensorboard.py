"""TensorBoard event files, read back with TensorBoard's own reader."""

import os

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")

fc = cn.feature_columns
E = cn.estimators


def frame(n=80, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": (x > 0).astype(int)})


def scalars(directory) -> dict:
    acc = event_accumulator.EventAccumulator(str(directory))
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


class Losses(E.SessionRunHook):
    def __init__(self):
        self.by_step = {}

    def before_run(self, run_context):
        return E.SessionRunArgs({"step": "global_step", "loss": "loss"})

    def after_run(self, run_context, run_values):
        self.by_step[(run_values.results["step"] + 1)] = run_values.results["loss"]


def test_training_scalars_every_save_summary_steps_across_train_calls(tmp_path):
    config = E.RunConfig(tf_random_seed=1, log_step_count_steps=0, save_summary_steps=4)
    est = E.LinearClassifier([fc.numeric_column("x")], model_dir=str(tmp_path), config=config)
    losses = Losses()
    ds = cn.data.Dataset.from_pandas(frame(), label="y").batch(8)  # 10 steps a pass
    est.train(ds, hooks=[losses])
    est.train(ds, hooks=[losses])
    files = [f for f in os.listdir(tmp_path) if f.startswith("events.out.tfevents.")]
    assert files and all(f.split(".")[-1] for f in files)  # ...<time>.<host>
    got = scalars(tmp_path)
    assert {"loss", "global_step/sec", "learning_rate"} <= set(got)
    steps = [4, 8, 12, 16, 20]  # multiples of 4 of the global step, across both calls
    assert [s for s, _ in got["loss"]] == steps
    assert [v for _, v in got["loss"]] == pytest.approx([losses.by_step[s] for s in steps])
    assert [s for s, _ in got["global_step/sec"]] == steps
    assert all(v > 0 for _, v in got["global_step/sec"])
    assert [v for _, v in got["learning_rate"]] == pytest.approx([0.2] * 5)  # Ftrl's default


def test_learning_rate_schedules_and_parts(tmp_path):
    config = E.RunConfig(tf_random_seed=1, log_step_count_steps=0, save_summary_steps=5)
    est = E.DNNLinearCombinedRegressor(
        linear_feature_columns=[fc.numeric_column("x")],
        dnn_feature_columns=[fc.numeric_column("x")],
        dnn_hidden_units=[3],
        dnn_optimizer=cn.train.GradientDescentOptimizer(learning_rate=lambda s: 0.1 / (1 + s)),
        model_dir=str(tmp_path),
        config=config,
    )
    est.train(cn.data.Dataset.from_pandas(frame(), label="y").batch(8))
    got = scalars(tmp_path)
    # the rate the step that reached global step s used: the schedule at step s - 1
    assert got["dnn_optimizer/learning_rate"] == [
        (5, pytest.approx(0.1 / 5)),
        (10, pytest.approx(0.1 / 10)),
    ]
    assert "linear_optimizer/learning_rate" in got


def test_evaluation_metrics_in_eval_dirs(tmp_path):
    config = E.RunConfig(tf_random_seed=1, log_step_count_steps=0)
    est = E.LinearClassifier([fc.numeric_column("x")], model_dir=str(tmp_path), config=config)
    est.fit(frame(), label="y", batch_size=8)
    results = est.evaluate(frame(40, seed=1), label="y")
    named = est.evaluate(frame(40, seed=2), label="y", name="holdout")
    for directory, expected in (("eval", results), ("eval_holdout", named)):
        got = scalars(tmp_path / directory)
        metrics = {k: v for k, v in expected.items() if k != "global_step"}
        assert set(got) == set(metrics)
        for tag, value in metrics.items():
            assert got[tag] == [(expected["global_step"], pytest.approx(value, rel=1e-6))]


def test_save_summary_steps_0_writes_no_training_events(tmp_path):
    config = E.RunConfig(tf_random_seed=1, log_step_count_steps=0, save_summary_steps=0)
    est = E.LinearClassifier([fc.numeric_column("x")], model_dir=str(tmp_path), config=config)
    est.train(cn.data.Dataset.from_pandas(frame(), label="y").batch(8))
    assert not [f for f in os.listdir(tmp_path) if f.startswith("events.out")]


def test_a_model_fns_summaries_are_written_with_the_loss(tmp_path):
    """tf.summary.scalar/histogram in a model_fn: written on the summary steps, at the
    values of those steps (an eval inside training does not replace them)."""
    seen = {}

    def model_fn(features, labels, mode):
        w = cn.core.get_variable("w", (1, 1), initializer=cn.core.initializers.zeros())
        x = features["x"].reshape(-1, 1).astype(np.float32)
        logits = cn.core.matmul(x, w)[:, 0]
        loss = cn.core.reduce_mean(cn.core.square(logits - labels))
        step = int(cn.train.get_global_step().numpy()) + 1
        seen[step] = float(loss.numpy())
        cn.summary.scalar("my_loss", loss, family="custom")
        cn.compat.v1.summary.histogram("logits", logits)
        train_op = cn.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=cn.train.get_global_step()
        )
        return E.EstimatorSpec(mode, loss=loss, train_op=train_op)

    config = E.RunConfig(save_summary_steps=3, log_step_count_steps=0)
    est = E.Estimator(model_fn, model_dir=str(tmp_path), config=config)
    data = cn.data.Dataset.from_pandas(frame(), label="y").batch(8)
    est.train(lambda: data.repeat(), steps=7)
    got = scalars(tmp_path)
    assert [s for s, _ in got["custom/my_loss"]] == [3, 6]
    np.testing.assert_allclose([v for _, v in got["custom/my_loss"]], [seen[3], seen[6]], rtol=1e-6)
    acc = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"histograms": 0})
    acc.Reload()
    assert "logits" in acc.Tags()["histograms"]
    assert [e.step for e in acc.Histograms("logits")] == [3, 6]
