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
"""Write golden/lookup.json: lookup tables built and looked up on TF 2.15 itself (eager).

A case names a table constructor (``index_table_from_tensor``... of TF 1's
``lookup_ops``, or a TF 2 ``tf.lookup`` class with its initializer), its arguments
(``{"file": NAME}`` for a vocabulary file of ``FILES``, ``{"init": ...}`` for an
initializer), the keys looked up, and what TF gave: the ids or strings with their dtype
and the table's ``size()``, or the error TF raised (its type and message).
``test_lookup_goldens.py`` replays every case on ``cn.compat.v1.lookup``. Run with
``tensorflow-cpu==2.15.1``:

    python tests/tf/opsurface/make_lookup_goldens.py
"""

from __future__ import annotations

import json
import os
import pathlib
import tempfile

HERE = pathlib.Path(__file__).parent

FILES = {
    "words.txt": "brain\nsalad\nsurgery\n",
    "ids.txt": "42\n1\n-7\n",
    "tsv.txt": "a\t10\tA\nb\t20\tB\nc\t30\tC\n",
    "csv.txt": "a,10,A\nb,20,B\nc,30,C\n",
    "dups.txt": "x\ny\nx\n",
    "blank.txt": "x\n\ny\n",
    "short.txt": "a\t1\nb\n",
    "notint.txt": "a\t1\nb\tzz\n",
    "crlf.txt": "p\r\nq\r\n",
    "unicode.txt": "caf\u00e9\n\u00fcber\n",
    "no_newline.txt": "a\nb",
    "trailing_blank.txt": "a\nb\n\n",
    "spaces.txt": "a \n b\n",
}


def a(values, dtype):
    return {"array": values, "dtype": dtype}


def f(name):
    return {"file": name}


def kv(keys, values, **kwargs):
    return {"init": "KeyValueTensorInitializer", "args": [keys, values], "kwargs": kwargs}


def tfi(name, key_dtype, key_index, value_dtype, value_index, **kwargs):
    args = [f(name), key_dtype, key_index, value_dtype, value_index]
    return {"init": "TextFileInitializer", "args": args, "kwargs": kwargs}


S, I64 = "string", "int64"
WORDS = a(["salad", "surgery", "tarkus", "brain", "", "salad"], S)
WORDS2D = a([["salad", "tarkus"], ["brain", "x"]], S)
WHOLE, LINE = -2, -1

