"""Every signature an export holds, served under its own key (issue 40), over real
HTTP: a canned export's ``classification``, ``regression`` and ``predict``; a custom
model_fn's ``export_outputs`` (recorded in ``model.json`` at export), so
``signature_name: "prediction"`` answers when the model_fn named it so; and the
columnar ``{"inputs": {"examples": [{"b64": ...}]}}`` of a parsing export. Answers are
checked against ``cn.load``'s predictions."""

import base64
import json
import os

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_serve import NAME, Client, serve, train_export  # noqa: E402

E, fc = cn.estimators, cn.feature_columns
ROWS = [{"age": 25.0, "city": "rome"}, {"age": 61.0, "city": "oslo"}]


@pytest.fixture(scope="module")
def parsing(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve_signatures")
    first = train_export(root / "model", root / "exports", parsing=True)
    yield from serve(root, root / "exports", first)


@pytest.fixture()
def client(parsing):
    c = Client(parsing["port"])
    yield c
    c.conn.close()


def test_a_canned_export_serves_each_of_its_signatures(parsing, client):
    want = cn.load(parsing["first"]).predict(pd.DataFrame(ROWS))
    status, body = client.predict({"signature_name": "classification", "instances": ROWS})
    assert status == 200, body
    assert [set(p) for p in body["predictions"]] == [{"classes", "scores"}] * 2
    assert [p["classes"] for p in body["predictions"]] == [["0", "1"]] * 2
    np.testing.assert_allclose(
        [p["scores"] for p in body["predictions"]],
        want[["probabilities_0", "probabilities_1"]].to_numpy(),
        rtol=1e-6,
    )
    status, body = client.predict(
        {
            "signature_name": "regression",
            "inputs": {"age": [r["age"] for r in ROWS], "city": [r["city"] for r in ROWS]},
        }
    )
    assert status == 200, body
    # TF's regression signature of a binary classifier: its logistic, one a row, (n, 1).
    np.testing.assert_allclose(body["outputs"], want[["logistic"]].to_numpy(), rtol=1e-6)
    for name in ("predict", "serving_default"):
        status, body = client.predict({"signature_name": name, "instances": ROWS})
        assert status == 200 and "class_ids" in body["predictions"][0], body
    status, body = client.predict({"signature_name": "prediction", "instances": ROWS})
    assert status == 400, body
    assert "'prediction' is not served" in body["error"]
    assert "['classification', 'predict', 'regression', 'serving_default']" in body["error"]


def test_metadata_lists_every_signature_with_its_method(client):
    status, body = client.call("GET", f"/v1/models/{NAME}/metadata")
    assert status == 200
    signatures = body["metadata"]["signature_def"]["signature_def"]
    methods = {k: s["method_name"] for k, s in signatures.items()}
    assert methods == {
        "serving_default": "tensorflow/serving/classify",
        "classification": "tensorflow/serving/classify",
        "regression": "tensorflow/serving/regress",
        "predict": "tensorflow/serving/predict",
    }
    assert set(signatures["classification"]["outputs"]) == {"classes", "scores"}
    assert set(signatures["regression"]["outputs"]) == {"outputs"}
    assert signatures["regression"]["outputs"]["outputs"]["dtype"] == "DT_FLOAT"


def b64_records(tmp_path, rows):
    path = str(tmp_path / "rows.tfrecord")
    cn.io.write_tfrecord(pd.DataFrame(rows), path)
    serialized = list(cn.io.tf_record_iterator(path))
    return serialized, [{"b64": base64.b64encode(s).decode()} for s in serialized]


def test_columnar_examples_of_b64_records(parsing, client, tmp_path):
    serialized, b64 = b64_records(tmp_path, ROWS)
    want = cn.load(parsing["first"]).predict_examples(serialized)
    status, body = client.predict({"inputs": {"examples": b64}})
    assert status == 200, body
    np.testing.assert_allclose(body["outputs"]["logistic"], want[["logistic"]], rtol=1e-6)
    # TF's classification signature reads its records as "inputs".
    request = {"signature_name": "classification", "inputs": {"inputs": b64}}
    status, body = client.predict(request)
    assert status == 200, body
    np.testing.assert_allclose(
        body["outputs"]["scores"],
        want[["probabilities_0", "probabilities_1"]].to_numpy(),
        rtol=1e-6,
    )
    status, body = client.predict({"inputs": {"examples": [{"b64": "not base64!"}]}})
    assert status == 400 and "inputs[0].b64 is not valid base64" in body["error"], body


def named_model_fn(features, labels, mode, params):
    """A linear model on ``x`` whose PREDICT spec names its signatures as a ported
    program's does: ``prediction`` (``y``, also ``serving_default``, as TF requires of
    several) and ``hidden`` (a value it does not predict)."""
    w = cn.core.get_variable("w", [1, 1], initializer=cn.core.initializers.constant(2.0))
    x = np.asarray(features["x"], np.float32).reshape(-1, 1)
    y = x @ w
    if mode == E.ModeKeys.PREDICT:
        outputs = {
            "serving_default": E.export.PredictOutput({"y": y}),
            "prediction": E.export.PredictOutput({"y": y}),
            "hidden": E.export.PredictOutput({"h": x + 1.0}),
        }
        return E.EstimatorSpec(mode, predictions={"y": y}, export_outputs=outputs)
    loss = cn.losses.mean_squared_error(np.asarray(labels, np.float32).reshape(-1, 1), y)
    train_op = cn.train.GradientDescentOptimizer(0.01).minimize(
        loss, global_step=cn.train.get_global_step()
    )
    return E.EstimatorSpec(mode, {"y": y}, loss, train_op)


@pytest.fixture(scope="module")
def model_fn_export(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve_signatures_model_fn")
    est = E.Estimator(named_model_fn, model_dir=str(root / "model"))
    data = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [2.0, 4.0, 6.0]})
    est.fit(data, label="y", epochs=1, batch_size=3, verbose=0)
    receiver = E.export.build_raw_serving_input_receiver_fn({"x": "float32"})
    first = est.export_saved_model(str(root / "exports"), receiver)
    yield from serve(root, root / "exports", first, model_fns={"named_model_fn": named_model_fn})


