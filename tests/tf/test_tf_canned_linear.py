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
"""TF's canned linear estimator tests whose values come from a checkpoint the test writes
itself, ported: tensorflow_estimator's canned/linear_testing_utils.py (the V2 classes
``BaseLinearRegressorEvaluationTest``, ``BaseLinearRegressorPredictTest``,
``BaseLinearClassifierEvaluationTest``, ``BaseLinearClassifierPredictTest``).

Each test writes TF's variable names into a TF checkpoint in ``model_dir`` and points the
canned estimator at it. ``numpy_input_fn`` becomes an ``input_fn`` returning the arrays.
The canned regressors also report ``rmse`` (a docs/tf_differences.md row): it is dropped
before TF's ``assertDictEqual``.
"""

import shutil

import numpy as np
from canned_test_case import (
    ACCURACY,
    ACCURACY_BASELINE,
    AGE_WEIGHT_NAME,
    AUC,
    AUC_PR,
    BIAS_NAME,
    GLOBAL_STEP,
    HEIGHT_WEIGHT_NAME,
    LABEL_MEAN,
    LANGUAGE_WEIGHT_NAME,
    LOSS,
    LOSS_MEAN,
    PRECISION,
    PREDICTION_MEAN,
    RECALL,
    ModelDirTest,
    classifier_weights,
    sigmoid,
    softmax_losses,
    sorted_key_dict,
    without_rmse,
)
from tf_test_case import save_variables_to_ckpt

import colonnade as cn

fc = cn.feature_columns


def language_input_fn():
    """TF's ``SparseTensor(values=['a', 'c', 'b', 'c'], indices=[[0, 0], [0, 1], [1, 0],
    [1, 1]], dense_shape=[2, 2])`` as one list per row."""
    return {"language": [["a", "c"], ["b", "c"]]}


