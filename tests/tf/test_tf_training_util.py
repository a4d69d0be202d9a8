# Copyright 2015 The TensorFlow Authors. All Rights Reserved.
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
"""TF's tensorflow/python/training/training_util_test.py (r2.15), ported: run on colonnade
by default and on TF 2.15 with ``COLONNADE_TF_BACKEND=tf`` (tests/tf/run_against_tf.sh).

TF's ``ops.Graph()`` is colonnade's :class:`cn.core.VariableStore` (one model's
variables): ``with Graph().as_default() as g`` and the ``graph`` argument of
``create_global_step(g)`` / ``get_global_step(g)`` / ``get_or_create_global_step(g)`` name
that store. TF's ``variables.Variable(..., name=GLOBAL_STEP)`` is ``get_variable`` in the
store, which ``get_global_step`` then finds (and checks) as TF finds it by name. A
colonnade Variable's ``name`` has no ``:0`` output index (docs/tf_differences.md, "a
Variable's `name`"): ``_assert_global_step`` compares TF's ``'%s:0' % GLOBAL_STEP`` (an
f-string here) less its index on colonnade; ``test_global_step_name_has_output_index``
pins the difference.

Inventory (every TF method):

- GlobalStepTest: ported: test_invalid_dtype, test_invalid_shape,
  test_create_global_step, test_get_global_step, test_get_or_create_global_step.
- GlobalStepReadTest (test_global_step_read_is_none_if_there_is_no_global_step,
  test_reads_from_cache, test_reads_before_increments): out of scope (graph/session-only):
  TF-internal ``_get_or_create_global_step_read`` caches a read tensor of the graph and
  ``_increment_global_step`` builds ops that a ``MonitoredTrainingSession`` runs; an eager
  Variable is read directly.
"""

import numpy as np
from tf_backend import ON_TF, colonnade_differs
from tf_test_case import TFTestCase

if ON_TF:
    import tensorflow as tf

    training_util = tf.compat.v1.train
    Graph = tf.Graph
    GLOBAL_STEP = tf.compat.v1.GraphKeys.GLOBAL_STEP
    int32, int64, float32 = tf.int32, tf.int64, tf.float32
    reset_default_graph = tf.compat.v1.reset_default_graph

    def make_variable(value, dtype, name):
        """TF's ``variables.VariableV1(value, trainable=False, dtype=, name=)``, a TF 1
        (reference) variable as in the graph mode TF's test was written for."""
        return tf.compat.v1.Variable(
            value, trainable=False, dtype=dtype, name=name, use_resource=False
        )

    def base_dtype(variable):
        return variable.dtype.base_dtype

    def shape_list(variable):
        return variable.get_shape().as_list()

    def tensor_name(tf_name):
        return tf_name
else:
    import colonnade as cn

    training_util = cn.train
    Graph = cn.core.VariableStore
    GLOBAL_STEP = cn.compat.v1.GraphKeys.GLOBAL_STEP
    int32, int64, float32 = np.int32, np.int64, np.float32
    reset_default_graph = cn.core.reset_default_graph

    def make_variable(value, dtype, name):
        """A non-trainable variable ``name`` of the current store."""
        return cn.compat.v1.get_variable(
            name, initializer=np.asarray(value, dtype=dtype), dtype=dtype, trainable=False
        )

    def base_dtype(variable):
        return np.dtype(variable.dtype)

    def shape_list(variable):
        return list(variable.shape)

    def tensor_name(tf_name):
        """TF's tensor name less its ``:0`` output index (a colonnade Variable's name)."""
        return tf_name.rsplit(":", 1)[0]


class GlobalStepTest(TFTestCase):
    def setUp(self):
        reset_default_graph()

    def _assert_global_step(self, global_step, expected_dtype=int64):
        self.assertEqual(tensor_name(f"{GLOBAL_STEP}:0"), global_step.name)
        self.assertEqual(expected_dtype, base_dtype(global_step))
        self.assertEqual([], shape_list(global_step))

    def test_invalid_dtype(self):
        with Graph().as_default() as g:
            self.assertIsNone(training_util.get_global_step())
            make_variable(0.0, dtype=float32, name=GLOBAL_STEP)
            self.assertRaisesRegex(
                TypeError, "does not have integer type", training_util.get_global_step
            )
        self.assertRaisesRegex(
            TypeError, "does not have integer type", training_util.get_global_step, g
        )

    def test_invalid_shape(self):
        with Graph().as_default() as g:
            self.assertIsNone(training_util.get_global_step())
            make_variable([0], dtype=int32, name=GLOBAL_STEP)
            self.assertRaisesRegex(TypeError, "not scalar", training_util.get_global_step)
        self.assertRaisesRegex(TypeError, "not scalar", training_util.get_global_step, g)

    def test_create_global_step(self):
        self.assertIsNone(training_util.get_global_step())
        with Graph().as_default() as g:
            global_step = training_util.create_global_step()
            self._assert_global_step(global_step)
            self.assertRaisesRegex(ValueError, "already exists", training_util.create_global_step)
            self.assertRaisesRegex(
                ValueError, "already exists", training_util.create_global_step, g
            )
            self._assert_global_step(training_util.create_global_step(Graph()))

    def test_get_global_step(self):
        with Graph().as_default() as g:
            self.assertIsNone(training_util.get_global_step())
            make_variable(0, dtype=int32, name=GLOBAL_STEP)
            self._assert_global_step(training_util.get_global_step(), expected_dtype=int32)
        self._assert_global_step(training_util.get_global_step(g), expected_dtype=int32)

    def test_get_or_create_global_step(self):
        with Graph().as_default() as g:
            self.assertIsNone(training_util.get_global_step())
            self._assert_global_step(training_util.get_or_create_global_step())
            self._assert_global_step(training_util.get_or_create_global_step(g))

    @colonnade_differs("a Variable's `name`")
    def test_global_step_name_has_output_index(self):
        """TF's ``_assert_global_step`` name check, verbatim."""
        with Graph().as_default():
            global_step = training_util.create_global_step()
            self.assertEqual(f"{GLOBAL_STEP}:0", global_step.name)
