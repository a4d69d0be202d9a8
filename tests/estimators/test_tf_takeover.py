"""Taking over model_dirs written by ``tf.compat.v1`` canned estimators (batch norm, TF1's
Adam and Ftrl slots) and by a custom ``model_fn`` with each ``tf.compat.v1.train``
optimizer (TF1's slot names ``<var>/Adam``, ``<var>/Momentum``, ``<var>/Ftrl_1``, ...):
the fixtures in ``golden/tf_takeover/`` (made by ``golden/make_tf_takeover.py``) hold
TF's checkpoint at step 20, TF's predictions there and its variables after 10 more steps.
"""

import json
import os
import shutil

import numpy as np
import pytest

import colonnade as cn

E, fc = cn.estimators, cn.feature_columns
GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "tf_takeover")
DATA = np.load(os.path.join(GOLDEN, "data.npz"))
BATCH = 16

OPTIMIZERS = {  # as the generator's tf.compat.v1.train optimizers: class, arguments
    "adam": ("AdamOptimizer", 0.01),
    "momentum": ("MomentumOptimizer", 0.01, 0.9),
    "adagrad": ("AdagradOptimizer", 0.1),
    "adadelta": ("AdadeltaOptimizer", 1.0),
    "rmsprop": ("RMSPropOptimizer", 0.01, 0.9, 0.5),  # decay 0.9 (TF's default), momentum
    "ftrl": ("FtrlOptimizer", 0.1),
    "proximaladagrad": ("ProximalAdagradOptimizer", 0.1),
    "adagradda": ("AdagradDAOptimizer", 0.1, "global_step"),
}


def make_optimizer(key):
    cls, *args = OPTIMIZERS[key]
    args = [cn.train.get_global_step() if a == "global_step" else a for a in args]
    return getattr(cn.train, cls)(*args)


def custom_model_fn(optimizer):
    def model_fn(features, labels, mode):
        hidden = cn.layers.dense(features["x"], 4, activation=cn.nn.relu, name="hidden")
        out = cn.layers.dense(hidden, 1, name="out")
        if mode == E.ModeKeys.PREDICT:
            return E.EstimatorSpec(mode, predictions={"y": out})
        loss = cn.losses.mean_squared_error(labels, out)
        if mode == E.ModeKeys.EVAL:
            return E.EstimatorSpec(mode, {"y": out}, loss)
        train_op = make_optimizer(optimizer).minimize(loss, global_step=cn.train.get_global_step())
        return E.EstimatorSpec(mode, {"y": out}, loss, train_op)

    return model_fn


def build(name, model_dir):
    """The colonnade twin of the TF estimator ``name`` (as in the generator)."""
    config = E.RunConfig(log_step_count_steps=0, save_checkpoints_steps=1000)
    kw = dict(model_dir=str(model_dir), config=config)
    if name.startswith("custom_"):
        return E.Estimator(custom_model_fn(name[len("custom_") :]), **kw)
    x = fc.numeric_column("x", shape=(3,))
    summed = dict(loss_reduction=cn.core.Reduction.SUM)  # tf.compat.v1 canned estimators
    if name == "v1_dnn_bn_adam":  # tf.compat.v1's "Adam": AdamOptimizer(0.05)
        opt = cn.train.AdamOptimizer(0.05)
        return E.DNNRegressor([4], [x], optimizer=opt, batch_norm=True, **summed, **kw)
    if name == "dnn_bn_adam":
        return E.DNNRegressor([4], [x], optimizer="Adam", batch_norm=True, **kw)
    cat = fc.categorical_column_with_vocabulary_list("cat", ["a", "b", "c"])
    ftrl = cn.train.FtrlOptimizer(0.2)  # tf.compat.v1: min(0.2, 1/sqrt(2 columns))
    return E.LinearRegressor([x, cat], optimizer=ftrl, **summed, **kw)


MODELS = [f"custom_{o}" for o in OPTIMIZERS] + ["v1_dnn_bn_adam", "dnn_bn_adam", "v1_linear_ftrl"]


