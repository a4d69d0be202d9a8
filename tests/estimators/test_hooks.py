"""Hooks with TF's signatures: call order, fetches, stopping, listeners, the step counter,
the adapter for colonnade's first hooks, and hooks in evaluate/predict."""

import json
import logging
import os
import pathlib

import numpy as np
import pytest

import colonnade as cn
from colonnade.estimators.hooks import runner as hook_runner
from colonnade.estimators.hooks import timers as hook_timers

E = cn.estimators
fc = cn.feature_columns
ModeKeys, EstimatorSpec = E.ModeKeys, E.EstimatorSpec

X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(-1, 1)
Y = 3 * X + 1
LR = 0.1


def linear_model_fn(features, labels, mode):
    """y = w x + b from zeros, mean squared error, plain gradient descent."""
    w = cn.core.get_variable("w", [1, 1], initializer=np.zeros((1, 1), np.float32))
    b = cn.core.get_variable("b", [1], initializer=np.zeros(1, np.float32))
    x = np.asarray(features["x"], np.float32).reshape(-1, 1)
    y_hat = cn.core.matmul(x, w) + b
    predictions = {"y": y_hat}
    if mode == ModeKeys.PREDICT:
        return EstimatorSpec(mode, predictions=predictions)
    loss = cn.losses.mean_squared_error(labels, y_hat)
    if mode == ModeKeys.EVAL:
        return EstimatorSpec(mode, predictions, loss)
    train_op = cn.train.GradientDescentOptimizer(LR).minimize(
        loss, global_step=cn.train.get_global_step()
    )
    return EstimatorSpec(mode, predictions, loss, train_op)


def numpy_replay(steps):
    """The losses and (w, b) after each step of ``linear_model_fn``, in plain numpy."""
    w, b, out = 0.0, 0.0, []
    x, y = X[:, 0].astype(np.float64), Y[:, 0].astype(np.float64)
    for _ in range(steps):
        r = w * x + b - y
        loss = np.mean(r**2)
        w, b = w - LR * np.mean(2 * r * x), b - LR * np.mean(2 * r)
        out.append((loss, w, b))
    return out


def estimator(tmp_path, **config):
    config.setdefault("log_step_count_steps", 0)
    config.setdefault("save_summary_steps", 0)
    return E.Estimator(linear_model_fn, model_dir=str(tmp_path / "m"), config=E.RunConfig(**config))


def input_fn():
    return {"x": X}, Y


class Recorder(E.SessionRunHook):
    """Records every call, TF's signatures only."""

    def __init__(self, calls):
        self.calls = calls

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append(("after_create_session", session, coord))

    def before_run(self, run_context):
        self.calls.append("before_run")

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")

    def end(self, session):
        self.calls.append(("end", session))


def test_hook_call_order_is_tfs(tmp_path):
    calls = []
    estimator(tmp_path).train(input_fn, steps=3, hooks=[Recorder(calls)], verbose=0)
    # TF's MonitoredSession: begin, after_create_session, (before_run, after_run) per
    # step, end; sessions and coordinators do not exist here.
    assert calls == [
        "begin",
        ("after_create_session", None, None),
        *["before_run", "after_run"] * 3,
        ("end", None),
    ]


class TFStyleHook(cn.train.SessionRunHook):
    """Written as a TF 1.x user writes one; only ``tf.`` became ``cn.``."""

    def __init__(self):
        self.seen = []

    def begin(self):
        self._global_step_tensor = cn.train.get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use TFStyleHook.")

    def before_run(self, run_context):
        return cn.train.SessionRunArgs(
            {"step": self._global_step_tensor, "loss": "loss:0", "w": "w", "y": "y"}
        )

    def after_run(self, run_context, run_values):
        results = run_values.results
        self.seen.append(results)
        if results["step"] + 1 >= 4:
            run_context.request_stop()


