"""TabularClassifier / TabularRegressor as scikit-learn models: classes_, predict_proba,
score, a regressor's MAE and R², permutation feature importance and the short describe(),
checked against scikit-learn's metrics and a numpy replay of the shuffles."""

import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import colonnade as cn
from colonnade.estimators.tabular import defaults as tabular_defaults
from colonnade.estimators.tabular.importance import plot_importances, sample_rows
from colonnade.estimators.tabular.scoring import RegressionTotals

metrics = pytest.importorskip("sklearn.metrics")


@pytest.fixture(scope="module")
def quick():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tabular_defaults, "MAX_EPOCHS", 3)
        patch.setattr(tabular_defaults, "HIDDEN_UNITS", (16, 8))
        yield


def _table(n=300, seed=0):
    """``x`` decides the label, ``noise`` is independent of it, ``k`` barely matters."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {"x": rng.normal(size=n), "noise": rng.normal(size=n), "k": rng.choice(["a", "b"], n)}
    )
    df["y"] = np.where(df["x"] > 0, "yes", "no")
    df["r"] = 3.0 * df["x"] + rng.normal(0, 0.1, n) + 100.0
    return df


@pytest.fixture(scope="module")
def data():
    return _table()


@pytest.fixture(scope="module")
def classifier(quick, data, tmp_path_factory):
    model = cn.estimators.TabularClassifier(
        "y", model_dir=str(tmp_path_factory.mktemp("clf")), seed=0, members=1
    )
    return model.fit(data.drop(columns="r"))


@pytest.fixture(scope="module")
def regressor(quick, data, tmp_path_factory):
    model = cn.estimators.TabularRegressor(
        "r", model_dir=str(tmp_path_factory.mktemp("reg")), seed=0, members=1
    )
    return model.fit(data.drop(columns="y"))


# ---------------------------------------------------------------- classifier


def test_classes_and_predict_proba_follow_the_predicted_labels(classifier, data):
    assert classifier.classes_.tolist() == ["no", "yes"]
    proba = classifier.predict_proba(data)
    assert proba.shape == (len(data), 2) and proba.dtype == np.float64
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-6)
    # the canned predict decodes its classes itself: predict_proba's columns agree with it
    decoded = classifier.predict(data)["classes"].to_numpy()
    assert (classifier.classes_[proba.argmax(axis=1)] == decoded).all()
    logistic = classifier.predict(data)["logistic"].to_numpy()
    np.testing.assert_allclose(proba[:, 1], logistic, rtol=1e-6)


def test_score_is_sklearn_accuracy_and_evaluate_accuracy(classifier, data):
    test = _table(200, seed=5)
    test.loc[::7, "x"] *= -1  # some rows the model gets wrong
    predicted = classifier.predict(test)["classes"].to_numpy()
    expected = metrics.accuracy_score(test["y"], predicted)
    assert 0.5 < expected < 1.0
    assert classifier.score(test) == pytest.approx(expected, abs=1e-12)
    assert classifier.score(test.drop(columns="y"), test["y"]) == pytest.approx(expected)
    assert classifier.evaluate(test)["accuracy"] == pytest.approx(expected, abs=1e-6)


def test_score_reads_files_and_skips_rows_without_a_label(classifier, tmp_path):
    test = _table(200, seed=6).drop(columns="r")
    path = str(tmp_path / "test.parquet")
    pq.write_table(pa.Table.from_pandas(test, preserve_index=False), path)
    assert classifier.score(path) == pytest.approx(classifier.score(test), abs=1e-12)
    missing = test.astype({"y": object})
    missing.loc[:49, "y"] = None
    assert classifier.score(missing) == pytest.approx(classifier.score(test.iloc[50:]))


def test_score_refuses_what_it_cannot_score(classifier, data, tmp_path):
    bad = data.drop(columns="r").copy()
    bad.loc[3, "y"] = "maybe"
    wrong = r"label column 'y': 'maybe' \(in 1 of 300 rows of a batch\) is not one of the label"
    with pytest.raises(ValueError, match=wrong):
        classifier.score(bad)
    with pytest.raises(ValueError, match="already holds the label column 'y'"):
        classifier.score(data, data["y"])
    with pytest.raises(ValueError, match=r"one label per row, shape \(300,\)"):
        classifier.score(data.drop(columns="y"), data["y"][:10])
    with pytest.raises(TypeError, match="in memory"):
        classifier.score(str(tmp_path / "x.csv"), data["y"])
    with pytest.raises(ValueError, match="no label column 'y'"):
        classifier.score(data.drop(columns="y"))
    unfitted = cn.estimators.TabularClassifier("y")
    with pytest.raises(RuntimeError, match="not fitted"):
        unfitted.score(data)
    assert not hasattr(unfitted, "classes_")
    with pytest.raises(RuntimeError, match="not fitted"):
        unfitted.feature_importances(data)


def test_integer_and_boolean_labels_give_their_classes(quick, tmp_path):
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"x": rng.normal(size=300)})
    df["y"] = np.digitize(df["x"], [-0.5, 0.5])
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "m"), members=1)
    model.fit(df)
    assert model.classes_.tolist() == [0, 1, 2]
    proba = model.predict_proba(df)
    assert proba.shape == (300, 3)
    expected = metrics.accuracy_score(df["y"], model.classes_[proba.argmax(axis=1)])
    assert model.score(df) == pytest.approx(expected)
    assert "positive class" not in model.describe()
    wrong = r"'y': 1.5 \(in 1 of 300 rows of a batch\) is not one of the class ids"
    with pytest.raises(ValueError, match=wrong):
        model.score(df.assign(y=np.where(np.arange(300) == 0, 1.5, df["y"])))
    df["y"] = df["x"] > 0
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "b"), members=1)
    model.fit(df)
    assert model.classes_.tolist() == [False, True]
    assert "positive class True" in model.describe()


# ---------------------------------------------------------------- regressor


def test_regressor_evaluate_and_score_match_sklearn(regressor):
    test = _table(200, seed=7).drop(columns="y")
    predicted = regressor.predict(test)["predictions"].to_numpy(np.float64)
    got = regressor.evaluate(test)
    assert got["mae"] == pytest.approx(metrics.mean_absolute_error(test["r"], predicted))
    assert got["r2"] == pytest.approx(metrics.r2_score(test["r"], predicted), abs=1e-12)
    rmse = np.sqrt(metrics.mean_squared_error(test["r"], predicted))
    assert got["rmse"] == pytest.approx(rmse, rel=1e-5)  # the canned metric, same rows
    assert regressor.score(test) == pytest.approx(got["r2"], abs=1e-12)
    assert regressor.score(test.drop(columns="r"), test["r"]) == pytest.approx(got["r2"])


def test_regressor_evaluate_streams_a_file(regressor, tmp_path):
    test = _table(200, seed=8).drop(columns="y")
    path = str(tmp_path / "test.parquet")
    pq.write_table(pa.Table.from_pandas(test, preserve_index=False), path, row_group_size=64)
    streamed, in_memory = regressor.evaluate(path), regressor.evaluate(test)
    for key in ("mae", "r2", "rmse"):
        assert streamed[key] == pytest.approx(in_memory[key], rel=1e-9)


def test_regression_totals_merge_batches_as_one_pass():
    rng = np.random.default_rng(0)
    labels = 1e6 + rng.normal(size=1000)  # a large mean: a naive sum of squares loses R²
    predicted = labels + rng.normal(0, 0.5, 1000)
    totals = RegressionTotals()
    for start in range(0, 1000, 97):
        totals.add(labels[start : start + 97], predicted[start : start + 97])
    got = totals.summary()
    assert got["r2"] == pytest.approx(metrics.r2_score(labels, predicted), rel=1e-9)
    assert got["mae"] == pytest.approx(metrics.mean_absolute_error(labels, predicted))
    same = RegressionTotals()
    same.add(np.ones(3), np.ones(3))
    assert same.summary()["r2"] == metrics.r2_score(np.ones(3), np.ones(3)) == 1.0
    with pytest.raises(ValueError, match="no rows with a label"):
        RegressionTotals().summary()


# ---------------------------------------------------------------- importance


def _replay(model, df, n_repeats, seed, score):
    """The permutation importances recomputed: shuffles drawn as documented, scored by
    scikit-learn on the model's own predictions."""
    rng = np.random.default_rng(seed)
    base = score(df)
    out = {}
    for feature in model.estimator_.input_columns():
        drops = []
        for _ in range(n_repeats):
            shuffled = df.copy()
            shuffled[feature] = df[feature].to_numpy()[rng.permutation(len(df))]
            drops.append(base - score(shuffled))
        out[feature] = (np.mean(drops), np.std(drops))
    return out


