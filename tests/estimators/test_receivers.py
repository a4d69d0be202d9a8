"""Serving input receivers: exports that take serialized tf.Example records."""

import json
import math
import os

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

fc = cn.feature_columns
E = cn.estimators


def frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n).astype(float)
    city = rng.choice(["paris", "rome", "oslo"], n)
    y = ((age > 40) ^ (city == "rome")).astype(int)
    return pd.DataFrame({"age": age, "city": city, "y": y})


COLUMNS = [
    fc.numeric_column("age"),
    fc.embedding_column(
        fc.categorical_column_with_vocabulary_list("city", ["paris", "rome", "oslo"]), 2
    ),
]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("receivers")
    est = E.DNNClassifier(
        hidden_units=[4],
        feature_columns=COLUMNS,
        config=E.RunConfig(model_dir=str(root / "model"), tf_random_seed=1),
    )
    est.fit(frame(), label="y", epochs=1, batch_size=16, verbose=0)
    return est, root


def serialized_rows(rows, path):
    cn.io.write_tfrecord(rows, str(path))
    return list(cn.io.tf_record_iterator(str(path)))


@pytest.mark.parametrize(
    "spec",
    [
        fc.make_parse_example_spec(COLUMNS),
        {
            "age": cn.io.FixedLenFeature([], "float32", default_value=30.0),
            "city": cn.io.VarLenFeature("string"),
        },
    ],
    ids=["schema", "dict"],
)
def test_predict_examples_equals_predict_on_the_same_rows(trained, tmp_path, spec):
    est, _ = trained
    fn = E.export.build_parsing_serving_input_receiver_fn(spec)
    path = est.export_saved_model(str(tmp_path / "exports"), serving_input_receiver_fn=fn)
    recorded = json.load(open(os.path.join(path, "model.json")))["serving_input_receiver"]
    assert recorded["type"] == "parsing"
    assert recorded["features"]["city"] == {
        "kind": "var",
        "dtype": "string",
        "shape": [],
        "default": None,
    }
    predictor = cn.load(path)
    assert predictor.takes_examples
    assert predictor.serving_input_receiver == fn()
    rows = frame(25, seed=5).drop(columns="y")
    serialized = serialized_rows(rows, tmp_path / "rows.tfrecord")
    got = predictor.predict_examples(serialized)
    pd.testing.assert_frame_equal(got, predictor.predict(rows))
    assert len(predictor.predict_examples([])) == 0


def test_a_default_fills_a_missing_feature(trained, tmp_path):
    est, _ = trained
    spec = {
        "age": cn.io.FixedLenFeature([], "float32", default_value=33.0),
        "city": cn.io.VarLenFeature("string"),
    }
    path = est.export_saved_model(
        str(tmp_path / "e"), E.build_parsing_serving_input_receiver_fn(spec)
    )
    predictor = cn.load(path)
    serialized = serialized_rows(pd.DataFrame({"city": ["rome"]}), tmp_path / "r.tfrecord")
    got = predictor.predict_examples(serialized)
    expected = predictor.predict(pd.DataFrame({"age": [33.0], "city": ["rome"]}))
    pd.testing.assert_frame_equal(got, expected)


def test_predict_examples_without_a_parsing_receiver_says_so(trained, tmp_path):
    est, _ = trained
    plain = cn.load(est.export_saved_model(str(tmp_path / "plain")))
    assert plain.serving_input_receiver is None and not plain.takes_examples
    with pytest.raises(ValueError, match="build_parsing_serving_input_receiver_fn"):
        plain.predict_examples([b""])
    raw_fn = E.build_raw_serving_input_receiver_fn({"age": "float32", "city": "string"})
    raw = cn.load(est.export_saved_model(str(tmp_path / "raw"), raw_fn))
    assert isinstance(raw.serving_input_receiver, E.RawServingInputReceiver)
    assert raw.serving_input_receiver.features["age"]["dtype"] == "float32"
    with pytest.raises(ValueError, match="without a parsing serving input receiver"):
        raw.predict_examples([b""])
    rows = frame(3, seed=2).drop(columns="y")
    pd.testing.assert_frame_equal(raw.predict(rows), plain.predict(rows))


def test_bad_receivers_are_refused_at_export(trained, tmp_path):
    est, _ = trained
    only_age = E.build_parsing_serving_input_receiver_fn(
        {"age": cn.io.FixedLenFeature([], "float32")}
    )
    with pytest.raises(ValueError, match=r"lacks input column\(s\) \['city'\]"):
        est.export_saved_model(str(tmp_path / "x"), only_age)
    with pytest.raises(TypeError, match="no TF graph"):
        est.export_saved_model(str(tmp_path / "x"), lambda: object())
    with pytest.raises(ValueError, match="FixedLenSequenceFeature"):
        E.build_parsing_serving_input_receiver_fn(
            {"a": cn.io.FixedLenSequenceFeature([], "int64", allow_missing=True)}
        )


