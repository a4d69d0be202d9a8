"""colonnade.sklearn against scikit-learn itself: clone, Pipeline, cross_val_score,
GridSearchCV, get/set_params, and predictions that are labels."""

import inspect
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.metrics import accuracy_score, r2_score  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer  # noqa: E402

import colonnade as cn  # noqa: E402
import colonnade.sklearn as sk  # noqa: E402
from colonnade.demo import load_adult  # noqa: E402
from colonnade.sklearn.documentation import ADAPTER_ARGUMENTS  # noqa: E402

fc = cn.feature_columns
ADULT_ROWS = 600


@pytest.fixture(scope="module")
def adult():
    df = load_adult("train").sample(ADULT_ROWS, random_state=0).reset_index(drop=True)
    return df.drop(columns="income"), df["income"]


def adult_columns():
    age = fc.numeric_column("age", normalizer_fn=fc.standardize(38.0, 13.0))
    hours = fc.numeric_column("hours-per-week", normalizer_fn=fc.standardize(40.0, 12.0))
    relationship = fc.categorical_column_with_hash_bucket("relationship", 10)
    return [age, hours, fc.indicator_column(relationship)]


def linear(**kw):
    return sk.LinearClassifier(adult_columns(), epochs=2, **kw)


# What the adapters add to the canned estimators' arguments, and the defaults they change.
ADDED = ["epochs", "batch_size", "random_state", "verbose"]
RATES = {"learning_rate", "linear_learning_rate", "dnn_learning_rate"}
OWN_DEFAULTS = {
    "feature_columns", "linear_feature_columns", "dnn_feature_columns",
    "optimizer", "linear_optimizer", "dnn_optimizer", "hidden_units", "dnn_hidden_units",
}  # fmt: skip


def test_constructor_arguments_are_the_canned_ones_plus_the_adapters_own():
    for name in sk.__all__:
        if name.startswith("Tabular") or name == "expected_failed_checks":
            continue  # below
        ours = inspect.signature(getattr(sk, name)).parameters
        theirs = inspect.signature(getattr(cn.estimators, name)).parameters
        rates = [p for p in ours if p in RATES]
        assert list(ours) == list(theirs) + rates + ADDED, name
        for arg, p in theirs.items():
            if arg not in OWN_DEFAULTS:
                assert ours[arg].default == p.default, (name, arg)
            assert f"\n    {arg}: " in getattr(sk, name).__doc__, (name, arg)
        for arg in ("feature_columns", "linear_feature_columns", "dnn_feature_columns"):
            assert arg not in ours or ours[arg].default is None, (name, arg)
        assert ours["random_state"].default is None and ours["verbose"].default == 0


def test_each_canned_adapter_documents_every_argument_in_its_args_section():
    for name in sk.__all__:
        if name.startswith("Tabular") or name == "expected_failed_checks":
            continue  # no Args section: their docstring names each argument (below)
        doc = inspect.getdoc(getattr(sk, name))
        args = doc[doc.index("\nArgs:\n") :]
        for arg in inspect.signature(getattr(sk, name)).parameters:
            assert f"\n    {arg}: " in args, (name, arg)
        canned_args = inspect.getdoc(getattr(cn.estimators, name)).split("\nArgs:\n")[1]
        own = False  # an argument whose meaning the adapter documents itself
        for line in canned_args.splitlines():
            if not line.startswith(" "):
                break  # the end of the canned estimator's Args section
            if not line.startswith("     "):
                own = line.split(":", 1)[0].strip() in ADAPTER_ARGUMENTS
            assert own or f"\n{line}\n" in args, (name, line)  # its descriptions, copied
        if "model_dir" in args:
            assert "A fit never resumes" in args  # not the canned "training resumes"


def test_get_params_set_params_and_clone_round_trip():
    clf = sk.DNNClassifier([8, 4], adult_columns(), dropout=0.1, epochs=3)
    params = clf.get_params()
    assert params["hidden_units"] == [8, 4] and params["epochs"] == 3
    assert params["feature_columns"] is clf.feature_columns  # stored unchanged
    twin = clone(clf)
    assert twin.get_params()["feature_columns"] == params["feature_columns"]
    assert twin.set_params(hidden_units=[2], batch_size=16) is twin
    assert twin.hidden_units == [2] and clf.hidden_units == [8, 4]
    assert "DNNClassifier(" in repr(clf)
    assert not hasattr(clf, "estimator_")  # __init__ does no work


