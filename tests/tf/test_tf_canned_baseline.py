# Copyright 2017 The TensorFlow Authors. All Rights Reserved.
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
"""TF's tensorflow_estimator/python/estimator/canned/baseline_test.py, ported whole: the
V2 ``BaselineRegressor`` and ``BaselineClassifier`` (evaluation, prediction, training
from scratch and from a checkpoint, the complete flow with an export) and the logit
function, run on colonnade by default and on TF 2.15's ``tf.estimator`` with
``COLONNADE_TF_BACKEND=tf`` (tests/tf/run_against_tf.sh).

Translation (:mod:`canned_backend`): a checkpoint of ``tf.Variable``\\ s named
``baseline/bias`` and ``global_step`` is ``save_variables_to_ckpt(model_dir, {name:
value})``; ``mock_optimizer_v2`` is ``MockOptimizer`` (its hooks go to ``train``, its
``iterations`` is read after); ``parse_example`` through a queue is ``parsed_input_fns``;
``classes`` are compared with ``assertAllEqual``, which reads TF's bytes as text
(colonnade's ``str`` classes, a docs/tf_differences.md row); the regressors' ``rmse``,
which TF does not report (a docs/tf_differences.md row), is dropped before TF's
``assertDictEqual``; ``_baseline_model_fn_builder_v2`` (graph variables) is the
estimator's predicted logits.
"""

import math
import shutil
import tempfile

import numpy as np
from canned_backend import (
    ACCURACY,
    ACCURACY_BASELINE,
    AUC,
    AUC_PR,
    GLOBAL_STEP,
    LABEL_MEAN,
    LOSS,
    LOSS_MEAN,
    PRECISION,
    PREDICTION_MEAN,
    RECALL,
    BaselineClassifier,
    BaselineRegressor,
    FixedLenFeature,
    MockOptimizer,
    build_parsing_serving_input_receiver_fn,
    example_bytes,
    exists,
    float32,
    int64,
    list_variables,
    load_variable,
    make_parse_example_spec,
    numeric_column,
    numpy_input_fn,
    pandas_input_fn,
    parsed_input_fns,
    save_variables_to_ckpt,
    sigmoid,
    softmax_loss,
    sorted_key_dict,
    without_rmse,
)
from tf_test_case import TFTestCase

try:
    import pandas as pd

    HAS_PANDAS = True
except ImportError:  # TF's switch: the TF 2.15 environment may have no pandas
    HAS_PANDAS = False

# Names of variables created by model.
BIAS_NAME = "baseline/bias"


def _baseline_regressor_fn(*args, **kwargs):
    return BaselineRegressor(*args, **kwargs)


def _baseline_classifier_fn(*args, **kwargs):
    return BaselineClassifier(*args, **kwargs)


class ModelDirTest(TFTestCase):
    def setUp(self):
        self._model_dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self._model_dir, ignore_errors=True)

    def _checkpoint(self, bias, global_step=100):
        save_variables_to_ckpt(self._model_dir, {BIAS_NAME: bias, GLOBAL_STEP: global_step})

    def _train_with_mock(self, est, mock, input_fn, num_steps):
        est.train(input_fn=input_fn, steps=num_steps, hooks=mock.hooks)
        return mock.iterations(est)


# Tests for Baseline Regressor.


class BaselineRegressorEvaluationTest(ModelDirTest):
    def test_evaluation_for_simple_data(self):
        """baseline_test.py::BaselineRegressorEvaluationTest.test_evaluation_for_simple_data"""
        self._checkpoint([13.0])
        baseline_regressor = _baseline_regressor_fn(model_dir=self._model_dir)
        eval_metrics = baseline_regressor.evaluate(
            input_fn=lambda: ({"age": ((1,),)}, ((10.0,),)), steps=1
        )
        # Logit is bias = 13, while label is 10. Loss is 3**2 = 9.
        self.assertDictEqual(
            {LOSS: 9.0, LOSS_MEAN: 9.0, PREDICTION_MEAN: 13.0, LABEL_MEAN: 10.0, GLOBAL_STEP: 100},
            without_rmse(eval_metrics),
        )

    def test_evaluation_batch(self):
        """baseline_test.py::BaselineRegressorEvaluationTest.test_evaluation_batch"""
        self._checkpoint([13.0])
        baseline_regressor = _baseline_regressor_fn(model_dir=self._model_dir)
        eval_metrics = baseline_regressor.evaluate(
            input_fn=lambda: ({"age": ((1,), (1,))}, ((10.0,), (10.0,))), steps=1
        )
        # Loss per example is 3**2 = 9; training loss (9 + 9) / 2 = 9; average loss 9.
        self.assertDictEqual(
            {LOSS: 9.0, LOSS_MEAN: 9.0, PREDICTION_MEAN: 13.0, LABEL_MEAN: 10.0, GLOBAL_STEP: 100},
            without_rmse(eval_metrics),
        )

    def test_evaluation_weights(self):
        """baseline_test.py::BaselineRegressorEvaluationTest.test_evaluation_weights"""
        self._checkpoint([13.0])

        def _input_fn():
            features = {"age": ((1,), (1,)), "weights": ((1.0,), (2.0,))}
            labels = ((10.0,), (10.0,))
            return features, labels

        baseline_regressor = _baseline_regressor_fn(
            weight_column="weights", model_dir=self._model_dir
        )
        eval_metrics = baseline_regressor.evaluate(input_fn=_input_fn, steps=1)
        # Training loss is the weighted sum over batch size = (9 + 2*9) / 2 = 13.5
        # average loss is the weighted average = 9 + 2*9 / (1 + 2) = 9
        self.assertDictEqual(
            {LOSS: 13.5, LOSS_MEAN: 9.0, PREDICTION_MEAN: 13.0, LABEL_MEAN: 10.0, GLOBAL_STEP: 100},
            without_rmse(eval_metrics),
        )

    def test_evaluation_for_multi_dimensions(self):
        """baseline_test.py::BaselineRegressorEvaluationTest.test_evaluation_for_multi_dimensions"""
        label_dim = 2
        self._checkpoint([46.0, 58.0])
        baseline_regressor = _baseline_regressor_fn(
            label_dimension=label_dim, model_dir=self._model_dir
        )
        input_fn = numpy_input_fn(
            x={"age": np.array([[2.0, 4.0, 5.0]])},
            y=np.array([[46.0, 58.0]]),
            batch_size=1,
            num_epochs=None,
            shuffle=False,
        )
        eval_metrics = without_rmse(baseline_regressor.evaluate(input_fn=input_fn, steps=1))
        self.assertItemsEqual(
            (LOSS, LOSS_MEAN, PREDICTION_MEAN, LABEL_MEAN, GLOBAL_STEP), eval_metrics.keys()
        )
        # Logit is bias which is [46, 58]
        self.assertAlmostEqual(0, eval_metrics[LOSS])


