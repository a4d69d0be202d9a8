"""Issue 41 (WEAK, Other): ``n_classes=2**31`` was a raw MemoryError at the first
``train`` (128 GiB for one kernel). A canned model's variables are now counted from its
columns and arguments when the estimator is made: over ``MAX_MODEL_VALUES`` (2^31
values) it is a ValueError naming the largest variable and the arguments that size it."""

import math

import numpy as np
import pytest

import colonnade as cn
from colonnade.estimators.canned.sizes import MAX_MODEL_VALUES

E = cn.estimators
fc = cn.feature_columns
X = fc.numeric_column("x")


def test_the_bound_is_two_to_the_31_values():
    assert MAX_MODEL_VALUES == 2**31


@pytest.mark.parametrize(
    "make, largest, shape, named",
    [
        (
            lambda: E.DNNClassifier([8], [X], n_classes=2**31),
            "dnn/logits/kernel",
            (8, 2**31),
            ["n_classes=2147483648"],
        ),
        (
            lambda: E.LinearClassifier([X], n_classes=2**31),
            "linear/x/weights",
            (1, 2**31),
            ["n_classes=2147483648"],
        ),
        (
            lambda: E.LinearRegressor([fc.categorical_column_with_hash_bucket("k", 2**40)]),
            "linear/k/weights",
            (2**40, 1),
            ["column 'k' num_buckets=1099511627776"],
        ),
        (
            lambda: E.DNNLinearCombinedClassifier(
                dnn_feature_columns=[
                    fc.embedding_column(fc.categorical_column_with_hash_bucket("k", 10**6), 10**4)
                ],
                dnn_hidden_units=[4],
            ),
            "dnn/input_from_feature_columns/input_layer/k_embedding/embedding_weights",
            (10**6, 10**4),
            ["column 'k' num_buckets=1000000", "column 'k_embedding' dimension=10000"],
        ),
    ],
    ids=["dnn_n_classes", "linear_n_classes", "hash_buckets", "embedding"],
)
def test_an_oversized_model_is_refused_when_made_naming_what_sizes_it(make, largest, shape, named):
    with pytest.raises(ValueError) as refused:
        make()
    message = str(refused.value)
    assert f"the largest is {largest!r} of shape {shape}" in message, message
    assert f"more than the {MAX_MODEL_VALUES:,} a canned model may hold" in message
    for name in named:
        assert name in message, message


def test_one_hidden_layer_too_big_keeps_its_own_error():
    """A single kernel over 2^31 - 1 weights is named by its layer (issue 29's check)."""
    with pytest.raises(ValueError, match=r"^hidden layer 1 \(100,000 inputs x 100,000 units\)"):
        E.DNNRegressor([10**5, 10**5], [X])


def test_a_model_at_the_bound_is_made():
    """(2^31 - 1) x 1 weights plus a bias of 1: exactly 2^31 values, made lazily."""
    ids = fc.categorical_column_with_identity("k", 2**31 - 1)
    est = E.LinearRegressor([ids])
    assert math.prod((2**31 - 1, 1)) + 1 == MAX_MODEL_VALUES
    assert isinstance(est, E.LinearRegressor)


def test_a_usual_model_trains():
    est = E.DNNClassifier([4], [X], n_classes=3)
    x = np.linspace(0, 1, 8, dtype=np.float32)
    est.train(lambda: ({"x": x}, (x * 2.9).astype(np.int64)), steps=1, verbose=0)
    assert est.global_step == 1
