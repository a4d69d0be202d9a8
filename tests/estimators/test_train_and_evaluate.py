"""train_and_evaluate, its specs and exporters, add_metrics; evaluate/predict from a
given checkpoint; the TF-named methods both kinds of estimator have; custom exports
with a serving input receiver."""

import json
import os

import numpy as np
import pandas as pd
import pytest
from test_hooks import LR, X, Y, linear_model_fn  # the model_fn and data both files use

import colonnade as cn
from colonnade.estimators.hooks.tensorboard import write_eval_summary
from colonnade.estimators.runtime import training

E = cn.estimators
fc = cn.feature_columns
ModeKeys, EstimatorSpec = E.ModeKeys, E.EstimatorSpec


def numpy_weights(steps):
    """(w, b) after ``steps`` steps of ``linear_model_fn`` on (X, Y), in plain numpy."""
    w, b = 0.0, 0.0
    x, y = X[:, 0].astype(np.float64), Y[:, 0].astype(np.float64)
    for _ in range(steps):
        r = w * x + b - y
        w, b = w - LR * np.mean(2 * r * x), b - LR * np.mean(2 * r)
    return w, b


def numpy_loss(steps):
    w, b = numpy_weights(steps)
    return float(np.mean((w * X + b - Y) ** 2))


def custom(tmp_path, save_steps=2, name="m"):
    config = E.RunConfig(
        save_checkpoints_steps=save_steps,
        keep_checkpoint_max=100,
        log_step_count_steps=0,
        save_summary_steps=0,
    )
    return E.Estimator(linear_model_fn, model_dir=str(tmp_path / name), config=config)


def input_fn():
    return {"x": X}, Y


class StepsSeen(E.SessionRunHook):
    """An evaluation hook: the global step of each evaluation."""

    def __init__(self):
        self.steps = []

    def begin(self):
        self._step = cn.train.get_global_step()

    def after_create_session(self, session, coord):
        self.steps.append(int(self._step.numpy()))


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Tick(E.SessionRunHook):
    """Each training step takes one second on ``clock``."""

    def __init__(self, clock):
        self.clock = clock

    def after_run(self, run_context, run_values):
        self.clock.now += 1.0


# ---------------------------------------------------------------- the specs


def test_specs_are_validated_as_tf():
    with pytest.raises(TypeError, match="input_fn must be callable"):
        E.TrainSpec(input_fn=3)
    with pytest.raises(ValueError, match="max_steps > 0, given: -1"):
        E.TrainSpec(input_fn, max_steps=-1)
    with pytest.raises(TypeError, match="SessionRunHook instances"):
        E.TrainSpec(input_fn, hooks=[object()])
    with pytest.raises(TypeError, match="CheckpointSaverListener instances"):
        E.TrainSpec(input_fn, saving_listeners=[print])
    with pytest.raises(ValueError, match="steps > 0, given: 0"):
        E.EvalSpec(input_fn, steps=0)
    with pytest.raises(TypeError, match="name must be a string"):
        E.EvalSpec(input_fn, name=3)
    with pytest.raises(ValueError, match="start_delay_secs >= 0"):
        E.EvalSpec(input_fn, start_delay_secs=-1)
    with pytest.raises(TypeError, match="exporters must be an Exporter"):
        E.EvalSpec(input_fn, exporters=[3])
    latest = E.LatestExporter("same", None)
    with pytest.raises(ValueError, match="unique names"):
        E.EvalSpec(input_fn, exporters=[latest, E.FinalExporter("same", None)])
    spec = E.EvalSpec(input_fn, exporters=latest)
    assert spec.exporters == (latest,) and spec.steps == 100 and spec.throttle_secs == 600
    assert E.TrainSpec(input_fn).hooks == ()
    with pytest.raises(TypeError, match="train_spec must be a TrainSpec"):
        E.train_and_evaluate(custom_estimator_stub(), input_fn, spec)


def custom_estimator_stub():
    return E.Estimator(linear_model_fn)


def test_exporter_arguments_are_checked():
    with pytest.raises(ValueError, match="exports_to_keep"):
        E.LatestExporter("a", None, exports_to_keep=0)
    with pytest.raises(ValueError, match="non-empty string"):
        E.LatestExporter("", None)
    with pytest.raises(ValueError, match="best_eval_result"):
        E.BestExporter(compare_fn=lambda a, b: True)
    with pytest.raises(TypeError, match="serving_input_receiver_fn must come from"):
        E.FinalExporter("final", lambda: "a TF receiver")


