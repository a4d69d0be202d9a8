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
"""Write tf_conv.json: tf.nn's convolutions and pools on seeded inputs, with the gradient
of ``sum(output * weights)`` for the input and the filters, as TF 2.15 computes them.

    python tests/core/golden/make_tf_conv.py   # in a venv with tensorflow-cpu==2.15.1
"""

import json
import pathlib

import numpy as np
import tensorflow as tf

HERE = pathlib.Path(__file__).parent

CASES = [
    ("conv2d", (2, 5, 6, 3), (3, 2, 3, 4), {"strides": [1, 2, 1, 1], "padding": "SAME"}),
    ("conv2d", (1, 5, 5, 2), (3, 3, 2, 2), {"strides": 1, "padding": "VALID"}),
    ("conv2d", (1, 7, 6, 1), (2, 2, 1, 3), {"strides": 2, "padding": "SAME", "dilations": 2}),
    ("conv1d", (2, 7, 3), (3, 3, 2), {"stride": 2, "padding": "SAME"}),
    ("conv1d", (1, 6, 2), (2, 2, 1), {"stride": 1, "padding": "VALID"}),
    ("max_pool2d", (2, 5, 6, 3), None, {"ksize": 3, "strides": 2, "padding": "SAME"}),
    ("max_pool2d", (1, 4, 4, 2), None, {"ksize": 2, "strides": 2, "padding": "VALID"}),
    ("avg_pool2d", (2, 5, 6, 3), None, {"ksize": 3, "strides": 2, "padding": "SAME"}),
    ("avg_pool2d", (1, 4, 5, 1), None, {"ksize": [2, 3], "strides": 1, "padding": "VALID"}),
    ("max_pool1d", (2, 7, 3), None, {"ksize": 2, "strides": 2, "padding": "SAME"}),
    ("avg_pool1d", (2, 7, 3), None, {"ksize": 3, "strides": 2, "padding": "SAME"}),
]


def main():
    rng = np.random.default_rng(0)
    out = []
    for op, x_shape, k_shape, kwargs in CASES:
        x = tf.Variable(rng.normal(size=x_shape).astype(np.float32))
        k = tf.Variable(rng.normal(size=k_shape).astype(np.float32)) if k_shape else None
        with tf.GradientTape() as tape:
            y = (
                getattr(tf.nn, op)(x, k, **kwargs)
                if k is not None
                else getattr(tf.nn, op)(x, **kwargs)
            )
            w = tf.constant(rng.normal(size=y.shape).astype(np.float32))
            loss = tf.reduce_sum(y * w)
        grads = tape.gradient(loss, [x] + ([k] if k is not None else []))
        out.append(
            {
                "op": op,
                "kwargs": kwargs,
                "x": x.numpy().tolist(),
                "k": k.numpy().tolist() if k is not None else None,
                "w": w.numpy().tolist(),
                "y": y.numpy().tolist(),
                "dx": grads[0].numpy().tolist(),
                "dk": grads[1].numpy().tolist() if k is not None else None,
            }
        )
    (HERE / "tf_conv.json").write_text(
        json.dumps({"tensorflow": tf.__version__, "cases": out}) + "\n"
    )
    print(f"wrote {len(out)} cases")


if __name__ == "__main__":
    main()
