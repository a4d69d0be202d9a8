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
"""Port of tensorflow/python/training/rmsprop_test.py (graph mode -> eager)."""

import copy
import itertools
import math

import numpy as np
import pytest
from tf_port import (
    HALF,
    assert_all_close,
    assert_all_close_according_to_type,
    const,
    indexed_slices,
    var,
)

import colonnade as cn

_DATA_TYPES = [HALF, np.float32]
_TEST_PARAM_VALUES = [
    # learning_rate, decay, momentum, epsilon, centered
    [0.5, 0.9, 0.0, 1e-3, True],
    [0.5, 0.9, 0.0, 1e-3, False],
    [0.1, 0.9, 0.0, 1e-3, True],
    [0.5, 0.95, 0.0, 1e-3, False],
    [0.5, 0.95, 0.0, 1e-5, True],
    [0.5, 0.95, 0.9, 1e-5, True],
]
_TESTPARAMS = [
    [data_type] + values for data_type, values in itertools.product(_DATA_TYPES, _TEST_PARAM_VALUES)
]


def _rmsprop_update_numpy(var, g, mg, rms, mom, lr, decay, momentum, epsilon, centered):
    rms_t = rms * decay + (1 - decay) * g * g
    denom_t = rms_t + epsilon
    if centered:
        mg_t = mg * decay + (1 - decay) * g
        denom_t -= mg_t * mg_t
    else:
        mg_t = mg
    mom_t = momentum * mom + lr * g / np.sqrt(denom_t, dtype=denom_t.dtype)
    var_t = var - mom_t
    return var_t, mg_t, rms_t, mom_t


def _sparse_rmsprop_update_numpy(
    var, gindexs, gvalues, mg, rms, mom, lr, decay, momentum, epsilon, centered
):
    mg_t, rms_t, mom_t, var_t = (copy.deepcopy(a) for a in (mg, rms, mom, var))
    for i in range(len(gindexs)):
        gindex = gindexs[i]
        gvalue = gvalues[i]
        rms_t[gindex] = rms[gindex] * decay + (1 - decay) * gvalue * gvalue
        denom_t = rms_t[gindex] + epsilon
        if centered:
            mg_t[gindex] = mg_t[gindex] * decay + (1 - decay) * gvalue
            denom_t -= mg_t[gindex] * mg_t[gindex]
        mom_t[gindex] = momentum * mom[gindex] + lr * gvalue / np.sqrt(denom_t)
        var_t[gindex] = var[gindex] - mom_t[gindex]
    return var_t, mg_t, rms_t, mom_t