CASES = [
    # index_table_from_tensor: ids, misses to default_value or hashed into OOV buckets
    ("index_table_from_tensor", [["brain", "salad", "surgery"]], {}, WORDS),
    ("index_table_from_tensor", [["brain", "salad", "surgery"]], {"default_value": 7}, WORDS),
    ("index_table_from_tensor", [["brain", "salad", "surgery"]], {"num_oov_buckets": 1}, WORDS),
    ("index_table_from_tensor", [["brain", "salad", "surgery"]], {"num_oov_buckets": 5}, WORDS),
    ("index_table_from_tensor", [["brain", "salad", "surgery"]], {"num_oov_buckets": 5}, WORDS2D),
    ("index_table_from_tensor", [["brain"]], {"num_oov_buckets": 1000}, a(["", "a", "b"], S)),
    ("index_table_from_tensor", [[42, 1, -7]], {"dtype": I64}, a([1, 2, 42, -7, 0], I64)),
    (
        "index_table_from_tensor",
        [[42, 1, -7]],
        {"dtype": I64, "num_oov_buckets": 3},
        a([[1, 2], [42, 123456789], [-7, -1]], I64),
    ),
    ("index_table_from_tensor", [["a", "b", "a"]], {}, a(["a"], S)),
    ("index_table_from_tensor", [["a", "b"]], {"num_oov_buckets": -1}, a(["a"], S)),
    ("index_table_from_tensor", [[1, 2]], {}, a(["a"], S)),
    ("index_table_from_tensor", [["a", "b"]], {}, a([1], I64)),
    ("index_table_from_tensor", [["a", "b"]], {}, a([], S)),
    # index_table_from_file: whole lines, columns, vocab_size, bad files
    ("index_table_from_file", [f("words.txt")], {}, WORDS),
    ("index_table_from_file", [f("words.txt")], {"num_oov_buckets": 3}, WORDS2D),
    ("index_table_from_file", [f("words.txt")], {"vocab_size": 2}, WORDS),
    ("index_table_from_file", [f("words.txt")], {"vocab_size": 2, "num_oov_buckets": 2}, WORDS),
    ("index_table_from_file", [f("words.txt")], {"vocab_size": 5}, WORDS),
    ("index_table_from_file", [f("words.txt")], {"vocab_size": 0}, WORDS),
    ("index_table_from_file", [f("words.txt")], {"default_value": -3}, WORDS),
    ("index_table_from_file", [f("ids.txt")], {"key_dtype": I64}, a([1, -7, 5], I64)),
    (
        "index_table_from_file",
        [f("ids.txt")],
        {"key_dtype": I64, "num_oov_buckets": 4},
        a([1, -7, 5, 0], I64),
    ),
    (
        "index_table_from_file",
        [f("tsv.txt")],
        {"key_column_index": 0, "value_column_index": 1},
        a(["b", "c", "d"], S),
    ),
    (
        "index_table_from_file",
        [f("csv.txt")],
        {"key_column_index": 2, "value_column_index": LINE, "delimiter": ","},
        a(["C", "A", "a"], S),
    ),
    ("index_table_from_file", [f("tsv.txt")], {}, a(["a\t10\tA", "a"], S)),
    ("index_table_from_file", [f("tsv.txt")], {"key_column_index": 3}, a(["a"], S)),
    (
        "index_table_from_file",
        [f("short.txt")],
        {"key_column_index": 0, "value_column_index": 1},
        a(["a"], S),
    ),
    (
        "index_table_from_file",
        [f("notint.txt")],
        {"key_column_index": 0, "value_column_index": 1},
        a(["a"], S),
    ),
    ("index_table_from_file", [f("dups.txt")], {}, a(["x"], S)),
    ("index_table_from_file", [f("blank.txt")], {}, a(["x"], S)),
    ("index_table_from_file", [f("crlf.txt")], {}, a(["p", "q", "p\r"], S)),
    ("index_table_from_file", [f("unicode.txt")], {"num_oov_buckets": 2}, a(["über", "u"], S)),
    ("index_table_from_file", [f("no_newline.txt")], {}, a(["a", "b", "c"], S)),
    ("index_table_from_file", [f("trailing_blank.txt")], {}, a(["a"], S)),
    ("index_table_from_file", [f("spaces.txt")], {}, a(["a", "b", "a ", " b"], S)),
    ("index_table_from_file", [f("missing.txt")], {}, a(["x"], S)),
    ("index_table_from_file", [""], {}, a(["x"], S)),
    # index_to_string_table_from_tensor / _file
    ("index_to_string_table_from_tensor", [["brain", "salad"]], {}, a([0, 1, 2, -1], I64)),
    (
        "index_to_string_table_from_tensor",
        [["brain", "salad"]],
        {"default_value": "?"},
        a([[1, 5]], I64),
    ),
    ("index_to_string_table_from_file", [f("words.txt")], {}, a([2, 0, 3], I64)),
    ("index_to_string_table_from_file", [f("words.txt")], {"vocab_size": 1}, a([0, 1], I64)),
    (
        "index_to_string_table_from_file",
        [f("tsv.txt")],
        {"key_column_index": LINE, "value_column_index": 2, "default_value": "-"},
        a([0, 2, 9], I64),
    ),
    ("index_to_string_table_from_file", [f("tsv.txt")], {}, a([1], I64)),
    # TF 2's classes: StaticHashTable over a KeyValueTensorInitializer or a text file
    ("StaticHashTable", [kv(["a", "b"], a([3, 4], I64)), -1], {}, a(["b", "z", "a"], S)),
    ("StaticHashTable", [kv(a([5, 6], I64), ["five", "six"]), "none"], {}, a([6, 0], I64)),
    (
        "StaticHashTable",
        [kv(["a", "b"], a([0.5, 1.5], "float32")), -1.0],
        {},
        a([["a"], ["q"]], S),
    ),
    ("StaticHashTable", [kv(["a", "a"], a([1, 1], I64)), -1], {}, a(["a"], S)),
    ("StaticHashTable", [kv(["a", "a"], a([1, 2], I64)), -1], {}, a(["a"], S)),
    ("StaticHashTable", [kv(["a", "b"], a([1], I64)), -1], {}, a(["a"], S)),
    ("StaticHashTable", [kv(["a"], a([1], I64)), -1], {}, a([1], I64)),
    ("StaticHashTable", [tfi("tsv.txt", S, 0, I64, 1), -1], {}, a(["c", "a", "x"], S)),
    (
        "StaticHashTable",
        [tfi("csv.txt", S, 2, S, 0, delimiter=","), "?"],
        {},
        a(["B", "b"], S),
    ),
    ("StaticHashTable", [tfi("words.txt", S, WHOLE, I64, LINE), -1], {}, WORDS),
    (
        "StaticHashTable",
        [tfi("words.txt", S, WHOLE, I64, LINE, value_index_offset=1), 0],
        {},
        WORDS,
    ),
    (
        "StaticHashTable",
        [tfi("ids.txt", I64, WHOLE, I64, LINE, vocab_size=2), -1],
        {},
        a([1, -7], I64),
    ),
    ("StaticHashTable", [tfi("tsv.txt", I64, LINE, S, 2), "?"], {}, a([0, 2, 3], I64)),
    ("StaticHashTable", [tfi("tsv.txt", S, LINE, S, 2), "?"], {}, a([0], I64)),
    ("StaticHashTable", [tfi("tsv.txt", S, 0, S, LINE), "?"], {}, a(["a"], S)),
    ("StaticHashTable", [tfi("tsv.txt", S, -3, I64, LINE), -1], {}, a(["a"], S)),
    ("StaticHashTable", [tfi("tsv.txt", S, 0, I64, 1, vocab_size=0), -1], {}, a(["a"], S)),
    # StaticVocabularyTable: ids, OOV buckets after the table's size
    ("StaticVocabularyTable", [kv(["a", "b"], a([0, 1], I64)), 3], {}, a(["b", "zz", "a", ""], S)),
    ("StaticVocabularyTable", [kv(a([10, 20], I64), a([0, 1], I64)), 2], {}, a([20, 30], I64)),
    ("StaticVocabularyTable", [tfi("words.txt", S, WHOLE, I64, LINE), 4], {}, WORDS2D),
    ("StaticVocabularyTable", [kv(["a", "b"], a([0, 1], I64)), 0], {}, a(["a"], S)),
    ("StaticVocabularyTable", [kv(["a", "b"], a([0.0, 1.0], "float32")), 1], {}, a(["a"], S)),
    ("StaticVocabularyTable", [kv(["a", "b"], a([0, 1], I64)), 2], {}, a([1], I64)),
]


