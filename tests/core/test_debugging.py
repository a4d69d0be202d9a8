"""cn.debugging against tf.compat.v1.debugging: TF 2.15's signatures and error types
(printed by tests/core/golden/print_tf_debugging.py), and zero_fraction."""

import inspect

import numpy as np
import pytest

import colonnade as cn

debugging = cn.debugging
TF_SIGNATURES = {
    **{
        n: "x y data summarize message name"
        for n in ("equal", "none_equal", "less", "less_equal", "greater", "greater_equal")
    },
    **{
        n: "x data summarize message name"
        for n in ("positive", "negative", "non_negative", "non_positive")
    },
    "near": "x y rtol atol data summarize message name",
    "all_finite": "t msg name x message",
    "integer": "x message name",
    "type": "tensor tf_type message name",
    "rank": "x rank data summarize message name",
    "rank_at_least": "x rank data summarize message name",
    "rank_in": "x ranks data summarize message name",
    "scalar": "tensor name message",
    "proper_iterable": "values",
}


@pytest.mark.parametrize("name", sorted(TF_SIGNATURES))
def test_signatures_are_tfs(name):
    fn = getattr(debugging, "assert_" + name)
    assert list(inspect.signature(fn).parameters) == TF_SIGNATURES[name].split()


X = np.array([1.0, -2.0])


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: debugging.assert_positive(X), debugging.InvalidArgumentError),
        (lambda: debugging.assert_less(X, 0.0), debugging.InvalidArgumentError),
        (lambda: debugging.assert_rank(X, 2), ValueError),
        (lambda: debugging.assert_scalar(X), ValueError),
        (lambda: debugging.assert_integer(X), TypeError),
        (lambda: debugging.assert_type(X, np.float32), TypeError),
        (lambda: debugging.assert_proper_iterable("abc"), TypeError),
        (
            lambda: debugging.assert_near(np.array([1.0]), np.array([1.0 + 1e-9])),
            debugging.InvalidArgumentError,
        ),
    ],
)
def test_failures_raise_tfs_error_types(call, error):
    with pytest.raises(error):
        call()


def test_passing_asserts_return_none_and_messages_name_the_check():
    assert debugging.assert_less(X, 2.0) is None
    assert debugging.assert_rank_in(X, [1, 2]) is None
    assert debugging.assert_near(np.array([1.0]), np.array([1.0])) is None
    assert debugging.assert_type(X, "float64") is None
    # TF 2.15's eager message: where x and y differ, then their first entries
    with pytest.raises(
        ValueError,
        match=r"^weights\nCondition x >= y did not hold.\nIndices of first 1 different values:"
        r"\n\[\[1\]\]\nCorresponding x values:\n\[-2.\]\n",
    ):
        debugging.assert_greater_equal(X, 0.0, message="weights")
    with pytest.raises(FloatingPointError, match="bad : Tensor had NaN"):
        debugging.assert_all_finite(np.array([np.nan]), "bad")


def test_zero_fraction():
    # TF 2.15: tf.math.zero_fraction([0, 1, 0, 2]) = 0.5
    assert cn.nn.zero_fraction(np.array([0.0, 1.0, 0.0, 2.0])) == 0.5
    assert cn.nn.zero_fraction(cn.core.Variable([[0.0, 3.0, 0.0]])) == pytest.approx(2 / 3)
