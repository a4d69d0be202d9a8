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
"""TF's canned DNN estimator tests whose values come from a checkpoint the test writes
itself, ported: tensorflow_estimator's canned/dnn_testing_utils.py
(``BaseDNNClassifierEvaluateTest``, ``BaseDNNRegressorEvaluateTest``,
``BaseDNNClassifierPredictTest``, ``BaseDNNRegressorPredictTest``).

``create_checkpoint`` writes TF's variable names (``dnn/hiddenlayer_%d/kernel`` ...) into
a TF checkpoint in ``model_dir``; ``numpy_input_fn`` becomes an ``input_fn`` returning
the arrays. The canned regressors also report ``rmse`` (a docs/tf_differences.md row):
it is dropped before TF's comparisons.
"""

import numpy as np
from canned_test_case import (
    ACCURACY,
    ACCURACY_BASELINE,
    AUC,
    AUC_PR,
    GLOBAL_STEP,
    LABEL_MEAN,
    LOSS,
    LOSS_MEAN,
    MULTI_DIM,
    ONE_DIM,
    PRECISION,
    PREDICTION_MEAN,
    RECALL,
    ModelDirTest,
    create_checkpoint,
    without_rmse,
)

import colonnade as cn

fc = cn.feature_columns


class DNNCheckpointTest(ModelDirTest):
    def restored(self, make, weights, global_step, key, shape=(1,), **kwargs):
        """TF's ``create_checkpoint(weights, global_step, model_dir)``, then the estimator
        ``make(hidden_units=(2, 2), feature_columns=[numeric_column(key, shape)], ...)``
        on that model_dir."""
        create_checkpoint(weights, global_step, self._model_dir)
        columns = [fc.numeric_column(key, shape=shape)]
        return make(
            hidden_units=(2, 2), feature_columns=columns, model_dir=self._model_dir, **kwargs
        )


class DNNClassifierEvaluateTest(DNNCheckpointTest):
    def test_one_dim(self):
        """dnn_testing_utils.py::BaseDNNClassifierEvaluateTest.test_one_dim"""
        global_step = 100
        dnn_classifier = self.restored(self._dnn_classifier_fn, ONE_DIM, global_step, "age")

        def _input_fn():
            # batch_size = 2, one false label, and one true.
            return {"age": [[10.0], [10.0]]}, [[1], [0]]

        # logits = [[-2.08], [-2.08]] =>
        # logistic = 1/(1 + exp(-logits)) = [[0.11105597], [0.11105597]]
        # loss = (-1. * log(0.111) -1. * log(0.889) = 2.31544200) / 2
        expected_loss = 1.157721
        self.assertAllClose(
            {
                LOSS: expected_loss,
                LOSS_MEAN: expected_loss,
                ACCURACY: 0.5,
                PRECISION: 0.0,
                RECALL: 0.0,
                PREDICTION_MEAN: 0.11105597,
                LABEL_MEAN: 0.5,
                ACCURACY_BASELINE: 0.5,
                # There is no good way to calculate AUC for only two data points.
                AUC: 0.5,
                AUC_PR: 0.5,
                GLOBAL_STEP: global_step,
            },
            dnn_classifier.evaluate(input_fn=_input_fn, steps=1),
        )

    def test_multi_dim(self):
        """dnn_testing_utils.py::BaseDNNClassifierEvaluateTest.test_multi_dim"""
        global_step = 100
        dnn_classifier = self.restored(
            self._dnn_classifier_fn, MULTI_DIM, global_step, "age", shape=[2], n_classes=3
        )

        def _input_fn():
            return {"age": [[10.0, 8.0], [10.0, 8.0]]}, [[1], [0]]

        # logits = [[-0.48, 0.48, 0.39], [-0.48, 0.48, 0.39]]
        # loss = -log(0.43538380) - log(0.16670536)
        expected_loss = 2.62305466 / 2  # batch size
        self.assertAllClose(
            {
                LOSS: expected_loss,
                LOSS_MEAN: expected_loss,
                ACCURACY: 0.5,
                GLOBAL_STEP: global_step,
            },
            dnn_classifier.evaluate(input_fn=_input_fn, steps=1),
        )

    def test_float_labels(self):
        """dnn_testing_utils.py::BaseDNNClassifierEvaluateTest.test_float_labels"""
        dnn_classifier = self.restored(self._dnn_classifier_fn, ONE_DIM, 100, "age")

        def _input_fn():
            return {"age": [[10.0], [10.0]]}, [[0.8], [0.4]]

        # loss = (-0.8 * log(0.111) -0.2 * log(0.889)
        #        -0.4 * log(0.111) -0.6 * log(0.889)) / 2 = 2.7314420 / 2
        expected_loss = 1.365721
        metrics = dnn_classifier.evaluate(input_fn=_input_fn, steps=1)
        self.assertAlmostEqual(expected_loss, metrics[LOSS])

    def test_multi_dim_weights(self):
        """dnn_testing_utils.py::BaseDNNClassifierEvaluateTest.test_multi_dim_weights"""
        dnn_classifier = self.restored(
            self._dnn_classifier_fn,
            MULTI_DIM,
            100,
            "age",
            shape=[2],
            n_classes=3,
            weight_column="w",
        )

        def _input_fn():
            return {"age": [[10.0, 8.0], [10.0, 8.0]], "w": [[10.0], [100.0]]}, [[1], [0]]

        # loss = (-log(0.43538380)*10 - log(0.16670536)*100) / 2
        expected_loss = 93.734
        metrics = dnn_classifier.evaluate(input_fn=_input_fn, steps=1)
        self.assertAlmostEqual(expected_loss, metrics[LOSS], places=3)


