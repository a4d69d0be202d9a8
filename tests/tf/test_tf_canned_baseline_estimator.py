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
"""TF's tensorflow_estimator/python/estimator/canned/baseline_estimator_test.py, ported
whole: the V2 ``BaselineEstimator`` over a ``RegressionHead`` (evaluation, prediction,
the complete flow with an export, training from scratch and from a checkpoint), run on
colonnade by default and on TF 2.15's ``tf.estimator`` with ``COLONNADE_TF_BACKEND=tf``
(tests/tf/run_against_tf.sh). Translated as test_tf_canned_baseline.py (see there).
"""

import shutil
import tempfile

import numpy as np
from canned_backend import (
    GLOBAL_STEP,
    LABEL_MEAN,
    LOSS,
    LOSS_MEAN,
    PREDICTION_MEAN,
    SUM_OVER_BATCH_SIZE,
    BaselineEstimator,
    MockOptimizer,
    RegressionHead,
    build_parsing_serving_input_receiver_fn,
    exists,
    list_variables,
    load_variable,
    make_parse_example_spec,
    numeric_column,
    numpy_input_fn,
    save_variables_to_ckpt,
    without_rmse,
)
from tf_test_case import TFTestCase

# Names of variables created by model.
BIAS_NAME = "baseline/bias"


def _baseline_estimator_fn(weight_column=None, label_dimension=1, **kwargs):
    return BaselineEstimator(
        head=RegressionHead(
            weight_column=weight_column,
            label_dimension=label_dimension,
            loss_reduction=SUM_OVER_BATCH_SIZE,
        ),
        **kwargs,
    )


class ModelDirTest(TFTestCase):
    def setUp(self):
        self._model_dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self._model_dir, ignore_errors=True)

    def _checkpoint(self, bias, global_step=100):
        save_variables_to_ckpt(self._model_dir, {BIAS_NAME: bias, GLOBAL_STEP: global_step})


class BaselineEstimatorEvaluationTest(ModelDirTest):
    def test_evaluation_batch(self):
        """baseline_estimator_test.py::BaselineEstimatorEvaluationTest.test_evaluation_batch"""
        self._checkpoint([13.0])
        baseline_estimator = _baseline_estimator_fn(model_dir=self._model_dir)
        eval_metrics = baseline_estimator.evaluate(
            input_fn=lambda: ({"age": ((1,), (1,))}, ((10.0,), (10.0,))), steps=1
        )
        # Logit is bias = 13, while label is 10.
        # Loss per example is 3**2 = 9.
        # Training loss is the sum over batch size = (9 + 9) / 2 = 9
        # Average loss is the average over batch = 9
        self.assertDictEqual(
            {LOSS: 9.0, LOSS_MEAN: 9.0, PREDICTION_MEAN: 13.0, LABEL_MEAN: 10.0, GLOBAL_STEP: 100},
            without_rmse(eval_metrics),
        )

    def test_evaluation_weights(self):
        """baseline_estimator_test.py::BaselineEstimatorEvaluationTest.test_evaluation_weights"""
        self._checkpoint([13.0])

        def _input_fn():
            features = {"age": ((1,), (1,)), "weights": ((1.0,), (2.0,))}
            labels = ((10.0,), (10.0,))
            return features, labels

        baseline_estimator = _baseline_estimator_fn(
            weight_column="weights", model_dir=self._model_dir
        )
        eval_metrics = baseline_estimator.evaluate(input_fn=_input_fn, steps=1)
        # Training loss is the weighted sum over batch size= (9 + 2*9) / 2 = 13.5
        # average loss is the weighted average = 9 + 2*9 / (1 + 2) = 9
        self.assertDictEqual(
            {LOSS: 13.5, LOSS_MEAN: 9.0, PREDICTION_MEAN: 13.0, LABEL_MEAN: 10.0, GLOBAL_STEP: 100},
            without_rmse(eval_metrics),
        )

    def test_evaluation_for_multi_dimensions(self):
        """baseline_estimator_test.py::BaselineEstimatorEvaluationTest.test_evaluation_for_multi_dimensions"""
        label_dim = 2
        self._checkpoint([46.0, 58.0])
        baseline_estimator = _baseline_estimator_fn(
            label_dimension=label_dim, model_dir=self._model_dir
        )
        input_fn = numpy_input_fn(
            x={"age": np.array([[2.0, 4.0, 5.0]])},
            y=np.array([[46.0, 58.0]]),
            batch_size=1,
            num_epochs=None,
            shuffle=False,
        )
        eval_metrics = without_rmse(baseline_estimator.evaluate(input_fn=input_fn, steps=1))
        self.assertItemsEqual(
            (LOSS, LOSS_MEAN, PREDICTION_MEAN, LABEL_MEAN, GLOBAL_STEP), eval_metrics.keys()
        )
        # Logit is bias which is [46, 58]
        self.assertAlmostEqual(0, eval_metrics[LOSS])


