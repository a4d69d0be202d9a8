"""Export and load: a fresh process predicts what the estimator predicted."""

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

fc = cn.feature_columns
E = cn.estimators


def frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n).astype(float)
    city = rng.choice(["paris", "rome", "oslo", "lima"], n)
    job = rng.choice(["a", "b", "c"], n)
    y = ((age > 40) ^ (city == "rome")).astype(int)
    return pd.DataFrame({"age": age, "city": city, "job": job, "y": y})


def wide_deep(tmp_path, vocab_file):
    age = fc.numeric_column("age", normalizer_fn=fc.standardize(45.0, 15.0))
    city = fc.categorical_column_with_vocabulary_file("city", vocab_file, num_oov_buckets=1)
    job = fc.categorical_column_with_hash_bucket("job", 10)
    buckets = fc.bucketized_column(fc.numeric_column("age"), [30, 40, 50])
    cross = fc.crossed_column([buckets, "city"], 20)
    return E.DNNLinearCombinedClassifier(
        linear_feature_columns=[buckets, city, cross],
        dnn_feature_columns=[age, fc.embedding_column(city, 3), fc.indicator_column(job)],
        dnn_hidden_units=[8, 4],
        dnn_optimizer=cn.train.AdamOptimizer(0.01),
        batch_norm=True,
        config=E.RunConfig(
            model_dir=str(tmp_path / "model"), tf_random_seed=3, log_step_count_steps=0
        ),
    )


def test_export_then_load_in_a_fresh_process_predicts_the_same(tmp_path):
    vocab = tmp_path / "cities.txt"
    vocab.write_text("paris\nrome\noslo\n")
    est = wide_deep(tmp_path, str(vocab))
    est.fit(frame(), label="y", epochs=3)
    path = est.export_saved_model(str(tmp_path / "export"))
    assert os.path.basename(path).isdigit()
    os.remove(vocab)  # the export carries its own copy
    meta = json.loads((tmp_path / "export" / os.path.basename(path) / "model.json").read_text())
    assert meta["format_version"] == 1 and meta["estimator"] == "DNNLinearCombinedClassifier"
    rows = frame(50, seed=1).drop(columns="y")
    expected = est.predict(rows)
    rows.to_parquet(tmp_path / "rows.parquet")
    script = (
        "import sys, colonnade as cn, pandas as pd\n"
        "p = cn.load(sys.argv[1])\n"
        "p.predict(pd.read_parquet(sys.argv[2])).to_parquet(sys.argv[3])\n"
    )
    subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            str(tmp_path / "export"),
            str(tmp_path / "rows.parquet"),
            str(tmp_path / "out.parquet"),
        ],
        check=True,
        timeout=120,
    )
    got = pd.read_parquet(tmp_path / "out.parquet")
    np.testing.assert_allclose(got["logits"], expected["logits"], rtol=1e-6)
    assert got["classes"].tolist() == expected["classes"].tolist()


def test_loaded_predictor_errors(tmp_path):
    est = E.LinearRegressor(
        [fc.numeric_column("x")],
        config=E.RunConfig(model_dir=str(tmp_path / "m"), log_step_count_steps=0),
    )
    est.fit(pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, 2.0]}), label="y")
    path = est.export_saved_model(str(tmp_path / "e"))
    predictor = cn.estimators.load(path)
    assert predictor.input_columns == ["x"]
    with pytest.raises(KeyError, match="x"):
        predictor.predict(pd.DataFrame({"z": [1.0]}))
    meta_path = os.path.join(path, "model.json")
    meta = json.loads(open(meta_path).read())
    meta["format_version"] = 99
    open(meta_path, "w").write(json.dumps(meta))
    with pytest.raises(ValueError, match="format_version 99"):
        cn.estimators.load(path)
    with pytest.raises(FileNotFoundError):
        cn.estimators.load(str(tmp_path / "nothing"))


def test_custom_normalizer_or_activation_cannot_be_exported(tmp_path):
    rows = pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, 2.0]})
    est = E.DNNRegressor(
        [2],
        [fc.numeric_column("x", normalizer_fn=lambda v: v * 2)],
        config=E.RunConfig(model_dir=str(tmp_path / "m"), log_step_count_steps=0),
    )
    est.fit(rows, label="y")  # an untrained model is refused before its columns are looked at
    with pytest.raises(ValueError, match="'x'"):
        est.export_saved_model(str(tmp_path / "e"))
    est = E.DNNRegressor(
        [2],
        [fc.numeric_column("x")],
        activation_fn=lambda t: t,
        config=E.RunConfig(model_dir=str(tmp_path / "m2"), log_step_count_steps=0),
    )
    est.fit(rows, label="y")
    with pytest.raises(ValueError, match="custom function"):
        est.export_saved_model(str(tmp_path / "e"))
    assert not (tmp_path / "e").exists() or not os.listdir(tmp_path / "e")


def test_export_versions_are_ascii_digits_of_an_int64():
    from colonnade.estimators.export.directory import export_version

    assert export_version("1700000000") == 1700000000
    assert export_version(str(2**63 - 1)) == 2**63 - 1
    for name in ("²", "٣", "", "-1", "+5", "1_000", " 12", str(2**63), "9" * 5000, "1.5"):
        assert export_version(name) is None, name
    with pytest.raises(TypeError, match="directory name \\(str\\), got int"):
        export_version(12)
    assert export_version(b"12") == 12 and export_version("²".encode()) is None  # bytes paths


def test_a_predictor_called_as_tfs_gives_tfs_dict_of_arrays(tmp_path):
    """tf.contrib.predictor's call: {"examples": [...]} (or raw columns) -> {key: array},
    with a binary head's TF keys and shapes (probabilities (n, 2), class_ids (n, 1)...)."""
    import pandas as pd

    fc = cn.feature_columns
    x = fc.numeric_column("x")
    df = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "y": [0, 0, 1, 1]})
    est = cn.estimators.LinearClassifier([x], model_dir=str(tmp_path / "m"))
    est.fit(df, label="y", epochs=2, verbose=0)
    receiver = cn.estimators.build_parsing_serving_input_receiver_fn(
        fc.make_parse_example_spec([x])
    )
    predictor = cn.load(est.export_saved_model(str(tmp_path / "e"), receiver))
    path = tmp_path / "rows.tfrecord"
    cn.io.write_tfrecord(df[["x"]], str(path))
    records = list(cn.io.tf_record_iterator(str(path)))
    out = predictor({"examples": records})
    assert set(out) == {
        "logits", "logistic", "probabilities", "class_ids", "classes",
        "all_class_ids", "all_classes",
    }  # fmt: skip
    assert out["probabilities"].shape == (4, 2) and out["class_ids"].shape == (4, 1)
    frame = predictor.predict(df[["x"]])
    np.testing.assert_allclose(out["probabilities"][:, 1], frame["probabilities_1"], rtol=1e-6)
    np.testing.assert_allclose(out["probabilities"].sum(axis=1), 1.0, rtol=1e-6)
    same = predictor({"x": df["x"].to_numpy()})
    np.testing.assert_array_equal(same["class_ids"], out["class_ids"])
    with pytest.raises(TypeError, match="takes a dict of inputs"):
        predictor([1.0])