def test_the_deciding_feature_ranks_first_and_noise_near_zero(classifier, data):
    table = classifier.feature_importances(data, n_repeats=4, seed=3)
    assert table.columns.tolist() == ["feature", "importance_mean", "importance_std"]
    assert table["feature"].iloc[0] == "x" and table["importance_mean"].iloc[0] > 0.3
    assert set(table["feature"]) == {"x", "noise", "k"}
    assert abs(table.set_index("feature").loc["noise", "importance_mean"]) < 0.05
    assert table["importance_mean"].is_monotonic_decreasing

    def accuracy(df):
        return metrics.accuracy_score(df["y"], classifier.predict(df)["classes"].to_numpy())

    replay = _replay(classifier, data, 4, 3, accuracy)
    for feature, mean, std in table.itertuples(index=False):
        assert (mean, std) == pytest.approx(replay[feature], abs=1e-12)


def test_regressor_importance_is_the_drop_of_r2(regressor, data):
    test = data.drop(columns="y")
    table = regressor.feature_importances(test, n_repeats=2, seed=1)
    assert table["feature"].iloc[0] == "x" and table["importance_mean"].iloc[0] > 1.0

    def r2(df):
        return metrics.r2_score(df["r"], regressor.predict(df)["predictions"].to_numpy())

    replay = _replay(regressor, test, 2, 1, r2)
    for feature, mean, std in table.itertuples(index=False):
        assert (mean, std) == pytest.approx(replay[feature], abs=1e-9)


