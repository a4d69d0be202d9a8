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
"""TF's tensorflow_estimator/python/estimator/estimator_test.py, ported in part (the
constructor's params check, training's steps, checkpoints and listeners, evaluation's
loss, prediction's shapes; tests/tf/MANIFEST.md lists the rest as to port), run on
colonnade by default and on TF 2.15's ``tf.compat.v1.estimator.Estimator`` with
``COLONNADE_TF_BACKEND=tf`` (tests/tf/run_against_tf.sh).

Translation: ``estimator.EstimatorV2`` is ``Estimator``; ``state_ops.assign_add(
training.get_global_step(), 1)`` is ``get_global_step().assign_add(1)``;
``constant_op.constant`` in a ``model_fn`` is ``tensor``, in an ``input_fn``
``input_constant`` (numpy on colonnade); ``estimator._load_global_step_from_checkpoint_dir``
is ``load_variable(model_dir, "global_step")``; the checkpoint state file is read with
``get_checkpoint_state`` (TF's test parses the proto text); each estimator gets a fresh
temporary model_dir.
"""

import os
import shutil
import tempfile
from unittest import mock

from estimator_backend import (
    CheckpointSaverListener,
    Estimator,
    EstimatorSpec,
    ModeKeys,
    RunConfig,
    SessionRunHook,
    get_checkpoint_state,
    get_global_step,
    input_constant,
    load_variable,
    local_variable,
    tensor,
)
from tf_backend import colonnade_differs
from tf_test_case import TFTestCase

LOSS_METRIC_KEY = "loss"


def dummy_input_fn():
    return ({"x": input_constant([[1], [1]])}, input_constant([[1], [1]]))


def model_fn_global_step_incrementer(features, labels, mode):
    _, _ = features, labels
    global_step = get_global_step()
    return EstimatorSpec(mode, loss=tensor(1.0), train_op=global_step.assign_add(1))


def _load_global_step_from_checkpoint_dir(model_dir):
    return load_variable(model_dir, "global_step")


class _StepCounterHook(SessionRunHook):
    """Hooks that counts the number of times it is called."""

    def __init__(self):
        self._steps = 0

    def before_run(self, run_context):
        del run_context
        self._steps += 1

    @property
    def steps(self):
        return self._steps


class _TempDirs(TFTestCase):
    def setUp(self):
        self._dirs = []

    def tearDown(self):
        for d in self._dirs:
            shutil.rmtree(d, ignore_errors=True)

    def estimator(self, **kwargs):
        kwargs.setdefault("model_dir", tempfile.mkdtemp())
        self._dirs.append(kwargs["model_dir"])
        return Estimator(**kwargs)


class EstimatorConstructorTest(_TempDirs):
    def test_if_params_provided_then_model_fn_should_accept_it(self):
        def model_fn(features, labels):
            _, _ = features, labels

        self.estimator(model_fn=model_fn)
        with self.assertRaisesRegex(ValueError, "params"):
            self.estimator(model_fn=model_fn, params={"hidden_layers": 4})

    def test_internal_params_is_a_deepcopy(self):
        def model_fn(features, labels, params):
            _, _, _ = features, labels, params

        params = {"hidden_layers": 4}
        est = self.estimator(model_fn=model_fn, params=params)

        params["hidden_layers"] = 5
        self.assertEqual(4, est.params["hidden_layers"])


