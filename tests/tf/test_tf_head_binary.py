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
"""TF's tensorflow_estimator/python/estimator/head/binary_class_head_test.py, ported."""

import numpy as np
import pytest
from tf_test_case import TFTestCase

import colonnade as cn

BinaryClassHead = cn.estimators.binary_classification_head
TRAIN, EVAL, PREDICT = "train", "eval", "infer"
LOSS_MEAN, ACCURACY, PRECISION, RECALL = "average_loss", "accuracy", "precision", "recall"
PREDICTION_MEAN, LABEL_MEAN, ACCURACY_BASELINE = (
    "prediction/mean",
    "label/mean",
    "accuracy_baseline",
)
AUC, AUC_PR, LOSS_REGULARIZATION = "auc", "auc_precision_recall", "regularization_loss"
ACCURACY_AT_THRESHOLD = "accuracy/positive_threshold_%g"
PRECISION_AT_THRESHOLD = "precision/positive_threshold_%g"
RECALL_AT_THRESHOLD = "recall/positive_threshold_%g"


# TF's expected metrics of logits (45, -41) and labels (1, 1), besides the loss
METRICS_45 = {
    ACCURACY: 1.0 / 2,
    PRECISION: 1.0,
    RECALL: 1.0 / 2,
    PREDICTION_MEAN: 1.0 / 2,
    LABEL_MEAN: 2.0 / 2,
    ACCURACY_BASELINE: 2.0 / 2,
    AUC: 0.0,
    AUC_PR: 1.0,
}


# TF's float_labels tests: logits, labels in [0, 1] and features
FLOAT_LABELS = (
    np.array([[0.5], [-0.3]], dtype=np.float32),
    np.array([[0.8], [0.4]], dtype=np.float32),
    {"x": np.array([[42]], dtype=np.float32)},
)


def _results(metrics):
    return {k: metrics[k].result() for k in metrics}