def test_a_ported_tf_hook_fetches_what_tf_would(tmp_path):
    hook = TFStyleHook()
    est = estimator(tmp_path)
    est.train(input_fn, steps=10, hooks=[hook], verbose=0)
    assert est.global_step == 4  # request_stop after the step whose read step was 3
    replay = numpy_replay(4)
    assert [int(r["step"]) for r in hook.seen] == [0, 1, 2, 3]  # read before the step
    for results, (loss, w, _) in zip(hook.seen, replay):
        assert isinstance(results["loss"], np.float32)
        np.testing.assert_allclose(results["loss"], loss, rtol=1e-5)
        np.testing.assert_allclose(results["w"], [[w]], rtol=1e-5)  # after the update
    # the TRAIN spec's predictions: of the weights before the step
    _, w1, b1 = replay[0]
    np.testing.assert_allclose(hook.seen[1]["y"], w1 * X + b1, rtol=1e-5)


def test_fetch_forms_a_name_a_list_and_a_tuple(tmp_path):
    got = []

    class Forms(E.SessionRunHook):
        def __init__(self, fetches):
            self.fetches = fetches

        def before_run(self, run_context):
            return E.SessionRunArgs(self.fetches)

        def after_run(self, run_context, run_values):
            got.append(run_values.results)

    hooks = [Forms("global_step"), Forms(["loss", "rows"]), Forms(("rows",))]
    estimator(tmp_path).train(input_fn, steps=1, hooks=hooks, verbose=0)
    assert got[0] == 0
    assert isinstance(got[1], list) and got[1][1] == len(X)
    assert got[2] == (len(X),)


def test_an_unknown_fetch_lists_the_names_that_exist(tmp_path):
    class Missing(E.SessionRunHook):
        def before_run(self, run_context):
            return E.SessionRunArgs(["loss", "cross_entropy"])

    with pytest.raises(ValueError, match="Missing.before_run fetches 'cross_entropy'") as info:
        estimator(tmp_path).train(input_fn, steps=1, hooks=[Missing()], verbose=0)
    for name in ("'b'", "'global_step'", "'loss'", "'w'", "'y'"):
        assert name in str(info.value)


def test_before_run_returning_another_type_names_the_hook(tmp_path):
    class Wrong(E.SessionRunHook):
        def before_run(self, run_context):
            return ["loss"]

    with pytest.raises(TypeError, match="Wrong.before_run must return a SessionRunArgs or None"):
        estimator(tmp_path).train(input_fn, steps=1, hooks=[Wrong()], verbose=0)


def test_a_fetch_of_another_kind_is_refused():
    with pytest.raises(TypeError, match="fetches a float"):
        hook_runner.StepValues(0.0, 0, 1, 1, dict, None).resolve(1.5, Recorder([]))


def test_feed_dict_cannot_be_honoured():
    with pytest.raises(ValueError, match="feed_dict"):
        E.SessionRunArgs("loss", feed_dict={"x": 1})


def test_hooks_must_be_session_run_hooks(tmp_path):
    with pytest.raises(TypeError, match="must be a SessionRunHook, given: <object"):
        estimator(tmp_path).train(input_fn, steps=1, hooks=[object()], verbose=0)


def test_canned_estimators_expose_the_heads_predictions_and_variables(tmp_path):
    """With a learning rate of 0 the weights stay put, so the step's fetched
    probabilities are what predict gives for the same rows."""
    frame_x = np.random.default_rng(0).normal(size=16).astype(np.float32)
    labels = (frame_x > 0).astype(np.int64)
    est = E.LinearClassifier(
        [fc.numeric_column("x")],
        optimizer=cn.train.GradientDescentOptimizer(0.0),
        model_dir=str(tmp_path / "lin"),
        config=E.RunConfig(log_step_count_steps=0, save_summary_steps=0),
    )
    seen = []

    class Fetch(E.SessionRunHook):
        def before_run(self, run_context):
            return E.SessionRunArgs(["probabilities", "linear/linear_model/x/weights"])

        def after_run(self, run_context, run_values):
            seen.append(run_values.results)

    est.train(lambda: ({"x": frame_x}, labels), steps=1, hooks=[Fetch()], verbose=0)
    predicted = next(
        est.predict(lambda: ({"x": frame_x}, None), yield_single_examples=False, verbose=0)
    )
    np.testing.assert_allclose(seen[0][0], predicted["probabilities"], rtol=1e-6)
    np.testing.assert_array_equal(
        seen[0][1], est.get_variable_value("linear/linear_model/x/weights")
    )


