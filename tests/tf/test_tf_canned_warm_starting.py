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
"""TF's warm-starting tests of the canned estimators, ported: tensorflow_estimator's
canned/linear_testing_utils.py (``BaseLinearWarmStartingTest``) and
canned/dnn_testing_utils.py (``BaseDNNWarmStartingTest``).

A first estimator trains one step into ``model_dir``; a second, warm-started from it and
trained with a zero learning rate, must hold the first's values where TF says it does.
Keras' legacy ``SGD(learning_rate=0.0)`` is ``cn.train.GradientDescentOptimizer(0.0)``.
"""

import functools
import os
import shutil
import tempfile

import numpy as np
from canned_test_case import AGE_WEIGHT_NAME, BIAS_NAME
from tf_test_case import TFTestCase

import colonnade as cn

fc = cn.feature_columns
OCCUPATION_WEIGHT_NAME = "linear/linear_model/occupation/weights"
OCCUPATION_EMBEDDING_NAME = (
    "dnn/input_from_feature_columns/input_layer/occupation_embedding/embedding_weights"
)
CITY_EMBEDDING_NAME = "dnn/input_from_feature_columns/input_layer/city_embedding/embedding_weights"


def zero_rate_sgd():
    """``tf.keras.optimizers.legacy.SGD(learning_rate=0.0)``."""
    return cn.train.GradientDescentOptimizer(0.0)


class WarmStartingTest(TFTestCase):
    FEATURES = {}

    def setUp(self):
        """TF's: a directory for the checkpoints and vocabularies, and a dummy input_fn
        of the class's ``FEATURES`` with labels ``[0, 1]``."""
        self._ckpt_and_vocab_dir = tempfile.mkdtemp()
        self._input_fn = lambda: (self.FEATURES, [0, 1])

    def tearDown(self):
        shutil.rmtree(self._ckpt_and_vocab_dir, ignore_errors=True)

    def assertAllNotClose(self, t1, t2):  # noqa: N802
        """TF's helper: the arrays differ somewhere."""
        self.assertGreater(np.sum(np.abs(np.asarray(t2) - np.asarray(t1))), 0)

    def assert_same_variables(self, first, warm_started):
        for variable_name in warm_started.get_variable_names():
            if "learning_rate" in variable_name:
                self.assertAllClose(0.0, warm_started.get_variable_value(variable_name))
            else:
                self.assertAllClose(
                    first.get_variable_value(variable_name),
                    warm_started.get_variable_value(variable_name),
                )

    def trained(self, make, **kwargs):
        """``make(**kwargs)`` trained one step (TF's ``train(input_fn, max_steps=1)``)."""
        estimator = make(**kwargs)
        estimator.train(input_fn=self._input_fn, max_steps=1)
        return estimator

    def warm_started(self, make, warm_start_from, **kwargs):
        """The second estimator: ``make(**kwargs)`` warm-started from ``warm_start_from``
        with TF's ``SGD(learning_rate=0.0)``, trained one step."""
        return self.trained(
            make, optimizer=zero_rate_sgd(), warm_start_from=warm_start_from, **kwargs
        )

    def trained_classifier(self, columns):
        """TF's first classifier: 4 classes, ``optimizer='SGD'``, one step into the
        checkpoint directory."""
        return self.trained(
            self.make_classifier,
            feature_columns=columns,
            model_dir=self._ckpt_and_vocab_dir,
            n_classes=4,
            optimizer="SGD",
        )

    def warm_started_classifier(self, columns, warm_start_from):
        """TF's second classifier, warm-started from ``warm_start_from``."""
        return self.warm_started(
            self.make_classifier, warm_start_from, feature_columns=columns, n_classes=4
        )

    def write_vocab(self, name, words):
        path = os.path.join(self._ckpt_and_vocab_dir, name)
        with open(path, "w") as f:
            f.write("\n".join(words))
        return path

    def occupation_vocab_info(self):
        """TF's ``occupation`` column over the vocabulary file ``doctor, lawyer,
        consultant``, and the ``VocabInfo`` remapping it to ``doctor, consultant,
        engineer`` (new rows from ``random_uniform(0.39, 0.39)``)."""
        vocab_list = ["doctor", "lawyer", "consultant"]
        vocab_file = self.write_vocab("occupation_vocab", vocab_list)
        occupation = fc.categorical_column_with_vocabulary_file(
            "occupation", vocabulary_file=vocab_file, vocabulary_size=len(vocab_list)
        )
        new_vocab_list = ["doctor", "consultant", "engineer"]
        new_vocab_file = self.write_vocab("new_occupation_vocab", new_vocab_list)
        new_occupation = fc.categorical_column_with_vocabulary_file(
            "occupation", vocabulary_file=new_vocab_file, vocabulary_size=len(new_vocab_list)
        )
        occupation_vocab_info = cn.estimators.VocabInfo(
            new_vocab=new_occupation.vocabulary_file,
            new_vocab_size=new_occupation.vocabulary_size,
            num_oov_buckets=new_occupation.num_oov_buckets,
            old_vocab=occupation.vocabulary_file,
            old_vocab_size=occupation.vocabulary_size,
            # Can't use constant_initializer with load_and_remap.
            backup_initializer=cn.core.initializers.random_uniform(minval=0.39, maxval=0.39),
        )
        return occupation, occupation_vocab_info


