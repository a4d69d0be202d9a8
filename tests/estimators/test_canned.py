"""Canned estimators end to end: training math, life cycle, hooks, callbacks, errors."""

import json
import logging
import math

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

fc = cn.feature_columns
E = cn.estimators


def separable_frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    color = rng.choice(["red", "green", "blue"], size=n)
    score = 2 * x1 - x2 + np.where(color == "red", 1.5, -0.5)
    return pd.DataFrame({"x1": x1, "x2": x2, "color": color, "y": (score > 0).astype(int)})


def columns():
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    return [fc.numeric_column("x1"), fc.numeric_column("x2"), color]


def dnn_columns():
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    return [fc.numeric_column("x1"), fc.numeric_column("x2"), fc.embedding_column(color, 3)]


def quiet_config(**kw):
    return E.RunConfig(tf_random_seed=kw.pop("seed", 1), log_step_count_steps=0, **kw)


# ---------------------------------------------------------------- defaults and the math


def learning_rate(estimator, part=0):
    return estimator.train_state.parts[part][1].learning_rate


def test_default_optimizers_follow_tensorflow_2_15():
    # tensorflow_estimator 2.15, canned/linear.py: the default optimizer is the name
    # "Ftrl", which gets learning rate 0.2; only optimizer=None gets min(0.2, 1/sqrt(n)).
    est = E.LinearClassifier(columns(), config=quiet_config())
    assert isinstance(est.train_state.parts[0][1], cn.train.FtrlOptimizer)
    assert learning_rate(est) == 0.2
    est = E.LinearClassifier(columns(), optimizer=None, config=quiet_config())
    assert math.isclose(learning_rate(est), min(0.2, 1 / math.sqrt(3)))
    many = [fc.numeric_column(f"f{i}") for i in range(100)]
    assert learning_rate(E.LinearRegressor(many, optimizer=None, config=quiet_config())) == 0.1
    assert learning_rate(E.LinearRegressor(many, config=quiet_config())) == 0.2
    assert learning_rate(E.LinearRegressor(many, optimizer="Adam", config=quiet_config())) == 0.2
    # canned/dnn.py: a name gets the Keras optimizer's default learning rate.
    dnn = E.DNNClassifier([4], dnn_columns(), config=quiet_config())
    assert isinstance(dnn.train_state.parts[0][1], cn.train.AdagradOptimizer)
    assert learning_rate(dnn) == 0.001
    for name, rate in [("Adam", 0.001), ("RMSProp", 0.001), ("Ftrl", 0.001), ("SGD", 0.01)]:
        est = E.DNNRegressor([4], dnn_columns(), optimizer=name, config=quiet_config())
        assert learning_rate(est) == rate, name
    # canned/dnn_linear_combined.py: min(0.005, 1/sqrt(n)) and 0.001, names or not.
    for linear_optimizer, dnn_optimizer in [("Ftrl", "Adagrad"), (None, None)]:
        wd = E.DNNLinearCombinedClassifier(
            linear_feature_columns=columns(),
            linear_optimizer=linear_optimizer,
            dnn_feature_columns=dnn_columns(),
            dnn_optimizer=dnn_optimizer,
            dnn_hidden_units=[4],
            config=quiet_config(),
        )
        (n1, lin, _), (n2, deep, _) = wd.train_state.parts
        assert (n1, n2) == ("linear_optimizer", "dnn_optimizer")
        assert isinstance(lin, cn.train.FtrlOptimizer)
        assert isinstance(deep, cn.train.AdagradOptimizer)
        assert math.isclose(lin.learning_rate, min(0.005, 1 / math.sqrt(3)))
        assert deep.learning_rate == 0.001


def test_default_initializers_and_input_order_follow_tensorflow_2_15():
    # Keras Dense (canned/dnn.py V2): kernels Glorot-uniform, biases zero; linear weights
    # and bias zero (canned/linear.py); input_layer concatenates columns sorted by name.
    est = E.DNNLinearCombinedClassifier(
        linear_feature_columns=columns(),
        dnn_feature_columns=[fc.numeric_column("z"), fc.numeric_column("a", shape=2)],
        dnn_hidden_units=[64, 8],
        config=quiet_config(),
    )
    weights = est.get_weights()
    kernel = weights["dnn/hiddenlayer_0/kernel"]
    limit = math.sqrt(6.0 / (3 + 64))  # fan_in: a (2) + z (1)
    assert kernel.shape == (3, 64) and np.abs(kernel).max() <= limit
    assert np.abs(kernel).max() > 0.8 * limit  # uniform over the whole range, not smaller
    assert not weights["dnn/hiddenlayer_0/bias"].any()
    linear = {k: v for k, v in weights.items() if k.startswith("linear/")}
    assert linear and not any(v.any() for v in linear.values())
    out = est.model.network.dnn.input_layer({"z": [5.0], "a": [[1.0, 2.0]]}).numpy()
    assert out.tolist() == [[1.0, 2.0, 5.0]]


