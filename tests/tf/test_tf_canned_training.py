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
"""TF's canned-estimator training-step tests, ported: the ``FromCheckpoint`` / ``FromScratch``
cases of tensorflow_estimator's canned/linear_testing_utils.py
(``BaseLinearRegressorTrainingTest``, ``BaseLinearClassifierTrainingTest``) and
canned/dnn_testing_utils.py (``BaseDNNClassifierTrainTest``, ``BaseDNNRegressorTrainTest``).

TF's ``mock_optimizer`` asserts each step's loss and updates nothing: here a hook checks
the loss (:class:`canned_test_case.MockOptimizerHook`) while a zero learning rate keeps
the weights. TF's per-layer ``fraction_of_zero_values`` summaries: test_tf_canned_more.py.
"""

import math

import numpy as np
from canned_test_case import (
    AGE_WEIGHT_NAME,
    BIAS_NAME,
    LOGITS_BIASES_NAME,
    LOGITS_WEIGHTS_NAME,
    MULTI_DIM,
    ONE_DIM,
    MockOptimizerHook,
    ModelDirTest,
    classifier_weights,
    create_checkpoint,
    mock_optimizer,
    softmax_losses,
)
from tf_test_case import save_variables_to_ckpt

import colonnade as cn

fc = cn.feature_columns


class LinearRegressorTrainingTest(ModelDirTest):
    def _assert_checkpoint(
        self, expected_global_step, expected_age_weight=None, expected_bias=None
    ):
        self.assert_checkpoint_shapes(
            expected_global_step, {AGE_WEIGHT_NAME: [1, 1], BIAS_NAME: [1]}
        )
        if expected_age_weight is not None:
            self.assertEqual(
                expected_age_weight, cn.train.load_variable(self._model_dir, AGE_WEIGHT_NAME)
            )
        if expected_bias is not None:
            self.assertEqual(expected_bias, cn.train.load_variable(self._model_dir, BIAS_NAME))

    def _train(self, expected_loss, input_fn, num_steps=10):
        hook = MockOptimizerHook(self, expected_loss=expected_loss)
        linear_regressor = self._linear_regressor_fn(
            feature_columns=(fc.numeric_column("age"),),
            model_dir=self._model_dir,
            optimizer=mock_optimizer(),
        )
        linear_regressor.train(input_fn=input_fn, steps=num_steps, hooks=[hook])
        self.assertEqual(num_steps, hook.iterations)
        return linear_regressor

    def testFromScratchWithDefaultOptimizer(self):
        """linear_testing_utils.py::BaseLinearRegressorTrainingTest.testFromScratchWithDefaultOptimizer"""
        linear_regressor = self._linear_regressor_fn(
            feature_columns=(fc.numeric_column("age"),), model_dir=self._model_dir
        )
        num_steps = 10
        linear_regressor.train(input_fn=lambda: ({"age": ((17,),)}, ((5.0,),)), steps=num_steps)
        self._assert_checkpoint(num_steps)

    def testTrainWithOneDimLabel(self):
        """linear_testing_utils.py::BaseLinearRegressorTrainingTest.testTrainWithOneDimLabel"""
        est = self._linear_regressor_fn(
            feature_columns=[fc.numeric_column("age", shape=(1,))],
            label_dimension=1,
            model_dir=self._model_dir,
        )
        data_rank_1 = np.linspace(0.0, 2.0, 20, dtype=np.float32)
        self.assertEqual((20,), data_rank_1.shape)
        est.train(lambda: ({"age": data_rank_1}, data_rank_1), steps=200)
        self._assert_checkpoint(200)

    def testTrainWithOneDimWeight(self):
        """linear_testing_utils.py::BaseLinearRegressorTrainingTest.testTrainWithOneDimWeight"""
        est = self._linear_regressor_fn(
            feature_columns=[fc.numeric_column("age", shape=(1,))],
            label_dimension=1,
            weight_column="w",
            model_dir=self._model_dir,
        )
        data_rank_1 = np.linspace(0.0, 2.0, 20, dtype=np.float32)
        est.train(lambda: ({"age": data_rank_1, "w": data_rank_1}, data_rank_1), steps=200)
        self._assert_checkpoint(200)

    def testFromScratch(self):
        """linear_testing_utils.py::BaseLinearRegressorTrainingTest.testFromScratch"""
        # loss = (logits - label)^2 = (0 - 5.)^2 = 25.
        self._train(25.0, lambda: ({"age": ((17,),)}, ((5.0,),)))
        self._assert_checkpoint(expected_global_step=10, expected_age_weight=0.0, expected_bias=0.0)

    def _checkpoint_10_5_at_100(self):
        """TF's initial checkpoint: age weight 10, bias 5, global step 100."""
        age_weight, bias, initial_global_step = 10.0, 5.0, 100
        variables = {AGE_WEIGHT_NAME: [[age_weight]], BIAS_NAME: [bias]}
        save_variables_to_ckpt(self._model_dir, {**variables, "global_step": initial_global_step})
        return age_weight, bias, initial_global_step

    def testFromCheckpoint(self):
        """linear_testing_utils.py::BaseLinearRegressorTrainingTest.testFromCheckpoint"""
        age_weight, bias, initial_global_step = self._checkpoint_10_5_at_100()
        # logits = age * age_weight + bias = 17 * 10. + 5. = 175
        # loss = (logits - label)^2 = (175 - 5)^2 = 28900
        self._train(28900.0, lambda: ({"age": ((17,),)}, ((5.0,),)))
        self._assert_checkpoint(
            initial_global_step + 10, expected_age_weight=age_weight, expected_bias=bias
        )

    def testFromCheckpointMultiBatch(self):
        """linear_testing_utils.py::BaseLinearRegressorTrainingTest.testFromCheckpointMultiBatch"""
        age_weight, bias, initial_global_step = self._checkpoint_10_5_at_100()
        # loss = sum(logits - label)^2 = (175 - 5)^2 + (155 - 3)^2 = 52004; expected_loss = loss / 2 = 26002
        self._train(26002.0, lambda: ({"age": ((17,), (15,))}, ((5.0,), (3.0,))))
        self._assert_checkpoint(
            initial_global_step + 10, expected_age_weight=age_weight, expected_bias=bias
        )