class BaselineEstimatorPredictTest(ModelDirTest):
    def test_1d(self):
        """baseline_estimator_test.py::BaselineEstimatorPredictTest.test_1d"""
        self._checkpoint([0.2])
        baseline_estimator = _baseline_estimator_fn(model_dir=self._model_dir)
        predict_input_fn = numpy_input_fn(
            x={"x": np.array([[2.0]])}, y=None, batch_size=1, num_epochs=1, shuffle=False
        )
        predictions = baseline_estimator.predict(input_fn=predict_input_fn)
        predicted_scores = list([x["predictions"] for x in predictions])
        self.assertAllClose([[0.2]], predicted_scores)

    def testMultiDim(self):  # noqa: N802
        """baseline_estimator_test.py::BaselineEstimatorPredictTest.testMultiDim"""
        batch_size = 2
        label_dimension = 3
        self._checkpoint([0.2, 0.4, 0.6])  # shape=[label_dimension]
        baseline_estimator = _baseline_estimator_fn(
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
        predictions = baseline_estimator.predict(input_fn=predict_input_fn)
        predicted_scores = list([x["predictions"] for x in predictions])
        # score = bias, shape=[batch_size, label_dimension]
        self.assertAllClose([[0.2, 0.4, 0.6], [0.2, 0.4, 0.6]], predicted_scores)


class BaselineEstimatorIntegrationTest(ModelDirTest):
    def _test_complete_flow(
        self,
        train_input_fn,
        eval_input_fn,
        predict_input_fn,
        input_dimension,
        label_dimension,
        prediction_length,
    ):
        feature_columns = [numeric_column("x", shape=(input_dimension,))]
        est = _baseline_estimator_fn(label_dimension=label_dimension, model_dir=self._model_dir)
        # TRAIN
        # learn y = x
        est.train(train_input_fn, steps=200)
        # EVALUTE
        scores = est.evaluate(eval_input_fn)
        self.assertEqual(200, scores[GLOBAL_STEP])
        self.assertIn(LOSS, scores)
        # PREDICT
        predictions = np.array([x["predictions"] for x in est.predict(predict_input_fn)])
        self.assertAllEqual((prediction_length, label_dimension), predictions.shape)
        # EXPORT
        feature_spec = make_parse_example_spec(feature_columns)
        serving_input_receiver_fn = build_parsing_serving_input_receiver_fn(feature_spec)
        export_dir = est.export_saved_model(tempfile.mkdtemp(), serving_input_receiver_fn)
        self.assertTrue(exists(export_dir))

    def test_numpy_input_fn(self):
        """baseline_estimator_test.py::BaselineEstimatorIntegrationTest.test_numpy_input_fn"""
        label_dimension = 2
        input_dimension = label_dimension
        batch_size = 10
        prediction_length = batch_size
        data = np.linspace(0.0, 2.0, batch_size * label_dimension, dtype=np.float32)
        data = data.reshape(batch_size, label_dimension)
        train_input_fn = numpy_input_fn(
            x={"x": data}, y=data, batch_size=batch_size, num_epochs=None, shuffle=True
        )
        eval_input_fn = numpy_input_fn(
            x={"x": data}, y=data, batch_size=batch_size, num_epochs=1, shuffle=False
        )
        predict_input_fn = numpy_input_fn(
            x={"x": data}, y=None, batch_size=batch_size, num_epochs=1, shuffle=False
        )
        self._test_complete_flow(
            train_input_fn=train_input_fn,
            eval_input_fn=eval_input_fn,
            predict_input_fn=predict_input_fn,
            input_dimension=input_dimension,
            label_dimension=label_dimension,
            prediction_length=prediction_length,
        )


class BaselineEstimatorTrainingTest(ModelDirTest):
    def _assert_checkpoint(self, label_dimension, expected_global_step, expected_bias=None):
        shapes = {name: shape for (name, shape) in list_variables(self._model_dir)}
        self.assertEqual([], shapes[GLOBAL_STEP])
        self.assertEqual(expected_global_step, load_variable(self._model_dir, GLOBAL_STEP))
        self.assertEqual([label_dimension], shapes[BIAS_NAME])
        if expected_bias is not None:
            self.assertEqual(expected_bias, load_variable(self._model_dir, BIAS_NAME))

    def testFromScratch(self):  # noqa: N802
        """baseline_estimator_test.py::BaselineEstimatorTrainingTest.testFromScratch"""
        # Create BaselineRegressor.
        label = 5.0
        age = 17
        # loss = (logits - label)^2 = (0 - 5.)^2 = 25.
        mock_optimizer = MockOptimizer(self, expected_loss=25.0)
        baseline_estimator = _baseline_estimator_fn(
            model_dir=self._model_dir, optimizer=mock_optimizer.optimizer
        )
        # Train for a few steps, and validate optimizer and final checkpoint.
        num_steps = 10
        baseline_estimator.train(
            input_fn=lambda: ({"age": ((age,),)}, ((label,),)),
            steps=num_steps,
            hooks=mock_optimizer.hooks,
        )
        self.assertEqual(num_steps, mock_optimizer.iterations(baseline_estimator))
        self._assert_checkpoint(
            label_dimension=1, expected_global_step=num_steps, expected_bias=[0.0]
        )

    def testFromCheckpoint(self):  # noqa: N802
        """baseline_estimator_test.py::BaselineEstimatorTrainingTest.testFromCheckpoint"""
        # Create initial checkpoint.
        bias = 7.0
        initial_global_step = 100
        self._checkpoint([bias], initial_global_step)
        # logits = bias = 6.
        # loss = (logits - label)^2 = (7 - 5)^2 = 4
        mock_optimizer = MockOptimizer(self, expected_loss=4.0)
        baseline_estimator = _baseline_estimator_fn(
            model_dir=self._model_dir, optimizer=mock_optimizer.optimizer
        )
        # Train for a few steps, and validate optimizer and final checkpoint.
        num_steps = 10
        baseline_estimator.train(
            input_fn=lambda: ({"age": ((17,),)}, ((5.0,),)),
            steps=num_steps,
            hooks=mock_optimizer.hooks,
        )
        self.assertEqual(
            initial_global_step + num_steps, mock_optimizer.iterations(baseline_estimator)
        )
        self._assert_checkpoint(
            label_dimension=1,
            expected_global_step=initial_global_step + num_steps,
            expected_bias=[bias],
        )
