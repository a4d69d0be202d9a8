# Copyright 2015 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""Every case of golden/batch_norm.json (``tf.compat.v1.layers.batch_normalization``
on TF 2.15, written by make_batch_norm_goldens.py) replayed on
``cn.compat.v1.layers``: TF's variable names, shapes and trainability, the training
output, the moving statistics after one update and the inference output."""

import json
import pathlib

import numpy as np
import pytest

import colonnade as cn

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" / "batch_norm.json").read_text())
CASES = GOLDEN["cases"]
LAYERS = cn.compat.v1.layers


def _input(shape, seed):  # make_batch_norm_goldens._input
    rng = np.random.default_rng(seed)
    return (rng.normal(size=shape) * 2.0 + 1.0).astype(np.float32)


def _close(got, want, what):
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got).reshape(-1)
    np.testing.assert_allclose(
        got, np.asarray(want, np.float32), rtol=2e-5, atol=2e-5, err_msg=what
    )


@pytest.mark.parametrize(
    "case", CASES, ids=[json.dumps(c["kwargs"]) + str(c["shape"]) for c in CASES]
)
def test_batch_normalization_matches_tf(case):
    x = _input(case["shape"], case["seed"])
    kwargs = case["kwargs"]
    name = kwargs.get("name", "batch_normalization")
    store = cn.core.VariableStore(seed=0)
    with store.as_default():
        out = LAYERS.batch_normalization(x, training=False, **kwargs)  # makes the variables
        variables = store.variables()
        assert {k: list(v.shape) for k, v in variables.items()} == case["variables"]
        trainable = sorted(k for k, v in variables.items() if v.trainable)
        assert trainable == case["trainable"]
        if f"{name}/gamma" in variables:
            variables[f"{name}/gamma"].assign(np.asarray(case["gamma"], np.float32))
        if f"{name}/beta" in variables:
            variables[f"{name}/beta"].assign(np.asarray(case["beta"], np.float32))
        assert cn.compat.v1.get_collection(cn.compat.v1.GraphKeys.UPDATE_OPS) == []
        rest = {k: v for k, v in kwargs.items() if k != "name"}
        train = LAYERS.batch_normalization(x, training=True, name=name, reuse=True, **rest)
        _close(train, case["train"], "training output")
        _close(variables[f"{name}/moving_mean"].value, case["moving_mean"], "moving_mean")
        _close(variables[f"{name}/moving_variance"].value, case["moving_variance"], "moving_var")
        infer = LAYERS.batch_normalization(x, training=False, name=name, reuse=True, **rest)
        _close(infer, case["inference"], "inference output")
    assert out.shape == x.shape


def test_goldens_are_tf_215():
    assert GOLDEN["tensorflow"] == "2.15.1" and len(CASES) >= 10