def test_a_model_fn_export_records_its_export_outputs(model_fn_export):
    with open(os.path.join(model_fn_export["first"], "model.json")) as f:
        recorded = json.load(f)["signatures"]
    assert recorded == {
        "serving_default": {"method": "predict", "outputs": {"y": "y"}},
        "prediction": {"method": "predict", "outputs": {"y": "y"}},
        "hidden": {"method": "predict", "outputs": {"h": None}},
    }


def test_signature_name_prediction_answers_when_the_model_fn_named_it_so(model_fn_export):
    rows = {"x": [0.5, 4.0]}
    want = cn.load(model_fn_export["first"], model_fns={"named_model_fn": named_model_fn})
    y = want.predict_arrays(rows)["y"]
    client = Client(model_fn_export["port"])
    try:
        status, body = client.predict({"signature_name": "prediction", "inputs": rows})
        assert status == 200, body
        np.testing.assert_allclose(body["outputs"], y, rtol=1e-6)
        status, body = client.predict({"signature_name": "hidden", "inputs": rows})
        assert status == 400, body
        assert (
            "signature 'hidden' output 'h' is not one of the model's predictions" in body["error"]
        )
        status, body = client.predict({"signature_name": "regression", "inputs": rows})
        assert status == 400 and "['hidden', 'prediction', 'serving_default']" in body["error"]
    finally:
        client.conn.close()


def test_recorded_signatures_are_checked_on_load(tmp_path, model_fn_export):
    import shutil

    from colonnade.estimators.export.checks import ExportError
    from colonnade.serving import ModelStore

    bad = tmp_path / "bad"
    shutil.copytree(model_fn_export["first"], bad)
    meta = json.loads((bad / "model.json").read_text())
    meta["signatures"] = {"prediction": {"method": "explain", "outputs": {}}}
    (bad / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ExportError, match=r"signatures\['prediction'\]: expected .*'method'"):
        ModelStore(str(bad), model_fns={"named_model_fn": named_model_fn})


def test_signatures_json_follows_tfs_single_output_default():
    from colonnade.estimators.export.model_fn_export import signatures_json

    y = np.ones((2, 1))
    scores = np.ones((2, 3))
    got = signatures_json({"classify": E.export.ClassificationOutput(scores=scores)}, {"s": scores})
    # TF's EstimatorSpec: one export output not named serving_default also serves as it.
    assert (
        got["serving_default"]
        == got["classify"]
        == {
            "method": "classify",
            "outputs": {"scores": "s"},
        }
    )
    assert signatures_json(None, {"y": y}) == {}
    with pytest.raises(TypeError, match="PredictOutput, ClassificationOutput or RegressionOutput"):
        signatures_json({"bad": y}, {"y": y})