GOOD = {"kind": "fixed", "dtype": "float32", "shape": [], "default": [1.0]}


@pytest.mark.parametrize(
    "receiver, match",
    [
        ([1], r"field serving_input_receiver: expected dict"),
        ({"type": "tree", "features": {}}, r"serving_input_receiver\.type: expected one of"),
        ({"type": "parsing"}, r"serving_input_receiver\.features is missing"),
        ({"type": "parsing", "features": {}}, r"serving_input_receiver\.features: expected 1"),
        ({"type": "parsing", "features": {"age": GOOD}, "x": 1}, r"unknown field\(s\) \['x'\]"),
        ({"type": "parsing", "features": {"age": 3}}, r"features\['age'\]: expected dict"),
        ({"age": {**GOOD, "kind": "seq"}}, r"features\['age'\]\.kind: expected one of"),
        ({"age": {**GOOD, "dtype": "float64"}}, r"features\['age'\]\.dtype: expected one of"),
        ({"age": {**GOOD, "shape": [-1]}}, r"features\['age'\]\.shape: expected at most"),
        ({"age": {**GOOD, "shape": [1 << 30]}}, r"features\['age'\]\.shape"),
        ({"age": {**GOOD, "shape": [True]}}, r"features\['age'\]\.shape"),
        ({"age": {**GOOD, "shape": [1024, 1024, 2]}}, r"features\['age'\]\.shape.*too large"),
        ({"age": {**GOOD, "default": ["x"]}}, r"features\['age'\]\.default: expected float32"),
        ({"age": {**GOOD, "default": [1.0, 2.0]}}, r"features\['age'\]\.default: expected null"),
        ({"age": {**GOOD, "default": 1.0}}, r"features\['age'\]\.default"),
        ({"age": {**GOOD, "dtype": "int64", "default": [True]}}, r"\.default: expected int64"),
        ({"age": {**GOOD, "dtype": "int64", "default": [2**64]}}, r"\.default: expected int64"),
        ({"age": {**GOOD, "kind": "var", "default": None, "shape": [2]}}, r"var feature"),
        ({"age": {**GOOD, "extra": 1}}, r"features\['age'\]: unknown field"),
        ({"": GOOD, "age": GOOD}, r"bad feature name ''"),
        ({"age": GOOD}, r"lacks input column\(s\) \['city'\]"),
    ],
)
def test_a_tampered_receiver_is_an_export_error_naming_the_field(
    trained, tmp_path_factory, receiver, match
):
    est, root = trained
    base = root / "tampered"
    if not base.exists():
        spec = fc.make_parse_example_spec(COLUMNS)
        est.export_saved_model(str(base), E.build_parsing_serving_input_receiver_fn(spec))
    (export,) = [p for p in base.iterdir() if p.name.isdigit()]
    copy = tmp_path_factory.mktemp("t") / "e"
    import shutil

    shutil.copytree(export, copy)
    meta = json.loads((copy / "model.json").read_text())
    if isinstance(receiver, dict) and "type" not in receiver and "features" not in receiver:
        receiver = {"type": "parsing", "features": receiver}
    meta["serving_input_receiver"] = receiver
    (copy / "model.json").write_text(json.dumps(meta))
    with pytest.raises(E.ExportError, match=match):
        cn.load(str(copy))


# --- tf.Examples serialized by TF (golden/make_tf_estimators.py), TF's predictions ---

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "tf_estimators")


def tf_columns():
    """The wide&deep columns of the TF fixtures (as in ``make_tf_estimators.py``)."""
    from test_tf_model_dir import columns  # pytest puts this folder on sys.path

    return columns()


def tf_serialized():
    """The records TF wrote to ``rows.tfrecord``: ``tf.train.Example``s TF serialized."""
    return list(cn.io.tf_record_iterator(os.path.join(GOLDEN, "rows.tfrecord")))


@pytest.fixture(scope="module")
def tf_taken_over(tmp_path_factory):
    """colonnade's export (parsing receiver) of TF's wide&deep model_dir, taken over."""
    import shutil

    root = tmp_path_factory.mktemp("tf_examples")
    shutil.copytree(os.path.join(GOLDEN, "wide_deep_classifier"), root / "model")
    wide, deep = tf_columns()
    est = E.DNNLinearCombinedClassifier(
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=[8, 4],
        model_dir=str(root / "model"),
    )
    spec = fc.make_parse_example_spec(wide + deep)
    fn = E.export.build_parsing_serving_input_receiver_fn(spec)
    return est.export_saved_model(str(root / "exports"), serving_input_receiver_fn=fn), root


