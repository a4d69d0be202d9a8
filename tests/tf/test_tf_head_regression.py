# Copyright 2018 The TensorFlow Authors. All Rights Reserved.
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
# ruff: noqa: E501
"""TF's tensorflow_estimator/python/estimator/head/regression_head_test.py, ported."""

import numpy as np
import pytest
from tf_test_case import TFTestCase

import colonnade as cn

RegressionHead = cn.estimators.regression_head
PoissonRegressionHead = cn.estimators.poisson_regression_head
LogisticRegressionHead = cn.estimators.logistic_regression_head
numeric_column = cn.feature_columns.numeric_column
TRAIN, EVAL, PREDICT = "train", "eval", "infer"
LOSS_MEAN, PREDICTION_MEAN, LABEL_MEAN = "average_loss", "prediction/mean", "label/mean"
LOSS_REGULARIZATION = "regularization_loss"


def _train_loss(head, labels):
    """The training loss of TF's logits [[0], [-1], [1]] (Poisson and logistic tests)."""
    logits = np.array([[0], [-1], [1]], dtype=np.float32)
    features = {"x": np.array(((42.0,),), dtype=np.int32)}
    return float(head.loss(logits=logits, labels=labels, features=features, mode=TRAIN))


# TF's "3d label, 1 example, 1 batch": logits, labels and features with per-value weights
MULTI_VALUE = (
    np.array(((45.0, 41.0, 44.0),)),
    np.array(((35.0, 42.0, 45.0),)),
    {"x": np.array(((42.0, 43.0, 44.0),)), "label_weights": np.array(((1.0, 0.1, 1.5),))},
)


def _results(metrics):
    return {k: metrics[k].result() for k in metrics}