def test_a_model_fn_that_fails_on_the_probe_row_records_no_signatures(tmp_path, caplog):
    def picky(features, labels, mode, params):
        x = np.asarray(features["x"], np.float32).reshape(-1, 1)
        if mode == E.ModeKeys.PREDICT and not (x > 0).all():
            raise ValueError("x must be positive")
        return named_model_fn(features, labels, mode, params)

    est = E.Estimator(picky, model_dir=str(tmp_path / "model"))
    data = pd.DataFrame({"x": [1.0, 2.0], "y": [2.0, 4.0]})
    est.fit(data, label="y", epochs=1, batch_size=2, verbose=0)
    receiver = E.export.build_raw_serving_input_receiver_fn({"x": "float32"})
    with caplog.at_level("WARNING", logger="colonnade.estimators"):
        path = est.export_saved_model(str(tmp_path / "exports"), receiver)
    with open(os.path.join(path, "model.json")) as f:
        assert "signatures" not in json.load(f)
    assert "records no signatures" in caplog.text and "x must be positive" in caplog.text
    # still served, its predictions under serving_default and predict
    loaded = cn.load(path, model_fns={"picky": picky})
    np.testing.assert_allclose(loaded.predict_arrays({"x": [3.0]})["y"], [[6.0]], rtol=1e-4)


def graph_model_fn(features, labels, mode, params):
    """``y = w x`` over the feature ``x`` a serving graph computes."""
    w = cn.core.get_variable("w", [1, 1], initializer=cn.core.initializers.constant(3.0))
    y = np.asarray(features["x"], np.float32).reshape(-1, 1) @ w
    if mode == E.ModeKeys.PREDICT:
        return E.EstimatorSpec(mode, predictions={"y": y})
    loss = cn.losses.mean_squared_error(np.asarray(labels, np.float32).reshape(-1, 1), y)
    train_op = cn.train.GradientDescentOptimizer(0.0).minimize(
        loss, global_step=cn.train.get_global_step()
    )
    return E.EstimatorSpec(mode, {"y": y}, loss, train_op)


GRAPH_MODEL_FNS = {"graph_model_fn": graph_model_fn}


def graph_export(root, receiver_fn):
    est = E.Estimator(graph_model_fn, model_dir=str(root / "model"))
    est.fit(pd.DataFrame({"x": [1.0], "y": [3.0]}), label="y", epochs=1, verbose=0)
    return est.export_saved_model(str(root / "exports"), receiver_fn)


def test_a_model_fn_export_applies_its_serving_graph_once(tmp_path):
    tf = cn.compat.v1

    def doubling():
        raw = tf.placeholder(tf.float32, [None], name="raw")
        return E.export.ServingInputReceiver({"x": raw * 2.0}, {"raw": raw})

    path = graph_export(tmp_path, doubling)
    running = serve(
        tmp_path, tmp_path / "exports", path, model_fns={"graph_model_fn": graph_model_fn}
    )
    info = next(running)
    try:
        status, body = Client(info["port"]).predict({"instances": [{"raw": 1.0}, {"raw": 2.5}]})
        assert status == 200, body
        # w = 3 on x = 2 raw: 6 and 15 (the graph applied twice gave 12 and 30)
        np.testing.assert_allclose(body["predictions"], [[6.0], [15.0]], rtol=1e-6)
    finally:
        next(running, None)


def test_a_model_fn_export_of_a_parse_example_graph_takes_b64_records(tmp_path):
    tf = cn.compat.v1
    spec = {"x": cn.io.FixedLenFeature([], "float32")}

    def parsing():
        serialized = tf.placeholder(tf.string, [None], name="examples")
        return E.export.ServingInputReceiver(
            tf.parse_example(serialized, spec), {"examples": serialized}
        )

    path = graph_export(tmp_path, parsing)
    serialized, b64 = b64_records(tmp_path, [{"x": 2.0}, {"x": -1.0}])
    running = serve(
        tmp_path, tmp_path / "exports", path, model_fns={"graph_model_fn": graph_model_fn}
    )
    info = next(running)
    try:
        status, body = Client(info["port"]).predict({"instances": b64})
        assert status == 200, body  # was 400: the graph was applied to the parsed features
        np.testing.assert_allclose(body["predictions"], [[6.0], [-3.0]], rtol=1e-6)
    finally:
        next(running, None)