class LinearWarmStartingTest(WarmStartingTest):
    make_classifier = staticmethod(cn.estimators.LinearClassifier)
    FEATURES = {
        "age": [[23.0], [31.0]],
        "age_in_years": [[23.0], [31.0]],
        "occupation": [["doctor"], ["consultant"]],
    }

    def test_classifier_basic_warm_starting(self):
        """linear_testing_utils.py::BaseLinearWarmStartingTest.test_classifier_basic_warm_starting"""
        age = fc.numeric_column("age")
        linear_classifier = self.trained_classifier([age])
        warm_started_linear_classifier = self.warm_started_classifier(
            [age],
            linear_classifier.model_dir,
        )
        self.assert_same_variables(linear_classifier, warm_started_linear_classifier)

    def test_regressor_basic_warm_starting(self):
        """linear_testing_utils.py::BaseLinearWarmStartingTest.test_regressor_basic_warm_starting"""
        age = fc.numeric_column("age")
        linear_regressor = self.trained(
            cn.estimators.LinearRegressor,
            feature_columns=[age],
            model_dir=self._ckpt_and_vocab_dir,
            optimizer="SGD",
        )
        warm_started_linear_regressor = self.warm_started(
            cn.estimators.LinearRegressor,
            feature_columns=[age],
            warm_start_from=linear_regressor.model_dir,
        )
        self.assert_same_variables(linear_regressor, warm_started_linear_regressor)

    def test_warm_starting_selective_variables(self):
        """linear_testing_utils.py::BaseLinearWarmStartingTest.test_warm_starting_selective_variables"""
        age = fc.numeric_column("age")
        linear_classifier = self.trained_classifier([age])
        warm_started_linear_classifier = self.warm_started_classifier(
            # Only the age variable is warm-started, not the bias.
            [age],
            cn.estimators.WarmStartSettings(
                ckpt_to_initialize_from=linear_classifier.model_dir, vars_to_warm_start=".*(age).*"
            ),
        )
        self.assertAllClose(
            linear_classifier.get_variable_value(AGE_WEIGHT_NAME),
            warm_started_linear_classifier.get_variable_value(AGE_WEIGHT_NAME),
        )
        # Bias should still be zero from initialization.
        self.assertAllClose([0.0] * 4, warm_started_linear_classifier.get_variable_value(BIAS_NAME))

    def test_warm_starting_with_vocab_remapping_and_partitioning(self):
        """linear_testing_utils.py::BaseLinearWarmStartingTest.test_warm_starting_with_vocab_remapping_and_partitioning"""
        occupation, occupation_vocab_info = self.occupation_vocab_info()
        linear_classifier = self.trained_classifier([occupation])
        warm_started_linear_classifier = self.warm_started_classifier(
            [occupation],
            cn.estimators.WarmStartSettings(
                ckpt_to_initialize_from=linear_classifier.model_dir,
                var_name_to_vocab_info={OCCUPATION_WEIGHT_NAME: occupation_vocab_info},
                vars_to_warm_start=None,
            ),
        )
        old = linear_classifier.get_variable_value(OCCUPATION_WEIGHT_NAME)
        new = warm_started_linear_classifier.get_variable_value(OCCUPATION_WEIGHT_NAME)
        # 'doctor' was ID-0 and still ID-0.
        self.assertAllClose(old[0, :], new[0, :])
        # 'consultant' was ID-2 and now ID-1.
        self.assertAllClose(old[2, :], new[1, :])
        # 'engineer' is a new entry: the backup_initializer in VocabInfo.
        self.assertAllClose([0.39] * 4, new[2, :])
        # Bias should still be zero (from initialization logic).
        self.assertAllClose([0.0] * 4, warm_started_linear_classifier.get_variable_value(BIAS_NAME))

    def test_warm_starting_with_naming_change(self):
        """linear_testing_utils.py::BaseLinearWarmStartingTest.test_warm_starting_with_naming_change"""
        linear_classifier = self.trained_classifier([fc.numeric_column("age_in_years")])
        warm_started_linear_classifier = self.warm_started_classifier(
            [fc.numeric_column("age")],
            cn.estimators.WarmStartSettings(
                ckpt_to_initialize_from=linear_classifier.model_dir,
                var_name_to_prev_var_name={
                    AGE_WEIGHT_NAME: AGE_WEIGHT_NAME.replace("age", "age_in_years")
                },
            ),
        )
        self.assertAllClose(
            linear_classifier.get_variable_value(AGE_WEIGHT_NAME.replace("age", "age_in_years")),
            warm_started_linear_classifier.get_variable_value(AGE_WEIGHT_NAME),
        )
        # The bias is also warm-started (with no name remapping).
        self.assertAllClose(
            linear_classifier.get_variable_value(BIAS_NAME),
            warm_started_linear_classifier.get_variable_value(BIAS_NAME),
        )


