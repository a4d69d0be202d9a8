# Copyright 2016 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
# Ported to colonnade: TF's inputs, expected values and tolerances are kept verbatim;
# graph-mode branches are replaced by their eager equivalents.
"""TF's tensorflow_estimator/python/estimator/hooks/basic_session_run_hooks_test.py,
ported in part (tests/tf/MANIFEST.md lists the rest as to port), run on colonnade by
default and on TF 2.15 with ``COLONNADE_TF_BACKEND=tf`` (tests/tf/run_against_tf.sh).

Translation: TF's tests drive a hook through ``monitored_session._HookedSession`` over a
graph whose train op is ``training_util._increment_global_step(1)``; here the hook runs
in ``Estimator.train`` with a ``model_fn`` whose ``train_op`` is
``get_global_step().assign_add(1)``, so each ``mon_sess.run(train_op)`` is one training
step and ``SingularMonitoredSession``'s ``after_create_session`` is the estimator's
(before the first step). The estimator's own checkpoint saver is switched off
(``save_checkpoints_steps=None, save_checkpoints_secs=None``) where the test's hook is
the saver. Log lines are read with ``assertLogs``; TF's fake summary writer is a writer
that records the steps it is given. Where TF's tests assert on the values a session
shows, the expected values are those TF 2.15's Estimator gives for the same scenario
(run_against_tf.sh checks them).
"""

import os
import re
import shutil
import tempfile

from estimator_backend import (
    LOGGER,
    CheckpointSaverHook,
    CheckpointSaverListener,
    Estimator,
    EstimatorSpec,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    ProfilerHook,
    RunConfig,
    SecondOrStepTimer,
    SessionRunArgs,
    SessionRunHook,
    StopAtStepHook,
    SummarySaverHook,
    get_checkpoint_state,
    get_global_step,
    input_constant,
    load_variable,
    named,
    summary_op,
    summary_scalars,
    tensor,
)
from tf_backend import ON_TF  # noqa: F401 (run_against_tf.sh runs the files importing tf_backend)
from tf_test_case import TFTestCase


class MockCheckpointSaverListener(CheckpointSaverListener):
    def __init__(self):
        self.begin_count = 0
        self.before_save_count = 0
        self.after_save_count = 0
        self.end_count = 0
        self.ask_for_stop = False

    def begin(self):
        self.begin_count += 1

    def before_save(self, session, global_step):
        self.before_save_count += 1

    def after_save(self, session, global_step):
        self.after_save_count += 1
        if self.ask_for_stop:
            return True

    def end(self, session, global_step):
        self.end_count += 1

    def get_counts(self):
        return {
            "begin": self.begin_count,
            "before_save": self.before_save_count,
            "after_save": self.after_save_count,
            "end": self.end_count,
        }


def input_fn():
    return ({"x": input_constant([[1.0]])}, input_constant([[1.0]]))


def model_fn(features, labels, mode, params):
    """One step per run: the loss is 1, ``foo`` is 42 and the train op advances the step;
    ``params["training_hooks"]()`` makes the spec's hooks (in the model_fn, as TF's
    summary ops must be)."""
    _, _ = features, labels
    loss = tensor(1.0)
    hooks = params.get("training_hooks")
    return EstimatorSpec(
        mode,
        loss=loss,
        predictions={"foo": named(tensor([42.0]), "foo")},
        train_op=get_global_step().assign_add(1),
        training_hooks=hooks(loss) if hooks else [],
    )


class _Runs(TFTestCase):
    def setUp(self):
        self.model_dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.model_dir, ignore_errors=True)

    def estimator(self, saves=True, **params):
        config = (
            RunConfig()
            if saves
            else RunConfig(save_checkpoints_steps=None, save_checkpoints_secs=None)
        )
        return Estimator(model_fn, model_dir=self.model_dir, config=config, params=params)

    def saved_steps(self):
        state = get_checkpoint_state(self.model_dir)
        return [int(p.rsplit("-", 1)[1]) for p in state.all_model_checkpoint_paths]