class BaselineRegressorPredictTest(ModelDirTest):
    def test_1d(self):
        """baseline_test.py::BaselineRegressorPredictTest.test_1d"""
        self._checkpoint([0.2])
        baseline_regressor = _baseline_regressor_fn(model_dir=self._model_dir)
        predict_input_fn = numpy_input_fn(
            x={"x": np.array([[2.0]])}, y=None, batch_size=1, num_epochs=1, shuffle=False
        )
        predictions = baseline_regressor.predict(input_fn=predict_input_fn)
        predicted_scores = list([x["predictions"] for x in predictions])
        self.assertAllClose([[0.2]], predicted_scores)

    def testMultiDim(self):  # noqa: N802
        """baseline_test.py::BaselineRegressorPredictTest.testMultiDim"""
        batch_size = 2
        label_dimension = 3
        self._checkpoint([0.2, 0.4, 0.6])  # shape=[label_dimension]
        baseline_regressor = _baseline_regressor_fn(
            label_dimension=label_dimension, model_dir=self._model_dir
        )
        predict_input_fn = numpy_input_fn(
            # x shape=[batch_size, x_dim]
            x={"x": np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])},
            y=None,
            batch_size=batch_size,
            num_epochs=1,
            shuffle=False,
        )
        predictions = baseline_regressor.predict(input_fn=predict_input_fn)
        predicted_scores = list([x["predictions"] for x in predictions])
        # score = bias, shape=[batch_size, label_dimension]
        self.assertAllClose([[0.2, 0.4, 0.6], [0.2, 0.4, 0.6]], predicted_scores)


def assert_complete_flow(testcase, est, input_fns, input_dimension, key, shape):
    """TF's ``_test_complete_flow`` after the estimator is made: TRAIN 200 steps,
    EVALUATE, PREDICT (the ``key`` predictions stack to ``shape``) and EXPORT."""
    train_input_fn, eval_input_fn, predict_input_fn = input_fns
    feature_columns = [numeric_column("x", shape=(input_dimension,))]
    # TRAIN
    # learn y = x
    est.train(train_input_fn, steps=200)
    # EVALUTE
    scores = est.evaluate(eval_input_fn)
    testcase.assertEqual(200, scores[GLOBAL_STEP])
    testcase.assertIn(LOSS, scores)
    # PREDICT
    predictions = np.array([x[key] for x in est.predict(predict_input_fn)])
    testcase.assertAllEqual(shape, predictions.shape)
    # EXPORT
    feature_spec = make_parse_example_spec(feature_columns)
    serving_input_receiver_fn = build_parsing_serving_input_receiver_fn(feature_spec)
    export_dir = est.export_saved_model(tempfile.mkdtemp(), serving_input_receiver_fn)
    testcase.assertTrue(exists(export_dir))


def numpy_input_fns(x, y, batch_size):
    """TF's three ``numpy_input_fn``\\ s: endless and shuffled, one pass, features alone."""
    return (
        numpy_input_fn(x={"x": x}, y=y, batch_size=batch_size, num_epochs=None, shuffle=True),
        numpy_input_fn(x={"x": x}, y=y, batch_size=batch_size, num_epochs=1, shuffle=False),
        numpy_input_fn(x={"x": x}, y=None, batch_size=batch_size, num_epochs=1, shuffle=False),
    )


def pandas_input_fns(x, y, batch_size):
    """TF's three ``pandas_input_fn``\\ s, as :func:`numpy_input_fns`."""
    return (
        pandas_input_fn(x=x, y=y, batch_size=batch_size, num_epochs=None, shuffle=True),
        pandas_input_fn(x=x, y=y, batch_size=batch_size, shuffle=False),
        pandas_input_fn(x=x, batch_size=batch_size, shuffle=False),
    )


def example_input_fns(data, target, feature_spec):
    """TF's serialized examples of rows ``x`` and labels ``y`` and the ``parse_example``
    input functions over them."""
    serialized_examples = [example_bytes({"x": x, "y": y}) for x, y in zip(data, target)]
    return parsed_input_fns(serialized_examples, feature_spec)