def _tf():
    import tensorflow as tf
    from tensorflow.python.ops import lookup_ops

    return tf, lookup_ops


def _value(spec, tf, paths):
    if isinstance(spec, dict) and "array" in spec:
        return tf.constant(spec["array"], dtype=getattr(tf, spec["dtype"]))
    if isinstance(spec, dict) and "file" in spec:
        return paths[spec["file"]]
    if isinstance(spec, dict) and "init" in spec:
        args = [_value(x, tf, paths) for x in spec["args"]]
        args = [getattr(tf, x) if isinstance(x, str) and x in (S, I64) else x for x in args]
        return getattr(tf.lookup, spec["init"])(*args, **_kwargs(spec["kwargs"], tf, paths))
    return spec


def _kwargs(kwargs, tf, paths):
    out = {}
    for k, v in kwargs.items():
        out[k] = getattr(tf, v) if k in ("dtype", "key_dtype") else _value(v, tf, paths)
    return out


def _result(t):
    value = t.numpy()
    if t.dtype.name == "string":
        return {
            "dtype": "string",
            "shape": list(value.shape),
            "value": [v.decode("utf-8") for v in value.reshape(-1).tolist()],
        }
    return {"dtype": t.dtype.name, "shape": list(value.shape), "value": value.reshape(-1).tolist()}


def run(op, args, kwargs, keys, paths):
    tf, lookup_ops = _tf()
    case = {"op": op, "args": args, "kwargs": kwargs, "keys": keys}
    make = getattr(lookup_ops, op) if op.startswith("index_") else getattr(tf.lookup, op)
    try:
        table = make(*[_value(x, tf, paths) for x in args], **_kwargs(kwargs, tf, paths))
        out = table.lookup(_value(keys, tf, paths))
        case["output"] = _result(out)
        case["size"] = int(table.size().numpy())
    except Exception as e:  # noqa: BLE001 (what TF raised is the golden)
        message = str(e).split(" [Op:")[0].split("}} ")[-1]
        for name, path in paths.items():
            message = message.replace(path, name)
        case["error"] = {"type": type(e).__name__, "message": message}
    return case


def main():
    import tensorflow as tf

    with tempfile.TemporaryDirectory() as d:
        paths = {}
        for name, text in FILES.items():
            paths[name] = os.path.join(d, name)
            with open(paths[name], "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        paths["missing.txt"] = os.path.join(d, "missing.txt")
        cases = [run(*c, paths) for c in CASES]
    golden = {"tensorflow": tf.__version__, "files": FILES, "cases": cases}
    (HERE / "golden" / "lookup.json").write_text(
        json.dumps(golden, indent=1, ensure_ascii=False) + "\n"
    )
    print(f"{len(cases)} cases, {sum('error' in c for c in cases)} errors")


if __name__ == "__main__":
    main()
