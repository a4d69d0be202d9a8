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
"""Write golden/ops.json: each op case of the corpus's TF names, run on TF 2.15 itself.

A case is an op of ``tf.compat.v1``, its arguments (``{"array": ..., "dtype": ...}`` for a
typed tensor) and what TF gave: the value and dtype of each output, or that TF refused it.
``test_op_goldens.py`` replays every case on ``cn.compat.v1``. Run in a throw-away
environment with ``tensorflow-cpu==2.15.1``:

    python tests/tf/opsurface/make_op_goldens.py
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).parent


def a(values, dtype):
    return {"array": values, "dtype": dtype}


F = "float32"
I32, I64 = "int32", "int64"
M23 = a([[1.0, -2.0, 3.0], [4.0, 5.5, -6.0]], F)
M22 = a([[1.0, 3.0], [4.0, 2.0]], F)

CASES = [
    # argmax / argmin: default axis 0, ties take the first, output_type, dimension=
    ("argmax", [M22], {}),
    ("argmax", [M22], {"axis": 1}),
    ("argmax", [M22], {"axis": -1}),
    ("argmax", [a([2.0, 7.0, 7.0, 1.0], F)], {}),
    ("argmax", [M22], {"dimension": 1}),
    ("argmax", [M22], {"axis": 1, "output_type": "int32"}),
    ("argmin", [M23], {"axis": 1}),
    ("argmin", [a([[3, 1, 1]], I32)], {"axis": 1}),
    ("argmax", [M22], {"axis": 2}),
    # concat / stack / unstack / split
    ("concat", [[M22, M22], 0], {}),
    ("concat", [[M22, M22], 1], {}),
    ("concat", [[M22, M22], -1], {}),
    ("concat", [[a([1, 2], I32), a([3], I32)], 0], {}),
    ("concat", [[M22, M23], 0], {}),
    ("stack", [[a([1.0, 2.0], F), a([3.0, 4.0], F)]], {}),
    ("stack", [[a([1.0, 2.0], F), a([3.0, 4.0], F)]], {"axis": 1}),
    ("stack", [[a([1.0, 2.0], F), a([3.0], F)]], {}),
    ("unstack", [M23], {}),
    ("unstack", [M23], {"axis": 1}),
    ("split", [a([0, 1, 2, 3, 4, 5], I32), 3], {}),
    ("split", [a([0, 1, 2, 3, 4, 5], I32), [1, 5]], {}),
    ("split", [a([0, 1, 2, 3, 4, 5], I32), [2, -1]], {}),
    ("split", [M23, 3], {"axis": 1}),
    ("split", [a([0, 1, 2, 3, 4], I32), 2], {}),
    # tile / transpose / squeeze
    ("tile", [a([[1, 2]], I32), [2, 2]], {}),
    ("tile", [a([1.0, 2.0], F), [3]], {}),
    ("tile", [a([1.0, 2.0], F), [0]], {}),
    ("transpose", [M23], {}),
    ("transpose", [a([[[1, 2, 3], [4, 5, 6]]], I32)], {"perm": [2, 0, 1]}),
    ("squeeze", [a([[[1.0], [2.0]]], F)], {}),
    ("squeeze", [a([[[1.0], [2.0]]], F)], {"axis": [2]}),
    ("squeeze", [a([[[1.0], [2.0]]], F)], {"squeeze_dims": [0]}),
    ("squeeze", [a([[[1.0], [2.0]]], F)], {"axis": [1]}),
    # shape / size / rank
    ("shape", [M23], {}),
    ("shape", [M23], {"out_type": "int64"}),
    ("size", [M23], {}),
    ("rank", [M23], {}),
    ("shape", [a([], F)], {}),
    # one_hot: out of range and negative ids are all-off, dtypes from the on/off values
    ("one_hot", [a([0, 2, -1, 5], I32), 3], {}),
    ("one_hot", [a([1, 0], I64), 2], {"on_value": 5, "off_value": -1}),
    ("one_hot", [a([1, 0], I32), 2], {"axis": 0}),
    ("one_hot", [a([[0, 1], [1, 2]], I32), 3], {}),
    ("one_hot", [a([1], I32), 2], {"dtype": "int64"}),
    ("one_hot", [a([1.0], F), 2], {}),
    # fill / ones / zeros / *_like / identity
    ("fill", [[2, 3], 9.0], {}),
    ("fill", [[2], 3], {}),
    ("ones", [[2, 2]], {}),
    ("zeros", [[3]], {"dtype": "int32"}),
    ("ones_like", [a([[1, 2]], I32)], {}),
    ("zeros_like", [M22], {}),
    ("identity", [M22], {}),
    # gather
    ("gather", [a([[1, 2, 3], [4, 5, 6]], I32), a([1, 0, 1], I32)], {}),
    ("gather", [a([[1, 2, 3], [4, 5, 6]], I32), a([2, 0], I32)], {"axis": 1}),
    ("gather", [a([[1, 2, 3], [4, 5, 6]], I32), a([[2], [0]], I32)], {"axis": 1}),
    ("gather", [a([[1, 2, 3], [4, 5, 6]], I32), a([2], I32)], {}),
    # arithmetic, elementwise with broadcasting
    ("add", [M22, a([10.0, 20.0], F)], {}),
    ("subtract", [M22, a([[1.0], [2.0]], F)], {}),
    ("multiply", [M22, a(2.0, F)], {}),
    ("divide", [M22, a([2.0, 4.0], F)], {}),
    ("square", [M23], {}),
    ("sigmoid", [a([-30.0, -1.0, 0.0, 1.0, 30.0], F)], {}),
    ("tanh", [a([-1.0, 0.0, 0.5], F)], {}),
    ("negative", [a([1, -2], I32)], {}),
    ("squared_difference", [M22, a([1.0, 1.0], F)], {}),
    ("add", [M22, M23], {}),
    # casts, TF 1's to_*
    ("to_float", [a([1, 2], I32)], {}),
    ("to_double", [a([1, 2], I32)], {}),
    ("to_int32", [a([1.7, -1.7, 2.5], F)], {}),
    ("to_int64", [a([1.7, -1.7], F)], {}),
    # matmul / tensordot
    ("matmul", [M22, M23], {}),
    ("matmul", [M23, M23], {"transpose_b": True}),
    ("matmul", [M23, M23], {"transpose_a": True}),
    ("matmul", [M22, M22], {"transpose_a": True, "transpose_b": True}),
    ("matmul", [a([[[1.0, 2.0]], [[3.0, 4.0]]], F), a([[[1.0], [1.0]], [[2.0], [0.5]]], F)], {}),
    ("matmul", [M23, M22], {}),
    ("tensordot", [M22, M23, 1], {}),
    ("tensordot", [M23, M23, [[1], [1]]], {}),
    ("tensordot", [M22, M22, 2], {}),
    ("tensordot", [M22, M22, 0], {}),
    # reductions, TF 1's spellings
    ("reduce_sum", [M23], {}),
    ("reduce_sum", [M23], {"axis": 1}),
    ("reduce_sum", [M23], {"reduction_indices": [0], "keep_dims": True}),
    ("reduce_mean", [M23], {"axis": 0}),
    ("reduce_mean", [a([1, 2], I32)], {}),
    ("reduce_max", [M23], {"axis": -1, "keepdims": True}),
    ("reduce_min", [M23], {}),
    ("reduce_prod", [M22], {"axis": 1}),
    ("reduce_logsumexp", [M22], {"axis": 1}),
    ("reduce_any", [a([[True, False], [False, False]], "bool")], {"axis": 1}),
    ("reduce_all", [a([[True, False], [True, True]], "bool")], {"axis": 1}),
    # strings: Fingerprint64 buckets, printf-formatted numbers
    ("string_to_hash_bucket_fast", [["a", "hello", ""], 1000], {}),
    ("string_to_hash_bucket_fast", [["census", "income"], 10], {}),
    ("as_string", [a([1.5, 2.0], F)], {}),
    ("as_string", [a([3, -4], I32)], {}),
    ("as_string", [a([True, False], "bool")], {}),
    ("as_string", [a([1.5, 0.125], F)], {"precision": 2}),
    ("as_string", [a([1.5], F)], {"scientific": True}),
    ("as_string", [a([1.5], F)], {"shortest": True}),
    ("as_string", [a([3, 42], I32)], {"width": 4, "fill": "0"}),
    ("as_string", [a([3], I32)], {"width": 3}),
    ("as_string", [a([3], I32)], {"precision": 2}),
]


def tf_value(spec):
    import tensorflow as tf

    if isinstance(spec, dict) and "array" in spec:
        return tf.constant(np.asarray(spec["array"], dtype=spec["dtype"]))
    if isinstance(spec, list) and spec and isinstance(spec[0], dict):
        return [tf_value(s) for s in spec]
    return spec


def encoded(output):
    value = output.numpy()
    if value.dtype.kind in "OSU":
        value = np.vectorize(lambda b: b.decode() if isinstance(b, bytes) else b)(value)
        return {"value": value.tolist(), "dtype": "string"}
    if value.dtype.kind == "f":
        return {
            "value": [None if np.isnan(v) else float(v) for v in value.reshape(-1)],
            "shape": list(value.shape),
            "dtype": value.dtype.name,
        }
    return {"value": value.tolist(), "dtype": value.dtype.name}


def main() -> None:
    import tensorflow as tf

    out = []
    for op, args, kwargs in CASES:
        case = {"op": op, "args": args, "kwargs": kwargs}
        try:
            result = getattr(tf.compat.v1, op)(*[tf_value(x) for x in args], **kwargs)
        except (tf.errors.InvalidArgumentError, ValueError, TypeError) as e:
            case["error"] = type(e).__name__
        else:
            many = isinstance(result, (list, tuple))
            case["outputs" if many else "output"] = (
                [encoded(r) for r in result] if many else encoded(result)
            )
        out.append(case)
    path = HERE / "golden" / "ops.json"
    path.write_text(json.dumps({"tensorflow": tf.__version__, "cases": out}, indent=1) + "\n")
    print(f"wrote {len(out)} cases to {path}")


if __name__ == "__main__":
    main()
