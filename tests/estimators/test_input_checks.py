"""Estimator inputs that are wrong in simple ways fail early and say what is wrong."""

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
