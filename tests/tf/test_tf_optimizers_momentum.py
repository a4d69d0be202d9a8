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
"""Port of tensorflow/python/training/momentum_test.py (graph mode -> eager)."""

import numpy as np
import pytest
from tf_port import (
    ALL_FLOATS,
    assert_all_close,
    assert_all_close_according_to_type,
    const,
    embedding_matmul_loss,
    indexed_slices,
    var,
)

import colonnade as cn
from colonnade.core import Variable

Momentum = cn.train.MomentumOptimizer


def _update_nesterov_momentum_numpy(var, accum, g, lr, momentum):
    var = var + accum * lr * momentum
    accum = accum * momentum + g
    var = var - lr * accum
    var = var - accum * lr * momentum
    return var, accum


def _two_steps(mom_opt, var0, var1, grads0, grads1, step):
    """The two steps (and their checks) of doTestBasic / testSharing."""
    assert mom_opt.get_slot_names() == ["momentum"]
    step()
    slot0, slot1 = mom_opt.get_slot(var0, "momentum"), mom_opt.get_slot(var1, "momentum")
    assert slot0.shape == var0.shape and slot1.shape == var1.shape
    assert not slot0.trainable and not slot1.trainable
    assert_all_close_according_to_type(np.array([0.1, 0.1]), slot0)
    assert_all_close_according_to_type(np.array([0.01, 0.01]), slot1)
    assert_all_close_according_to_type(np.array([1.0 - (0.1 * 2.0), 2.0 - (0.1 * 2.0)]), var0)
    assert_all_close_according_to_type(np.array([3.0 - (0.01 * 2.0), 4.0 - (0.01 * 2.0)]), var1)
    step()
    assert_all_close_according_to_type(np.array([(0.9 * 0.1 + 0.1), (0.9 * 0.1 + 0.1)]), slot0)
    assert_all_close_according_to_type(np.array([(0.9 * 0.01 + 0.01), (0.9 * 0.01 + 0.01)]), slot1)
    assert_all_close_according_to_type(
        np.array(
            [
                1.0 - (0.1 * 2.0) - ((0.9 * 0.1 + 0.1) * 2.0),
                2.0 - (0.1 * 2.0) - ((0.9 * 0.1 + 0.1) * 2.0),
            ]
        ),
        var0,
    )
    assert_all_close_according_to_type(
        np.array([2.98 - ((0.9 * 0.01 + 0.01) * 2.0), 3.98 - ((0.9 * 0.01 + 0.01) * 2.0)]),
        var1,
    )


def _do_test_basic(dtype, learning_rate, momentum):
    var0, var1 = var([1.0, 2.0], dtype), var([3.0, 4.0], dtype)
    grads0, grads1 = const([0.1, 0.1], dtype), const([0.01, 0.01], dtype)
    mom_opt = Momentum(learning_rate=learning_rate, momentum=momentum)
    _two_steps(
        mom_opt,
        var0,
        var1,
        grads0,
        grads1,
        lambda: mom_opt.apply_gradients(zip([grads0, grads1], [var0, var1])),
    )


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_basic(dtype):
    """momentum_test.py MomentumOptimizerTest.testBasic (and testResourceBasic)"""
    _do_test_basic(dtype, 2.0, 0.9)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_basic_callable_params(dtype):
    """momentum_test.py MomentumOptimizerTest.testBasicCallableParams"""
    _do_test_basic(dtype, lambda: 2.0, lambda: 0.9)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_tensor_learning_rate_and_momentum(dtype):
    """momentum_test.py MomentumOptimizerTest.testTensorLearningRateAndMomentum"""
    _do_test_basic(dtype, const(2.0), const(0.9))


