"""ExponentialMovingAverage against TensorFlow and against a numpy replay.

Golden values: ``golden/moving_averages.json`` was produced once by TensorFlow 2.15.1
(``golden/make_goldens.py``): ``tf.compat.v1.train.ExponentialMovingAverage.apply`` run
eagerly after each of 5 assignments (with and without ``num_updates``), and TF's
``assign_moving_average(..., zero_debias=True)`` run as a TF1 graph for the zero-debiased
case. TF computes the decay in float32, hence the 1e-6 tolerance.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import colonnade as cn

Variable = cn.core.Variable

GOLDEN = {
    c["case"]: c
    for c in json.loads((Path(__file__).parent / "golden" / "moving_averages.json").read_text())[
        "cases"
    ]
}


@pytest.mark.parametrize("case_name", ["plain", "num_updates"])
def test_matches_tensorflow(case_name):
    case = GOLDEN[case_name]
    w = Variable(np.array(case["init"]), name="w")
    b = Variable(np.array([0.5]), name="b")
    step = Variable(0, dtype=np.int64, name="global_step")
    ema = cn.train.ExponentialMovingAverage(
        case["decay"], num_updates=step if case["num_updates"] else None
    )
    for value, want in zip(case["values"], case["averages"]):
        w.assign(value)
        b.assign(b.value + 0.25)
        ema.apply([w, b])
        step.assign_add(1)
        np.testing.assert_allclose(ema.average(w).numpy(), want["w"], rtol=1e-6)
        np.testing.assert_allclose(ema.average(b).numpy(), want["b"], rtol=1e-6)


def test_zero_debias_matches_tensorflow():
    case = GOLDEN["zero_debias"]
    v = Variable(np.zeros(3), name="zd")
    ema = cn.train.ExponentialMovingAverage(case["decay"], zero_debias=True)
    for value, want in zip(case["values"], case["averages"]):
        v.assign(value)
        ema.apply([v])
        np.testing.assert_allclose(ema.average(v).numpy(), want, rtol=1e-9)
    names = sorted(x.name for x in ema.variables())
    assert names == [
        "zd/ExponentialMovingAverage",
        "zd/ExponentialMovingAverage/biased",
        "zd/ExponentialMovingAverage/local_step",
    ]


def test_num_updates_decay_replayed_in_numpy():
    rng = np.random.default_rng(1)
    values = rng.normal(size=(30, 4))
    w = Variable(values[0], name="w")
    counter = {"n": 0}
    ema = cn.train.ExponentialMovingAverage(0.99, num_updates=lambda: counter["n"])
    shadow = values[0].copy()
    for n, value in enumerate(values):
        counter["n"] = n
        w.assign(value)
        ema.apply([w])
        decay = min(0.99, (1 + n) / (10 + n))
        shadow = decay * shadow + (1 - decay) * value
        assert ema.current_decay() == decay
    np.testing.assert_allclose(ema.average(w).numpy(), shadow, rtol=1e-12)


def test_float32_stays_float32_and_updates_in_place():
    w = Variable(np.ones(5, np.float32), name="w")
    ema = cn.train.ExponentialMovingAverage(0.5)
    ema.apply([w])
    shadow = ema.average(w)
    buffer = shadow.value
    w.assign(np.full(5, 3.0, np.float32))
    ema.apply()  # defaults to the variables already averaged
    assert shadow.value is buffer and shadow.value.dtype == np.float32
    np.testing.assert_array_equal(shadow.numpy(), np.full(5, 2.0, np.float32))
    assert not shadow.trainable


def test_names_lookups_and_variables_to_restore():
    w, b = Variable([1.0], name="dense/kernel"), Variable([2.0], name="dense/bias")
    step = Variable(0, name="global_step", dtype=np.int64)
    ema = cn.train.ExponentialMovingAverage(0.9, name="EMA")
    assert ema.average_name(w) == "dense/kernel/EMA"  # before apply, as TF
    assert ema.average(w) is None
    ema.apply([w])
    assert ema.average(w).name == "dense/kernel/EMA"
    assert ema.averages() == {w: ema.average(w)}
    assert ema.variables_to_restore() == {"dense/kernel/EMA": w}
    assert ema.variables_to_restore(variables=[w, b, step]) == {
        "dense/kernel/EMA": w,
        "dense/bias": b,
        "global_step": step,
    }
    # A listed variable without a shadow is still restored from its average's name (TF).
    assert ema.variables_to_restore([w, b]) == {"dense/kernel/EMA": w, "dense/bias/EMA": b}
    default = cn.train.ExponentialMovingAverage(0.9)
    assert default.average_name(w) == "dense/kernel/ExponentialMovingAverage"


def test_errors():
    with pytest.raises(ValueError, match=r"decay must be in \[0, 1\], got 1\.5"):
        cn.train.ExponentialMovingAverage(1.5)
    with pytest.raises(ValueError, match=r"decay must be in \[0, 1\], got -0\.1"):
        cn.train.ExponentialMovingAverage(-0.1)
    ema = cn.train.ExponentialMovingAverage(0.9)
    with pytest.raises(ValueError, match="needs var_list on its first call"):
        ema.apply()
    with pytest.raises(TypeError, match="float32 or float64 variables; 'count' is int64"):
        ema.apply([Variable(3, name="count", dtype=np.int64)])
    with pytest.raises(TypeError, match="needs Variables, got ndarray"):
        ema.apply([np.ones(3)])


def test_checkpoint_saves_and_restores_the_shadows(tmp_path):
    w = cn.core.Variable(np.array([0.0, 0.0]), name="w")
    ema = cn.train.ExponentialMovingAverage(decay=0.5)
    ema.apply([w])
    w.assign([4.0, 8.0])
    ema.apply([w])  # shadow: 0 - 0.5 * (0 - [4, 8]) = [2, 4] (hand computed)
    path = cn.train.Checkpoint(ema=ema).save(str(tmp_path / "ckpt"))
    assert "ema/w/ExponentialMovingAverage" in {
        name.split("/.ATTRIBUTES")[0] for name, _ in cn.train.list_variables(path)
    }
    fresh_w = cn.core.Variable(np.array([0.0, 0.0]), name="w")
    fresh = cn.train.ExponentialMovingAverage(decay=0.5)
    fresh.apply([fresh_w])
    cn.train.Checkpoint(ema=fresh).restore(path).assert_consumed()
    assert fresh.average(fresh_w).numpy().tolist() == [2.0, 4.0]


def test_shadow_names_take_the_enclosing_variable_scope():
    # TF1 (checked with TF 2.15 in graph mode): ema.apply([v]) inside
    # variable_scope("outer") names the shadow outer/v/ExponentialMovingAverage
    v = cn.core.Variable([1.0], name="v")
    ema = cn.train.ExponentialMovingAverage(0.9)
    with cn.core.VariableStore().as_default(), cn.core.variable_scope("outer"):
        ema.apply([v])
    assert ema.average(v).name == "outer/v/ExponentialMovingAverage"
    assert ema.average_name(v) == "outer/v/ExponentialMovingAverage"
