"""The model_fn contract (estimators/model_fn.py): the arguments an estimator passes,
what features and labels look like to a model_fn, and the spec's checks."""

import numpy as np
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.estimators.spec import model_fn as contract

E = cn.estimators


def test_a_model_fn_gets_the_arguments_it_names_in_tfs_order():
    def model_fn(mode, features, config):
        return None

    assert contract.model_fn_args(model_fn) == ("features", "mode", "config")
    assert contract.model_fn_args(lambda features, **kw: None) == contract.MODEL_FN_ARGS


def test_a_model_fn_without_features_or_with_unknown_arguments_is_refused():
    with pytest.raises(ValueError, match="must take a 'features' argument"):
        contract.model_fn_args(lambda labels, mode: None)
    with pytest.raises(ValueError, match=r"arguments \['extra'\]"):
        contract.model_fn_args(lambda features, extra: None)
    assert contract.model_fn_args(lambda features, extra=1: None) == ("features",)


def test_arrow_features_become_numpy_and_list_columns_stay_arrow():
    batch = pa.record_batch({"x": [1.5, 2.5], "tags": [["a"], ["b", "c"]]})
    features = contract.features_dict(batch)
    np.testing.assert_array_equal(features["x"], [1.5, 2.5])
    assert isinstance(features["tags"], pa.ListArray)
    assert contract.labels_array(pa.array([0, 1])).tolist() == [0, 1]
    labels = contract.labels_array(pa.table({"a": [1.0], "b": [2.0]}))
    assert {k: v.tolist() for k, v in labels.items()} == {"a": [1.0], "b": [2.0]}


def test_a_multi_dimensional_feature_is_a_dense_array_in_a_model_fn(tmp_path):
    """A fixed-size list column (from_tensor_slices of a 3-D array, numeric_column(shape=))
    reaches a model_fn as a (batch, width) array that TF-style ops take; a
    variable-length one pads with cn.sparse.to_dense."""
    seen = {}

    def model_fn(features, labels, mode):
        seen["x"] = features["x"]
        seen["tags"] = cn.sparse.to_dense(features["tags"], default_value="?")
        w = cn.core.get_variable("w", (4, 1), initializer=cn.core.initializers.zeros())
        logits = cn.core.matmul(cn.core.reshape(features["x"], (-1, 4)), w)
        loss = cn.core.reduce_mean(cn.core.square(logits[:, 0] - labels))
        return E.EstimatorSpec(mode, loss=loss, train_op=loss, predictions={"y": logits})

    x = np.arange(24, dtype=np.float32).reshape(3, 2, 4)[:, :, :2].copy()  # (3, 2, 2)
    tags = pa.array([["a"], ["b", "c"], []])
    data = cn.data.Dataset.from_tensor_slices(({"x": x, "tags": tags}, np.zeros(3)))
    E.Estimator(model_fn, model_dir=str(tmp_path)).train(lambda: data.batch(3), steps=1)
    np.testing.assert_array_equal(seen["x"], x.reshape(3, 4))
    assert seen["tags"].tolist() == [["a", "?"], ["b", "c"], ["?", "?"]]


def test_a_spec_brings_the_hooks_of_its_own_mode():
    hook = E.SessionRunHook()
    train = E.EstimatorSpec(
        E.ModeKeys.TRAIN, loss=np.float32(1.0), train_op=1, training_hooks=[hook]
    )
    predict = E.EstimatorSpec(
        E.ModeKeys.PREDICT, predictions={"y": np.ones(1)}, training_hooks=[hook]
    )
    assert train.hooks() == [hook] and predict.hooks() == []


def test_a_spec_checks_what_its_mode_needs():
    with pytest.raises(ValueError, match="mode must be one of"):
        E.EstimatorSpec("training", loss=1.0)
    with pytest.raises(ValueError, match="in mode 'eval' needs a loss"):
        E.EstimatorSpec(E.ModeKeys.EVAL)
    with pytest.raises(ValueError, match="PREDICT.* needs predictions"):
        E.EstimatorSpec(E.ModeKeys.PREDICT)


def test_checkpoint_keys_of_a_model_fns_variables():
    assert contract.is_model_variable("dense/kernel")
    assert contract.is_model_variable("global_step")
    assert not contract.is_model_variable("save_counter")
    assert not contract.is_model_variable("optimizer/iter")