class EstimatorTrainTest(_TempDirs):
    def test_callable_model_fn_params_check(self):
        # TF's test_callable_model_fn, its first half (the call count: below)
        class ModelFn:
            def __call__(self, features, labels):
                return model_fn_global_step_incrementer(features, labels, "train")

        with self.assertRaisesRegex(ValueError, "does not include params"):
            self.estimator(model_fn=ModelFn(), params={"a": "b"})

    @colonnade_differs("a `model_fn` with variables, on the first batch of a mode")
    def test_callable_model_fn(self):
        model_fn_call_count = [0]

        class ModelFn:
            def __call__(self, features, labels, mode):
                model_fn_call_count[0] += 1
                return model_fn_global_step_incrementer(features, labels, mode)

        est = self.estimator(model_fn=ModelFn(), config=RunConfig())
        self.assertEqual(0, model_fn_call_count[0])
        est.train(input_fn=dummy_input_fn, steps=1)
        self.assertEqual(1, model_fn_call_count[0])

    def test_run_train_op_and_saves_at_the_end(self):
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        est.train(dummy_input_fn, steps=5)
        self.assertEqual(5, _load_global_step_from_checkpoint_dir(est.model_dir))

    def test_train_op_advancing_the_step_ends_at_its_step(self):
        # test_run_train_op_and_saves_at_the_end with steps=1 (issue 38: one step, not 2)
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        est.train(dummy_input_fn, steps=1)
        self.assertEqual(1, _load_global_step_from_checkpoint_dir(est.model_dir))

    def test_latest_checkpoint(self):
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        self.assertIsNone(est.latest_checkpoint())
        est.train(dummy_input_fn, steps=5)
        self.assertIsNotNone(est.latest_checkpoint())
        self.assertTrue(est.latest_checkpoint().startswith(est.model_dir))

    def test_steps_and_saves_reloads(self):
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        est.train(dummy_input_fn, steps=5)
        self.assertEqual(5, _load_global_step_from_checkpoint_dir(est.model_dir))
        est.train(dummy_input_fn, steps=5)
        self.assertEqual(10, _load_global_step_from_checkpoint_dir(est.model_dir))

    def test_max_step(self):
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        est.train(dummy_input_fn, max_steps=5)
        self.assertEqual(5, _load_global_step_from_checkpoint_dir(est.model_dir))
        est.train(dummy_input_fn, max_steps=5)
        self.assertEqual(5, _load_global_step_from_checkpoint_dir(est.model_dir))

    def test_checkpoint_contains_relative_paths(self):
        tmpdir = tempfile.mkdtemp()
        est = self.estimator(model_dir=tmpdir, model_fn=model_fn_global_step_incrementer)
        est.train(dummy_input_fn, steps=5)

        ckpt = get_checkpoint_state(tmpdir)
        self.assertEqual(os.path.basename(ckpt.model_checkpoint_path), "model.ckpt-5")
        self.assertAllEqual(
            ["model.ckpt-0", "model.ckpt-5"],
            [os.path.basename(p) for p in ckpt.all_model_checkpoint_paths],
        )

    def test_hooks_should_be_session_run_hook(self):
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        with self.assertRaisesRegex(TypeError, "must be a SessionRunHook"):
            est.train(dummy_input_fn, steps=1, hooks=["NotAHook"])

    def test_saving_listeners_are_used(self):
        listener = mock.Mock(spec=CheckpointSaverListener)
        listener.after_save.return_value = None
        est = self.estimator(
            model_fn=model_fn_global_step_incrementer,
            config=RunConfig(save_checkpoints_steps=10),
        )
        est.train(dummy_input_fn, steps=26, saving_listeners=[listener])
        self.assertEqual(4, listener.before_save.call_count)
        self.assertEqual(4, listener.after_save.call_count)

    def test_saver_hook_should_exist_to_use_saving_listeners(self):
        listener = mock.Mock(spec=CheckpointSaverListener)
        est = self.estimator(
            model_fn=model_fn_global_step_incrementer,
            config=RunConfig(save_checkpoints_steps=None, save_checkpoints_secs=None),
        )
        with self.assertRaisesRegex(ValueError, "CheckpointSaverHook to use saving_listeners"):
            est.train(dummy_input_fn, steps=1, saving_listeners=[listener])

    def test_listeners_should_be_listeners(self):
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        with self.assertRaisesRegex(TypeError, "must be a list of CheckpointSaverListener"):
            est.train(dummy_input_fn, steps=1, saving_listeners=["not-a-listener"])


class RunConfigNoneTest(TFTestCase):
    # the RunConfig of test_saver_hook_should_exist_to_use_saving_listeners
    def test_no_checkpoints_keeps_secs_none(self):
        config = RunConfig(save_checkpoints_steps=None, save_checkpoints_secs=None)
        self.assertIsNone(config.save_checkpoints_steps)
        self.assertIsNone(config.save_checkpoints_secs)
        self.assertEqual(600, RunConfig().save_checkpoints_secs)


class EstimatorGetVariablesTest(_TempDirs):
    def test_model_should_be_trained(self):
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        with self.assertRaisesRegex(ValueError, "not find trained model"):
            est.get_variable_names()
        with self.assertRaisesRegex(ValueError, "not find trained model"):
            est.get_variable_value("one")


