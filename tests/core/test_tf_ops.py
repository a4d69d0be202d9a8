"""TF's reduce_*, *_like and identity: values against numpy, gradients against finite
differences, TF 1's argument spellings."""

import numpy as np
import pytest
from gradcheck import check_gradients
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn

C = cn.core
X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float64)


@pytest.mark.parametrize(
    "name, reference",
    [
        ("reduce_sum", np.sum),
        ("reduce_mean", np.mean),
        ("reduce_max", np.max),
        ("reduce_min", np.min),
        ("reduce_prod", np.prod),
        ("reduce_variance", np.var),
        ("reduce_std", np.std),
        (
            "reduce_logsumexp",
            lambda x, axis=None, keepdims=False: np.log(
                np.sum(np.exp(x), axis=axis, keepdims=keepdims)
            ),
        ),
    ],
)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_match_numpy(name, reference, axis, keepdims):
    got = getattr(C, name)(X, axis=axis, keepdims=keepdims).numpy()
    np.testing.assert_allclose(got, reference(X, axis=axis, keepdims=keepdims), rtol=1e-12)
    # TF 1's spellings give the same
    old = getattr(C, name)(X, reduction_indices=axis, keep_dims=keepdims).numpy()
    np.testing.assert_allclose(old, got, rtol=0)


@pytest.mark.parametrize(
    "name", ["reduce_sum", "reduce_mean", "reduce_prod", "reduce_logsumexp", "reduce_std"]
)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reduction_gradients_match_finite_differences(name, axis):
    op = getattr(C, name)
    x = X + 0.1  # no ties, no zeros
    check_gradients(lambda v: op(v, axis=axis), [x])


def test_prod_gradient_is_exact_at_zeros():
    """d prod / d x_i is the product of the others, also where x holds zeros."""
    x = cn.core.Variable(np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0]]))
    grads = C.gradients(C.sum(C.reduce_prod(x, axis=1)), [x])[0]
    np.testing.assert_array_equal(grads, [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0]])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-700, 700), min_size=1, max_size=6))
def test_logsumexp_is_stable(values):
    x = np.array(values)
    got = C.reduce_logsumexp(x).numpy()
    top = x.max()
    assert np.isfinite(got)
    np.testing.assert_allclose(got, top + np.log(np.exp(x - top).sum()), rtol=1e-12)


def test_any_all_like_and_identity():
    b = np.array([[True, False], [False, False]])
    assert C.reduce_any(b, axis=1).tolist() == [True, False]
    assert C.reduce_all(np.ones((2, 2)), keepdims=True).tolist() == [[True]]
    z, o = C.zeros_like(X), C.ones_like(X, dtype=np.int32)
    assert z.shape == X.shape and z.dtype == X.dtype and not z.any()
    assert o.dtype == np.int32 and (o == 1).all()
    v = cn.core.Variable(X)
    grads = C.gradients(C.sum(C.multiply(C.identity(v, name="same"), 3.0)), [v])[0]
    np.testing.assert_array_equal(grads, np.full_like(X, 3.0))


def test_both_spellings_of_one_argument_is_an_error():
    with pytest.raises(ValueError, match="axis or reduction_indices, not both"):
        C.reduce_sum(X, axis=0, reduction_indices=0)
    with pytest.raises(ValueError, match="keepdims or keep_dims, not both"):
        C.reduce_mean(X, keepdims=True, keep_dims=True)


def test_dropout_takes_tf1_keep_prob_and_noise_shape():
    x = np.ones((200, 4))
    kept = cn.nn.dropout(x, keep_prob=0.75, seed=3).numpy()
    np.testing.assert_array_equal(kept, cn.nn.dropout(x, 0.25, seed=3).numpy())
    assert set(np.unique(kept)) == {0.0, 1 / 0.75}
    rows = cn.nn.dropout(x, rate=0.5, noise_shape=[200, 1], seed=0).numpy()
    assert all(len(set(row)) == 1 for row in rows)  # one draw per row
    assert 0.3 < (rows[:, 0] == 0).mean() < 0.7
    for bad, message in (
        ({}, "rate or keep_prob"),
        ({"rate": 0.1, "keep_prob": 0.9}, "rate or keep_prob"),
        ({"keep_prob": 0.0}, r"keep_prob must be in \(0, 1\]"),
        ({"rate": 0.2, "noise_shape": [3, 1]}, "noise_shape"),
    ):
        with pytest.raises(ValueError, match=message):
            cn.nn.dropout(x, **bad)
