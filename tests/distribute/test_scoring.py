"""``cn.distribute.predict_dataset``: an export scored by Ray Data actors gives what
single-process ``predict`` gives, and a bad call fails before any actor starts."""

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


def frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n).astype(float)
    city = rng.choice(["paris", "rome", "oslo", "lima"], n)
    y = ((age > 40) ^ (city == "rome")).astype(np.int64)
    return pd.DataFrame({"id": np.arange(n), "age": age, "city": city, "y": y})


def config(tmp_path, name):
    return E.RunConfig(model_dir=str(tmp_path / name), tf_random_seed=1, log_step_count_steps=0)


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """Exports of a wide&deep classifier with a vocabulary and a DNN regressor."""
    tmp = tmp_path_factory.mktemp("exports")
    df = frame()
    city = fc.categorical_column_with_vocabulary_list("city", ["paris", "rome", "oslo"])
    classifier = E.DNNLinearCombinedClassifier(
        linear_feature_columns=[fc.bucketized_column(fc.numeric_column("age"), [30, 50]), city],
        dnn_feature_columns=[
            fc.numeric_column("age", normalizer_fn=fc.standardize(45.0, 15.0)),
            fc.embedding_column(city, 3),
        ],
        dnn_hidden_units=[8, 4],
        n_classes=3,
        config=config(tmp, "classifier"),
    )
    classifier.fit(df.assign(y=df["y"] + (df["age"] > 60)), label="y", epochs=2, verbose=0)
    regressor = E.DNNRegressor(
        [8], [fc.numeric_column("age"), fc.indicator_column(city)], config=config(tmp, "reg")
    )
    regressor.fit(df, label="y", epochs=2, verbose=0)
    return {
        "classifier": classifier.export_saved_model(tmp / "classifier_export"),
        "regressor": regressor.export_saved_model(tmp / "regressor_export"),
    }


def two_blocks(ray, df):
    return ray.data.from_pandas([df.iloc[:170], df.iloc[170:]])


def assert_same_scores(got, expected, name):
    """Floats made at different batch sizes agree to rounding (BLAS kernels differ by
    matrix shape and CPU); everything else (classes, ids) exactly."""
    got, expected = np.stack(got), np.stack(expected)
    if np.issubdtype(expected.dtype, np.floating):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=name)
    else:
        np.testing.assert_array_equal(got, expected, name)


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_scores_of_a_two_block_dataset_equal_single_process_predict(ray_cluster, exports, kind):
    df = frame(seed=1).drop(columns="y")
    scored = cn.distribute.predict_dataset(
        exports[kind],
        two_blocks(ray_cluster, df),
        batch_size=64,
        concurrency=2,
        forward_features="id",
    )
    got = scored.to_pandas().sort_values("id", ignore_index=True)
    expected = cn.load(exports[kind]).predict(df)
    assert list(got.columns) == ["id", *expected.columns]
    np.testing.assert_array_equal(got["id"], df["id"])
    for name in expected.columns:  # batches of 64 here, one batch there: floats may differ
        assert_same_scores(got[name].to_numpy(), expected[name].to_numpy(), name)


def test_predict_keys_and_the_base_directory_of_exports(ray_cluster, exports):
    df = frame(50, seed=2)  # extra columns (y) are not sent to the actors, nor returned
    base = os.path.dirname(exports["classifier"])
    scored = cn.distribute.predict_dataset(
        base,
        ray_cluster.data.from_pandas(df),
        concurrency=(1, 2),
        predict_keys=["probabilities"],
    ).to_pandas()
    expected = cn.load(exports["classifier"]).predict(df, predict_keys=["probabilities"])
    assert list(scored.columns) == ["probabilities_0", "probabilities_1", "probabilities_2"]
    # Predictions only: match them to rows through the probabilities themselves.
    np.testing.assert_array_equal(
        np.sort(scored.to_numpy(), axis=0), np.sort(expected.to_numpy(), axis=0)
    )


