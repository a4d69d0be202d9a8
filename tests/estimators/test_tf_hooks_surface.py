"""TF's remaining hook names and arguments: SecondOrStepTimer, FinalOpsHook,
GlobalStepWaiterHook, FeedFnHook, and the saver/summary hooks' TF signatures (issue 24)."""

import inspect
import json

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

E = cn.estimators
fc = cn.feature_columns


def frame(n=64):
    x = np.linspace(-1, 1, n)
    return pd.DataFrame({"x": x, "y": (x > 0).astype(int)})


def linear(tmp_path, **config):
    config = E.RunConfig(log_step_count_steps=0, tf_random_seed=0, **config)
    return E.LinearClassifier([fc.numeric_column("x")], model_dir=str(tmp_path), config=config)


def batches():
    return cn.data.Dataset.from_pandas(frame(), label="y").batch(8)


def test_second_or_step_timer_as_tf(monkeypatch):
    """TF's basic_session_run_hooks_test SecondOrStepTimerTest, stepped by hand."""
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        E.SecondOrStepTimer()
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        E.SecondOrStepTimer(every_secs=2.0, every_steps=10)
    timer = E.SecondOrStepTimer(every_steps=3)
    assert timer.should_trigger_for_step(1) and timer.last_triggered_step() is None
    assert timer.update_last_triggered_step(1) == (None, None)
    assert not timer.should_trigger_for_step(1)  # never the same step twice
    assert [timer.should_trigger_for_step(s) for s in (2, 3, 4)] == [False, False, True]
    assert timer.update_last_triggered_step(4)[1] == 3
    clock = [100.0]
    monkeypatch.setattr("colonnade.estimators.hooks.timers.now", lambda: clock[0])
    timer = E.SecondOrStepTimer(every_secs=1.0)
    timer.update_last_triggered_step(5)
    assert not timer.should_trigger_for_step(6)
    clock[0] = 101.0
    assert timer.should_trigger_for_step(6)
    assert timer.update_last_triggered_step(9) == (1.0, 4)
    timer.reset()
    assert timer.should_trigger_for_step(9)


def test_final_ops_hook_reads_the_trained_values(tmp_path):
    est = linear(tmp_path)
    hook = E.FinalOpsHook({"w": "linear/linear_model/x/weights:0", "step": "global_step"})
    assert hook.final_ops_values is None
    est.train(batches, hooks=[hook])
    assert hook.final_ops_values["step"] == 8  # 64 rows in batches of 8
    np.testing.assert_array_equal(
        hook.final_ops_values["w"], est.get_variable_value("linear/linear_model/x/weights")
    )
    with pytest.raises(ValueError, match="no placeholders to feed"):
        E.FinalOpsHook(["global_step"], final_ops_feed_dict={"x": 1})


def test_global_step_waiter_runs_when_reached_and_refuses_to_wait_alone(tmp_path):
    est = linear(tmp_path)
    est.train(batches, hooks=[E.GlobalStepWaiterHook(0)])  # nothing to wait for
    est.train(batches, hooks=[E.GlobalStepWaiterHook(8)])  # reached already
    with pytest.raises(ValueError, match="waits for global step 100.*alone at step 16"):
        est.train(batches, hooks=[E.GlobalStepWaiterHook(100)])


def test_feed_fn_hook_is_refused_with_advice():
    with pytest.raises(ValueError, match="no placeholders to feed; put the values"):
        E.FeedFnHook(lambda: {})


def test_saver_and_summary_hooks_take_tfs_arguments_in_tfs_order(tmp_path):
    """TF 2.15: CheckpointSaverHook(checkpoint_dir, save_secs, save_steps, saver,
    checkpoint_basename, scaffold, listeners, save_graph_def) and SummarySaverHook(
    save_steps, save_secs, output_dir, summary_writer, scaffold, summary_op)."""
    saver_args = list(inspect.signature(E.CheckpointSaverHook).parameters)
    assert saver_args == [
        "checkpoint_dir", "save_secs", "save_steps", "saver", "checkpoint_basename",
        "scaffold", "listeners", "save_graph_def",
    ]  # fmt: skip
    summary_args = list(inspect.signature(E.SummarySaverHook).parameters)
    assert summary_args[:6] == [
        "save_steps", "save_secs", "output_dir", "summary_writer", "scaffold", "summary_op",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="saver configure TF's graph"):
        E.CheckpointSaverHook(str(tmp_path), save_steps=1, saver=object())
    with pytest.raises(ValueError, match="checkpoint_basename='ckpt'"):
        E.CheckpointSaverHook(str(tmp_path), save_steps=1, checkpoint_basename="ckpt")

    class Writer:
        def __init__(self):
            self.scalars = []

        def add_scalar(self, tag, value, step):
            self.scalars.append((tag, step))

    writer = Writer()
    hook = E.SummarySaverHook(save_steps=4, output_dir=str(tmp_path / "s"), summary_writer=writer)
    linear(tmp_path / "m").train(batches, hooks=[hook])
    lines = [
        json.loads(line) for line in (tmp_path / "s" / "summaries.jsonl").read_text().splitlines()
    ]
    assert [r["global_step"] for r in lines] == [1, 5]
    assert writer.scalars == [("loss", 1), ("loss", 5)]