class EstimatorEvaluateTest(_TempDirs):
    def test_eval_dir(self):
        est = Estimator(model_fn=model_fn_global_step_incrementer, model_dir="some_path")
        expected_eval_dir = os.path.join("some_path", "eval")
        self.assertEqual(expected_eval_dir, est.eval_dir())
        expected_eval_dir_name = os.path.join("some_path", "eval_a_name")
        self.assertEqual(expected_eval_dir_name, est.eval_dir("a_name"))

    def test_steps0_raises_error(self):
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        est.train(dummy_input_fn, steps=5)
        with self.assertRaisesRegex(ValueError, "Must specify steps > 0"):
            est.evaluate(dummy_input_fn, steps=0)

    def test_steps_negative_raises_error(self):
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        est.train(dummy_input_fn, steps=5)
        with self.assertRaisesRegex(ValueError, "Must specify steps > 0"):
            est.evaluate(dummy_input_fn, steps=-1)

    def test_loss_metric_is_reported(self):
        def _model_fn_with_incremental_loss(features, labels, mode):
            _, _ = features, labels
            local_weight = local_variable("local_weight", 0.0)
            # Loss will be 2, 4, 6, ...
            loss = 2 * local_weight.assign_add(1.0)
            return EstimatorSpec(mode, loss=loss, train_op=get_global_step().assign_add(1))

        est = self.estimator(model_fn=_model_fn_with_incremental_loss)
        est.train(dummy_input_fn, steps=1)
        scores = est.evaluate(dummy_input_fn, steps=5)
        self.assertIn(LOSS_METRIC_KEY, scores)
        # Average loss will be (2 + 4 + 6 + 8 + 10)/5=6
        self.assertAlmostEqual(6.0, scores[LOSS_METRIC_KEY])

    def test_hooks_should_be_session_run_hook(self):
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        est.train(dummy_input_fn, steps=1)
        with self.assertRaisesRegex(TypeError, "must be a SessionRunHook"):
            est.evaluate(dummy_input_fn, steps=5, hooks=["NotAHook"])


def _predicting(predictions):
    def _model_fn(features, labels, mode):
        _, _ = features, labels
        return EstimatorSpec(
            mode,
            loss=tensor(0.0),
            train_op=get_global_step().assign_add(1),
            predictions=predictions(),
        )

    return _model_fn


class EstimatorPredictTest(_TempDirs):
    def trained(self, predictions):
        est = self.estimator(model_fn=_predicting(predictions))
        est.train(dummy_input_fn, steps=1)
        return est

    def test_tensor_predictions(self):
        est = self.trained(lambda: tensor([[10.0]]))
        self.assertEqual(10.0, next(est.predict(dummy_input_fn)))

    def test_input_fn_can_return_just_features(self):
        est = self.trained(lambda: tensor([[10.0]]))

        def _only_features():
            return {"x": input_constant([[0.0]])}

        self.assertEqual([10.0], next(est.predict(_only_features)))

    def test_batch_size_mismatch(self):
        est = self.trained(lambda: {"y1": tensor([[10.0]]), "y2": tensor([[12.0], [13]])})
        with self.assertRaisesRegex(ValueError, "Batch length of predictions should be same"):
            next(est.predict(dummy_input_fn))

    def test_iterate_batches(self):
        # TF's array_ops.zeros(shape=...) as tensor(zeros)
        est = self.trained(lambda: {"y1": tensor([0.0] * 3), "y2": tensor([[0.0] * 3] * 5)})
        predictions = next(est.predict(dummy_input_fn, yield_single_examples=False))
        self.assertAllEqual(predictions["y1"].shape, [3])
        self.assertAllEqual(predictions["y2"].shape, [5, 3])

    def test_predict_keys_defined_for_tensor(self):
        est = self.trained(lambda: tensor([[10.0]]))
        with self.assertRaisesRegex(
            ValueError, "predict_keys argument is not valid in case of non-dict predictions"
        ):
            next(est.predict(dummy_input_fn, predict_keys=["y"]))

    def test_return_given_predict_keys(self):
        est = self.trained(lambda: {"y1": tensor([[10.0]]), "y2": tensor([[12.0]])})
        results = next(est.predict(dummy_input_fn, predict_keys=["y1"]))
        self.assertIn("y1", results)
        self.assertNotIn("y2", results)

    def test_yield_rows_of_tensor(self):
        est = self.trained(lambda: tensor([[10.0], [12.0]]))
        results = est.predict(dummy_input_fn)
        self.assertEqual([10.0], next(results))
        self.assertEqual([12.0], next(results))

    def test_yield_rows_of_dict(self):
        est = self.trained(lambda: {"y1": tensor([[10.0], [12]]), "y2": tensor([[0.0], [2.0]])})
        results = est.predict(dummy_input_fn)
        self.assertDictEqual({"y1": [10.0], "y2": [0.0]}, next(results))
        self.assertDictEqual({"y1": [12.0], "y2": [2.0]}, next(results))

    def test_hooks_should_be_session_run_hook(self):
        est = self.estimator(model_fn=model_fn_global_step_incrementer)
        est.train(dummy_input_fn, steps=1)
        with self.assertRaisesRegex(TypeError, "must be a SessionRunHook"):
            next(est.predict(dummy_input_fn, hooks=["NotAHook"]))

    @colonnade_differs("an `input_fn` that returns arrays (not a `Dataset`), in `predict`")
    def test_hooks_are_used(self):
        step_counter_hook = _StepCounterHook()
        est = self.trained(lambda: tensor([[10.0], [12.0]]))
        results = est.predict(dummy_input_fn, hooks=[step_counter_hook])
        self.assertEqual(0, step_counter_hook.steps)  # not called yet
        next(results)
        self.assertEqual(1, step_counter_hook.steps)  # first call
        next(results)
        self.assertEqual(1, step_counter_hook.steps)  # it's in same batch
        next(results)
        self.assertEqual(2, step_counter_hook.steps)  # next batch