def test_an_export_of_a_custom_estimator_is_scored_with_its_model_fn(ray_cluster, tmp_path):
    def scorer(features, labels, mode, params):  # local: Ray ships it to the actors by value
        logits = cn.layers.dense(fc.input_layer(features, params["columns"]), 1)
        if mode == E.ModeKeys.PREDICT:
            return E.EstimatorSpec(mode, predictions={"logistic": cn.nn.sigmoid(logits)})
        y = np.asarray(labels, np.float32).reshape(-1, 1)
        loss = cn.losses.sigmoid_cross_entropy(y, logits)
        train_op = cn.train.AdagradOptimizer(0.1).minimize(
            loss, global_step=cn.train.get_global_step()
        )
        return E.EstimatorSpec(mode, loss=loss, train_op=train_op)

    df = frame(200)
    est = E.Estimator(
        scorer, model_dir=str(tmp_path / "m"), params={"columns": [fc.numeric_column("age")]}
    )
    est.fit(df, label="y", epochs=1, verbose=0)
    path = est.export_saved_model(tmp_path / "exports")
    rds = two_blocks(ray_cluster, df.drop(columns="y"))
    with pytest.raises(ValueError, match="cn.load\\(path, model_fns=\\{'scorer'"):
        cn.distribute.predict_dataset(path, rds)
    scored = cn.distribute.predict_dataset(
        path, rds, concurrency=1, forward_features="id", model_fns={"scorer": scorer}
    ).to_pandas()
    scored = scored.sort_values("id", ignore_index=True)
    expected = cn.load(path, model_fns={"scorer": scorer}).predict(df.drop(columns="y"))
    assert_same_scores(scored["logistic"].to_numpy(), expected["logistic"].to_numpy(), "logistic")


def test_bad_calls_fail_before_scoring(ray_cluster, exports, tmp_path):
    rds = ray_cluster.data.from_pandas(frame(20))
    path = exports["classifier"]
    score = cn.distribute.predict_dataset
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match=f"batch_size must be a positive integer, got {bad}"):
            score(path, rds, batch_size=bad)
    for bad, message in [
        (0, "concurrency must be a positive integer, got 0"),
        ((3, 1), "needs min <= max, got \\(3, 1\\)"),
        ((0, 2), "concurrency's min must be a positive integer, got 0"),
        ("4", "concurrency must be None, a positive int or a \\(min, max\\) tuple, got '4'"),
    ]:
        with pytest.raises(ValueError, match=message):
            score(path, rds, concurrency=bad)
    with pytest.raises(FileNotFoundError, match="no export at"):
        score(tmp_path / "nothing", rds)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.json").write_text(json.dumps({"format_version": 1}))
    with pytest.raises(E.ExportError):
        score(broken, rds)
    with pytest.raises(TypeError, match="scores a ray.data.Dataset; got DataFrame"):
        score(path, frame(20))
    with pytest.raises(ValueError, match="lacks column\\(s\\) \\['city'\\] that the export"):
        score(path, rds.drop_columns(["city"]))
    with pytest.raises(ValueError, match="forward_features \\['key'\\] are not columns"):
        score(path, rds, forward_features="key")
    with pytest.raises(ValueError, match="forward_features \\['logits_0'\\] are also names"):
        score(path, rds.rename_columns({"id": "logits_0"}), forward_features="logits_0")
    with pytest.raises(KeyError, match="predict_keys \\['score'\\] are not predictions"):
        score(path, rds, predict_keys=["score"])


def test_colonnade_distribute_imports_without_ray():
    script = (
        "import sys\n"
        "import colonnade as cn\n"
        "assert 'ray' not in sys.modules, 'importing colonnade imported ray'\n"
        "sys.modules['ray'] = None\n"  # as if Ray were not installed
        "try:\n"
        "    cn.distribute.predict_dataset('export', None)\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == (
        "cn.distribute.predict_dataset needs Ray, which is not installed: "
        'pip install "colonnade[ray]"'
    )