def _run(params, sparse):
    dtype, learning_rate, decay, momentum, epsilon, centered = params
    var0_np, var1_np = np.array([1.0, 2.0], dtype), np.array([3.0, 4.0], dtype)
    if sparse:
        grads0_np, grads1_np = np.array([0.1], dtype), np.array([0.01], dtype)
        grads0_np_indices = np.array([0], np.int32)
        grads1_np_indices = np.array([1], np.int32)
        grads0 = indexed_slices(grads0_np, grads0_np_indices, [1])
        grads1 = indexed_slices(grads1_np, grads1_np_indices, [1])
    else:
        grads0_np, grads1_np = np.array([0.1, 0.2], dtype), np.array([0.01, 0.2], dtype)
        grads0, grads1 = const(grads0_np, dtype), const(grads1_np, dtype)
    var0, var1 = var(var0_np, dtype), var(var1_np, dtype)
    opt = cn.train.RMSPropOptimizer(
        learning_rate=learning_rate,
        decay=decay,
        momentum=momentum,
        epsilon=epsilon,
        centered=centered,
    )
    opt.create_slots([var0, var1])
    mg0, mg1 = opt.get_slot(var0, "mg"), opt.get_slot(var1, "mg")
    assert (mg0 is not None) == centered and (mg1 is not None) == centered
    rms0, rms1 = opt.get_slot(var0, "rms"), opt.get_slot(var1, "rms")
    mom0, mom1 = opt.get_slot(var0, "momentum"), opt.get_slot(var1, "momentum")
    assert None not in (rms0, rms1, mom0, mom1)
    mg0_np, mg1_np = np.array([0.0, 0.0], dtype), np.array([0.0, 0.0], dtype)
    rms0_np, rms1_np = np.array([1.0, 1.0], dtype), np.array([1.0, 1.0], dtype)
    mom0_np, mom1_np = np.array([0.0, 0.0], dtype), np.array([0.0, 0.0], dtype)
    hyper = (learning_rate, decay, momentum, epsilon, centered)
    for _ in range(1, 5):
        opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
        if sparse:
            var0_np, mg0_np, rms0_np, mom0_np = _sparse_rmsprop_update_numpy(
                var0_np, grads0_np_indices, grads0_np, mg0_np, rms0_np, mom0_np, *hyper
            )
            var1_np, mg1_np, rms1_np, mom1_np = _sparse_rmsprop_update_numpy(
                var1_np, grads1_np_indices, grads1_np, mg1_np, rms1_np, mom1_np, *hyper
            )
        else:
            var0_np, mg0_np, rms0_np, mom0_np = _rmsprop_update_numpy(
                var0_np, grads0_np, mg0_np, rms0_np, mom0_np, *hyper
            )
            var1_np, mg1_np, rms1_np, mom1_np = _rmsprop_update_numpy(
                var1_np, grads1_np, mg1_np, rms1_np, mom1_np, *hyper
            )
        if centered:
            assert_all_close_according_to_type(mg0_np, mg0)
            assert_all_close_according_to_type(mg1_np, mg1)
        assert_all_close_according_to_type(rms0_np, rms0)
        assert_all_close_according_to_type(rms1_np, rms1)
        assert_all_close_according_to_type(mom0_np, mom0)
        assert_all_close_according_to_type(mom1_np, mom1)
        assert_all_close_according_to_type(var0_np, var0)
        assert_all_close_according_to_type(var1_np, var1)


@pytest.mark.parametrize("params", _TESTPARAMS)
def test_dense(params):
    """rmsprop_test.py RMSPropOptimizerTest.testDense"""
    _run(params, sparse=False)


@pytest.mark.parametrize("params", _TESTPARAMS)
def test_sparse(params):
    """rmsprop_test.py RMSPropOptimizerTest.testSparse (its IndexedSlices carry
    dense_shape [1] for a variable of shape [2]; TF ignores dense_shape there)"""
    _run(params, sparse=True)


def _two_steps_setup(dtype, momentum, epsilon):
    var0, var1 = var([1.0, 2.0], dtype), var([3.0, 4.0], dtype)
    grads0, grads1 = const([0.1, 0.1], dtype), const([0.01, 0.01], dtype)
    opt = cn.train.RMSPropOptimizer(
        learning_rate=2.0, decay=0.9, momentum=momentum, epsilon=epsilon
    )
    opt.create_slots([var0, var1])
    slots = [opt.get_slot(v, n) for n in ("rms", "momentum") for v in (var0, var1)]
    assert None not in slots
    assert_all_close([1.0, 2.0], var0)
    assert_all_close([3.0, 4.0], var1)
    return var0, var1, slots, lambda: opt.apply_gradients(zip([grads0, grads1], [var0, var1]))


