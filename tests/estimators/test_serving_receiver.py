"""``ServingInputReceiver``: the four ``serving_input_fn`` forms TF programs write export,
load and predict as the same transform applied by hand in numpy before ``predict``."""

import json
import math
import os
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import colonnade as cn
import colonnade.compat.v1 as tf
from colonnade.estimators import ExportError
from colonnade.estimators.export import parse_spec_json, serving_graph, serving_graph_checks

fc = cn.feature_columns
E = cn.estimators


def frame(n=120, seed=0):
    rng = np.random.default_rng(seed)
    sq_ft = rng.uniform(300, 5000, n).astype(np.float32)
    city = rng.choice(["paris", "rome", "oslo"], n)
    y = (np.log1p(sq_ft) / 10.0 > 0.75).astype(int) ^ (city == "rome")
    return pd.DataFrame({"sq_ft": sq_ft, "city": city, "y": y})


def trained(tmp_path, columns, data, label="y"):
    est = E.LinearClassifier(
        feature_columns=columns, config=E.RunConfig(model_dir=str(tmp_path / "model"))
    )
    est.fit(data, label=label, epochs=2, batch_size=32, verbose=0)
    return est


CITY = fc.categorical_column_with_vocabulary_list("city", ["paris", "rome", "oslo"])


def transform_serving_input_fn():
    inputs = {
        "sq_ft": tf.placeholder(tf.float32, [None]),
        "city": tf.placeholder(tf.string, [None]),
    }
    features = {
        "log_sq_ft": tf.math.log1p(inputs["sq_ft"]) / 10.0,
        "city": tf.strings.lower(inputs["city"]),
    }
    return tf.estimator.export.ServingInputReceiver(features, inputs)