def fixture(name, tmp_path=None):
    """TF's listing and evaluation (json), its arrays (npz) and, with ``tmp_path``, the
    colonnade twin over a copy of TF's model_dir."""
    with open(os.path.join(GOLDEN, f"{name}.json")) as f:
        meta = json.load(f)
    arrays = np.load(os.path.join(GOLDEN, f"{name}.npz"))
    if tmp_path is None:
        return meta, arrays
    model_dir = tmp_path / name
    shutil.copytree(os.path.join(GOLDEN, name), model_dir)
    return meta, arrays, build(name, model_dir), model_dir


def batches(x, y, cat):
    def input_fn():
        for start in range(0, len(x), BATCH):
            end = start + BATCH
            yield {"x": x[start:end], "cat": cat[start:end]}, y[start:end].reshape(-1, 1)

    return input_fn


def head_rows(n=16):
    return DATA["more_x"][:n], DATA["more_y"][:n], DATA["more_cat"][:n]


def predict(est, key):
    out = list(est.predict(batches(*head_rows()), yield_single_examples=False, verbose=0))
    return np.concatenate([np.asarray(p[key]) for p in out])


@pytest.mark.parametrize("name", MODELS)
def test_predictions_and_loss_equal_tfs(name, tmp_path):
    meta, want, est, _ = fixture(name, tmp_path)
    got = predict(est, meta["key"])
    np.testing.assert_allclose(
        got.reshape(want["predictions"].shape), want["predictions"], atol=1e-5
    )
    metrics = est.evaluate(batches(*head_rows()), verbose=0)
    assert metrics["global_step"] == 20
    np.testing.assert_allclose(metrics["loss"], meta["evaluate"]["loss"], rtol=1e-5)


@pytest.mark.parametrize("name", MODELS)
def test_ten_more_steps_equal_tfs(name, tmp_path):
    """10 more steps reach TF's variables; the checkpoint is written as TF's, by TF's
    names, with what the model does not use (Keras' hyperparameters) carried over."""
    meta, want, est, model_dir = fixture(name, tmp_path)
    est.train(batches(DATA["more_x"], DATA["more_y"], DATA["more_cat"]), steps=10, verbose=0)
    assert est.global_step == 30
    latest = cn.train.latest_checkpoint(str(model_dir))
    assert latest.endswith("model.ckpt-30") and os.path.isfile(latest + ".index")
    assert sorted(map(list, cn.train.list_variables(latest))) == sorted(meta["variables_30"])
    for tf_name, _ in meta["variables_30"]:
        np.testing.assert_allclose(
            cn.train.load_variable(latest, tf_name),
            want[f"after/{tf_name}"],
            rtol=1e-5,
            atol=1e-5,
            err_msg=tf_name,
        )
    assert build(name, model_dir).get_variable_value("global_step") == 30
    # TF read this very checkpoint (golden/check_tf_reads_takeover.py): it predicted what
    # colonnade predicts, and trained on from it to step 31
    with open(os.path.join(GOLDEN, "tf_reads_takeover.json")) as f:
        tf_read = json.load(f)[name]
    assert tf_read["global_step_after_one_more"] == 31
    np.testing.assert_allclose(
        predict(est, meta["key"]).reshape(-1), tf_read["predictions"], atol=1e-5
    )


def test_another_optimizers_model_dir_predicts_and_refuses_to_train(tmp_path, caplog):
    """evaluate/predict restore the model and global step only (TF's EVAL and PREDICT
    graphs hold no optimizer): a model_dir trained with Ftrl predicts as TF with an
    Adagrad model; training needs Adagrad's slots, which the checkpoint lacks."""
    meta, want = fixture("v1_linear_ftrl")
    model_dir = tmp_path / "m"
    shutil.copytree(os.path.join(GOLDEN, "v1_linear_ftrl"), model_dir)
    x = fc.numeric_column("x", shape=(3,))
    cat = fc.categorical_column_with_vocabulary_list("cat", ["a", "b", "c"])
    est = E.LinearRegressor(
        [x, cat],
        optimizer=cn.train.AdagradOptimizer(0.1),
        loss_reduction=cn.core.Reduction.SUM,
        model_dir=str(model_dir),
    )
    with caplog.at_level("INFO", logger="colonnade"):
        np.testing.assert_allclose(predict(est, "predictions"), want["predictions"], atol=1e-5)
        predict(est, "predictions")
    unused = [r for r in caplog.records if "saved values not used" in r.getMessage()]
    assert len(unused) == 1 and unused[0].levelname == "INFO"
    assert "linear/linear_model/x/weights/part_0/Ftrl_1" in unused[0].getMessage()
    assert not [r for r in caplog.records if r.levelno >= 30]
    with pytest.raises(ValueError, match="the model has variables the checkpoint lacks: .*"
                       "'training/Adagrad/linear/linear_model/x/weights/accumulator'"):  # fmt: skip
        est.train(batches(DATA["more_x"], DATA["more_y"], DATA["more_cat"]), steps=1, verbose=0)


