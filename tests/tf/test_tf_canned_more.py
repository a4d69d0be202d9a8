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
"""The rest of tensorflow_estimator's canned-estimator tests (issue 24), ported, with an
inventory of every test class and method of canned/linear_testing_utils.py,
canned/dnn_testing_utils.py and canned/dnn_linear_combined_test.py and where each lives.

``here``: this file. ``n/a``: nothing to port, with the reason. TF's ``numpy_input_fn`` and
``pandas_input_fn`` are ``cn.estimators.inputs``; TF's ``parse_example`` of serialized
``tf.Example``\\ s is ``cn.io.parse_example`` (an Arrow table: the labels column pops off
as TF's ``features.pop('y')``). TF's ``*_fc_v1`` / ``*_mix`` variants run the same test
with TF 1's and TF 2's feature-column libraries mixed; colonnade has one library, so they
are n/a. A TF 1 partitioner is accepted and splits nothing (docs/tf_differences.md).

linear_testing_utils.py
  BaseLinearRegressorPartitionerTest (TF 1.x versions of the file)
    testPartitioner: here (TF 1's ``cn.compat.v1.estimator.LinearRegressor``, and
      dnn_linear_combined_test.py's LinearOnlyRegressorPartitionerTest of those versions)
    testDefaultPartitionerWithMultiplePsReplicas: n/a (TF's default partitioner for
      ``num_ps_replicas`` parameter servers; there is nothing to place, see testPartitioner)
  BaseLinearRegressorEvaluationTest: five in test_tf_canned_linear.py;
    test_evaluation_for_multiple_feature_columns_mix: n/a (mixed column libraries)
  BaseLinearRegressorPredictTest: test_1d, testMultiDim, testTwoFeatureColumns,
    testSparseCombiner in test_tf_canned_linear.py; testTwoFeatureColumnsMix: n/a
  BaseLinearRegressorIntegrationTest: test_numpy_input_fn, test_pandas_input_fn,
    test_input_fn_from_parse_example: here
  BaseLinearRegressorTrainingTest: all six in test_tf_canned_training.py
  BaseLinearClassifierTrainingTest: in test_tf_canned_training.py, except
    test{Binary,Multi}ClassesTrainWithTwoDimsLabel: here;
    testMultiClassesFromCheckpointFloatLabels: n/a (TF returns before testing for
    n_classes > 2)
  BaseLinearClassifierEvaluationTest, BaseLinearClassifierPredictTest: all in
    test_tf_canned_linear.py
  BaseLinearClassifierIntegrationTest: test_{binary,multi}_classes_numpy_input_fn,
    ..._pandas_input_fn, ..._input_fn_from_parse_example: here
  BaseLinearLogitFnTest: test_basic_logit_correctness: here (``fc.linear_model``, what
    TF's ``linear_logit_fn_builder`` wraps); test_compute_fraction_of_zero_v2: n/a (TF's
    private ``_compute_fraction_of_zero`` feeds the ``fraction_of_zero_weights`` summary,
    not written: docs/tf_differences.md)
  BaseLinearWarmStartingTest: all five in test_tf_canned_warm_starting.py

dnn_testing_utils.py
  BaseDNNModelFnTest: six in test_tf_canned_dnn_logits.py;
    test_multi_feature_column_mix_multi_dim_logits: n/a;
    test_features_tensor_raises_value_error: here
  BaseDNNLogitFnTest: the same logits as BaseDNNModelFnTest (and
    test_one_dim_logits_with_batch_norm) in test_tf_canned_dnn_logits.py; the mix: n/a
  BaseDNNWarmStartingTest: all five in test_tf_canned_warm_starting.py
  BaseDNNClassifierEvaluateTest, BaseDNNRegressorEvaluateTest,
    BaseDNNClassifierPredictTest, BaseDNNRegressorPredictTest: test_tf_canned_dnn.py
  BaseDNNClassifierTrainTest, BaseDNNRegressorTrainTest: test_tf_canned_training.py; the
    ``_assert_simple_summary`` checks of test_binary_classification, test_multi_class,
    test_one_dim and test_multi_dim (``dnn/hiddenlayer_N/fraction_of_zero_values``,
    ``dnn/logits/fraction_of_zero_values``, ``loss``): here

dnn_linear_combined_test.py
  DNNOnlyModelFnTest: here (test_tf_canned_dnn_logits.py's tests on a DNN-only
    ``DNNLinearCombinedRegressor``)
  LinearOnly{RegressorEvaluation,RegressorPredict,RegressorTraining,ClassifierTraining,
    ClassifierClassesEvaluation,ClassifierPredict}V2Test,
    DNNOnly{ClassifierEvaluate,ClassifierPredict,RegressorEvaluate,RegressorPredict}V2Test,
    DNNOnly{Classifier,Regressor}TrainV2Test, DNNLinearCombinedTests:
    test_tf_canned_dnn_linear_combined.py
  LinearOnlyRegressorIntegrationV2Test, LinearOnlyClassifierIntegrationV2Test: here
  DNNLinearCombinedRegressorIntegrationTest: test_{numpy,pandas}_input_fn_basic,
    test_input_fn_from_parse_example_basic: here (DNNLinearCombinedIntegrationTest); the
    six ``*_dnn_fc_v1`` / ``*_linear_fc_v1`` tests: n/a (they expect TF's refusal of a TF 1 column)
  DNNLinearCombinedClassifierIntegrationTest: all three here (DNNLinearCombinedIntegrationTest)
  DNNLinearCombinedWarmStartingTest: all three here

dnn_test_fc_v2.py (the DNN's own test file; its other classes run dnn_testing_utils.py's)
  DNNRegressorIntegrationTest, DNNClassifierIntegrationTest: here (DNNIntegrationTest)
  DNNTrainingMode: n/a (it mocks Keras' ``DenseFeatures.call`` to see ``training``)
"""