def test_tf_serialized_examples_predict_what_tfs_export_predicts(tf_taken_over):
    """Bytes a TF client sends (tf.train.Example, serialized by TF) through colonnade's
    export of the taken-over model equal what TF's own export (parsing receiver) gave."""
    path, _ = tf_taken_over
    want = np.load(os.path.join(GOLDEN, "examples.npz"))
    got = cn.load(path).predict_examples(tf_serialized()[:64])
    probabilities = got[["probabilities_0", "probabilities_1"]].to_numpy()
    np.testing.assert_allclose(probabilities, want["probabilities"], atol=1e-5)
    np.testing.assert_allclose(got["logits"], want["logits"][:, 0], atol=1e-5)
    np.testing.assert_array_equal(got["class_ids"], want["class_ids"][:, 0])


def test_tf_serialized_examples_through_colonnade_serve(tf_taken_over):
    """The same bytes as ``{"examples": [{"b64": ...}]}`` to ``colonnade serve``'s app."""
    import base64
    import http.client
    import socket
    import threading
    import time

    pytest.importorskip("starlette")
    uvicorn = pytest.importorskip("uvicorn")
    from colonnade.serving import ModelStore, create_app

    path, _ = tf_taken_over
    want = np.load(os.path.join(GOLDEN, "examples.npz"))["probabilities"][:8]
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    store = ModelStore(os.path.dirname(path), poll_interval=60)
    server = uvicorn.Server(uvicorn.Config(create_app(store, "m"), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)
        body = {"examples": [{"b64": base64.b64encode(s).decode()} for s in tf_serialized()[:8]]}
        conn = http.client.HTTPConnection("127.0.0.1", sock.getsockname()[1], timeout=30)
        conn.request("POST", "/v1/models/m:predict", body=json.dumps(body).encode())
        response = conn.getresponse()
        answer = json.loads(response.read())
        conn.close()
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
    assert response.status == 200, answer
    got = [p["probabilities"] for p in answer["predictions"]]
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_receivers_record_what_tfs_exports_record(tf_taken_over, tmp_path):
    """TF's exports of the same model (``examples.json``): a parsing one takes a batch of
    serialized strings parsed with ``make_parse_example_spec``'s spec, a raw one a batch of
    values per feature; colonnade's ``model.json`` records the same features, dtypes and
    per-example shapes (TF's shapes are ``[None] + shape``)."""
    with open(os.path.join(GOLDEN, "examples.json")) as f:
        tf_export = json.load(f)
    path, root = tf_taken_over
    assert tf_export["parsing_signature"][0] == {"examples": ["string", [None]]}
    parsing = json.load(open(os.path.join(path, "model.json")))["serving_input_receiver"]
    assert parsing["type"] == "parsing"
    kinds = {"FixedLenFeature": ("fixed", "nullable"), "VarLenFeature": ("var",)}
    assert sorted(parsing["features"]) == sorted(tf_export["parse_spec"])
    for name, (tf_kind, dtype, shape) in tf_export["parse_spec"].items():
        ours = parsing["features"][name]
        assert ours["kind"] in kinds[tf_kind], name
        # a numeric column of shape (1,) is one value per example: TF's FixedLenFeature
        # [1]; colonnade's schema records it as a scalar field ([])
        assert ours["dtype"] == dtype and math.prod(ours["shape"]) == math.prod(shape), name

    tf_inputs, tf_outputs = tf_export["raw_signature"]
    raw_fn = E.build_raw_serving_input_receiver_fn(
        {name: dtype for name, (dtype, _) in tf_inputs.items()}
    )
    wide, deep = tf_columns()
    est = E.DNNLinearCombinedClassifier(
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=[8, 4],
        model_dir=str(root / "model"),
    )
    raw_path = est.export_saved_model(str(tmp_path / "raw"), raw_fn)
    raw = json.load(open(os.path.join(raw_path, "model.json")))["serving_input_receiver"]
    assert raw["type"] == "raw"
    assert {k: [v["dtype"], [None, *v["shape"]]] for k, v in raw["features"].items()} == tf_inputs
    rows = pd.read_csv(os.path.join(GOLDEN, "rows.csv")).iloc[:4]
    got = cn.load(raw_path).predict(rows[list(tf_inputs)].astype({"age": "float32"}))
    # the outputs are TF's (a frame flattens probabilities to probabilities_0, _1), less
    # TF's per-class constants all_classes and all_class_ids
    outputs = {c.rpartition("_")[0] if c[-1].isdigit() else c for c in got.columns}
    assert outputs == set(tf_outputs) - {"all_classes", "all_class_ids"}
