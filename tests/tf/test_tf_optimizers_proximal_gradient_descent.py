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
"""Port of tensorflow/python/training/proximal_gradient_descent_test.py (graph -> eager)."""

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

ProximalGD = cn.train.ProximalGradientDescentOptimizer


def test_proximal_gradient_descent_without_regularization():
    """proximal_gradient_descent_test.py ProximalGradientDescentOptimizerTest.
    testProximalGradientDescentwithoutRegularization (and its Resource variant)"""
    opt = ProximalGD(3.0, l1_regularization_strength=0.0, l2_regularization_strength=0.0)
    v0, v1 = run_two_variables(opt, [0.0, 0.0], [0.0, 0.0], 3)
    assert_all_close(np.array([-0.9, -1.8]), v0)
    assert_all_close(np.array([-0.09, -0.18]), v1)


def test_proximal_gradient_descent_without_regularization2():
    """proximal_gradient_descent_test.py ProximalGradientDescentOptimizerTest.
    testProximalGradientDescentwithoutRegularization2"""
    opt = ProximalGD(3.0, l1_regularization_strength=0.0, l2_regularization_strength=0.0)
    v0, v1 = run_two_variables(opt, [1.0, 2.0], [4.0, 3.0], 3)
    assert_all_close(np.array([0.1, 0.2]), v0)
    assert_all_close(np.array([3.91, 2.82]), v1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_minimize_sparse_resource_variable(dtype):
    """proximal_gradient_descent_test.py ProximalGradientDescentOptimizerTest.
    testMinimizeSparseResourceVariable"""
    var0 = var([[1.0, 2.0]], dtype)
    ProximalGD(1.0).minimize(embedding_matmul_loss(var0, dtype))
    assert_all_close_according_to_type([[-111, -138]], var0, atol=0.01)


def test_proximal_gradient_descent_with_l1_l2():
    """proximal_gradient_descent_test.py ProximalGradientDescentOptimizerTest.
    testProximalGradientDescentWithL1_L2"""
    opt = ProximalGD(3.0, l1_regularization_strength=0.001, l2_regularization_strength=2.0)
    v0, v1 = run_two_variables(opt, [1.0, 2.0], [4.0, 3.0], 10)
    assert_all_close(np.array([-0.0495, -0.0995]), v0)
    assert_all_close(np.array([-0.0045, -0.0095]), v1)


@pytest.mark.parametrize("is_sparse", [True, False])
def test_equiv_gradient_descent_without_regularization(is_sparse):
    """proximal_gradient_descent_test.py ProximalGradientDescentOptimizerTest.
    testEquivSparseGradientDescentwithoutRegularization /
    testEquivGradientDescentwithoutRegularization"""
    val0, val1 = apply_optimizer(
        ProximalGD(3.0, l1_regularization_strength=0.0, l2_regularization_strength=0.0),
        is_sparse=is_sparse,
    )
    val2, val3 = apply_optimizer(cn.train.GradientDescentOptimizer(3.0), is_sparse=is_sparse)
    assert_all_close(val0, val2)
    assert_all_close(val1, val3)