class SecondOrStepTimerTest(TFTestCase):
    def test_raise_in_both_secs_and_steps(self):
        with self.assertRaises(ValueError):
            SecondOrStepTimer(every_secs=2.0, every_steps=10)

    def test_raise_in_none_secs_and_steps(self):
        with self.assertRaises(ValueError):
            SecondOrStepTimer()

    def test_every_steps(self):
        timer = SecondOrStepTimer(every_steps=3)
        self.assertTrue(timer.should_trigger_for_step(1))

        timer.update_last_triggered_step(1)
        self.assertFalse(timer.should_trigger_for_step(1))
        self.assertFalse(timer.should_trigger_for_step(2))
        self.assertFalse(timer.should_trigger_for_step(3))
        self.assertTrue(timer.should_trigger_for_step(4))

    def test_update_last_triggered_step(self):
        timer = SecondOrStepTimer(every_steps=1)

        elapsed_secs, elapsed_steps = timer.update_last_triggered_step(1)
        self.assertEqual(None, elapsed_secs)
        self.assertEqual(None, elapsed_steps)

        elapsed_secs, elapsed_steps = timer.update_last_triggered_step(5)
        self.assertLess(0, elapsed_secs)
        self.assertEqual(4, elapsed_steps)

        elapsed_secs, elapsed_steps = timer.update_last_triggered_step(7)
        self.assertLess(0, elapsed_secs)
        self.assertEqual(2, elapsed_steps)


class StopAtStepTest(_Runs):
    def test_raise_in_both_last_step_and_num_steps(self):
        with self.assertRaises(ValueError):
            StopAtStepHook(num_steps=10, last_step=20)

    def test_stop_based_on_num_step(self):
        # num_steps=3 from a fresh model: the hook sees the first step (issue 38)
        est = self.estimator()
        est.train(input_fn, steps=10, hooks=[StopAtStepHook(num_steps=3)])
        self.assertEqual(3, load_variable(self.model_dir, "global_step"))

    def test_stop_based_on_last_step(self):
        est = self.estimator()
        est.train(input_fn, steps=10, hooks=[StopAtStepHook(last_step=4)])
        self.assertEqual(4, load_variable(self.model_dir, "global_step"))
        est.train(input_fn, steps=10, hooks=[StopAtStepHook(num_steps=2)])
        self.assertEqual(6, load_variable(self.model_dir, "global_step"))


class HookLifecycleTest(_Runs):
    def test_begin_and_after_create_session_run_before_the_first_step(self):
        calls = []

        class Recorder(SessionRunHook):
            def begin(self):
                calls.append("begin")
                self._step = get_global_step()

            def after_create_session(self, session, coord):
                calls.append("after_create_session")

            def before_run(self, run_context):
                calls.append("before_run")
                return SessionRunArgs(self._step)

            def after_run(self, run_context, run_values):
                calls.append(("after_run", int(run_values.results)))

            def end(self, session):
                calls.append("end")

        self.estimator().train(input_fn, steps=3, hooks=[Recorder()])
        self.assertEqual(
            [
                "begin",
                "after_create_session",
                "before_run",
                ("after_run", 0),
                "before_run",
                ("after_run", 1),
                "before_run",
                ("after_run", 2),
                "end",
            ],
            calls,
        )


class LoggingTensorHookTest(_Runs):
    def test_illegal_args(self):
        with self.assertRaisesRegex(ValueError, "nvalid every_n_iter"):
            LoggingTensorHook(tensors=["t"], every_n_iter=0)
        with self.assertRaisesRegex(ValueError, "nvalid every_n_iter"):
            LoggingTensorHook(tensors=["t"], every_n_iter=-10)
        with self.assertRaisesRegex(ValueError, "xactly one of"):
            LoggingTensorHook(tensors=["t"], every_n_iter=5, every_n_secs=5)
        with self.assertRaisesRegex(ValueError, "xactly one of"):
            LoggingTensorHook(tensors=["t"])

    def _logged(self, hook, steps):
        with self.assertLogs(LOGGER, level="INFO") as logs:
            self.estimator().train(input_fn, steps=steps, hooks=[hook])
        return [line for line in logs.output if "foo = " in line]

    def test_print_first_step(self):
        # if it runs every iteration, first iteration has None duration.
        hook = LoggingTensorHook(tensors={"foo": "foo"}, every_n_iter=1)
        logged = self._logged(hook, steps=1)
        self.assertEqual(1, len(logged))
        self.assertRegex(logged[0], "foo")
        # in first run, elapsed time is None.
        self.assertEqual(logged[0].find("sec"), -1)

    def test_print_every_n_steps(self):
        # runs 0, 10 and 20 of 21 log; the other 18 do not
        hook = LoggingTensorHook(tensors={"foo": "foo"}, every_n_iter=10)
        self.assertEqual(3, len(self._logged(hook, steps=21)))

    def test_print_formatter(self):
        hook = LoggingTensorHook(
            tensors={"foo": "foo"},
            every_n_iter=10,
            formatter=lambda items: "qqq=%s" % items["foo"],  # noqa: UP031 (TF's)
        )
        with self.assertLogs(LOGGER, level="INFO") as logs:
            self.estimator().train(input_fn, steps=1, hooks=[hook])
        self.assertIn("qqq=[42.]", "\n".join(logs.output))


