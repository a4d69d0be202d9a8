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
"""Port of tensorflow/python/training/adam_test.py (graph mode -> eager).

TF's ``opt._get_beta_accumulators()`` is ``non_slot_variables()["beta1_power"/"beta2_power"]``.
"""

import numpy as np
import pytest
from tf_port import (
    ALL_FLOATS,
    assert_all_close_according_to_type,
    check_sparse_repeated_indices,
    const,
    indexed_slices,
    var,
)

import colonnade as cn
from colonnade.core import Variable

Adam = cn.train.AdamOptimizer


def adam_update_numpy(param, g_t, t, m, v, alpha=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8):
    alpha_t = alpha * np.sqrt(1 - beta2**t) / (1 - beta1**t)
    m_t = beta1 * m + (1 - beta1) * g_t
    v_t = beta2 * v + (1 - beta2) * g_t * g_t
    param_t = param - alpha_t * m_t / (np.sqrt(v_t) + epsilon)
    return param_t, m_t, v_t


def _beta_accumulators(opt):
    non_slot = opt.non_slot_variables()
    return non_slot["beta1_power"], non_slot["beta2_power"]


def _three_steps(dtype, make_grads, opt, powers_before=True):
    """TF's loop: check the beta powers, run one update, compare with numpy."""
    m0, v0, m1, v1 = 0.0, 0.0, 0.0, 0.0
    var0_np, grads0_np = np.array([1.0, 2.0], dtype), np.array([0.1, 0.1], dtype)
    var1_np, grads1_np = np.array([3.0, 4.0], dtype), np.array([0.01, 0.01], dtype)
    var0, var1 = var(var0_np, dtype, name="var0"), var(var1_np, dtype, name="var1")
    grads0, grads1 = make_grads(grads0_np), make_grads(grads1_np)
    opt.create_slots([var0, var1])
    beta1_power, beta2_power = _beta_accumulators(opt)
    for t in range(1, 4):
        assert_all_close_according_to_type(0.9**t, beta1_power)
        assert_all_close_according_to_type(0.999**t, beta2_power)
        opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
        var0_np, m0, v0 = adam_update_numpy(var0_np, grads0_np, t, m0, v0)
        var1_np, m1, v1 = adam_update_numpy(var1_np, grads1_np, t, m1, v1)
        assert_all_close_according_to_type(var0_np, var0)
        assert_all_close_according_to_type(var1_np, var1)
    return opt, var0


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_sparse(dtype):
    """adam_test.py AdamOptimizerTest.testSparse (and testResourceSparse)"""
    _three_steps(dtype, lambda g: indexed_slices(g, np.array([0, 1], np.int32), [2]), Adam())


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_sparse_device_placement(index_dtype):
    """adam_test.py AdamOptimizerTest.testSparseDevicePlacement"""
    v = var([[1.0], [2.0]])
    indices = np.array([0, 1], index_dtype)
    Adam(3.0).minimize(lambda: cn.core.sum(cn.core.gather(v, indices)))


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_sparse_repeated_indices(dtype):
    """adam_test.py AdamOptimizerTest.testSparseRepeatedIndices"""
    check_sparse_repeated_indices(lambda: Adam(), dtype)


def _do_test_basic(dtype, use_callable_params):
    learning_rate = lambda: 0.001  # noqa: E731
    if not use_callable_params:
        learning_rate = learning_rate()
    opt = Adam(learning_rate=learning_rate)
    opt, var0 = _three_steps(dtype, lambda g: const(g, dtype), opt)
    opt_variables = opt.variables()
    beta1_power, beta2_power = _beta_accumulators(opt)
    assert any(v is beta1_power for v in opt_variables)
    assert any(v is beta2_power for v in opt_variables)
    assert_all_close_according_to_type(0.9**4, beta1_power)
    assert_all_close_according_to_type(0.999**4, beta2_power)
    assert opt.get_slot(var=var0, name="m").name == "var0/Adam"


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_basic(dtype):
    """adam_test.py AdamOptimizerTest.testBasic (and testResourceBasic)"""
    _do_test_basic(dtype, use_callable_params=False)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_basic_callable_params(dtype):
    """adam_test.py AdamOptimizerTest.testBasicCallableParams"""
    _do_test_basic(dtype, use_callable_params=True)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_tensor_learning_rate(dtype):
    """adam_test.py AdamOptimizerTest.testTensorLearningRate"""
    _three_steps(dtype, lambda g: const(g, dtype), Adam(const(0.001)))


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_sharing(dtype):
    """adam_test.py AdamOptimizerTest.testSharing (two update ops of one optimizer,
    interleaved: eagerly, successive apply_gradients calls)"""
    _three_steps(dtype, lambda g: const(g, dtype), Adam())


def test_two_sessions():
    """adam_test.py AdamOptimizerTest.testTwoSessions (eagerly: one optimizer applied to
    three variables of the same name, each made anew)"""
    optimizer = Adam()
    for _ in range(3):
        var0 = Variable(np.array([1.0, 2.0]), name="v0")
        optimizer.apply_gradients([(const(np.array([0.1, 0.1]), np.float64), var0)])


def test_slots_unique_eager():
    """adam_test.py AdamOptimizerTest.testSlotsUniqueEager"""
    v1, v2 = Variable(1.0), Variable(1.0)
    opt = Adam(1.0)
    opt.minimize(lambda: v1 + v2)
    assert len({id(v) for v in opt.variables()}) == 6