class LinearRegressorEvaluationTest(ModelDirTest):
    def _checkpoint(self):
        save_variables_to_ckpt(
            self._model_dir, {AGE_WEIGHT_NAME: [[11.0]], BIAS_NAME: [2.0], GLOBAL_STEP: 100}
        )

    def test_evaluation_for_simple_data(self):
        """linear_testing_utils.py::BaseLinearRegressorEvaluationTest.test_evaluation_for_simple_data"""
        self._checkpoint()
        linear_regressor = self._linear_regressor_fn(
            feature_columns=(fc.numeric_column("age"),), model_dir=self._model_dir
        )
        eval_metrics = linear_regressor.evaluate(
            input_fn=lambda: ({"age": ((1,),)}, ((10.0,),)), steps=1
        )
        # Logit is (1. * 11.0 + 2.0) = 13, while label is 10. Loss is 3**2 = 9.
        self.assertDictEqual(
            {LOSS: 9.0, LOSS_MEAN: 9.0, PREDICTION_MEAN: 13.0, LABEL_MEAN: 10.0, GLOBAL_STEP: 100},
            without_rmse(eval_metrics),
        )

    def test_evaluation_batch(self):
        """linear_testing_utils.py::BaseLinearRegressorEvaluationTest.test_evaluation_batch"""
        self._checkpoint()
        linear_regressor = self._linear_regressor_fn(
            feature_columns=(fc.numeric_column("age"),), model_dir=self._model_dir
        )
        eval_metrics = linear_regressor.evaluate(
            input_fn=lambda: ({"age": ((1,), (1,))}, ((10.0,), (10.0,))), steps=1
        )
        # Training loss is the sum over batch size = (9 + 9) / 2 = 9
        self.assertDictEqual(
            {LOSS: 9.0, LOSS_MEAN: 9.0, PREDICTION_MEAN: 13.0, LABEL_MEAN: 10.0, GLOBAL_STEP: 100},
            without_rmse(eval_metrics),
        )

    def test_evaluation_weights(self):
        """linear_testing_utils.py::BaseLinearRegressorEvaluationTest.test_evaluation_weights"""
        self._checkpoint()

        def _input_fn():
            features = {"age": ((1,), (1,)), "weights": ((1.0,), (2.0,))}
            labels = ((10.0,), (10.0,))
            return features, labels

        linear_regressor = self._linear_regressor_fn(
            feature_columns=(fc.numeric_column("age"),),
            weight_column="weights",
            model_dir=self._model_dir,
        )
        eval_metrics = linear_regressor.evaluate(input_fn=_input_fn, steps=1)
        # Training loss is the weighted sum over batch / batch size = (9 + 2*9) / 2 = 13.5
        # average loss is the weighted average = 9 + 2*9 / (1 + 2) = 9
        self.assertDictEqual(
            {LOSS: 13.5, LOSS_MEAN: 9.0, PREDICTION_MEAN: 13.0, LABEL_MEAN: 10.0, GLOBAL_STEP: 100},
            without_rmse(eval_metrics),
        )

    def test_evaluation_for_multi_dimensions(self):
        """linear_testing_utils.py::BaseLinearRegressorEvaluationTest.test_evaluation_for_multi_dimensions"""
        x_dim = 3
        label_dim = 2
        save_variables_to_ckpt(
            self._model_dir,
            {
                AGE_WEIGHT_NAME: [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                BIAS_NAME: [7.0, 8.0],
                GLOBAL_STEP: 100,
            },
        )
        linear_regressor = self._linear_regressor_fn(
            feature_columns=(fc.numeric_column("age", shape=(x_dim,)),),
            label_dimension=label_dim,
            model_dir=self._model_dir,
        )
        eval_metrics = linear_regressor.evaluate(
            input_fn=lambda: ({"age": np.array([[2.0, 4.0, 5.0]])}, np.array([[46.0, 58.0]])),
            steps=1,
        )
        self.assertItemsEqual(
            (LOSS, LOSS_MEAN, PREDICTION_MEAN, LABEL_MEAN, GLOBAL_STEP),
            without_rmse(eval_metrics).keys(),
        )
        # Logit is [2., 4., 5.] * [[1, 2], [3, 4], [5, 6]] + [7.0, 8.0] = [46, 58]
        self.assertAlmostEqual(0, eval_metrics[LOSS])

    def test_evaluation_for_multiple_feature_columns(self):
        """linear_testing_utils.py::BaseLinearRegressorEvaluationTest.test_evaluation_for_multiple_feature_columns"""
        save_variables_to_ckpt(
            self._model_dir,
            {
                AGE_WEIGHT_NAME: [[10.0]],
                HEIGHT_WEIGHT_NAME: [[2.0]],
                BIAS_NAME: [5.0],
                GLOBAL_STEP: 100,
            },
        )
        feature_columns = [fc.numeric_column("age"), fc.numeric_column("height")]
        est = self._linear_regressor_fn(feature_columns=feature_columns, model_dir=self._model_dir)
        eval_metrics = est.evaluate(
            input_fn=lambda: (
                {"age": np.array([20, 40]), "height": np.array([4, 8])},
                np.array([[213.0], [421.0]]),
            ),
            steps=1,
        )
        self.assertItemsEqual(
            (LOSS, LOSS_MEAN, PREDICTION_MEAN, LABEL_MEAN, GLOBAL_STEP),
            without_rmse(eval_metrics).keys(),
        )
        # Logit is [(20. * 10.0 + 4 * 2.0 + 5.0), (40. * 10.0 + 8 * 2.0 + 5.0)] = [213.0, 421.0]
        self.assertAlmostEqual(0, eval_metrics[LOSS])


class LinearRegressorPredictTest(ModelDirTest):
    def _predict(self, variables, feature_columns, x, **kwargs):
        save_variables_to_ckpt(self._model_dir, {**variables, GLOBAL_STEP: 100})
        linear_regressor = self._linear_regressor_fn(
            feature_columns=feature_columns, model_dir=self._model_dir, **kwargs
        )
        predictions = linear_regressor.predict(input_fn=lambda: x)
        return list([p["predictions"] for p in predictions])

    def test_1d(self):
        """linear_testing_utils.py::BaseLinearRegressorPredictTest.test_1d"""
        predicted_scores = self._predict(
            {"linear/linear_model/x/weights": [[10.0]], BIAS_NAME: [0.2]},
            (fc.numeric_column("x"),),
            {"x": np.array([[2.0]])},
        )
        # x * weight + bias = 2. * 10. + .2 = 20.2
        self.assertAllClose([[20.2]], predicted_scores)

    def testMultiDim(self):
        """linear_testing_utils.py::BaseLinearRegressorPredictTest.testMultiDim"""
        predicted_scores = self._predict(
            {
                "linear/linear_model/x/weights": [
                    [1.0, 2.0, 3.0],
                    [2.0, 3.0, 4.0],
                    [3.0, 4.0, 5.0],
                    [4.0, 5.0, 6.0],
                ],
                BIAS_NAME: [0.2, 0.4, 0.6],
            },
            (fc.numeric_column("x", shape=(4,)),),
            {"x": np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])},
            label_dimension=3,
        )
        self.assertAllClose(
            [[30.2, 40.4, 50.6], [70.2, 96.4, 122.6]], predicted_scores, rtol=1e-6, atol=1e-5
        )

    def testTwoFeatureColumns(self):
        """linear_testing_utils.py::BaseLinearRegressorPredictTest.testTwoFeatureColumns"""
        predicted_scores = self._predict(
            {
                "linear/linear_model/x0/weights": [[10.0]],
                "linear/linear_model/x1/weights": [[20.0]],
                BIAS_NAME: [0.2],
            },
            (fc.numeric_column("x0"), fc.numeric_column("x1")),
            {"x0": np.array([[2.0]]), "x1": np.array([[3.0]])},
        )
        # x0 * weight0 + x1 * weight1 + bias = 2. * 10. + 3. * 20 + .2 = 80.2
        self.assertAllClose([[80.2]], predicted_scores)

    def testSparseCombiner(self):
        """linear_testing_utils.py::BaseLinearRegressorPredictTest.testSparseCombiner"""
        w_a, w_b, w_c, bias = 2.0, 3.0, 5.0, 5.0
        feature_columns = (
            fc.categorical_column_with_vocabulary_list("language", vocabulary_list=["a", "b", "c"]),
        )
        variables = {LANGUAGE_WEIGHT_NAME: [[w_a], [w_b], [w_c]], BIAS_NAME: [bias]}
        # sum: logits = w_a + w_c + bias = 12.0, w_b + w_c + bias = 13.0
        scores = self._predict(variables, feature_columns, language_input_fn())
        self.assertAllClose([[12.0], [13.0]], scores)
        shutil.rmtree(self._model_dir)
        # mean: 1/2 * (2.0 + 5.0) + 5.0 = 8.5, 1/2 * (3.0 + 5.0) + 5.0 = 9.0
        scores = self._predict(
            variables, feature_columns, language_input_fn(), sparse_combiner="mean"
        )
        self.assertAllClose([[8.5], [9.0]], scores)
        shutil.rmtree(self._model_dir)
        # sqrtn: sqrt(2)/2 * (2.0 + 5.0) + 5.0 = 9.94974, sqrt(2)/2 * (3.0 + 5.0) + 5.0 = 10.65685
        scores = self._predict(
            variables, feature_columns, language_input_fn(), sparse_combiner="sqrtn"
        )
        self.assertAllClose([[9.94974], [10.65685]], scores)


