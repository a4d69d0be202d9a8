"""Serving input receivers: exports that take serialized tf.Example records."""

import json
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
        ({"type": "graph", "features": {}}, r"serving_input_receiver\.type: expected one of"),
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
