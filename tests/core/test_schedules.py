"""Learning-rate schedules against TensorFlow's values and against their formulas.

Golden values: ``golden/schedules.json`` was produced once by TensorFlow 2.15.1's
``tf.compat.v1.train.*_decay`` functions (see ``golden/make_goldens.py``), at step 0, each
boundary and its neighbours, and far past the end. Where TF accepted a float64 learning
rate the values are float64; a few cosine schedules mix in float32 constants and were
computed in float32 (``tf_dtype``), so they get a float32 tolerance.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import colonnade as cn

Variable = cn.core.Variable

GOLDEN = json.loads((Path(__file__).parent / "golden" / "schedules.json").read_text())["cases"]
train = cn.train

steps = st.integers(min_value=0, max_value=10_000)
rates = st.floats(min_value=1e-4, max_value=10.0)
decay_steps = st.integers(min_value=1, max_value=500)
unit = st.floats(min_value=0.0, max_value=1.0)


VARIABLE_STEP_CASES = {("exponential_decay", "staircase"), ("piecewise_constant", "three")}


def call(fn, step, kwargs):
    if fn == "piecewise_constant":
        return train.piecewise_constant(step, **kwargs)
    return getattr(train, fn)(global_step=step, **kwargs)


@pytest.mark.parametrize("case", GOLDEN, ids=[f"{c['fn']}-{c['case']}" for c in GOLDEN])
def test_matches_tensorflow(case):
    rtol = 1e-12 if case["tf_dtype"] == "float64" else 2e-6
    for step, want in zip(case["steps"], case["values"]):
        got = call(case["fn"], step, case["kwargs"])
        assert type(got) is float
        assert got == pytest.approx(want, rel=rtol, abs=1e-7), f"step {step}"


@pytest.mark.parametrize(
    "case",
    [c for c in GOLDEN if (c["fn"], c["case"]) in VARIABLE_STEP_CASES],
    ids=lambda c: c["fn"],
)
def test_variable_step_gives_a_value_that_follows_it(case):
    variable = Variable(0, dtype=np.int64)
    as_var = call(case["fn"], variable, case["kwargs"])
    for step in case["steps"]:
        variable.assign(step)
        assert float(as_var) == call(case["fn"], step, case["kwargs"]) == as_var()


@given(lr=rates, step=steps, ds=decay_steps, rate=unit, staircase=st.booleans())
def test_exponential_inverse_natural_formulas(lr, step, ds, rate, staircase):
    p = step // ds if staircase else step / ds
    assert train.exponential_decay(lr, step, ds, rate, staircase) == pytest.approx(lr * rate**p)
    assert train.inverse_time_decay(lr, step, ds, rate, staircase) == pytest.approx(
        lr / (1 + rate * p)
    )
    assert train.natural_exp_decay(lr, step, ds, rate, staircase) == pytest.approx(
        lr * math.exp(-rate * p)
    )


@given(lr=rates, step=steps, ds=decay_steps, rate=unit)
def test_staircase_is_constant_within_a_period(lr, step, ds, rate):
    start = (step // ds) * ds
    assert train.exponential_decay(lr, step, ds, rate, staircase=True) == train.exponential_decay(
        lr, start, ds, rate, staircase=True
    )


@given(
    lr=rates,
    end=st.floats(0, 1e-3),
    step=steps,
    ds=decay_steps,
    power=st.floats(0.1, 3.0),
    cycle=st.booleans(),
)
def test_polynomial_decay_formula(lr, end, step, ds, power, cycle):
    if cycle:
        period = ds * max(1, math.ceil(step / ds))
        s = step
    else:
        period, s = ds, min(step, ds)
    want = (lr - end) * (1 - s / period) ** power + end
    got = train.polynomial_decay(lr, step, ds, end, power, cycle)
    assert got == pytest.approx(want)
    if not cycle:
        assert min(lr, end) - 1e-12 <= got <= max(lr, end) + 1e-12


@given(
    boundaries=st.lists(st.integers(-50, 50), min_size=1, max_size=6, unique=True).map(sorted),
    x=st.integers(-60, 60),
)
def test_piecewise_constant_by_linear_scan(boundaries, x):
    values = [float(i) for i in range(len(boundaries) + 1)]
    want = next((values[i] for i, b in enumerate(boundaries) if x <= b), values[-1])
    assert train.piecewise_constant(x, boundaries, values) == want


def test_piecewise_constant_boundary_takes_the_earlier_value():
    assert train.piecewise_constant(100, [100, 200], [1.0, 0.5, 0.1]) == 1.0
    assert train.piecewise_constant(101, [100, 200], [1.0, 0.5, 0.1]) == 0.5
    assert train.piecewise_constant(200, [100, 200], [1.0, 0.5, 0.1]) == 0.5
    assert train.piecewise_constant(201, [100, 200], [1.0, 0.5, 0.1]) == 0.1


@given(lr=rates, step=steps, ds=decay_steps, alpha=unit)
def test_cosine_decay_formula(lr, step, ds, alpha):
    s = min(step, ds)
    want = lr * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * s / ds)) + alpha)
    assert train.cosine_decay(lr, step, ds, alpha) == pytest.approx(want)


@given(
    lr=rates,
    first=st.integers(1, 50),
    t_mul=st.sampled_from([1.0, 1.5, 2.0, 3.0]),
    m_mul=st.floats(0.1, 1.0),
    alpha=unit,
    period=st.integers(0, 6),
    into=unit,
)
def test_cosine_decay_restarts_periods(lr, first, t_mul, m_mul, alpha, period, into):
    """Period i starts after first * (1 + t_mul + ... + t_mul**(i-1)) steps and lasts
    first * t_mul**i; at its start the value is lr * ((1 - alpha) * m_mul**i + alpha)."""
    start = first * sum(t_mul**k for k in range(period))
    length = first * t_mul**period
    step = start + into * length * 0.999
    cosine = 0.5 * m_mul**period * (1 + math.cos(math.pi * (step - start) / length))
    want = lr * ((1 - alpha) * cosine + alpha)
    assert train.cosine_decay_restarts(lr, step, first, t_mul, m_mul, alpha) == pytest.approx(
        want, rel=1e-9, abs=1e-12
    )


@given(lr=rates, step=steps, ds=decay_steps, periods=st.floats(0.0, 4.0), alpha=unit, beta=unit)
def test_linear_cosine_decay_formula(lr, step, ds, periods, alpha, beta):
    s = min(step, ds)
    cosine = 0.5 * (1 + math.cos(math.pi * 2 * periods * s / ds))
    want = lr * ((alpha + (ds - s) / ds) * cosine + beta)
    assert train.linear_cosine_decay(lr, step, ds, periods, alpha, beta) == pytest.approx(want)


@given(seed=st.integers(0, 2**31), step=steps, ds=decay_steps)
def test_noisy_linear_cosine_decay_replays_its_seeded_noise(seed, step, ds):
    lr, variance, vdecay = 0.5, 1.0, 0.55
    got = train.noisy_linear_cosine_decay(lr, step, ds, variance, vdecay, seed=seed)
    assert got == train.noisy_linear_cosine_decay(lr, step, ds, variance, vdecay, seed=seed)
    s = min(step, ds)
    noise = np.random.default_rng([seed, step]).normal(0.0, math.sqrt(variance / (1 + s) ** vdecay))
    cosine = 0.5 * (1 + math.cos(math.pi * 2 * 0.5 * s / ds))
    assert got == pytest.approx(lr * (((ds - s) / ds + noise) * cosine + 0.001))


def test_noisy_linear_cosine_decay_without_variance_is_linear_cosine():
    for step in (0, 3, 10, 50):
        assert train.noisy_linear_cosine_decay(1.0, step, 10, initial_variance=0.0) == (
            pytest.approx(train.linear_cosine_decay(1.0, step, 10))
        )


def test_unseeded_noise_varies():
    draws = {train.noisy_linear_cosine_decay(1.0, 2, 10) for _ in range(5)}
    assert len(draws) > 1


@pytest.mark.parametrize(
    "fn, kwargs, message",
    [
        (
            "exponential_decay",
            dict(global_step=None, decay_steps=10, decay_rate=0.5),
            "global_step is required for exponential_decay",
        ),
        (
            "exponential_decay",
            dict(global_step=1, decay_steps=0, decay_rate=0.5),
            r"decay_steps must be > 0, got 0",
        ),
        (
            "inverse_time_decay",
            dict(global_step=1, decay_steps=-5, decay_rate=0.5),
            r"decay_steps must be > 0, got -5",
        ),
        ("polynomial_decay", dict(global_step=1, decay_steps=0), r"decay_steps must be > 0"),
        (
            "cosine_decay_restarts",
            dict(global_step=1, first_decay_steps=0),
            r"first_decay_steps must be > 0",
        ),
        (
            "cosine_decay_restarts",
            dict(global_step=1, first_decay_steps=10, t_mul=0.0),
            r"t_mul must be > 0",
        ),
        (
            "noisy_linear_cosine_decay",
            dict(global_step=1, decay_steps=10, initial_variance=-1.0),
            r"initial_variance must be >= 0",
        ),
    ],
)
def test_bad_arguments(fn, kwargs, message):
    with pytest.raises(ValueError, match=message):
        getattr(train, fn)(0.1, **kwargs)


def test_piecewise_constant_bad_arguments():
    with pytest.raises(ValueError, match="one more value than boundaries; got 2 boundaries"):
        train.piecewise_constant(3, [1, 2], [1.0, 2.0])
    with pytest.raises(ValueError, match="boundaries must be increasing"):
        train.piecewise_constant(3, [5, 2], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="x must be a number"):
        train.piecewise_constant("three", [5], [1.0, 2.0])


def test_a_decay_on_the_global_step_follows_it_while_training():
    # TF1: lr = exponential_decay(0.1, global_step, 1, 0.5) re-evaluates at each step, so
    # three steps of d(w)/dw = 1 move w by 0.1 + 0.05 + 0.025 (hand computed): 0.825, not
    # 1 - 3 * 0.1 = 0.70 as a rate frozen at step 0 would
    global_step = Variable(0, dtype=np.int64, trainable=False)
    w = Variable(1.0)
    opt = train.GradientDescentOptimizer(train.exponential_decay(0.1, global_step, 1, 0.5))
    for _ in range(3):
        opt.minimize(lambda: w * 1.0, global_step=global_step, var_list=[w])
    assert float(w.numpy()) == pytest.approx(0.825, rel=1e-6)


def test_piecewise_constant_refuses_mixed_types_as_tf():
    with pytest.raises(ValueError, match="boundaries must be ints, as x"):
        train.piecewise_constant(Variable(0, dtype=np.int32), [-1.0, 1.0], [1, 2, 3])
    with pytest.raises(ValueError, match="values must all be of one type"):
        train.piecewise_constant(Variable(0.0), [-1.0, 1.0], [1.0, 2, 3])
    assert train.piecewise_constant(Variable(0, dtype=np.int64), [1, 2], [0.4, 0.5, 0.6])() == 0.4


def test_canned_optimizer_factory_sees_the_estimators_global_step():
    # TF's canned pattern: optimizer=lambda: Opt(exponential_decay(..., get_global_step()))
    from colonnade.estimators.canned.model import resolve_optimizer

    step = Variable(0, dtype=np.int64, trainable=False)

    def factory():
        rate = train.exponential_decay(0.1, train.get_global_step(), 1, 0.5)
        return train.GradientDescentOptimizer(rate)

    opt = resolve_optimizer(factory, None, 0.05, step)
    step.assign(2)
    assert float(opt.learning_rate) == pytest.approx(0.1 * 0.5**2)


def test_overflow_and_bad_bases_give_tfs_inf_and_nan():
    """TF 2.15's values of the same calls (``tf.compat.v1.train.*_decay(...)()``): its float
    arithmetic gives inf and nan where Python's raises or turns complex."""
    from colonnade.core import schedules as S

    assert S.exponential_decay(0.1, -1, 1, 0.0) == math.inf  # 0 ** -1
    assert S.natural_exp_decay(0.1, 1, 1.0, -710.0) == math.inf  # exp(710)
    assert S.inverse_time_decay(0.1, 1, 1, -1.0) == math.inf  # 0.1 / 0
    assert math.isnan(S.exponential_decay(0.1, 1, 2, -0.5))  # (-0.5) ** 0.5


@pytest.mark.parametrize("step", [float("inf"), float("-inf"), float("nan")])
@pytest.mark.parametrize(
    "decay",
    [
        lambda s: cn.train.cosine_decay(0.1, s, 1.0),
        lambda s: cn.train.exponential_decay(0.1, s, 10, 0.5),
        lambda s: cn.train.polynomial_decay(0.1, s, 10),
        lambda s: cn.train.noisy_linear_cosine_decay(0.1, s, 10),
    ],
)
def test_a_non_finite_step_is_refused_by_name(decay, step):
    # TF 2.15 returns NaN (cosine_decay at -inf) or 0.0 (exponential_decay at inf);
    # docs/tf_differences.md
    with pytest.raises(ValueError, match="global_step must be a finite number"):
        decay(step)