# ---------------------------------------------------------------- evaluation schedule


def test_each_new_checkpoint_is_evaluated_and_the_result_is_the_last(tmp_path):
    est = custom(tmp_path)
    seen = StepsSeen()
    result, exports = E.train_and_evaluate(
        est,
        E.TrainSpec(input_fn, max_steps=7),
        E.EvalSpec(input_fn, steps=None, hooks=[seen], start_delay_secs=0, throttle_secs=0),
    )
    assert seen.steps == [2, 4, 6, 7]
    assert result["global_step"] == 7 and exports == []
    assert result["loss"] == pytest.approx(numpy_loss(7), rel=1e-5)
    assert est.global_step == 7


def test_throttle_secs_skips_checkpoints_and_the_last_is_always_evaluated(tmp_path, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(training, "_now", clock)
    seen = StepsSeen()
    E.train_and_evaluate(
        custom(tmp_path),
        E.TrainSpec(input_fn, max_steps=10, hooks=[Tick(clock)]),
        E.EvalSpec(input_fn, hooks=[seen], start_delay_secs=0, throttle_secs=3),
    )
    # saves at t = 2, 4, 6, 8, 10: 2 (the first), 6 (4 s later), 10 (the last)
    assert seen.steps == [2, 6, 10]


def test_start_delay_secs_holds_the_first_evaluation(tmp_path, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(training, "_now", clock)
    seen = StepsSeen()
    E.train_and_evaluate(
        custom(tmp_path),
        E.TrainSpec(input_fn, max_steps=10, hooks=[Tick(clock)]),
        E.EvalSpec(input_fn, hooks=[seen], start_delay_secs=5, throttle_secs=0),
    )
    assert seen.steps == [6, 8, 10]


def test_nothing_to_train_returns_none(tmp_path):
    est = custom(tmp_path)
    est.train(input_fn, steps=3, verbose=0)
    result = E.train_and_evaluate(
        est, E.TrainSpec(input_fn, max_steps=3), E.EvalSpec(input_fn, throttle_secs=0)
    )
    assert result == (None, None)


def test_eval_spec_name_writes_to_eval_name(tmp_path):
    est = custom(tmp_path)
    E.train_and_evaluate(
        est,
        E.TrainSpec(input_fn, max_steps=2),
        E.EvalSpec(input_fn, name="holdout", start_delay_secs=0, throttle_secs=0),
    )
    assert est.eval_dir("holdout") == os.path.join(est.model_dir, "eval_holdout")
    assert any(n.startswith("events.out.tfevents") for n in os.listdir(est.eval_dir("holdout")))
    assert not os.path.exists(est.eval_dir())


# ---------------------------------------------------------------- exporters


def export_steps(base) -> list:
    out = []
    for name in sorted(os.listdir(base)):
        with open(os.path.join(base, name, "model.json")) as f:
            out.append(json.load(f)["global_step"])
    return out


def test_latest_and_final_exporters(tmp_path):
    est = custom(tmp_path)
    latest = E.LatestExporter("latest", None, exports_to_keep=2)
    final = E.FinalExporter("final", None)
    result, exports = E.train_and_evaluate(
        est,
        E.TrainSpec(input_fn, max_steps=8),
        E.EvalSpec(input_fn, exporters=[latest, final], start_delay_secs=0, throttle_secs=0),
    )
    root = os.path.join(est.model_dir, "export")
    assert export_steps(os.path.join(root, "latest")) == [6, 8]  # evaluated 2, 4, 6, 8
    assert export_steps(os.path.join(root, "final")) == [8]
    assert [os.path.dirname(p) for p in exports] == [
        os.path.join(root, "latest"),
        os.path.join(root, "final"),
    ]
    predictor = cn.load(exports[1], model_fns={"linear_model_fn": linear_model_fn})
    w, b = numpy_weights(8)
    got = predictor.predict({"x": X[:, 0]})["y"].to_numpy()
    np.testing.assert_allclose(got, (w * X + b)[:, 0], rtol=1e-5)


def test_final_exporter_without_max_steps_never_exports_as_tf(tmp_path):
    est = custom(tmp_path)
    _, exports = E.train_and_evaluate(
        est,
        E.TrainSpec(input_fn),  # one pass of the input: 1 step
        E.EvalSpec(input_fn, exporters=E.FinalExporter("final", None), throttle_secs=0),
    )
    assert exports == [None]


class FakeEstimator:
    def __init__(self, model_dir):
        self.model_dir = model_dir
        self.exported = []

    def export_saved_model(self, base, receiver, assets_extra, as_text, checkpoint_path):
        self.exported.append(checkpoint_path)
        os.makedirs(os.path.join(base, str(1000 + len(self.exported))))
        return checkpoint_path


def run_best(exporter, est, results):
    return [
        exporter.export(est, os.path.join(est.model_dir, "export", "best"), f"ckpt-{i}", r, False)
        for i, r in enumerate(results)
    ]


def test_best_exporter_exports_each_new_lowest_loss(tmp_path):
    est = FakeEstimator(str(tmp_path))
    exporter = E.BestExporter(event_file_pattern=None, exports_to_keep=2)
    losses = [3.0, 2.0, 2.5, 1.0, 1.0]
    got = run_best(exporter, est, [{"loss": v} for v in losses])
    assert got == ["ckpt-0", "ckpt-1", None, "ckpt-3", None]
    assert sorted(os.listdir(os.path.join(str(tmp_path), "export", "best"))) == ["1002", "1003"]


def test_best_exporter_with_compare_fn(tmp_path):
    def higher_auc(best_eval_result, current_eval_result):
        return current_eval_result["auc"] > best_eval_result["auc"]

    est = FakeEstimator(str(tmp_path))
    exporter = E.BestExporter("best", None, event_file_pattern=None, compare_fn=higher_auc)
    got = run_best(exporter, est, [{"auc": a} for a in (0.7, 0.6, 0.8, 0.75)])
    assert got == ["ckpt-0", None, "ckpt-2", None]


def test_best_exporter_reads_earlier_results_from_event_files(tmp_path):
    for step, loss in ((10, 0.9), (20, 0.4), (30, 0.6)):
        write_eval_summary(
            str(tmp_path), None, {"loss": loss, "auc": 1 - loss, "global_step": step}
        )
    exporter = E.BestExporter()
    est = FakeEstimator(str(tmp_path))
    assert run_best(exporter, est, [{"loss": 0.5}]) == ["ckpt-0"]  # TF: its first, always
    assert exporter.best_eval_result == {"loss": 0.5}
    fresh = E.BestExporter()
    fresh._has_exported = True  # what a second evaluation compares with
    fresh.export(est, os.path.join(str(tmp_path), "x"), "c", {"loss": 0.45}, False)
    # 0.45 loses to the 0.4 read back from the events, so nothing was exported
    assert fresh.best_eval_result == pytest.approx({"loss": 0.4, "auc": 0.6})


# ---------------------------------------------------------------- add_metrics


def test_add_metrics_accumulates_over_the_whole_evaluation(tmp_path):
    est = custom(tmp_path)
    est.train(input_fn, steps=3, verbose=0)

    def metric_fn(labels, predictions, features):
        assert set(features) == {"x"}
        return {
            "mae": cn.metrics.mean_absolute_error(labels, predictions["y"]),
            "loss": cn.metrics.mean(np.zeros(len(labels))),  # replaces the estimator's
        }

    with_metrics = E.add_metrics(est, metric_fn)
    batches = [({"x": X[i : i + 3]}, Y[i : i + 3]) for i in range(0, 8, 3)]  # 3, 3, 2 rows
    results = with_metrics.evaluate(lambda: iter(batches), verbose=0)
    w, b = numpy_weights(3)
    assert results["mae"] == pytest.approx(float(np.mean(np.abs(w * X + b - Y))), rel=1e-5)
    assert results["loss"] == 0.0
    assert "mae" not in est.evaluate(lambda: iter(batches), verbose=0)
    assert type(with_metrics).__name__ == "Estimator" and with_metrics.model_dir == est.model_dir


def test_add_metrics_on_a_canned_estimator(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.normal(size=40)})
    frame["y"] = (frame["x"] > 0).astype(int)
    est = E.LinearClassifier([fc.numeric_column("x")], model_dir=str(tmp_path / "lin"))
    est.train(cn.data.Dataset.from_pandas(frame, label="y").batch(8), verbose=0)

    def metric_fn(labels, predictions):
        return {"my_accuracy": cn.metrics.accuracy(labels, predictions["class_ids"][:, 0])}

    results = E.add_metrics(est, metric_fn).evaluate(frame, label="y", batch_size=16, verbose=0)
    assert results["my_accuracy"] == pytest.approx(results["accuracy"], abs=1e-6)


def test_add_metrics_refuses_unknown_arguments_and_bad_metrics(tmp_path):
    with pytest.raises(ValueError, match=r"arguments \['mode'\]"):
        E.add_metrics(custom(tmp_path), lambda labels, mode: {})
    est = custom(tmp_path)
    est.train(input_fn, steps=1, verbose=0)
    with pytest.raises(TypeError, match="metric 'm' must be a"):
        E.add_metrics(est, lambda predictions: {"m": 1.0}).evaluate(input_fn, verbose=0)


# ---------------------------------------------------------------- evaluate/predict API


def canned(tmp_path):
    config = E.RunConfig(save_checkpoints_steps=2, keep_checkpoint_max=10, log_step_count_steps=0)
    return E.LinearRegressor(
        [fc.numeric_column("x")],
        optimizer=cn.train.GradientDescentOptimizer(LR),
        model_dir=str(tmp_path / "canned"),
        config=config,
    )


@pytest.mark.parametrize("kind", ["custom", "canned"])
def test_evaluate_and_predict_from_a_checkpoint_leave_the_state_alone(tmp_path, kind):
    est = custom(tmp_path) if kind == "custom" else canned(tmp_path)
    est.train(input_fn, steps=4, verbose=0)
    first = os.path.join(est.model_dir, "model.ckpt-2")
    latest_before = list(est.predict(lambda: ({"x": X}, None), verbose=0))
    results = est.evaluate(input_fn, checkpoint_path=first, verbose=0)
    assert results["global_step"] == 2
    assert results["loss"] == pytest.approx(numpy_loss(2), rel=1e-5)
    old = est.predict(lambda: ({"x": X}, None), checkpoint_path=first, verbose=0)
    key = "y" if kind == "custom" else "predictions"
    w, b = numpy_weights(2)
    np.testing.assert_allclose([p[key][0] for p in old], (w * X + b)[:, 0], rtol=1e-5)
    assert est.global_step == 4
    after = list(est.predict(lambda: ({"x": X}, None), verbose=0))
    np.testing.assert_array_equal([p[key] for p in after], [p[key] for p in latest_before])
    assert est.evaluate(input_fn, verbose=0)["global_step"] == 4
    with pytest.raises(ValueError, match="is not a checkpoint"):
        est.evaluate(input_fn, checkpoint_path=str(tmp_path / "nothing"), verbose=0)


@pytest.mark.parametrize("kind", ["custom", "canned"])
def test_both_kinds_have_tfs_methods(tmp_path, kind):
    est = custom(tmp_path) if kind == "custom" else canned(tmp_path)
    assert est.latest_checkpoint() is None
    assert est.params == {}
    assert est.eval_dir() == os.path.join(est.model_dir, "eval")
    assert est.eval_dir("a") == os.path.join(est.model_dir, "eval_a")
    est.train(input_fn, steps=2, verbose=0)
    assert est.latest_checkpoint() == os.path.join(est.model_dir, "model.ckpt-2")
    batches = list(est.predict(input_fn, yield_single_examples=False, verbose=0))
    assert len(batches) == 1 and len(next(iter(batches[0].values()))) == len(X)
    extra = tmp_path / "notes.txt"
    extra.write_text("hello")
    path = est.export_savedmodel(
        str(tmp_path / "exports"),
        None,
        assets_extra={"docs/notes.txt": str(extra)},
        strip_default_attrs=True,  # TF 1's graph-def option, accepted
    )
    assert open(os.path.join(path, "assets.extra", "docs", "notes.txt")).read() == "hello"
    with pytest.raises(ValueError, match="relative path"):
        est.export_saved_model(str(tmp_path / "x"), assets_extra={"../out": str(extra)})


def test_custom_export_with_a_parsing_receiver_predicts_examples(tmp_path):
    est = custom(tmp_path)
    est.train(input_fn, steps=3, verbose=0)
    spec = {"x": cn.io.FixedLenFeature([], "float32")}
    receiver_fn = E.build_parsing_serving_input_receiver_fn(spec)
    path = est.export_saved_model(str(tmp_path / "exports"), receiver_fn)
    predictor = cn.load(path, model_fns={"linear_model_fn": linear_model_fn})
    assert predictor.takes_examples and predictor.serving_input_receiver == receiver_fn()
    rows = pd.DataFrame({"x": X[:, 0]})
    cn.io.write_tfrecord(rows, str(tmp_path / "rows.tfrecord"))
    serialized = list(cn.io.tf_record_iterator(str(tmp_path / "rows.tfrecord")))
    got = predictor.predict_examples(serialized)
    pd.testing.assert_frame_equal(got, predictor.predict(rows))
    w, b = numpy_weights(3)
    np.testing.assert_allclose(got["y"].to_numpy(), (w * X + b)[:, 0], rtol=1e-5)
    plain = cn.load(
        est.export_saved_model(str(tmp_path / "plain")),
        model_fns={"linear_model_fn": linear_model_fn},
    )
    with pytest.raises(ValueError, match="takes no serialized tf.Example records"):
        plain.predict_examples(serialized)


def test_a_model_fns_training_hooks_run(tmp_path):
    seen = []

    class Count(E.SessionRunHook):
        def after_run(self, run_context, run_values):
            seen.append(1)

    def model_fn(features, labels, mode):
        spec = linear_model_fn(features, labels, mode)
        if mode != ModeKeys.TRAIN:
            return spec
        return EstimatorSpec(
            mode, spec.predictions, spec.loss, spec.train_op, training_hooks=[Count()]
        )

    est = E.Estimator(model_fn, model_dir=str(tmp_path / "h"))
    est.train(input_fn, steps=3, verbose=0)
    est.train(input_fn, steps=2, verbose=0)
    assert len(seen) == 5


def test_a_canned_estimator_with_the_best_exporter(tmp_path):
    est = canned(tmp_path)
    best = E.BestExporter(exports_to_keep=2)
    result, exports = E.train_and_evaluate(
        est,
        E.TrainSpec(input_fn, max_steps=6),
        E.EvalSpec(input_fn, exporters=[best], start_delay_secs=0, throttle_secs=0),
    )
    assert result["global_step"] == 6
    # gradient descent on a convex loss: every evaluation is the best so far
    assert export_steps(os.path.join(est.model_dir, "export", "best_exporter")) == [4, 6]
    w, b = numpy_weights(6)
    got = cn.load(exports[0]).predict({"x": X[:, 0]})["predictions"].to_numpy()
    np.testing.assert_allclose(got.astype(float), (w * X + b)[:, 0], rtol=1e-5)
    assert best.best_eval_result["loss"] == pytest.approx(numpy_loss(6), rel=1e-5)


def test_an_open_predict_iterator_from_a_checkpoint_blocks_other_uses(tmp_path):
    est = custom(tmp_path)
    est.train(input_fn, steps=4, verbose=0)
    first = os.path.join(est.model_dir, "model.ckpt-2")
    batches = [({"x": X[i : i + 4]}, None) for i in (0, 4)]
    iterator = est.predict(lambda: iter(batches), checkpoint_path=first, verbose=0)
    next(iterator)
    with pytest.raises(RuntimeError, match="iterator of this estimator is still open"):
        est.train(input_fn, steps=1, verbose=0)
    with pytest.raises(RuntimeError, match="still open"):
        est.evaluate(input_fn, verbose=0)
    iterator.close()  # restores the estimator's own state
    assert est.evaluate(input_fn, verbose=0)["global_step"] == 4
    est.train(input_fn, steps=1, verbose=0)
    assert est.global_step == 5


def test_a_model_fn_without_hooks_is_not_called_again_for_them(tmp_path):
    calls = []

    def model_fn(features, labels, mode):
        calls.append(mode)
        return linear_model_fn(features, labels, mode)

    est = E.Estimator(model_fn, model_dir=str(tmp_path / "n"))
    est.train(input_fn, steps=3, verbose=0)
    assert calls == ["train"] * 4  # one call to build (and ask for hooks), one per step
    est.train(input_fn, steps=2, verbose=0)
    est.evaluate(input_fn, verbose=0)
    est.evaluate(input_fn, verbose=0)
    assert calls == ["train"] * 6 + ["eval"] * 3