def test_batch_norm_uses_tensorflows_momentum_and_epsilon():
    # canned/dnn.py: BatchNormalization(momentum=0.999), Keras' epsilon 1e-3.
    est = E.DNNRegressor(
        [2], [fc.numeric_column("x")], batch_norm=True, optimizer="SGD", config=quiet_config()
    )
    kernel = est.get_weights()["dnn/hiddenlayer_0/kernel"]
    x = np.array([1.0, 2.0, 6.0], np.float32)
    est.fit(pd.DataFrame({"x": x, "y": [0.0, 1.0, 2.0]}), label="y", batch_size=3)
    hidden = np.maximum(x[:, None] @ kernel, 0.0)  # bias starts at zero
    moving_mean = est.get_weights()["dnn/hiddenlayer_0/batchnorm_0/moving_mean"]
    moving_var = est.get_weights()["dnn/hiddenlayer_0/batchnorm_0/moving_variance"]
    np.testing.assert_allclose(moving_mean, 0.001 * hidden.mean(0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(moving_var, 0.999 + 0.001 * hidden.var(0), rtol=1e-5)


def test_adagrad_da_can_be_chosen_by_name_and_follows_the_global_step():
    est = E.LinearRegressor([fc.numeric_column("x")], optimizer="AdagradDA", config=quiet_config())
    opt = est.train_state.parts[0][1]
    assert isinstance(opt, cn.train.AdagradDAOptimizer) and learning_rate(est) == 0.2
    frame = pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, 2.0]})
    est.fit(frame, label="y", epochs=3, batch_size=2)
    assert est.global_step == 3 and opt._global_step is est.train_state.global_step_variable


def test_one_linear_regression_step_equals_hand_computed_gradient_descent():
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]], np.float32)
    y = np.array([1.0, -2.0, 0.5], np.float32)
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "y": y})
    est = E.LinearRegressor(
        [fc.numeric_column("a"), fc.numeric_column("b")],
        optimizer=cn.train.GradientDescentOptimizer(0.1),
        config=quiet_config(),
    )
    est.train(cn.data.Dataset.from_pandas(frame, label="y").batch(3), steps=1)
    # Weights start at zero; loss = sum((xw + b - y)^2) / batch (sum over batch size).
    residual = -y
    grad_w = 2 * x.T @ residual / 3
    grad_b = 2 * residual.sum() / 3
    weights = est.get_weights()
    w_a = next(v for k, v in weights.items() if k.endswith("a/weights"))
    w_b = next(v for k, v in weights.items() if k.endswith("b/weights"))
    bias = next(v for k, v in weights.items() if k.endswith("bias_weights"))
    np.testing.assert_allclose([w_a.item(), w_b.item()], -0.1 * grad_w, rtol=1e-5)
    np.testing.assert_allclose(bias.item(), -0.1 * grad_b, rtol=1e-5)
    assert est.global_step == 1


