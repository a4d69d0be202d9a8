"""Variables: what reading one gives back stays put while training goes on."""

import numpy as np

import colonnade as cn

C = cn.core


def test_numpy_is_a_copy_that_in_place_updates_do_not_change():
    v = C.Variable([1.0, 2.0], name="w")
    before = v.numpy()
    cn.train.GradientDescentOptimizer(0.5).apply_gradients([(np.array([2.0, 2.0]), v)])
    assert before.tolist() == [1.0, 2.0]
    assert v.numpy().tolist() == [0.0, 1.0]


def test_moving_average_read_each_step_keeps_each_steps_value():
    w = C.Variable([0.0], name="w")
    ema = cn.train.ExponentialMovingAverage(0.5)
    ema.apply([w])
    history = []
    for step in range(3):
        w.assign([float(step + 1)])
        ema.apply([w])
        history.append(ema.average(w).numpy())
    # shadow_0 = 0; shadow <- 0.5 * shadow + 0.5 * w for w = 1, 2, 3
    np.testing.assert_allclose(np.concatenate(history), [0.5, 1.25, 2.125])


def test_numpy_of_a_fused_part_is_a_copy_too():
    a, b = C.Variable([[1.0], [2.0]], name="a"), C.Variable([[3.0]], name="b")
    ab = C.fuse([a, b], "ab")
    before = b.numpy()
    ab.value[...] = 0.0
    assert before.tolist() == [[3.0]]