class RegressionHeadTest(TFTestCase):
    def test_invalid_label_dimension(self):
        """regression_head_test.py::RegressionHead.test_invalid_label_dimension"""
        with self.assertRaisesRegex(ValueError, r"Invalid label_dimension"):
            RegressionHead(label_dimension=-1)
        with self.assertRaisesRegex(ValueError, r"Invalid label_dimension"):
            RegressionHead(label_dimension=0)

    def test_invalid_loss_reduction(self):
        """regression_head_test.py::RegressionHead.test_invalid_loss_reduction"""
        self.assert_invalid_loss_reduction(RegressionHead)

    def test_predict(self):
        """regression_head_test.py::RegressionHead.test_predict"""
        head = RegressionHead()
        self.assertEqual(1, head.logits_dimension)
        logits = np.array(((45,), (41,)), dtype=np.int32)
        preds = head.predictions(logits)
        self.assertItemsEqual(("predictions",), preds.keys())
        self.assertEqual(np.float32, preds["predictions"].dtype)
        self.assertAllClose(logits, preds["predictions"])
        spec = head.create_estimator_spec(
            features={"x": np.array(((42.0,),), dtype=np.int32)}, mode=PREDICT, logits=logits
        )
        self.assertIsNone(spec.loss)
        self.assertItemsEqual(
            ("serving_default", "predict", "regression"), spec.export_outputs.keys()
        )
        self.assertAllClose(logits, spec.export_outputs["serving_default"].value)
        self.assertAllClose(logits, spec.export_outputs["regression"].value)
        self.assertAllClose(logits, spec.export_outputs["predict"].outputs["predictions"])

    def test_predict_with_inverse_link_fn(self):
        """regression_head_test.py::RegressionHead.test_predict_with_inverse_link_fn"""

        def _inverse_link_fn(logits):
            return logits - 10.0

        head = RegressionHead(inverse_link_fn=_inverse_link_fn)
        logits = np.array(((45,), (41,)), dtype=np.int32)
        preds = head.predictions(logits)
        self.assertItemsEqual(("predictions", "logits"), preds.keys())
        self.assertEqual(np.float32, preds["predictions"].dtype)
        self.assertEqual(np.float32, preds["logits"].dtype)
        expected_predictions = np.array(((35,), (31,)), dtype=np.int32)
        self.assertAllClose(expected_predictions, preds["predictions"])
        self.assertAllClose(logits, preds["logits"])

    def test_eval_create_loss(self):
        """regression_head_test.py::RegressionHead.test_eval_create_loss"""
        head = RegressionHead()
        logits = np.array(((45,), (41,)), dtype=np.float32)
        labels = np.array(((43,), (44,)), dtype=np.int32)
        features = {"x": np.array(((42,),), dtype=np.float32)}
        self.assertAllClose(6.5, head.loss(logits=logits, labels=labels, features=features))

    def test_eval_create_loss_loss_fn(self):
        """regression_head_test.py::RegressionHead.test_eval_create_loss_loss_fn"""
        loss = np.array([[0.0, 1.0], [2.0, 3.0]], dtype=np.float32)
        batch_size = 4.0
        logits_input = np.array([[-1.0, 1.0], [-2.0, 2.0]], dtype=np.float32)
        labels_input = np.array([[1.0, 0.0], [2.0, -1.0]], dtype=np.float32)

        def _loss_fn(labels, logits):
            np.testing.assert_array_equal(self.evaluate(labels), labels_input)
            np.testing.assert_array_equal(self.evaluate(logits), logits_input)
            return loss

        head = RegressionHead(label_dimension=2, loss_fn=_loss_fn)
        actual = head.loss(
            logits=logits_input,
            labels=labels_input,
            features={"x": np.array(((42,),), dtype=np.int32)},
        )
        self.assertAllClose(np.sum(loss) / batch_size, actual)

    def test_eval_labels_none(self):
        """regression_head_test.py::RegressionHead.test_eval_labels_none"""
        head = RegressionHead()
        with self.assertRaisesRegex(
            ValueError, r"You must provide a labels Tensor\. Given: None\."
        ):
            head.loss(
                logits=np.array(((45,), (41,)), dtype=np.float32),
                labels=None,
                features={"x": np.array(((42,),), dtype=np.int32)},
                mode=EVAL,
            )

    def test_eval(self):
        """regression_head_test.py::RegressionHead.test_eval"""
        head = RegressionHead()
        logits = np.array(((45,), (41,)), dtype=np.float32)
        labels = np.array(((43,), (44,)), dtype=np.int32)
        features = {"x": np.array(((42,),), dtype=np.float32)}
        updated = head.update_metrics(head.metrics(), features, logits, labels)
        self.assertItemsEqual((LOSS_MEAN, PREDICTION_MEAN, LABEL_MEAN), updated.keys())
        self.assertAllClose(6.5, updated[LOSS_MEAN].result())
        self.assertAllClose(6.5, head.loss(labels, logits, features=features, mode=EVAL))

    def test_eval_with_regularization_losses(self):
        """regression_head_test.py::RegressionHead.test_eval_with_regularization_losses"""
        head = RegressionHead()
        logits = np.array(((45,), (41,)), dtype=np.float32)
        labels = np.array(((43,), (44,)), dtype=np.int32)
        features = {"x": np.array(((42,),), dtype=np.float32)}
        regularization_losses = [1.5, 0.5]
        expected_metrics = {
            LOSS_MEAN: 6.5,
            LOSS_REGULARIZATION: 2.0,
            PREDICTION_MEAN: (45 + 41) / 2.0,
            LABEL_MEAN: (43 + 44) / 2.0,
        }
        metrics = head.metrics(regularization_losses=regularization_losses)
        updated = head.update_metrics(
            metrics, features, logits, labels, regularization_losses=regularization_losses
        )
        self.assertAllClose(expected_metrics, _results(updated))

    def test_train_create_loss(self):
        """regression_head_test.py::RegressionHead.test_train_create_loss"""
        head = RegressionHead()
        logits = np.array(((45,), (41,)), dtype=np.float32)
        labels = np.array(((43,), (44,)), dtype=np.int32)
        features = {"x": np.array(((42,),), dtype=np.float32)}
        self.assertAllClose(6.5, head.loss(labels, logits, features))

    def test_train_create_loss_loss_reduction(self):
        """regression_head_test.py::RegressionHead.test_train_create_loss_loss_reduction"""
        head = RegressionHead(loss_reduction=cn.core.Reduction.SUM)
        logits = np.array(((45,), (41,)), dtype=np.float32)
        labels = np.array(((43,), (44,)), dtype=np.int32)
        features = {"x": np.array(((42,),), dtype=np.float32)}
        loss = head.loss(logits=logits, labels=labels, features=features, mode=TRAIN)
        self.assertAllClose(13.0, self.evaluate(loss))

    def test_train(self):
        """regression_head_test.py::RegressionHead.test_train (eager)"""
        head = RegressionHead()
        logits = np.array(((45,), (41,)), dtype=np.float32)
        labels = np.array(((43.0,), (44.0,)), dtype=np.float64)
        features = {"x": np.array(((42.0,),), dtype=np.float32)}
        preds = head.predictions(logits)
        loss = head.loss(labels, logits, features=features, mode=TRAIN)
        self.assertAllClose(logits, preds["predictions"])
        self.assertAllClose(6.5, loss)

    def test_train_with_regularization_losses(self):
        """regression_head_test.py::RegressionHead.test_train_with_regularization_losses"""
        head = RegressionHead()
        logits = np.array(((45,), (41,)), dtype=np.float32)
        labels = np.array(((43.0,), (44.0,)), dtype=np.float64)
        features = {"x": np.array(((42.0,),), dtype=np.float32)}
        loss = head.loss(
            labels, logits, features=features, mode=TRAIN, regularization_losses=[1.5, 0.5]
        )
        self.assertAllClose(8.5, loss)

    def test_weighted_multi_example_eval(self):
        """regression_head_test.py::RegressionHead.test_weighted_multi_example_eval"""
        head = RegressionHead(weight_column="label_weights")
        logits = np.array(((45,), (41,), (44,)), dtype=np.int32)
        features = {
            "x": np.array(((42,), (43,), (44,)), dtype=np.int32),
            "label_weights": np.array(((1.0,), (0.1,), (1.5,)), dtype=np.float32),
        }
        labels = np.array(((35,), (42,), (45,)), dtype=np.int32)
        self.assertAllClose(logits, head.predictions(logits)["predictions"])
        updated = head.update_metrics(head.metrics(), features, logits, labels)
        self.assertItemsEqual((LOSS_MEAN, PREDICTION_MEAN, LABEL_MEAN), updated.keys())
        self.assertAllClose(39.0769231, updated[LOSS_MEAN].result())
        self.assertAllClose(33.8666667, head.loss(labels, logits, features=features, mode=EVAL))

    def test_weight_with_numeric_column(self):
        """regression_head_test.py::RegressionHead.test_weight_with_numeric_column"""
        head = RegressionHead(
            weight_column=numeric_column("label_weights", normalizer_fn=lambda x: x + 1.0)
        )
        logits = np.array(((45,), (41,), (44,)), dtype=np.int32)
        features = {
            "x": np.array(((42,), (43,), (44,)), dtype=np.int32),
            "label_weights": np.array(((0.0,), (-0.9,), (0.5,)), dtype=np.float32),
        }
        labels = np.array(((35,), (42,), (45,)), dtype=np.int32)
        loss = head.loss(labels, logits, features=features)
        self.assertAllClose(33.8666667, self.evaluate(loss))

    def test_weighted_multi_example_train(self):
        """regression_head_test.py::RegressionHead.test_weighted_multi_example_train"""
        head = RegressionHead(weight_column="label_weights")
        features = {
            "x": np.array(((42,), (43,), (44,)), dtype=np.float32),
            "label_weights": np.array(((1.0,), (0.1,), (1.5,)), dtype=np.float64),
        }
        labels = np.array(((35.0,), (42.0,), (45.0,)), dtype=np.float32)
        logits = np.array(((45,), (41,), (44,)), dtype=np.float32)
        preds = head.predictions(logits)
        loss = head.loss(labels, logits, features=features, mode=TRAIN)
        self.assertItemsEqual(("predictions",), preds.keys())
        self.assertEqual(np.float32, preds["predictions"].dtype)
        self.assertAllClose(logits, preds["predictions"])
        self.assertAllClose(33.8666667, self.evaluate(loss))

    def test_train_one_dim_create_loss(self):
        """regression_head_test.py::RegressionHead.test_train_one_dim_create_loss"""
        head = RegressionHead(weight_column="label_weights")
        logits = np.array(((45,), (41,), (44,)), dtype=np.float32)
        x_feature_rank_1 = np.array((42.0, 43.0, 44.0), dtype=np.float32)
        weight_rank_1 = np.array((1.0, 0.1, 1.5), dtype=np.float64)
        labels_rank_1 = np.array((35.0, 42.0, 45.0))
        features = {"x": x_feature_rank_1, "label_weights": weight_rank_1}
        loss = head.loss(labels=labels_rank_1, logits=logits, features=features)
        self.assertAllClose(33.8666667, self.evaluate(loss))

    def test_weighted_multi_value_eval_create_loss(self):
        """regression_head_test.py::RegressionHead.test_weighted_multi_value_eval_create_loss"""
        head = RegressionHead(weight_column="label_weights", label_dimension=3)
        logits, labels, features = MULTI_VALUE
        loss = head.loss(logits=logits, labels=labels, features=features)
        self.assertAllClose(33.8666667, self.evaluate(loss))

    def test_weighted_multi_value_eval(self):
        """regression_head_test.py::RegressionHead.test_weighted_multi_value_eval"""
        head = RegressionHead(weight_column="label_weights", label_dimension=3)
        self.assertEqual(3, head.logits_dimension)
        logits, labels, features = MULTI_VALUE
        self.assertAllClose(logits, head.predictions(logits)["predictions"])
        updated = head.update_metrics(head.metrics(), features, logits, labels)
        self.assertItemsEqual((LOSS_MEAN, PREDICTION_MEAN, LABEL_MEAN), updated.keys())
        self.assertAllClose(39.0769231, updated[LOSS_MEAN].result())
        self.assertAllClose(33.8666667, head.loss(labels, logits, features=features, mode=EVAL))

    def test_weighted_multi_value_train_create_loss(self):
        """regression_head_test.py::RegressionHead.test_weighted_multi_value_train_create_loss"""
        head = RegressionHead(weight_column="label_weights", label_dimension=3)
        logits, labels, features = MULTI_VALUE
        loss = head.loss(logits=logits, labels=labels, features=features, mode=TRAIN)
        self.assertAllClose(33.8666667, self.evaluate(loss))

    def test_weighted_multi_batch_eval_eager(self):
        """regression_head_test.py::RegressionHead.test_weighted_multi_batch_eval_eager"""
        head = RegressionHead(weight_column="label_weights")
        logits = np.array(((45.0,), (41.0,), (44.0,)))
        weights = np.array(((1.0,), (0.1,), (1.5,)))
        labels = np.array(((35.0,), (42.0,), (45.0,)))
        expected_metrics = {
            LOSS_MEAN: 39.076923,
            PREDICTION_MEAN: (45 + 41 * 0.1 + 44 * 1.5) / 2.6,
            LABEL_MEAN: (35 + 42 * 0.1 + 45 * 1.5) / 2.6,
        }
        eval_metrics = head.metrics()
        for i in range(3):
            features = {"label_weights": weights[i : i + 1]}
            head.update_metrics(eval_metrics, features, logits[i : i + 1], labels[i : i + 1])
        self.assertAllClose(expected_metrics, _results(eval_metrics))

    def test_weighted_multi_batch_train_eager(self):
        """regression_head_test.py::RegressionHead.test_weighted_multi_batch_train_eager"""
        head = RegressionHead(weight_column="label_weights")
        logits = np.array(((45.0,), (41.0,), (44.0,)))
        weights = np.array(((1.0,), (0.1,), (1.5,)))
        labels = np.array(((35.0,), (42.0,), (45.0,)))
        expected_losses = np.array((100, 0.1, 1.5))
        for i in range(3):
            features = {"label_weights": weights[i : i + 1]}
            loss = head.loss(labels[i : i + 1], logits[i : i + 1], features=features)
            self.assertAllClose(expected_losses[i], loss)

    def test_multi_dim_weighted_train_create_loss(self):
        """regression_head_test.py::RegressionHead.test_multi_dim_weighted_train_create_loss"""
        head = RegressionHead(weight_column="label_weights", label_dimension=3)
        logits = np.array(
            [[[0.0, 1.0, 2.0], [10.0, 11.0, 12.0]], [[20.0, 21.0, 22.0], [30.0, 31.0, 32.0]]]
        )
        labels = np.array(
            [[[1.0, 2.0, 3.0], [12.0, 13.0, 14.0]], [[23.0, 24.0, 25.0], [34.0, 35.0, 36.0]]]
        )
        weights = np.array([[1.0, 1.5], [2.0, 2.5]])
        weighted_sum = np.sum(
            np.array(
                [
                    [[1.0 * x for x in [1.0, 1.0, 1.0]], [1.5 * x for x in [4.0, 4.0, 4.0]]],
                    [[2.0 * x for x in [9.0, 9.0, 9.0]], [2.5 * x for x in [16.0, 16.0, 16.0]]],
                ]
            )
        )
        loss = head.loss(
            features={"label_weights": weights}, mode=TRAIN, logits=logits, labels=labels
        )
        self.assertAllClose(weighted_sum / 12.0, self.evaluate(loss))


