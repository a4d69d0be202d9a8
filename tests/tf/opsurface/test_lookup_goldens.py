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
"""Every lookup-table case of golden/lookup.json (what TF 2.15 gave, written by
make_lookup_goldens.py), replayed on ``cn.compat.v1.lookup``: the same ids or strings,
dtypes and sizes, or the same error with TF's message."""

import json
import pathlib
import re

import numpy as np
import pytest

import colonnade as cn

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" / "lookup.json").read_text())
CASES = GOLDEN["cases"]
LOOKUP = cn.compat.v1.lookup

ERRORS = {  # TF's error classes and colonnade's
    "ValueError": ValueError,
    "TypeError": TypeError,
    "InvalidArgumentError": ValueError,
    "FailedPreconditionError": ValueError,
    "NotFoundError": FileNotFoundError,
}


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    d = tmp_path_factory.mktemp("vocab")
    out = {}
    for name, text in GOLDEN["files"].items():
        (d / name).write_bytes(text.encode("utf-8"))
        out[name] = str(d / name)
    out["missing.txt"] = str(d / "missing.txt")
    return out


def _value(spec, paths):
    if isinstance(spec, dict) and "array" in spec:
        dtype = object if spec["dtype"] == "string" else spec["dtype"]
        return np.asarray(spec["array"], dtype=dtype)
    if isinstance(spec, dict) and "file" in spec:
        return paths[spec["file"]]
    if isinstance(spec, dict) and "init" in spec:
        args = [_value(x, paths) for x in spec["args"]]
        kwargs = {k: _value(v, paths) for k, v in spec["kwargs"].items()}
        return getattr(LOOKUP, spec["init"])(*args, **kwargs)
    return spec


def _id(case):
    return f"{case['op']}-{json.dumps(case['kwargs'], sort_keys=True)}"


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{_id(c)}" for i, c in enumerate(CASES)])
def test_lookup_matches_tf(case, paths):
    make = getattr(LOOKUP, case["op"])

    def build():
        args = [_value(x, paths) for x in case["args"]]
        return make(*args, **{k: _value(v, paths) for k, v in case["kwargs"].items()})

    if "error" in case:
        error = case["error"]
        with pytest.raises(ERRORS[error["type"]]) as info:
            build().lookup(_value(case["keys"], paths))
        names = "|".join(re.escape(n) for n in sorted(paths, key=len, reverse=True))
        message = re.sub(rf"\b({names})", lambda m: paths[m.group(1)], error["message"])
        if "<dtype: 'int32'>" in message:  # TF's Python ints are int32, colonnade's int64
            message = message.replace("int32", "int64")
        assert message in str(info.value)
        return
    table = build()
    got = table.lookup(_value(case["keys"], paths))
    want = case["output"]
    assert list(got.shape) == want["shape"]
    if want["dtype"] == "string":
        assert got.dtype == object and got.reshape(-1).tolist() == want["value"]
    else:
        assert got.dtype.name == want["dtype"]
        assert got.reshape(-1).tolist() == want["value"]
    assert int(table.size()) == case["size"]


def test_goldens_are_tf_215():
    assert GOLDEN["tensorflow"] == "2.15.1" and len(CASES) >= 60
