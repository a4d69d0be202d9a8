"""gradients / value_and_grad / stop_gradient semantics, eagerly, as tf.gradients."""

import numpy as np
import pytest

import colonnade as cn

C = cn.core


def test_gradients_of_several_ys_with_grad_ys():
    x = C.Variable(np.array([1.0, 2.0]), dtype=np.float64)
    y1, y2 = x * x, x * 3.0
    (g,) = C.gradients([y1, y2], [x], grad_ys=[np.array([1.0, 10.0]), np.array([2.0, 2.0])])
    np.testing.assert_allclose(g, [2 * 1 * 1 + 6, 2 * 2 * 10 + 6])


def test_unconnected_variable_gets_none_and_stop_gradient_cuts():
    a = C.Variable([1.0, 2.0])
    b = C.Variable([3.0, 4.0])
    loss = C.sum(a * C.stop_gradient(b))
    ga, gb = C.gradients(loss, [a, b])
    np.testing.assert_allclose(ga, [3.0, 4.0])
    assert gb is None


def test_gradient_with_respect_to_an_intermediate_tensor():
    x = C.Variable([2.0])
    h = x * x
    y = C.sum(h * 5.0)
    gh, gx = C.gradients(y, [h, x])
    np.testing.assert_allclose(gh, [5.0])
    np.testing.assert_allclose(gx, [20.0])


def test_diamond_graph_accumulates():
    x = C.Variable([3.0])
    h = C.exp(x)
    y = C.sum(h * h + h)  # e^{2x} + e^x
    (g,) = C.gradients(y, [x])
    np.testing.assert_allclose(g, [2 * np.exp(6.0) + np.exp(3.0)], rtol=1e-6)


def test_value_and_grad_with_aux_and_scalar_check():
    w = C.Variable([1.0, -1.0])
    (loss, aux), (g,) = C.value_and_grad(lambda: (C.sum(w * w), "logits"), has_aux=True)([w])
    assert float(loss) == 2.0 and aux == "logits"
    np.testing.assert_allclose(g, [2.0, -2.0])
    with pytest.raises(ValueError, match="scalar loss"):
        C.value_and_grad(lambda: w * 2.0)([w])


def test_no_grad_records_nothing():
    w = C.Variable([1.0])
    with C.no_grad():
        y = w * 2.0
    assert y.parents == ()
    assert C.gradients(C.sum(y), [w]) == [None]


def test_reflected_operators_with_numpy_arrays():
    w = C.Variable(np.array([1.0, 2.0]), dtype=np.float64)
    y = np.array([2.0, 2.0]) - w / np.array([1.0, 4.0]) + 1
    np.testing.assert_allclose(y.numpy(), [2.0, 2.5])
    (g,) = C.gradients(C.sum(y), [w])
    np.testing.assert_allclose(g, [-1.0, -0.25])


def test_deep_chain_does_not_hit_the_recursion_limit():
    x = C.Variable([1.0], dtype=np.float64)
    y = x
    for _ in range(5000):
        y = y * 1.0001
    (g,) = C.gradients(C.sum(y), [x])
    np.testing.assert_allclose(g, [1.0001**5000], rtol=1e-9)
