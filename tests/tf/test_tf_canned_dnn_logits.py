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
"""TF's DNN logits tests, ported: tensorflow_estimator's canned/dnn_testing_utils.py
``BaseDNNModelFnTest`` and ``BaseDNNLogitFnTest``.

TF hands the model function a mock head that checks the logits in each mode. Here a
``DNNRegressor`` with ``label_dimension = logits_dimension`` (whose predictions are the
logits) restores TF's checkpoint; PREDICT reads them from ``predict``, TRAIN from a
hook fetching the step's ``predictions`` (zero learning rate, as TF's mock optimizer
updates nothing), EVAL from ``prediction/mean``.
"""

import numpy as np
from canned_test_case import MULTI_DIM, ONE_DIM, ModelDirTest, create_checkpoint, mock_optimizer

import colonnade as cn

fc = cn.feature_columns


class FetchPredictions(cn.train.SessionRunHook):
    """Keeps each training step's ``predictions``."""

    def __init__(self):
        self.values = []

    def before_run(self, run_context):
        return cn.train.SessionRunArgs("predictions")

    def after_run(self, run_context, run_values):
        self.values.append(run_values.results)


class DNNLogitsTest(ModelDirTest):
    def _test_logits(
        self,
        hidden_units,
        logits_dimension,
        features,
        columns,
        expected_logits,
        batch_norm=False,
        expected_train_logits=None,
    ):
        """The logits of TRAIN, EVAL and PREDICT (TRAIN's are ``expected_train_logits``
        when they differ: batch normalization with the batch's statistics)."""
        expected_train_logits = (
            expected_logits if expected_train_logits is None else expected_train_logits
        )
        est = self._dnn_regressor_fn(
            hidden_units=hidden_units,
            feature_columns=columns,
            label_dimension=logits_dimension,
            optimizer=mock_optimizer(),
            batch_norm=batch_norm,
            model_dir=self._model_dir,
        )
        predictions = list(est.predict(input_fn=lambda: features))
        self.assertAllClose(expected_logits, [p["predictions"] for p in predictions])
        labels = np.zeros_like(np.asarray(expected_logits, np.float32))
        metrics = est.evaluate(input_fn=lambda: (features, labels), steps=1)
        self.assertAllClose(np.mean(expected_logits), metrics["prediction/mean"])
        hook = FetchPredictions()
        est.train(input_fn=lambda: (features, labels), steps=1, hooks=[hook])
        self.assertAllClose(expected_train_logits, hook.values[0])

    def _test_age_logits(self, hidden_units, logits_dimension, inputs, expected_logits, **kwargs):
        column = fc.numeric_column("age", shape=np.array(inputs).shape[1:])
        features = {"age": np.array(inputs, np.float32)}
        self._test_logits(
            hidden_units, logits_dimension, features, [column], expected_logits, **kwargs
        )

    def test_one_dim_logits(self):
        """dnn_testing_utils.py::BaseDNNModelFnTest.test_one_dim_logits (and BaseDNNLogitFnTest's)

        hidden_layer_0 = [[relu(0.6*10 +0.1), relu(0.5*10 -0.1)]] = [[6.1, 4.9]]
        hidden_layer_1 = [[relu(2.38), relu(-0.12)]] = [[2.38, 0]]
        logits = [[-1*2.38 +1*0 +0.3]] = [[-2.08]]
        """
        create_checkpoint(ONE_DIM, 100, self._model_dir)
        self._test_age_logits((2, 2), 1, [[10.0]], [[-2.08]])

    def test_multi_dim_logits(self):
        """dnn_testing_utils.py::BaseDNNModelFnTest.test_multi_dim_logits (and BaseDNNLogitFnTest's)"""
        create_checkpoint((ONE_DIM[0], ONE_DIM[1], MULTI_DIM[2]), 100, self._model_dir)
        self._test_age_logits((2, 2), 3, [[10.0]], [[-2.08, 2.08, 1.19]])

    def test_multi_example_multi_dim_logits(self):
        """dnn_testing_utils.py::BaseDNNModelFnTest.test_multi_example_multi_dim_logits (and BaseDNNLogitFnTest's)"""
        create_checkpoint((ONE_DIM[0], ONE_DIM[1], MULTI_DIM[2]), 100, self._model_dir)
        self._test_age_logits(
            (2, 2), 3, [[10.0], [5.0]], [[-2.08, 2.08, 1.19], [-1.08, 1.08, 0.69]]
        )

    def test_multi_dim_input_one_dim_logits(self):
        """dnn_testing_utils.py::BaseDNNModelFnTest.test_multi_dim_input_one_dim_logits (and BaseDNNLogitFnTest's)"""
        create_checkpoint((MULTI_DIM[0], MULTI_DIM[1], ONE_DIM[2]), 100, self._model_dir)
        self._test_age_logits((2, 2), 1, [[10.0, 8.0]], [[-0.48]])

    def test_multi_dim_input_multi_dim_logits(self):
        """dnn_testing_utils.py::BaseDNNModelFnTest.test_multi_dim_input_multi_dim_logits (and BaseDNNLogitFnTest's)"""
        create_checkpoint(MULTI_DIM, 100, self._model_dir)
        self._test_age_logits((2, 2), 3, [[10.0, 8.0]], [[-0.48, 0.48, 0.39]])

    def test_multi_feature_column_multi_dim_logits(self):
        """dnn_testing_utils.py::BaseDNNModelFnTest.test_multi_feature_column_multi_dim_logits (and BaseDNNLogitFnTest's)

        The numbers of test_multi_dim_input_multi_dim_logits, from two 1D columns."""
        create_checkpoint(MULTI_DIM, 100, self._model_dir)
        features = {"age": np.array([[10.0]], np.float32), "height": np.array([[8.0]], np.float32)}
        columns = [fc.numeric_column("age"), fc.numeric_column("height")]
        self._test_logits((2, 2), 3, features, columns, [[-0.48, 0.48, 0.39]])

    def test_one_dim_logits_with_batch_norm(self):
        """dnn_testing_utils.py::BaseDNNLogitFnTest.test_one_dim_logits_with_batch_norm

        training (the batch's mean and variance, epsilon = 0.001):
        logits = [[-0.699895571], [1.299895571]]
        not training (moving_mean 0, moving_variance 1):
        logits = [[1.299500375], [5.297501873]]
        """
        create_checkpoint(
            (([[0.6, 0.5]], [1.0, -1.0]), ([[-1.0], [2.0]], [0.3])),
            100,
            self._model_dir,
            batch_norm_vars=(
                [
                    [0, 0],  # beta.
                    [1, 1],  # gamma.
                    [0, 0],  # moving mean.
                    [1, 1],  # moving variance.
                ],
            ),
        )
        self._test_age_logits(
            [2],
            1,
            [[10.0], [20.0]],
            [[1.299500375], [5.297501873]],
            batch_norm=True,
            expected_train_logits=[[-0.699895571], [1.299895571]],
        )
