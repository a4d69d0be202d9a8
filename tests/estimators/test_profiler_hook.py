"""ProfilerHook's traces: Chrome trace files of the step phases, nested as they ran
(the schedule itself is TF's, in tests/tf/test_tf_session_run_hooks.py)."""

import json

import numpy as np
import pytest

import colonnade as cn

E = cn.estimators
v1 = cn.compat.v1


def model_fn(features, labels, mode):
    w = v1.get_variable("w", initializer=np.float32(0.5))
    loss = v1.reduce_mean(v1.square(w * features["x"] - labels))
    train_op = v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=v1.train.get_global_step()
    )
    return E.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    ds = cn.data.Dataset.from_tensor_slices(({"x": [1.0, 2.0, 3.0]}, [2.0, 4.0, 6.0]))
    return ds.batch(3).repeat()


def test_a_trace_holds_the_steps_phases_nested_as_they_ran(tmp_path):
    hook = E.ProfilerHook(save_steps=3, output_dir=str(tmp_path / "profile"))
    est = E.Estimator(model_fn, model_dir=str(tmp_path / "model"))
    est.train(input_fn, steps=4, hooks=[hook])
    assert sorted(p.name for p in (tmp_path / "profile").iterdir()) == ["timeline-3.json"]
    trace = json.loads((tmp_path / "profile" / "timeline-3.json").read_text())
    events = {e["name"]: e for e in trace["traceEvents"]}
    assert set(events) == {"input", "train_step", "gradients", "apply_gradients"}
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events.values())
    step = events["train_step"]
    for inner in ("gradients", "apply_gradients"):
        e = events[inner]
        assert step["ts"] <= e["ts"] and e["ts"] + e["dur"] <= step["ts"] + step["dur"] + 1e-3
    assert events["gradients"]["ts"] + events["gradients"]["dur"] <= events["apply_gradients"]["ts"]
    assert events["input"]["ts"] == 0.0 and events["input"]["ts"] <= step["ts"]
    assert trace["metadata"]["global_step"] == 3


def test_run_options_and_metadata_reach_the_hook_that_asked(tmp_path):
    seen = []

    class Tracer(E.SessionRunHook):
        def before_run(self, run_context):
            options = v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE)
            return E.SessionRunArgs("loss", options=options)

        def after_run(self, run_context, run_values):
            seen.append(sorted({name for name, _, _ in run_values.run_metadata.step_stats.spans}))

    class Plain(E.SessionRunHook):
        def before_run(self, run_context):
            return E.SessionRunArgs("loss")

        def after_run(self, run_context, run_values):
            seen.append(run_values.run_metadata)

    est = E.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(input_fn, steps=1, hooks=[Tracer(), Plain()])
    assert seen == [["apply_gradients", "gradients", "input", "train_step"], None]
    with pytest.raises(ValueError, match="trace_level must be 0 to 3"):
        v1.RunOptions(trace_level=7)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"save_steps": "2"}, ValueError, "save_steps must be a positive number, got '2'"),
        ({"save_steps": 0}, ValueError, "save_steps must be a positive number, got 0"),
        ({"save_secs": -1.0}, ValueError, "save_secs must be a positive number"),
        ({"save_steps": 2, "output_dir": 7}, TypeError, "output_dir must be a path, got 7"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, error, match):
    with pytest.raises(error, match=match):
        E.ProfilerHook(**kwargs)


def test_an_output_dir_that_is_a_file_is_refused_before_training(tmp_path):
    taken = tmp_path / "a_file"
    taken.write_text("")
    hook = E.ProfilerHook(save_steps=1, output_dir=str(taken))
    est = E.Estimator(model_fn, model_dir=str(tmp_path / "model"))
    with pytest.raises(ValueError, match="is not a folder"):
        est.train(input_fn, steps=2, hooks=[hook])
    assert taken.read_text() == ""
    with pytest.raises(ValueError, match="trace_level must be 0 to 3, got 'full'"):
        v1.RunOptions(trace_level="full")