class CheckpointSaverHookTest(_Runs):
    def test_raise_in_both_secs_and_steps(self):
        with self.assertRaises(ValueError):
            CheckpointSaverHook(self.model_dir, save_secs=10, save_steps=20)

    def test_raise_in_none_secs_and_steps(self):
        with self.assertRaises(ValueError):
            CheckpointSaverHook(self.model_dir)

    def test_listener_with_monitored_session(self):
        listener = MockCheckpointSaverListener()
        hook = CheckpointSaverHook(self.model_dir, save_steps=1, listeners=[listener])
        est = self.estimator(saves=False)
        est.train(input_fn, steps=2, hooks=[hook])
        global_step_val = load_variable(self.model_dir, "global_step")
        listener_counts = listener.get_counts()
        self.assertEqual(2, global_step_val)
        self.assertEqual({"begin": 1, "before_save": 3, "after_save": 3, "end": 1}, listener_counts)

    def test_two_listeners_with_default_saver(self):
        listener1 = MockCheckpointSaverListener()
        listener2 = MockCheckpointSaverListener()
        hook = CheckpointSaverHook(self.model_dir, save_steps=1, listeners=[listener1, listener2])
        self.estimator(saves=False).train(input_fn, steps=2, hooks=[hook])
        global_step_val = load_variable(self.model_dir, "global_step")
        listener1_counts = listener1.get_counts()
        listener2_counts = listener2.get_counts()
        self.assertEqual(2, global_step_val)
        self.assertEqual(
            {"begin": 1, "before_save": 3, "after_save": 3, "end": 1}, listener1_counts
        )
        self.assertEqual(listener1_counts, listener2_counts)

    def test_listener_stops_training_in_after_save(self):
        # the stop asked at the step-0 save is ignored (as TF's after_create_session);
        # the one asked at step 1's save stops training there
        listener = MockCheckpointSaverListener()
        listener.ask_for_stop = True
        hook = CheckpointSaverHook(self.model_dir, save_steps=1, listeners=[listener])
        self.estimator(saves=False).train(input_fn, steps=5, hooks=[hook])
        self.assertEqual(1, load_variable(self.model_dir, "global_step"))

    def test_save_steps_saves_periodically(self):
        hook = CheckpointSaverHook(self.model_dir, save_steps=2)
        self.estimator(saves=False).train(input_fn, steps=5, hooks=[hook])
        self.assertEqual([0, 2, 4, 5], self.saved_steps())

    def test_save_checkpoint_before_first_train_step(self):
        # Verifies that checkpoint is saved at step 0 (then at the end, step 1).
        hook = CheckpointSaverHook(self.model_dir, save_steps=2)
        self.estimator(saves=False).train(input_fn, steps=1, hooks=[hook])
        self.assertEqual([0, 1], self.saved_steps())

    def test_train_saves_model_ckpt_0(self):
        # the estimator's own saver (estimator_test's test_checkpoint_contains_relative_paths)
        self.estimator().train(input_fn, steps=5)
        self.assertEqual([0, 5], self.saved_steps())