def test_classifier_predicts_the_labels_and_scores_as_sklearn(adult):
    X, y = adult
    clf = linear().fit(X, y)
    assert isinstance(clf.estimator_, cn.estimators.LinearClassifier)
    assert clf.classes_.tolist() == ["<=50K", ">50K"]
    assert clf.n_features_in_ == X.shape[1] and clf.feature_names_in_.tolist() == list(X)
    predicted = clf.predict(X)
    assert set(predicted) <= {"<=50K", ">50K"} and len(predicted) == len(X)
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)
    assert (clf.classes_[proba.argmax(axis=1)] == predicted).all()
    assert clf.score(X, y) == accuracy_score(y, predicted) > 0.7
    assert clf.predict(pa.Table.from_pandas(X)).tolist() == predicted.tolist()


def test_integer_labels_and_a_label_vocabulary():
    X = pd.DataFrame({"x": np.linspace(-1, 1, 60)})
    y = np.repeat([3, 7, 9], 20)
    clf = sk.LinearClassifier([fc.numeric_column("x")], epochs=20).fit(X, y)
    assert clf.classes_.tolist() == [3, 7, 9] and clf.estimator_.head.logits_dimension == 3
    assert clf.predict(X).dtype == y.dtype and set(clf.predict(X)) <= {3, 7, 9}
    assert clf.predict_proba(X).shape == (60, 3)
    vocab = ["c", "b", "a"]
    clf = sk.LinearClassifier([fc.numeric_column("x")], label_vocabulary=vocab, n_classes=3)
    clf.fit(X, np.repeat(["a", "b", "c"], 20))
    assert clf.classes_.tolist() == vocab  # the vocabulary's order, not sorted


def test_regressor_predicts_numbers_and_scores_r2():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=200)})
    y = 3 * X["x"].to_numpy() + 1
    reg = sk.LinearRegressor([fc.numeric_column("x")], epochs=30).fit(X, y)
    predicted = reg.predict(X)
    assert predicted.shape == (200,) and predicted.dtype == np.float64
    assert reg.score(X, y) == pytest.approx(r2_score(y, predicted))
    assert reg.score(X, y) > 0.9
    two = sk.DNNLinearCombinedRegressor(
        linear_feature_columns=[fc.numeric_column("x")], label_dimension=2
    )
    assert two.fit(X, np.stack([y, -y], axis=1)).predict(X).shape == (200, 2)


def test_each_fit_starts_over_in_a_fresh_directory(tmp_path, adult):
    X, y = adult
    clf = linear()
    first = clf.fit(X, y).model_dir_
    second = clf.fit(X, y).model_dir_
    assert first != second and not os.path.exists(first)  # the old temporary one is gone
    assert clf.estimator_.global_step == 2 * int(np.ceil(ADULT_ROWS / sk.BATCH_SIZE))
    given = linear(model_dir=str(tmp_path / "m"))
    a, b = given.fit(X, y).model_dir_, given.fit(X, y).model_dir_
    assert a != b and os.path.dirname(a) == str(tmp_path / "m") and os.path.isdir(a)
    assert given.estimator_.global_step == 2 * int(np.ceil(ADULT_ROWS / sk.BATCH_SIZE))


def test_pipeline_with_a_transformer_that_adds_a_column(adult):
    X, y = adult
    add_old = FunctionTransformer(lambda df: df.assign(old=(df["age"] > 50).astype(float)))
    clf = sk.LinearClassifier(adult_columns() + [fc.numeric_column("old")], epochs=2)
    pipe = make_pipeline(add_old, clf).fit(X, y)
    assert "old" in pipe[-1].feature_names_in_
    assert pipe.score(X, y) > 0.7


def test_cross_val_score(adult):
    X, y = adult
    scores = cross_val_score(linear(), X, y, cv=3)
    assert scores.shape == (3,) and (scores > 0.6).all()


