"""forward_features (TF 1's ``tf.contrib.estimator.forward_features``): forwarded input
features join the predictions, an export records them and its loaded predictor answers
them; bad keys are refused naming them. Reference values are the inputs themselves."""

import json
import os

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

E, fc = cn.estimators, cn.feature_columns

FRAME = pd.DataFrame(
    {"x": np.linspace(-1.0, 1.0, 8), "id": [f"row-{i}" for i in range(8)], "n": np.arange(8)}
)
FRAME["y"] = 2.0 * FRAME["x"] + 1.0


def rows(frame=FRAME):
    return lambda: cn.data.Dataset.from_pandas(frame, label="y").batch(3)


@pytest.fixture
def regressor(tmp_path):
    est = E.LinearRegressor([fc.numeric_column("x")], model_dir=str(tmp_path / "lin"))
    est.train(rows(), steps=2, verbose=0)
    return est


def test_forwarded_keys_join_the_predictions_in_row_order(regressor):
    forwarded = E.forward_features(regressor, "id")
    got = list(forwarded.predict(rows(), yield_single_examples=True))
    assert [p["id"] for p in got] == list(FRAME["id"])
    plain = list(regressor.predict(rows()))
    assert "id" not in plain[0]  # the original is unchanged
    np.testing.assert_array_equal(
        [p["predictions"] for p in got], [p["predictions"] for p in plain]
    )
    listed = next(E.forward_features(regressor, ["id", "n"]).predict(rows()))
    assert (listed["id"], listed["n"]) == ("row-0", 0)
    everything = next(E.forward_features(regressor).predict(rows()))
    assert set(everything) == {"predictions", "x", "id", "n"}
    assert forwarded.model_dir == regressor.model_dir


def test_bad_keys_are_refused_naming_them(regressor):
    with pytest.raises(TypeError, match="keys should be either a string or a list of strings"):
        E.forward_features(regressor, 3)
    with pytest.raises(TypeError, match="list of strings"):
        E.forward_features(regressor, ["id", 3])
    with pytest.raises(ValueError, match="sparse_default_values is not supported"):
        E.forward_features(regressor, "id", sparse_default_values={"id": ""})
    with pytest.raises(ValueError, match=r"feature\(s\) \['zip'\] are not in the input"):
        next(E.forward_features(regressor, "zip").predict(rows()))
    with pytest.raises(ValueError, match=r"cannot forward feature\(s\) \['predictions'\]"):
        frame = FRAME.assign(predictions=1.0)
        next(E.forward_features(regressor, "predictions").predict(rows(frame)))


def model_fn(features, labels, mode, params):
    """y = w * x with one weight; its PREDICT spec exports a PredictOutput."""
    w = cn.compat.v1.get_variable("w", [], initializer=cn.compat.v1.zeros_initializer())
    y = w * features["x"]
    if mode == E.ModeKeys.PREDICT:
        outputs = {"predict": E.export.PredictOutput({"y": y})}
        return E.EstimatorSpec(mode, predictions={"y": y}, export_outputs=outputs)
    loss = cn.core.reduce_mean(cn.core.square(y - labels))
    train_op = cn.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=cn.train.get_global_step()
    )
    return E.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_a_model_fn_estimator_forwards_into_predictions_and_predict_output(tmp_path):
    est = E.Estimator(model_fn, model_dir=str(tmp_path / "custom"))
    est.train(rows(), steps=1, verbose=0)
    forwarded = E.forward_features(est, "id")
    got = next(forwarded.predict(rows(), yield_single_examples=False))
    assert list(got["id"]) == ["row-0", "row-1", "row-2"]
    spec = forwarded.model.spec(
        {"x": np.ones(2, np.float32), "id": np.array(["a", "b"])}, None, E.ModeKeys.PREDICT
    )
    assert list(spec.export_outputs["predict"].outputs["id"]) == ["a", "b"]

    def scalar_fn(features, labels, mode):
        w = cn.compat.v1.get_variable("w", [], initializer=cn.compat.v1.zeros_initializer())
        if mode == E.ModeKeys.PREDICT:
            return E.EstimatorSpec(mode, predictions=w * features["x"])
        return model_fn(features, labels, mode, None)

    plain = E.Estimator(scalar_fn, model_dir=str(tmp_path / "scalar"))
    plain.train(rows(), steps=1, verbose=0)
    with pytest.raises(ValueError, match="predictions should be a dict"):
        next(E.forward_features(plain, "id").predict(rows()))


def test_an_export_records_the_forwarded_keys_and_its_predictor_answers_them(regressor, tmp_path):
    receiver = E.export.build_raw_serving_input_receiver_fn({"x": "float32", "id": "string"})
    forwarded = E.forward_features(regressor, "id")
    path = forwarded.export_saved_model(str(tmp_path / "export"), receiver)
    with open(os.path.join(path, "model.json")) as f:
        assert json.load(f)["forward_features"] == ["id"]
    frame = FRAME[["x", "id"]].astype({"x": "float32"})
    got = cn.load(path).predict(frame)
    assert list(got["id"]) == list(FRAME["id"])
    expected = [float(p["predictions"][0]) for p in regressor.predict(rows())]
    np.testing.assert_allclose(got["predictions"], expected, rtol=1e-6)
    everything = E.forward_features(regressor).export_saved_model(str(tmp_path / "all"), receiver)
    assert set(cn.load(everything).predict(frame)) == {"predictions", "x", "id"}
    plain = regressor.export_saved_model(str(tmp_path / "plain"), receiver)
    assert "id" not in cn.load(plain).predict(frame)


def test_an_export_refuses_a_key_its_receiver_lacks_and_a_bad_record(regressor, tmp_path):
    receiver = E.export.build_raw_serving_input_receiver_fn({"x": "float32"})
    with pytest.raises(ValueError, match=r"cannot forward feature\(s\) \['id'\]: the serving"):
        E.forward_features(regressor, "id").export_saved_model(str(tmp_path / "e"), receiver)
    path = regressor.export_saved_model(str(tmp_path / "ok"), receiver)
    model_file = os.path.join(path, "model.json")
    with open(model_file) as f:
        meta = json.load(f)
    meta["forward_features"] = "id"
    with open(model_file, "w") as f:
        json.dump(meta, f)
    with pytest.raises(E.ExportError, match="field forward_features: expected a list"):
        cn.load(path)


def test_tf1_contrib_estimator_names_and_file_writer_cache():
    contrib = cn.compat.v1.contrib.estimator
    assert contrib.forward_features is E.forward_features
    assert contrib.add_metrics is E.add_metrics
    assert cn.compat.v1.summary.FileWriterCache.clear() is None


def test_a_model_fn_export_forwards_what_its_receiver_gives(tmp_path):
    est = E.Estimator(model_fn, model_dir=str(tmp_path / "custom"))
    est.train(rows(), steps=1, verbose=0)
    receiver = E.export.build_raw_serving_input_receiver_fn({"x": "float32", "id": "string"})
    path = E.forward_features(est, "id").export_saved_model(str(tmp_path / "export"), receiver)
    loaded = cn.load(path, model_fns={"model_fn": model_fn})
    frame = FRAME[["x", "id"]].astype({"x": "float32"})
    got = loaded.predict_arrays(frame)
    assert list(got["id"]) == list(FRAME["id"])
    expected = np.concatenate([p["y"] for p in est.predict(rows(), yield_single_examples=False)])
    np.testing.assert_allclose(got["y"], expected, rtol=1e-6)
    with pytest.raises(ValueError, match="cannot tell which features"):
        E.forward_features(est).export_saved_model(str(tmp_path / "none"))
