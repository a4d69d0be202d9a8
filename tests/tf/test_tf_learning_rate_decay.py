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
"""Port of tensorflow/python/keras/optimizer_v2/legacy_learning_rate_decay_test.py (the
tf.compat.v1.train decays; graph mode -> eager).

TF evaluates a decay built on a Variable step each time it is read (``self.evaluate(
decayed_lr)``): here ``float(decayed_lr)`` (or calling it) reads it.
"""

import math

import numpy as np
import pytest
from tf_port import assert_all_close

import colonnade as cn
from colonnade.core import Variable

train = cn.train


def evaluate(decayed_lr) -> float:
    """TF's ``self.evaluate`` of a decayed learning rate: a value, or (eager) a callable."""
    return float(decayed_lr() if callable(decayed_lr) else decayed_lr)


def test_continuous():
    """LRDecayTest.testContinuous"""
    decayed_lr = train.exponential_decay(0.05, 5, 10, 0.96)
    assert_all_close(evaluate(decayed_lr), 0.05 * 0.96 ** (5.0 / 10.0), 1e-6)


@pytest.mark.parametrize("method", ["testStaircase", "testVariables"])
def test_staircase(method):
    """LRDecayTest.testStaircase / LRDecayTest.testVariables"""
    step = Variable(0)
    decayed_lr = train.exponential_decay(0.1, step, 3, 0.96, staircase=True)
    step.assign(1)
    assert_all_close(evaluate(decayed_lr), 0.1, 1e-6)
    step.assign(2)
    assert_all_close(evaluate(decayed_lr), 0.1, 1e-6)
    step.assign(100)
    assert_all_close(evaluate(decayed_lr), 0.1 * 0.96 ** (100 // 3), 1e-6)


def test_piecewise_constant():
    """LRDecayTest.testPiecewiseConstant"""
    x = Variable(-999)
    decayed_lr = train.piecewise_constant(x, [100, 110, 120], [1.0, 0.1, 0.01, 0.001])
    assert_all_close(evaluate(decayed_lr), 1.0, 1e-6)
    for value, expected in [(100, 1.0), (105, 0.1), (110, 0.1), (120, 0.01), (999, 0.001)]:
        x.assign(value)
        assert_all_close(evaluate(decayed_lr), expected, 1e-6)


def test_piecewise_constant_edge_cases():
    """LRDecayTest.testPiecewiseConstantEdgeCases (the ref-type case is graph-only)"""
    x_int = Variable(0, dtype=np.int32)
    with pytest.raises(ValueError):
        evaluate(train.piecewise_constant(x_int, [-1.0, 1.0], [1, 2, 3]))
    x = Variable(0.0)
    with pytest.raises(ValueError):
        evaluate(train.piecewise_constant(x, [-1.0, 1.0], [1.0, 2, 3]))
    x_int64 = Variable(0, dtype=np.int64)
    decayed_lr = train.piecewise_constant(x_int64, [1, 2, 3], [0.4, 0.5, 0.6, 0.7])
    assert_all_close(evaluate(decayed_lr), 0.4, 1e-6)
    for value, expected in [(1, 0.4), (2, 0.5), (3, 0.6), (4, 0.7)]:
        x_int64.assign(value)
        assert_all_close(evaluate(decayed_lr), expected, 1e-6)


@pytest.mark.parametrize(
    ("step", "end_lr", "power", "cycle", "expected"),
    [
        (5, 0.0, 1.0, False, 0.05 * 0.5),
        (10, 0.001, 1.0, False, 0.001),
        (5, 0.001, 1.0, False, (0.05 + 0.001) * 0.5),
        (15, 0.001, 1.0, False, 0.001),
        (15, 0.001, 1.0, True, (0.05 - 0.001) * 0.25 + 0.001),
        (5, 0.0, 0.5, False, 0.05 * 0.5**0.5),
        (10, 0.001, 0.5, False, 0.001),
        (5, 0.001, 0.5, False, (0.05 - 0.001) * 0.5**0.5 + 0.001),
        (15, 0.001, 0.5, False, 0.001),
        (15, 0.001, 0.5, True, (0.05 - 0.001) * 0.25**0.5 + 0.001),
    ],
    ids=[
        "Linear.testHalfWay", "Linear.testEnd", "Linear.testHalfWayWithEnd",
        "Linear.testBeyondEnd", "Linear.testBeyondEndWithCycle", "Sqrt.testHalfWay",
        "Sqrt.testEnd", "Sqrt.testHalfWayWithEnd", "Sqrt.testBeyondEnd",
        "Sqrt.testBeyondEndWithCycle",
    ],
)  # fmt: skip
def test_polynomial(step, end_lr, power, cycle, expected):
    """LinearDecayTest.* and SqrtDecayTest.* (the ids name the method)"""
    decayed_lr = train.polynomial_decay(0.05, step, 10, end_lr, power=power, cycle=cycle)
    assert_all_close(evaluate(decayed_lr), expected, 1e-6)


def test_polynomial_begin_with_cycle():
    """PolynomialDecayTest.testBeginWithCycle"""
    decayed_lr = train.polynomial_decay(0.001, 0, 10, cycle=True)
    assert_all_close(evaluate(decayed_lr), 0.001, 1e-6)


def _natural_exp(initial_lr, i, k, decay_rate, staircase):
    if staircase:
        return initial_lr * math.exp(-decay_rate * (i // k))
    return initial_lr * math.exp(-i / k * decay_rate)


def _inverse_time(initial_lr, i, k, decay_rate, staircase):
    if staircase:
        return initial_lr / (1 + decay_rate * (i // k))
    return initial_lr / (1 + i / k * decay_rate)


@pytest.mark.parametrize("staircase", [False, True], ids=["testDecay", "testStaircase"])
@pytest.mark.parametrize(
    ("decay", "formula"),
    [(train.natural_exp_decay, _natural_exp), (train.inverse_time_decay, _inverse_time)],
    ids=["ExponentialDecayTest", "InverseDecayTest"],
)
def test_natural_exp_and_inverse_time_decay(decay, formula, staircase):
    """ExponentialDecayTest.testDecay / testStaircase (natural_exp_decay) and
    InverseDecayTest.testDecay / testStaircase (inverse_time_decay)"""
    initial_lr, k, decay_rate = 0.1, 10, 0.96
    step = Variable(0)
    decayed_lr = decay(initial_lr, step, k, decay_rate, staircase=staircase)
    for i in range(k + 1):
        expected = formula(initial_lr, i, k, decay_rate, staircase)
        assert_all_close(evaluate(decayed_lr), expected, 1e-6)
        step.assign_add(1)


def np_cosine_decay(step, decay_steps, alpha=0.0):
    step = min(step, decay_steps)
    completed_fraction = step / decay_steps
    decay = 0.5 * (1.0 + math.cos(math.pi * completed_fraction))
    return (1.0 - alpha) * decay + alpha


def np_cosine_decay_restarts(step, decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0):
    fac = 1.0
    while step >= decay_steps:
        step -= decay_steps
        decay_steps *= t_mul
        fac *= m_mul
    completed_fraction = step / decay_steps
    decay = fac * 0.5 * (1.0 + math.cos(math.pi * completed_fraction))
    return (1.0 - alpha) * decay + alpha


def np_linear_cosine_decay(step, decay_steps, alpha=0.0, beta=0.001, num_periods=0.5):
    step = min(step, decay_steps)
    linear_decayed = float(decay_steps - step) / decay_steps
    fraction = 2.0 * num_periods * step / float(decay_steps)
    cosine_decayed = 0.5 * (1.0 + math.cos(math.pi * fraction))
    return (alpha + linear_decayed) * cosine_decayed + beta


@pytest.mark.parametrize(
    ("decay", "reference", "kwargs"),
    [
        (train.cosine_decay, np_cosine_decay, {}),
        (train.cosine_decay, np_cosine_decay, {"alpha": 0.1}),
        (train.cosine_decay_restarts, np_cosine_decay_restarts, {}),
        (train.cosine_decay_restarts, np_cosine_decay_restarts, {"alpha": 0.1}),
        (train.cosine_decay_restarts, np_cosine_decay_restarts, {"m_mul": 0.9}),
        (train.cosine_decay_restarts, np_cosine_decay_restarts, {"t_mul": 1.0}),
        (train.linear_cosine_decay, np_linear_cosine_decay, {}),
        (
            train.linear_cosine_decay,
            np_linear_cosine_decay,
            {"alpha": 0.1, "beta": 1e-4, "num_periods": 5},
        ),
    ],
    ids=[
        "CosineDecayTest.testDecay", "CosineDecayTest.testAlpha",
        "CosineDecayRestartsTest.testDecay", "CosineDecayRestartsTest.testAlpha",
        "CosineDecayRestartsTest.testMMul", "CosineDecayRestartsTest.testTMul",
        "LinearCosineDecayTest.testDefaultDecay", "LinearCosineDecayTest.testNonDefaultDecay",
    ],
)  # fmt: skip
def test_cosine_decays(decay, reference, kwargs):
    """CosineDecayTest.*, CosineDecayRestartsTest.*, LinearCosineDecayTest.* (the ids
    name the method)"""
    for step in range(0, 1500, 250):
        decayed_lr = decay(1.0, step, 1000, **kwargs)
        assert_all_close(evaluate(decayed_lr), reference(step, 1000, **kwargs), 1e-6)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"initial_variance": 0.5, "variance_decay": 0.1, "alpha": 0.1, "beta": 1e-4,
         "num_periods": 5},
    ],
    ids=["testDefaultNoisyLinearCosine", "testNonDefaultNoisyLinearCosine"],
)  # fmt: skip
def test_noisy_linear_cosine_decay(kwargs):
    """NoisyLinearCosineDecayTest.* (no numerical check, as TF: the value is noisy)"""
    for step in range(0, 1500, 250):
        evaluate(train.noisy_linear_cosine_decay(1.0, step, 1000, **kwargs))
