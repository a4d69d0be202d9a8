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
"""Port of tensorflow/python/training/adadelta_test.py (graph mode -> eager)."""

import numpy as np
import pytest
from tf_port import (
    ALL_FLOATS,
    HALF,
    assert_all_close,
    assert_all_close_according_to_type,
    const,
    embedding_matmul_loss,
    var,
)

import colonnade as cn

Adadelta = cn.train.AdadeltaOptimizer


@pytest.mark.parametrize("dtype", [HALF, np.float32])
@pytest.mark.parametrize("grad", [0.2, 0.1, 0.01])
@pytest.mark.parametrize("lr", [1.0, 0.5, 0.1])
def test_basic(dtype, grad, lr):
    """adadelta_test.py AdadeltaOptimizerTest.testBasic (and testResourceBasic)"""
    num_updates = 4
    var0_init, var1_init = [1.0, 2.0], [3.0, 4.0]
    var0, var1 = var(var0_init, dtype, name="var0"), var(var1_init, dtype, name="var1")
    grads = const([grad, grad], dtype)
    accum, accum_update = 0.0, 0.0
    rho, epsilon = 0.95, 1e-8
    adadelta_opt = Adadelta(lr, rho, epsilon)
    adadelta_opt.apply_gradients(zip([grads, grads], [var0, var1]))
    opt_vars = adadelta_opt.variables()
    assert opt_vars[0].name.startswith("var0")
    assert opt_vars[1].name.startswith("var0")
    assert opt_vars[2].name.startswith("var1")
    assert opt_vars[3].name.startswith("var1")
    assert len(opt_vars) == 4
    assert adadelta_opt.get_slot_names() == ["accum", "accum_update"]
    slot = [adadelta_opt.get_slot(v, "accum") for v in (var0, var1)]
    slot_update = [adadelta_opt.get_slot(v, "accum_update") for v in (var0, var1)]
    for s in slot + slot_update:
        assert s.shape == var0.shape and not s.trainable
    tot_update = 0
    for step in range(num_updates):
        if step:  # the first update ran above, before the slot checks
            adadelta_opt.apply_gradients(zip([grads, grads], [var0, var1]))
        accum = accum * rho + (grad**2) * (1 - rho)
        update = np.sqrt(accum_update + epsilon) * (1.0 / np.sqrt(accum + epsilon)) * grad
        accum_update = accum_update * rho + (update**2) * (1.0 - rho)
        tot_update += update * lr
        for slot_idx in range(2):
            assert_all_close_according_to_type(
                np.array([accum, accum], dtype), slot[slot_idx], rtol=1e-3
            )
            assert_all_close_according_to_type(
                np.array([accum_update, accum_update], dtype), slot_update[slot_idx], rtol=1e-3
            )
        assert_all_close_according_to_type(
            np.array([var0_init[0] - tot_update, var0_init[1] - tot_update], dtype),
            var0,
            rtol=1e-3,
        )
        assert_all_close_according_to_type(
            np.array([var1_init[0] - tot_update, var1_init[1] - tot_update], dtype),
            var1,
            rtol=1e-3,
        )


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_minimize_sparse_resource_variable(dtype):
    """adadelta_test.py AdadeltaOptimizerTest.testMinimizeSparseResourceVariable"""
    var0 = var([[1.0, 2.0]], dtype)
    Adadelta(1.0, 1.0, 1.0).minimize(embedding_matmul_loss(var0, dtype))
    assert_all_close_according_to_type([[-111, -138]], var0)
    assert_all_close([[-111, -138]], var0, rtol=1e-3, atol=1e-3 if dtype == HALF else 1e-6)
