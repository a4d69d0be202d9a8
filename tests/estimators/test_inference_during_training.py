"""evaluate, predict and export called by a hook during train() read a checkpoint and
leave the state being trained alone (TF builds them a graph of their own): training with
such a hook reaches max_steps with the weights of training without it."""

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

E, fc = cn.estimators, cn.feature_columns


def frame(n=96):
    rng = np.random.default_rng(0)
    x = rng.normal(size=n).astype(np.float32)
    return pd.DataFrame({"a": rng.integers(0, 4, n), "x": x, "y": (x > 0).astype(np.int64)})


def canned(model_dir):
    config = E.RunConfig(
        tf_random_seed=3, save_summary_steps=0, log_step_count_steps=0, save_checkpoints_steps=5
    )
    columns = [
        fc.numeric_column("x"),
        fc.indicator_column(fc.categorical_column_with_identity("a", 4)),
    ]
    return E.DNNClassifier([4], columns, optimizer="Adam", model_dir=str(model_dir), config=config)


def model_fn(features, labels, mode):
    logits = cn.layers.dense(np.asarray(features["x"], np.float32).reshape(-1, 1), 1, name="out")
    if mode == E.ModeKeys.PREDICT:
        return E.EstimatorSpec(mode, predictions={"logits": logits})
    loss = cn.losses.mean_squared_error(np.asarray(labels, np.float32).reshape(-1, 1), logits)
    if mode == E.ModeKeys.EVAL:
        return E.EstimatorSpec(mode, {"logits": logits}, loss)
    train_op = cn.train.AdamOptimizer(0.1).minimize(loss, global_step=cn.train.get_global_step())
    return E.EstimatorSpec(mode, {"logits": logits}, loss, train_op)


def custom(model_dir):
    config = E.RunConfig(tf_random_seed=3, save_summary_steps=0, log_step_count_steps=0,
                         save_checkpoints_steps=5)  # fmt: skip
    return E.Estimator(model_fn, model_dir=str(model_dir), config=config)


def batches(df):
    def input_fn():
        for start in range(0, len(df), 8):
            chunk = df.iloc[start : start + 8]
            yield {"a": chunk["a"].to_numpy(), "x": chunk["x"].to_numpy()}, chunk["y"].to_numpy()

    return input_fn


class InferenceEveryNSteps(cn.train.SessionRunHook):
    """Evaluates, predicts and exports every ``every`` steps, as a user's hook does."""

    def __init__(self, est, every, export_base):
        self.est, self.every, self.export_base = est, every, export_base
        self.steps_seen, self.results = [], []

    def after_run(self, run_context, run_values):
        step = self.est.global_step
        self.steps_seen.append(step)
        if step % self.every:
            return
        df = frame(16)
        self.results.append(self.est.evaluate(batches(df), verbose=0))
        list(self.est.predict(batches(df), verbose=0))
        if self.export_base is not None and self.est.latest_checkpoint():
            self.est.export_saved_model(str(self.export_base))


@pytest.mark.parametrize("build", [canned, custom])
def test_inference_in_a_hook_leaves_training_alone(build, tmp_path):
    plain = build(tmp_path / "plain")
    plain.train(batches(frame()), max_steps=12, verbose=0)

    est = build(tmp_path / "hooked")
    export = tmp_path / "exports" if build is canned else None
    hook = InferenceEveryNSteps(est, 3, export)
    est.train(batches(frame()), max_steps=12, hooks=[hook], verbose=0)

    assert est.global_step == 12
    assert hook.steps_seen == list(range(1, 13))
    # the evaluations read the checkpoint saved at step 0 (TF 2.15's model.ckpt-0), 5 or 10
    assert [r["global_step"] for r in hook.results] == [0, 5, 5, 10]
    want, got = plain.get_weights(), est.get_weights()
    assert sorted(want) == sorted(got)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-6, atol=1e-7, err_msg=name)
    assert cn.train.latest_checkpoint(str(tmp_path / "hooked")).endswith("model.ckpt-12")
