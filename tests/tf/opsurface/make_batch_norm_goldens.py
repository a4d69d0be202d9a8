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
"""Write golden/batch_norm.json: ``tf.compat.v1.layers.batch_normalization`` run on TF
2.15 itself, in a TF 1 graph as a ``model_fn`` runs it.

Each case gives the layer's input and keywords, ``gamma``/``beta`` set before the run,
and what TF gave: the variables' names, shapes and trainability, the training output
(batch statistics), the moving statistics after running ``UPDATE_OPS`` once, and the
inference output with those moved statistics. ``test_batch_norm_goldens.py`` replays
them on ``cn.compat.v1.layers``. Run with ``tensorflow-cpu==2.15.1``:

    python tests/tf/opsurface/make_batch_norm_goldens.py
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).parent


def _input(shape, seed):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=shape) * 2.0 + 1.0).astype(np.float32)


CASES = [
    ((6, 3), {}),
    ((6, 3), {"axis": 1}),
    ((6, 3), {"axis": -1, "momentum": 0.9, "epsilon": 0.01}),
    ((6, 3), {"center": False}),
    ((6, 3), {"scale": False, "momentum": 0.5}),
    ((2, 3, 4, 5), {}),
    ((2, 3, 4, 5), {"axis": 1}),
    ((2, 3, 4, 5), {"axis": 1, "fused": False}),
    ((2, 3, 4, 5), {"axis": -1, "fused": False, "momentum": 0.8}),
    ((2, 3, 4, 5), {"axis": 2}),
    ((4, 3, 5), {"axis": 1}),
    ((6, 3), {"name": "bn_named"}),
]


def run(shape, kwargs, seed):
    import tensorflow as tf

    v1 = tf.compat.v1
    x_value = _input(shape, seed)
    with tf.Graph().as_default():
        x = tf.constant(x_value)
        train_out = v1.layers.batch_normalization(x, training=True, **kwargs)
        name = kwargs.get("name", "batch_normalization")
        infer_kwargs = {k: v for k, v in kwargs.items() if k != "name"}
        infer_out = v1.layers.batch_normalization(
            x, training=False, name=name, reuse=True, **infer_kwargs
        )
        variables = {v.op.name: v for v in v1.global_variables()}
        trainable = sorted(v.op.name for v in v1.trainable_variables())
        update_ops = v1.get_collection(v1.GraphKeys.UPDATE_OPS)
        width = variables[f"{name}/moving_mean"].shape[0]
        rng = np.random.default_rng(seed + 100)
        gamma = (rng.uniform(0.5, 1.5, width)).astype(np.float32)
        beta = (rng.normal(size=width)).astype(np.float32)
        assigns = []
        if f"{name}/gamma" in variables:
            assigns.append(variables[f"{name}/gamma"].assign(gamma))
        if f"{name}/beta" in variables:
            assigns.append(variables[f"{name}/beta"].assign(beta))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(assigns)
            train_value, _ = sess.run([train_out, update_ops])
            moving = sess.run(
                {k: variables[f"{name}/{k}"] for k in ("moving_mean", "moving_variance")}
            )
            infer_value = sess.run(infer_out)
    return {
        "shape": list(shape),
        "seed": seed,
        "kwargs": kwargs,
        "gamma": gamma.tolist(),
        "beta": beta.tolist(),
        "variables": {k: list(v.shape) for k, v in sorted(variables.items())},
        "trainable": trainable,
        "update_ops": len(update_ops),
        "train": train_value.reshape(-1).tolist(),
        "moving_mean": moving["moving_mean"].tolist(),
        "moving_variance": moving["moving_variance"].tolist(),
        "inference": infer_value.reshape(-1).tolist(),
    }


def main():
    import tensorflow as tf

    cases = [run(shape, kwargs, seed) for seed, (shape, kwargs) in enumerate(CASES)]
    golden = {"tensorflow": tf.__version__, "cases": cases}
    (HERE / "golden" / "batch_norm.json").write_text(json.dumps(golden, indent=1) + "\n")
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