import os
import shutil
import tempfile

import numpy as np
import pandas as pd
import test_tf_canned_dnn_logits as logits_tests
from canned_test_case import (
    AGE_WEIGHT_NAME,
    BIAS_NAME,
    GLOBAL_STEP,
    LANGUAGE_WEIGHT_NAME,
    LOSS,
    MULTI_DIM,
    ONE_DIM,
    ModelDirTest,
    create_checkpoint,
    mock_optimizer,
    training_scalars,
)
from test_tf_canned_dnn_linear_combined import DNNOnly, LinearOnly
from test_tf_canned_warm_starting import WarmStartingTest, zero_rate_sgd
from tf_test_case import TFTestCase, example_bytes

import colonnade as cn

fc = cn.feature_columns
numpy_input_fn = cn.estimators.inputs.numpy_input_fn
pandas_input_fn = cn.estimators.inputs.pandas_input_fn
HIDDEN_0_ZEROS = "dnn/hiddenlayer_0/fraction_of_zero_values"
HIDDEN_1_ZEROS = "dnn/hiddenlayer_1/fraction_of_zero_values"
LOGITS_ZEROS = "dnn/logits/fraction_of_zero_values"


def parsed_input_fns(serialized_examples, feature_spec):
    """TF's ``_train_input_fn`` / ``_eval_input_fn`` / ``_predict_input_fn`` over
    ``parse_example``: the whole parse as one batch, repeated for training (TF's queue),
    once for evaluation and prediction (``limit_epochs(..., num_epochs=1)``); ``y`` pops
    off as the labels."""

    def parsed():
        feature_map = cn.io.parse_example(serialized_examples, feature_spec)
        return feature_map.drop_columns(["y"]), feature_map.column("y")

    def train_input_fn():
        features, labels = parsed()
        while True:
            yield features, labels

    def eval_input_fn():
        return [parsed()]

    def predict_input_fn():
        return [parsed()[0]]

    return train_input_fn, eval_input_fn, predict_input_fn


def example_input_fns(x_data, y_data, y_dtype):
    """TF's serialized ``tf.Example``\\ s of rows ``x`` (FloatList) and ``y`` (FloatList or
    Int64List, ``y_dtype``) and the ``parse_example`` input functions over them."""
    serialized_examples = [
        example_bytes({"x": x.tolist(), "y": y.tolist()}) for x, y in zip(x_data, y_data)
    ]
    feature_spec = {
        "x": cn.io.FixedLenFeature([x_data.shape[1]], "float32"),
        "y": cn.io.FixedLenFeature([y_data.shape[1]], y_dtype),
    }
    return parsed_input_fns(serialized_examples, feature_spec)