def test_logging_tensor_hook_every_n_iter_dict_formatter_and_at_end(tmp_path, caplog):
    hook = E.LoggingTensorHook({"the loss": "loss", "step": "global_step"}, every_n_iter=2)
    formatted = E.LoggingTensorHook(
        ["loss"], at_end=True, formatter=lambda values: f"final loss {values['loss']:.6f}"
    )
    with caplog.at_level(logging.INFO, logger="colonnade"):
        estimator(tmp_path).train(input_fn, steps=5, hooks=[hook, formatted], verbose=0)
    lines = [r.getMessage() for r in caplog.records if "the loss" in r.getMessage()]
    assert [line.split("step = ")[1] for line in lines] == ["0", "2", "4"]  # as TF
    loss_4 = numpy_replay(5)[4][0]
    assert f"final loss {loss_4:.6f}" in caplog.text


def test_logging_tensor_hook_arguments_are_checked():
    with pytest.raises(ValueError, match="at_end and/or exactly one"):
        E.LoggingTensorHook(["loss"])
    with pytest.raises(TypeError, match="list of names or a dict"):
        E.LoggingTensorHook("loss", every_n_iter=1)
    with pytest.raises(ValueError, match="exactly one"):
        E.LoggingTensorHook(["loss"], every_n_iter=1, every_n_secs=1)


def test_stop_at_step_hook_with_last_step(tmp_path):
    est = estimator(tmp_path)
    est.train(input_fn, steps=100, hooks=[E.StopAtStepHook(last_step=3)], verbose=0)
    assert est.global_step == 3
    est.train(input_fn, steps=100, hooks=[E.StopAtStepHook(num_steps=2)], verbose=0)
    assert est.global_step == 5


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def read_scalars(directory, tag):
    from colonnade.estimators.export.exporters import _scalar_events

    out = {}
    for name in sorted(os.listdir(directory)):
        from tensorboardX.proto import event_pb2

        for record in cn.io.tf_record_iterator(os.path.join(directory, name)):
            event = event_pb2.Event.FromString(record)
            for value in event.summary.value:
                if value.tag == tag:
                    out[event.step] = value.simple_value
    assert _scalar_events  # the exporters' reader reads the same files
    return out