@pytest.fixture(scope="module")
def transform_export(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("transform")
    data = frame()
    by_hand = pd.DataFrame(
        {"log_sq_ft": np.log1p(data.sq_ft) / np.float32(10.0), "city": data.city, "y": data.y}
    )
    est = trained(tmp, [fc.numeric_column("log_sq_ft"), CITY], by_hand)
    path = est.export_saved_model(str(tmp / "export"), transform_serving_input_fn)
    return path, est


def test_a_transform_before_the_model_equals_the_transform_by_hand(transform_export):
    path, est = transform_export
    rows = pd.DataFrame({"sq_ft": [400.0, 2500.0, 4800.0], "city": ["PARIS", "Rome", "oslo"]})
    got = cn.load(path).predict(rows)
    by_hand = pd.DataFrame(
        {
            "log_sq_ft": np.log1p(rows.sq_ft.to_numpy(np.float32)) / np.float32(10.0),
            "city": [c.lower() for c in rows.city],
        }
    )
    expected = est.predict(by_hand, verbose=0)
    np.testing.assert_allclose(got["logistic"], expected["logistic"], rtol=1e-6)
    # the same through a dict of columns and a list of row dicts
    again = cn.load(path).predict(rows.to_dict("records"))
    np.testing.assert_allclose(again["logistic"], expected["logistic"], rtol=1e-6)


def test_the_transform_matches_tensorflow_golden():
    """``golden/serving_transform.json`` was made by ``golden/make_serving_transform.py``
    with TF 2.15 (``tf.math.log1p(x) / 10.0`` and ``tf.strings.lower``)."""
    here = os.path.join(os.path.dirname(__file__), "golden", "serving_transform.json")
    with open(here) as f:
        golden = json.load(f)
    receiver = transform_serving_input_fn()
    out = receiver.apply({"sq_ft": golden["sq_ft"], "city": golden["city"]})
    np.testing.assert_allclose(out["log_sq_ft"], golden["log_sq_ft"], rtol=1e-6)
    assert out["log_sq_ft"].dtype == np.float32
    assert list(out["city"]) == golden["lower_city"]


def test_every_op_of_the_set_matches_tensorflow_golden():
    """Each op once, the same ``every_op`` body run by TF 2.15 in
    ``golden/make_serving_transform.py``, through placeholders as a request feeds them."""
    golden_dir = os.path.join(os.path.dirname(__file__), "golden")
    with open(os.path.join(golden_dir, "serving_transform.json")) as f:
        golden = json.load(f)["every_op"]
    sys.path.insert(0, golden_dir)
    try:
        from serving_ops import every_op
    finally:
        sys.path.remove(golden_dir)
    x, n, s = (
        tf.placeholder(tf.float32, [None]),
        tf.placeholder(tf.int64, [None]),
        tf.placeholder(tf.string, [None]),
    )
    receiver = E.export.ServingInputReceiver(every_op(tf, x, n, s), {"x": x, "n": n, "s": s})
    out = receiver.apply({"x": golden["x"], "n": golden["n"], "s": golden["s"]})
    for name, value in out.items():
        if value.dtype == object:
            assert list(value) == golden[name], name
        else:
            np.testing.assert_allclose(value, golden[name], rtol=1e-6, err_msg=name)
    assert out["int_truediv"].dtype == np.float64 and out["cast_int"].dtype == np.int64
    assert out["arith"].dtype == np.float32 and out["int_floordiv"].dtype == np.int64


def test_the_export_records_data_only(transform_export):
    path, _ = transform_export
    with open(os.path.join(path, "model.json")) as f:
        receiver = json.load(f)["serving_input_receiver"]
    assert receiver["type"] == "graph" and receiver["graph_version"] == 1
    assert sorted(receiver["inputs"]) == ["city", "sq_ft"]
    assert [n["op"] for n in receiver["nodes"]].count("log1p") == 1
    assert not any(name.endswith((".pkl", ".pickle")) for _, _, fs in os.walk(path) for name in fs)


def babyweight_serving_input_fn():  # training-data-analyst's babyweight, unchanged
    feature_placeholders = {
        "is_male": tf.placeholder(tf.string, [None]),
        "mother_age": tf.placeholder(tf.float32, [None]),
        "key": tf.placeholder_with_default(tf.constant(["nokey"]), [None]),
    }
    features = {key: tf.expand_dims(tensor, -1) for key, tensor in feature_placeholders.items()}
    return tf.estimator.export.ServingInputReceiver(features, feature_placeholders)


def test_babyweight_serving_input_fn_exports_and_predicts_unchanged(tmp_path):
    rng = np.random.default_rng(1)
    data = pd.DataFrame(
        {
            "is_male": rng.choice(["True", "False", "Unknown"], 100),
            "mother_age": rng.uniform(15, 45, 100).astype(np.float32),
        }
    )
    data["weight"] = data.mother_age / 10.0 + (data.is_male == "True")
    columns = [
        fc.numeric_column("mother_age"),
        fc.indicator_column(
            fc.categorical_column_with_vocabulary_list("is_male", ["True", "False", "Unknown"])
        ),
    ]
    est = E.DNNRegressor(
        hidden_units=[4], feature_columns=columns, config=E.RunConfig(model_dir=str(tmp_path / "m"))
    )
    est.fit(data, label="weight", epochs=1, batch_size=25, verbose=0)
    path = est.export_saved_model(str(tmp_path / "export"), babyweight_serving_input_fn)
    rows = {"is_male": ["True", "False"], "mother_age": [25.0, 38.0]}  # no key: its default
    got = cn.load(path).predict(rows)
    expected = est.predict(pd.DataFrame(rows), verbose=0)
    np.testing.assert_allclose(got["predictions"], expected["predictions"], rtol=1e-6)
    with_key = cn.load(path).predict({**rows, "key": ["a", "b"]})
    np.testing.assert_allclose(with_key["predictions"], expected["predictions"], rtol=1e-6)


def test_taxifare_five_float_placeholders(tmp_path):
    names = ["dayofweek", "hourofday", "pickuplon", "pickuplat", "passengers"]
    rng = np.random.default_rng(2)
    data = pd.DataFrame({n: rng.uniform(0, 7, 80).astype(np.float32) for n in names})
    data["fare"] = data.sum(axis=1)
    est = E.LinearRegressor(
        feature_columns=[fc.numeric_column(n) for n in names],
        config=E.RunConfig(model_dir=str(tmp_path / "m")),
    )
    est.fit(data, label="fare", epochs=1, batch_size=20, verbose=0)

    def serving_input_fn():
        feature_placeholders = {n: tf.placeholder(tf.float32, [None]) for n in names}
        features = {k: tf.expand_dims(t, -1) for k, t in feature_placeholders.items()}
        return tf.estimator.export.ServingInputReceiver(features, feature_placeholders)

    path = est.export_saved_model(str(tmp_path / "export"), serving_input_fn)
    rows = data[names].iloc[:5]
    np.testing.assert_allclose(
        cn.load(path).predict(rows)["predictions"],
        est.predict(rows, verbose=0)["predictions"],
        rtol=1e-6,
    )


def test_tf_example_receiver_parses_serialized_records(tmp_path):
    data = frame(60, seed=4)
    columns = [fc.numeric_column("sq_ft"), CITY]
    est = trained(tmp_path, columns, data)
    feature_spec = fc.make_parse_example_spec(columns)

    def serving_input_fn():
        serialized = tf.placeholder(dtype=tf.string, shape=[None], name="input_example_tensor")
        features = tf.parse_example(serialized, feature_spec)
        return tf.estimator.export.ServingInputReceiver(features, {"examples": serialized})

    path = est.export_saved_model(str(tmp_path / "export"), serving_input_fn)
    rows = data.drop(columns="y").iloc[:6]
    records = str(tmp_path / "rows.tfrecord")
    cn.io.write_tfrecord(rows, records)
    serialized = list(cn.io.tf_record_iterator(records))
    predictor = cn.load(path)
    assert predictor.takes_examples
    expected = est.predict(rows, verbose=0)["logistic"]
    np.testing.assert_allclose(
        predictor.predict_examples(serialized)["logistic"], expected, rtol=1e-6
    )
    np.testing.assert_allclose(
        predictor.predict({"examples": serialized})["logistic"], expected, rtol=1e-6
    )


def test_ops_outside_the_set_are_refused_naming_the_supported_ones():
    x = tf.placeholder(tf.float32, [None])
    with pytest.raises(TypeError, match=r"indexing a serving input .* cn.reshape"):
        x[0]
    with pytest.raises(TypeError, match=r"op 'matmul' is not in the serving graph's op set.*log1p"):
        cn.core.symbolic.node("matmul", x, x)
    with pytest.raises(TypeError, match=r"feature 'y' must be computed .* got a ndarray"):
        E.export.ServingInputReceiver({"y": np.zeros(3)}, {"x": x})
    other = tf.placeholder(tf.float32, [None], name="other")
    with pytest.raises(ValueError, match=r"placeholder 'other', which no receiver tensor names"):
        E.export.ServingInputReceiver({"y": x + other}, {"x": x})
    with pytest.raises(TypeError, match=r"cast from string to float32 is not supported"):
        tf.cast(tf.placeholder(tf.string, [None]), tf.float32)


def test_a_request_value_that_does_not_fit_names_the_input():
    receiver = transform_serving_input_fn()
    with pytest.raises(ValueError, match=r"input 'sq_ft' takes float32 values, got strings"):
        receiver.apply({"sq_ft": ["a"], "city": ["x"]})
    with pytest.raises(ValueError, match=r"input 'city' is missing"):
        receiver.apply({"sq_ft": [1.0]})
    with pytest.raises(ValueError, match=r"unknown input\(s\) \['zip'\]"):
        receiver.apply({"sq_ft": [1.0], "city": ["x"], "zip": [1]})


def test_eager_ops_are_unchanged():
    x = np.array([1.0, 4.0], np.float32)
    assert cn.expand_dims(x, -1).numpy().shape == (2, 1)
    np.testing.assert_allclose(cn.math.log1p(x).numpy(), np.log1p(x))
    assert cn.strings.lower(np.array(["A", "b"], dtype=object)).tolist() == ["a", "b"]
    assert cn.cast(x, cn.compat.v1.int64).numpy().dtype == np.int64


def test_float64_raw_and_placeholder_inputs(tmp_path):
    x = tf.placeholder(tf.float64, [None])
    out = E.export.ServingInputReceiver({"x": x * 2.0}, {"x": x}).apply({"x": [0.1]})
    assert out["x"].dtype == np.float64 and out["x"][0] == 0.2
    raw = E.build_raw_serving_input_receiver_fn({"x": "float64"})()
    assert raw.features["x"]["dtype"] == "float64"
    # an export with a float64 raw input loads, and is served typed float64
    data = pd.DataFrame({"x": np.linspace(0, 1, 40), "y": np.linspace(0, 2, 40)})
    est = E.LinearRegressor(
        [fc.numeric_column("x")], config=E.RunConfig(model_dir=str(tmp_path / "m"))
    )
    est.fit(data, label="y", epochs=1, batch_size=10, verbose=0)
    receiver_fn = E.build_raw_serving_input_receiver_fn({"x": np.float64})
    path = est.export_saved_model(str(tmp_path / "export"), receiver_fn)
    predictor = cn.load(path)
    assert predictor.serving_input_receiver.features["x"]["dtype"] == "float64"
    rows = pd.DataFrame({"x": [0.1, 0.7]})
    np.testing.assert_allclose(
        predictor.predict(rows)["predictions"], est.predict(rows, verbose=0)["predictions"]
    )
    schema = parse_spec_json.receiver_schema(predictor.serving_input_receiver.features)
    assert schema.field("x").type == "double"


# --------------------------------------------------------------------------- hostile exports


def hostile(tmp_path, transform_export, mutate):
    import shutil

    path, _ = transform_export
    copy = str(tmp_path / "copy")
    shutil.copytree(path, copy)
    with open(os.path.join(copy, "model.json")) as f:
        meta = json.load(f)
    mutate(meta["serving_input_receiver"])
    with open(os.path.join(copy, "model.json"), "w") as f:
        json.dump(meta, f)
    return copy


def _set(key, value):
    return lambda r: r.__setitem__(key, value)


def _node(index, **fields):
    return lambda r: r["nodes"][index].update(fields)


@pytest.mark.parametrize(
    "mutate, match",
    [
        (_node(1, op="py_func"), r"unknown op 'py_func'"),
        (_node(0, inputs=[3]), r"takes 0 to 1 earlier nodes .*got \[3\]"),  # a cycle
        (_node(2, inputs=[2]), r"earlier nodes"),  # a self loop
        (_set("nodes", [{"op": "constant"}] * 10**6), r"1 to 10,000 nodes, got 1,000,000"),
        (
            _set(
                "nodes",
                [
                    {
                        "op": "constant",
                        "inputs": [],
                        "dtype": "float32",
                        "attrs": {"value": [0.0] * 70_000, "shape": [70_000]},
                    }
                ],
            ),
            r"at most 65,536",
        ),
        (
            _set(
                "nodes",
                [
                    {
                        "op": "placeholder",
                        "inputs": [],
                        "dtype": "float32",
                        "attrs": {"name": None, "shape": [None]},
                    }
                ]
                + [
                    {"op": "neg", "inputs": [i], "dtype": "float32", "attrs": {}}
                    for i in range(300)
                ],
            ),
            r"over 256 nodes deep",
        ),
        (_set("graph_version", 2), r"graph_version: this colonnade reads .* version 1"),
        (_set("features", {"x": 10**6}), r"node index below"),
        (_set("inputs", {"sq_ft": 2}), r"expected a placeholder node"),
        (_node(0, dtype="complex128"), r"dtype: expected one of"),
    ],
)
def test_hostile_graphs_are_refused_before_anything_is_built(
    tmp_path, transform_export, mutate, match
):
    path = hostile(tmp_path, transform_export, mutate)
    with pytest.raises(ExportError, match=match):
        cn.load(path)


def test_hostile_deep_json_is_refused(tmp_path, transform_export):
    def deep(r):
        value = []
        for _ in range(100):
            value = [value]
        r["nodes"][0]["attrs"]["shape"] = value

    with pytest.raises(ExportError, match=r"nest|deep"):
        cn.load(hostile(tmp_path, transform_export, deep))


def test_a_broadcast_of_huge_constants_is_refused_when_applied():
    graph = {
        "type": "graph",
        "graph_version": 1,
        "nodes": [
            {
                "op": "placeholder",
                "inputs": [],
                "dtype": "float32",
                "attrs": {"name": None, "shape": [None]},
            },
            {
                "op": "constant",
                "inputs": [],
                "dtype": "float32",
                "attrs": {"value": [0.0] * 60_000, "shape": [60_000, 1]},
            },
            {
                "op": "constant",
                "inputs": [],
                "dtype": "float32",
                "attrs": {"value": [0.0] * 60_000, "shape": [60_000]},
            },
            {"op": "add", "inputs": [1, 2], "dtype": "float32", "attrs": {}},
        ],
        "inputs": {"x": 0},
        "features": {"y": 3},
    }
    serving_graph_checks.check_graph(graph, "m.json")
    with pytest.raises(ValueError, match=r"op 'add' would make 3,600,000,000 values"):
        serving_graph.apply_graph(graph, {"x": np.zeros(2, np.float32)})
    assert math.prod((60_000, 60_000)) == 3_600_000_000


def linear_model_fn(features, labels, mode, params):
    """A linear regression over ``x1``, ``x2`` (feature columns of ``params``)."""
    net = fc.input_layer(features, params["columns"])
    weights = cn.core.get_variable("weights", [2, 1], initializer=cn.core.initializers.zeros())
    y = net @ weights
    if mode == E.ModeKeys.PREDICT:
        return E.EstimatorSpec(mode, predictions={"y": y})
    loss = cn.losses.mean_squared_error(np.asarray(labels, np.float32).reshape(-1, 1), y)
    train_op = cn.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=cn.train.get_global_step()
    )
    return E.EstimatorSpec(mode, {"y": y}, loss, train_op)