class DNNRegressorEvaluateTest(DNNCheckpointTest):
    def test_one_dim(self):
        """dnn_testing_utils.py::BaseDNNRegressorEvaluateTest.test_one_dim"""
        global_step = 100
        dnn_regressor = self.restored(self._dnn_regressor_fn, ONE_DIM, global_step, "age")

        def _input_fn():
            return {"age": [[10.0]]}, [[1.0]]

        # logits = [[-2.08]] => predictions = [-2.08]. loss = (1+2.08)^2 = 9.4864
        expected_loss = 9.4864
        self.assertAllClose(
            {
                LOSS: expected_loss,
                LOSS_MEAN: expected_loss,
                PREDICTION_MEAN: -2.08,
                LABEL_MEAN: 1.0,
                GLOBAL_STEP: global_step,
            },
            without_rmse(dnn_regressor.evaluate(input_fn=_input_fn, steps=1)),
        )

    def test_multi_dim(self):
        """dnn_testing_utils.py::BaseDNNRegressorEvaluateTest.test_multi_dim"""
        global_step = 100
        dnn_regressor = self.restored(
            self._dnn_regressor_fn, MULTI_DIM, global_step, "age", shape=[2], label_dimension=3
        )

        def _input_fn():
            return {"age": [[10.0, 8.0]]}, [[1.0, -1.0, 0.5]]

        # logits = [[-0.48, 0.48, 0.39]]
        # loss = (1+0.48)^2 + (-1-0.48)^2 + (0.5-0.39)^2 = 4.3929; expected_loss = loss / 3
        expected_loss = 1.4643
        self.assertAllClose(
            {
                LOSS: expected_loss,
                LOSS_MEAN: expected_loss,
                PREDICTION_MEAN: 0.39 / 3.0,
                LABEL_MEAN: 0.5 / 3.0,
                GLOBAL_STEP: global_step,
            },
            without_rmse(dnn_regressor.evaluate(input_fn=_input_fn, steps=1)),
        )

    def test_multi_dim_weights(self):
        """dnn_testing_utils.py::BaseDNNRegressorEvaluateTest.test_multi_dim_weights"""
        dnn_regressor = self.restored(
            self._dnn_regressor_fn,
            MULTI_DIM,
            100,
            "age",
            shape=[2],
            label_dimension=3,
            weight_column="w",
        )

        def _input_fn():
            return {"age": [[10.0, 8.0]], "w": [10.0]}, [[1.0, -1.0, 0.5]]

        # loss = 4.3929*10/3
        expected_loss = 14.643
        metrics = dnn_regressor.evaluate(input_fn=_input_fn, steps=1)
        self.assertAlmostEqual(expected_loss, metrics[LOSS], places=3)


