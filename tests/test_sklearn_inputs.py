"""colonnade.sklearn on the inputs scikit-learn gives an estimator (arrays, lists,
memmaps, frames, Arrow tables), scikit-learn's input errors, seeded fits, persistence
(pickle, joblib) and the README's scikit-learn example."""

import io
import pickle
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

pytest.importorskip("sklearn")

import joblib  # noqa: E402
from sklearn.base import is_regressor  # noqa: E402
from sklearn.exceptions import DataConversionWarning, NotFittedError  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

import colonnade as cn  # noqa: E402
import colonnade.sklearn as sk  # noqa: E402

fc = cn.feature_columns
QUICK = dict(epochs=3, learning_rate=0.05, random_state=0)


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    return X, y


def test_numeric_arrays_lists_and_memmaps_get_columns_x0_to_xn(blobs, tmp_path):
    X, y = blobs
    clf = sk.LinearClassifier(**QUICK).fit(X, y)
    assert [c.name for c in clf.feature_columns_] == ["x0", "x1", "x2"]
    assert clf.n_features_in_ == 3 and not hasattr(clf, "feature_names_in_")
    assert clf.score(X, y) > 0.8
    expected = clf.predict_proba(X)
    from_list = sk.LinearClassifier(**QUICK).fit(X.tolist(), y.tolist())
    np.testing.assert_allclose(from_list.predict_proba(X.tolist()), expected, rtol=1e-6)
    path = tmp_path / "X.npy"
    np.save(path, X)
    memmap = np.load(path, mmap_mode="r")
    np.testing.assert_allclose(clf.predict_proba(memmap), expected, rtol=1e-6)


def test_numeric_columns_are_standardized_by_the_training_data(blobs):
    X, y = blobs
    X = X * [1.0, 100.0, 1e-3] + [0.0, 5.0, -2.0]
    clf = sk.LinearClassifier(**QUICK).fit(X, y)
    for column, values in zip(clf.feature_columns_, X.T):
        z = column.normalizer_fn(values)
        np.testing.assert_allclose([z.mean(), z.std()], [0.0, 1.0], atol=1e-6)


def test_a_string_frame_gets_the_zero_configuration_columns():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"k": rng.choice(["a", "b", "c"], 300), "x": rng.normal(size=300)})
    y = np.where(X["k"] == "a", "yes", "no")
    plan = fc.infer(X.assign(label=np.searchsorted(["no", "yes"], y)), "label", task="binary")
    clf = sk.DNNLinearCombinedClassifier(random_state=0, epochs=5).fit(X, y)
    assert [c.name for c in clf.linear_feature_columns_] == [c.name for c in plan.linear]
    assert [c.name for c in clf.dnn_feature_columns_] == [c.name for c in plan.dnn]
    assert clf.score(X, y) > 0.95
    strings = sk.LinearClassifier(random_state=0, epochs=5).fit(X.to_numpy(dtype=object), y)
    assert strings.score(X.to_numpy(dtype=object), y) > 0.95  # x0 (strings), x1 (numbers)


def test_predict_names_an_array_by_the_fitted_frame_names(blobs):
    X, y = blobs
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    clf = sk.LinearClassifier(**QUICK).fit(frame, y)
    assert clf.feature_names_in_.tolist() == ["a", "b", "c"]
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        from_array = clf.predict_proba(X)  # scikit-learn's warning, then by position
    np.testing.assert_allclose(from_array, clf.predict_proba(frame), rtol=1e-6)
    np.testing.assert_allclose(clf.predict_proba(pa.Table.from_pandas(frame)), from_array)
    with pytest.raises(ValueError, match="The feature names should match those that were"):
        clf.predict(frame.rename(columns={"c": "d"}))


def test_the_feature_count_is_checked_with_scikit_learns_message(blobs):
    X, y = blobs
    clf = sk.DNNClassifier([4], **QUICK).fit(X, y)
    reference = LogisticRegression().fit(X, y)
    for model in (clf, reference):
        name = type(model).__name__
        message = f"X has 2 features, but {name} is expecting 3 features as input"
        with pytest.raises(ValueError, match=message):
            model.predict(X[:, :2])


@pytest.mark.parametrize("bad, word", [(np.nan, "NaN"), (np.inf, "infinity")])
def test_nan_and_inf_are_refused_with_scikit_learns_words(blobs, bad, word):
    X, y = blobs
    X = X.copy()
    X[3, 1] = bad
    with pytest.raises(ValueError, match=f"Input X contains {word}"):
        sk.LinearClassifier(**QUICK).fit(X, y)
    with pytest.raises(ValueError, match=f"Input y contains {word}"):
        sk.LinearRegressor(**QUICK).fit(blobs[0], np.where(np.arange(120) == 5, bad, 1.0))