class BinaryClassHeadTest(TFTestCase):
    def _assert_labels_required(self, head, mode):
        """TF's test_*_labels_none: labels=None is TF's ValueError."""
        logits = np.array(((45,), (-41,)), dtype=np.float32)
        with self.assertRaisesRegex(
            ValueError, r"You must provide a labels Tensor\. Given: None\."
        ):
            head.loss(
                logits=logits,
                labels=None,
                features={"x": np.array(((42,),), dtype=np.int32)},
                mode=mode,
            )

    def test_threshold_too_small(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_threshold_too_small"""
        with self.assertRaisesRegex(ValueError, r"thresholds not in \(0, 1\)"):
            BinaryClassHead(thresholds=(0.0, 0.5))

    def test_threshold_too_large(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_threshold_too_large"""
        with self.assertRaisesRegex(ValueError, r"thresholds not in \(0, 1\)"):
            BinaryClassHead(thresholds=(0.5, 1.0))

    def test_invalid_loss_reduction(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_invalid_loss_reduction"""
        self.assert_invalid_loss_reduction(BinaryClassHead)

    def test_loss_fn_arg_labels_missing(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_loss_fn_arg_labels_missing"""

        self.assert_loss_fn_refused(
            BinaryClassHead,
            lambda logits: None,
            r"loss_fn must contain argument: labels\. Given arguments: \(\'logits\',\)",
        )

    def test_loss_fn_arg_logits_missing(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_loss_fn_arg_logits_missing"""

        self.assert_loss_fn_refused(
            BinaryClassHead,
            lambda labels: None,
            r"loss_fn must contain argument: logits\. Given arguments: \(\'labels\',\)",
        )

    def test_loss_fn_arg_features_ok(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_loss_fn_arg_features_ok"""

        def _loss_fn(labels, logits, features):
            del labels, logits, features

        BinaryClassHead(loss_fn=_loss_fn)

    def test_loss_fn_arg_invalid(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_loss_fn_arg_invalid"""

        def _loss_fn(labels, logits, name=None):
            del labels, logits, name

        with self.assertRaisesRegex(ValueError, r"loss_fn has unexpected args: \['name'\]"):
            BinaryClassHead(loss_fn=_loss_fn)

    def test_invalid_logits_shape(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_invalid_logits_shape (eager)"""
        head = BinaryClassHead()
        self.assertEqual(1, head.logits_dimension)
        logits_2x2 = np.array(((45.0, 44.0), (41.0, 42.0)))
        with self.assertRaisesRegex(ValueError, "logits shape"):
            head.predictions(logits_2x2, ["probabilities"])

    def test_invalid_labels_shape(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_invalid_labels_shape (eager)"""
        head = BinaryClassHead()
        labels_2x2 = np.array(((45.0, 44.0), (41.0, 42.0)))
        logits_2x1 = np.array(((45.0,), (41.0,)))
        features = {"x": np.array(((42.0,),))}
        with self.assertRaisesRegex(ValueError, "Mismatched label shape"):
            head.loss(logits=logits_2x1, labels=labels_2x2, features=features, mode=EVAL)

    def test_incompatible_labels_shape(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_incompatible_labels_shape"""
        head = BinaryClassHead()
        values_2x1 = np.array(((0.0,), (1.0,)))
        values_3x1 = np.array(((0.0,), (1.0,), (0.0,)))
        features = {"x": values_2x1}
        with self.assertRaisesRegex(ValueError, "labels shape"):
            head.loss(logits=values_2x1, labels=values_3x1, features=features, mode=EVAL)
        with self.assertRaisesRegex(ValueError, "labels shape"):
            head.loss(logits=values_3x1, labels=values_2x1, features=features, mode=EVAL)

    def test_predict(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_predict"""
        head = BinaryClassHead()
        logits = [[0.3], [-0.4]]
        expected_logistics = [[0.574443], [0.401312]]
        expected_probabilities = [[0.425557, 0.574443], [0.598688, 0.401312]]
        expected_class_ids = [[1], [0]]
        expected_classes = [[b"1"], [b"0"]]
        expected_all_class_ids = [[0, 1]] * 2
        expected_all_classes = [[b"0", b"1"]] * 2
        keys = ["logits", "logistic", "probabilities", "class_ids", "classes"]
        preds = head.predictions(logits, keys + ["all_class_ids", "all_classes"])
        self.assertAllClose(logits, preds["logits"])
        self.assertAllClose(expected_logistics, preds["logistic"])
        self.assertAllClose(expected_probabilities, preds["probabilities"])
        self.assertAllClose(expected_class_ids, preds["class_ids"])
        self.assertAllClose(expected_all_class_ids, preds["all_class_ids"])
        self.assertAllEqual(expected_classes, preds["classes"])
        self.assertAllEqual(expected_all_classes, preds["all_classes"])
        spec = head.create_estimator_spec(
            features={"x": np.array(((42,),), dtype=np.int32)}, mode=PREDICT, logits=logits
        )
        self.assertIsNone(spec.loss)
        self.assertItemsEqual(
            ("classification", "regression", "predict", "serving_default"),
            spec.export_outputs.keys(),
        )
        self.assertAllClose(expected_probabilities, spec.export_outputs["serving_default"].scores)
        self.assertAllEqual([[b"0", b"1"]] * 2, spec.export_outputs["serving_default"].classes)
        self.assertAllClose(expected_logistics, spec.export_outputs["regression"].value)

    def test_predict_with_vocabulary_list(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_predict_with_vocabulary_list"""
        head = BinaryClassHead(label_vocabulary=["aang", "iroh"])
        preds = head.predictions([[1.0], [0.0]], ["classes"])
        self.assertAllEqual([[b"iroh"], [b"aang"]], preds["classes"])

    def test_eval_create_loss(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_eval_create_loss"""
        head = BinaryClassHead()
        logits = np.array(((45,), (-41,)), dtype=np.float32)
        labels = np.array(((1,), (1,)), dtype=np.int32)
        features = {"x": np.array(((42,),), dtype=np.int32)}
        training_loss = head.loss(logits=logits, labels=labels, features=features, mode=EVAL)
        self.assertAllClose(20.5, self.evaluate(training_loss), rtol=1e-2, atol=1e-2)

    def test_eval_create_loss_loss_fn(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_eval_create_loss_loss_fn"""
        loss = np.array([[1.0], [2.0]], dtype=np.float32)
        logits_input = np.array([[-10.0], [10.0]], dtype=np.float32)
        labels_input = np.array([[1], [0]], dtype=np.int64)

        def _loss_fn(labels, logits):
            np.testing.assert_array_equal(self.evaluate(labels), labels_input)
            np.testing.assert_array_equal(self.evaluate(logits), logits_input)
            return loss

        head = BinaryClassHead(loss_fn=_loss_fn)
        actual = head.loss(
            logits=logits_input,
            labels=labels_input,
            features={"x": np.array(((42,),), dtype=np.int32)},
            mode=EVAL,
        )
        self.assertAllClose(np.sum(loss) / 2.0, self.evaluate(actual))

    def test_eval_create_loss_loss_fn_wrong_shape(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_eval_create_loss_loss_fn_wrong_shape"""
        loss = np.array([1.0, 2.0], dtype=np.float32)

        def _loss_fn(labels, logits):
            del labels, logits
            return loss

        head = BinaryClassHead(loss_fn=_loss_fn)
        logits = np.array([[-10.0], [10.0]], dtype=np.float32)
        labels = np.array([[1], [0]], dtype=np.int64)
        features = {"x": np.array(((42,),), dtype=np.int32)}
        with self.assertRaisesRegex(ValueError, "loss_shape"):
            head.loss(logits=logits, labels=labels, features=features, mode=EVAL)

    def test_eval_labels_none(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_eval_labels_none"""
        self._assert_labels_required(BinaryClassHead(), EVAL)

    def test_eval(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_eval"""
        head = BinaryClassHead()
        logits = np.array(((45,), (-41,)), dtype=np.float32)
        labels = np.array(((1,), (1,)), dtype=np.int32)
        features = {"x": np.array(((42,),), dtype=np.int32)}
        expected_loss = 20.5
        expected_metrics = {
            LOSS_MEAN: expected_loss,
            **METRICS_45,
        }
        updated = head.update_metrics(head.metrics(), features, logits, labels)
        self.assertItemsEqual(expected_metrics.keys(), updated.keys())
        self.assertAllClose(expected_metrics, _results(updated))
        loss = head.loss(labels, logits, features=features, mode=EVAL)
        self.assertAllClose(expected_loss, loss)

    def test_eval_metric_ops_with_head_name(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_eval_metric_ops_with_head_name"""
        head = BinaryClassHead(name="some_binary_head")
        logits = np.array(((45,), (-41,)), dtype=np.float32)
        labels = np.array(((1,), (1,)), dtype=np.int32)
        features = {"x": np.array(((42,),), dtype=np.int32)}
        keys = [LOSS_MEAN, ACCURACY, PRECISION, RECALL, PREDICTION_MEAN, LABEL_MEAN]
        keys += [ACCURACY_BASELINE, AUC, AUC_PR]
        updated = head.update_metrics(head.metrics(), features, logits, labels)
        self.assertItemsEqual([f"{k}/some_binary_head" for k in keys], updated.keys())

    def test_eval_with_regularization_losses(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_eval_with_regularization_losses"""
        head = BinaryClassHead()
        logits = np.array(((45,), (-41,)), dtype=np.float32)
        labels = np.array(((1,), (1,)), dtype=np.int32)
        features = {"x": np.array(((42,),), dtype=np.int32)}
        regularization_losses = [1.5, 0.5]
        expected_metrics = {
            LOSS_MEAN: 20.5,
            LOSS_REGULARIZATION: 2.0,
            **METRICS_45,
        }
        metrics = head.metrics(regularization_losses=regularization_losses)
        updated = head.update_metrics(
            metrics, features, logits, labels, regularization_losses=regularization_losses
        )
        self.assertAllClose(expected_metrics, _results(updated))
        spec = head.create_estimator_spec(
            features=features,
            mode=EVAL,
            logits=logits,
            labels=labels,
            regularization_losses=regularization_losses,
        )
        self.assertAllClose(22.5, spec.loss)

    def test_eval_with_vocabulary_list_create_loss(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_eval_with_vocabulary_list_create_loss"""
        head = BinaryClassHead(label_vocabulary=["aang", "iroh"])
        logits = np.array(((45,), (-41,)), dtype=np.float32)
        labels = [[b"iroh"], [b"iroh"]]
        features = {"x": np.array(((42,),), dtype=np.int32)}
        training_loss = head.loss(logits=logits, labels=labels, features=features, mode=EVAL)
        self.assertAllClose(20.5, training_loss, rtol=1e-2, atol=1e-2)

    def test_eval_with_vocabulary_list(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_eval_with_vocabulary_list"""
        head = BinaryClassHead(label_vocabulary=["aang", "iroh"])
        logits = np.array(((45,), (-41,)), dtype=np.float32)
        labels = [[b"iroh"], [b"iroh"]]
        features = {"x": np.array(((42,),), dtype=np.int32)}
        updated = head.update_metrics(head.metrics(), features, logits, labels)
        self.assertAllClose(1.0 / 2, updated[ACCURACY].result())

    def test_eval_with_thresholds_create_loss(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_eval_with_thresholds_create_loss"""
        head = BinaryClassHead(thresholds=[0.25, 0.5, 0.75])
        logits = np.array(((-1,), (1,)), dtype=np.float32)
        labels = np.array(((1,), (1,)), dtype=np.int32)
        features = {"x": np.array(((42,),), dtype=np.int32)}
        loss = head.loss(logits=logits, labels=labels, features=features, mode=EVAL)
        self.assertAllClose(0.813192855, self.evaluate(loss), rtol=1e-2, atol=1e-2)

    def test_eval_with_thresholds(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_eval_with_thresholds"""
        thresholds = [0.25, 0.5, 0.75]
        head = BinaryClassHead(thresholds=thresholds)
        logits = np.array(((-1,), (1,)), dtype=np.float32)
        labels = np.array(((1,), (1,)), dtype=np.int32)
        features = {"x": np.array(((42,),), dtype=np.int32)}
        expected_metrics = {
            LOSS_MEAN: 1.62652338 / 2.0,
            ACCURACY: 1.0 / 2,
            PRECISION: 1.0,
            RECALL: 0.5,
            PREDICTION_MEAN: 1.0 / 2,
            LABEL_MEAN: 2.0 / 2,
            ACCURACY_BASELINE: 2.0 / 2,
            AUC: 0.0,
            AUC_PR: 1.0,
            ACCURACY_AT_THRESHOLD % thresholds[0]: 1.0,
            PRECISION_AT_THRESHOLD % thresholds[0]: 1.0,
            RECALL_AT_THRESHOLD % thresholds[0]: 1.0,
            ACCURACY_AT_THRESHOLD % thresholds[1]: 0.5,
            PRECISION_AT_THRESHOLD % thresholds[1]: 1.0,
            RECALL_AT_THRESHOLD % thresholds[1]: 0.5,
            ACCURACY_AT_THRESHOLD % thresholds[2]: 0.0,
            PRECISION_AT_THRESHOLD % thresholds[2]: 0.0,
            RECALL_AT_THRESHOLD % thresholds[2]: 0.0,
        }
        tol = 1e-2
        loss = head.loss(logits=logits, labels=labels, features=features, mode=EVAL)
        self.assertAllClose(1.62652338 / 2.0, self.evaluate(loss))
        updated = head.update_metrics(head.metrics(), features, logits, labels)
        self.assertItemsEqual(expected_metrics.keys(), updated.keys())
        self.assertAllClose(expected_metrics, _results(updated), atol=tol, rtol=tol)

    def test_train_create_loss(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_train_create_loss"""
        head = BinaryClassHead()
        logits = np.array(((45,), (-41,)), dtype=np.float32)
        labels = np.array(((1,), (1,)), dtype=np.float64)
        features = {"x": np.array(((42,),), dtype=np.float32)}
        self.assertAllClose(20.5, head.loss(labels, logits, features))

    def test_train_create_loss_loss_reduction(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_train_create_loss_loss_reduction"""
        head = BinaryClassHead(loss_reduction=cn.core.Reduction.SUM)
        logits = np.array(((45,), (-41,)), dtype=np.float32)
        labels = np.array(((1,), (1,)), dtype=np.float64)
        features = {"x": np.array(((42,),), dtype=np.float32)}
        self.assertAllClose(41.0, head.loss(labels, logits, features))

    def test_train_labels_none(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_train_labels_none"""
        self._assert_labels_required(BinaryClassHead(), TRAIN)

    def test_train(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_train (eager, plus the spec's
        train_op_fn receiving the loss)"""
        head = BinaryClassHead()
        logits = np.array(((45,), (-41,)), dtype=np.float32)
        labels = np.array(((1,), (1,)), dtype=np.float64)
        features = {"x": np.array(((42,),), dtype=np.float32)}
        expected_loss = 20.5
        loss = head.loss(logits=logits, labels=labels, features=features, mode=TRAIN)
        self.assertAllClose(expected_loss, loss)
        seen = []
        spec = head.create_estimator_spec(
            features=features,
            mode=TRAIN,
            logits=logits,
            labels=labels,
            train_op_fn=lambda loss: seen.append(float(self.evaluate(loss))) or b"my_train_op",
        )
        self.assertAllClose(expected_loss, spec.loss)
        self.assertEqual(b"my_train_op", spec.train_op)
        self.assertAllClose([expected_loss], seen)

    def test_train_one_dim_create_loss(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_train_one_dim_create_loss"""
        head = BinaryClassHead(weight_column="label_weights")
        logits = np.array(((45,), (-41,), (44,)), dtype=np.float32)
        labels_rank_1 = np.array((1.0, 1.0, 0.0))
        weights_rank_1 = np.array((1.0, 0.1, 1.5), dtype=np.float64)
        features = {
            "x": np.array(((42.0,), (43.0,), (44.0,)), dtype=np.float32),
            "label_weights": weights_rank_1,
        }
        self.assertAllClose(23.366666667, head.loss(labels_rank_1, logits, features))

    def test_train_with_regularization_losses(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_train_with_regularization_losses"""
        head = BinaryClassHead()
        logits = np.array(((45,), (-41,)), dtype=np.float32)
        labels = np.array(((1,), (1,)), dtype=np.float64)
        features = {"x": np.array(((42,),), dtype=np.float32)}
        loss = head.loss(
            logits=logits,
            labels=labels,
            features=features,
            mode=TRAIN,
            regularization_losses=[1.5, 0.5],
        )
        self.assertAllClose(22.5, loss)

    def test_float_labels_invalid_values(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_float_labels_invalid_values"""
        head = BinaryClassHead()
        logits = np.array([[0.5], [-0.3]], dtype=np.float32)
        labels = np.array([[1.2], [0.4]], dtype=np.float32)
        features = {"x": np.array([[42]], dtype=np.float32)}
        with self.assertRaisesRegex(ValueError, r"Labels must be <= 2 - 1"):
            head.loss(logits=logits, labels=labels, features=features, mode=TRAIN)

    def test_float_labels_train_create_loss(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_float_labels_train_create_loss"""
        head = BinaryClassHead()
        logits, labels, features = FLOAT_LABELS
        loss = head.loss(logits=logits, labels=labels, features=features, mode=TRAIN)
        self.assertAllClose(0.62421611432, self.evaluate(loss))

    def test_float_labels_train(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_float_labels_train"""
        head = BinaryClassHead()
        logits, labels, features = FLOAT_LABELS
        loss = head.loss(logits=logits, labels=labels, features=features, mode=TRAIN)
        self.assertAlmostEqual(0.6242161, float(self.evaluate(loss)), delta=1.0e-5)

    def test_float_labels_eval_create_loss(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_float_labels_eval_create_loss"""
        head = BinaryClassHead()
        logits, labels, features = FLOAT_LABELS
        loss = head.loss(logits=logits, labels=labels, features=features, mode=EVAL)
        self.assertAllClose(0.62421611432, self.evaluate(loss), rtol=1e-2, atol=1e-2)

    def test_float_labels_eval(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_float_labels_eval"""
        head = BinaryClassHead()
        logits, labels, features = FLOAT_LABELS
        expected_loss = 0.6242161
        loss = head.loss(logits=logits, labels=labels, features=features, mode=EVAL)
        self.assertAlmostEqual(expected_loss, float(self.evaluate(loss)), delta=1.0e-5)
        updated = head.update_metrics(head.metrics(), features, logits, labels)
        self.assertAlmostEqual(expected_loss, float(updated[LOSS_MEAN].result()), places=6)

    def test_weighted_multi_example_predict(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_weighted_multi_example_predict"""
        head = BinaryClassHead(weight_column="label_weights")
        logits = np.array(((45,), (-41,), (44,)), dtype=np.int32)
        keys = ["logits", "logistic", "probabilities", "class_ids", "classes"]
        predictions = head.predictions(logits, keys)
        self.assertAllClose(logits.astype(np.float32), predictions["logits"])
        self.assertAllClose(
            1.0 / (1.0 + np.exp(-logits.astype(np.float32))), predictions["logistic"]
        )
        self.assertAllClose([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]], predictions["probabilities"])
        self.assertAllClose([[1], [0], [1]], predictions["class_ids"])
        self.assertAllEqual([[b"1"], [b"0"], [b"1"]], predictions["classes"])

    def test_weighted_multi_example_eval(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_weighted_multi_example_eval"""
        head = BinaryClassHead(weight_column="label_weights")
        logits = np.array(((45,), (-41,), (44,)), dtype=np.int32)
        labels = np.array(((1,), (1,), (0,)), dtype=np.int32)
        features = {
            "x": np.array(((42,), (43,), (44,)), dtype=np.int32),
            "label_weights": np.array(((1.0,), (0.1,), (1.5,)), dtype=np.float32),
        }
        expected_label_mean = 0.42307692307
        expected_metrics = {
            LOSS_MEAN: 26.9615384615,
            ACCURACY: 0.38461538461,
            PRECISION: 1.0 / 2.5,
            RECALL: 1.0 / 1.1,
            PREDICTION_MEAN: 0.96153846153,
            LABEL_MEAN: expected_label_mean,
            ACCURACY_BASELINE: 1 - expected_label_mean,
            AUC: 0.45454565,
            AUC_PR: 0.4010627,
        }
        updated = head.update_metrics(head.metrics(), features, logits, labels)
        self.assertItemsEqual(expected_metrics.keys(), updated.keys())
        self.assertAllClose(expected_metrics, _results(updated))
        self.assertAllClose(23.366666667, head.loss(labels, logits, features=features, mode=EVAL))

    def test_weighted_multi_example_train(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_weighted_multi_example_train"""
        head = BinaryClassHead(weight_column="label_weights")
        logits = np.array(((45,), (-41,), (44,)), dtype=np.float32)
        features = {
            "x": np.array(((42.0,), (43.0,), (44.0,)), dtype=np.float32),
            "label_weights": np.array(((1.0,), (0.1,), (1.5,)), dtype=np.float64),
        }
        labels = np.array(((1.0,), (1.0,), (0.0,)))
        loss = head.loss(logits=logits, labels=labels, features=features, mode=TRAIN)
        self.assertAllClose(23.366666667, loss)

    def test_multi_dim_weighted_train_create_loss(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_multi_dim_weighted_train_create_loss"""
        head = BinaryClassHead(weight_column="weights")
        logits = np.array([[[10], [-10]], [[12], [-12]]], dtype=np.float32)
        labels = np.array([[[0], [0]], [[1], [1]]], dtype=np.float64)
        weights = np.array([[1.0, 1.5], [2.0, 2.5]], dtype=np.float32)
        loss = head.loss(labels, logits, {"weights": weights}, mode=TRAIN)
        self.assertAllClose(10.0, loss, rtol=1e-2, atol=1e-2)

    def test_multi_dim_train_weights_wrong_inner_dim(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_multi_dim_train_weights_wrong_inner_dim"""
        head = BinaryClassHead(weight_column="weights")
        logits = np.array([[[10], [-10]], [[12], [-12]]], dtype=np.float32)
        labels = np.array([[[0], [0]], [[1], [1]]], dtype=np.float64)
        weights = np.array([[1.0], [2.0]], dtype=np.float32)
        with self.assertRaisesRegex(ValueError, "weights shape"):
            head.loss(logits=logits, labels=labels, features={"weights": weights}, mode=TRAIN)

    def test_multi_dim_train_weights_wrong_outer_dim(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_multi_dim_train_weights_wrong_outer_dim"""
        head = BinaryClassHead(weight_column="weights")
        logits = np.array([[[10], [-10]], [[12], [-12]]], dtype=np.float32)
        labels = np.array([[[0], [0]], [[1], [1]]], dtype=np.float64)
        weights = np.array([[[1.0, 1.1], [1.5, 1.6]], [[2.0, 2.1], [2.5, 2.6]]])
        with self.assertRaisesRegex(ValueError, "weights shape"):
            head.loss(logits=logits, labels=labels, features={"weights": weights}, mode=TRAIN)

    def test_multi_dim_weighted_eval(self):
        """binary_class_head_test.py::BinaryClassHeadTest.test_multi_dim_weighted_eval"""
        head = BinaryClassHead(weight_column="weights")
        logits = np.array([[[10], [-10]], [[12], [-12]]], dtype=np.float32)
        labels = np.array([[[0], [0]], [[1], [1]]], dtype=np.float64)
        weights = np.array([[1.0, 1.5], [2.0, 2.5]], dtype=np.float32)
        weighted_sum_loss = 40.0
        expected_metrics = {
            LOSS_MEAN: weighted_sum_loss / np.sum(weights),
            ACCURACY: (1.0 * 0.0 + 1.5 * 1.0 + 2.0 * 1.0 + 2.5 * 0.0) / np.sum(weights),
            PRECISION: 2.0 / 3.0,
            RECALL: 2.0 / 4.5,
            PREDICTION_MEAN: (1.0 * 1 + 1.5 * 0 + 2.0 * 1 + 2.5 * 0) / np.sum(weights),
            LABEL_MEAN: (1.0 * 0 + 1.5 * 0 + 2.0 * 1 + 2.5 * 1) / np.sum(weights),
            ACCURACY_BASELINE: (1.0 * 0 + 1.5 * 0 + 2.0 * 1 + 2.5 * 1) / np.sum(weights),
            AUC: 0.5222,
            AUC_PR: 0.6582,
        }
        tol = 1e-2
        loss = head.loss(logits=logits, labels=labels, features={"weights": weights}, mode=TRAIN)
        self.assertAllClose(10.0, loss, rtol=tol, atol=tol)
        updated = head.update_metrics(
            head.metrics(), features={"weights": weights}, logits=logits, labels=labels
        )
        self.assertAllClose(expected_metrics, _results(updated), rtol=tol, atol=tol)


@pytest.mark.skip(
    reason="graph-only: Keras optimizer get_updates / tf.summary / lookup tables in a graph"
)
def test_binary_class_head_for_estimator_graph_only():
    """binary_class_head_test.py::BinaryClassHeadForEstimator (6 tests, graph mode only)"""