@pytest.mark.parametrize(
    "make",
    [
        lambda cfg: E.LinearClassifier(columns(), config=cfg),
        lambda cfg: E.DNNClassifier(
            [8], dnn_columns(), config=cfg, optimizer=cn.train.AdagradOptimizer(0.3)
        ),
        lambda cfg: E.DNNLinearCombinedClassifier(
            linear_feature_columns=columns(),
            dnn_feature_columns=dnn_columns(),
            dnn_hidden_units=[8],
            dnn_optimizer=cn.train.AdagradOptimizer(0.3),
            linear_optimizer=cn.train.FtrlOptimizer(0.3),
            config=cfg,
        ),
    ],
    ids=["linear", "dnn", "wide_deep"],
)
def test_classifiers_learn_and_report_tf_metric_keys(make, tmp_path):
    train, test = separable_frame(600, 0), separable_frame(300, 1)
    est = make(quiet_config(model_dir=str(tmp_path)))
    est.fit(train, label="y", epochs=8, batch_size=32)
    results = est.evaluate(test, label="y")
    expected = {
        "accuracy",
        "accuracy_baseline",
        "auc",
        "auc_precision_recall",
        "average_loss",
        "loss",
        "label/mean",
        "prediction/mean",
        "precision",
        "recall",
        "global_step",
    }
    assert expected <= set(results)
    assert results["accuracy"] > 0.85 and results["auc"] > 0.9
    assert results["global_step"] == est.global_step == 8 * math.ceil(600 / 32)
    frame = est.predict(test)
    # the evaluation metrics agree with the predictions
    acc = float(np.mean(frame["class_ids"].to_numpy() == test["y"].to_numpy()))
    assert math.isclose(results["accuracy"], acc, rel_tol=1e-6)
    assert math.isclose(results["label/mean"], test["y"].mean(), rel_tol=1e-6)
    assert math.isclose(
        results["accuracy_baseline"], max(test["y"].mean(), 1 - test["y"].mean()), rel_tol=1e-6
    )
    assert math.isclose(results["prediction/mean"], frame["logistic"].mean(), rel_tol=1e-5)
    np.testing.assert_allclose(frame["probabilities_1"], frame["logistic"], rtol=1e-6)


def test_multiclass_with_string_labels_and_tf_style_predict():
    rng = np.random.default_rng(3)
    x = rng.normal(size=900)
    label = np.where(x < -0.5, "low", np.where(x > 0.5, "high", "mid"))
    frame = pd.DataFrame({"x": x, "label": label})
    est = E.DNNClassifier(
        [16],
        [fc.numeric_column("x")],
        n_classes=3,
        label_vocabulary=["low", "mid", "high"],
        optimizer=cn.train.AdamOptimizer(0.05),
        config=quiet_config(),
    )
    est.fit(frame, label="label", epochs=15, batch_size=64)
    results = est.evaluate(frame, label="label")
    assert set(results) == {"accuracy", "average_loss", "loss", "global_step"}
    assert results["accuracy"] > 0.9
    ds = cn.data.Dataset.from_pandas(frame.head(5), label="label").batch(5)
    preds = list(est.predict(ds, predict_keys=["classes", "probabilities"]))
    assert len(preds) == 5 and set(preds[0]) == {"classes", "probabilities"}
    assert [p["classes"][0] for p in preds] == list(frame["label"].head(5))
    np.testing.assert_allclose([p["probabilities"].sum() for p in preds], 1.0, rtol=1e-5)


def test_regressor_with_two_label_dimensions_and_rmse():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(500, 2)).astype(np.float32)
    ds = cn.data.Dataset.from_dict(
        {"a": x[:, 0], "b": x[:, 1], "y1": 3 * x[:, 0], "y2": x[:, 0] - x[:, 1]}, label=["y1", "y2"]
    )
    est = E.LinearRegressor(
        [fc.numeric_column("a"), fc.numeric_column("b")],
        label_dimension=2,
        optimizer=cn.train.AdamOptimizer(0.1),
        config=quiet_config(),
    )
    est.train(lambda: ds.shuffle(500, seed=1).batch(50).repeat(30))
    results = est.evaluate(lambda: ds.batch(100))
    assert {"average_loss", "loss", "label/mean", "prediction/mean", "rmse"} <= set(results)
    assert results["rmse"] < 0.1
    assert math.isclose(results["rmse"] ** 2, results["average_loss"], rel_tol=1e-4)


def test_weight_column_weights_loss_and_metrics():
    frame = separable_frame(200)
    frame["w"] = np.where(frame["y"] == 1, 3.0, 0.0)  # only positives count
    est = E.LinearClassifier(columns(), weight_column="w", config=quiet_config())
    est.fit(frame, label="y", epochs=2)
    results = est.evaluate(frame, label="y")
    assert results["label/mean"] == 1.0  # the weighted label mean sees only positives


# ---------------------------------------------------------------- life cycle


