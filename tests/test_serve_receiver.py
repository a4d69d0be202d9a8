"""``colonnade serve`` of exports made with a ``ServingInputReceiver`` (issue 25): a
request sends the receiver tensors by name, the export's serving graph runs before the
model, a placeholder with a default may be left out, and the ``{"examples": serialized}``
form takes b64 records and ``:classify`` bodies."""

import base64
import re

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
import colonnade.compat.v1 as tf

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_serve import NAME, Client, serve  # noqa: E402

E, fc = cn.estimators, cn.feature_columns
CITY = fc.categorical_column_with_vocabulary_list("city", ["paris", "rome", "oslo"])


def frame(n=100, seed=0):
    rng = np.random.default_rng(seed)
    sq_ft = rng.uniform(300, 5000, n).astype(np.float32)
    city = rng.choice(["paris", "rome", "oslo"], n)
    y = (sq_ft > 2000).astype(int) ^ (city == "rome")
    return pd.DataFrame({"sq_ft": sq_ft, "city": city, "y": y})


def serving_input_fn():
    inputs = {
        "sq_ft": tf.placeholder(tf.float32, [None]),
        "city": tf.placeholder(tf.string, [None]),
        "unit": tf.placeholder_with_default(tf.constant([1.0]), [None]),
    }
    features = {
        "log_sq_ft": tf.math.log1p(inputs["sq_ft"] * inputs["unit"]) / 10.0,
        "city": tf.strings.lower(inputs["city"]),
    }
    return tf.estimator.export.ServingInputReceiver(features, inputs)


def train(model_dir, columns, data):
    est = E.LinearClassifier(feature_columns=columns, config=E.RunConfig(model_dir=str(model_dir)))
    est.fit(data, label="y", epochs=1, batch_size=25, verbose=0)
    return est


@pytest.fixture(scope="module")
def transform(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve_receiver")
    data = frame()
    data["log_sq_ft"] = np.log1p(data.sq_ft) / np.float32(10.0)
    est = train(root / "model", [fc.numeric_column("log_sq_ft"), CITY], data)
    first = est.export_saved_model(str(root / "exports"), serving_input_fn)
    for served in serve(root, root / "exports", first):
        client = Client(served["port"])
        yield {**served, "client": client}
        client.conn.close()


def test_predict_takes_the_receiver_tensors_and_runs_the_graph(transform):
    client = transform["client"]
    rows = [{"sq_ft": 400.0, "city": "PARIS"}, {"sq_ft": 4000, "city": "Rome"}]
    expected = cn.load(transform["first"]).predict(pd.DataFrame(rows))
    status, body = client.predict({"instances": rows})
    assert status == 200, body
    np.testing.assert_allclose(
        [p["logistic"][0] for p in body["predictions"]], expected["logistic"], rtol=1e-6
    )
    columns = {"sq_ft": [400.0, 4000.0], "city": ["PARIS", "Rome"], "unit": [1.0, 1.0]}
    status, body = client.predict({"inputs": columns})
    assert status == 200, body
    np.testing.assert_allclose(
        np.asarray(body["outputs"]["logistic"])[:, 0], expected["logistic"], rtol=1e-6
    )
    # the unit placeholder's default is 1.0: a unit of 2 is the same as twice the area
    doubled = [{"sq_ft": 200.0, "city": "PARIS", "unit": 2.0}]
    status, body = client.predict({"instances": doubled})
    assert status == 200, body
    assert body["predictions"][0]["logistic"][0] == pytest.approx(expected["logistic"][0], 1e-6)


def test_metadata_names_the_receiver_tensors(transform):
    status, body = transform["client"].call("GET", f"/v1/models/{NAME}/metadata")
    assert status == 200, body
    inputs = body["metadata"]["signature_def"]["signature_def"]["serving_default"]["inputs"]
    assert sorted(inputs) == ["city", "sq_ft", "unit"]


@pytest.mark.parametrize(
    "rows, match",
    [
        ([{"sq_ft": "big", "city": "paris"}], r"'sq_ft' takes numbers"),
        ([{"sq_ft": 1.0, "city": 3}], r"'city' takes strings"),
        ([{"city": "paris"}], r"lacks input column\(s\) \['sq_ft'\]"),
        ([{"sq_ft": 1.0, "city": "paris", "zip": 1}], r"unknown input\(s\) \['zip'\]"),
        ([{"sq_ft": None, "city": "paris"}], r"input 'sq_ft' has a null"),
    ],
)
def test_a_value_that_does_not_fit_its_placeholder_is_a_400_naming_it(transform, rows, match):
    status, body = transform["client"].predict({"instances": rows})
    assert status == 400, body
    assert re.search(match, body["error"]), body


@pytest.fixture(scope="module")
def examples(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve_receiver_examples")
    columns = [fc.numeric_column("sq_ft"), CITY]
    feature_spec = fc.make_parse_example_spec(columns)

    def examples_input_fn():
        serialized = tf.placeholder(dtype=tf.string, shape=[None], name="input_example_tensor")
        features = tf.parse_example(serialized, feature_spec)
        return tf.estimator.export.ServingInputReceiver(features, {"examples": serialized})

    est = train(root / "model", columns, frame(seed=1))
    first = est.export_saved_model(str(root / "exports"), examples_input_fn)
    for served in serve(root, root / "exports", first):
        client = Client(served["port"])
        yield {**served, "client": client}
        client.conn.close()


def test_the_examples_receiver_takes_b64_records_and_classify(examples, tmp_path):
    rows = frame(4, seed=5).drop(columns="y")
    path = str(tmp_path / "rows.tfrecord")
    cn.io.write_tfrecord(rows, path)
    serialized = list(cn.io.tf_record_iterator(path))
    expected = cn.load(examples["first"]).predict_examples(serialized)["logistic"]
    b64 = [{"b64": base64.b64encode(s).decode()} for s in serialized]
    client = examples["client"]
    for body in ({"examples": b64}, {"instances": b64}):
        status, answer = client.predict(body)
        assert status == 200, answer
        got = [p["logistic"][0] for p in answer["predictions"]]
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    request = {"examples": rows.to_dict("records")}
    status, answer = client.call("POST", f"/v1/models/{NAME}:classify", request)
    assert status == 200, answer
    np.testing.assert_allclose([r[1][1] for r in answer["results"]], expected, rtol=1e-5)
