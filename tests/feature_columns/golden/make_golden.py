"""Produce tf_2_15.json: golden ids and outputs from TensorFlow 2.15 feature columns.

Run once in a throw-away environment with TensorFlow 2.15 installed (never a colonnade
dependency; the test suite only reads the JSON this writes):

    python tests/feature_columns/golden/make_golden.py > tests/feature_columns/golden/tf_2_15.json

Every input is fed as a SparseTensor (what tf.io.parse_example gives for VarLenFeature),
so crossed columns fold their keys in key order.
"""

import json

import numpy as np
import tensorflow as tf
from tensorflow.python.feature_column import feature_column_v2 as fc2

fc = tf.feature_column
tf1 = tf.compat.v1

LONG = "x" * 40 + "y" * 60 + "ü" * 7
STRINGS = [
    "",
    "a",
    "b",
    "hello",
    "héllo wörld",
    "日本語",
    "🙂 emoji",
    "abcdefghijklmnop",
    "abcdefghijklmnopq",
    "the quick brown fox jumps over",
    "a" * 33,
    "the quick brown fox jumps over the lazy dog 0123456789!",
    LONG,
    "z" * 64,
    "w" * 65,
    "v" * 128,
    "u" * 129,
    "Ünïcödé " * 20,
]
INTS = [0, 1, -1, 7, 42, -123456789, 2**40, 2**63 - 1, -(2**63)]


def sparse(rows, dtype):
    return tf.ragged.constant(rows, dtype=dtype).to_sparse()


def ids_of(column, features):
    cache = fc2.FeatureTransformationCache(features)
    st = column.get_sparse_tensors(cache, None).id_tensor
    n = int(st.dense_shape[0])
    out = [[] for _ in range(n)]
    for (r, *_), v in zip(st.indices.numpy().tolist(), st.values.numpy().tolist()):
        out[r].append(int(v))
    return out


g = {}

# ---- hash buckets
g["hash_strings"] = {
    "values": STRINGS,
    "mod_2_63_minus_1": [
        int(x) for x in tf.strings.to_hash_bucket_fast(STRINGS, 2**63 - 1).numpy().tolist()
    ],
}
for size in (10, 1000, 1000003):
    col = fc.categorical_column_with_hash_bucket("s", size)
    g["hash_strings"][str(size)] = ids_of(col, {"s": sparse([[s] for s in STRINGS], tf.string)})
for size in (10, 1000, 1000003):
    col = fc.categorical_column_with_hash_bucket("i", size, dtype=tf.int64)
    g.setdefault("hash_ints", {"values": INTS})[str(size)] = ids_of(
        col, {"i": sparse([[v] for v in INTS], tf.int64)}
    )

# ---- vocabularies
vs = fc.categorical_column_with_vocabulary_list("c", ["R", "G", "B", "Y"], num_oov_buckets=3)
vs_in = [["B", "R"], ["Q"], ["zebra", ""], ["Y", "r", "G"], []]
g["vocab_string_oov"] = {"input": vs_in, "ids": ids_of(vs, {"c": sparse(vs_in, tf.string)})}
vi = fc.categorical_column_with_vocabulary_list("c", [10, 20, 30], num_oov_buckets=5)
vi_in = [[20], [99, -4], [30, 1000, 10], [123456789]]
g["vocab_int_oov"] = {"input": vi_in, "ids": ids_of(vi, {"c": sparse(vi_in, tf.int64)})}
vd = fc.categorical_column_with_vocabulary_list("c", ["X", "R", "G", "B", "Y"], default_value=0)
vd_in = [["B"], ["Q", "R"], ["X"]]
g["vocab_default"] = {"input": vd_in, "ids": ids_of(vd, {"c": sparse(vd_in, tf.string)})}
vm = fc.categorical_column_with_vocabulary_list("c", ["a", "b"])
vm_in = [["a", "q"], ["b"]]
g["vocab_minus_one"] = {"input": vm_in, "ids": ids_of(vm, {"c": sparse(vm_in, tf.string)})}


# ---- crosses
def cross_case(name, keys, size, features, hash_key=None, **extra):
    col = fc.crossed_column(keys, size, hash_key=hash_key)
    feats = {}
    for k, (rows, dtype) in features.items():
        feats[k] = sparse(rows, dtype) if dtype is not None else tf.constant(rows)
    g[name] = {
        "name": col.name,
        "input": {k: rows for k, (rows, _) in features.items()},
        "ids": ids_of(col, feats),
        **extra,
    }