def test_grid_search_over_hidden_units(adult):
    X, y = adult
    X, y = X[:200], y[:200]
    dnn = sk.DNNClassifier([4], adult_columns(), epochs=1)
    search = GridSearchCV(dnn, {"hidden_units": [[4], [8, 4]]}, cv=2).fit(X, y)
    assert search.best_params_["hidden_units"] in ([4], [8, 4])
    assert len(search.cv_results_["mean_test_score"]) == 2
    assert search.predict(X[:5]).tolist()[0] in ("<=50K", ">50K")


def test_errors_say_what_was_expected(adult):
    X, y = adult
    clf = linear()
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[600, 599\]"):
        clf.fit(X, y[:-1])
    with pytest.raises(ValueError, match=r"y has 1 class \(\[0.0\]\)"):
        clf.fit(X, np.zeros(len(X)))
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        linear().predict(X)


TABULAR_ROWS = 400


@pytest.fixture(scope="module")
def adult_small(adult):
    X, y = adult
    return X[:TABULAR_ROWS], y[:TABULAR_ROWS]


def test_tabular_arguments_are_the_zero_configuration_ones_but_label():
    for name in ("TabularClassifier", "TabularRegressor"):
        ours = inspect.signature(getattr(sk, name)).parameters
        theirs = inspect.signature(getattr(cn.estimators, name)).parameters
        assert list(ours) == [p for p in theirs if p != "label"], name
        for arg in ours:
            assert ours[arg].default == theirs[arg].default, (name, arg)
            assert f"``{arg}``" in getattr(sk, name).__doc__


def test_tabular_classifier_clone_fit_predict_score(adult_small, tmp_path):
    X, y = adult_small
    clf = sk.TabularClassifier(seed=1, members=1)
    twin = clone(clf)
    expected = {"model_dir": None, "seed": 1, "columns": None, "verbose": 0, "members": 1}
    assert twin.get_params() == expected
    assert not hasattr(clf, "estimator_")  # __init__ does no work
    clf.fit(X, y)
    assert isinstance(clf.estimator_, cn.estimators.TabularClassifier)
    assert clf.columns_ is clf.estimator_.columns_ and clf.columns_.task == "binary"
    assert clf.classes_.tolist() == ["<=50K", ">50K"]
    predicted = clf.predict(X)
    assert predicted.dtype == y.to_numpy().dtype and set(predicted) <= set(clf.classes_)
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2)
    assert (clf.classes_[proba.argmax(axis=1)] == predicted).all()
    assert clf.score(X, y) == accuracy_score(y, predicted) > 0.75
    assert clf.predict(pa.Table.from_pandas(X)).tolist() == predicted.tolist()
    given = sk.TabularClassifier(model_dir=str(tmp_path / "m"), seed=1, members=1).fit(X, y)
    assert os.path.dirname(given.model_dir_) == str(tmp_path / "m")


def test_tabular_labels_keep_their_dtype_and_the_label_name_never_clashes():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"label": rng.normal(size=300), "_label": rng.normal(size=300)})
    y = np.where(X["label"] > 0.5, 9, np.where(X["label"] < -0.5, 3, 7))
    clf = sk.TabularClassifier(seed=0, members=1).fit(X, y)
    assert clf.classes_.tolist() == [3, 7, 9] and clf.columns_.task == "multiclass"
    assert "label" in [c.name for c in clf.columns_.dnn]  # X's column, a feature
    predicted = clf.predict(X)
    assert predicted.dtype == y.dtype and clf.score(X, y) > 0.8
    assert clf.predict_proba(X).shape == (300, 3)


def test_tabular_regressor_predicts_numbers_and_scores_r2():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=300), "k": rng.choice(["a", "b"], 300)})
    y = pd.Series(3 * X["x"] + (X["k"] == "a") * 2.0)
    reg = sk.TabularRegressor(seed=0, members=1).fit(X, y)
    assert reg.columns_.task == "regression"
    predicted = reg.predict(X)
    assert predicted.shape == (300,) and predicted.dtype == np.float64
    assert reg.score(X, y) == pytest.approx(r2_score(y, predicted)) and reg.score(X, y) > 0.8


def test_tabular_cross_val_score(adult_small):
    X, y = adult_small
    scores = cross_val_score(sk.TabularClassifier(seed=0, members=1), X, y, cv=2)
    assert scores.shape == (2,) and (scores > 0.7).all()