def test_importance_bounds_its_rows_and_checks_its_arguments(classifier, data, tmp_path):
    sample = sample_rows(data, "y", 50, seed=0)
    assert sample.num_rows == 50
    assert sample.equals(sample_rows(data, "y", 50, seed=0).combine_chunks())
    rows = sample.column("x").to_numpy()
    positions = np.flatnonzero(np.isin(data["x"].to_numpy(), rows))
    assert len(positions) == 50 and (np.diff(positions) > 0).all()  # original order
    assert sample_rows(data, "y", 1000, seed=0).num_rows == len(data)
    path = str(tmp_path / "d.parquet")
    pq.write_table(pa.Table.from_pandas(data, preserve_index=False), path, row_group_size=40)
    assert sample_rows(path, "y", 1000, seed=0).num_rows == len(data)
    assert sample_rows(path, "y", 70, seed=2).num_rows == 70
    table = classifier.feature_importances(data, n_repeats=2, max_rows=120)
    assert table["feature"].iloc[0] == "x"
    with pytest.raises(ValueError, match="n_repeats must be an int >= 1, got 0"):
        classifier.feature_importances(data, n_repeats=0)
    with pytest.raises(ValueError, match="max_rows must be an int >= 1"):
        classifier.feature_importances(data, max_rows=0)
    with pytest.raises(ValueError, match=r"lacks the input column\(s\) \['noise'\]"):
        classifier.feature_importances(data.drop(columns="noise"))
    with pytest.raises(ValueError, match="no rows with a label 'y'"):
        classifier.feature_importances(data.assign(y=None))


def test_plot_importances_draws_a_bar_per_feature(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    table = pd.DataFrame(
        {"feature": ["a", "b", "c"], "importance_mean": [0.3, 0.1, 0.0], "importance_std": 0.01}
    )
    fig = plot_importances(table, top=2)
    (ax,) = fig.axes
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["b", "a"]  # the most important at the top
    widths = [bar.get_width() for bar in ax.patches]
    assert widths == pytest.approx([0.1, 0.3])
    fig.savefig(tmp_path / "imp.png")
    assert (tmp_path / "imp.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(TypeError, match="feature_importances"):
        plot_importances(table.drop(columns="importance_std"))
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r'pip install "colonnade\[plot\]"'):
        plot_importances(table)


# ---------------------------------------------------------------- describe


def test_describe_is_short_and_names_the_positive_class(classifier):
    short = classifier.describe().splitlines()
    plan = classifier.columns_
    trees = [line for line in short if line.startswith("trees: ")]  # the tree member's line
    assert len(trees) == 1 and "blend weight" in trees[0]
    assert len(short) == len(plan.decisions) + 2
    assert short[0] == "y: label: binary; positive class 'yes' (probability column 1, 'logistic')"
    assert short[1] == (
        "x: numeric: wide: x_bucketized, x; deep: x, x_bucketized_embedding, x_piecewise_linear"
    )
    assert "k: categorical: wide: k; deep: k_indicator" in short
    assert short[-1] == f"({len(plan.notes)} notes on how it trained: describe(verbose=True))"
    assert max(len(line) for line in short) < 120
    full = plan.describe().splitlines()
    verbose = classifier.describe(verbose=True).splitlines()
    assert verbose[0] == full[0] + "; positive class 'yes' (probability column 1, 'logistic')"
    decisions = len(plan.decisions)
    assert verbose[1:] == full[1:decisions] + trees + full[decisions:]


def test_describe_keeps_a_dropped_columns_reason(quick, tmp_path):
    df = _table(300).drop(columns="y")
    df["id"] = np.arange(len(df))
    model = cn.estimators.TabularRegressor("r", model_dir=str(tmp_path), members=1).fit(df)
    short = model.describe()
    assert "id: dropped: an id (300 distinct values in 300 rows)" in short.splitlines()
    assert short.splitlines()[0] == "r: label: regression"
    assert "positive class" not in model.describe(verbose=True)
