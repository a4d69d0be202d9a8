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
"""Port of tensorflow/python/training/adagrad_test.py (graph mode -> eager)."""

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

Adagrad = cn.train.AdagradOptimizer


def _three_steps(dtype, learning_rate, use_locking=False, alternate=False):
    var0, var1 = var([1.0, 2.0], dtype), var([3.0, 4.0], dtype)
    grads0, grads1 = const([0.1, 0.1], dtype), const([0.01, 0.01], dtype)
    ada_opt = Adagrad(learning_rate, initial_accumulator_value=0.1, use_locking=use_locking)
    for _ in range(3):
        ada_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
    assert_all_close_according_to_type(np.array([-1.6026098728179932, -0.6026098728179932]), var0)
    assert_all_close_according_to_type(np.array([2.715679168701172, 3.715679168701172]), var1)
    return ada_opt, var0, var1


@pytest.mark.parametrize("dtype", ALL_FLOATS)
@pytest.mark.parametrize("use_locking", [False, True])
def test_basic(dtype, use_locking):
    """adagrad_test.py AdagradOptimizerTest.testBasic / testBasicLocked"""
    _three_steps(dtype, 3.0, use_locking)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_tensor_learning_rate(dtype):
    """adagrad_test.py AdagradOptimizerTest.testTensorLearningRate"""
    _three_steps(dtype, const(3.0))


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_sparse_basic(dtype):
    """adagrad_test.py AdagradOptimizerTest.testSparseBasic"""
    var0, var1 = var([[1.0], [2.0]], dtype), var([[3.0], [4.0]], dtype)
    grads0 = indexed_slices(const([[0.1]], dtype), [0], [2, 1])
    grads1 = indexed_slices(const([[0.01]], dtype), [1], [2, 1])
    ada_opt = Adagrad(3.0, initial_accumulator_value=0.1)
    for _ in range(3):
        ada_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
    assert_all_close_according_to_type(np.array([[-1.6026098728179932], [2.0]]), var0)
    assert_all_close_according_to_type(np.array([[3.0], [3.715679168701172]]), var1)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_sparse_repeated_indices(dtype):
    """adagrad_test.py AdagradOptimizerTest.testSparseRepeatedIndices"""
    check_sparse_repeated_indices(lambda: Adagrad(3.0), dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_sparse_stability(dtype):
    """adagrad_test.py AdagradOptimizerTest.testSparseStability (re-initialized before
    each of the 100 steps: eagerly, a fresh variable and optimizer each time)"""
    shape = [1, 6]
    for _ in range(100):
        var0 = var([[0.00872496, -0.106952, 0.110467, 0.226505, -0.0147257, -0.0105945]], dtype)
        grads0 = indexed_slices(
            const(
                [[-5.91278e-05, 5.31673e-05, -2.5779e-06, 4.29153e-05, -8.4877e-05, -9.48906e-05]],
                dtype,
            ),
            [0],
            shape,
        )
        ada_opt = Adagrad(1.0, initial_accumulator_value=0.1)
        ada_opt.apply_gradients(zip([grads0], [var0]))
        assert ada_opt.get_slot_names() == ["accumulator"]
        slot0 = ada_opt.get_slot(var0, "accumulator")
        assert_all_close_according_to_type(np.array([[0.1, 0.1, 0.1, 0.1, 0.1, 0.1]]), slot0)
        assert_all_close_according_to_type(
            np.array([[0.00891194, -0.10712013, 0.11047515, 0.22636929, -0.0144573, -0.01029443]]),
            var0,
        )


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_sharing(dtype):
    """adagrad_test.py AdagradOptimizerTest.testSharing"""
    ada_opt, var0, var1 = _three_steps(dtype, 3.0)
    assert ada_opt.get_slot_names() == ["accumulator"]
    assert ada_opt.get_slot(var0, "accumulator").shape == var0.shape
    assert ada_opt.get_slot(var1, "accumulator").shape == var1.shape
