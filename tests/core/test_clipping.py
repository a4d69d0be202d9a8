"""Clipping against hand-computed values, dense and IndexedRows, with TF's edge cases."""

import math

import numpy as np
import pytest

import colonnade as cn

C = cn.core


def rows(indices, values, shape):
    return C.IndexedRows(np.array(indices), np.array(values, dtype=np.float64), shape)


def test_clip_by_value_dense_sparse_none():
    np.testing.assert_allclose(C.clip_by_value(np.array([-3.0, 0.5, 7.0]), -1, 2), [-1, 0.5, 2])
    clipped = C.clip_by_value(rows([4, 1], [[5.0], [-5.0]], (6, 1)), -1.0, 1.0)
    assert isinstance(clipped, C.IndexedRows)
    np.testing.assert_allclose(clipped.values, [[1.0], [-1.0]])
    assert C.clip_by_value(None, 0, 1) is None
    with pytest.raises(ValueError, match="must not exceed"):
        C.clip_by_value(np.ones(2), 2, 1)


def test_clip_by_norm_hand_computed():
    t = np.array([3.0, 4.0])  # norm 5
    np.testing.assert_allclose(C.clip_by_norm(t, 2.5), [1.5, 2.0])
    np.testing.assert_allclose(C.clip_by_norm(t, 10.0), t)
    per_row = C.clip_by_norm(np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0, axes=1)
    np.testing.assert_allclose(per_row, [[0.6, 0.8], [0.3, 0.4]])
    sparse = C.clip_by_norm(rows([0, 0], [[3.0], [4.0]], (2, 1)), 1.0)
    np.testing.assert_allclose(sparse.values, [[0.6], [0.8]])
    with pytest.raises(ValueError, match="clip_norm must be > 0"):
        C.clip_by_norm(t, 0.0)


@pytest.mark.parametrize("axes", [[1], (1,), np.array([1]), [-1]])
def test_clip_by_norm_takes_axes_as_a_list_like_tensorflow(axes):
    t = np.array([[3.0, 4.0], [0.3, 0.4]])  # row norms 5 and 0.5
    np.testing.assert_allclose(C.clip_by_norm(t, 1.0, axes=axes), [[0.6, 0.8], [0.3, 0.4]])


def test_clip_by_norm_over_both_axes_given_as_a_list_is_the_whole_norm():
    t = np.array([[3.0, 0.0], [0.0, 4.0]])  # norm 5
    np.testing.assert_allclose(C.clip_by_norm(t, 1.0, axes=[0, 1]), t / 5.0)


@pytest.mark.parametrize("axes", [[2], [0.5], ["0"], [True]])
def test_clip_by_norm_rejects_bad_axes(axes):
    with pytest.raises(ValueError, match=r"axes must be ints in \[-2, 2\)"):
        C.clip_by_norm(np.ones((2, 2)), 1.0, axes=axes)


def test_clip_by_average_norm_hand_computed():
    t = np.array([3.0, 4.0])  # l2 norm 5, 2 elements -> average norm 2.5
    np.testing.assert_allclose(C.clip_by_average_norm(t, 1.0), t * 1.0 / 2.5)
    np.testing.assert_allclose(C.clip_by_average_norm(t, 3.0), t)


def test_global_norm_and_clip_by_global_norm():
    a, b = np.array([3.0, 0.0]), rows([2], [[4.0]], (3, 1))
    assert C.global_norm([a, None, b]) == 5.0
    (ca, none, cb), norm = C.clip_by_global_norm([a, None, b], 2.0)
    assert norm == 5.0 and none is None
    np.testing.assert_allclose(ca, [1.2, 0.0])
    np.testing.assert_allclose(cb.values, [[1.6]])
    (unchanged,), _ = C.clip_by_global_norm([a], 10.0)
    np.testing.assert_allclose(unchanged, a)


def test_clip_by_global_norm_with_inf_gives_nan_like_tensorflow():
    (x, y), norm = C.clip_by_global_norm([np.array([np.inf, 1.0]), np.array([1.0])], 1.0)
    assert math.isinf(norm)
    assert np.isnan(x).all() and np.isnan(y).all()


def test_clipping_keeps_float32():
    t = np.array([3.0, 4.0], np.float32)
    assert C.clip_by_norm(t, 1.0).dtype == np.float32
    assert C.clip_by_global_norm([t], 1.0)[0][0].dtype == np.float32


def test_check_numerics_names_the_tensor():
    x = np.array([1.0, 2.0])
    assert C.check_numerics(x, "fine") is x
    with pytest.raises(FloatingPointError, match="dnn/logits : Tensor had NaN"):
        C.check_numerics(np.array([1.0, np.nan]), "dnn/logits")
    with pytest.raises(FloatingPointError, match="loss : Tensor had Inf"):
        C.check_numerics(np.array([np.inf]), "loss")


def test_clip_by_norm_on_a_tensor_keeps_its_gradient():
    # d/dx sum(x / |x|) at x = [3, 4] (|x| = 5 > clip_norm 1), hand computed:
    # 1/5 - x * 7 / 125 = [0.032, -0.024]
    x = cn.core.Variable(np.array([3.0, 4.0]))
    clipped = cn.core.clip_by_norm(x, 1.0, name="clip")
    (grad,) = cn.core.gradients([cn.core.sum(clipped)], [x])
    np.testing.assert_allclose(clipped.numpy(), [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(grad, [0.032, -0.024], rtol=1e-5)


def test_clip_by_value_takes_element_wise_bounds_and_checks_their_shape():
    x = np.array([[1.0, 5.0], [9.0, -3.0]])
    low, high = np.array([2.0, 0.0]), np.array([[4.0], [8.0]])
    np.testing.assert_array_equal(
        cn.core.clip_by_value(x, low, high, name="c"), [[2.0, 4.0], [8.0, 0.0]]
    )
    with pytest.raises(ValueError, match=r"clip_value_max of shape \(3,\) does not broadcast"):
        cn.core.clip_by_value(x, 0.0, np.ones(3))
