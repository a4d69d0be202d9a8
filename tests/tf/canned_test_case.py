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
"""What the ports of TF's canned-estimator tests share: a fresh ``model_dir`` per test,
TF's metric keys, and TF's ``mock_optimizer`` as a hook that checks each step's loss
while a zero learning rate keeps the checkpoint's weights, as the mock's no-op update did.
"""

import math
import shutil
import tempfile

import numpy as np
from tf_test_case import TFTestCase, save_variables_to_ckpt

import colonnade as cn

GLOBAL_STEP = "global_step"
LOSS, LOSS_MEAN = "loss", "average_loss"
PREDICTION_MEAN, LABEL_MEAN = "prediction/mean", "label/mean"
ACCURACY, PRECISION, RECALL = "accuracy", "precision", "recall"
ACCURACY_BASELINE, AUC, AUC_PR = "accuracy_baseline", "auc", "auc_precision_recall"
AGE_WEIGHT_NAME = "linear/linear_model/age/weights"
HEIGHT_WEIGHT_NAME = "linear/linear_model/height/weights"
BIAS_NAME = "linear/linear_model/bias_weights"
LANGUAGE_WEIGHT_NAME = "linear/linear_model/language/weights"
EXACT_AUC = "exact AUC, not TF's 200-threshold approximation (docs/tf_differences.md)"


def without_rmse(metrics):
    """The canned regressors' metrics less ``rmse``, which TF's do not report (a
    docs/tf_differences.md row)."""
    return {k: v for k, v in metrics.items() if k != "rmse"}


def sorted_key_dict(unsorted_dict):
    return {k: unsorted_dict[k] for k in sorted(unsorted_dict)}


def softmax_losses(logits, labels):
    """TF's expected multi-class losses: ``-log(softmax(logits_row)[label])`` per row."""
    logits_exp = np.exp(np.asarray(logits, np.float64))
    softmax = logits_exp / logits_exp.sum(axis=1, keepdims=True)
    return [-1 * math.log(softmax[row, label]) for row, label in enumerate(labels)]


def sigmoid(x):
    return 1 / (1 + np.exp(-1.0 * x))


class ModelDirTest(TFTestCase):
    """A ``TFTestCase`` with TF's ``setUp``/``tearDown`` of a temporary ``model_dir``, and
    the estimators under test (TF's ``linear_regressor_fn`` ... constructor arguments):
    the canned ones, or the wide & deep wrappers of dnn_linear_combined_test.py."""

    _linear_regressor_fn = staticmethod(cn.estimators.LinearRegressor)
    _linear_classifier_fn = staticmethod(cn.estimators.LinearClassifier)
    _dnn_regressor_fn = staticmethod(cn.estimators.DNNRegressor)
    _dnn_classifier_fn = staticmethod(cn.estimators.DNNClassifier)

    def setUp(self):
        self._model_dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self._model_dir, ignore_errors=True)

    def assert_checkpoint_shapes(self, expected_global_step, shapes_by_name):
        """TF's ``_assert_checkpoint``: the latest checkpoint's global step and the
        variables' shapes (``{name: shape}``)."""
        shapes = {name: shape for (name, shape) in cn.train.list_variables(self._model_dir)}
        self.assertEqual([], shapes[GLOBAL_STEP])
        self.assertEqual(expected_global_step, cn.train.load_variable(self._model_dir, GLOBAL_STEP))
        for name, shape in shapes_by_name.items():
            self.assertAllEqual(shape, shapes[name])


class MockOptimizerHook(cn.train.SessionRunHook):
    """TF's ``mock_optimizer(testcase, expected_loss)``: every step's loss is close to
    ``expected_loss`` (TF's ``assert_close``: relative difference below 1e-4); counts the
    steps as the mock's ``iterations``. Train with :func:`mock_optimizer` so the weights
    stay as the checkpoint wrote them."""

    def __init__(self, testcase, expected_loss=None):
        self.testcase, self.expected_loss, self.iterations = testcase, expected_loss, 0

    def before_run(self, run_context):
        return cn.train.SessionRunArgs("loss")

    def after_run(self, run_context, run_values):
        self.iterations += 1
        loss = run_values.results
        self.testcase.assertEqual(0, np.ndim(loss))
        if self.expected_loss is not None:
            rdiff = abs(self.expected_loss - loss) / abs(self.expected_loss)
            self.testcase.assertLess(rdiff, 1e-4, f"expected {self.expected_loss}, got {loss}")


def mock_optimizer():
    """An optimizer whose updates change nothing, as TF's mock optimizer's."""
    return cn.train.GradientDescentOptimizer(0.0)


HIDDEN_WEIGHTS_NAME_PATTERN = "dnn/hiddenlayer_%d/kernel"
HIDDEN_BIASES_NAME_PATTERN = "dnn/hiddenlayer_%d/bias"
LOGITS_WEIGHTS_NAME = "dnn/logits/kernel"
LOGITS_BIASES_NAME = "dnn/logits/bias"
BATCH_NORM_PARTS = ("beta", "gamma", "moving_mean", "moving_variance")

ONE_DIM = (
    ([[0.6, 0.5]], [0.1, -0.1]),
    ([[1.0, 0.8], [-0.8, -1.0]], [0.2, -0.2]),
    ([[-1.0], [1.0]], [0.3]),
)
MULTI_DIM = (
    ([[0.6, 0.5], [-0.6, -0.5]], [0.1, -0.1]),
    ([[1.0, 0.8], [-0.8, -1.0]], [0.2, -0.2]),
    ([[-1.0, 1.0, 0.5], [-1.0, 1.0, 0.5]], [0.3, -0.3, 0.0]),
)


def create_checkpoint(weights_and_biases, global_step, model_dir, batch_norm_vars=None):
    """TF's ``create_checkpoint``: the hidden layers' and logits' weights (and each hidden
    layer's batch normalization ``(beta, gamma, moving_mean, moving_variance)``) by TF's
    names."""
    weights, biases = zip(*weights_and_biases)
    model_weights = {}
    for i in range(0, len(weights) - 1):
        model_weights[HIDDEN_WEIGHTS_NAME_PATTERN % i] = weights[i]
        model_weights[HIDDEN_BIASES_NAME_PATTERN % i] = biases[i]
        if batch_norm_vars:
            for part, value in zip(BATCH_NORM_PARTS, batch_norm_vars[i]):
                model_weights[f"dnn/hiddenlayer_{i}/batchnorm_{i}/{part}"] = value
    model_weights[LOGITS_WEIGHTS_NAME] = weights[-1]
    model_weights[LOGITS_BIASES_NAME] = biases[-1]
    save_variables_to_ckpt(model_dir, {**model_weights, GLOBAL_STEP: global_step})


def classifier_weights(n_classes, binary_weight, scale, bias):
    """TF's weights: (1, 1) for two classes, ``scale * range(n_classes)`` otherwise."""
    age_weight = (
        [[binary_weight]]
        if n_classes == 2
        else np.reshape(scale * np.array(list(range(n_classes)), dtype=np.float32), (1, n_classes))
    )
    return age_weight, [bias] if n_classes == 2 else [bias] * n_classes


def training_scalars(model_dir) -> dict:
    """The training scalars TensorBoard reads from ``model_dir``: ``{tag: [value per
    written step]}``."""
    from tensorboard.backend.event_processing import event_accumulator

    acc = event_accumulator.EventAccumulator(model_dir)
    acc.Reload()
    return {tag: [e.value for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}