class BaselineRegressorIntegrationTest(ModelDirTest):
    def _test_complete_flow(self, input_fns, input_dimension, label_dimension, prediction_length):
        est = _baseline_regressor_fn(label_dimension=label_dimension, model_dir=self._model_dir)
        shape = (prediction_length, label_dimension)
        assert_complete_flow(self, est, input_fns, input_dimension, "predictions", shape)

    def test_numpy_input_fn(self):
        """baseline_test.py::BaselineRegressorIntegrationTest.test_numpy_input_fn"""
        label_dimension = 2
        input_dimension = label_dimension
        batch_size = 10
        prediction_length = batch_size
        data = np.linspace(0.0, 2.0, batch_size * label_dimension, dtype=np.float32)
        data = data.reshape(batch_size, label_dimension)
        self._test_complete_flow(
            numpy_input_fns(data, data, batch_size),
            input_dimension=input_dimension,
            label_dimension=label_dimension,
            prediction_length=prediction_length,
        )

    def test_pandas_input_fn(self):
        """baseline_test.py::BaselineRegressorIntegrationTest.test_pandas_input_fn"""
        if not HAS_PANDAS:
            return
        # Pandas DataFrame natually supports 1 dim data only.
        label_dimension = 1
        input_dimension = label_dimension
        batch_size = 10
        data = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
        x = pd.DataFrame({"x": data})
        y = pd.Series(data)
        prediction_length = 4
        self._test_complete_flow(
            pandas_input_fns(x, y, batch_size),
            input_dimension=input_dimension,
            label_dimension=label_dimension,
            prediction_length=prediction_length,
        )

    def test_input_fn_from_parse_example(self):
        """baseline_test.py::BaselineRegressorIntegrationTest.test_input_fn_from_parse_example"""
        label_dimension = 2
        input_dimension = label_dimension
        batch_size = 10
        prediction_length = batch_size
        data = np.linspace(0.0, 2.0, batch_size * label_dimension, dtype=np.float32)
        data = data.reshape(batch_size, label_dimension)
        feature_spec = {
            "x": FixedLenFeature([input_dimension], float32),
            "y": FixedLenFeature([label_dimension], float32),
        }
        self._test_complete_flow(
            example_input_fns(data, data[:, :label_dimension], feature_spec),
            input_dimension=input_dimension,
            label_dimension=label_dimension,
            prediction_length=prediction_length,
        )


class BaselineRegressorTrainingTest(ModelDirTest):
    def _assert_checkpoint(self, label_dimension, expected_global_step, expected_bias=None):
        shapes = {name: shape for (name, shape) in list_variables(self._model_dir)}
        self.assertEqual([], shapes[GLOBAL_STEP])
        self.assertEqual(expected_global_step, load_variable(self._model_dir, GLOBAL_STEP))
        self.assertEqual([label_dimension], shapes[BIAS_NAME])
        if expected_bias is not None:
            self.assertEqual(expected_bias, load_variable(self._model_dir, BIAS_NAME))

    def testFromScratchWithDefaultOptimizer(self):  # noqa: N802
        """baseline_test.py::BaselineRegressorTrainingTest.testFromScratchWithDefaultOptimizer"""
        label = 5.0
        age = 17
        baseline_regressor = _baseline_regressor_fn(model_dir=self._model_dir)
        # Train for a few steps, and validate final checkpoint.
        num_steps = 10
        baseline_regressor.train(
            input_fn=lambda: ({"age": ((age,),)}, ((label,),)), steps=num_steps
        )
        self._assert_checkpoint(label_dimension=1, expected_global_step=num_steps)

    def testTrainWithOneDimLabel(self):  # noqa: N802
        """baseline_test.py::BaselineRegressorTrainingTest.testTrainWithOneDimLabel"""
        label_dimension = 1
        batch_size = 20
        est = _baseline_regressor_fn(label_dimension=label_dimension, model_dir=self._model_dir)
        data_rank_1 = np.linspace(0.0, 2.0, batch_size, dtype=np.float32)
        self.assertEqual((batch_size,), data_rank_1.shape)
        train_input_fn = numpy_input_fn(
            x={"age": data_rank_1},
            y=data_rank_1,
            batch_size=batch_size,
            num_epochs=None,
            shuffle=True,
        )
        est.train(train_input_fn, steps=200)
        self._assert_checkpoint(label_dimension=1, expected_global_step=200)

    def testTrainWithOneDimWeight(self):  # noqa: N802
        """baseline_test.py::BaselineRegressorTrainingTest.testTrainWithOneDimWeight"""
        label_dimension = 1
        batch_size = 20
        est = _baseline_regressor_fn(
            label_dimension=label_dimension, weight_column="w", model_dir=self._model_dir
        )
        data_rank_1 = np.linspace(0.0, 2.0, batch_size, dtype=np.float32)
        self.assertEqual((batch_size,), data_rank_1.shape)
        train_input_fn = numpy_input_fn(
            x={"age": data_rank_1, "w": data_rank_1},
            y=data_rank_1,
            batch_size=batch_size,
            num_epochs=None,
            shuffle=True,
        )
        est.train(train_input_fn, steps=200)
        self._assert_checkpoint(label_dimension=1, expected_global_step=200)

    def testFromScratch(self):  # noqa: N802
        """baseline_test.py::BaselineRegressorTrainingTest.testFromScratch"""
        label = 5.0
        age = 17
        # loss = (logits - label)^2 = (0 - 5.)^2 = 25.
        mock_optimizer = MockOptimizer(self, expected_loss=25.0)
        baseline_regressor = _baseline_regressor_fn(
            model_dir=self._model_dir, optimizer=mock_optimizer.optimizer
        )
        # Train for a few steps, and validate optimizer and final checkpoint.
        num_steps = 10
        iterations = self._train_with_mock(
            baseline_regressor, mock_optimizer, lambda: ({"age": ((age,),)}, ((label,),)), num_steps
        )
        self.assertEqual(num_steps, iterations)
        self._assert_checkpoint(
            label_dimension=1, expected_global_step=num_steps, expected_bias=[0.0]
        )

    def testFromCheckpoint(self):  # noqa: N802
        """baseline_test.py::BaselineRegressorTrainingTest.testFromCheckpoint"""
        bias = 7.0
        initial_global_step = 100
        self._checkpoint([bias], initial_global_step)
        # logits = bias = 6.
        # loss = (logits - label)^2 = (7 - 5)^2 = 4
        mock_optimizer = MockOptimizer(self, expected_loss=4.0)
        baseline_regressor = _baseline_regressor_fn(
            model_dir=self._model_dir, optimizer=mock_optimizer.optimizer
        )
        num_steps = 10
        iterations = self._train_with_mock(
            baseline_regressor, mock_optimizer, lambda: ({"age": ((17,),)}, ((5.0,),)), num_steps
        )
        self.assertEqual(initial_global_step + num_steps, iterations)
        self._assert_checkpoint(
            label_dimension=1,
            expected_global_step=initial_global_step + num_steps,
            expected_bias=[bias],
        )

    def testFromCheckpointMultiBatch(self):  # noqa: N802
        """baseline_test.py::BaselineRegressorTrainingTest.testFromCheckpointMultiBatch"""
        bias = 5.0
        initial_global_step = 100
        self._checkpoint([bias], initial_global_step)
        # logits[0] = 5., logits[1] = 5.
        # loss = (sum(logits - label)^2 = (5 - 5)^2 + (5 - 3)^2) / 2 (batch size) = 2
        mock_optimizer = MockOptimizer(self, expected_loss=2.0)
        baseline_regressor = _baseline_regressor_fn(
            model_dir=self._model_dir, optimizer=mock_optimizer.optimizer
        )
        num_steps = 10
        iterations = self._train_with_mock(
            baseline_regressor,
            mock_optimizer,
            lambda: ({"age": ((17,), (15,))}, ((5.0,), (3.0,))),
            num_steps,
        )
        self.assertEqual(initial_global_step + num_steps, iterations)
        self._assert_checkpoint(
            label_dimension=1,
            expected_global_step=initial_global_step + num_steps,
            expected_bias=bias,
        )


