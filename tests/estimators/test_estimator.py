"""Estimator(model_fn): reuse across calls, checkpoints, metrics, bad specs, and the
equivalence with a canned DNNClassifier."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import colonnade as cn

fc = cn.feature_columns
ModeKeys, EstimatorSpec = cn.estimators.ModeKeys, cn.estimators.EstimatorSpec

RNG = np.random.default_rng(0)
X = RNG.normal(size=(64, 2)).astype(np.float32)
Y = (X[:, 0] - X[:, 1] + 0.3 * RNG.normal(size=64) > 0).astype(np.int64)
COLUMNS = [fc.numeric_column("x1"), fc.numeric_column("x2")]


def features(x=X):
    return {"x1": x[:, 0], "x2": x[:, 1]}


def logistic_model_fn(features, labels, mode, params):
    net = fc.input_layer(features, params["columns"])
    hidden = cn.layers.dense(net, 4, activation=cn.nn.relu)
    logits = cn.layers.dense(hidden, 1)
    probabilities = cn.nn.sigmoid(logits)
    predictions = {"probabilities": probabilities, "logits": logits}
    if mode == ModeKeys.PREDICT:
        return EstimatorSpec(mode, predictions=predictions)
    y = np.asarray(labels, np.float32).reshape(-1, 1)
    loss = cn.losses.sigmoid_cross_entropy(y, logits)
    metrics = {
        "auc": cn.metrics.auc(y, probabilities),
        "accuracy": cn.metrics.accuracy(y, probabilities.numpy() > 0.5),
    }
    optimizer = cn.train.AdagradOptimizer(params.get("learning_rate", 0.1))
    train_op = None
    if mode == ModeKeys.TRAIN:
        train_op = optimizer.minimize(loss, global_step=cn.train.get_global_step())
    return EstimatorSpec(mode, predictions, loss, train_op, eval_metric_ops=metrics)


def make(tmp_path, model_fn=logistic_model_fn, **kw):
    return cn.estimators.Estimator(
        model_fn, model_dir=str(tmp_path / "m"), params={"columns": COLUMNS}, **kw
    )


def test_variables_are_built_once_and_reused_and_checkpointed(tmp_path):
    est = make(tmp_path)
    est.train(lambda: (features(), Y), steps=5, verbose=0)
    assert est.global_step == 5
    assert est.get_variable_names() == [
        "dense/bias",
        "dense/kernel",
        "dense_1/bias",
        "dense_1/kernel",
        "global_step",
    ]
    kernel = est.get_variable_value("dense/kernel")
    # a new estimator on the same model_dir resumes: same weights, same step, slots too
    again = make(tmp_path)
    again.train(lambda: (features(), Y), steps=1, verbose=0)
    assert again.global_step == 6
    est.train(lambda: (features(), Y), steps=1, verbose=0)
    np.testing.assert_allclose(
        again.get_variable_value("dense/kernel"), est.get_variable_value("dense/kernel")
    )
    assert not np.allclose(kernel, est.get_variable_value("dense/kernel"))


def test_eval_metrics_accumulate_over_the_whole_evaluation(tmp_path):
    est = make(tmp_path)
    est.train(lambda: (features(), Y), steps=3, verbose=0)
    batches = [(features(X[i : i + 16]), Y[i : i + 16]) for i in range(0, 64, 16)]
    results = est.evaluate(lambda: iter(batches), verbose=0)
    p = np.concatenate(
        [
            p["probabilities"]
            for p in est.predict(lambda: iter(batches), yield_single_examples=False, verbose=0)
        ]
    ).reshape(-1)
    _, whole = cn.compat.v1.metrics.auc(Y, p)  # TF 1's 200 thresholds, all rows at once
    assert results["auc"] == pytest.approx(whole, abs=1e-9)
    assert results["auc"] == pytest.approx(roc_auc_score(Y, p), abs=2e-2)
    assert results["accuracy"] == pytest.approx(np.mean((p > 0.5) == Y))
    assert results["global_step"] == 3 and set(results) >= {"loss", "auc", "accuracy"}


def test_keras_style_fit_evaluate_predict_with_dataframes(tmp_path):
    frame = pd.DataFrame({"x1": X[:, 0], "x2": X[:, 1], "y": Y})
    est = make(tmp_path, config=cn.estimators.RunConfig(tf_random_seed=0))  # no flaky draw
    history = est.fit(frame, label="y", epochs=2, batch_size=16, verbose=0)
    assert len(history.history["loss"]) == 2
    assert est.evaluate(frame, label="y", verbose=0)["auc"] > 0.5
    assert len(est.predict(frame.drop(columns="y"), verbose=0)) == 64


def _spec_fn(make_spec):
    def model_fn(features, labels, mode, params):  # make() passes params (TF refuses else)
        w = cn.core.get_variable("w", shape=(2, 1))
        x = np.stack([features["x1"], features["x2"]], axis=1)
        return make_spec(mode, x @ w, cn.train.GradientDescentOptimizer(0.1))

    return model_fn


@pytest.mark.parametrize(
    "make_spec, error, match",
    [
        (lambda mode, out, opt: {"loss": out}, TypeError, "must return an EstimatorSpec, got dict"),
        (
            lambda mode, out, opt: EstimatorSpec(mode, loss=cn.core.mean(out)),
            ValueError,
            "needs a train_op",
        ),
        (
            lambda mode, out, opt: EstimatorSpec(mode, loss=out, train_op=1),
            ValueError,
            r"loss must be a scalar, got shape \(64, 1\)",
        ),
        (
            lambda mode, out, opt: EstimatorSpec(
                mode, loss=cn.core.mean(out), train_op=1, eval_metric_ops={"auc": 0.5}
            ),
            TypeError,
            r"eval_metric_ops\['auc'\] must be a \(value, update_op\) pair",
        ),
    ],
)
def test_bad_specs_name_the_offender(tmp_path, make_spec, error, match):
    est = make(tmp_path, _spec_fn(make_spec))
    with pytest.raises(error, match=match):
        est.train(lambda: (features(), Y), steps=1, verbose=0)


def test_model_fn_arguments_are_checked():
    with pytest.raises(ValueError, match=r"arguments \['extra'\]"):
        cn.estimators.Estimator(lambda features, extra: None)


def test_a_model_fn_rebuilding_the_canned_dnn_predicts_the_same(tmp_path):
    """Same columns (input_layer), hidden units, head math (sigmoid cross-entropy over the
    batch), optimizer, and the canned model's initial weights: the same predictions."""
    canned = cn.estimators.DNNClassifier(
        [4, 3],
        COLUMNS,
        model_dir=str(tmp_path / "canned"),
        optimizer=lambda: cn.train.AdagradOptimizer(0.1),
    )
    initial = canned.get_weights()

    def weight(suffix):
        (key,) = [k for k in initial if k.endswith(suffix)]
        return initial[key]

    def model_fn(features, labels, mode):
        net = fc.input_layer(features, COLUMNS)
        for i in range(2):
            net = cn.layers.dense(
                net,
                [4, 3][i],
                activation=cn.nn.relu,
                kernel_initializer=weight(f"hiddenlayer_{i}/kernel"),
                bias_initializer=weight(f"hiddenlayer_{i}/bias"),
                name=f"hiddenlayer_{i}",
            )
        logits = cn.layers.dense(
            net,
            1,
            kernel_initializer=weight("logits/kernel"),
            bias_initializer=weight("logits/bias"),
            name="logits",
        )
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions={"logistic": cn.nn.sigmoid(logits)})
        y = np.asarray(labels, np.float32).reshape(-1, 1)
        loss = cn.losses.sigmoid_cross_entropy(
            y, logits, reduction=cn.losses.Reduction.SUM_OVER_BATCH_SIZE
        )
        opt = cn.train.AdagradOptimizer(0.1)
        return EstimatorSpec(
            mode, loss=loss, train_op=opt.minimize(loss, global_step=cn.train.get_global_step())
        )

    custom = cn.estimators.Estimator(model_fn, model_dir=str(tmp_path / "custom"))
    for est in (canned, custom):
        est.train(lambda: (features(), Y), steps=20, verbose=0)

    def logistic(est):
        out = est.predict(lambda: (features(), None), yield_single_examples=False, verbose=0)
        return np.concatenate([p["logistic"] for p in out]).reshape(-1)

    np.testing.assert_allclose(logistic(custom), logistic(canned), atol=1e-6)