class FakeSummaryWriter:
    """Records each step's scalars, ``{step: {tag: value}}`` (TF's fake_summary_writer):
    TF's hook gives serialized summaries (``add_summary``), colonnade's scalars."""

    def __init__(self):
        self.summaries = {}

    def add_summary(self, summary, global_step=None):
        self.summaries.setdefault(int(global_step), {}).update(summary_scalars(summary))

    def add_scalar(self, tag, value, global_step=None):
        self.summaries.setdefault(int(global_step), {})[tag] = float(value)

    def add_session_log(self, *args, **kwargs):
        pass

    def flush(self):
        pass


class SummarySaverHookTest(_Runs):
    def setUp(self):
        super().setUp()
        self.summary_writer = FakeSummaryWriter()

    def test_raise_when_scaffold_and_summary_op_both_missing(self):
        with self.assertRaises(ValueError):
            SummarySaverHook()

    def test_raise_in_both_secs_and_steps(self):
        with self.assertRaises(ValueError):
            SummarySaverHook(save_secs=10, save_steps=20, summary_writer=self.summary_writer)

    def test_raise_in_none_secs_and_steps(self):
        with self.assertRaises(ValueError):
            SummarySaverHook(save_secs=None, save_steps=None, summary_writer=self.summary_writer)

    def test_save_steps(self):
        # TF's summary of a counter (1, 2, 3, 4 at its reads) is the loss here (1.0);
        # the steps are TF's: 1, 9, 17, 25 of 30
        writer = self.summary_writer

        def hooks(loss):
            op = summary_op("loss", loss)
            return [SummarySaverHook(save_steps=8, summary_writer=writer, summary_op=op)]

        self.estimator(training_hooks=hooks).train(input_fn, steps=30)
        self.assertEqual(
            {1: {"loss": 1.0}, 9: {"loss": 1.0}, 17: {"loss": 1.0}, 25: {"loss": 1.0}},
            writer.summaries,
        )


class GlobalStepWaiterHookTest(_Runs):
    def test_not_wait_for_step_zero(self):
        # Before run should return without waiting gstep increment.
        hook = GlobalStepWaiterHook(wait_until_step=0)
        self.estimator().train(input_fn, steps=1, hooks=[hook])
        self.assertEqual(1, load_variable(self.model_dir, "global_step"))


class ProfilerHookTest(_Runs):
    # tensorflow/python/training/basic_session_run_hooks_test.py's ProfilerHookTest (the
    # estimator's copy predates TF 2.15's schedule: no trace at the first step). Each
    # count is the number of timeline files after the runs; the time-mocking case and
    # the run-metadata summary are to port (docs/tf_differences.md, ProfilerHook)
    def setUp(self):
        super().setUp()
        self.output_dir = tempfile.mkdtemp()

    def tearDown(self):
        super().tearDown()
        shutil.rmtree(self.output_dir, ignore_errors=True)

    def timelines(self):
        return sorted(
            name for name in os.listdir(self.output_dir) if re.match(r"timeline-.*\.json$", name)
        )

    def test_raise_in_both_secs_and_steps(self):
        with self.assertRaises(ValueError):
            ProfilerHook(save_secs=10, save_steps=20)

    def test_raise_in_none_secs_and_steps(self):
        with self.assertRaises(ValueError):
            ProfilerHook(save_secs=None, save_steps=None)

    def test_save_steps_does_not_save_in_first_step(self):
        hook = ProfilerHook(save_steps=1, output_dir=self.output_dir)
        self.estimator(saves=False).train(input_fn, steps=1, hooks=[hook])  # Not saved.
        self.assertEqual(0, len(self.timelines()))

    def test_save_steps_saves_periodically(self):
        hook = ProfilerHook(save_steps=2, output_dir=self.output_dir)
        self.estimator(saves=False).train(input_fn, steps=5, hooks=[hook])
        # not saved, saved, not saved, saved, not saved
        self.assertEqual(["timeline-2.json", "timeline-4.json"], self.timelines())

    def test_save_secs_does_not_save_in_first_step(self):
        hook = ProfilerHook(save_secs=2, output_dir=self.output_dir)
        self.estimator(saves=False).train(input_fn, steps=1, hooks=[hook])  # Not saved.
        self.assertEqual(0, len(self.timelines()))
