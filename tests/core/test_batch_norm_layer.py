"""cn.compat.v1.layers.batch_normalization / BatchNormalization beyond the TF goldens
(tests/tf/opsurface/test_batch_norm_goldens.py): the object form, default names,
trainable=False, the refused options, and the gradient by finite differences."""

import numpy as np
import pytest
from gradcheck import check_gradients

import colonnade as cn

LAYERS = cn.compat.v1.layers


def _x(shape=(5, 3), seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def test_object_reuses_its_variables_and_default_names_count_up():
    store = cn.core.VariableStore(seed=0)
    with store.as_default():
        bn = LAYERS.BatchNormalization(axis=1, momentum=0.5)
        bn(_x(), training=True)
        bn(_x(seed=1), training=True)
        LAYERS.batch_normalization(_x())
    names = sorted(store.variables())
    assert names == [
        "batch_normalization/beta",
        "batch_normalization/gamma",
        "batch_normalization/moving_mean",
        "batch_normalization/moving_variance",
        "batch_normalization_1/beta",
        "batch_normalization_1/gamma",
        "batch_normalization_1/moving_mean",
        "batch_normalization_1/moving_variance",
    ]
    a, b = _x(), _x(seed=1)
    want = 0.5 * (0.5 * 0 + 0.5 * a.mean(0)) + 0.5 * b.mean(0)  # two updates from zeros
    got = store.variables()["batch_normalization/moving_mean"].numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_trainable_false():
    store = cn.core.VariableStore(seed=0)
    with store.as_default():
        LAYERS.batch_normalization(_x(), trainable=False, center=False)
    assert sorted(store.variables()) == [
        "batch_normalization/gamma",
        "batch_normalization/moving_mean",
        "batch_normalization/moving_variance",
    ]
    assert not any(v.trainable for v in store.variables().values())


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"renorm": True}, "renorm"),
        ({"virtual_batch_size": 2}, "virtual_batch_size"),
        ({"fused": True}, "fused=True needs 4-D or 5-D"),
        ({"axis": 2}, "axis 2 is out of range"),
        ({"gamma_constraint": abs}, "constraint"),
    ],
)
def test_refused_options(kwargs, message):
    with cn.core.VariableStore(seed=0).as_default():
        with pytest.raises(ValueError, match=message):
            LAYERS.batch_normalization(_x(), **kwargs)


def test_unknown_keyword_of_the_object():
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        LAYERS.BatchNormalization(bogus=1)


def test_training_gradient_matches_finite_differences():
    x = _x((4, 2, 3), seed=2).astype(np.float64)
    store = cn.core.VariableStore(seed=0)

    def op(x):
        with store.as_default():
            return LAYERS.batch_normalization(x, axis=1, training=True, name="bn")

    check_gradients(op, [x], rtol=1e-3, atol=1e-5)