def test_step_counter_hook_writes_global_steps_per_second(tmp_path, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(hook_timers, "now", clock)

    class Tick(E.SessionRunHook):  # each step takes 0.5 s on the fake clock
        def after_run(self, run_context, run_values):
            clock.now += 0.5

    out = tmp_path / "counter"
    hook = E.StepCounterHook(every_n_steps=2, output_dir=str(out))
    estimator(tmp_path).train(input_fn, steps=7, hooks=[Tick(), hook], verbose=0)
    # the clock starts at step 1; then every 2 steps took 1 s: 2 steps/s at 3, 5, 7
    assert read_scalars(out, "global_step/sec") == {3: 2.0, 5: 2.0, 7: 2.0}


def test_step_counter_hook_needs_one_interval():
    with pytest.raises(ValueError, match="exactly one of every_n_steps and every_n_secs"):
        E.StepCounterHook(every_n_steps=None)


class Listener(E.CheckpointSaverListener):
    def __init__(self, stop_at=None):
        self.calls, self.stop_at = [], stop_at

    def begin(self):
        self.calls.append("begin")

    def before_save(self, session, global_step_value):
        self.calls.append(("before_save", global_step_value))

    def after_save(self, session, global_step_value):
        self.calls.append(("after_save", global_step_value))
        return global_step_value == self.stop_at

    def end(self, session, global_step_value):
        self.calls.append(("end", global_step_value))


def test_checkpoint_saver_listeners_are_called_as_tf(tmp_path):
    listener = Listener()
    est = estimator(tmp_path, save_checkpoints_steps=2)
    est.train(input_fn, steps=5, saving_listeners=[listener], verbose=0)
    assert listener.calls == [  # TF 2.15 saves the starting state too (model.ckpt-0)
        "begin",
        ("before_save", 0),
        ("after_save", 0),
        ("before_save", 2),
        ("after_save", 2),
        ("before_save", 4),
        ("after_save", 4),
        ("before_save", 5),
        ("after_save", 5),
        ("end", 5),
    ]


def test_a_listener_returning_true_stops_training(tmp_path):
    est = estimator(tmp_path, save_checkpoints_steps=2)
    est.train(input_fn, steps=50, saving_listeners=[Listener(stop_at=4)], verbose=0)
    assert est.global_step == 4


# ---------------------------------------------------------------- evaluate and predict


def test_evaluate_and_predict_call_hooks_per_batch(tmp_path):
    est = estimator(tmp_path)
    est.train(input_fn, steps=3, verbose=0)
    batches = [({"x": X[i : i + 4]}, Y[i : i + 4]) for i in range(0, 8, 4)]
    calls, fetched = [], []

    class Fetch(Recorder):
        def before_run(self, run_context):
            super().before_run(run_context)
            return E.SessionRunArgs({"loss": "loss", "y": "y", "step": "global_step"})

        def after_run(self, run_context, run_values):
            super().after_run(run_context, run_values)
            fetched.append(run_values.results)

    results = est.evaluate(lambda: iter(batches), hooks=[Fetch(calls)], verbose=0)
    assert calls == [
        "begin",
        ("after_create_session", None, None),
        *["before_run", "after_run"] * 2,
        ("end", None),
    ]
    _, w, b = numpy_replay(3)[-1]
    for (features, labels), values in zip(batches, fetched):
        y_hat = w * features["x"] + b
        np.testing.assert_allclose(values["y"], y_hat, rtol=1e-5)
        np.testing.assert_allclose(values["loss"], np.mean((y_hat - labels) ** 2), rtol=1e-5)
        assert values["step"] == 3
    assert results["loss"] == pytest.approx(np.mean([v["loss"] for v in fetched]), rel=1e-6)

    calls.clear()
    fetched.clear()

    class FetchPredictions(Fetch):  # predict has no loss
        def before_run(self, run_context):
            Recorder.before_run(self, run_context)
            return E.SessionRunArgs({"y": "y", "step": "global_step"})

    predictions = list(
        est.predict(lambda: iter(batches), hooks=[FetchPredictions(calls)], verbose=0)
    )
    assert len(predictions) == 8 and calls[-1] == ("end", None)
    for (features, _), values in zip(batches, fetched):
        np.testing.assert_allclose(values["y"], w * features["x"] + b, rtol=1e-5)


# ---------------------------------------------------------------- against TensorFlow

GOLDEN = pathlib.Path(__file__).parent / "golden" / "tf_hooks.json"  # make_tf_hooks.py


class TFRecorder(E.SessionRunHook):
    """make_tf_hooks.py's hook, with ``tf.`` renamed ``cn.``."""

    def __init__(self):
        self.calls, self.fetched = [], []

    def begin(self):
        self.calls.append("begin")
        self._step = cn.train.get_global_step()

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        self.calls.append("before_run")
        return E.SessionRunArgs({"step": self._step, "loss": "loss:0", "y": "y:0"})

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        r = run_values.results
        self.fetched.append(
            {"step": int(r["step"]), "loss": float(r["loss"]), "y": r["y"][:, 0].tolist()}
        )

    def end(self, session):
        self.calls.append("end")


def test_a_hook_sees_what_it_sees_in_tensorflow(tmp_path):
    tf = json.loads(GOLDEN.read_text())
    est = estimator(tmp_path)
    train = TFRecorder()
    est.train(input_fn, steps=4, hooks=[train], verbose=0)
    assert train.calls == tf["train_calls"]
    for ours, theirs in zip(train.fetched, tf["train_fetched"]):
        assert ours["loss"] == pytest.approx(theirs["loss"], rel=1e-6)
        np.testing.assert_allclose(ours["y"], theirs["y"], rtol=1e-6, atol=1e-7)
    # TF reads the global step in the same run as the update, in no fixed order (its
    # file has 0, 2, 3, 3); colonnade gives the value before the step, which TF's own
    # hooks assume when they add 1.
    assert tf["train_fetched"][0]["step"] == 0
    assert [f["step"] for f in train.fetched] == [0, 1, 2, 3]

    evaluation = TFRecorder()
    batches = [({"x": X[i : i + 4]}, Y[i : i + 4]) for i in (0, 4)]
    results = est.evaluate(lambda: iter(batches), hooks=[evaluation], verbose=0)
    # TF calls before_run once more, for the run that meets the end of the input (and no
    # after_run); colonnade knows the input ended before a step.
    assert tf["eval_calls"][-2:] == ["before_run", "end"]
    assert evaluation.calls == tf["eval_calls"][:-2] + ["end"]
    for ours, theirs in zip(evaluation.fetched, tf["eval_fetched"]):
        assert ours["step"] == theirs["step"] == 4
        assert ours["loss"] == pytest.approx(theirs["loss"], rel=1e-6)
        np.testing.assert_allclose(ours["y"], theirs["y"], rtol=1e-6, atol=1e-7)
    assert results["loss"] == pytest.approx(tf["eval_loss"], rel=1e-6)


def test_predict_hooks_have_no_loss_but_the_variables(tmp_path):
    est = estimator(tmp_path)
    est.train(input_fn, steps=2, verbose=0)
    got = []

    class Fetch(E.SessionRunHook):
        def __init__(self, fetches):
            self.fetches = fetches

        def before_run(self, run_context):
            return E.SessionRunArgs(self.fetches)

        def after_run(self, run_context, run_values):
            got.append(run_values.results)

    list(est.predict(input_fn, hooks=[Fetch(["w", "global_step"])], verbose=0))
    _, w, _ = numpy_replay(2)[-1]
    np.testing.assert_allclose(got[0][0], [[w]], rtol=1e-5)
    assert got[0][1] == 2
    with pytest.raises(
        ValueError, match=r"fetches 'loss'.*\['b', 'global_step', 'rows', 'w', 'y'\]"
    ):
        list(est.predict(input_fn, hooks=[Fetch("loss")], verbose=0))


def test_step_log_says_the_loss_every_n_global_steps(caplog, monkeypatch):
    """What both training loops (one process, the distributed chief) log as they go."""
    clock = iter([0.0, 2.0, 3.0, 9.0])  # start, step 4, step 6, the second log's start
    monkeypatch.setattr(hook_runner.time, "monotonic", lambda: next(clock))
    log = hook_runner.StepLog(every=2, step=0)
    with caplog.at_level(logging.INFO, logger="colonnade"):
        for step in (1, 3, 4, 5, 6):
            log(step, 0.5)
        hook_runner.StepLog(every=0, step=0)(2, 0.5)  # 0: never
    assert [r.getMessage() for r in caplog.records] == [
        "loss = 0.5, step = 4 (2.0 steps/s)",  # 4 steps in 2 s
        "loss = 0.5, step = 6 (2.0 steps/s)",  # 2 more in 1 s
    ]