# Tests for Baseline Classifier.


def _bias(n_classes, value):
    return [value] if n_classes == 2 else [value] * n_classes


class BaselineClassifierTrainingTest(ModelDirTest):
    def _assert_checkpoint(self, n_classes, expected_global_step, expected_bias=None):
        logits_dimension = n_classes if n_classes > 2 else 1
        shapes = {name: shape for (name, shape) in list_variables(self._model_dir)}
        self.assertEqual([], shapes[GLOBAL_STEP])
        self.assertEqual(expected_global_step, load_variable(self._model_dir, GLOBAL_STEP))
        self.assertEqual([logits_dimension], shapes[BIAS_NAME])
        if expected_bias is not None:
            self.assertAllEqual(expected_bias, load_variable(self._model_dir, BIAS_NAME))

    def _testFromScratchWithDefaultOptimizer(self, n_classes):  # noqa: N802
        label = 0
        age = 17
        est = BaselineClassifier(n_classes=n_classes, model_dir=self._model_dir)
        num_steps = 10
        est.train(input_fn=lambda: ({"age": ((age,),)}, ((label,),)), steps=num_steps)
        self._assert_checkpoint(n_classes, num_steps)

    def testBinaryClassesFromScratchWithDefaultOptimizer(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testBinaryClassesFromScratchWithDefaultOptimizer"""
        self._testFromScratchWithDefaultOptimizer(n_classes=2)

    def testMultiClassesFromScratchWithDefaultOptimizer(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testMultiClassesFromScratchWithDefaultOptimizer"""
        self._testFromScratchWithDefaultOptimizer(n_classes=4)

    def _train_200(self, n_classes, x, y, **kwargs):
        est = BaselineClassifier(n_classes=n_classes, model_dir=self._model_dir, **kwargs)
        train_input_fn = numpy_input_fn(x=x, y=y, batch_size=20, num_epochs=None, shuffle=True)
        est.train(train_input_fn, steps=200)
        self._assert_checkpoint(n_classes, 200)

    def _testTrainWithTwoDimsLabel(self, n_classes):  # noqa: N802
        data_rank_1 = np.array([0, 1])
        data_rank_2 = np.array([[0], [1]])
        self.assertEqual((2,), data_rank_1.shape)
        self.assertEqual((2, 1), data_rank_2.shape)
        self._train_200(n_classes, {"age": data_rank_1}, data_rank_2)

    def testBinaryClassesTrainWithTwoDimsLabel(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testBinaryClassesTrainWithTwoDimsLabel"""
        self._testTrainWithTwoDimsLabel(n_classes=2)

    def testMultiClassesTrainWithTwoDimsLabel(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testMultiClassesTrainWithTwoDimsLabel"""
        self._testTrainWithTwoDimsLabel(n_classes=4)

    def _testTrainWithOneDimLabel(self, n_classes):  # noqa: N802
        data_rank_1 = np.array([0, 1])
        self.assertEqual((2,), data_rank_1.shape)
        self._train_200(n_classes, {"age": data_rank_1}, data_rank_1)

    def testBinaryClassesTrainWithOneDimLabel(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testBinaryClassesTrainWithOneDimLabel"""
        self._testTrainWithOneDimLabel(n_classes=2)

    def testMultiClassesTrainWithOneDimLabel(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testMultiClassesTrainWithOneDimLabel"""
        self._testTrainWithOneDimLabel(n_classes=4)

    def _testTrainWithTwoDimsWeight(self, n_classes):  # noqa: N802
        data_rank_1 = np.array([0, 1])
        data_rank_2 = np.array([[0], [1]])
        x = {"age": data_rank_1, "w": data_rank_2}
        self._train_200(n_classes, x, data_rank_1, weight_column="w")

    def testBinaryClassesTrainWithTwoDimsWeight(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testBinaryClassesTrainWithTwoDimsWeight"""
        self._testTrainWithTwoDimsWeight(n_classes=2)

    def testMultiClassesTrainWithTwoDimsWeight(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testMultiClassesTrainWithTwoDimsWeight"""
        self._testTrainWithTwoDimsWeight(n_classes=4)

    def _testTrainWithOneDimWeight(self, n_classes):  # noqa: N802
        data_rank_1 = np.array([0, 1])
        x = {"age": data_rank_1, "w": data_rank_1}
        self._train_200(n_classes, x, data_rank_1, weight_column="w")

    def testBinaryClassesTrainWithOneDimWeight(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testBinaryClassesTrainWithOneDimWeight"""
        self._testTrainWithOneDimWeight(n_classes=2)

    def testMultiClassesTrainWithOneDimWeight(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testMultiClassesTrainWithOneDimWeight"""
        self._testTrainWithOneDimWeight(n_classes=4)

    def _train_mock(self, n_classes, expected_loss, input_fn):
        mock_optimizer = MockOptimizer(self, expected_loss=expected_loss)
        est = BaselineClassifier(
            n_classes=n_classes, optimizer=mock_optimizer.optimizer, model_dir=self._model_dir
        )
        # Train for a few steps, and validate optimizer and final checkpoint.
        return self._train_with_mock(est, mock_optimizer, input_fn, 10)

    def _testFromScratch(self, n_classes):  # noqa: N802
        label = 1
        age = 17
        # loss = 1 * -log ( 1.0 / n_classes ) for binary and multi class alike: logits are
        # all zero initially and label = 1.
        num_steps = 10
        iterations = self._train_mock(
            n_classes, -1 * math.log(1.0 / n_classes), lambda: ({"age": ((age,),)}, ((label,),))
        )
        self.assertEqual(num_steps, iterations)
        self._assert_checkpoint(
            n_classes,
            expected_global_step=num_steps,
            expected_bias=[0.0] if n_classes == 2 else [0.0] * n_classes,
        )

    def testBinaryClassesFromScratch(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testBinaryClassesFromScratch"""
        self._testFromScratch(n_classes=2)

    def testMultiClassesFromScratch(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testMultiClassesFromScratch"""
        self._testFromScratch(n_classes=4)

    def _testFromCheckpoint(self, n_classes):  # noqa: N802
        label = 1
        age = 17
        bias = _bias(n_classes, -1.0)
        initial_global_step = 100
        self._checkpoint(bias, initial_global_step)
        # binary: loss = 1 * -log ( sigmoid(-1) ) = 1.3133
        # multi class: loss = 1 * -log ( softmax(logits)[1] ), logits = bias
        if n_classes == 2:
            expected_loss = 1.3133
        else:
            expected_loss = softmax_loss(np.array(bias), label)
        iterations = self._train_mock(
            n_classes, expected_loss, lambda: ({"age": ((age,),)}, ((label,),))
        )
        self.assertEqual(initial_global_step + 10, iterations)
        self._assert_checkpoint(
            n_classes, expected_global_step=initial_global_step + 10, expected_bias=bias
        )

    def testBinaryClassesFromCheckpoint(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testBinaryClassesFromCheckpoint"""
        self._testFromCheckpoint(n_classes=2)

    def testMultiClassesFromCheckpoint(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testMultiClassesFromCheckpoint"""
        self._testFromCheckpoint(n_classes=4)

    def _testFromCheckpointFloatLabels(self, n_classes):  # noqa: N802
        """Tests float labels for binary classification."""
        if n_classes > 2:
            return
        label = 0.8
        age = 17
        initial_global_step = 100
        self._checkpoint([-1.0], initial_global_step)
        # loss = -0.8 * log(sigmoid(-1)) -0.2 * log(sigmoid(+1)) = 1.1132617
        iterations = self._train_mock(
            n_classes, 1.1132617, lambda: ({"age": ((age,),)}, ((label,),))
        )
        self.assertEqual(initial_global_step + 10, iterations)

    def testBinaryClassesFromCheckpointFloatLabels(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testBinaryClassesFromCheckpointFloatLabels"""
        self._testFromCheckpointFloatLabels(n_classes=2)

    def testMultiClassesFromCheckpointFloatLabels(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testMultiClassesFromCheckpointFloatLabels"""
        self._testFromCheckpointFloatLabels(n_classes=4)

    def _testFromCheckpointMultiBatch(self, n_classes):  # noqa: N802
        label = [1, 0]
        age = [17, 18.5]
        bias = _bias(n_classes, -1.0)
        initial_global_step = 100
        self._checkpoint(bias, initial_global_step)
        # binary: loss[0] = 1 * -log ( sigmoid(-1) ) = 1.3133
        #         loss[1] = (1 - 0) * -log ( 1- sigmoid(-1) ) = 0.3132
        if n_classes == 2:
            expected_loss = (1.3133 + 0.3132) / 2
        else:
            # Expand logits since batch_size=2
            logits = bias * np.ones(shape=(2, 1))
            expected_loss_0 = softmax_loss(logits[0], label[0])
            expected_loss_1 = softmax_loss(logits[1], label[1])
            expected_loss = (expected_loss_0 + expected_loss_1) / 2
        iterations = self._train_mock(n_classes, expected_loss, lambda: ({"age": (age)}, (label)))
        self.assertEqual(initial_global_step + 10, iterations)
        self._assert_checkpoint(
            n_classes, expected_global_step=initial_global_step + 10, expected_bias=bias
        )

    def testBinaryClassesFromCheckpointMultiBatch(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testBinaryClassesFromCheckpointMultiBatch"""
        self._testFromCheckpointMultiBatch(n_classes=2)

    def testMultiClassesFromCheckpointMultiBatch(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierTrainingTest.testMultiClassesFromCheckpointMultiBatch"""
        self._testFromCheckpointMultiBatch(n_classes=4)


class BaselineClassifierEvaluationTest(ModelDirTest):
    def _test_evaluation_for_simple_data(self, n_classes):
        label = 1
        age = 1.0
        bias = _bias(n_classes, -1.0)
        self._checkpoint(bias)
        est = _baseline_classifier_fn(n_classes=n_classes, model_dir=self._model_dir)
        eval_metrics = est.evaluate(input_fn=lambda: ({"age": ((age,),)}, ((label,),)), steps=1)
        if n_classes == 2:
            # Binary classes: loss = -log(sigmoid(-1)) / batch size = 1.3133
            # Prediction = sigmoid(-1) = 0.2689
            expected_metrics = {
                LOSS: 1.3133,
                GLOBAL_STEP: 100,
                LOSS_MEAN: 1.3133,
                ACCURACY: 0.0,
                PRECISION: 0.0,
                RECALL: 0.0,
                PREDICTION_MEAN: 0.2689,
                LABEL_MEAN: 1.0,
                ACCURACY_BASELINE: 1,
                AUC: 0.0,
                AUC_PR: 1.0,
            }
        else:
            # Multi classes: loss = 1 * -log ( softmax(logits)[label] )
            expected_loss = softmax_loss(np.array(bias), label)
            expected_metrics = {
                LOSS: expected_loss,
                GLOBAL_STEP: 100,
                LOSS_MEAN: expected_loss,
                ACCURACY: 0.0,
            }
        self.assertAllClose(
            sorted_key_dict(expected_metrics), sorted_key_dict(eval_metrics), rtol=1e-3
        )

    def test_binary_classes_evaluation_for_simple_data(self):
        """baseline_test.py::BaselineClassifierEvaluationTest.test_binary_classes_evaluation_for_simple_data"""
        self._test_evaluation_for_simple_data(n_classes=2)

    def test_multi_classes_evaluation_for_simple_data(self):
        """baseline_test.py::BaselineClassifierEvaluationTest.test_multi_classes_evaluation_for_simple_data"""
        self._test_evaluation_for_simple_data(n_classes=4)

    def _test_evaluation_batch(self, n_classes):
        """Tests evaluation for batch_size==2."""
        label = [1, 0]
        age = [17.0, 18.0]
        bias = _bias(n_classes, -1.0)
        self._checkpoint(bias)
        est = _baseline_classifier_fn(n_classes=n_classes, model_dir=self._model_dir)
        eval_metrics = est.evaluate(input_fn=lambda: ({"age": (age)}, (label)), steps=1)
        if n_classes == 2:
            # Logits are (-1., -1.) labels are (1, 0).
            #   loss for row 1: 1 * -log(sigmoid(-1)) = 1.3133
            #   loss for row 2: (1 - 0) * -log(1 - sigmoid(-1)) = 0.3132
            # Prediction = sigmoid(-1) = 0.2689
            expected_loss = (1.3133 + 0.3132) / 2  # batch size
            expected_metrics = {
                LOSS: expected_loss,
                GLOBAL_STEP: 100,
                LOSS_MEAN: expected_loss,
                ACCURACY: 0.5,
                PRECISION: 0.0,
                RECALL: 0.0,
                PREDICTION_MEAN: 0.2689,
                LABEL_MEAN: 0.5,
                ACCURACY_BASELINE: 0.5,
                AUC: 0.5,
                AUC_PR: 0.5,
            }
        else:
            # Expand logits since batch_size=2
            logits = bias * np.ones(shape=(2, 1))
            expected_loss_0 = softmax_loss(logits[0], label[0])
            expected_loss_1 = softmax_loss(logits[1], label[1])
            expected_loss = (expected_loss_0 + expected_loss_1) / 2  # batch size
            expected_metrics = {
                LOSS: expected_loss,
                GLOBAL_STEP: 100,
                LOSS_MEAN: expected_loss,
                ACCURACY: 0.5,
            }
        self.assertAllClose(
            sorted_key_dict(expected_metrics), sorted_key_dict(eval_metrics), rtol=1e-3
        )

    def test_binary_classes_evaluation_batch(self):
        """baseline_test.py::BaselineClassifierEvaluationTest.test_binary_classes_evaluation_batch"""
        self._test_evaluation_batch(n_classes=2)

    def test_multi_classes_evaluation_batch(self):
        """baseline_test.py::BaselineClassifierEvaluationTest.test_multi_classes_evaluation_batch"""
        self._test_evaluation_batch(n_classes=4)

    def _test_evaluation_weights(self, n_classes):
        """Tests evaluation with weights."""
        label = [1, 0]
        age = [17.0, 18.0]
        weights = [1.0, 2.0]
        bias = _bias(n_classes, -1.0)
        self._checkpoint(bias)
        est = _baseline_classifier_fn(
            n_classes=n_classes, weight_column="w", model_dir=self._model_dir
        )
        eval_metrics = est.evaluate(
            input_fn=lambda: ({"age": (age), "w": (weights)}, (label)), steps=1
        )
        if n_classes == 2:
            # Logits are (-1., -1.) labels are (1, 0); weights = [1., 2.]
            expected_loss = (1.3133 * 1.0 + 0.3132 * 2.0) / 2  # batch size
            loss_mean = (1.3133 * 1.0 + 0.3132 * 2.0) / (1.0 + 2.0)
            label_mean = np.average(label, weights=weights)
            logits = [-1, -1]
            logistics = sigmoid(np.array(logits))
            predictions_mean = np.average(logistics, weights=weights)
            expected_metrics = {
                LOSS: expected_loss,
                GLOBAL_STEP: 100,
                LOSS_MEAN: loss_mean,
                ACCURACY: 2.0 / (1.0 + 2.0),
                PRECISION: 0.0,
                RECALL: 0.0,
                PREDICTION_MEAN: predictions_mean,
                LABEL_MEAN: label_mean,
                ACCURACY_BASELINE: (max(label_mean, 1 - label_mean)),
                AUC: 0.5,
                AUC_PR: 0.33333,
            }
        else:
            # Multi classes: unweighted_loss = 1 * -log ( soft_max(logits)[label] )
            logits = bias * np.ones(shape=(2, 1))
            expected_loss_0 = softmax_loss(logits[0], label[0])
            expected_loss_1 = softmax_loss(logits[1], label[1])
            loss_mean = np.average([expected_loss_0, expected_loss_1], weights=weights)
            expected_loss = (loss_mean * np.sum(weights)) / 2  # batch size
            expected_metrics = {
                LOSS: expected_loss,
                GLOBAL_STEP: 100,
                LOSS_MEAN: loss_mean,
                ACCURACY: 2.0 / (1.0 + 2.0),
            }
        self.assertAllClose(
            sorted_key_dict(expected_metrics), sorted_key_dict(eval_metrics), rtol=1e-3
        )

    def test_binary_classes_evaluation_weights(self):
        """baseline_test.py::BaselineClassifierEvaluationTest.test_binary_classes_evaluation_weights"""
        self._test_evaluation_weights(n_classes=2)

    def test_multi_classes_evaluation_weights(self):
        """baseline_test.py::BaselineClassifierEvaluationTest.test_multi_classes_evaluation_weights"""
        self._test_evaluation_weights(n_classes=4)


class BaselineClassifierPredictTest(ModelDirTest):
    def _testPredictions(self, n_classes, label_vocabulary, label_output_fn):  # noqa: N802
        """Tests predict when all variables are one-dimensional."""
        age = 1.0
        bias = _bias(n_classes, 10.0)
        self._checkpoint(bias)
        est = _baseline_classifier_fn(
            label_vocabulary=label_vocabulary, n_classes=n_classes, model_dir=self._model_dir
        )
        predict_input_fn = numpy_input_fn(
            x={"age": np.array([[age]])}, y=None, batch_size=1, num_epochs=1, shuffle=False
        )
        predictions = list(est.predict(input_fn=predict_input_fn))
        if n_classes == 2:
            scalar_logits = bias[0]
            two_classes_logits = [0, scalar_logits]
            two_classes_logits_exp = np.exp(two_classes_logits)
            softmax = two_classes_logits_exp / two_classes_logits_exp.sum()
            expected_predictions = {
                "class_ids": [1],
                "all_class_ids": [0, 1],
                "classes": [label_output_fn(1)],
                "all_classes": [label_output_fn(0), label_output_fn(1)],
                "logistic": [sigmoid(np.array(scalar_logits))],
                "logits": [scalar_logits],
                "probabilities": softmax,
            }
        else:
            onedim_logits = np.array(bias)
            class_ids = onedim_logits.argmax()
            all_class_ids = list(range(len(onedim_logits)))
            logits_exp = np.exp(onedim_logits)
            softmax = logits_exp / logits_exp.sum()
            expected_predictions = {
                "class_ids": [class_ids],
                "all_class_ids": all_class_ids,
                "classes": [label_output_fn(class_ids)],
                "all_classes": [label_output_fn(i) for i in all_class_ids],
                "logits": onedim_logits,
                "probabilities": softmax,
            }
        self.assertEqual(1, len(predictions))
        # assertAllClose cannot handle byte type.
        self.assertAllEqual(expected_predictions["classes"], predictions[0]["classes"])
        expected_predictions.pop("classes")
        predictions[0].pop("classes")
        self.assertAllEqual(expected_predictions["all_classes"], predictions[0]["all_classes"])
        expected_predictions.pop("all_classes")
        predictions[0].pop("all_classes")
        self.assertAllClose(sorted_key_dict(expected_predictions), sorted_key_dict(predictions[0]))

    def testBinaryClassesWithoutLabelVocabulary(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierPredictTest.testBinaryClassesWithoutLabelVocabulary"""
        self._testPredictions(2, label_vocabulary=None, label_output_fn=lambda x: f"{x}".encode())

    def testBinaryClassesWithLabelVocabulary(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierPredictTest.testBinaryClassesWithLabelVocabulary"""
        n_classes = 2
        self._testPredictions(
            n_classes,
            label_vocabulary=[f"class_vocab_{i}" for i in range(n_classes)],
            label_output_fn=lambda x: f"class_vocab_{x}".encode(),
        )

    def testMultiClassesWithoutLabelVocabulary(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierPredictTest.testMultiClassesWithoutLabelVocabulary"""
        self._testPredictions(4, label_vocabulary=None, label_output_fn=lambda x: f"{x}".encode())

    def testMultiClassesWithLabelVocabulary(self):  # noqa: N802
        """baseline_test.py::BaselineClassifierPredictTest.testMultiClassesWithLabelVocabulary"""
        n_classes = 4
        self._testPredictions(
            n_classes,
            label_vocabulary=[f"class_vocab_{i}" for i in range(n_classes)],
            label_output_fn=lambda x: f"class_vocab_{x}".encode(),
        )


class BaselineClassifierIntegrationTest(ModelDirTest):
    def _test_complete_flow(self, n_classes, input_fns, input_dimension, prediction_length):
        est = _baseline_classifier_fn(n_classes=n_classes, model_dir=self._model_dir)
        assert_complete_flow(
            self, est, input_fns, input_dimension, "classes", (prediction_length, 1)
        )

    def _test_numpy_input_fn(self, n_classes):
        input_dimension = 4
        batch_size = 10
        data = np.linspace(0.0, 2.0, batch_size * input_dimension, dtype=np.float32)
        data = data.reshape(batch_size, input_dimension)
        target = np.array([1] * batch_size)
        self._test_complete_flow(
            n_classes, numpy_input_fns(data, target, batch_size), input_dimension, batch_size
        )

    def test_binary_classes_numpy_input_fn(self):
        """baseline_test.py::BaselineClassifierIntegrationTest.test_binary_classes_numpy_input_fn"""
        self._test_numpy_input_fn(n_classes=2)

    def test_multi_classes_numpy_input_fn(self):
        """baseline_test.py::BaselineClassifierIntegrationTest.test_multi_classes_numpy_input_fn"""
        self._test_numpy_input_fn(n_classes=4)

    def _test_pandas_input_fn(self, n_classes):
        if not HAS_PANDAS:
            return
        # Pandas DataFrame natually supports 1 dim data only.
        input_dimension = 1
        batch_size = 10
        data = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
        target = np.array([1, 0, 1, 0], dtype=np.int32)
        x = pd.DataFrame({"x": data})
        y = pd.Series(target)
        self._test_complete_flow(n_classes, pandas_input_fns(x, y, batch_size), input_dimension, 4)

    def test_binary_classes_pandas_input_fn(self):
        """baseline_test.py::BaselineClassifierIntegrationTest.test_binary_classes_pandas_input_fn"""
        self._test_pandas_input_fn(n_classes=2)

    def test_multi_classes_pandas_input_fn(self):
        """baseline_test.py::BaselineClassifierIntegrationTest.test_multi_classes_pandas_input_fn"""
        self._test_pandas_input_fn(n_classes=4)

    def _test_input_fn_from_parse_example(self, n_classes):
        input_dimension = 2
        batch_size = 10
        data = np.linspace(0.0, 2.0, batch_size * input_dimension, dtype=np.float32)
        data = data.reshape(batch_size, input_dimension)
        target = np.array([1] * batch_size, dtype=np.int64)
        feature_spec = {
            "x": FixedLenFeature([input_dimension], float32),
            "y": FixedLenFeature([1], int64),
        }
        input_fns = example_input_fns(data, target[:, None], feature_spec)
        self._test_complete_flow(n_classes, input_fns, input_dimension, batch_size)

    def test_binary_classes_input_fn_from_parse_example(self):
        """baseline_test.py::BaselineClassifierIntegrationTest.test_binary_classes_input_fn_from_parse_example"""
        self._test_input_fn_from_parse_example(n_classes=2)

    def test_multi_classes_input_fn_from_parse_example(self):
        """baseline_test.py::BaselineClassifierIntegrationTest.test_multi_classes_input_fn_from_parse_example"""
        self._test_input_fn_from_parse_example(n_classes=4)


# Tests for Baseline logit_fn.


class BaselineLogitFnTest(ModelDirTest):
    def test_basic_logit_correctness(self):
        """baseline_test.py::BaselineLogitFnTest.test_basic_logit_correctness: the logits
        are the bias variable, zeros at first, then the value assigned (here through a
        checkpoint), for every row of the batch."""
        features = {"age": np.array([[23.0], [31.0]])}

        def logits():
            est = BaselineRegressor(label_dimension=2, model_dir=self._model_dir)
            input_fn = numpy_input_fn(x=features, batch_size=2, num_epochs=1, shuffle=False)
            out = est.predict(input_fn, predict_keys=["predictions"])
            return [p["predictions"] for p in out]

        self.assertAllClose([[0.0, 0.0], [0.0, 0.0]], logits())
        self._checkpoint([10.0, 5.0])
        self.assertAllClose([[10.0, 5.0], [10.0, 5.0]], logits())
