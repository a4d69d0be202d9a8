"""``colonnade serve`` against TF Serving's documented REST API (issue 26), over real
HTTP: ``:classify``, ``:regress``, version labels, ``{"instances": [{"b64": ...}]}``,
status ``END`` for a swapped-out version, typing by the signature, unknown inputs, and
the README's ``curl`` example on the tour's own export.

The request and response shapes are TF Serving's (tensorflow.org/tfx/serving/api_rest):
classify ``{"results": [[[label, score], ...], ...]}``, regress ``{"results": [v, ...]}``
(TF Serving's ``kClassifyRegressResponseKey``), errors ``{"error": "..."}``."""

import base64
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import test_serve  # noqa: E402
from test_serve import (  # noqa: E402
    NAME,
    Client,
    expected_frame,
    frame,
    serve,
    train_export,
)

E, fc = cn.estimators, cn.feature_columns
client = test_serve.client  # the fixture: a keep-alive Client of this module's server
README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server of a binary classifier with version labels."""
    root = tmp_path_factory.mktemp("serve_tf_api")
    first = train_export(root / "model", root / "exports")
    version = int(Path(first).name)
    yield from serve(root, root / "exports", first, version_labels={"stable": version})


@pytest.fixture(scope="module")
def parsing(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve_tf_api_parsing")
    first = train_export(root / "model", root / "exports", parsing=True)
    yield from serve(root, root / "exports", first)


def test_classify_answers_label_score_pairs_per_example(server, client):
    # TF Serving's documented request: a context shared by all examples, list values.
    request = {
        "signature_name": "classification",
        "context": {"city": "rome"},
        "examples": [{"age": 25.0}, {"age": [61.0]}],
    }
    status, body = client.call("POST", f"/v1/models/{NAME}:classify", request)
    assert status == 200, body
    assert set(body) == {"results"}
    want = expected_frame(server, [{"age": 25.0, "city": "rome"}, {"age": 61.0, "city": "rome"}])
    for result, (_, row) in zip(body["results"], want.iterrows()):
        assert [label for label, _ in result] == ["0", "1"]
        scores = [score for _, score in result]
        np.testing.assert_allclose(scores, [1 - row["logistic"], row["logistic"]], rtol=1e-5)
    for bad, match in [
        ({"examples": []}, "'examples' is an empty list"),
        ({"instances": []}, "takes 'examples'"),
        ({"context": {"city": "rome"}, "examples": [{"age": 1.0, "city": "oslo"}]}, "repeats"),
        ({"examples": [{"age": [1.0, 2.0], "city": "rome"}]}, "'age' takes one value"),
        ({"examples": [{"age": 1.0, "city": "rome", "zip": 1}]}, r"unknown input\(s\) \['zip'\]"),
        ({"signature_name": "regression", "examples": [{"age": 1.0}]}, "not served for :classify"),
    ]:
        status, body = client.call("POST", f"/v1/models/{NAME}:classify", bad)
        assert status == 400 and re.search(match, body["error"]), body


def test_regress_answers_one_value_per_example(server, client):
    # TF Serving's example request shape; a binary classifier regresses its logistic.
    city = {"b64": base64.b64encode(b"oslo").decode()}  # bytes as TF Serving encodes them
    request = {
        "signature_name": "tensorflow/serving/regress",
        "examples": [{"age": 30.0, "city": city}, {"age": 70.0, "city": "paris"}],
    }
    status, body = client.call("POST", f"/v1/models/{NAME}:regress", request)
    assert status == 200, body
    want = expected_frame(server, [{"age": 30.0, "city": "oslo"}, {"age": 70.0, "city": "paris"}])
    np.testing.assert_allclose(body["results"], want["logistic"], rtol=1e-5)
    assert list(body) == ["results"]


def test_regress_of_a_regressor_and_classify_refused(tmp_path):
    columns = [fc.numeric_column("age")]
    config = E.RunConfig(model_dir=str(tmp_path / "m"))
    est = E.LinearRegressor(feature_columns=columns, config=config)
    data = frame(100)
    est.fit(data, label="y", epochs=1, batch_size=50, verbose=0)
    path = est.export_saved_model(str(tmp_path / "exports"))
    running = serve(tmp_path, tmp_path / "exports", path)
    info = next(running)
    try:
        c = Client(info["port"])
        status, body = c.call(
            "POST", f"/v1/models/{NAME}:regress", {"examples": [{"age": 2.0}, {"age": 3.0}]}
        )
        assert status == 200, body
        want = cn.load(path).predict(pd.DataFrame({"age": [2.0, 3.0]}))["predictions"]
        np.testing.assert_allclose(body["results"], want, rtol=1e-5)
        status, body = c.call("POST", f"/v1/models/{NAME}:classify", {"examples": [{"age": 2.0}]})
        assert status == 400 and "not a classifier" in body["error"]
        c.conn.close()
    finally:
        next(running, None)


def test_version_labels_pick_a_version(server, client):
    version = server["store"].serving().version
    row = {"instances": [{"age": 50.0, "city": "oslo"}]}
    status, body = client.call("POST", f"/v1/models/{NAME}/labels/stable:predict", row)
    assert status == 200 and len(body["predictions"]) == 1
    status, body = client.call("GET", f"/v1/models/{NAME}/labels/stable")
    assert status == 200
    assert body == {
        "model_version_status": [
            {
                "version": str(version),
                "state": "AVAILABLE",
                "status": {"error_code": "OK", "error_message": ""},
            }
        ]
    }
    status, body = client.call("GET", f"/v1/models/{NAME}/labels/stable/metadata")
    assert status == 200 and body["model_spec"]["version"] == str(version)
    status, body = client.call("GET", f"/v1/models/{NAME}/labels/canary")
    assert status == 404 and "labelled 'canary'" in body["error"]


def test_a_null_in_one_row_is_a_missing_value_typed_by_the_signature(server, client):
    # city: a missing category, alone in its column or not (a vocabulary miss: id -1).
    status, alone = client.predict({"instances": [{"age": 41.0, "city": None}]})
    assert status == 200, alone
    status, pair = client.predict({"instances": [{"age": 41.0, "city": None}, GOOD_ROW]})
    assert status == 200, pair
    np.testing.assert_allclose(
        alone["predictions"][0]["logistic"], pair["predictions"][0]["logistic"], rtol=1e-6
    )
    status, body = client.predict({"inputs": {"age": [41.0], "city": [None]}})
    assert status == 200, body
    # age: a numeric column with no default takes no missing value, alone or not, and
    # says so (not "has only missing values and so no type").
    for rows in ([{"age": None, "city": "rome"}], [{"age": None, "city": "rome"}, GOOD_ROW]):
        status, body = client.predict({"instances": rows})
        assert status == 400, body
        assert (
            "feature 'age' has 1 null values and the column has no default_value" in (body["error"])
        )


GOOD_ROW = {"age": 41.0, "city": "rome"}


def test_an_all_null_column_error_names_the_column_and_its_fix():
    from colonnade.feature_columns import TransformCache

    with pytest.raises(ValueError, match=r"df\['age'\]\.astype\('string'\)"):
        TransformCache({"age": [None]}).compute([fc.numeric_column("age")])


def test_an_unknown_input_is_refused_as_tf_serving_does(client):
    status, body = client.predict({"instances": [{**GOOD_ROW, "zip": "75001"}]})
    assert status == 400
    assert "instances[0] has unknown input(s) ['zip']" in body["error"]
    assert "does not have named input" in body["error"]
    status, body = client.predict({"inputs": {"age": [1.0], "city": ["a"], "zip": ["b"]}})
    assert status == 400 and "'inputs' has unknown input(s) ['zip']" in body["error"]


def test_instances_of_b64_examples_answer_as_predict_examples(parsing, tmp_path):
    rows = frame(4, seed=5).drop(columns="y")
    path = str(tmp_path / "rows.tfrecord")
    cn.io.write_tfrecord(rows, path)
    serialized = list(cn.io.tf_record_iterator(path))
    want = cn.load(parsing["first"]).predict_examples(serialized)
    c = Client(parsing["port"])
    try:
        b64 = [base64.b64encode(s).decode() for s in serialized]
        for instances in ([{"b64": b} for b in b64], [{"examples": {"b64": b}} for b in b64]):
            status, body = c.predict({"instances": instances})  # TFX's client sends this
            assert status == 200, body
            got = [p["logistic"][0] for p in body["predictions"]]
            np.testing.assert_allclose(got, want["logistic"], rtol=1e-6)
    finally:
        c.conn.close()


def test_a_swapped_out_version_has_status_end(tmp_path):
    base = tmp_path / "exports"
    running = serve(tmp_path, base, train_export(tmp_path / "model", base))
    info = next(running)
    client = Client(info["port"])
    try:
        store = info["store"]
        old = store.serving().version
        staging = train_export(tmp_path / "model2", tmp_path / "staging", 1)
        shutil.move(staging, base / str(old + 5))
        deadline = time.monotonic() + 30
        while store.serving().version != old + 5:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        status, body = client.call("GET", f"/v1/models/{NAME}/versions/{old}")
        assert status == 200, body
        ok = {"error_code": "OK", "error_message": ""}
        assert body == {
            "model_version_status": [{"version": str(old), "state": "END", "status": ok}]
        }
        status, body = client.predict({"instances": [GOOD_ROW]}, version=old)
        assert status == 404 and f"version {old}" in body["error"]
        status, body = client.call("GET", f"/v1/models/{NAME}/versions/{old + 99}")
        assert status == 404 and "never seen" in body["error"]
    finally:
        client.conn.close()
        next(running, None)


def readme_serving_request():
    """The README's serving block: its model name, path and JSON body."""
    text = README.read_text()
    block = text[text.index("### Serving") :]
    block = block[block.index("```sh") : block.index("```", block.index("```sh") + 5)]
    name = re.search(r"--model-name (\S+)", block)[1]
    path = re.search(r"localhost:8501(/v1/models/\S+:predict)", block)[1]
    body = re.search(r"-d '([^']+)'", block)[1]
    return name, path, body


def test_the_readme_curl_example_answers_on_the_tours_model(tmp_path, monkeypatch):
    """The README's tour, run as written on fewer rows, then its serving request."""
    import colonnade.demo

    text = README.read_text()
    tour = text[text.index("## A five-minute tour") :]
    code = tour[tour.index("```python") + 9 : tour.index("```", tour.index("```python") + 9)]
    full = colonnade.demo.load_adult
    monkeypatch.setattr(colonnade.demo, "load_adult", lambda part: full(part).head(400))
    monkeypatch.chdir(tmp_path)
    scope = {}
    exec(compile(code, "README.md tour", "exec"), scope)
    name, path, body = readme_serving_request()
    monkeypatch.setattr(test_serve, "NAME", name)
    running = serve(tmp_path, Path(scope["path"]).parent, scope["path"])
    info = next(running)
    try:
        c = Client(info["port"])
        status, answer = c.call("POST", path, body.encode())
        c.conn.close()
    finally:
        next(running, None)
    assert status == 200, answer
    (prediction,) = answer["predictions"]
    assert {"logits", "logistic", "probabilities", "classes"} <= prediction.keys()
