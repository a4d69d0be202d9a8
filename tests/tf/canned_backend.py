# Copyright 2017 The TensorFlow Authors. All Rights Reserved.
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
"""The canned-estimator names of the ported Baseline tests, from colonnade by default and
from TensorFlow 2.15 (``tf.estimator``'s V2 classes, as TF's own tests use them) with
``COLONNADE_TF_BACKEND=tf`` (see :mod:`tf_backend`).

What TF's tests do with graphs becomes one function per side: ``save_variables_to_ckpt``
(TF: variables in a graph saved by a ``Saver``; colonnade: a tensor bundle of TF's
format), ``MockOptimizer`` (TF: the test's ``mock_optimizer_v2``, a Keras optimizer whose
update asserts the loss and advances ``iterations``, TF's global step; colonnade: a hook
that checks each step's loss and an optimizer whose updates change nothing) and
``parsed_input_fns`` (TF's ``parse_example`` through a queue: TF's own input functions;
colonnade the parsed Arrow table, repeated for training, once for evaluation and
prediction).
"""

from __future__ import annotations

import math
import os

import numpy as np
from tf_backend import ON_TF

GLOBAL_STEP = "global_step"
LOSS, LOSS_MEAN = "loss", "average_loss"
PREDICTION_MEAN, LABEL_MEAN = "prediction/mean", "label/mean"
ACCURACY, PRECISION, RECALL = "accuracy", "precision", "recall"
ACCURACY_BASELINE, AUC, AUC_PR = "accuracy_baseline", "auc", "auc_precision_recall"

if ON_TF:
    import tensorflow as tf

    BaselineClassifier = tf.estimator.BaselineClassifier
    BaselineRegressor = tf.estimator.BaselineRegressor
    BaselineEstimator = tf.estimator.BaselineEstimator
    RegressionHead = tf.estimator.RegressionHead
    SUM_OVER_BATCH_SIZE = tf.losses.Reduction.SUM_OVER_BATCH_SIZE
    numpy_input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn
    pandas_input_fn = tf.compat.v1.estimator.inputs.pandas_input_fn
    numeric_column = tf.feature_column.numeric_column
    make_parse_example_spec = tf.feature_column.make_parse_example_spec
    build_parsing_serving_input_receiver_fn = (
        tf.estimator.export.build_parsing_serving_input_receiver_fn
    )
    FixedLenFeature = tf.io.FixedLenFeature
    float32, int64 = tf.float32, tf.int64
    list_variables, load_variable = tf.train.list_variables, tf.train.load_variable
    exists = tf.compat.v1.gfile.Exists

    def save_variables_to_ckpt(model_dir, variables):
        """TF's ``tf.Variable(value, name=...)`` of each and ``save_variables_to_ckpt``."""
        with tf.Graph().as_default():
            for name, value in variables.items():
                dtype = tf.dtypes.int64 if name == GLOBAL_STEP else tf.dtypes.float32
                tf.Variable(value, name=name, dtype=dtype)
            with tf.compat.v1.Session() as sess:
                sess.run([tf.compat.v1.initializers.global_variables()])
                tf.compat.v1.train.Saver().save(sess, os.path.join(model_dir, "model.ckpt"))

    def example_bytes(features):
        """A serialized ``tf.train.Example``: FloatList for floats, Int64List for ints."""
        feature = {}
        for key, values in features.items():
            values = np.asarray(values).ravel()
            if values.dtype.kind == "f":
                feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
            else:
                feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()

    def queue_parsed_features(feature_map):
        """TF's ``queue_parsed_features``: the parsed tensors through a FIFO queue."""
        keys = list(feature_map)
        tensors_to_enqueue = [feature_map[key] for key in keys]
        input_queue = tf.queue.FIFOQueue(capacity=100, dtypes=[x.dtype for x in tensors_to_enqueue])
        tf.compat.v1.train.queue_runner.add_queue_runner(
            tf.compat.v1.train.queue_runner.QueueRunner(
                input_queue, [input_queue.enqueue(tensors_to_enqueue)]
            )
        )
        dequeued_tensors = input_queue.dequeue()
        return {keys[i]: dequeued_tensors[i] for i in range(len(dequeued_tensors))}

    def parsed_input_fns(serialized_examples, feature_spec):
        """TF's ``_train_input_fn``, ``_eval_input_fn`` and ``_predict_input_fn``:
        ``parse_example`` through a queue, endless for training, one epoch
        (``limit_epochs``) for evaluation and prediction."""

        def _train_input_fn():
            feature_map = tf.compat.v1.io.parse_example(serialized_examples, feature_spec)
            features = queue_parsed_features(feature_map)
            labels = features.pop("y")
            return features, labels

        def _eval_input_fn():
            feature_map = tf.compat.v1.io.parse_example(
                tf.compat.v1.train.limit_epochs(serialized_examples, num_epochs=1), feature_spec
            )
            features = queue_parsed_features(feature_map)
            labels = features.pop("y")
            return features, labels

        def _predict_input_fn():
            feature_map = tf.compat.v1.io.parse_example(
                tf.compat.v1.train.limit_epochs(serialized_examples, num_epochs=1), feature_spec
            )
            features = queue_parsed_features(feature_map)
            features.pop("y")
            return features, None

        return _train_input_fn, _eval_input_fn, _predict_input_fn

    class MockOptimizer:
        """TF's ``mock_optimizer_v2(testcase, expected_loss)``."""

        def __init__(self, testcase, expected_loss=None, var_names=("baseline/bias",)):
            expected_var_names = [f"{name}:0" for name in var_names]

            def assert_close(expected, actual, rtol=1e-04):
                rdiff = tf.math.abs(expected - actual, "diff") / tf.math.abs(expected)
                return tf.compat.v1.debugging.assert_less(
                    rdiff, rtol, data=("expected = ", expected, "actual = ", actual)
                )

            class _Optimizer(tf.keras.optimizers.legacy.Optimizer):
                def get_updates(self, loss, params):
                    testcase.assertCountEqual(expected_var_names, [var.name for var in params])
                    testcase.assertEqual(0, loss.shape.ndims)
                    if expected_loss is None:
                        return [self.iterations.assign_add(1).op]
                    expected = tf.cast(expected_loss, name="expected", dtype=tf.dtypes.float32)
                    with tf.control_dependencies((assert_close(expected, loss),)):
                        return [self.iterations.assign_add(1).op]

                def get_config(self):
                    return super().get_config()

            self.optimizer = _Optimizer(name="my_optimizer")
            self.hooks = []

        def iterations(self, estimator):
            """The optimizer's ``iterations`` after training (TF's global step)."""
            return estimator.get_variable_value(self.optimizer.iterations.name)

    def without_rmse(metrics):
        return metrics

