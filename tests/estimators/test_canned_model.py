"""A canned estimator's model_fn (estimators/canned_model.py) and the canned classes'
generated Args sections (estimators/canned.py)."""

import inspect
import re

import numpy as np
import pytest

import colonnade as cn
from colonnade.estimators.canned import estimators as canned

E, fc = cn.estimators, cn.feature_columns

CANNED = canned.CANNED_ESTIMATORS


def test_the_canned_estimators_are_the_estimators_subclasses_in_canned_py():
    defined = [
        c for c in vars(canned).values() if isinstance(c, type) and E.Estimator in c.__bases__
    ]
    assert len(CANNED) == 6 and set(defined) == set(CANNED)


def test_a_canned_model_fn_has_tfs_signature_and_its_eval_loss_is_the_heads(tmp_path):
    est = E.LinearRegressor([fc.numeric_column("x")], model_dir=str(tmp_path))
    x = np.array([[1.0], [2.0], [3.0]], np.float32)
    y = np.array([[1.0], [-2.0], [4.0]], np.float32)
    spec = est.model_fn({"x": x}, y, E.ModeKeys.EVAL, est.config)
    assert isinstance(spec, E.EstimatorSpec) and spec.mode == E.ModeKeys.EVAL
    # weights start at zero, so the logits are 0 and the loss is the mean of y**2
    assert float(spec.loss.numpy()) == pytest.approx(np.mean(y**2), rel=1e-6)
    predict = est.model_fn({"x": x}, None, E.ModeKeys.PREDICT)
    np.testing.assert_array_equal(predict.predictions["predictions"], np.zeros((3, 1)))


def test_a_canned_model_fn_refuses_training_without_labels(tmp_path):
    est = E.LinearRegressor([fc.numeric_column("x")], model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="training needs labels"):
        est.model_fn({"x": np.ones((2, 1), np.float32)}, None, E.ModeKeys.TRAIN)


@pytest.mark.parametrize("cls", CANNED, ids=lambda c: c.__name__)
def test_each_canned_class_documents_every_argument_in_order(cls):
    names = [n for n in inspect.signature(cls.__init__).parameters if n != "self"]
    args = cls.__doc__.split("    Args:\n", 1)[1]
    documented = re.findall(r"^        (\w+): \S", args, re.M)
    assert documented == names


def test_a_dnn_part_gets_the_dnn_descriptions_and_a_linear_one_the_linear_ones():
    assert "dense columns" in E.DNNClassifier.__doc__.split("feature_columns:")[1][:60]
    assert "a weight\n            per id" in E.LinearClassifier.__doc__
    assert '"Adagrad"' in E.DNNRegressor.__doc__.split("    optimizer:")[1][:40]