def numpy_input_fns(x_data, y_data, batch_size):
    """TF's three ``numpy_input_fn``\\ s: shuffled and endless for training, one pass in
    order for evaluation, and the features alone for prediction."""
    return (
        numpy_input_fn(
            x={"x": x_data}, y=y_data, batch_size=batch_size, num_epochs=None, shuffle=True
        ),
        numpy_input_fn(x={"x": x_data}, y=y_data, batch_size=batch_size, shuffle=False),
        numpy_input_fn(x={"x": x_data}, batch_size=batch_size, shuffle=False),
    )


def pandas_input_fns(x, y, batch_size):
    """TF's three ``pandas_input_fn``\\ s, as :func:`numpy_input_fns`."""
    return (
        pandas_input_fn(x=x, y=y, batch_size=batch_size, num_epochs=None, shuffle=True),
        pandas_input_fn(x=x, y=y, batch_size=batch_size, shuffle=False),
        pandas_input_fn(x=x, batch_size=batch_size, shuffle=False),
    )


def assert_complete_flow(testcase, est, input_fns, feature_columns, steps, key, shape):
    """TF's ``_test_complete_flow`` after the estimator is made: TRAIN ``steps`` steps,
    EVALUATE (the global step and a loss), PREDICT (the ``key`` predictions stack to
    ``shape``) and EXPORT through a parsing serving input over the columns' parse spec."""
    train_input_fn, eval_input_fn, predict_input_fn = input_fns
    est.train(train_input_fn, steps=steps)
    scores = est.evaluate(eval_input_fn)
    testcase.assertEqual(steps, scores[GLOBAL_STEP])
    testcase.assertIn(LOSS, scores)
    predictions = np.array([x[key] for x in est.predict(predict_input_fn)])
    testcase.assertAllEqual(shape, predictions.shape)
    feature_spec = fc.make_parse_example_spec(feature_columns)
    serving_input_receiver_fn = cn.estimators.build_parsing_serving_input_receiver_fn(feature_spec)
    export_dir = est.export_saved_model(tempfile.mkdtemp(), serving_input_receiver_fn)
    testcase.assertTrue(os.path.exists(export_dir))


def regression_data(batch_size, label_dimension):
    """TF's ``np.linspace(0., 2., batch_size * label_dimension)`` rows: ``y = x``."""
    data = np.linspace(0.0, 2.0, batch_size * label_dimension, dtype=np.float32)
    return data.reshape(batch_size, label_dimension)


class LinearRegressorIntegrationTest(ModelDirTest):
    def _test_complete_flow(self, input_fns, input_dimension, label_dimension, prediction_length):
        feature_columns = [fc.numeric_column("x", shape=(input_dimension,))]
        est = self._linear_regressor_fn(
            feature_columns=feature_columns,
            label_dimension=label_dimension,
            model_dir=self._model_dir,
        )
        # learn y = x
        shape = (prediction_length, label_dimension)
        assert_complete_flow(self, est, input_fns, feature_columns, 200, "predictions", shape)

    def test_numpy_input_fn(self):
        """linear_testing_utils.py::BaseLinearRegressorIntegrationTest.test_numpy_input_fn"""
        data = regression_data(batch_size=10, label_dimension=2)
        self._test_complete_flow(numpy_input_fns(data, data, 10), 2, 2, prediction_length=10)

    def test_pandas_input_fn(self):
        """linear_testing_utils.py::BaseLinearRegressorIntegrationTest.test_pandas_input_fn"""
        # Pandas DataFrame natually supports 1 dim data only.
        data = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
        x, y = pd.DataFrame({"x": data}), pd.Series(data)
        self._test_complete_flow(pandas_input_fns(x, y, 10), 1, 1, prediction_length=4)

    def test_input_fn_from_parse_example(self):
        """linear_testing_utils.py::BaseLinearRegressorIntegrationTest.test_input_fn_from_parse_example"""
        data = regression_data(batch_size=10, label_dimension=2)
        input_fns = example_input_fns(data, data, "float32")
        self._test_complete_flow(input_fns, 2, 2, prediction_length=10)