class DNNClassifierPredictTest(DNNCheckpointTest):
    def _test_one_dim(self, label_vocabulary, label_output_fn):
        dnn_classifier = self.restored(
            self._dnn_classifier_fn, ONE_DIM, 0, "x", label_vocabulary=label_vocabulary
        )
        # logits = [-2.08] => logistic = 0.11105597, probabilities = [0.88894403, 0.11105597]
        predictions = next(dnn_classifier.predict(input_fn=lambda: {"x": np.array([[10.0]])}))
        self.assertAllClose([-2.08], predictions["logits"])
        self.assertAllClose([0.11105597], predictions["logistic"])
        self.assertAllClose([0.88894403, 0.11105597], predictions["probabilities"])
        self.assertAllClose([0], predictions["class_ids"])
        self.assertAllEqual([label_output_fn(0)], predictions["classes"])
        self.assertAllClose([0, 1], predictions["all_class_ids"])
        self.assertAllEqual([label_output_fn(0), label_output_fn(1)], predictions["all_classes"])

    def test_one_dim_without_label_vocabulary(self):
        """dnn_testing_utils.py::BaseDNNClassifierPredictTest.test_one_dim_without_label_vocabulary"""
        self._test_one_dim(label_vocabulary=None, label_output_fn=lambda x: f"{x}".encode())

    def test_one_dim_with_label_vocabulary(self):
        """dnn_testing_utils.py::BaseDNNClassifierPredictTest.test_one_dim_with_label_vocabulary"""
        self._test_one_dim(
            label_vocabulary=[f"class_vocab_{i}" for i in range(2)],
            label_output_fn=lambda x: f"class_vocab_{x}".encode(),
        )

    def _test_multi_dim_with_3_classes(self, label_vocabulary, label_output_fn):
        dnn_classifier = self.restored(
            self._dnn_classifier_fn,
            MULTI_DIM,
            0,
            "x",
            shape=(2,),
            label_vocabulary=label_vocabulary,
            n_classes=3,
        )
        # logits = [-0.48, 0.48, 0.39] => probabilities = [0.16670536, 0.43538380, 0.39791084]
        predictions = next(dnn_classifier.predict(input_fn=lambda: {"x": np.array([[10.0, 8.0]])}))
        self.assertItemsEqual(
            ["logits", "probabilities", "class_ids", "classes", "all_class_ids", "all_classes"],
            predictions.keys(),
        )
        self.assertAllClose([-0.48, 0.48, 0.39], predictions["logits"])
        self.assertAllClose([0.16670536, 0.43538380, 0.39791084], predictions["probabilities"])
        self.assertAllEqual([1], predictions["class_ids"])
        self.assertAllEqual([label_output_fn(1)], predictions["classes"])
        self.assertAllEqual([0, 1, 2], predictions["all_class_ids"])
        self.assertAllEqual(
            [label_output_fn(0), label_output_fn(1), label_output_fn(2)], predictions["all_classes"]
        )

    def test_multi_dim_with_3_classes_but_no_label_vocab(self):
        """dnn_testing_utils.py::BaseDNNClassifierPredictTest.test_multi_dim_with_3_classes_but_no_label_vocab"""
        self._test_multi_dim_with_3_classes(
            label_vocabulary=None, label_output_fn=lambda x: f"{x}".encode()
        )

    def test_multi_dim_with_3_classes_and_label_vocab(self):
        """dnn_testing_utils.py::BaseDNNClassifierPredictTest.test_multi_dim_with_3_classes_and_label_vocab"""
        self._test_multi_dim_with_3_classes(
            label_vocabulary=[f"class_vocab_{i}" for i in range(3)],
            label_output_fn=lambda x: f"class_vocab_{x}".encode(),
        )


class DNNRegressorPredictTest(DNNCheckpointTest):
    def test_one_dim(self):
        """dnn_testing_utils.py::BaseDNNRegressorPredictTest.test_one_dim"""
        dnn_regressor = self.restored(self._dnn_regressor_fn, ONE_DIM, 0, "x")
        # logits = [[-2.08]] => predictions = [-2.08].
        self.assertAllClose(
            {"predictions": [-2.08]},
            next(dnn_regressor.predict(input_fn=lambda: {"x": np.array([[10.0]])})),
        )

    def test_multi_dim(self):
        """dnn_testing_utils.py::BaseDNNRegressorPredictTest.test_multi_dim"""
        dnn_regressor = self.restored(
            self._dnn_regressor_fn, MULTI_DIM, 100, "x", shape=(2,), label_dimension=3
        )
        # logits = [[-0.48, 0.48, 0.39]] => predictions = [-0.48, 0.48, 0.39]
        self.assertAllClose(
            {"predictions": [-0.48, 0.48, 0.39]},
            next(dnn_regressor.predict(input_fn=lambda: {"x": np.array([[10.0, 8.0]])})),
        )