def test_evaluate_logs_tfs_saving_dict_and_no_warnings(tmp_path, caplog):
    est = fixture("custom_momentum", tmp_path)[2]
    with caplog.at_level("INFO", logger="colonnade"):
        est.train(batches(DATA["more_x"], DATA["more_y"], DATA["more_cat"]), steps=2, verbose=0)
        metrics = est.evaluate(batches(*head_rows()), verbose=0)
        predict(est, "y")
    assert f"Saving dict for global step 22: global_step = 22, loss = {metrics['loss']}" in [
        r.getMessage() for r in caplog.records
    ]
    assert not [r.getMessage() for r in caplog.records if r.levelno >= 30]


def test_warm_starting_every_variable_says_no_warning(tmp_path, caplog):
    """A model_fn's variables exist once it has run: the warm start waits for them."""
    settings = E.WarmStartSettings(os.path.join(GOLDEN, "custom_adam"), vars_to_warm_start=".*")
    est = E.Estimator(custom_model_fn("adam"), model_dir=str(tmp_path), warm_start_from=settings)
    with caplog.at_level("INFO", logger="colonnade"):
        est.train(batches(DATA["x"], DATA["y"], DATA["cat"]), steps=1, verbose=0)
    assert not [r.getMessage() for r in caplog.records if r.levelno >= 30]
    assert any("warm-started 4 variables" in r.getMessage() for r in caplog.records)


def test_no_checkpoint_predicts_from_initialization_as_tf(tmp_path, caplog):
    """TF 2.15's evaluate/predict without a checkpoint log "Could not find trained model in
    model_dir: ..., running initialization" and use the initial values: a linear model's
    zeros predict 0 for every row."""
    est = build("v1_linear_ftrl", tmp_path)
    with caplog.at_level("INFO", logger="colonnade"):
        got = predict(est, "predictions")
    np.testing.assert_array_equal(got, np.zeros((16, 1), np.float32))
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("Could not find trained model in model_dir: ") for m in messages)
    with pytest.raises(ValueError, match="Couldn't find trained model at"):
        est.export_saved_model(str(tmp_path / "export"))


@pytest.mark.parametrize("name", ["v1_dnn_bn_adam", "v1_linear_ftrl"])
def test_variable_names_are_the_checkpoints(name, tmp_path):
    """A canned model's ``Variable.name`` is its name in TF's checkpoint."""
    meta, _ = fixture(name)
    est = build(name, tmp_path)
    tf_names = {n for n, _ in meta["variables_20"]}
    variables = est.train_state.model_variables()
    assert {v.name for v in variables.values()} <= tf_names
    assert all(v.name == key for key, v in variables.items())


def test_variable_names_and_values_need_a_checkpoint_as_tf(tmp_path):
    """TF's get_variable_names/get_variable_value read model_dir's latest checkpoint and
    raise ValueError("Could not find trained model in model_dir: ...") without one."""
    for est in (build("v1_linear_ftrl", tmp_path / "a"), build("custom_adam", tmp_path / "b")):
        with pytest.raises(ValueError, match="Could not find trained model in model_dir: "):
            est.get_variable_names()
        with pytest.raises(ValueError, match="Could not find trained model in model_dir: "):
            est.get_variable_value("global_step")