def trained_linear_model_fn(tmp_path, seed):
    """An Estimator of :func:`linear_model_fn` fitted to ``y = x1 - 2 x2`` for two epochs."""
    columns = [fc.numeric_column("x1"), fc.numeric_column("x2")]
    rng = np.random.default_rng(seed)
    data = pd.DataFrame({"x1": rng.normal(size=64), "x2": rng.normal(size=64)})
    data["y"] = data.x1 - 2 * data.x2
    est = E.Estimator(linear_model_fn, model_dir=str(tmp_path / "m"), params={"columns": columns})
    est.fit(data, label="y", epochs=2, batch_size=16, verbose=0)
    return est


def test_a_model_fn_export_predicts_through_its_serving_graph(tmp_path):
    est = trained_linear_model_fn(tmp_path, seed=3)

    def narrow():
        a = tf.placeholder(tf.float64, [None], name="a")
        features = {"x1": tf.cast(a, tf.float32) * 2.0, "x2": tf.sqrt(tf.abs(a))}
        return tf.estimator.export.ServingInputReceiver(features, {"a": a})

    path = est.export_saved_model(str(tmp_path / "export"), narrow)
    a = np.array([0.5, -2.0, 4.0])
    predictor = cn.load(path, model_fns={"linear_model_fn": linear_model_fn})
    got = predictor.predict({"a": a})["y"]
    by_hand = pd.DataFrame({"x1": (a * 2.0).astype(np.float32), "x2": np.sqrt(np.abs(a))})
    np.testing.assert_allclose(got, est.predict(by_hand, verbose=0)["y"], rtol=1e-6)
    np.testing.assert_allclose(predictor.predict_arrays({"a": a})["y"][:, 0], got, rtol=1e-6)


