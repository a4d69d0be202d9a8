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
"""Port of tensorflow/python/training/ftrl_test.py (graph mode -> eager)."""

import numpy as np
import pytest
from tf_port import (
    HALF,
    apply_optimizer,
    assert_all_close_according_to_type,
    const,
    embedding_matmul_loss,
    indexed_slices,
    run_two_variables,
    var,
)

import colonnade as cn

Ftrl = cn.train.FtrlOptimizer
DTYPES = [HALF, np.float32]


def _run(dtype, var0_init, var1_init, steps, **kwargs):
    opt = Ftrl(3.0, initial_accumulator_value=0.1, **kwargs)
    return run_two_variables(opt, var0_init, var1_init, steps, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ftrl_without_regularization(dtype):
    """ftrl_test.py FtrlOptimizerTest.testFtrlWithoutRegularization (and Resource)"""
    v0, v1 = _run(
        dtype, [0.0, 0.0], [0.0, 0.0], 3, l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
    )  # fmt: skip
    assert_all_close_according_to_type(np.array([-2.60260963, -4.29698515]), v0, half_rtol=1e-2)
    assert_all_close_according_to_type(np.array([-0.28432083, -0.56694895]), v1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ftrl_without_regularization2(dtype):
    """ftrl_test.py FtrlOptimizerTest.testFtrlwithoutRegularization2"""
    v0, v1 = _run(
        dtype, [1.0, 2.0], [4.0, 3.0], 3, l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
    )  # fmt: skip
    assert_all_close_according_to_type(np.array([-2.55607247, -3.98729396]), v0)
    assert_all_close_according_to_type(np.array([-0.28232238, -0.56096673]), v1)


@pytest.mark.parametrize("dtype", [HALF, np.float32, np.float64])
def test_minimize_sparse_resource_variable(dtype):
    """ftrl_test.py FtrlOptimizerTest.testMinimizeSparseResourceVariable"""
    var0 = var([[1.0, 2.0]], dtype)
    Ftrl(1.0).minimize(embedding_matmul_loss(var0, dtype))
    assert_all_close_according_to_type([[0, 1]], var0, atol=0.01)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ftrl_with_l1(dtype):
    """ftrl_test.py FtrlOptimizerTest.testFtrlWithL1"""
    v0, v1 = _run(
        dtype, [1.0, 2.0], [4.0, 3.0], 10, l1_regularization_strength=0.001,
        l2_regularization_strength=0.0,
    )  # fmt: skip
    assert_all_close_according_to_type(np.array([-7.66718769, -10.91273689]), v0)
    assert_all_close_according_to_type(np.array([-0.93460727, -1.86147261]), v1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ftrl_with_l1_l2(dtype):
    """ftrl_test.py FtrlOptimizerTest.testFtrlWithL1_L2"""
    v0, v1 = _run(
        dtype, [1.0, 2.0], [4.0, 3.0], 10, l1_regularization_strength=0.001,
        l2_regularization_strength=2.0,
    )  # fmt: skip
    assert_all_close_according_to_type(np.array([-0.24059935, -0.46829352]), v0)
    assert_all_close_according_to_type(np.array([-0.02406147, -0.04830509]), v1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ftrl_with_l1_l2_l2_shrinkage(dtype):
    """ftrl_test.py FtrlOptimizerTest.testFtrlWithL1_L2_L2Shrinkage"""
    v0, v1 = _run(
        dtype, [1.0, 2.0], [4.0, 3.0], 10, l1_regularization_strength=0.001,
        l2_regularization_strength=2.0, l2_shrinkage_regularization_strength=0.1,
    )  # fmt: skip
    assert_all_close_according_to_type(np.array([-0.22578995, -0.44345796]), v0)
    assert_all_close_according_to_type(np.array([-0.14378493, -0.13229476]), v1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ftrl_with_l1_l2_l2_shrinkage_sparse(dtype):
    """ftrl_test.py FtrlOptimizerTest.testFtrlWithL1_L2_L2ShrinkageSparse"""
    var0, var1 = var([[1.0], [2.0]], dtype), var([[4.0], [3.0]], dtype)
    grads0 = indexed_slices(const([[0.1]], dtype), [0], [2, 1])
    grads1 = indexed_slices(const([[0.02]], dtype), [1], [2, 1])
    opt = Ftrl(
        3.0,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.001,
        l2_regularization_strength=2.0,
        l2_shrinkage_regularization_strength=0.1,
    )
    for _ in range(10):
        opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
    assert_all_close_according_to_type([[-0.22578995], [2.0]], var0)
    assert_all_close_according_to_type([[4.0], [-0.13229476]], var1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ftrl_with_l2_shrinkage_does_not_change_lr_schedule(dtype):
    """ftrl_test.py FtrlOptimizerTest.testFtrlWithL2ShrinkageDoesNotChangeLrSchedule"""
    var0, var1 = var([1.0, 2.0], dtype), var([1.0, 2.0], dtype)
    grads0, grads1 = const([0.1, 0.2], dtype), const([0.1, 0.2], dtype)
    common = dict(
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.001,
        l2_regularization_strength=2.0,
    )
    opt0 = Ftrl(3.0, l2_shrinkage_regularization_strength=0.1, **common)
    opt1 = Ftrl(3.0, **common)
    for _ in range(10):
        opt0.apply_gradients([(grads0, var0)])
        opt1.apply_gradients([(grads1, var1)])
    v0_val, v1_val = var0.numpy(), var1.numpy()
    assert (v0_val**2 < v1_val**2).all()
    assert_all_close_according_to_type(opt0.get_slot(var0, "accum"), opt1.get_slot(var1, "accum"))


def _apply_from_zeros(opt, dtype, is_sparse=False):
    """ftrl_test.py's applyOptimizer: its variables start at zero."""
    return apply_optimizer(opt, is_sparse=is_sparse, dtype=dtype, init=((0.0, 0.0), (0.0, 0.0)))


def _ftrl_plain(power):
    return Ftrl(
        3.0,
        learning_rate_power=power,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_equiv_adagrad_without_regularization(dtype):
    """ftrl_test.py FtrlOptimizerTest.testEquivAdagradwithoutRegularization"""
    val0, val1 = _apply_from_zeros(_ftrl_plain(-0.5), dtype)
    val2, val3 = _apply_from_zeros(
        cn.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1), dtype
    )
    assert_all_close_according_to_type(val0, val2, half_rtol=2e-3)
    assert_all_close_according_to_type(val1, val3, half_rtol=2e-3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_equiv_sparse_adagrad_without_regularization(dtype):
    """ftrl_test.py FtrlOptimizerTest.testEquivSparseAdagradwithoutRegularization"""
    val0, val1 = _apply_from_zeros(_ftrl_plain(-0.5), dtype, is_sparse=True)
    val2, val3 = _apply_from_zeros(
        cn.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1), dtype, is_sparse=True
    )
    assert_all_close_according_to_type(val0, val2)
    assert_all_close_according_to_type(val1, val3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("is_sparse", [True, False])
def test_equiv_gradient_descent_without_regularization(dtype, is_sparse):
    """ftrl_test.py FtrlOptimizerTest.testEquivSparseGradientDescentwithoutRegularization /
    testEquivGradientDescentwithoutRegularization"""
    val0, val1 = _apply_from_zeros(_ftrl_plain(-0.0), dtype, is_sparse=is_sparse)
    val2, val3 = _apply_from_zeros(
        cn.train.GradientDescentOptimizer(3.0), dtype, is_sparse=is_sparse
    )
    assert_all_close_according_to_type(val0, val2)
    assert_all_close_according_to_type(val1, val3)