@pytest.mark.parametrize("dtype", _DATA_TYPES)
def test_without_momentum(dtype):
    """rmsprop_test.py RMSPropOptimizerTest.testWithoutMomentum"""
    var0, var1, (rms0, rms1, _, _), update = _two_steps_setup(dtype, 0.0, 1.0)
    update()
    assert_all_close_according_to_type(np.array([0.901, 0.901]), rms0)
    assert_all_close_according_to_type(np.array([0.90001, 0.90001]), rms1)
    assert_all_close_according_to_type(
        np.array(
            [1.0 - (0.1 * 2.0 / math.sqrt(0.901 + 1.0)), 2.0 - (0.1 * 2.0 / math.sqrt(0.901 + 1.0))]
        ),
        var0,
    )
    assert_all_close_according_to_type(
        np.array(
            [
                3.0 - (0.01 * 2.0 / math.sqrt(0.90001 + 1.0)),
                4.0 - (0.01 * 2.0 / math.sqrt(0.90001 + 1.0)),
            ]
        ),
        var1,
    )
    update()
    assert_all_close_according_to_type(np.array([0.901 * 0.9 + 0.001, 0.901 * 0.9 + 0.001]), rms0)
    assert_all_close_according_to_type(np.array([0.90001 * 0.9 + 1e-5, 0.90001 * 0.9 + 1e-5]), rms1)
    assert_all_close_according_to_type(
        np.array(
            [
                1.0
                - (0.1 * 2.0 / math.sqrt(0.901 + 1.0))
                - (0.1 * 2.0 / math.sqrt(0.901 * 0.9 + 0.001 + 1.0)),
                2.0
                - (0.1 * 2.0 / math.sqrt(0.901 + 1.0))
                - (0.1 * 2.0 / math.sqrt(0.901 * 0.9 + 0.001 + 1.0)),
            ]
        ),
        var0,
    )
    assert_all_close_according_to_type(
        np.array(
            [
                3.0
                - (0.01 * 2.0 / math.sqrt(0.90001 + 1.0))
                - (0.01 * 2.0 / math.sqrt(0.90001 * 0.9 + 1e-5 + 1.0)),
                4.0
                - (0.01 * 2.0 / math.sqrt(0.90001 + 1.0))
                - (0.01 * 2.0 / math.sqrt(0.90001 * 0.9 + 1e-5 + 1.0)),
            ]
        ),
        var1,
    )


@pytest.mark.parametrize("dtype", _DATA_TYPES)
def test_with_momentum(dtype):
    """rmsprop_test.py RMSPropOptimizerTest.testWithMomentum"""
    var0, var1, (rms0, rms1, mom0, mom1), update = _two_steps_setup(dtype, 0.5, 1e-5)
    update()
    assert_all_close_according_to_type(np.array([0.901, 0.901]), rms0)
    assert_all_close_according_to_type(np.array([0.90001, 0.90001]), rms1)
    m0 = 0.1 * 2.0 / math.sqrt(0.901 + 1e-5)
    m1 = 0.01 * 2.0 / math.sqrt(0.90001 + 1e-5)
    assert_all_close_according_to_type(np.array([m0, m0]), mom0)
    assert_all_close_according_to_type(np.array([m1, m1]), mom1)
    assert_all_close_according_to_type(np.array([1.0 - m0, 2.0 - m0]), var0)
    assert_all_close_according_to_type(np.array([3.0 - m1, 4.0 - m1]), var1)
    update()
    assert_all_close_according_to_type(np.array([0.901 * 0.9 + 0.001, 0.901 * 0.9 + 0.001]), rms0)
    assert_all_close_according_to_type(np.array([0.90001 * 0.9 + 1e-5, 0.90001 * 0.9 + 1e-5]), rms1)
    n0 = 0.5 * m0 + (0.1 * 2.0 / math.sqrt(0.901 * 0.9 + 0.001 + 1e-5))
    n1 = 0.5 * m1 + (0.01 * 2.0 / math.sqrt(0.90001 * 0.9 + 2e-5))
    assert_all_close_according_to_type(np.array([n0, n0]), mom0)
    assert_all_close_according_to_type(np.array([n1, n1]), mom1)
    assert_all_close_according_to_type(np.array([1.0 - m0 - n0, 2.0 - m0 - n0]), var0)
    assert_all_close_according_to_type(np.array([3.0 - m1 - n1, 4.0 - m1 - n1]), var1)
