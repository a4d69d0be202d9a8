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
"""TF's tensorflow_estimator/python/estimator/head/multi_label_head_test.py, ported (eager
branches; a selection in file order). TF's sparse labels are per-example lists of class
ids here."""

import numpy as np
from tf_test_case import TFTestCase

import colonnade as cn

MultiLabelHead = cn.estimators.multi_label_head
TRAIN, EVAL = "train", "eval"
FEATURES = {"x": np.array(((42,),), dtype=np.int32)}


def sigmoid_cross_entropy(labels, logits):
    """TF's helper: the per-example loss, the mean over classes."""
    sigmoid_logits = 1 / (1 + np.exp(-logits))
    unreduced_result = -labels * np.log(sigmoid_logits) - (1 - labels) * np.log(1 - sigmoid_logits)
    return np.mean(unreduced_result, axis=-1, keepdims=True)


class MultiLabelHeadTest(TFTestCase):
    def test_n_classes_is_none(self):
        """multi_label_head_test.py::MultiLabelHead.test_n_classes_is_none"""
        with self.assertRaisesRegex(
            ValueError, r"n_classes must be > 1 for multi-label classification\. Given: None"
        ):
            MultiLabelHead(n_classes=None)

    def test_n_classes_is_1(self):
        """multi_label_head_test.py::MultiLabelHead.test_n_classes_is_1"""
        with self.assertRaisesRegex(
            ValueError, r"n_classes must be > 1 for multi-label classification\. Given: 1"
        ):
            MultiLabelHead(n_classes=1)

    def test_threshold_too_small(self):
        """multi_label_head_test.py::MultiLabelHead.test_threshold_too_small"""
        with self.assertRaisesRegex(
            ValueError, r"thresholds must be in \(0, 1\) range\. Given: 0\.0"
        ):
            MultiLabelHead(n_classes=2, thresholds=[0.0, 0.5])

    def test_threshold_too_large(self):
        """multi_label_head_test.py::MultiLabelHead.test_threshold_too_large"""
        with self.assertRaisesRegex(
            ValueError, r"thresholds must be in \(0, 1\) range\. Given: 1\.0"
        ):
            MultiLabelHead(n_classes=2, thresholds=[0.5, 1.0])

    def test_label_vocabulary_dict(self):
        """multi_label_head_test.py::MultiLabelHead.test_label_vocabulary_dict"""
        with self.assertRaisesRegex(
            ValueError,
            r"label_vocabulary must be a list or tuple\. Given type: <(type|class) \'dict\'>",
        ):
            MultiLabelHead(n_classes=2, label_vocabulary={"foo": "bar"})

    def test_label_vocabulary_wrong_size(self):
        """multi_label_head_test.py::MultiLabelHead.test_label_vocabulary_wrong_size"""
        with self.assertRaisesRegex(
            ValueError, r"Length of label_vocabulary must be n_classes \(3\). Given: 2"
        ):
            MultiLabelHead(n_classes=3, label_vocabulary=["foo", "bar"])

    def test_classes_for_class_based_metrics_invalid(self):
        """multi_label_head_test.py::MultiLabelHead.test_classes_for_class_based_metrics_invalid"""
        with self.assertRaisesRegex(
            ValueError, r"All classes_for_class_based_metrics must be in range \[0, 2\]\. Given: -1"
        ):
            MultiLabelHead(n_classes=3, classes_for_class_based_metrics=[2, -1])

    def test_classes_for_class_based_metrics_string_invalid(self):
        """multi_label_head_test.py::MultiLabelHead.test_classes_for_class_based_metrics_string_invalid"""
        with self.assertRaisesRegex(ValueError, r"\'z\' is not in list"):
            MultiLabelHead(
                n_classes=3,
                label_vocabulary=["a", "b", "c"],
                classes_for_class_based_metrics=["c", "z"],
            )

    def test_predict(self):
        """multi_label_head_test.py::MultiLabelHead.test_predict"""
        head = MultiLabelHead(4)
        self.assertEqual(4, head.logits_dimension)
        logits = np.array([[0.0, 1.0, 2.0, -1.0], [-1.0, -2.0, -3.0, 1.0]], dtype=np.float32)
        preds = head.predictions(logits, ["logits", "probabilities", "classes"])
        self.assertAllClose(logits, preds["logits"])
        self.assertAllClose(1 / (1 + np.exp(-logits)), preds["probabilities"])

    def test_eval_create_loss(self):
        """multi_label_head_test.py::MultiLabelHead.test_eval_create_loss"""
        head = MultiLabelHead(2)
        logits = np.array([[-1.0, 1.0], [-1.5, 1.0]], dtype=np.float32)
        labels = np.array([[1, 0], [1, 1]], dtype=np.int64)
        expected = 0.5 * np.sum(sigmoid_cross_entropy(labels=labels, logits=logits))
        self.assertAllClose(
            expected, head.loss(logits=logits, labels=labels, features=FEATURES, mode=EVAL)
        )

    def test_eval_create_loss_large_logits(self):
        """multi_label_head_test.py::MultiLabelHead.test_eval_create_loss_large_logits"""
        head = MultiLabelHead(2)
        logits = np.array([[-10.0, 10.0], [-15.0, 10.0]], dtype=np.float32)
        labels = np.array([[1, 0], [1, 1]], dtype=np.int64)
        expected = 0.5 * np.sum(
            np.array([[(10.0 + 10.0) / 2.0], [(15.0 + 0.0) / 2.0]], dtype=np.float32)
        )
        self.assertAllClose(
            expected,
            head.loss(logits=logits, labels=labels, features=FEATURES, mode=EVAL),
            atol=1e-4,
        )

    def test_eval_labels_none(self):
        """multi_label_head_test.py::MultiLabelHead.test_eval_labels_none"""
        head = MultiLabelHead(2)
        with self.assertRaisesRegex(
            ValueError, r"You must provide a labels Tensor\. Given: None\."
        ):
            head.loss(
                logits=np.array([[-10.0, 10.0], [-15.0, 10.0]], dtype=np.float32),
                labels=None,
                features=FEATURES,
                mode=EVAL,
            )

    def test_eval_sparse_labels_loss(self):
        """multi_label_head_test.py::MultiLabelHead.test_eval_sparse_labels (the loss: TF's
        AUCs are the 200-threshold approximation, see docs/tf_differences.md)"""
        head = MultiLabelHead(2)
        logits = np.array([[-1.0, 1.0], [-1.5, 1.5]], dtype=np.float32)
        labels = [
            [0],
            [0, 1],
        ]  # TF's SparseTensor(values=[0, 0, 1], indices=[[0, 0], [1, 0], [1, 1]])
        labels_multi_hot = np.array([[1, 0], [1, 1]], dtype=np.int64)
        expected_loss = 0.5 * np.sum(sigmoid_cross_entropy(labels=labels_multi_hot, logits=logits))
        updated = head.update_metrics(head.metrics(), FEATURES, logits, labels)
        self.assertAllClose(expected_loss, updated["average_loss"].result())
        self.assertAllClose(expected_loss, head.loss(labels, logits, features=FEATURES, mode=EVAL))

    def test_train_create_loss_large_logits(self):
        """multi_label_head_test.py::MultiLabelHead.test_train_create_loss_large_logits"""
        head = MultiLabelHead(2, weight_column="example_weights")
        logits = np.array([[-10.0, 10.0], [-15.0, 10.0]], dtype=np.float32)
        labels = np.array([[1, 0], [1, 1]], dtype=np.int64)
        features = {
            "x": np.array(((42,),), dtype=np.int32),
            "example_weights": np.array([[1.0], [2.0]], dtype=np.float32),
        }
        expected = (1.0 * (10.0 + 10.0) / 2.0 + 2.0 * (15.0 + 0.0) / 2.0) / 2.0
        self.assertAllClose(
            expected,
            head.loss(logits=logits, labels=labels, features=features, mode=TRAIN),
            atol=1e-4,
        )

    def test_train_create_loss_loss_reduction(self):
        """multi_label_head_test.py::MultiLabelHead.test_train_create_loss_loss_reduction"""
        head = MultiLabelHead(
            2, weight_column="example_weights", loss_reduction=cn.core.Reduction.SUM
        )
        logits = np.array([[-10.0, 10.0], [-15.0, 10.0]], dtype=np.float32)
        labels = np.array([[1, 0], [1, 1]], dtype=np.int64)
        features = {
            "x": np.array(((42,),), dtype=np.int32),
            "example_weights": np.array([[1.0], [2.0]], dtype=np.float32),
        }
        expected = 1.0 * (10.0 + 10.0) / 2.0 + 2.0 * (15.0 + 0.0) / 2.0
        self.assertAllClose(
            expected,
            head.loss(logits=logits, labels=labels, features=features, mode=TRAIN),
            atol=1e-4,
        )
