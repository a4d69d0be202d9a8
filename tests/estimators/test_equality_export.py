"""An equality column in both parts of a wide&deep model survives the export: ``cn.load``
predicts what the estimator did, from a DataFrame, from TF-style inputs, from serialized
``tf.Example`` records and from a TF Serving JSON request decoded as ``colonnade serve``
decodes it."""

import json
import os

import numpy as np
import orjson
import pandas as pd

import colonnade as cn
from colonnade.serving.app import input_spec
from colonnade.serving.limits import Limits
from colonnade.serving.requests import decode_request
from colonnade.serving.versions import ServedModel

fc = cn.feature_columns
E = cn.estimators


def choices(n=300, seed=0):
    rng = np.random.default_rng(seed)
    options = np.round(rng.uniform(10, 100, (n, 2)), 2)
    choice = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "pa": options[:, 0],
            "pb": options[:, 1],
            "price": options[np.arange(n), choice],
            "y": choice,
        }
    )


def test_export_load_and_serve_predict_as_the_estimator(tmp_path):
    equal = fc.equality_column("price", "pb")
    price = fc.numeric_column("price")
    est = E.DNNLinearCombinedClassifier(
        linear_feature_columns=[equal, price],
        dnn_feature_columns=[equal, fc.numeric_column("pa")],
        dnn_hidden_units=[4],
        config=E.RunConfig(model_dir=str(tmp_path / "m"), tf_random_seed=1),
    )
    est.fit(choices(), label="y", epochs=3, verbose=0)
    rows = choices(20, seed=1).drop(columns="y")
    expected = est.predict(rows, verbose=0)["logits"].to_numpy()
    weight = est.get_variable_value("linear/linear_model/price_equals_pb/weights")
    assert abs(float(weight[0, 0])) > 0  # trained: the equality moves the logit

    path = est.export_saved_model(str(tmp_path / "raw"))
    for name in os.listdir(path):
        assert not name.endswith((".pkl", ".pickle"))
    model = json.loads((tmp_path / "raw" / os.path.basename(path) / "model.json").read_text())
    assert '"type": "equality_column"' in json.dumps(model)
    predictor = cn.load(path)
    got = predictor.predict(rows)["logits"].to_numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    tf_style = predictor({k: rows[k].to_numpy() for k in ("price", "pa", "pb")})
    np.testing.assert_allclose(tf_style["logits"][:, 0], expected, rtol=1e-5, atol=1e-6)

    served = ServedModel.load(1, path)
    assert sorted(served.inputs) == ["pa", "pb", "price"]
    body = orjson.dumps({"instances": rows.to_dict("records")})
    table = decode_request("predict", body, input_spec(served, Limits()), True).table
    answer = served.predictor({name: table.column(name) for name in table.column_names})
    np.testing.assert_allclose(answer["logits"][:, 0], expected, rtol=1e-5, atol=1e-6)

    receiver = E.build_parsing_serving_input_receiver_fn(
        fc.make_parse_example_spec([equal, price, fc.numeric_column("pa")])
    )
    parsing = cn.load(est.export_saved_model(str(tmp_path / "parsing"), receiver))
    records_path = tmp_path / "rows.tfrecord"
    cn.io.write_tfrecord(rows, str(records_path))
    records = list(cn.io.tf_record_iterator(str(records_path)))
    from_examples = parsing({"examples": records})
    np.testing.assert_allclose(from_examples["logits"][:, 0], expected, rtol=1e-5, atol=1e-6)