def test_the_predictor_call_takes_the_receiver_tensors(transform_export):
    path, est = transform_export
    predictor = cn.load(path)
    got = predictor({"sq_ft": [400.0], "city": ["PARIS"]})
    by_hand = pd.DataFrame({"log_sq_ft": [np.log1p(np.float32(400.0)) / 10.0], "city": ["paris"]})
    np.testing.assert_allclose(
        got["logistic"][:, 0], est.predict(by_hand, verbose=0)["logistic"], rtol=1e-6
    )


GRAPH_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_mutated_graph_is_refused_as_an_export_error_or_applies(data):
    """Any value in any field of a valid graph: the checks raise ``ExportError`` or pass,
    and a graph that passes applies to a request or raises ``ValueError``/``TypeError``
    (a 400 when served), never anything else."""
    graph = json.loads(json.dumps(transform_serving_input_fn().to_json()))
    node = data.draw(st.integers(0, len(graph["nodes"]) - 1))
    where = data.draw(st.sampled_from(["op", "inputs", "dtype", "attrs", "attr", "known op"]))
    value = data.draw(GRAPH_VALUES)
    if where == "known op":  # a real op over what another op was given
        graph["nodes"][node]["op"] = data.draw(st.sampled_from(cn.core.symbolic.OPS))
    elif where == "attr":
        key = data.draw(st.sampled_from(["name", "shape", "value", "dtype", "axis", "pos"]))
        graph["nodes"][node]["attrs"][key] = value
    else:
        graph["nodes"][node][where] = value
    try:
        serving_graph_checks.check_graph(graph, "m.json")
    except ExportError:
        return
    try:
        serving_graph.apply_graph(graph, {"sq_ft": [1.0, 2.0], "city": ["a", "B"]})
    except (ValueError, TypeError):
        pass