class LinearClassifierTrainingTest(ModelDirTest):
    def _assert_checkpoint(
        self, n_classes, expected_global_step, expected_age_weight=None, expected_bias=None
    ):
        logits_dimension = n_classes if n_classes > 2 else 1
        self.assert_checkpoint_shapes(
            expected_global_step,
            {AGE_WEIGHT_NAME: [1, logits_dimension], BIAS_NAME: [logits_dimension]},
        )
        if expected_age_weight is not None:
            self.assertAllEqual(
                expected_age_weight, cn.train.load_variable(self._model_dir, AGE_WEIGHT_NAME)
            )
        if expected_bias is not None:
            self.assertAllEqual(expected_bias, cn.train.load_variable(self._model_dir, BIAS_NAME))

    def _train(self, n_classes, expected_loss, input_fn, num_steps=10):
        hook = MockOptimizerHook(self, expected_loss=expected_loss)
        est = self._linear_classifier_fn(
            feature_columns=(fc.numeric_column("age"),),
            n_classes=n_classes,
            optimizer=mock_optimizer(),
            model_dir=self._model_dir,
        )
        est.train(input_fn=input_fn, steps=num_steps, hooks=[hook])
        self.assertEqual(num_steps, hook.iterations)

    def _testFromScratchWithDefaultOptimizer(self, n_classes):
        est = cn.estimators.LinearClassifier(
            feature_columns=(fc.numeric_column("age"),),
            n_classes=n_classes,
            model_dir=self._model_dir,
        )
        est.train(input_fn=lambda: ({"age": ((17,),)}, ((0,),)), steps=10)
        self._assert_checkpoint(n_classes, 10)

    def testBinaryClassesFromScratchWithDefaultOptimizer(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testBinaryClassesFromScratchWithDefaultOptimizer"""
        self._testFromScratchWithDefaultOptimizer(n_classes=2)

    def testMultiClassesFromScratchWithDefaultOptimizer(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testMultiClassesFromScratchWithDefaultOptimizer"""
        self._testFromScratchWithDefaultOptimizer(n_classes=4)

    def _train_on_rank_1(self, n_classes, weight=None):
        """TF's _testTrainWith{OneDimLabel,TwoDimsWeight,OneDimWeight}: 200 steps on
        rank-1 features and labels (and a rank-1 or rank-2 weight)."""
        est = cn.estimators.LinearClassifier(
            feature_columns=(fc.numeric_column("age"),),
            weight_column=None if weight is None else "w",
            n_classes=n_classes,
            model_dir=self._model_dir,
        )
        data_rank_1 = np.array([0, 1])
        features = {"age": data_rank_1} if weight is None else {"age": data_rank_1, "w": weight}
        est.train(lambda: (features, data_rank_1), steps=200)
        self._assert_checkpoint(n_classes, 200)

    def testBinaryClassesTrainWithOneDimLabel(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testBinaryClassesTrainWithOneDimLabel"""
        self._train_on_rank_1(2)

    def testMultiClassesTrainWithOneDimLabel(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testMultiClassesTrainWithOneDimLabel"""
        self._train_on_rank_1(4)

    def testBinaryClassesTrainWithTwoDimsWeight(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testBinaryClassesTrainWithTwoDimsWeight"""
        self._train_on_rank_1(2, weight=np.array([[0], [1]]))

    def testMultiClassesTrainWithTwoDimsWeight(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testMultiClassesTrainWithTwoDimsWeight"""
        self._train_on_rank_1(4, weight=np.array([[0], [1]]))

    def testBinaryClassesTrainWithOneDimWeight(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testBinaryClassesTrainWithOneDimWeight"""
        self._train_on_rank_1(2, weight=np.array([0, 1]))

    def testMultiClassesTrainWithOneDimWeight(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testMultiClassesTrainWithOneDimWeight"""
        self._train_on_rank_1(4, weight=np.array([0, 1]))

    def _testFromScratch(self, n_classes):
        # logits are all 0 (weights start at zero), label 1: loss = 1 * -log ( 1.0 / n_classes )
        self._train(n_classes, -1 * math.log(1.0 / n_classes), lambda: ({"age": ((17,),)}, ((1,),)))
        self._assert_checkpoint(
            n_classes,
            expected_global_step=10,
            expected_age_weight=[[0.0]] if n_classes == 2 else [[0.0] * n_classes],
            expected_bias=[0.0] if n_classes == 2 else [0.0] * n_classes,
        )

    def testBinaryClassesFromScratch(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testBinaryClassesFromScratch"""
        self._testFromScratch(n_classes=2)

    def testMultiClassesFromScratch(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testMultiClassesFromScratch"""
        self._testFromScratch(n_classes=4)

    def _from_checkpoint(self, n_classes, age, label, binary_loss, input_fn):
        """TF's ``_testFromCheckpoint`` / ``_testFromCheckpointMultiBatch``: weights
        ``2 * range(n_classes)`` and bias -35 at step 100; 10 steps whose loss is
        ``binary_loss``, or the softmax cross entropy averaged over the batch."""
        age_weight, bias = classifier_weights(n_classes, 2.0, 2.0, -35.0)
        initial_global_step = 100
        save_variables_to_ckpt(
            self._model_dir,
            {AGE_WEIGHT_NAME: age_weight, BIAS_NAME: bias, "global_step": initial_global_step},
        )
        if n_classes == 2:
            expected_loss = binary_loss
        else:
            logits = age_weight * np.reshape(age, (-1, 1)) + bias
            expected_loss = np.mean(softmax_losses(logits, label))  # divided by batch size
        self._train(n_classes, expected_loss, input_fn)
        self._assert_checkpoint(
            n_classes, initial_global_step + 10, expected_age_weight=age_weight, expected_bias=bias
        )

    def _testFromCheckpoint(self, n_classes):
        # binary: logits = 17 * 2. - 35. = -1., loss = 1 * -log ( sigmoid(-1) ) = 1.3133
        self._from_checkpoint(n_classes, [17], [1], 1.3133, lambda: ({"age": ((17,),)}, ((1,),)))

    def testBinaryClassesFromCheckpoint(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testBinaryClassesFromCheckpoint"""
        self._testFromCheckpoint(n_classes=2)

    def testMultiClassesFromCheckpoint(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testMultiClassesFromCheckpoint"""
        self._testFromCheckpoint(n_classes=4)

    def testBinaryClassesFromCheckpointFloatLabels(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testBinaryClassesFromCheckpointFloatLabels"""
        save_variables_to_ckpt(
            self._model_dir, {AGE_WEIGHT_NAME: [[2.0]], BIAS_NAME: [-35.0], "global_step": 100}
        )
        # loss = -0.8 * log(sigmoid(-1)) -0.2 * log(sigmoid(+1)) = 1.1132617
        self._train(2, 1.1132617, lambda: ({"age": ((17,),)}, ((0.8,),)))

    def _testFromCheckpointMultiBatch(self, n_classes):
        # binary: logits = [-1., 2.], loss = (1.3133 + 2.1269) / batch size (2)
        age, label = [17.0, 18.5], [1, 0]
        self._from_checkpoint(
            n_classes, age, label, (1.3133 + 2.1269) / 2, lambda: ({"age": (age)}, (label))
        )

    def testBinaryClassesFromCheckpointMultiBatch(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testBinaryClassesFromCheckpointMultiBatch"""
        self._testFromCheckpointMultiBatch(n_classes=2)

    def testMultiClassesFromCheckpointMultiBatch(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testMultiClassesFromCheckpointMultiBatch"""
        self._testFromCheckpointMultiBatch(n_classes=4)


def dnn_shapes(input_units, hidden_units, output_units):
    """TF's ``_assert_checkpoint`` of dnn_testing_utils.py: each layer's kernel and bias shape."""
    shapes, prev_layer_units = {}, input_units
    for i, layer_units in enumerate(hidden_units):
        shapes[f"dnn/hiddenlayer_{i}/kernel"] = (prev_layer_units, layer_units)
        shapes[f"dnn/hiddenlayer_{i}/bias"] = (layer_units,)
        prev_layer_units = layer_units
    shapes[LOGITS_WEIGHTS_NAME] = (prev_layer_units, output_units)
    shapes[LOGITS_BIASES_NAME] = (output_units,)
    return shapes


class DNNTrainTest(ModelDirTest):
    def _train(self, make, expected_loss, input_fn, weights, input_units, output_units, **kwargs):
        base_global_step, hidden_units, num_steps = 100, (2, 2), 5
        create_checkpoint(weights, base_global_step, self._model_dir)
        hook = MockOptimizerHook(self, expected_loss=expected_loss)
        est = make(
            hidden_units=hidden_units,
            optimizer=mock_optimizer(),
            model_dir=self._model_dir,
            **kwargs,
        )
        est.train(input_fn=input_fn, steps=num_steps, hooks=(hook,))
        self.assertEqual(num_steps, hook.iterations)
        self.assert_checkpoint_shapes(
            base_global_step + num_steps, dnn_shapes(input_units, hidden_units, output_units)
        )

    def _from_scratch(self, make, input_fn, output_units, optimizer=None, **kwargs):
        """TF's from-scratch DNN tests: 5 steps from a fresh model_dir, then the
        checkpoint's global step and layer shapes (with ``optimizer``, TF's mock one:
        five steps counted)."""
        hidden_units, num_steps = (2, 2), 5
        if optimizer is not None:
            kwargs["optimizer"] = optimizer
        est = make(
            hidden_units=hidden_units,
            feature_columns=(fc.numeric_column("age"),),
            model_dir=self._model_dir,
            **kwargs,
        )
        hook = MockOptimizerHook(self)
        est.train(input_fn=input_fn, steps=num_steps, hooks=(hook,))
        self.assertEqual(num_steps, hook.iterations)
        self.assert_checkpoint_shapes(num_steps, dnn_shapes(1, hidden_units, output_units))

    def _train_on_age_10(self, make, expected_loss, labels, weights, output_units, **kwargs):
        """``_train`` on TF's one example ``{'age': [[10.]]}`` through one numeric column."""
        columns = (fc.numeric_column("age"),)
        input_fn = lambda: ({"age": [[10.0]]}, labels)  # noqa: E731
        self._train(
            make,
            expected_loss,
            input_fn,
            weights,
            1,
            output_units,
            feature_columns=columns,
            **kwargs,
        )

    def test_classifier_from_scratch_with_default_optimizer_binary(self):
        """dnn_testing_utils.py::BaseDNNClassifierTrainTest.test_from_scratch_with_default_optimizer_binary"""
        self._from_scratch(self._dnn_classifier_fn, lambda: ({"age": [[10.0]]}, [[1]]), 1)

    def test_classifier_from_scratch_with_default_optimizer_multi_class(self):
        """dnn_testing_utils.py::BaseDNNClassifierTrainTest.test_from_scratch_with_default_optimizer_multi_class"""
        self._from_scratch(
            self._dnn_classifier_fn, lambda: ({"age": [[10.0]]}, [[2]]), 3, n_classes=3
        )

    def test_classifier_from_scratch_validate_summary(self):
        """dnn_testing_utils.py::BaseDNNClassifierTrainTest.test_from_scratch_validate_summary (no summaries)"""
        self._from_scratch(
            self._dnn_classifier_fn,
            lambda: ({"age": [[10.0]]}, [[1]]),
            1,
            optimizer=mock_optimizer(),
        )

    def test_regressor_from_scratch_with_default_optimizer(self):
        """dnn_testing_utils.py::BaseDNNRegressorTrainTest.test_from_scratch_with_default_optimizer"""
        self._from_scratch(self._dnn_regressor_fn, lambda: ({"age": ((1,),)}, ((10,),)), 1)

    def test_regressor_from_scratch(self):
        """dnn_testing_utils.py::BaseDNNRegressorTrainTest.test_from_scratch (no summaries)"""
        self._from_scratch(
            self._dnn_regressor_fn,
            lambda: ({"age": ((1,),)}, ((5.0,),)),
            1,
            optimizer=mock_optimizer(),
        )

    def test_classifier_binary_classification(self):
        """dnn_testing_utils.py::BaseDNNClassifierTrainTest.test_binary_classification"""
        # logits = [-2.08] => probabilities = [0.889, 0.111]; loss = -1. * log(0.111) = 2.19772100
        self._train_on_age_10(self._dnn_classifier_fn, 2.19772100, [[1]], ONE_DIM, 1)

    def test_classifier_binary_classification_float_labels(self):
        """dnn_testing_utils.py::BaseDNNClassifierTrainTest.test_binary_classification_float_labels"""
        # loss = -0.8 * log(0.111) -0.2 * log(0.889) = 1.7817210
        self._train_on_age_10(self._dnn_classifier_fn, 1.7817210, [[0.8]], ONE_DIM, 1)

    def test_classifier_multi_class(self):
        """dnn_testing_utils.py::BaseDNNClassifierTrainTest.test_multi_class"""
        weights = (ONE_DIM[0], ONE_DIM[1], MULTI_DIM[2])
        # logits = [-2.08, 2.08, 1.19] => probabilities = [0.0109, 0.7011, 0.2879]
        # loss = -1. * log(0.7011) = 0.35505795
        self._train_on_age_10(self._dnn_classifier_fn, 0.35505795, [[1]], weights, 3, n_classes=3)

    def test_regressor_one_dim(self):
        """dnn_testing_utils.py::BaseDNNRegressorTrainTest.test_one_dim"""
        # logits = [-2.08] => predictions = [-2.08]; loss = (1 + 2.08)^2 = 9.4864
        self._train_on_age_10(self._dnn_regressor_fn, 9.4864, [[1.0]], ONE_DIM, 1)

    def test_regressor_multi_dim(self):
        """dnn_testing_utils.py::BaseDNNRegressorTrainTest.test_multi_dim"""
        # logits = [[-0.48, 0.48, 0.39]]
        # loss = (1+0.48)^2 + (-1-0.48)^2 + (0.5-0.39)^2 = 4.3929; expected_loss = loss / 3
        self._train(
            self._dnn_regressor_fn,
            1.4643,
            lambda: ({"age": [[10.0, 8.0]]}, [[1.0, -1.0, 0.5]]),
            MULTI_DIM,
            2,
            3,
            feature_columns=[fc.numeric_column("age", shape=[2])],
            label_dimension=3,
        )