def test_variables_across_graphs():
    """momentum_test.py MomentumOptimizerTest.testVariablesAcrossGraphs

    Eager: the second "graph" is a second pair of variables; TF1 lists only the current
    graph's slots, an eager optimizer lists every slot it made (TF2 eager does too)."""
    optimizer = Momentum(0.01, 0.5)
    var0 = var([1.0, 2.0], name="var0")
    var1 = var([3.0, 4.0], name="var1")
    optimizer.minimize(lambda: cn.core.sum(var0 + var1))
    optimizer_variables = optimizer.variables()
    assert optimizer_variables[0].name.startswith("var0")
    assert optimizer_variables[1].name.startswith("var1")
    assert len(optimizer_variables) == 2


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nesterov_momentum(dtype):
    """momentum_test.py MomentumOptimizerTest.testNesterovMomentum"""
    var0, var1 = var([1.0, 2.0], dtype), var([3.0, 4.0], dtype)
    var0_np, var1_np = np.array([1.0, 2.0], dtype), np.array([3.0, 4.0], dtype)
    accum0_np, accum1_np = np.array([0.0, 0.0], dtype), np.array([0.0, 0.0], dtype)
    global_step = Variable(np.zeros([], np.int64), name="global_step")
    mom_op = Momentum(learning_rate=2.0, momentum=0.9, use_nesterov=True)
    for _ in range(1, 5):
        mom_op.minimize(lambda: 5 * var0 * var0 + 3 * var1, global_step, [var0, var1])
        var0_np, accum0_np = _update_nesterov_momentum_numpy(
            var0_np, accum0_np, var0_np * 10, 2.0, 0.9
        )
        var1_np, accum1_np = _update_nesterov_momentum_numpy(var1_np, accum1_np, 3, 2.0, 0.9)
        assert_all_close(var0_np, var0)
        assert_all_close(var1_np, var1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_nesterov_momentum(dtype):
    """momentum_test.py MomentumOptimizerTest.testSparseNesterovMomentum"""
    var0_np, var1_np = np.array([1.0, 2.0], dtype), np.array([3.0, 4.0], dtype)
    accum0_np, accum1_np = np.array([0.0, 0.0], dtype), np.array([0.0, 0.0], dtype)
    grads = []
    for _ in range(1, 5):
        grads.append(var0_np * 10)
        var0_np, accum0_np = _update_nesterov_momentum_numpy(
            var0_np, accum0_np, var0_np * 10, 2.0, 0.9
        )
        var1_np, accum1_np = _update_nesterov_momentum_numpy(var1_np, accum1_np, 3, 2.0, 0.9)
    var0_np, var1_np = np.array([1.0, 2.0], dtype), np.array([3.0, 4.0], dtype)
    accum0_np, accum1_np = np.array([0.0, 0.0], dtype), np.array([0.0, 0.0], dtype)
    var0, var1 = var(var0_np, dtype), var(var1_np, dtype)
    mom_op = Momentum(learning_rate=2.0, momentum=0.9, use_nesterov=True)
    for t in range(1, 5):
        y_feed = indexed_slices(grads[t - 1], [0, 1], [2])
        mom_op.apply_gradients([(y_feed, var0), (const([3.0, 3.0], dtype), var1)])
        var0_np, accum0_np = _update_nesterov_momentum_numpy(
            var0_np, accum0_np, var0_np * 10, 2.0, 0.9
        )
        var1_np, accum1_np = _update_nesterov_momentum_numpy(var1_np, accum1_np, 3, 2.0, 0.9)
        assert_all_close(var0_np, var0)
        assert_all_close(var1_np, var1)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_minimize_sparse_resource_variable(dtype):
    """momentum_test.py MomentumOptimizerTest.testMinimizeSparseResourceVariable"""
    var0 = var([[1.0, 2.0]], dtype)
    Momentum(learning_rate=1.0, momentum=0.0).minimize(embedding_matmul_loss(var0, dtype))
    assert_all_close_according_to_type([[-111, -138]], var0)


def test_minimize_with_2d_indices_for_embedding_lookup():
    """momentum_test.py MomentumOptimizerTest.testMinimizeWith2DIndicesForEmbeddingLookup"""
    var0 = var(np.ones([2, 2]))

    def loss():
        return cn.core.sum(cn.nn.embedding_lookup(var0, np.array([[1]])))

    Momentum(learning_rate=1.0, momentum=0.0).minimize(loss)
    assert_all_close_according_to_type([[1, 1], [0, 0]], var0)


DB_GRAD = [
    [0.00096264342, 0.17914793, 0.93945462, 0.41396621, 0.53037018,
     0.93197989, 0.78648776, 0.50036013, 0.55345792, 0.96722615],
    [0.17075552, 0.88821375, 0.20873757, 0.25236958, 0.57578111, 0.15312378,
     0.5513742, 0.94687688, 0.16012503, 0.22159521],
    [0.35077485, 0.47304362, 0.44412705, 0.44368884, 0.078527533, 0.81223965,
     0.31168157, 0.43203235, 0.16792089, 0.24644311],
    [0.9694621, 0.75035888, 0.28171822, 0.83813518, 0.53807181, 0.3728098,
     0.81454384, 0.03848977, 0.89759839, 0.93665648],
    [0.38578293, 0.8536852, 0.88722926, 0.66276771, 0.13678469, 0.94036359,
     0.69107032, 0.81897682, 0.5433259, 0.67860287],
    [0.27885768, 0.76100707, 0.24625534, 0.81354135, 0.18959245, 0.48038563,
     0.84163809, 0.41172323, 0.83259648, 0.44941229],
    [0.27233034, 0.056316052, 0.5039115, 0.24105175, 0.35697976, 0.75913221,
     0.73577434, 0.16014607, 0.57500273, 0.071136251],
    [0.58697265, 0.2494842, 0.08106143, 0.39954534, 0.15892942, 0.12683646,
     0.74053431, 0.16033, 0.66625422, 0.73515922],
    [0.8215279, 0.41994119, 0.95172721, 0.68000203, 0.79439718, 0.43384039,
     0.55561525, 0.22567581, 0.93331909, 0.29438227],
    [0.68297005, 0.67758518, 0.1748755, 0.13266537, 0.70697063, 0.055731893,
     0.68593478, 0.50580865, 0.12602448, 0.093537711],
]  # fmt: skip
DB_OUT = [
    [-9.6264346e-05, -0.017914793, -0.093945466, -0.041396622, -0.053037018,
     -0.093197994, -0.078648776, -0.050036013, -0.055345792, -0.096722618],
    [-0.017181443, -0.10852765, -0.12421377, -0.070773244, -0.11591884,
     -0.11783017, -0.14165108, -0.14972731, -0.076892875, -0.1285544],
    [-0.053967446, -0.1648933, -0.1716533, -0.1180798, -0.13005978,
     -0.20151734, -0.17911947, -0.20289968, -0.095839672, -0.15638189],
    [-0.15459226, -0.24556576, -0.20456907, -0.20662397, -0.18528105,
     -0.24716705, -0.2643207, -0.21206589, -0.18749419, -0.2528303],
    [-0.20323303, -0.33900154, -0.29658359, -0.28175515, -0.20448165,
     -0.34576839, -0.34194785, -0.29488021, -0.25099224, -0.33033544],
    [-0.23598288, -0.42444581, -0.33041057, -0.3706224, -0.22536094,
     -0.40366709, -0.43387437, -0.34433398, -0.34060168, -0.38302717],
    [-0.26649091, -0.43862185, -0.38418442, -0.40361428, -0.26314685,
     -0.48537019, -0.51664448, -0.36529395, -0.40706289, -0.39540997],
    [-0.32823896, -0.46498787, -0.39766794, -0.446868, -0.28281838,
     -0.50622416, -0.59897494, -0.38342294, -0.48033443, -0.47016418],
    [-0.41656655, -0.50961858, -0.49418902, -0.51919359, -0.36422527,
     -0.55169362, -0.6627695, -0.40780342, -0.58099347, -0.50707781],
    [-0.49369633, -0.58184016, -0.52132869, -0.5396927, -0.44306302,
     -0.56181377, -0.73774242, -0.46082234, -0.60366184, -0.52012295],
]  # fmt: skip


def test_like_dist_belief_mom01():
    """momentum_test.py MomentumOptimizerTest.testLikeDistBeliefMom01"""
    var0 = var([0.0] * len(DB_GRAD))
    mom_opt = Momentum(learning_rate=0.1, momentum=0.1)
    for grad, out in zip(DB_GRAD, DB_OUT):
        mom_opt.apply_gradients(zip([const(grad)], [var0]))
        assert_all_close(np.array(out), var0)


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_sparse(dtype):
    """momentum_test.py MomentumOptimizerTest.testSparse"""
    var0 = var(np.zeros([4, 2]), dtype)
    var1 = var(np.full([4, 2], 1.0), dtype)
    grads0 = indexed_slices(const([[0.1, 0.1]], dtype), [1], [4, 2])
    grads1 = indexed_slices(const([[0.01, 0.01], [0.01, 0.01]], dtype), [2, 3], [4, 2])
    mom_opt = Momentum(learning_rate=2.0, momentum=0.9)
    mom_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
    assert mom_opt.get_slot_names() == ["momentum"]
    slot0, slot1 = mom_opt.get_slot(var0, "momentum"), mom_opt.get_slot(var1, "momentum")
    assert slot0.shape == var0.shape and slot1.shape == var1.shape
    assert_all_close_according_to_type(np.array([0, 0]), slot0.numpy()[0])
    assert_all_close_according_to_type(np.array([0.1, 0.1]), slot0.numpy()[1])
    assert_all_close_according_to_type(np.array([0.01, 0.01]), slot1.numpy()[2])
    assert_all_close_according_to_type(np.array([0, 0]), var0.numpy()[0])
    assert_all_close_according_to_type(np.array([-(0.1 * 2.0), -(0.1 * 2.0)]), var0.numpy()[1])
    assert_all_close_according_to_type(
        np.array([1.0 - (0.01 * 2.0), 1.0 - (0.01 * 2.0)]), var1.numpy()[2]
    )
    mom_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
    assert_all_close(np.array([0, 0]), slot0.numpy()[0])
    assert_all_close_according_to_type(
        np.array([(0.9 * 0.1 + 0.1), (0.9 * 0.1 + 0.1)]), slot0.numpy()[1]
    )
    assert_all_close_according_to_type(
        np.array([(0.9 * 0.01 + 0.01), (0.9 * 0.01 + 0.01)]), slot1.numpy()[2]
    )
    assert_all_close(np.array([0, 0]), var0.numpy()[0])
    assert_all_close_according_to_type(
        np.array(
            [-(0.1 * 2.0) - ((0.9 * 0.1 + 0.1) * 2.0), -(0.1 * 2.0) - ((0.9 * 0.1 + 0.1) * 2.0)]
        ),
        var0.numpy()[1],
    )
    assert_all_close_according_to_type(
        np.array([0.98 - ((0.9 * 0.01 + 0.01) * 2.0), 0.98 - ((0.9 * 0.01 + 0.01) * 2.0)]),
        var1.numpy()[2],
    )


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_sharing(dtype):
    """momentum_test.py MomentumOptimizerTest.testSharing (two update ops of one
    optimizer: eagerly, two apply_gradients calls)"""
    _do_test_basic(dtype, 2.0, 0.9)