# ---------------------------------------------------------------- export


def test_export_loads_with_the_model_fn_given_by_name_and_predicts_the_same(tmp_path):
    vocab = tmp_path / "colors.txt"
    vocab.write_text("red\ngreen\n")
    color = fc.categorical_column_with_vocabulary_file("color", str(vocab))
    params = {"columns": COLUMNS + [fc.indicator_column(color)], "learning_rate": 0.05}
    est = cn.estimators.Estimator(logistic_model_fn, model_dir=str(tmp_path / "m"), params=params)
    frame = pd.DataFrame(
        {"x1": X[:, 0], "x2": X[:, 1], "color": np.where(Y == 1, "red", "green"), "y": Y}
    )
    est.fit(frame, label="y", epochs=2, batch_size=16, verbose=0)
    path = est.export_saved_model(str(tmp_path / "exports"))
    vocab.unlink()  # the export carries its own copy
    rows = frame.drop(columns="y").head(10)
    with pytest.raises(ValueError, match="export of the model_fn 'logistic_model_fn'.*model_fns"):
        cn.load(path)
    with pytest.raises(TypeError, match="model_fns must be a dict"):
        cn.load(path, model_fns=[logistic_model_fn])
    predictor = cn.load(path, model_fns={"logistic_model_fn": logistic_model_fn})
    got = predictor.predict(rows)
    est_rows = est.predict(rows, verbose=0)
    np.testing.assert_allclose(got["probabilities"], est_rows["probabilities"], rtol=1e-6)
    assert predictor.params["learning_rate"] == 0.05
    assert predictor.params["columns"][2].name == "color_indicator"


def test_export_refuses_params_it_cannot_save_naming_the_key(tmp_path):
    est = make(tmp_path)
    est.model.params["callback"] = len  # not print: ray.init replaces builtins.print
    est.train(lambda: (features(), Y), steps=1, verbose=0)
    with pytest.raises(ValueError, match=r"params\['callback'\] cannot be saved.*builtin_function"):
        est.export_saved_model(str(tmp_path / "exports"))


def test_export_before_training_and_a_mismatched_model_fn_are_refused(tmp_path):
    est = make(tmp_path)
    with pytest.raises(ValueError, match="Couldn't find trained model"):
        est.export_saved_model(str(tmp_path / "exports"))
    est.train(lambda: (features(), Y), steps=1, verbose=0)
    path = est.export_saved_model(str(tmp_path / "exports"))

    def wider(features, mode, params):
        net = fc.input_layer(features, params["columns"])
        logits = cn.layers.dense(cn.layers.dense(net, 8), 1)
        return EstimatorSpec(mode, predictions={"logits": logits})

    predictor = cn.load(path, model_fns={"logistic_model_fn": wider})
    with pytest.raises(ValueError, match=r"shapes \(made, stored\).*dense/kernel"):
        predictor.predict(pd.DataFrame({"x1": X[:3, 0], "x2": X[:3, 1]}))
