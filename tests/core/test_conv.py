"""tf.nn's convolutions and pools against TF 2.15 (golden/tf_conv.json, written on TF by
golden/make_tf_conv.py): outputs and the gradients of ``sum(output * w)`` for the input and
the filters; and the TF 1 layers over them (variable names, shapes)."""

import json
import pathlib

import numpy as np
import pytest

import colonnade as cn
from colonnade.core import conv
from colonnade.core.autodiff import gradients

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" / "tf_conv.json").read_text())


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda c: f"{c['op']}-{c['kwargs']}")
def test_matches_tf(case):
    x = cn.core.Variable(np.asarray(case["x"], np.float32))
    params = [x]
    if case["k"] is not None:
        k = cn.core.Variable(np.asarray(case["k"], np.float32))
        params.append(k)
        y = getattr(conv, case["op"])(x, k, **case["kwargs"])
    else:
        y = getattr(conv, case["op"])(x, **case["kwargs"])
    np.testing.assert_allclose(y.numpy(), case["y"], rtol=1e-5, atol=1e-5)
    loss = cn.core.sum(y * np.asarray(case["w"], np.float32))
    grads = gradients(loss, params)
    np.testing.assert_allclose(grads[0], case["dx"], rtol=1e-5, atol=1e-5)
    if case["dk"] is not None:
        np.testing.assert_allclose(grads[1], case["dk"], rtol=1e-5, atol=1e-5)


def test_goldens_are_tf():
    assert GOLDEN["tensorflow"] == "2.15.1" and len(GOLDEN["cases"]) == 11


def test_bad_arguments_are_named():
    x = np.zeros((1, 4, 4, 2), np.float32)
    with pytest.raises(ValueError, match="channels"):
        conv.conv2d(x, np.zeros((2, 2, 3, 1), np.float32))
    with pytest.raises(ValueError, match="padding must be"):
        conv.max_pool2d(x, 2, 2, "FULL")
    with pytest.raises(ValueError, match="rank-4"):
        conv.conv2d(x[0], np.zeros((2, 2, 2, 1), np.float32))
    with pytest.raises(ValueError, match="larger than the input"):
        conv.max_pool2d(x, 5, 1, "VALID")


def test_layers_make_tf1s_variables():
    x = np.ones((2, 8, 8, 3), np.float32)
    store = cn.core.VariableStore(seed=0)
    with store.as_default():
        h = cn.layers.conv2d(x, 4, 3, padding="same", activation=cn.nn.relu)
        h = cn.layers.max_pooling2d(h, 2, 2)
        h = cn.layers.conv2d(h, 2, (2, 2))
        h = cn.layers.average_pooling2d(h, 3, 1)
        flat = cn.layers.flatten(h)
        seq = cn.layers.conv1d(np.ones((2, 5, 3), np.float32), 2, 2, strides=2)
        seq = cn.layers.max_pooling1d(seq, 2, 1)
    assert h.shape == (2, 1, 1, 2) and flat.shape == (2, 2) and seq.shape == (2, 1, 2)
    shapes = {n: tuple(v.shape) for n, v in store.variables().items()}
    assert shapes == {
        "conv2d/kernel": (3, 3, 3, 4),
        "conv2d/bias": (4,),
        "conv2d_1/kernel": (2, 2, 4, 2),
        "conv2d_1/bias": (2,),
        "conv1d/kernel": (2, 3, 2),
        "conv1d/bias": (2,),
    }


def test_channels_first_layers_compute_the_transposed_result():
    x = np.random.default_rng(1).normal(size=(2, 6, 5, 3)).astype(np.float32)
    outs = []
    for fmt, data in (("channels_last", x), ("channels_first", x.transpose(0, 3, 1, 2))):
        with cn.core.VariableStore(seed=4).as_default():
            h = cn.layers.conv2d(data, 2, 3, padding="same", data_format=fmt)
            outs.append(cn.layers.max_pooling2d(h, 2, 2, data_format=fmt).numpy())
    np.testing.assert_allclose(outs[1], outs[0].transpose(0, 3, 1, 2), rtol=1e-6)


def test_nn_names():
    x = np.ones((1, 4, 4, 1), np.float32)
    assert cn.nn.max_pool is cn.nn.max_pool2d and cn.compat.v1.nn.conv2d is cn.nn.conv2d
    assert cn.nn.avg_pool(x, 2, 2, "VALID").shape == (1, 2, 2, 1)


def test_dense_layer_object_names_and_reuses_its_variables():
    x = np.ones((2, 3), np.float32)
    store = cn.core.VariableStore(seed=0)
    with store.as_default():
        first, second = (
            cn.layers.Dense(4, activation=cn.nn.relu),
            cn.layers.Dense(1, use_bias=False),
        )
        y = second(first(x))
        again = second(first(x))
    assert sorted(store.variables()) == ["dense/bias", "dense/kernel", "dense_1/kernel"]
    np.testing.assert_array_equal(y.numpy(), again.numpy())
    with pytest.raises(TypeError, match="unexpected keyword"):
        cn.layers.Dense(2, kernel_size=3)
