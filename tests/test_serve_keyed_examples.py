"""Issue 41 (WEAK, Server): an ``{examples, key}`` receiver (TF's pattern: serialized
``tf.Example`` records and a key sent beside each, the key forwarded to the answer)
refused b64 records ("not valid base64 of UTF-8 text") and parsed its examples in the
serving graph on a worker thread. It now takes them as the plain examples receiver does,
b64 and parsed like it, with the key beside each; over real HTTP."""

import base64

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
import colonnade.compat.v1 as tf

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_serve import Client, serve  # noqa: E402
from test_serve_receiver import CITY, frame, train  # noqa: E402

E, fc = cn.estimators, cn.feature_columns
COLUMNS = [fc.numeric_column("sq_ft"), CITY]


def keyed_input_fn():
    serialized = tf.placeholder(dtype=tf.string, shape=[None], name="input_example_tensor")
    key = tf.placeholder(dtype=tf.string, shape=[None], name="key")
    features = tf.parse_example(serialized, fc.make_parse_example_spec(COLUMNS))
    features["key"] = key
    return tf.estimator.export.ServingInputReceiver(features, {"examples": serialized, "key": key})


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve_keyed")
    plain = train(root / "model", COLUMNS, frame(seed=1))
    columns = plain.export_saved_model(str(root / "columns"))  # the same weights, no receiver
    est = E.forward_features(plain, "key")
    first = est.export_saved_model(str(root / "exports"), keyed_input_fn)
    rows = frame(4, seed=5).drop(columns="y")
    path = str(root / "rows.tfrecord")
    cn.io.write_tfrecord(rows, path)
    serialized = list(cn.io.tf_record_iterator(path))
    for served in serve(root, root / "exports", first):
        client = Client(served["port"])
        made = {"rows": rows, "serialized": serialized, "columns": columns}
        yield {**served, "client": client, **made}
        client.conn.close()


def _expected(keyed):
    return cn.load(keyed["columns"]).predict(keyed["rows"])["logits"].to_numpy()


def test_the_receiver_is_served_as_parsing_examples_with_a_key(keyed):
    model = keyed["store"].serving()
    assert model.parse_features is not None and model.example_context == ("key",)
    assert set(model.inputs) == {"sq_ft", "city", "key"}


def test_b64_instances_with_keys_answer_each_key_and_the_models_predictions(keyed):
    b64 = [{"b64": base64.b64encode(s).decode()} for s in keyed["serialized"]]
    keys = [f"row-{i}" for i in range(len(b64))]
    body = {"instances": [{"examples": b, "key": k} for b, k in zip(b64, keys)]}
    status, answer = keyed["client"].predict(body)
    assert status == 200, answer
    predictions = answer["predictions"]
    assert [p["key"] for p in predictions] == keys
    np.testing.assert_allclose([p["logits"][0] for p in predictions], _expected(keyed), rtol=1e-6)

    status, answer = keyed["client"].predict({"inputs": {"examples": b64, "key": keys}})
    assert status == 200, answer
    assert answer["outputs"]["key"] == keys
    np.testing.assert_allclose(
        np.asarray(answer["outputs"]["logits"])[:, 0], _expected(keyed), rtol=1e-6
    )


@pytest.mark.parametrize(
    "body, match",
    [
        ({"instances": [{"examples": {"b64": "!!"}, "key": "a"}]}, r"\.b64 is not valid base64"),
        ({"instances": [{"examples": {"b64": "AAAA"}}]}, r"lacks input column\(s\) \['key'\]"),
        (
            {"inputs": {"examples": [{"b64": ""}, {"b64": ""}], "key": ["a"]}},
            "ragged inputs|2 examples but 1 values",
        ),
        ({"instances": [{"examples": {"b64": ""}, "key": 3}]}, "'key' takes strings"),
    ],
)
def test_bad_keyed_requests_are_400_naming_the_field(keyed, body, match):
    status, answer = keyed["client"].predict(body)
    assert status == 400, answer
    assert pd.Series([answer["error"]]).str.contains(match).all(), answer