class LinearClassifierIntegrationTest(ModelDirTest):
    def _test_complete_flow(self, n_classes, input_fns, input_dimension, prediction_length):
        feature_columns = [fc.numeric_column("x", shape=(input_dimension,))]
        est = self._linear_classifier_fn(
            feature_columns=feature_columns, n_classes=n_classes, model_dir=self._model_dir
        )
        shape = (prediction_length, 1)
        assert_complete_flow(self, est, input_fns, feature_columns, 200, "classes", shape)

    def _each_n_classes(self):
        """TF's binary (2 classes) and multi-class (4) variants, each in a fresh
        model_dir."""
        for n_classes in (2, 4):
            self._model_dir = tempfile.mkdtemp()
            self.addCleanup(shutil.rmtree, self._model_dir, True)
            with self.subTest(n_classes=n_classes):
                yield n_classes

    def test_numpy_input_fn(self):
        """linear_testing_utils.py::BaseLinearClassifierIntegrationTest.test_binary_classes_numpy_input_fn
        and test_multi_classes_numpy_input_fn"""
        data = regression_data(batch_size=10, label_dimension=4)
        input_fns = numpy_input_fns(data, np.array([1] * 10), 10)
        for n_classes in self._each_n_classes():
            self._test_complete_flow(n_classes, input_fns, 4, prediction_length=10)

    def test_pandas_input_fn(self):
        """linear_testing_utils.py::BaseLinearClassifierIntegrationTest.test_binary_classes_pandas_input_fn
        and test_multi_classes_pandas_input_fn"""
        # Pandas DataFrame natually supports 1 dim data only.
        data = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
        target = np.array([1, 0, 1, 0], dtype=np.int32)
        input_fns = pandas_input_fns(pd.DataFrame({"x": data}), pd.Series(target), 10)
        for n_classes in self._each_n_classes():
            self._test_complete_flow(n_classes, input_fns, 1, prediction_length=4)

    def test_input_fn_from_parse_example(self):
        """linear_testing_utils.py::BaseLinearClassifierIntegrationTest.test_binary_classes_input_fn_from_parse_example
        and test_multi_classes_input_fn_from_parse_example"""
        data = regression_data(batch_size=10, label_dimension=2)
        target = np.array([[1]] * 10, dtype=np.int64)
        for n_classes in self._each_n_classes():
            input_fns = example_input_fns(data, target, "int64")
            self._test_complete_flow(n_classes, input_fns, 2, prediction_length=10)


class LinearOnlyRegressorIntegrationV2Test(LinearOnly, LinearRegressorIntegrationTest):
    """dnn_linear_combined_test.py::LinearOnlyRegressorIntegrationV2Test"""


class LinearOnlyClassifierIntegrationV2Test(LinearOnly, LinearClassifierIntegrationTest):
    """dnn_linear_combined_test.py::LinearOnlyClassifierIntegrationV2Test"""