def test_one_dimensional_x_and_continuous_y_are_refused_as_scikit_learn_does(blobs):
    X, y = blobs
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array instead"):
        sk.LinearClassifier(**QUICK).fit(X[:, 0], y)
    clf = sk.LinearClassifier(**QUICK).fit(X, y)
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array instead"):
        clf.predict(X[0])
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        sk.LinearClassifier(**QUICK).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        sk.LinearClassifier(**QUICK).fit(X, None)
    with pytest.raises(ValueError, match="Found array with 0 sample"):
        sk.LinearClassifier(**QUICK).fit(pd.DataFrame({"a": []}), [])


def test_a_column_y_is_raveled_with_a_data_conversion_warning(blobs):
    X, y = blobs
    for model in (sk.LinearClassifier(**QUICK), sk.LinearRegressor(**QUICK)):
        flat = model.fit(X, y).predict(X)
        with pytest.warns(DataConversionWarning, match="column-vector y was passed"):
            column = model.fit(X, y[:, None]).predict(X)
        np.testing.assert_array_equal(column, flat)


def test_random_state_makes_two_fits_identical(blobs):
    X, y = blobs
    for make in (lambda: sk.DNNClassifier([8], dropout=0.2, **QUICK),):
        first, second = make().fit(X, y), make().fit(X, y)
        np.testing.assert_array_equal(first.predict_proba(X), second.predict_proba(X))
    a = sk.DNNRegressor([8], epochs=2, random_state=1).fit(X, y.astype(float))
    b = sk.DNNRegressor([8], epochs=2, random_state=2).fit(X, y.astype(float))
    assert not np.array_equal(a.predict(X), b.predict(X))


def test_predict_before_fit_raises_not_fitted(blobs):
    for model in (sk.LinearClassifier(), sk.DNNRegressor(), sk.TabularClassifier()):
        with pytest.raises(NotFittedError, match="is not fitted yet"):
            model.predict(blobs[0])


def _round_trips(model):
    yield pickle.loads(pickle.dumps(model))
    buffer = io.BytesIO()
    joblib.dump(model, buffer)
    buffer.seek(0)
    yield joblib.load(buffer)


@pytest.mark.parametrize(
    "make",
    [
        lambda: sk.LinearClassifier(**QUICK),
        lambda: sk.DNNRegressor([8], **QUICK),
        lambda: sk.DNNLinearCombinedClassifier(epochs=2, random_state=0),
        lambda: sk.TabularClassifier(seed=0),
    ],
    ids=["linear", "dnn-regressor", "wide-deep", "tabular"],
)
def test_a_fitted_adapter_pickles_and_joblibs_with_identical_predictions(blobs, make):
    X, y = blobs
    model = make()
    y = y.astype(float) if is_regressor(model) else np.array(["n", "y"])[y]
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    expected = model.fit(frame, y).predict(frame)
    for loaded in _round_trips(model):
        np.testing.assert_array_equal(loaded.predict(frame), expected)
        assert loaded.get_params() == model.get_params()
        assert loaded.feature_names_in_.tolist() == ["a", "b", "c"]
        twice = pickle.loads(pickle.dumps(loaded))  # an unpickled adapter pickles again
        np.testing.assert_array_equal(twice.predict(frame), expected)
    files = sk.adapters.export_files(model.estimator_)  # what the pickle carries
    assert "model.json" in files and not any(data.startswith(b"\x80") for data in files.values())


def test_the_readme_scikit_learn_example_runs_and_learns(monkeypatch):
    """The README's scikit-learn block, on 1,500 rows of the census data: each fold scores
    above the majority class."""
    from colonnade import demo

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    section = readme.split("### scikit-learn\n", 1)[1]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    full = demo.load_adult

    def small(split):
        return full(split).sample(1500, random_state=0).reset_index(drop=True)

    monkeypatch.setattr(demo, "load_adult", small)
    scope = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        exec(compile(block, "README.md", "exec"), scope)
    majority = small("train")["income"].value_counts(normalize=True).max()
    assert (scope["scores"] > majority + 0.02).all(), (scope["scores"], majority)


def test_a_pipeline_of_array_transformers_feeds_an_adapter(blobs):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = blobs
    pipe = make_pipeline(StandardScaler(), sk.DNNClassifier([8], random_state=0)).fit(X * 1e3, y)
    assert pipe[-1].n_features_in_ == 3 and pipe.score(X * 1e3, y) > 0.8