def binary_metrics(loss, loss_mean, prediction_mean, label_mean, accuracy_baseline, auc_pr):
    """TF's expected binary metrics of these tests: global step 100, every prediction
    wrong (accuracy, precision, recall and AUC 0)."""
    return {
        LOSS: loss,
        GLOBAL_STEP: 100,
        LOSS_MEAN: loss_mean,
        ACCURACY: 0.0,
        PRECISION: 0.0,
        RECALL: 0.0,
        PREDICTION_MEAN: prediction_mean,
        LABEL_MEAN: label_mean,
        ACCURACY_BASELINE: accuracy_baseline,
        AUC: 0.0,
        AUC_PR: auc_pr,
    }


def multi_class_metrics(loss, loss_mean):
    """TF's expected multi-class metrics of these tests (global step 100, accuracy 0)."""
    return {LOSS: loss, LOSS_MEAN: loss_mean, GLOBAL_STEP: 100, ACCURACY: 0.0}


class LinearClassifierEvaluationTest(ModelDirTest):
    def _evaluate(self, n_classes, age_weight, bias, input_fn, **kwargs):
        save_variables_to_ckpt(
            self._model_dir, {AGE_WEIGHT_NAME: age_weight, BIAS_NAME: bias, GLOBAL_STEP: 100}
        )
        est = self._linear_classifier_fn(
            feature_columns=(fc.numeric_column("age"),),
            n_classes=n_classes,
            model_dir=self._model_dir,
            **kwargs,
        )
        return est.evaluate(input_fn=input_fn, steps=1)

    def _test_evaluation_for_simple_data(self, n_classes):
        label = 1
        age = 1.0
        age_weight, bias = classifier_weights(n_classes, -11.0, -11.0, -30.0)
        eval_metrics = self._evaluate(
            n_classes, age_weight, bias, lambda: ({"age": ((age,),)}, ((label,),))
        )
        if n_classes == 2:
            # Binary classes: loss = sum(corss_entropy(41)) = 41.
            expected_metrics = binary_metrics(41.0, 41.0, 0.0, 1.0, 1, 1.0)
        else:
            (expected_loss,) = softmax_losses(age_weight * age + bias, [label])
            expected_metrics = multi_class_metrics(expected_loss, expected_loss)
        self.assertAllClose(
            sorted_key_dict(expected_metrics), sorted_key_dict(eval_metrics), rtol=1e-3
        )

    def test_binary_classes_evaluation_for_simple_data(self):
        """linear_testing_utils.py::BaseLinearClassifierEvaluationTest.test_binary_classes_evaluation_for_simple_data"""
        self._test_evaluation_for_simple_data(n_classes=2)

    def test_multi_classes_evaluation_for_simple_data(self):
        """linear_testing_utils.py::BaseLinearClassifierEvaluationTest.test_multi_classes_evaluation_for_simple_data"""
        self._test_evaluation_for_simple_data(n_classes=4)

    def _test_evaluation_batch(self, n_classes):
        label = [1, 0]
        age = [17.0, 18.0]
        age_weight, bias = classifier_weights(n_classes, 2.0, 2.0, -35.0)
        eval_metrics = self._evaluate(
            n_classes, age_weight, bias, lambda: ({"age": (age)}, (label))
        )
        if n_classes == 2:
            # Logits are (-1., 1.) labels are (1, 0): 1.3133 per row.
            expected_loss = (1.3133 * 2) / 2  # Divided by batch size
            expected_metrics = binary_metrics(expected_loss, expected_loss, 0.5, 0.5, 0.5, 0.3068)
        else:
            logits = age_weight * np.reshape(age, (2, 1)) + bias
            expected_loss_0, expected_loss_1 = softmax_losses(logits, label)
            expected_loss = (expected_loss_0 + expected_loss_1) / 2  # batch size
            expected_metrics = multi_class_metrics(expected_loss, expected_loss)
        self.assertAllClose(
            sorted_key_dict(expected_metrics), sorted_key_dict(eval_metrics), rtol=1e-3
        )

    def test_binary_classes_evaluation_batch(self):
        """linear_testing_utils.py::BaseLinearClassifierEvaluationTest.test_binary_classes_evaluation_batch"""
        self._test_evaluation_batch(n_classes=2)

    def test_multi_classes_evaluation_batch(self):
        """linear_testing_utils.py::BaseLinearClassifierEvaluationTest.test_multi_classes_evaluation_batch"""
        self._test_evaluation_batch(n_classes=4)

    def _test_evaluation_weights(self, n_classes):
        label = [1, 0]
        age = [17.0, 18.0]
        weights = [1.0, 2.0]
        age_weight, bias = classifier_weights(n_classes, 2.0, 2.0, -35.0)
        eval_metrics = self._evaluate(
            n_classes,
            age_weight,
            bias,
            lambda: ({"age": (age), "w": (weights)}, (label)),
            weight_column="w",
        )
        if n_classes == 2:
            expected_loss = (1.3133 * (1.0 + 2.0)) / 2  # Divided by batch size
            loss_mean = (1.3133 * (1.0 + 2.0)) / (1.0 + 2.0)
            label_mean = np.average(label, weights=weights)
            logits = [-1, 1]
            logistics = sigmoid(np.array(logits))
            predictions_mean = np.average(logistics, weights=weights)
            expected_metrics = binary_metrics(
                expected_loss,
                loss_mean,
                predictions_mean,
                label_mean,
                (max(label_mean, 1 - label_mean)),
                0.1891,
            )
        else:
            logits = age_weight * np.reshape(age, (2, 1)) + bias
            expected_loss_0, expected_loss_1 = softmax_losses(logits, label)
            loss_mean = np.average([expected_loss_0, expected_loss_1], weights=weights)
            expected_loss = (loss_mean * np.sum(weights)) / 2  # batch size
            expected_metrics = multi_class_metrics(expected_loss, loss_mean)
        self.assertAllClose(
            sorted_key_dict(expected_metrics), sorted_key_dict(eval_metrics), rtol=1e-3
        )

    def test_binary_classes_evaluation_weights(self):
        """linear_testing_utils.py::BaseLinearClassifierEvaluationTest.test_binary_classes_evaluation_weights"""
        self._test_evaluation_weights(n_classes=2)

    def test_multi_classes_evaluation_weights(self):
        """linear_testing_utils.py::BaseLinearClassifierEvaluationTest.test_multi_classes_evaluation_weights"""
        self._test_evaluation_weights(n_classes=4)


