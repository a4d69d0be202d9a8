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
"""TF's tensorflow_estimator/python/estimator/head/multi_class_head_test.py, ported
(eager branches; a selection of its tests in file order)."""

import numpy as np
import pytest
from tf_test_case import TFTestCase

import colonnade as cn

MultiClassHead = cn.estimators.multi_class_head
TRAIN, EVAL = "train", "eval"


def _results(metrics):
    return {k: metrics[k].result() for k in metrics}


LOGITS_2X3 = np.array(((10, 0, 0), (0, 10, 0)), dtype=np.float32)
LABELS_2X1 = np.array(((1,), (1,)), dtype=np.int64)
FEATURES = {"x": np.array(((42,),), dtype=np.int32)}


class MultiClassHeadTest(TFTestCase):
    def _assert_eval_loss(self, expected, head, logits, labels, features):
        loss = head.loss(logits=logits, labels=labels, features=features, mode=EVAL)
        self.assertAllClose(expected, loss, rtol=1e-2, atol=1e-2)

    def test_n_classes_is_none(self):
        """multi_class_head_test.py::MultiClassHead.test_n_classes_is_none"""
        with self.assertRaisesRegex(ValueError, "n_classes cannot be None"):
            MultiClassHead(n_classes=None)

    def test_n_classes_is_2(self):
        """multi_class_head_test.py::MultiClassHead.test_n_classes_is_2"""
        with self.assertRaisesRegex(ValueError, "n_classes must be > 2"):
            MultiClassHead(n_classes=2)

    def test_invalid_loss_reduction(self):
        """multi_class_head_test.py::MultiClassHead.test_invalid_loss_reduction"""
        self.assert_invalid_loss_reduction(lambda **kw: MultiClassHead(n_classes=3, **kw))

    def test_loss_fn_arg_labels_missing(self):
        """multi_class_head_test.py::MultiClassHead.test_loss_fn_arg_labels_missing"""

        def _loss_fn(logits):
            del logits

        with self.assertRaisesRegex(
            ValueError, r"loss_fn must contain argument: labels\. Given arguments: \(\'logits\',\)"
        ):
            MultiClassHead(n_classes=3, loss_fn=_loss_fn)

    def test_loss_fn_arg_invalid(self):
        """multi_class_head_test.py::MultiClassHead.test_loss_fn_arg_invalid"""

        def _loss_fn(labels, logits, name=None):
            del labels, logits, name

        with self.assertRaisesRegex(ValueError, r"loss_fn has unexpected args: \[\'name\'\]"):
            MultiClassHead(n_classes=3, loss_fn=_loss_fn)

    def test_invalid_logits_shape(self):
        """multi_class_head_test.py::MultiClassHead.test_invalid_logits_shape"""
        head = MultiClassHead(3)
        self.assertEqual(3, head.logits_dimension)
        with self.assertRaisesRegex(ValueError, "logits shape"):
            head.predictions(np.array(((45.0, 44.0), (41.0, 42.0))), ["probabilities"])

    def test_invalid_labels_values(self):
        """multi_class_head_test.py::MultiClassHead.test_invalid_labels_values (eager)"""
        head = MultiClassHead(3)
        logits_2x3 = np.array(((1.0, 2.0, 4.0), (1.0, 2.0, 3.0)))
        with self.assertRaisesRegex(ValueError, "Labels must be <= n_classes - 1"):
            head.loss(
                logits=logits_2x3, labels=np.array(((1,), (3,))), features=FEATURES, mode=EVAL
            )
        with self.assertRaisesRegex(ValueError, "Labels must be >= 0"):
            head.loss(
                logits=logits_2x3, labels=np.array(((1,), (-1,))), features=FEATURES, mode=EVAL
            )

    def test_incompatible_labels_shape(self):
        """multi_class_head_test.py::MultiClassHead.test_incompatible_labels_shape"""
        head = MultiClassHead(3)
        values_3x1 = np.array(((1,), (1,), (1,)))
        values_2x3 = np.array(((1.0, 2.0, 3.0), (1.0, 2.0, 3.0)))
        with self.assertRaisesRegex(ValueError, "labels shape"):
            head.loss(logits=values_2x3, labels=values_3x1, features={"x": values_2x3}, mode=EVAL)

    def test_predict(self):
        """multi_class_head_test.py::MultiClassHead.test_predict"""
        head = MultiClassHead(3)
        logits = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
        preds = head.predictions(logits)
        self.assertAllClose(logits, preds["logits"])
        self.assertAllClose(
            [[0.576117, 0.2119416, 0.2119416], [0.2119416, 0.2119416, 0.576117]],
            preds["probabilities"],
        )
        self.assertAllClose([[0], [2]], preds["class_ids"])
        self.assertAllEqual([[b"0"], [b"2"]], preds["classes"])
        self.assertAllClose([[0, 1, 2]] * 2, preds["all_class_ids"])
        self.assertAllEqual([[b"0", b"1", b"2"]] * 2, preds["all_classes"])

    def test_predict_with_invalid_keys(self):
        """multi_class_head_test.py::MultiClassHead.test_predict_with_invalid_keys"""
        head = MultiClassHead(3)
        with self.assertRaisesRegex(
            ValueError, r"Prediction key must be in PredictionKeys, given: some_invalid_key"
        ):
            head.predictions([[1.0, 0.0, 0.0]], ["some_invalid_key"])

    def test_predict_with_vocabulary_list(self):
        """multi_class_head_test.py::MultiClassHead.test_predict_with_vocabulary_list"""
        head = MultiClassHead(3, label_vocabulary=["aang", "iroh", "zuko"])
        preds = head.predictions([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], ["classes"])
        self.assertAllEqual([[b"aang"], [b"zuko"]], preds["classes"])

    def test_eval_create_loss(self):
        """multi_class_head_test.py::MultiClassHead.test_eval_create_loss"""
        head = MultiClassHead(3)
        loss = head.loss(logits=LOGITS_2X3, labels=LABELS_2X1, features=FEATURES, mode=EVAL)
        self.assertAllClose(5.0, loss, rtol=1e-2, atol=1e-2)

    def test_eval_labels_none(self):
        """multi_class_head_test.py::MultiClassHead.test_eval_labels_none"""
        head = MultiClassHead(3)
        with self.assertRaisesRegex(
            ValueError, r"You must provide a labels Tensor\. Given: None\."
        ):
            head.loss(logits=LOGITS_2X3, labels=None, features=FEATURES, mode=EVAL)

    def test_eval(self):
        """multi_class_head_test.py::MultiClassHead.test_eval"""
        head = MultiClassHead(3)
        updated = head.update_metrics(head.metrics(), FEATURES, LOGITS_2X3, LABELS_2X1)
        expected = {"average_loss": 5.0, "accuracy": 0.5}
        self.assertItemsEqual(expected.keys(), updated.keys())
        self.assertAllClose(expected, _results(updated), rtol=1e-2, atol=1e-2)
        self.assertAllClose(
            5.0,
            head.loss(LABELS_2X1, LOGITS_2X3, features=FEATURES, mode=EVAL),
            rtol=1e-2,
            atol=1e-2,
        )

    def test_eval_with_regularization_losses(self):
        """multi_class_head_test.py::MultiClassHead.test_eval_with_regularization_losses"""
        head = MultiClassHead(3, loss_reduction=cn.core.Reduction.SUM_OVER_BATCH_SIZE)
        regularization_losses = [1.5, 0.5]
        expected = {"average_loss": 5.0, "regularization_loss": 2.0, "accuracy": 0.5}
        metrics = head.metrics(regularization_losses=regularization_losses)
        updated = head.update_metrics(
            metrics, FEATURES, LOGITS_2X3, LABELS_2X1, regularization_losses=regularization_losses
        )
        self.assertAllClose(expected, _results(updated), rtol=1e-2, atol=1e-2)

    def test_eval_with_label_vocabulary(self):
        """multi_class_head_test.py::MultiClassHead.test_eval_with_label_vocabulary"""
        head = MultiClassHead(3, label_vocabulary=["aang", "iroh", "zuko"])
        labels = [[b"iroh"], [b"iroh"]]
        self._assert_eval_loss(5.0, head, LOGITS_2X3, labels, FEATURES)
        updated = head.update_metrics(head.metrics(), FEATURES, LOGITS_2X3, labels)
        self.assertAllClose(
            {"average_loss": 5.0, "accuracy": 0.5}, _results(updated), rtol=1e-2, atol=1e-2
        )

    def test_weighted_multi_example_eval(self):
        """multi_class_head_test.py::MultiClassHead.test_weighted_multi_example_eval"""
        head = MultiClassHead(3, weight_column="label_weights")
        logits = np.array(((10, 0, 0), (0, 10, 0), (0, 0, 10)), dtype=np.float32)
        labels = np.array(((1,), (2,), (2,)), dtype=np.int64)
        weights_3x1 = np.array(((1.0,), (2.0,), (3.0,)), dtype=np.float64)
        features = {"x": np.array(((42,),), dtype=np.int32), "label_weights": weights_3x1}
        self._assert_eval_loss(10.0, head, logits, labels, features)
        updated = head.update_metrics(head.metrics(), features, logits, labels)
        expected = {"average_loss": 30.0 / np.sum(weights_3x1), "accuracy": 0.5}
        self.assertAllClose(expected, _results(updated), rtol=1e-2, atol=1e-2)

    def test_train_create_loss(self):
        """multi_class_head_test.py::MultiClassHead.test_train_create_loss"""
        head = MultiClassHead(n_classes=3)
        self.assertAllClose(5.0, head.loss(LABELS_2X1, LOGITS_2X3, FEATURES), rtol=1e-2, atol=1e-2)

    def test_train_create_loss_loss_reduction(self):
        """multi_class_head_test.py::MultiClassHead.test_train_create_loss_loss_reduction"""
        head = MultiClassHead(n_classes=3, loss_reduction=cn.core.Reduction.SUM)
        self.assertAllClose(10.0, head.loss(LABELS_2X1, LOGITS_2X3, FEATURES), rtol=1e-2, atol=1e-2)

    def test_train_one_dim_create_loss(self):
        """multi_class_head_test.py::MultiClassHead.test_train_one_dim_create_loss"""
        head = MultiClassHead(n_classes=3, weight_column="label_weights")
        logits = np.array(((10, 0, 0), (0, 10, 0), (0, 0, 10)), dtype=np.float32)
        labels_rank_1 = np.array((1, 2, 2), dtype=np.int64)
        weights_rank_1 = np.array((1.0, 2.0, 3.0), dtype=np.float64)
        features = {"x": np.array(((42,),), dtype=np.float32), "label_weights": weights_rank_1}
        # training_loss = (1 * 10 + 2 * 10 + 3 * 0) / 3 = 10
        self.assertAllClose(10.0, head.loss(labels_rank_1, logits, features), rtol=1e-2, atol=1e-2)

    def test_multi_dim_weighted_train_create_loss(self):
        """multi_class_head_test.py::MultiClassHead.test_multi_dim_weighted_train_create_loss"""
        head = MultiClassHead(n_classes=3, weight_column="weights")
        logits = np.array([[[10, 0, 0], [12, 0, 0]], [[0, 10, 0], [0, 15, 0]]], dtype=np.float32)
        labels = np.array([[[0], [1]], [[1], [2]]], dtype=np.int64)
        weights = np.array([[1.0, 1.5], [2.0, 2.5]], dtype=np.float32)
        loss = head.loss(labels, logits, features={"weights": weights})
        self.assertAllClose(13.875, loss, rtol=1e-2, atol=1e-2)

    def test_missmatch_n_classes_label_vocabulary(self):
        """multi_class_head_test.py::MultiClassHead.test_missmatch_n_classes_label_vocabulary"""
        with self.assertRaises(ValueError):
            MultiClassHead(n_classes=3, label_vocabulary=["a", "b", "c", "d"])


@pytest.mark.skip(
    reason="graph-only: Keras optimizer get_updates, tf.summary, lookup tables in a graph"
)
def test_multi_class_head_for_estimator_graph_only():
    """multi_class_head_test.py::MultiClassHeadForEstimator (graph mode only)"""
