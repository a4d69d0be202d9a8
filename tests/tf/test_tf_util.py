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
"""TF's tensorflow_estimator/python/estimator/util_test.py (r2.15), ported: run on
colonnade by default and on TF 2.15 with ``COLONNADE_TF_BACKEND=tf``
(tests/tf/run_against_tf.sh).

TF's ``util.parse_input_fn_result(_input_fn())`` is internal to its Estimator: it is what
``train`` does with what an ``input_fn`` returns. The translated scenario is that:
``_parse_input_fn_result`` trains one step on ``_input_fn`` with a ``model_fn`` that
records the ``features`` and ``labels`` it is given (on TF through a ``py_func`` the
``train_op`` runs, as TF's ``sess.run([features, labels])``), and TF's expected values
are compared with those. TF's ``hooks`` (``[]``, or its ``_DatasetInitializerHook`` that
initializes a graph iterator) are TF's graph machinery: an eager Dataset needs no
initializer, and the estimator's hooks are not returned, so those assertions are left
out. A Dataset given without ``.batch()`` yields its record batches on colonnade, one
element per step on TF (docs/tf_differences.md, "an `input_fn`'s Dataset without
`.batch()`"): the two Dataset cases are strict xfails naming it, and
``test_parse_input_fn_result_batched_dataset`` checks the same arrays batched.

Inventory (every TF method):

- UtilTest: ported: test_parse_input_fn_result_tuple, test_parse_input_fn_result_dataset,
  test_parse_input_fn_result_features_only, test_parse_input_fn_result_features_only_dataset,
  test_parse_input_fn_result_invalid.
"""

import tempfile

import numpy as np
from estimator_backend import Estimator, EstimatorSpec, get_global_step, tensor
from tf_backend import ON_TF, colonnade_differs
from tf_test_case import TFTestCase

if ON_TF:
    import tensorflow as tf

    Dataset = tf.data.Dataset

    def recording_train_op(record, features, labels):
        """A ``train_op`` that advances the step once ``record`` has the values."""
        tensors = [features] if labels is None else [features, labels]

        def _record(*values):
            record.append(values if labels is not None else (values[0], None))
            return np.int64(0)

        recorded = tf.compat.v1.py_func(_record, tensors, tf.int64)
        with tf.control_dependencies([recorded]):
            return tf.compat.v1.assign_add(get_global_step(), 1)
else:
    import colonnade as cn

    Dataset = cn.data.Dataset

    def recording_train_op(record, features, labels):
        """Eagerly, the values are there: ``record`` them; the step advances."""
        record.append((np.asarray(features), None if labels is None else np.asarray(labels)))
        return get_global_step().assign_add(1)


def _parse_input_fn_result(input_fn):
    """``(features, labels)`` as a ``model_fn`` gets them from ``input_fn`` in ``train``."""
    record = []

    def model_fn(features, labels, mode):
        return EstimatorSpec(
            mode, loss=tensor(0.0), train_op=recording_train_op(record, features, labels)
        )

    Estimator(model_fn, model_dir=tempfile.mkdtemp()).train(input_fn, steps=1)
    return record[-1]


class UtilTest(TFTestCase):
    """Tests for miscellaneous Estimator utils."""

    def test_parse_input_fn_result_tuple(self):
        def _input_fn():
            features = tensor(np.arange(100))
            labels = tensor(np.arange(100, 200))
            return features, labels

        vals = _parse_input_fn_result(_input_fn)

        self.assertAllEqual(vals[0], np.arange(100))
        self.assertAllEqual(vals[1], np.arange(100, 200))

    @colonnade_differs("an `input_fn`'s Dataset without `.batch()`")
    def test_parse_input_fn_result_dataset(self):
        def _input_fn():
            features = np.expand_dims(np.arange(100), 0)
            labels = np.expand_dims(np.arange(100, 200), 0)
            return Dataset.from_tensor_slices((features, labels))

        vals = _parse_input_fn_result(_input_fn)

        self.assertAllEqual(vals[0], np.arange(100))
        self.assertAllEqual(vals[1], np.arange(100, 200))

    def test_parse_input_fn_result_features_only(self):
        def _input_fn():
            return tensor(np.arange(100))

        features, labels = _parse_input_fn_result(_input_fn)

        self.assertAllEqual(features, np.arange(100))
        self.assertEqual(labels, None)

    @colonnade_differs("an `input_fn`'s Dataset without `.batch()`")
    def test_parse_input_fn_result_features_only_dataset(self):
        def _input_fn():
            features = np.expand_dims(np.arange(100), 0)
            return Dataset.from_tensor_slices(features)

        features, labels = _parse_input_fn_result(_input_fn)

        self.assertAllEqual(features, np.arange(100))
        self.assertEqual(labels, None)

    def test_parse_input_fn_result_invalid(self):
        def _input_fn():
            features = np.expand_dims(np.arange(100), 0)
            labels = np.expand_dims(np.arange(100, 200), 0)
            return Dataset.from_tensor_slices((features, labels, labels))

        with self.assertRaisesRegex(ValueError, "input_fn should return"):
            _parse_input_fn_result(_input_fn)

    def test_parse_input_fn_result_batched_dataset(self):
        """TF's two Dataset cases batched, as a ``model_fn`` gets them on both: the tensor
        (not a dict) as ``features``, ``(1, 100)`` with its batch dimension."""

        def _input_fn(with_labels):
            features = np.expand_dims(np.arange(100), 0)
            labels = np.expand_dims(np.arange(100, 200), 0)
            data = (features, labels) if with_labels else features
            return Dataset.from_tensor_slices(data).batch(1)

        features, labels = _parse_input_fn_result(lambda: _input_fn(True))
        self.assertAllEqual(features, [np.arange(100)])
        self.assertAllEqual(labels, [np.arange(100, 200)])
        features, labels = _parse_input_fn_result(lambda: _input_fn(False))
        self.assertAllEqual(features, [np.arange(100)])
        self.assertEqual(labels, None)