class LinearClassifierTwoDimsLabelTest(ModelDirTest):
    def _testTrainWithTwoDimsLabel(self, n_classes):
        batch_size = 20

        est = self._linear_classifier_fn(
            feature_columns=(fc.numeric_column("age"),),
            n_classes=n_classes,
            model_dir=self._model_dir,
        )
        data_rank_1 = np.array([0, 1])
        data_rank_2 = np.array([[0], [1]])
        self.assertEqual((2,), data_rank_1.shape)
        self.assertEqual((2, 1), data_rank_2.shape)

        train_input_fn = numpy_input_fn(
            x={"age": data_rank_1},
            y=data_rank_2,
            batch_size=batch_size,
            num_epochs=None,
            shuffle=True,
        )
        est.train(train_input_fn, steps=200)
        logits_dimension = n_classes if n_classes > 2 else 1
        self.assert_checkpoint_shapes(
            200, {AGE_WEIGHT_NAME: [1, logits_dimension], BIAS_NAME: [logits_dimension]}
        )

    def testBinaryClassesTrainWithTwoDimsLabel(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testBinaryClassesTrainWithTwoDimsLabel"""
        self._testTrainWithTwoDimsLabel(n_classes=2)

    def testMultiClassesTrainWithTwoDimsLabel(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest.testMultiClassesTrainWithTwoDimsLabel"""
        self._testTrainWithTwoDimsLabel(n_classes=4)


def _v1_linear_regressor(feature_columns, partitioner, **kwargs):
    """TF 1's ``LinearRegressor(feature_columns, partitioner=...)``."""
    return cn.compat.v1.estimator.LinearRegressor(
        feature_columns=feature_columns, partitioner=partitioner, **kwargs
    )


def _v1_linear_only_regressor(feature_columns, partitioner, **kwargs):
    """TF 1's dnn_linear_combined_test.py ``_linear_regressor_fn``: the wide & deep
    regressor's linear part, its ``input_layer_partitioner`` the partitioner."""
    return cn.compat.v1.estimator.DNNLinearCombinedRegressor(
        linear_feature_columns=feature_columns, input_layer_partitioner=partitioner, **kwargs
    )


class LinearRegressorPartitionerTest(ModelDirTest):
    _v1_linear_regressor_fn = staticmethod(_v1_linear_regressor)

    def testPartitioner(self):
        """linear_testing_utils.py::BaseLinearRegressorPartitionerTest.testPartitioner (TF 1.x)

        TF's hook checks a PartitionedVariable of 4 parts of 16 rows; here the
        partitioner is accepted and the weights are one (64, 1) variable."""
        x_dim = 64
        partitions = 4

        def _partitioner(shape, dtype):
            del dtype  # unused; required by Fn signature.
            # Only partition the embedding tensor.
            return [partitions, 1] if shape[0] == x_dim else [1]

        regressor = self._v1_linear_regressor_fn(
            feature_columns=(
                fc.categorical_column_with_hash_bucket("language", hash_bucket_size=x_dim),
            ),
            partitioner=_partitioner,
            model_dir=self._model_dir,
        )

        def _input_fn():
            return {"language": [["english", "spanish"]]}, [[10.0]]

        regressor.train(input_fn=_input_fn, steps=1)
        self.assertEqual((x_dim, 1), regressor.get_variable_value(LANGUAGE_WEIGHT_NAME).shape)


class LinearOnlyRegressorPartitionerTest(LinearRegressorPartitionerTest):
    """dnn_linear_combined_test.py::LinearOnlyRegressorPartitionerTest (TF 1.x)"""

    _v1_linear_regressor_fn = staticmethod(_v1_linear_only_regressor)


class LinearLogitFnTest(TFTestCase):
    def test_basic_logit_correctness(self):
        """linear_testing_utils.py::BaseLinearLogitFnTest.test_basic_logit_correctness"""
        age = fc.numeric_column("age")
        model = fc.LinearModel([age], units=2, name="linear_model")
        features = {"age": [[23.0], [31.0]]}
        self.assertAllClose([[0.0, 0.0], [0.0, 0.0]], model(features))
        model.checkpoint_children()["bias_weights"].assign(np.array([10.0, 5.0], np.float32))
        self.assertAllClose([[10.0, 5.0], [10.0, 5.0]], model(features))
        model.checkpoint_children()["age/weights"].assign(np.array([[2.0, 3.0]], np.float32))
        # [2 * 23 + 10, 3 * 23 + 5] = [56, 74].
        # [2 * 31 + 10, 3 * 31 + 5] = [72, 98]
        self.assertAllClose([[56.0, 74.0], [72.0, 98.0]], model(features))


class DNNModelFnTest(ModelDirTest):
    def test_features_tensor_raises_value_error(self):
        """dnn_testing_utils.py::BaseDNNModelFnTest.test_features_tensor_raises_value_error"""
        hidden_units = (2, 2)
        logits_dimension = 3
        inputs = ([[10.0]], [[8.0]])
        est = self._dnn_regressor_fn(
            hidden_units=hidden_units,
            feature_columns=[fc.numeric_column("age", shape=np.array(inputs).shape[1:])],
            label_dimension=logits_dimension,
            optimizer=mock_optimizer(),
            model_dir=self._model_dir,
        )
        with self.assertRaisesRegex(ValueError, "features should be a dict"):
            est.train(input_fn=lambda: (np.array(inputs, np.float32), [[1]]), steps=1)


class DNNOnlyModelFnTest(DNNOnly, logits_tests.DNNLogitsTest):
    """dnn_linear_combined_test.py::DNNOnlyModelFnTest: TF's DNN model-function tests on a
    wide & deep regressor without its linear part."""


class DNNTrainSummaryTest(ModelDirTest):
    """The ``_assert_simple_summary`` checks of dnn_testing_utils.py's train tests: TF's
    ``_SummaryHook`` reads the merged summary every step; here the estimator writes its
    summaries every step (``save_summary_steps=1``) and TensorBoard's reader reads them."""

    def _train_and_assert_summaries(self, make, weights, features, labels, expected_loss, **kw):
        base_global_step = 100
        hidden_units = (2, 2)
        create_checkpoint(weights, base_global_step, self._model_dir)
        shape = np.shape(features)[1:]
        est = make(
            hidden_units=hidden_units,
            feature_columns=(fc.numeric_column("age", shape=shape),),
            optimizer=mock_optimizer(),
            model_dir=self._model_dir,
            config=cn.estimators.RunConfig(save_summary_steps=1),
            **kw,
        )
        num_steps = 5
        est.train(input_fn=lambda: ({"age": features}, labels), steps=num_steps)
        self.assertEqual(base_global_step + num_steps, est.get_variable_value(GLOBAL_STEP))
        expected = {
            HIDDEN_0_ZEROS: 0.0,
            HIDDEN_1_ZEROS: 0.5,
            LOGITS_ZEROS: 0.0,
            LOSS: expected_loss,
        }
        scalars = training_scalars(self._model_dir)
        for step in range(num_steps):
            self.assertAllClose(expected, {tag: scalars[tag][step] for tag in expected})

    def test_classifier_binary_classification(self):
        """dnn_testing_utils.py::BaseDNNClassifierTrainTest.test_binary_classification"""
        # logits = [-2.08] => probabilities = [0.889, 0.111]
        # loss = -1. * log(0.111) = 2.19772100
        self._train_and_assert_summaries(
            self._dnn_classifier_fn, ONE_DIM, [[10.0]], [[1]], 2.19772100
        )

    def test_classifier_multi_class(self):
        """dnn_testing_utils.py::BaseDNNClassifierTrainTest.test_multi_class"""
        weights = (*ONE_DIM[:2], ([[-1.0, 1.0, 0.5], [-1.0, 1.0, 0.5]], [0.3, -0.3, 0.0]))
        # logits = [-2.08, 2.08, 1.19] => probabilities = [0.0109, 0.7011, 0.2879]
        # loss = -1. * log(0.7011) = 0.35505795
        self._train_and_assert_summaries(
            self._dnn_classifier_fn, weights, [[10.0]], [[1]], 0.35505795, n_classes=3
        )

    def test_regressor_one_dim(self):
        """dnn_testing_utils.py::BaseDNNRegressorTrainTest.test_one_dim"""
        self._train_and_assert_summaries(self._dnn_regressor_fn, ONE_DIM, [[10.0]], [[1.0]], 9.4864)

    def test_regressor_multi_dim(self):
        """dnn_testing_utils.py::BaseDNNRegressorTrainTest.test_multi_dim"""
        self._train_and_assert_summaries(
            self._dnn_regressor_fn,
            MULTI_DIM,
            [[10.0, 8.0]],
            [[1.0, -1.0, 0.5]],
            1.4643,
            label_dimension=3,
        )

    def test_no_summaries_when_evaluating(self):
        """What TF's evaluation writes (``model_dir/eval``) holds the metrics, not the
        layers' summaries: they are recorded by training calls only."""
        create_checkpoint(ONE_DIM, 100, self._model_dir)
        est = self._dnn_regressor_fn(
            hidden_units=(2, 2),
            feature_columns=(fc.numeric_column("age"),),
            model_dir=self._model_dir,
        )
        est.evaluate(input_fn=lambda: ({"age": [[10.0]]}, [[1.0]]), steps=1)
        self.assertNotIn(HIDDEN_0_ZEROS, training_scalars(os.path.join(self._model_dir, "eval")))


class DNNOnlyTrainSummaryV2Test(DNNOnly, DNNTrainSummaryTest):
    """dnn_linear_combined_test.py::DNNOnly{Classifier,Regressor}TrainV2Test's summaries."""


class DNNLinearCombinedIntegrationTest(ModelDirTest):
    """dnn_linear_combined_test.py's ``DNNLinearCombinedRegressorIntegrationTest`` and
    ``DNNLinearCombinedClassifierIntegrationTest``: 10 steps of a wide & deep model whose
    two parts read the same column."""

    regressor = staticmethod(cn.estimators.DNNLinearCombinedRegressor)
    classifier = staticmethod(cn.estimators.DNNLinearCombinedClassifier)
    pandas_n_classes = 2  # TF's n_classes in the classifier's test_pandas_input_fn

    def _estimator(self, make, input_dimension, **kwargs):
        """TF's estimator under test, and the feature columns its export parses."""
        linear_feature_columns = [fc.numeric_column("x", shape=(input_dimension,))]
        dnn_feature_columns = [fc.numeric_column("x", shape=(input_dimension,))]
        est = make(
            linear_feature_columns=linear_feature_columns,
            dnn_hidden_units=(2, 2),
            dnn_feature_columns=dnn_feature_columns,
            model_dir=self._model_dir,
            **kwargs,
        )
        return est, linear_feature_columns + dnn_feature_columns

    def _regression_flow(self, input_fns, label_dimension, batch_size=10):
        est, columns = self._estimator(
            self.regressor, label_dimension, label_dimension=label_dimension
        )
        shape = (batch_size, label_dimension)
        assert_complete_flow(self, est, input_fns, columns, 10, "predictions", shape)

    def _classification_flow(self, input_fns, input_dimension, n_classes, batch_size=10):
        est, columns = self._estimator(self.classifier, input_dimension, n_classes=n_classes)
        shape = (batch_size, n_classes)
        assert_complete_flow(self, est, input_fns, columns, 10, "probabilities", shape)

    def _as_label(self, data_in_float):
        return np.rint(data_in_float).astype(np.int64)

    def _classification_data(self, n_classes, batch_size, input_dimension):
        data = np.linspace(0.0, n_classes - 1.0, batch_size * input_dimension, dtype=np.float32)
        return data.reshape(batch_size, input_dimension)

    def test_regressor_numpy_input_fn_basic(self):
        """dnn_linear_combined_test.py::DNNLinearCombinedRegressorIntegrationTest.test_numpy_input_fn_basic"""
        data = regression_data(batch_size=10, label_dimension=2)
        # learn y = x
        self._regression_flow(numpy_input_fns(data, data, 10), label_dimension=2)

    def test_regressor_pandas_input_fn_basic(self):
        """dnn_linear_combined_test.py::DNNLinearCombinedRegressorIntegrationTest.test_pandas_input_fn_basic"""
        data = np.linspace(0.0, 2.0, 10, dtype=np.float32)
        input_fns = pandas_input_fns(pd.DataFrame({"x": data}), pd.Series(data), 10)
        self._regression_flow(input_fns, label_dimension=1)

    def test_regressor_input_fn_from_parse_example_basic(self):
        """dnn_linear_combined_test.py::DNNLinearCombinedRegressorIntegrationTest.test_input_fn_from_parse_example_basic"""
        data = regression_data(batch_size=10, label_dimension=2)
        self._regression_flow(example_input_fns(data, data, "float32"), label_dimension=2)

    def test_classifier_numpy_input_fn(self):
        """dnn_linear_combined_test.py::DNNLinearCombinedClassifierIntegrationTest.test_numpy_input_fn"""
        x_data = self._classification_data(n_classes=3, batch_size=10, input_dimension=2)
        y_data = self._as_label(np.reshape(x_data.reshape(-1)[:10], (10, 1)))
        self._classification_flow(numpy_input_fns(x_data, y_data, 10), 2, n_classes=3)

    def test_classifier_pandas_input_fn(self):
        """dnn_linear_combined_test.py::DNNLinearCombinedClassifierIntegrationTest.test_pandas_input_fn"""
        n_classes = self.pandas_n_classes
        data = np.linspace(0.0, n_classes - 1.0, 10, dtype=np.float32)
        x, y = pd.DataFrame({"x": data}), pd.Series(self._as_label(data))
        self._classification_flow(pandas_input_fns(x, y, 10), 1, n_classes=n_classes)

    def test_classifier_input_fn_from_parse_example(self):
        """dnn_linear_combined_test.py::DNNLinearCombinedClassifierIntegrationTest.test_input_fn_from_parse_example"""
        data = self._classification_data(n_classes=3, batch_size=10, input_dimension=2)
        input_fns = example_input_fns(data, self._as_label(data[:, :1]), "int64")
        self._classification_flow(input_fns, 2, n_classes=3)


class DNNIntegrationTest(DNNLinearCombinedIntegrationTest):
    """dnn_test_fc_v2.py's ``DNNRegressorIntegrationTest`` and
    ``DNNClassifierIntegrationTest``: the same flows (and values, but 3 classes in the
    classifier's test_pandas_input_fn) on a DNN of hidden units (2, 2)."""

    regressor = staticmethod(cn.estimators.DNNRegressor)
    classifier = staticmethod(cn.estimators.DNNClassifier)
    pandas_n_classes = 3

    def _estimator(self, make, input_dimension, **kwargs):
        columns = [fc.numeric_column("x", shape=(input_dimension,))]
        est = make(
            hidden_units=(2, 2), feature_columns=columns, model_dir=self._model_dir, **kwargs
        )
        return est, columns


class DNNLinearCombinedWarmStartingTest(WarmStartingTest):
    FEATURES = {"age": [[23.0], [31.0]], "city": [["Palo Alto"], ["Mountain View"]]}

    def _columns(self):
        age = fc.numeric_column("age")
        city = fc.embedding_column(
            fc.categorical_column_with_vocabulary_list(
                "city", vocabulary_list=["Mountain View", "Palo Alto"]
            ),
            dimension=5,
        )
        return age, city

    def _first(self, make, **kwargs):
        """TF's first estimator: SGD for both parts, one step into the checkpoint dir."""
        age, city = self._columns()
        est = make(
            linear_feature_columns=[age],
            dnn_feature_columns=[city],
            dnn_hidden_units=[256, 128],
            model_dir=self._ckpt_and_vocab_dir,
            linear_optimizer="SGD",
            dnn_optimizer="SGD",
            **kwargs,
        )
        est.train(input_fn=self._input_fn, max_steps=1)
        return est

    def _second(self, make, warm_start_from, **kwargs):
        """TF's second estimator: zero-rate SGD for both parts, warm-started."""
        age, city = self._columns()
        est = make(
            linear_feature_columns=[age],
            dnn_feature_columns=[city],
            dnn_hidden_units=[256, 128],
            dnn_optimizer=zero_rate_sgd(),
            linear_optimizer=zero_rate_sgd(),
            warm_start_from=warm_start_from,
            **kwargs,
        )
        est.train(input_fn=self._input_fn, max_steps=1)
        return est

    def test_classifier_basic_warm_starting(self):
        """dnn_linear_combined_test.py::DNNLinearCombinedWarmStartingTest.test_classifier_basic_warm_starting"""
        make = cn.estimators.DNNLinearCombinedClassifier
        first = self._first(make, n_classes=4)
        self.assert_same_variables(first, self._second(make, first.model_dir, n_classes=4))

    def test_regressor_basic_warm_starting(self):
        """dnn_linear_combined_test.py::DNNLinearCombinedWarmStartingTest.test_regressor_basic_warm_starting"""
        make = cn.estimators.DNNLinearCombinedRegressor
        first = self._first(make)
        self.assert_same_variables(first, self._second(make, first.model_dir))

    def test_warm_starting_selective_variables(self):
        """dnn_linear_combined_test.py::DNNLinearCombinedWarmStartingTest.test_warm_starting_selective_variables"""
        make = cn.estimators.DNNLinearCombinedClassifier
        first = self._first(make, n_classes=4)
        warm_started = self._second(
            make,
            cn.estimators.WarmStartSettings(
                ckpt_to_initialize_from=first.model_dir,
                # The provided regular expression will only warm-start the deep
                # portion of the model.
                vars_to_warm_start=".*(dnn).*",
            ),
            n_classes=4,
        )
        for variable_name in warm_started.get_variable_names():
            value = warm_started.get_variable_value(variable_name)
            if "dnn" in variable_name:
                expected = (
                    0.0
                    if "learning_rate" in variable_name
                    else first.get_variable_value(variable_name)
                )
                self.assertAllClose(expected, value)
            elif "linear" in variable_name:
                # Since they're not warm-started, the linear weights will be
                # zero-initialized.
                self.assertAllClose(np.zeros_like(value), value)
