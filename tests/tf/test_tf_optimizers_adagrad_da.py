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
"""Port of tensorflow/python/training/adagrad_da_test.py (graph mode -> eager)."""

import numpy as np
import pytest
from tf_port import assert_all_close_according_to_type, const, embedding_matmul_loss, var

import colonnade as cn
from colonnade.core import Variable

AdagradDA = cn.train.AdagradDAOptimizer
FLOATS = [np.float64, np.float32]


def _one_step(dtype, var0_init, var1_init, l1, l2):
    global_step = Variable(0, dtype=np.int64)
    var0, var1 = var(var0_init, dtype), var(var1_init, dtype)
    grads0, grads1 = const([0.1, 0.2], dtype), const([0.01, 0.02], dtype)
    opt = AdagradDA(
        3.0,
        global_step,
        initial_gradient_squared_accumulator_value=0.1,
        l1_regularization_strength=l1,
        l2_regularization_strength=l2,
    )
    assert_all_close_according_to_type(var0_init, var0)
    assert_all_close_according_to_type(var1_init, var1)
    opt.apply_gradients(zip([grads0, grads1], [var0, var1]), global_step=global_step)
    return var0, var1


@pytest.mark.parametrize("dtype", FLOATS)
def test_adagrad_da_without_regularization_basic1(dtype):
    """adagrad_da_test.py AdagradDAOptimizerTest.testAdagradDAWithoutRegularizationBasic1
    (and testResourceAdagradDAWithoutRegularizationBasic1)"""
    v0, v1 = _one_step(dtype, [0.0, 0.0], [0.0, 0.0], 0.0, 0.0)
    assert_all_close_according_to_type(np.array([-0.904534, -1.603567]), v0)
    assert_all_close_according_to_type(np.array([-0.094821, -0.189358]), v1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_minimize_sparse_resource_variable(dtype):
    """adagrad_da_test.py AdagradDAOptimizerTest.testMinimizeSparseResourceVariable"""
    var0 = var([[1.0, 2.0]], dtype)
    global_step = Variable(0, dtype=np.int64)
    AdagradDA(1.0, global_step).minimize(embedding_matmul_loss(var0, dtype))
    assert_all_close_according_to_type([[-1, -1]], var0, rtol=0.01)


@pytest.mark.parametrize("dtype", FLOATS)
def test_adagrad_da_without_regularization_basic2(dtype):
    """adagrad_da_test.py AdagradDAOptimizerTest.testAdagradDAwithoutRegularizationBasic2"""
    v0, v1 = _one_step(dtype, [1.0, 2.0], [4.0, 3.0], 0.0, 0.0)
    assert_all_close_according_to_type(np.array([-0.904534, -1.603567]), v0)
    assert_all_close_according_to_type(np.array([-0.094821, -0.189358]), v1)


@pytest.mark.parametrize("dtype", FLOATS)
def test_adagrad_da_with_l1(dtype):
    """adagrad_da_test.py AdagradDAOptimizerTest.testAdagradDAWithL1"""
    v0, v1 = _one_step(dtype, [1.0, 2.0], [4.0, 3.0], 0.001, 0.0)
    assert_all_close_according_to_type(np.array([-0.895489, -1.59555]), v0)
    assert_all_close_according_to_type(np.array([-0.085339, -0.17989]), v1)


@pytest.mark.parametrize("dtype", FLOATS)
def test_adagrad_da_with_l1_l2(dtype):
    """adagrad_da_test.py AdagradDAOptimizerTest.testAdagradDAWithL1_L2"""
    v0, v1 = _one_step(dtype, [1.0, 2.0], [4.0, 3.0], 0.001, 2.0)
    assert_all_close_according_to_type(np.array([-0.046907, -0.093659]), v0)
    assert_all_close_according_to_type(np.array([-0.004275, -0.009023]), v1)