else:
    from canned_test_case import MockOptimizerHook
    from tf_test_case import example_bytes, save_variables_to_ckpt  # noqa: F401

    import colonnade as cn

    BaselineClassifier = cn.estimators.BaselineClassifier
    BaselineRegressor = cn.estimators.BaselineRegressor
    BaselineEstimator = cn.estimators.BaselineEstimator
    RegressionHead = cn.estimators.RegressionHead
    SUM_OVER_BATCH_SIZE = cn.core.Reduction.SUM_OVER_BATCH_SIZE
    numpy_input_fn = cn.estimators.inputs.numpy_input_fn
    pandas_input_fn = cn.estimators.inputs.pandas_input_fn
    numeric_column = cn.feature_columns.numeric_column
    make_parse_example_spec = cn.feature_columns.make_parse_example_spec
    build_parsing_serving_input_receiver_fn = cn.estimators.build_parsing_serving_input_receiver_fn
    FixedLenFeature = cn.io.FixedLenFeature
    float32, int64 = "float32", "int64"
    list_variables, load_variable = cn.train.list_variables, cn.train.load_variable
    exists = os.path.exists

    def parsed_input_fns(serialized_examples, feature_spec):
        """TF's train / eval / predict input functions over ``parse_example``: the whole
        parse as one batch, endless for training, once for evaluation and prediction."""

        def parsed():
            feature_map = cn.io.parse_example(serialized_examples, feature_spec)
            return feature_map.drop_columns(["y"]), feature_map.column("y")

        def train_input_fn():
            features, labels = parsed()
            while True:
                yield features, labels

        return train_input_fn, lambda: [parsed()], lambda: [parsed()[0]]

    class MockOptimizer:
        """TF's ``mock_optimizer_v2(testcase, expected_loss)``: a hook checks each step's
        loss (TF's assert op, relative tolerance 1e-4) and an optimizer at learning rate 0
        keeps the variables as the mock's update did; ``iterations`` is the global step,
        which TF's canned V2 estimators make the optimizer's ``iterations``."""

        def __init__(self, testcase, expected_loss=None, var_names=("baseline/bias",)):
            self.testcase, self.var_names = testcase, list(var_names)
            self.hook = MockOptimizerHook(testcase, expected_loss)
            self.optimizer = cn.train.GradientDescentOptimizer(0.0)
            self.hooks = [self.hook]

        def iterations(self, estimator):
            self.testcase.assertLessEqual(set(self.var_names), set(estimator.get_variable_names()))
            self.testcase.assertGreater(self.hook.iterations, 0)
            return estimator.get_variable_value(GLOBAL_STEP)

    def without_rmse(metrics):
        """The canned regressors' metrics less ``rmse``, which TF's do not report (a
        docs/tf_differences.md row)."""
        return {k: v for k, v in metrics.items() if k != "rmse"}


def sorted_key_dict(unsorted_dict):
    return {k: unsorted_dict[k] for k in sorted(unsorted_dict)}


def sigmoid(x):
    return 1 / (1 + np.exp(-1.0 * x))


def softmax_loss(logits, label):
    """``-log(softmax(logits)[label])``, TF's expected multi-class loss of one row."""
    logits_exp = np.exp(logits)
    softmax = logits_exp / logits_exp.sum()
    return -1 * math.log(softmax[label])
