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
"""Port of tensorflow/python/training/gradient_descent_test.py (graph mode -> eager)."""

import numpy as np
import pytest
from tf_port import (
    ALL_FLOATS,
    assert_all_close_according_to_type,
    const,
    embedding_matmul_loss,
    indexed_slices,
    var,
)

import colonnade as cn
from colonnade.core import Variable

GD = cn.train.GradientDescentOptimizer


def _basic(lr, dtype, **apply_kwargs):
    var0, var1 = var([1.0, 2.0], dtype), var([3.0, 4.0], dtype)
    grads0, grads1 = const([0.1, 0.1], dtype), const([0.01, 0.01], dtype)
    optimizer = GD(lr)
    optimizer.apply_gradients(zip([grads0, grads1], [var0, var1]), **apply_kwargs)
    assert_all_close_according_to_type([1.0 - 3.0 * 0.1, 2.0 - 3.0 * 0.1], var0)
    assert_all_close_according_to_type([3.0 - 3.0 * 0.01, 4.0 - 3.0 * 0.01], var1)
    return optimizer


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_basic(dtype):
    """gradient_descent_test.py GradientDescentOptimizerTest.testBasic"""
    optimizer = _basic(3.0, dtype)
    assert len(optimizer.variables()) == 0


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_basic_resource_variable(dtype):
    """gradient_descent_test.py GradientDescentOptimizerTest.testBasicResourceVariable"""
    _basic(3.0, dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_basic_callable_params(dtype):
    """gradient_descent_test.py GradientDescentOptimizerTest.testBasicCallableParams"""
    _basic(lambda: 3.0, dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_tensor_learning_rate(dtype):
    """gradient_descent_test.py GradientDescentOptimizerTest.testTensorLearningRate"""
    _basic(const(3.0, np.float32), dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
@pytest.mark.parametrize("sparse", [False, True])
def test_minimize_resource_variable(dtype, sparse):
    """gradient_descent_test.py GradientDescentOptimizerTest.testMinimizeResourceVariable
    (sparse: testMinimizeSparseResourceVariable, the kernel read through embedding_lookup)"""
    var0, var1 = var([[1.0, 2.0]], dtype), var([3.0], dtype)
    if sparse:
        loss = embedding_matmul_loss(var0, dtype, bias=var1)
    else:
        x = const([[4.0], [5.0]], dtype)

        def loss():
            pred = cn.core.matmul(var0, x) + var1
            return pred * pred

    GD(1.0).minimize(loss)
    np_pred = 1.0 * 4.0 + 2.0 * 5.0 + 3.0
    np_grad = 2 * np_pred
    assert_all_close_according_to_type([[1.0 - np_grad * 4.0, 2.0 - np_grad * 5.0]], var0)
    assert_all_close_according_to_type([3.0 - np_grad], var1)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_grad_wrt_ref(dtype):
    """gradient_descent_test.py GradientDescentOptimizerTest.testGradWrtRef"""
    opt = GD(3.0)
    vars_ = [var([v], dtype) for v in [1.0, 3.0]]
    grads_and_vars = opt.compute_gradients(lambda: vars_[0] + vars_[1], vars_)
    for grad, _ in grads_and_vars:
        assert_all_close_according_to_type([1.0], grad)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_with_global_step(dtype):
    """gradient_descent_test.py GradientDescentOptimizerTest.testWithGlobalStep"""
    global_step = Variable(0, trainable=False)
    _basic(3.0, dtype, global_step=global_step)
    assert_all_close_according_to_type(1, global_step)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_sparse_basic(dtype):
    """gradient_descent_test.py GradientDescentOptimizerTest.testSparseBasic"""
    var0, var1 = var([[1.0], [2.0]], dtype), var([[3.0], [4.0]], dtype)
    grads0 = indexed_slices(const([[0.1]], dtype), [0], [2, 1])
    grads1 = indexed_slices(const([[0.01]], dtype), [1], [2, 1])
    GD(3.0).apply_gradients(zip([grads0, grads1], [var0, var1]))
    assert_all_close_according_to_type([[1.0 - 3.0 * 0.1], [2.0]], var0)
    assert_all_close_according_to_type([[3.0], [4.0 - 3.0 * 0.01]], var1)
