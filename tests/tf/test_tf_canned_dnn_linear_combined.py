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
"""TF's dnn_linear_combined_test.py, ported: the linear and DNN checkpoint tests run again
on ``DNNLinearCombined*`` with only the linear or only the DNN part (TF's
``LinearOnly*V2Test`` / ``DNNOnly*V2Test``), and ``DNNLinearCombinedTests``.

Every inherited test keeps its docstring naming the linear_testing_utils.py or
dnn_testing_utils.py method; the wrappers are TF's ``_linear_regressor_fn`` ...
"""

import numpy as np
import test_tf_canned_dnn as dnn_tests
import test_tf_canned_linear as linear_tests
import test_tf_canned_training as training_tests
from canned_test_case import ModelDirTest
from tf_test_case import save_variables_to_ckpt

import colonnade as cn

fc = cn.feature_columns


def _linear_only(combined):
    """TF's ``_linear_regressor_fn`` / ``_linear_classifier_fn``: a wide & deep estimator
    built with the linear estimator's arguments, its DNN part left out."""

    def make(feature_columns, optimizer="Ftrl", sparse_combiner="sum", **kwargs):
        return combined(
            linear_feature_columns=feature_columns,
            linear_optimizer=optimizer,
            linear_sparse_combiner=sparse_combiner,
            **kwargs,
        )

    return make


def _dnn_only(combined):
    """TF's ``_dnn_classifier_fn`` / ``_dnn_regressor_fn``: a wide & deep estimator built
    with the DNN estimator's arguments, its linear part left out."""

    def make(hidden_units, feature_columns, optimizer="Adagrad", **kwargs):
        return combined(
            dnn_hidden_units=hidden_units,
            dnn_feature_columns=feature_columns,
            dnn_optimizer=optimizer,
            **kwargs,
        )

    return make


class LinearOnly:
    _linear_regressor_fn = staticmethod(_linear_only(cn.estimators.DNNLinearCombinedRegressor))
    _linear_classifier_fn = staticmethod(_linear_only(cn.estimators.DNNLinearCombinedClassifier))


class DNNOnly:
    _dnn_regressor_fn = staticmethod(_dnn_only(cn.estimators.DNNLinearCombinedRegressor))
    _dnn_classifier_fn = staticmethod(_dnn_only(cn.estimators.DNNLinearCombinedClassifier))


class LinearOnlyRegressorEvaluationV2Test(LinearOnly, linear_tests.LinearRegressorEvaluationTest):
    pass


class LinearOnlyRegressorPredictV2Test(LinearOnly, linear_tests.LinearRegressorPredictTest):
    pass


class LinearOnlyRegressorTrainingV2Test(LinearOnly, training_tests.LinearRegressorTrainingTest):
    pass


class LinearOnlyClassifierTrainingV2Test(LinearOnly, training_tests.LinearClassifierTrainingTest):
    pass


class LinearOnlyClassifierClassesEvaluationV2Test(
    LinearOnly, linear_tests.LinearClassifierEvaluationTest
):
    pass


class LinearOnlyClassifierPredictV2Test(LinearOnly, linear_tests.LinearClassifierPredictTest):
    pass


class DNNOnlyClassifierEvaluateV2Test(DNNOnly, dnn_tests.DNNClassifierEvaluateTest):
    pass


class DNNOnlyClassifierPredictV2Test(DNNOnly, dnn_tests.DNNClassifierPredictTest):
    pass


class DNNOnlyRegressorEvaluateV2Test(DNNOnly, dnn_tests.DNNRegressorEvaluateTest):
    pass


class DNNOnlyRegressorPredictV2Test(DNNOnly, dnn_tests.DNNRegressorPredictTest):
    pass


class DNNOnlyTrainV2Test(DNNOnly, training_tests.DNNTrainTest):
    pass


class DNNLinearCombinedTests(ModelDirTest):
    def test_train_op_calls_both_dnn_and_linear(self):
        """dnn_linear_combined_test.py::DNNLinearCombinedTests.test_train_op_calls_both_dnn_and_linear"""
        dnn_opt = cn.train.GradientDescentOptimizer(1.0)
        linear_opt = cn.train.GradientDescentOptimizer(1.0)
        x_column = fc.numeric_column("x")
        est = cn.estimators.DNNLinearCombinedClassifier(
            linear_feature_columns=[x_column],
            linear_optimizer=linear_opt,
            dnn_hidden_units=(2, 2),
            dnn_feature_columns=[x_column],
            dnn_optimizer=dnn_opt,
            model_dir=self._model_dir,
        )
        num_steps = 1
        est.train(lambda: ({"x": np.array([[0.0]])}, np.array([[0.0]])), steps=num_steps)
        # verifies train_op fires the linear and the dnn optimizer (each counts its steps)
        self.assertEqual(num_steps, linear_opt.iterations.numpy())
        self.assertEqual(num_steps, dnn_opt.iterations.numpy())

    def test_dnn_and_linear_logits_are_added(self):
        """dnn_linear_combined_test.py::DNNLinearCombinedTests.test_dnn_and_linear_logits_are_added"""
        save_variables_to_ckpt(
            self._model_dir,
            {
                "linear/linear_model/x/weights": [[1.0]],
                "linear/linear_model/bias_weights": [2.0],
                "dnn/hiddenlayer_0/kernel": [[3.0]],
                "dnn/hiddenlayer_0/bias": [4.0],
                "dnn/logits/kernel": [[5.0]],
                "dnn/logits/bias": [6.0],
                "global_step": 1,
            },
        )
        x_column = fc.numeric_column("x")
        est = cn.estimators.DNNLinearCombinedRegressor(
            linear_feature_columns=[x_column],
            dnn_hidden_units=[1],
            dnn_feature_columns=[x_column],
            model_dir=self._model_dir,
        )
        # linear logits = 10*1 + 2 = 12; dnn logits = (10*3 + 4)*5 + 6 = 176; logits = 188
        self.assertAllClose(
            {"predictions": [188.0]},
            next(est.predict(input_fn=lambda: {"x": np.array([[10.0]])})),
        )