def _args_model_fn(features, labels, mode, params, config):
    _, _, _, _ = features, labels, params, config
    return EstimatorSpec(
        mode,
        loss=tensor(0.0),
        train_op=get_global_step().assign_add(1),
        predictions={"y": input_constant([[1.0], [1.0]])},
    )


class EstimatorInputFnArgsTest(_TempDirs):
    """TF's ``test_input_fn_args`` of EstimatorTrainTest, EstimatorEvaluateTest and
    EstimatorPredictTest: an ``input_fn`` naming ``mode``, ``params`` and ``config`` gets
    them, called once per ``train``/``evaluate``/``predict``."""

    def _check(self, expected_mode, run):
        expected_params = {"batch_size": 10}
        expected_config = RunConfig().replace(tf_random_seed=4321)
        input_fn_call_count = [0]

        def _input_fn(mode, params, config):
            input_fn_call_count[0] += 1
            self.assertEqual(expected_mode, mode)
            self.assertEqual(expected_params, params)
            self.assertEqual(4321, config.tf_random_seed)
            return dummy_input_fn()

        est = self.estimator(
            model_fn=_args_model_fn, params=expected_params, config=expected_config
        )
        if expected_mode != ModeKeys.TRAIN:
            est.train(dummy_input_fn, steps=1)
        self.assertEqual(0, input_fn_call_count[0])
        run(est, _input_fn)
        self.assertEqual(1, input_fn_call_count[0])

    def test_train_input_fn_args(self):
        self._check(ModeKeys.TRAIN, lambda est, fn: est.train(fn, steps=1))

    def test_evaluate_input_fn_args(self):
        self._check(ModeKeys.EVAL, lambda est, fn: est.evaluate(fn, steps=1))

    def test_predict_input_fn_args(self):
        self._check(ModeKeys.PREDICT, lambda est, fn: next(est.predict(fn)))


class EstimatorChiefHooksTest(_TempDirs):
    """``EstimatorSpec(training_chief_hooks=...)``: on the chief (a process training alone),
    its hooks run with the training hooks, every step (TF's ``_train_with_estimator_spec``
    joins them on the chief)."""

    def test_chief_and_training_hooks_both_run(self):
        chief, worker = _StepCounterHook(), _StepCounterHook()

        def _model_fn(features, labels, mode):
            spec = model_fn_global_step_incrementer(features, labels, mode)
            return EstimatorSpec(
                mode,
                loss=spec.loss,
                train_op=spec.train_op,
                training_chief_hooks=[chief],
                training_hooks=[worker],
            )

        est = self.estimator(model_fn=_model_fn)
        est.train(dummy_input_fn, steps=3)
        self.assertEqual(3, chief.steps)
        self.assertEqual(3, worker.steps)

    def test_chief_hooks_must_be_hooks(self):
        with self.assertRaisesRegex(TypeError, "SessionRunHook"):
            EstimatorSpec("train", loss=tensor(1.0), train_op=tensor(1.0), training_chief_hooks=[1])
