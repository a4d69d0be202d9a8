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
"""Every op case of golden/ops.json (what TF 2.15 gave, written by make_op_goldens.py),
replayed on ``cn.compat.v1``: the same values and dtypes, or a refusal where TF refused.
Strings are compared as text (colonnade's are ``str``, TF's ``bytes``: docs/tf_differences.md)."""

import json
import pathlib

import numpy as np
import pytest

import colonnade as cn

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" / "ops.json").read_text())
CASES = GOLDEN["cases"]


def _value(spec):
    if isinstance(spec, dict) and "array" in spec:
        return np.asarray(spec["array"], dtype=spec["dtype"])
    if isinstance(spec, list) and spec and isinstance(spec[0], dict):
        return [_value(s) for s in spec]
    return spec


def _check(got, expected, where):
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    if expected["dtype"] == "string":
        assert got.astype(str).tolist() == expected["value"], where
        return
    assert got.dtype.name == expected["dtype"], f"{where}: dtype {got.dtype}"
    if "shape" in expected:
        assert list(got.shape) == expected["shape"], f"{where}: shape {got.shape}"
        want = np.array([np.nan if v is None else v for v in expected["value"]], got.dtype)
        np.testing.assert_allclose(got.reshape(-1), want, rtol=2e-6, atol=1e-7, err_msg=where)
    else:
        assert got.tolist() == expected["value"], where


def _id(case):
    return f"{case['op']}-{json.dumps(case['kwargs'], sort_keys=True)}"


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{_id(c)}" for i, c in enumerate(CASES)])
def test_op_matches_tf(case):
    op = getattr(cn.compat.v1, case["op"])
    args = [_value(a) for a in case["args"]]
    if "error" in case:
        with pytest.raises((ValueError, TypeError, IndexError)):
            op(*args, **case["kwargs"])
        return
    result = op(*args, **case["kwargs"])
    if "outputs" in case:
        assert len(result) == len(case["outputs"])
        for i, (got, expected) in enumerate(zip(result, case["outputs"])):
            _check(got, expected, f"{_id(case)} output {i}")
    else:
        _check(result, case["output"], _id(case))


def test_goldens_are_tf_215():
    assert GOLDEN["tensorflow"] == "2.15.1" and len(CASES) >= 100
