"""Estimator inputs that are wrong in simple ways fail early and say what is wrong."""

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

fc = cn.feature_columns


@pytest.fixture
def estimator(tmp_path):
    return cn.estimators.LinearClassifier([fc.numeric_column("x")], model_dir=str(tmp_path))


@pytest.mark.parametrize("method", ["train", "evaluate", "predict"])
def test_input_fn_returning_none_raises_a_clear_type_error(estimator, method):
    def input_fn():
        pd.DataFrame({"x": [1.0]})  # forgot to return it

    kwargs = {"steps": 1} if method != "predict" else {}
    with pytest.raises(TypeError, match="input_fn returned None"):
        result = getattr(estimator, method)(input_fn, **kwargs)
        list(result) if method == "predict" else None


@pytest.mark.parametrize("n_classes,vocab", [(2, ["a", "a"]), (3, ["a", "b", "a"])])
def test_duplicate_label_vocabulary_is_refused_at_construction(n_classes, vocab):
    with pytest.raises(ValueError, match=r"label_vocabulary has duplicate entries \['a'\]"):
        cn.estimators.LinearClassifier(
            [fc.numeric_column("x")], n_classes=n_classes, label_vocabulary=vocab
        )


# ---------------------------------------------------------------- what was passed, what to do

FRAME = pd.DataFrame({"x": [0.1, 0.9, 0.4, 0.7], "y": [0, 1, 0, 1]})


@pytest.mark.parametrize("call", ["fit_with_labels", "fit", "evaluate_with_labels"])
def test_a_numpy_array_of_features_is_told_to_become_a_dataframe(estimator, call):
    X, y = FRAME[["x"]].to_numpy(), FRAME["y"].to_numpy()
    run = {
        "fit_with_labels": lambda: estimator.fit(X, y, verbose=0),
        "fit": lambda: estimator.fit(X, verbose=0),
        "evaluate_with_labels": lambda: estimator.evaluate(X, label=y, verbose=0),
    }[call]
    with pytest.raises(TypeError) as caught:
        run()
    message = str(caught.value)
    assert message.startswith("features given as a numpy array of shape (4, 1): a canned ")
    assert "reads its features by name (['x'])" in message
    assert "pd.DataFrame(X, columns=['x'])" in message
    assert "colonnade.sklearn" in message
    assert "attached" not in message  # the old message: about attaching labels
    assert ("label=y" in message) == call.endswith("with_labels")


def test_an_array_of_another_width_than_the_columns_says_both(estimator):
    with pytest.raises(TypeError, match=r"the array has 3 columns, the feature columns read 1"):
        estimator.fit(np.zeros((4, 3)), np.zeros(4), verbose=0)


def test_a_dict_of_arrays_is_told_how_to_train(estimator):
    with pytest.raises(TypeError, match=r"features given as a dict of 1 arrays \(keys \['x'\]\)"):
        estimator.fit({"x": np.zeros(4)}, np.zeros(4), verbose=0)


def test_fit_of_a_dataframe_without_label_names_the_candidate_column(estimator):
    with pytest.raises(ValueError) as caught:
        estimator.fit(FRAME, verbose=0)
    assert str(caught.value) == (
        "fit needs labels, and got a pandas DataFrame of 4 rows (columns ['x', 'y']) with no "
        "label: pass label='<column>' naming its label column (of its columns, no feature "
        "column reads ['y']), or the labels themselves, label=y (an array, Series or list, "
        "one per row)"
    )
    estimator.fit(FRAME, label="y", verbose=0)  # what it says works


def test_evaluate_without_label_says_what_it_got_and_what_to_pass(estimator, tmp_path):
    estimator.fit(FRAME, label="y", verbose=0)
    with pytest.raises(ValueError) as caught:
        estimator.evaluate(FRAME, verbose=0)
    message = str(caught.value)
    assert message.startswith(
        "evaluate needs labels, and its input (pandas DataFrame: 4 rows, columns ['x', 'y']) "
        "has none: pass label='<column>' to evaluate naming its label column (of its "
        "columns, no feature column reads ['y']), or the labels themselves, label=y"
    )
    assert "build the Dataset with label=..." not in message  # the old, Dataset-only advice
    assert estimator.evaluate(FRAME, label="y", verbose=0)["global_step"] > 0

    path = tmp_path / "rows.csv"
    FRAME.to_csv(path, index=False)
    with pytest.raises(ValueError) as caught:
        estimator.evaluate(str(path), verbose=0)
    message = str(caught.value)
    assert f"its input ('{path}' (csv), columns ['x', 'y']) has none" in message
    assert "no feature column reads ['y']" in message
    assert "label=y (an array" not in message  # files take a column name only

    with pytest.raises(ValueError, match=r"\(the data holds no other column: feature columns"):
        estimator.evaluate(FRAME[["x"]], verbose=0)
    dataset = cn.data.Dataset.from_pandas(FRAME).batch(2)
    with pytest.raises(ValueError, match="a cn.data.Dataset may also be built with label="):
        estimator.evaluate(dataset, verbose=0)
    assert estimator.evaluate(dataset, label="y", verbose=0)["global_step"] > 0


def test_a_model_fn_evaluates_an_input_without_labels_as_before(tmp_path):
    """Only canned heads need labels: a model_fn gets labels=None, as TF gives it."""

    def model_fn(features, labels, mode, params):
        assert labels is None
        x = cn.core.as_tensor(features["x"])
        loss = cn.core.reduce_mean(x)
        return cn.estimators.EstimatorSpec(mode, loss=loss, predictions={"x": x})

    est = cn.estimators.Estimator(model_fn, model_dir=str(tmp_path))
    metrics = est.evaluate(lambda: cn.data.Dataset.from_pandas(FRAME[["x"]]).batch(4))
    assert metrics["loss"] == pytest.approx(FRAME["x"].mean())