class PoissonRegressionHeadTest(TFTestCase):
    def test_train(self):
        """regression_head_test.py::PoissonRegressionHead.test_train"""
        self.assertAlmostEqual(
            1.834,
            _train_loss(PoissonRegressionHead(), np.array([[1], [2], [3]], dtype=np.int32)),
            delta=0.001,
        )

    def test_predict(self):
        """regression_head_test.py::PoissonRegressionHead.test_predict"""
        head = PoissonRegressionHead()
        logits = np.array([[0], [-1], [1]], dtype=np.float32)
        preds = head.predictions(logits)
        self.assertItemsEqual(("predictions", "logits"), preds.keys())
        self.assertAllClose(np.exp(logits), preds["predictions"])
        self.assertAllClose(logits, preds["logits"])


class LogisticRegressionHeadTest(TFTestCase):
    def _assert_out_of_range(self, head, labels):
        logits = np.array([[0], [-1], [1]], dtype=np.float32)
        with self.assertRaisesRegex(ValueError, r"Labels must be in range \[0, 1\]"):
            head.loss(logits=logits, labels=labels, features={}, mode=TRAIN)

    def test_train(self):
        """regression_head_test.py::LogisticRegressionHead.test_train"""
        self.assertAlmostEqual(
            0.7066,
            _train_loss(
                LogisticRegressionHead(), np.array([[0.4], [0.6], [0.8]], dtype=np.float32)
            ),
            delta=0.001,
        )

    def test_train_labels_too_large(self):
        """regression_head_test.py::LogisticRegressionHead.test_train_labels_too_large"""
        head = LogisticRegressionHead()
        self._assert_out_of_range(head, np.array([[0.4], [1.2], [0.8]], dtype=np.float32))

    def test_train_labels_negative(self):
        """regression_head_test.py::LogisticRegressionHead.test_train_labels_negative"""
        head = LogisticRegressionHead()
        self._assert_out_of_range(head, np.array([[0.4], [-0.2], [0.8]], dtype=np.float32))

    def test_predict(self):
        """regression_head_test.py::LogisticRegressionHead.test_predict"""
        head = LogisticRegressionHead()
        logits = np.array([[0], [-1], [1]], dtype=np.float32)
        preds = head.predictions(logits)
        self.assertItemsEqual(("predictions", "logits"), preds.keys())
        self.assertAllClose(1.0 / (1.0 + np.exp(-logits)), preds["predictions"])
        self.assertAllClose(logits, preds["logits"])


@pytest.mark.skip(reason="graph-only: Keras optimizer get_updates, tf.summary, sessions")
def test_regression_head_for_estimator_graph_only():
    """regression_head_test.py::RegressionHeadForEstimator (graph mode only)"""