class LinearClassifierPredictTest(ModelDirTest):
    def _testPredictions(self, n_classes, label_vocabulary, label_output_fn):
        age = 1.0
        age_weight, bias = classifier_weights(n_classes, -11.0, -11.0, 10.0)
        save_variables_to_ckpt(
            self._model_dir, {AGE_WEIGHT_NAME: age_weight, BIAS_NAME: bias, GLOBAL_STEP: 100}
        )
        est = self._linear_classifier_fn(
            feature_columns=(fc.numeric_column("age"),),
            label_vocabulary=label_vocabulary,
            n_classes=n_classes,
            model_dir=self._model_dir,
        )
        predictions = list(est.predict(input_fn=lambda: {"age": np.array([[age]])}))
        if n_classes == 2:
            scalar_logits = np.reshape(np.array(age_weight) * age + bias, (1,)).item()
            two_classes_logits = [0, scalar_logits]
            two_classes_logits_exp = np.exp(two_classes_logits)
            softmax = two_classes_logits_exp / two_classes_logits_exp.sum()
            expected_predictions = {
                "class_ids": [0],
                "all_class_ids": [0, 1],
                "classes": [label_output_fn(0)],
                "all_classes": [label_output_fn(0), label_output_fn(1)],
                "logistic": [sigmoid(np.array(scalar_logits))],
                "logits": [scalar_logits],
                "probabilities": softmax,
            }
        else:
            onedim_logits = np.reshape(np.array(age_weight) * age + bias, (-1,))
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
        # colonnade's classes are str, TF's bytes (docs/tf_differences.md): compared decoded.
        self.assertAllEqual(expected_predictions["classes"], predictions[0]["classes"])
        expected_predictions.pop("classes")
        predictions[0].pop("classes")
        self.assertAllEqual(expected_predictions["all_classes"], predictions[0]["all_classes"])
        expected_predictions.pop("all_classes")
        predictions[0].pop("all_classes")
        self.assertAllClose(sorted_key_dict(expected_predictions), sorted_key_dict(predictions[0]))

    def testBinaryClassesWithoutLabelVocabulary(self):
        """linear_testing_utils.py::BaseLinearClassifierPredictTest.testBinaryClassesWithoutLabelVocabulary"""
        self._testPredictions(2, label_vocabulary=None, label_output_fn=lambda x: f"{x}".encode())

    def testBinaryClassesWithLabelVocabulary(self):
        """linear_testing_utils.py::BaseLinearClassifierPredictTest.testBinaryClassesWithLabelVocabulary"""
        self._testPredictions(
            2,
            label_vocabulary=[f"class_vocab_{i}" for i in range(2)],
            label_output_fn=lambda x: f"class_vocab_{x}".encode(),
        )

    def testMultiClassesWithoutLabelVocabulary(self):
        """linear_testing_utils.py::BaseLinearClassifierPredictTest.testMultiClassesWithoutLabelVocabulary"""
        self._testPredictions(4, label_vocabulary=None, label_output_fn=lambda x: f"{x}".encode())

    def testMultiClassesWithLabelVocabulary(self):
        """linear_testing_utils.py::BaseLinearClassifierPredictTest.testMultiClassesWithLabelVocabulary"""
        self._testPredictions(
            4,
            label_vocabulary=[f"class_vocab_{i}" for i in range(4)],
            label_output_fn=lambda x: f"class_vocab_{x}".encode(),
        )

    def testSparseCombiner(self):
        """linear_testing_utils.py::BaseLinearClassifierPredictTest.testSparseCombiner"""
        w_a, w_b, w_c, bias = 2.0, 3.0, 5.0, 5.0
        feature_columns = (
            fc.categorical_column_with_vocabulary_list("language", vocabulary_list=["a", "b", "c"]),
        )
        expected = {
            "sum": [[12.0], [13.0]],
            "mean": [[8.5], [9.0]],
            "sqrtn": [[9.94974], [10.65685]],
        }
        for combiner, scores in expected.items():
            shutil.rmtree(self._model_dir, ignore_errors=True)
            save_variables_to_ckpt(
                self._model_dir,
                {LANGUAGE_WEIGHT_NAME: [[w_a], [w_b], [w_c]], BIAS_NAME: [bias], GLOBAL_STEP: 1},
            )
            linear_classifier = self._linear_classifier_fn(
                feature_columns=feature_columns, model_dir=self._model_dir, sparse_combiner=combiner
            )
            predictions = linear_classifier.predict(input_fn=language_input_fn)
            self.assertAllClose(scores, list([x["logits"] for x in predictions]))