def test_resume_max_steps_and_incompatible_model_dir(tmp_path):
    frame = separable_frame(256)
    ds = cn.data.Dataset.from_pandas(frame, label="y").batch(32).repeat()
    cfg = quiet_config(model_dir=str(tmp_path))
    est = E.LinearClassifier(columns(), config=cfg)
    est.train(ds, steps=5)
    assert est.global_step == 5 and cn.train.latest_checkpoint(str(tmp_path))
    again = E.LinearClassifier(columns(), config=cfg)
    assert again.evaluate(ds, steps=2)["global_step"] == 5
    np.testing.assert_array_equal(
        again.get_variable_value("linear/linear_model/bias_weights"),
        est.get_variable_value("linear/linear_model/bias_weights"),
    )
    again.train(ds, max_steps=12)
    assert again.global_step == 12
    again.train(ds, max_steps=12)  # already there: no step
    assert again.global_step == 12
    other = E.DNNClassifier([4], dnn_columns(), config=cfg)
    with pytest.raises(ValueError, match="different model"):
        other.train(ds, steps=1)


def test_checkpoints_every_n_steps_keep_max(tmp_path):
    ds = cn.data.Dataset.from_pandas(separable_frame(64), label="y").batch(8).repeat()
    cfg = quiet_config(model_dir=str(tmp_path), save_checkpoints_steps=3, keep_checkpoint_max=2)
    est = E.LinearClassifier(columns(), config=cfg)
    est.train(ds, steps=10)
    kept = cn.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths
    assert [p.rsplit("-", 1)[1] for p in kept] == ["9", "10"]


def test_warm_start_only_without_a_checkpoint(tmp_path, caplog):
    frame = separable_frame(200)
    source = E.LinearClassifier(columns(), config=quiet_config(model_dir=str(tmp_path / "a")))
    source.fit(frame, label="y", epochs=3)
    target = E.LinearClassifier(
        columns(),
        config=quiet_config(model_dir=str(tmp_path / "b"), seed=9),
        warm_start_from=str(tmp_path / "a"),
    )
    before = target.predict(frame)
    np.testing.assert_allclose(before["logits"], source.predict(frame)["logits"], rtol=1e-6)
    target.fit(frame, label="y", epochs=1)
    fresh = E.LinearClassifier(
        columns(),
        config=quiet_config(model_dir=str(tmp_path / "b")),
        warm_start_from=str(tmp_path / "a"),
    )
    with caplog.at_level(logging.INFO, logger="colonnade"):
        fresh.evaluate(frame, label="y")
    assert "warm_start_from is ignored" in caplog.text


def test_tf_random_seed_makes_runs_identical(tmp_path):
    frame = separable_frame(300)

    def run(seed, sub):
        est = E.DNNClassifier(
            [8, 4],
            dnn_columns(),
            dropout=0.3,
            config=quiet_config(seed=seed, model_dir=str(tmp_path / sub)),
        )
        est.fit(frame, label="y", epochs=2, batch_size=16)
        return est.get_weights()

    a, b, c = run(5, "a"), run(5, "b"), run(6, "c")
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    assert any(not np.array_equal(a[k], c[k]) for k in a)


# ---------------------------------------------------------------- hooks and callbacks


def test_hooks(tmp_path, caplog):
    ds = cn.data.Dataset.from_pandas(separable_frame(64), label="y").batch(8).repeat()
    est = E.LinearClassifier(columns(), config=quiet_config(model_dir=str(tmp_path)))
    saved = []
    hooks = [
        E.StopAtStepHook(num_steps=7),
        E.LoggingTensorHook(["loss", "global_step"], every_n_iter=3),
        E.CheckpointSaverHook(str(tmp_path / "extra"), save_steps=2, listeners=[saved.append]),
        E.SummarySaverHook(save_steps=5, output_dir=str(tmp_path / "summaries")),
    ]
    with caplog.at_level(logging.INFO, logger="colonnade"):
        est.train(ds, hooks=hooks)
    assert est.global_step == 7
    assert caplog.text.count("global_step = ") == 3  # steps 1, 4, 7
    assert len(saved) == 5  # steps 0 (as TF 2.15), 2, 4, 6 and the end
    lines = (tmp_path / "summaries" / "summaries.jsonl").read_text().splitlines()
    assert [json.loads(line)["global_step"] for line in lines] == [1, 6]


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_nan_loss_stops_training_naming_the_step():
    frame = separable_frame(32)
    # Inf features are refused before the model; finite example weights near float32's
    # limit make the weighted loss overflow to inf at the first step.
    frame["w"] = 1.0
    frame.loc[[5, 6], "w"] = 3e38
    est = E.LinearClassifier(columns(), weight_column="w", config=quiet_config())
    ds = cn.data.Dataset.from_pandas(frame, label="y").batch(32)
    with pytest.raises(E.NanLossDuringTrainingError, match="at step 1"):
        est.train(ds, hooks=[E.NanTensorHook()])


