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
"""Port of tensorflow/python/training/proximal_adagrad_test.py (graph mode -> eager)."""

import numpy as np
import pytest
from tf_port import (
    apply_optimizer,
    assert_all_close,
    assert_all_close_according_to_type,
    embedding_matmul_loss,
    run_two_variables,
    var,
)

import colonnade as cn

ProximalAdagrad = cn.train.ProximalAdagradOptimizer


def _run(var0_init, var1_init, steps, l1, l2):
    opt = ProximalAdagrad(
        3.0,
        initial_accumulator_value=0.1,
        l1_regularization_strength=l1,
        l2_regularization_strength=l2,
    )
    return run_two_variables(opt, var0_init, var1_init, steps)


def test_proximal_adagrad_without_regularization():
    """proximal_adagrad_test.py ProximalAdagradOptimizerTest.
    testProximalAdagradwithoutRegularization (and its Resource variant)"""
    v0, v1 = _run([0.0, 0.0], [0.0, 0.0], 3, 0.0, 0.0)
    assert_all_close(np.array([-2.60260963, -4.29698515]), v0)
    assert_all_close(np.array([-0.28432083, -0.56694895]), v1)


def test_proximal_adagrad_without_regularization2():
    """proximal_adagrad_test.py ProximalAdagradOptimizerTest.
    testProximalAdagradwithoutRegularization2"""
    v0, v1 = _run([1.0, 2.0], [4.0, 3.0], 3, 0.0, 0.0)
    assert_all_close(np.array([-1.60261, -2.296985]), v0)
    assert_all_close(np.array([3.715679, 2.433051]), v1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_minimize_sparse_resource_variable(dtype):
    """proximal_adagrad_test.py ProximalAdagradOptimizerTest.testMinimizeSparseResourceVariable"""
    var0 = var([[1.0, 2.0]], dtype)
    ProximalAdagrad(1.0).minimize(embedding_matmul_loss(var0, dtype))
    assert_all_close_according_to_type([[0, 1]], var0, atol=0.01)


def test_proximal_adagrad_with_l1():
    """proximal_adagrad_test.py ProximalAdagradOptimizerTest.testProximalAdagradWithL1"""
    v0, v1 = _run([1.0, 2.0], [4.0, 3.0], 10, 0.001, 0.0)
    assert_all_close(np.array([-6.663634, -9.190331]), v0)
    assert_all_close(np.array([2.959304, 1.029232]), v1)


def test_proximal_adagrad_with_l1_l2():
    """proximal_adagrad_test.py ProximalAdagradOptimizerTest.testProximalAdagradWithL1_L2"""
    v0, v1 = _run([1.0, 2.0], [4.0, 3.0], 10, 0.001, 2.0)
    assert_all_close(np.array([-0.0495, -0.0995]), v0)
    assert_all_close(np.array([-0.0045, -0.0095]), v1)


@pytest.mark.parametrize("is_sparse", [False, True])
def test_equiv_adagrad_without_regularization(is_sparse):
    """proximal_adagrad_test.py ProximalAdagradOptimizerTest.
    testEquivAdagradwithoutRegularization / testEquivSparseAdagradwithoutRegularization"""
    val0, val1 = apply_optimizer(
        ProximalAdagrad(
            3.0,
            initial_accumulator_value=0.1,
            l1_regularization_strength=0.0,
            l2_regularization_strength=0.0,
        ),
        is_sparse=is_sparse,
    )
    val2, val3 = apply_optimizer(
        cn.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1), is_sparse=is_sparse
    )
    assert_all_close(val0, val2)
    assert_all_close(val1, val3)