def city_column(key="city"):
    return fc.embedding_column(
        fc.categorical_column_with_vocabulary_list(
            key, vocabulary_list=["Mountain View", "Palo Alto"]
        ),
        dimension=5,
    )


class DNNWarmStartingTest(WarmStartingTest):
    make_classifier = staticmethod(
        functools.partial(cn.estimators.DNNClassifier, hidden_units=[256, 128])
    )
    FEATURES = {
        "city": [["Palo Alto"], ["Mountain View"]],
        "locality": [["Palo Alto"], ["Mountain View"]],
        "occupation": [["doctor"], ["consultant"]],
    }

    def assert_fresh_dense_layers(self, first, warm_started):
        """Hidden biases zero-initialized; kernels (glorot uniform) not the old ones."""
        for variable_name in warm_started.get_variable_names():
            if "bias" in variable_name:
                bias_values = warm_started.get_variable_value(variable_name)
                self.assertAllClose(np.zeros_like(bias_values), bias_values)
            elif "kernel" in variable_name:
                self.assertAllNotClose(
                    first.get_variable_value(variable_name),
                    warm_started.get_variable_value(variable_name),
                )

    def test_classifier_basic_warm_starting(self):
        """dnn_testing_utils.py::BaseDNNWarmStartingTest.test_classifier_basic_warm_starting"""
        dnn_classifier = self.trained_classifier([city_column()])
        warm_started = self.warm_started_classifier([city_column()], dnn_classifier.model_dir)
        self.assert_same_variables(dnn_classifier, warm_started)

    def test_regressor_basic_warm_starting(self):
        """dnn_testing_utils.py::BaseDNNWarmStartingTest.test_regressor_basic_warm_starting"""
        dnn_regressor = self.trained(
            cn.estimators.DNNRegressor,
            hidden_units=[256, 128],
            feature_columns=[city_column()],
            model_dir=self._ckpt_and_vocab_dir,
            optimizer="SGD",
        )
        warm_started_dnn_regressor = self.warm_started(
            cn.estimators.DNNRegressor,
            hidden_units=[256, 128],
            feature_columns=[city_column()],
            warm_start_from=dnn_regressor.model_dir,
        )
        self.assert_same_variables(dnn_regressor, warm_started_dnn_regressor)

    def test_warm_starting_selective_variables(self):
        """dnn_testing_utils.py::BaseDNNWarmStartingTest.test_warm_starting_selective_variables"""
        dnn_classifier = self.trained_classifier([city_column()])
        warm_started = self.warm_started_classifier(
            [city_column()],
            cn.estimators.WarmStartSettings(
                ckpt_to_initialize_from=dnn_classifier.model_dir, vars_to_warm_start=".*(city).*"
            ),
        )
        for variable_name in warm_started.get_variable_names():
            if "city" in variable_name:
                self.assertAllClose(
                    dnn_classifier.get_variable_value(variable_name),
                    warm_started.get_variable_value(variable_name),
                )
        self.assert_fresh_dense_layers(dnn_classifier, warm_started)

    def test_warm_starting_with_vocab_remapping(self):
        """dnn_testing_utils.py::BaseDNNWarmStartingTest.test_warm_starting_with_vocab_remapping"""
        occupation, occupation_vocab_info = self.occupation_vocab_info()
        occupation = fc.embedding_column(occupation, dimension=2)
        dnn_classifier = self.trained_classifier([occupation])
        warm_started = self.warm_started_classifier(
            [occupation],
            cn.estimators.WarmStartSettings(
                ckpt_to_initialize_from=dnn_classifier.model_dir,
                var_name_to_vocab_info={OCCUPATION_EMBEDDING_NAME: occupation_vocab_info},
                vars_to_warm_start=None,
            ),
        )
        old = dnn_classifier.get_variable_value(OCCUPATION_EMBEDDING_NAME)
        new = warm_started.get_variable_value(OCCUPATION_EMBEDDING_NAME)
        self.assertAllClose(old[0, :], new[0, :])  # 'doctor' was ID-0 and still ID-0.
        self.assertAllClose(old[2, :], new[1, :])  # 'consultant' was ID-2 and now ID-1.
        self.assertAllClose([0.39] * 2, new[2, :])  # 'engineer': the backup_initializer.
        self.assert_fresh_dense_layers(dnn_classifier, warm_started)

    def test_warm_starting_with_naming_change(self):
        """dnn_testing_utils.py::BaseDNNWarmStartingTest.test_warm_starting_with_naming_change"""
        dnn_classifier = self.trained_classifier([city_column("locality")])
        warm_started = self.warm_started_classifier(
            [city_column()],
            cn.estimators.WarmStartSettings(
                ckpt_to_initialize_from=dnn_classifier.model_dir,
                var_name_to_prev_var_name={
                    CITY_EMBEDDING_NAME: CITY_EMBEDDING_NAME.replace("city", "locality")
                },
            ),
        )
        for variable_name in warm_started.get_variable_names():
            if "city" in variable_name:
                self.assertAllClose(
                    dnn_classifier.get_variable_value(
                        CITY_EMBEDDING_NAME.replace("city", "locality")
                    ),
                    warm_started.get_variable_value(CITY_EMBEDDING_NAME),
                )
            elif "learning_rate" in variable_name:
                self.assertAllClose(0.0, warm_started.get_variable_value(variable_name))
            else:
                self.assertAllClose(
                    dnn_classifier.get_variable_value(variable_name),
                    warm_started.get_variable_value(variable_name),
                )
