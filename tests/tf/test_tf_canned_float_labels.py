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
"""TF's float (soft) label tests of binary classifiers, ported: tensorflow_estimator's
canned/linear_testing_utils.py (``_testFromCheckpointFloatLabels``) and
canned/dnn_testing_utils.py (``test_float_labels``, ``test_binary_classification_float_labels``).

TF restores a checkpoint whose weights give known logits and checks the loss; here the
same logits go through the canned classifiers' head, and a LinearClassifier trains on
soft labels end to end.
"""

import numpy as np
import pandas as pd
from tf_test_case import TFTestCase

import colonnade as cn
from colonnade.estimators.heads.classification import classification_head

EVAL, TRAIN = "eval", "train"


class FloatLabelsTest(TFTestCase):
    def test_linear_from_checkpoint_float_labels(self):
        """linear_testing_utils.py::BaseLinearClassifierTrainingTest._testFromCheckpointFloatLabels:
        logits = 17 * 2. - 35. = -1., label 0.8"""
        head = classification_head(2)
        age, age_weight, bias = 17, 2.0, -35.0
        logits = np.array([[age * age_weight + bias]], np.float32)
        loss = head.loss(np.array([[0.8]]), logits, features={}, mode=TRAIN)
        self.assertAllClose(1.1132617, loss, rtol=1e-6, atol=1e-6)

    def test_dnn_float_labels_eval(self):
        """dnn_testing_utils.py::BaseDNNClassifierEvaluateTest.test_float_labels:
        logits [[-2.08], [-2.08]], labels [[0.8], [0.4]]"""
        head = classification_head(2)
        logits = np.array([[-2.08], [-2.08]], np.float32)
        spec = head.create_estimator_spec({}, EVAL, logits, labels=[[0.8], [0.4]])
        self.assertAlmostEqual(1.365721, float(spec.loss), places=4)

    def test_dnn_binary_classification_float_labels(self):
        """dnn_testing_utils.py::BaseDNNClassifierTrainTest.test_binary_classification_float_labels:
        logits [-2.08], label 0.8"""
        head = classification_head(2)
        loss = head.loss(np.array([[0.8]]), np.array([[-2.08]], np.float32), features={})
        self.assertAlmostEqual(1.7817210, float(loss), places=4)

    def test_linear_classifier_trains_on_soft_labels(self):
        """linear_testing_utils.py::_testFromCheckpointFloatLabels (training accepts them)"""
        frame = pd.DataFrame({"age": [17.0, 30.0, 45.0, 60.0], "y": [0.8, 0.6, 0.3, 0.1]})
        est = cn.estimators.LinearClassifier([cn.feature_columns.numeric_column("age")])
        est.fit(frame, label="y", epochs=2, batch_size=2, verbose=0)
        self.assertTrue(np.isfinite(est.evaluate(frame, label="y", verbose=0)["loss"]))