cross_case(
    "cross_str_str",
    ["a", "b"],
    1000,
    {
        "a": ([["x", "y"], ["z"], [], ["日本"]], tf.string),
        "b": ([["p"], ["q", "r"], ["s"], ["", "t"]], tf.string),
    },
)
cross_case(
    "cross_str_str_big",
    ["a", "b"],
    2**62,
    {"a": ([["x"], ["z"]], tf.string), "b": ([["p"], ["q"]], tf.string)},
)
cross_case(
    "cross_hash_key",
    ["a", "b"],
    1000,
    {"a": ([["x"], ["z"]], tf.string), "b": ([["p"], ["q"]], tf.string)},
    hash_key=12345,
)
price = fc.bucketized_column(fc.numeric_column("price"), [0.0, 10.0, 100.0])
cross_case(
    "cross_bucket_str",
    [price, "kw"],
    500,
    {
        "price": ([[-5.0], [10.0], [150.0], [5.0]], None),
        "kw": ([["a"], ["b", "c"], ["d"], []], tf.string),
    },
)
vocab = fc.categorical_column_with_vocabulary_list("v", ["a", "b", "c"])
cross_case(
    "cross_vocab_miss_str",
    [vocab, "s"],
    997,
    {"v": ([["a"], ["zz"], ["c", "b"]], tf.string), "s": ([["x"], ["y"], ["z"]], tf.string)},
)
ident = fc.categorical_column_with_identity("id", 10)
cross_case(
    "cross_three_way",
    [ident, price, "kw"],
    10007,
    {
        "id": ([[1, 2], [3], [9]], tf.int64),
        "price": ([[50.0], [1e6], [-1.0]], None),
        "kw": ([["a", "b"], ["c"], ["d", "e", "f"]], tf.string),
    },
)
cross_case(
    "cross_int_key",
    ["i", "s"],
    1000,
    {"i": ([[5], [-3], [2**40]], tf.int64), "s": ([["x"], ["y"], ["z"]], tf.string)},
)
cross_case(
    "cross_nested",
    [fc.crossed_column(["a", "b"], 50), "c"],
    1000,
    {
        "a": ([["x"], ["y"]], tf.string),
        "b": ([["p"], ["q"]], tf.string),
        "c": ([["m"], ["n"]], tf.string),
    },
)

# ---- input_layer and linear_model (TF1 graph mode, known tables)
table = np.arange(24, dtype=np.float32).reshape(6, 4) / 10.0 - 1.0
with tf.Graph().as_default():
    age = fc.numeric_column("age")
    age_b = fc.bucketized_column(age, [18.0, 30.0, 65.0])
    color = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"], num_oov_buckets=3)
    word = fc.categorical_column_with_hash_bucket("word", 6)
    wword = fc.weighted_categorical_column(word, "w")
    cols = [
        fc.indicator_column(color),
        age,
        age_b,
        fc.embedding_column(color, 4, combiner="mean", initializer=tf1.constant_initializer(table)),
        fc.embedding_column(
            wword, 4, combiner="sqrtn", initializer=tf1.constant_initializer(table)
        ),
        fc.embedding_column(
            word, 4, combiner="sum", max_norm=1.0, initializer=tf1.constant_initializer(table)
        ),
    ]
    feats_py = {
        "age": [[10.0], [40.0], [70.0]],
        "color": [["r", "zz"], ["b", "b"], []],
        "word": [["hello", "world"], ["a"], ["q", "r", "s"]],
        "w": [[0.5, 2.0], [3.0], [1.0, -1.0, 0.0]],
    }
    feats = {
        "age": tf.constant(feats_py["age"]),
        "color": sparse(feats_py["color"], tf.string),
        "word": sparse(feats_py["word"], tf.string),
        "w": sparse(feats_py["w"], tf.float32),
    }
    cols_to_vars = {}
    out = tf1.feature_column.input_layer(feats, cols, cols_to_vars=cols_to_vars)
    lin_cols = [age, age_b, color, wword, fc.crossed_column(["word", age_b], 7)]
    linear = {}
    lin_vars = {}
    for comb in ("sum", "mean", "sqrtn"):
        with tf1.variable_scope(comb):
            lv = {}
            linear[comb] = tf1.feature_column.linear_model(
                feats, lin_cols, units=2, sparse_combiner=comb, cols_to_vars=lv
            )
            lin_vars[comb] = lv
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        sess.run(tf1.tables_initializer())
        names = sorted(v.name for v in tf1.global_variables())
        assign = {}
        for lv in lin_vars.values():
            for vs_ in lv.values():
                for v in vs_:
                    shape = v.shape.as_list()
                    val = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * 0.25 - 0.5
                    sess.run(v.assign(val))
                    assign[v.name] = val.tolist()
        res_in = sess.run(out)
        res_lin = {k: sess.run(v).tolist() for k, v in linear.items()}
    g["input_layer"] = {
        "features": feats_py,
        "table": table.tolist(),
        "output": res_in.tolist(),
        "variable_names": names,
    }
    g["linear_model"] = {"features": feats_py, "assigned": assign, "output": res_lin}

# ---- shared embedding names in input_layer (TF1)
with tf.Graph().as_default():
    a = fc.categorical_column_with_identity("watched", 5)
    b = fc.categorical_column_with_identity("impression", 5)
    shared = tf1.feature_column.shared_embedding_columns([a, b], 3)
    feats = {"watched": sparse([[1]], tf.int64), "impression": sparse([[2]], tf.int64)}
    tf1.feature_column.input_layer(feats, shared)
    g["shared_names"] = {
        "columns": [c.name for c in shared],
        "variables": sorted(v.name for v in tf1.global_variables()),
    }

print(
    "{\n"
    + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in g.items())
    + "\n}"
)