def test_callbacks_early_stopping_csv_logger_model_checkpoint(tmp_path):
    frame = separable_frame(128)
    est = E.LinearClassifier(columns(), config=quiet_config(model_dir=str(tmp_path / "m")))
    stopper = E.EarlyStopping(monitor="val_loss", min_delta=10.0, patience=1)
    logger_path = tmp_path / "log.csv"
    checkpoint = E.ModelCheckpoint()
    history = est.fit(
        frame,
        label="y",
        epochs=10,
        validation_data=frame,
        callbacks=[stopper, E.CSVLogger(logger_path), checkpoint],
    )
    assert len(history.epoch) == 3  # best at epoch 0, then two epochs without a 10.0 gain
    rows = logger_path.read_text().splitlines()
    assert rows[0].split(",")[:2] == ["epoch", "loss"] and len(rows) == 4
    assert "val_auc" in rows[0]
    assert len(checkpoint.saved) == 3


# ---------------------------------------------------------------- bad input


def test_bad_input_is_refused_clearly(tmp_path):
    frame = separable_frame(16)
    est = E.LinearClassifier(columns(), config=quiet_config())
    bad = frame.assign(y=frame["y"] + 1)
    with pytest.raises(ValueError, match=r"class ids in \[0, 1\]"):
        est.fit(bad, label="y")
    with pytest.raises(TypeError, match="label_vocabulary"):
        est.fit(frame.assign(y="yes"), label="y")
    with pytest.raises(ValueError, match="unknown optimizer"):
        E.DNNClassifier([4], dnn_columns(), optimizer="Adamax")
    with pytest.raises(ValueError, match="at most one of steps and max_steps"):
        est.train(lambda: [], steps=1, max_steps=2)
    with pytest.raises(KeyError, match="nope"):
        est.fit(frame, label="nope")
    with pytest.raises(ValueError, match="hidden_units"):
        E.DNNRegressor([], dnn_columns())
    with pytest.raises(ValueError, match="needs labels"):
        est.train(cn.data.Dataset.from_pandas(frame).batch(4))


def test_fit_from_parquet_reads_only_the_needed_columns(tmp_path, monkeypatch):
    frame = separable_frame(200).assign(unused=np.arange(200.0), w=1.0)
    path = tmp_path / "train.parquet"
    frame.to_parquet(path)
    asked = []
    original = cn.data.Dataset.from_files.__func__

    def spy(cls, *args, **kwargs):
        asked.append(kwargs.get("columns"))
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(cn.data.Dataset, "from_files", classmethod(spy))
    est = E.LinearClassifier(columns(), weight_column="w", config=quiet_config())
    est.fit(str(path), label="y", epochs=2)
    assert asked and all(sorted(c) == ["color", "w", "x1", "x2", "y"] for c in asked)
    assert est.evaluate(str(path), label="y")["accuracy"] > 0.8


def test_fit_takes_a_dataset_and_a_label_name():
    frame = separable_frame(200)
    est = E.LinearClassifier(columns(), config=quiet_config())
    est.fit(cn.data.Dataset.from_pandas(frame), label="y", epochs=3)
    assert est.evaluate(cn.data.Dataset.from_pandas(frame), label="y")["accuracy"] > 0.8


def test_hidden_units_are_checked_before_anything_is_allocated():
    """A config's hidden_units = [2**40] (issue 29) ended in numpy's MemoryError; it is
    refused naming the layer and its size, as are non-integers."""
    columns = [fc.numeric_column("x", shape=(4,))]
    with pytest.raises(ValueError, match=r"hidden layer 0 \(4 inputs x 1,099,511,627,776 units\)"):
        E.DNNClassifier([2**40], columns)
    with pytest.raises(ValueError, match=r"hidden layer 1 \(8 inputs x 1,073,741,824"):
        E.DNNRegressor([8, 2**30], columns)
    for bad in ([1.5], [True], [], [0]):
        with pytest.raises(ValueError, match="non-empty list of positive ints"):
            E.DNNClassifier(bad, columns)