def test_equality_of_a_serving_input_is_elementwise_as_tf2s():
    city = tf.placeholder(tf.string, [None])
    receiver = E.ServingInputReceiver(
        {"is_rome": tf.cast(city == "rome", tf.int64), "not_rome": city != "rome"}, {"c": city}
    )
    out = receiver.apply({"c": ["rome", "oslo"]})
    assert out["is_rome"].tolist() == [1, 0] and out["not_rome"].tolist() == [False, True]
    assert E.TensorServingInputReceiver(city, {"c": city}).features == {"feature": 0}


def test_a_pandas_column_of_lists_feeds_a_placeholder_of_rows(tmp_path):
    """``[None, 1]`` placeholders take a DataFrame whose columns hold a one-value list a
    row, as they take the same rows as 2-D arrays; ragged rows are refused by name."""
    est = trained_linear_model_fn(tmp_path, seed=4)

    rows = np.array([[0.5, 1.0], [-2.0, 3.0], [4.0, -1.0]], np.float32)
    x1 = tf.placeholder(tf.float32, [None, 1], name="x1")
    x2 = tf.placeholder(tf.float32, [None, 1], name="x2")

    def two_wide():
        return tf.estimator.export.ServingInputReceiver({"x1": x1, "x2": x2}, {"x1": x1, "x2": x2})

    path = est.export_saved_model(str(tmp_path / "export"), two_wide)
    predictor = cn.load(path, model_fns={"linear_model_fn": linear_model_fn})
    as_arrays = predictor.predict({"x1": rows[:, :1], "x2": rows[:, 1:]})["y"]
    as_lists = predictor.predict(
        pd.DataFrame({"x1": [[v] for v in rows[:, 0]], "x2": [[v] for v in rows[:, 1]]})
    )["y"]
    np.testing.assert_allclose(as_lists, as_arrays, rtol=1e-6)
    by_hand = pd.DataFrame({"x1": rows[:, 0], "x2": rows[:, 1]})
    np.testing.assert_allclose(as_lists, est.predict(by_hand, verbose=0)["y"], rtol=1e-6)
    with pytest.raises(ValueError, match="'x1' takes rows of one length, got ragged lists"):
        predictor.predict(pd.DataFrame({"x1": [[1.0], [2.0, 3.0]], "x2": [[1.0], [2.0]]}))
