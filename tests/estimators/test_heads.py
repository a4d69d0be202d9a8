"""The heads against TF 2.15's (golden values from ``golden/make_head_goldens.py``), plain
numpy replays of their formulas, and the canned estimators rebuilt as a model_fn."""

import json
import math
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn
from colonnade.estimators.canned.from_config import estimator_from_config

E = cn.estimators
GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden", "heads.json")))
FACTORIES = {
    "BinaryClassHead": E.binary_classification_head,
    "MultiClassHead": E.multi_class_head,
    "MultiLabelHead": E.multi_label_head,
    "RegressionHead": lambda **kw: E.regression_head(**kw),
    "PoissonRegressionHead": E.poisson_regression_head,
    "LogisticRegressionHead": E.logistic_regression_head,
}
# colonnade's regression heads also report rmse; every AUC is exact (TF's approximates).
EXTRA_KEYS = ("rmse",)


def _case_inputs(case):
    kwargs = {k: v for k, v in case["head"].items() if k != "class"}
    head = FACTORIES[case["head"]["class"]](**kwargs)
    logits = np.array(case["logits"], np.float32)
    labels = np.array(case["labels"])
    features = {} if case["weights"] is None else {"w": np.array(case["weights"], np.float32)}
    return head, logits, labels, features


@pytest.mark.parametrize("case", GOLDEN["heads"], ids=[c["name"] for c in GOLDEN["heads"]])
def test_head_matches_tf(case):
    head, logits, labels, features = _case_inputs(case)
    loss = head.loss(labels, cn.core.Variable(logits), features=features)
    assert float(loss) == pytest.approx(case["loss"], rel=1e-6)
    predictions = head.predictions(logits)
    assert list(predictions) == list(case["predictions"])
    for key, expected in case["predictions"].items():
        got = predictions[key]
        if got.dtype == object:
            assert got.astype(str).tolist() == expected
        else:
            np.testing.assert_allclose(got, np.array(expected), rtol=1e-6, atol=1e-7)
    metrics = head.update_metrics(head.metrics(), features, logits, labels)
    ours = {k: v.result() for k, v in metrics.items() if "auc" not in k}
    ours = {k: v for k, v in ours.items() if k.split("/")[0] not in EXTRA_KEYS}
    assert set(ours) == set(case["metrics"])
    for key, expected in case["metrics"].items():
        assert ours[key] == pytest.approx(expected, rel=1e-5, abs=1e-7), key


def _weighted_auc(labels, scores, weights):
    """ROC AUC as the weighted Mann-Whitney statistic: the chance a positive outscores a
    negative, ties counting half."""
    pos, neg = labels > 0.5, labels <= 0.5
    wins = (scores[pos][:, None] > scores[neg][None, :]) + 0.5 * (
        scores[pos][:, None] == scores[neg][None, :]
    )
    pair_w = weights[pos][:, None] * weights[neg][None, :]
    return float((wins * pair_w).sum() / pair_w.sum())


def test_binary_and_multi_label_auc_on_scores_apart_is_the_mann_whitney_area():
    """TF's 200 thresholds separate every pair of these scores, so the heads' AUC is the
    exact (Mann-Whitney) area; test_tf_auc.py checks the thresholds themselves against TF."""
    case = next(c for c in GOLDEN["heads"] if c["name"] == "binary")
    head, logits, labels, features = _case_inputs(case)
    metrics = head.update_metrics(head.metrics(), features, logits, labels)
    p = 1 / (1 + np.exp(-logits[:, 0]))
    w = features["w"][:, 0]
    assert metrics["auc"].result() == pytest.approx(_weighted_auc(labels[:, 0], p, w))

    case = next(c for c in GOLDEN["heads"] if c["name"] == "multi_label")
    head, logits, labels, features = _case_inputs(case)
    metrics = head.update_metrics(head.metrics(), features, logits, labels)
    p = 1 / (1 + np.exp(-logits))
    w = np.repeat(features["w"][:, 0], 3)
    flat = _weighted_auc(labels.reshape(-1), p.reshape(-1), w)
    assert metrics["auc"].result() == pytest.approx(flat)
    w2 = features["w"][:, 0]
    assert metrics["auc/class2"].result() == pytest.approx(_weighted_auc(labels[:, 2], p[:, 2], w2))


def test_tf1_reduction_names_match_tf():
    g = GOLDEN["reductions"]
    losses, weights = np.array(g["losses"], np.float32), np.array(g["weights"], np.float32)
    for name, expected in g["reduced"].items():
        got = cn.core.compute_weighted_loss(losses, weights, reduction=name)
        assert float(got.value) == pytest.approx(expected, rel=1e-6), name
    assert set(g["reduced"]) == set(cn.core.Reduction.TF1_NAMES)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("weighted_sum", "sum"),
        ("sum", "sum"),
        ("weighted_mean", "mean"),
        ("sum_over_batch_size", "sum_over_batch_size"),
        ("weighted_sum_over_batch_size", "sum_over_batch_size"),
        ("weighted_sum_by_nonzero_weights", "sum_by_nonzero_weights"),
    ],
)
def test_canned_estimators_and_heads_take_tf1_reduction_names(tmp_path, name, expected):
    x = cn.feature_columns.numeric_column("x")
    assert (
        E.LinearClassifier([x], tmp_path / "a", loss_reduction=name).head.loss_reduction == expected
    )
    assert (
        E.DNNRegressor([4], [x], tmp_path / "b", loss_reduction=name).head.loss_reduction
        == expected
    )
    assert E.binary_classification_head(loss_reduction=name).loss_reduction == expected
    config = {
        "type": "LinearClassifier",
        "model_dir": str(tmp_path / "c"),
        "feature_columns": [{"type": "numeric_column", "key": "x"}],
        "loss_reduction": name,
    }
    assert estimator_from_config(config).head.loss_reduction == expected


def test_unknown_reduction_lists_the_accepted_names(tmp_path):
    x = cn.feature_columns.numeric_column("x")
    with pytest.raises(ValueError, match="weighted_sum_by_nonzero_weights.*got 'average'"):
        E.LinearClassifier([x], tmp_path, loss_reduction="average")
    with pytest.raises(ValueError, match="loss_reduction must be one of .*got 'none'"):
        E.regression_head(loss_reduction="none")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-30, 30), st.integers(0, 1), st.sampled_from([0.0, 0.5, 1.0, 3.0])),
        min_size=1,
        max_size=20,
    ),
    st.sampled_from(list(cn.core.Reduction.TF1_NAMES) + ["sum", "sum_over_batch_size"]),
)
def test_binary_loss_is_the_weighted_reduced_sigmoid_cross_entropy(rows, reduction):
    logits = np.array([[r[0]] for r in rows], np.float32)
    labels = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows], np.float64)
    head = E.binary_classification_head(weight_column="w", loss_reduction=reduction)
    got = float(head.loss(labels, logits, features={"w": w.astype(np.float32)}))
    z, y = logits[:, 0].astype(np.float64), labels.astype(np.float64)
    per = np.logaddexp(0, z) - z * y  # -y log s(z) - (1 - y) log(1 - s(z))
    total = float((per * w).sum())
    divisor = {
        "weighted_sum": 1.0,
        "sum": 1.0,
        "weighted_mean": w.sum(),
        "weighted_sum_over_batch_size": len(rows),
        "sum_over_batch_size": len(rows),
        "weighted_sum_by_nonzero_weights": (w != 0).sum(),
    }[reduction]
    expected = total / divisor if divisor else 0.0
    assert got == pytest.approx(expected, rel=1e-5, abs=1e-5)


# ---------------------------------------------------------------- multi-label labels


def test_multi_label_accepts_class_lists_arrow_lists_and_names():
    head = E.multi_label_head(3)
    dense = np.array([[1, 0, 1], [0, 0, 0], [0, 1, 0]])
    expected = dense.astype(np.float32)
    np.testing.assert_array_equal(head.label_array(dense), expected)
    np.testing.assert_array_equal(head.label_array([[0, 2], [], [1]]), expected)
    np.testing.assert_array_equal(head.label_array(pa.array([[2, 0], [], [1]])), expected)
    named = E.multi_label_head(3, label_vocabulary=["a", "b", "c"])
    np.testing.assert_array_equal(named.label_array([["a", "c"], [], ["b"]]), expected)


@pytest.mark.parametrize(
    "labels, message",
    [
        ([[0, 3], [1]], r"values in \[0, 3\): multi-label class ids go from 0 to 3"),
        (np.array([[1, 0], [0, 1]]), r"shape \(batch, 3\), got \(2, 2\)"),
        (np.array([[2, 0, 0]]), "must be 0 or 1"),
        ([["a"], ["b"]], "integer ids"),
    ],
)
def test_multi_label_bad_labels_are_named(labels, message):
    with pytest.raises(ValueError, match=message):
        E.multi_label_head(3).label_array(labels)


def test_multi_label_unknown_vocabulary_name_is_named():
    with pytest.raises(ValueError, match=r"\['z'\] are not in label_vocabulary"):
        E.multi_label_head(2, label_vocabulary=["a", "b"]).label_array([["a"], ["z"]])


def test_head_argument_errors():
    with pytest.raises(ValueError, match=r"thresholds not in \(0, 1\)"):
        E.binary_classification_head(thresholds=[1.5])
    with pytest.raises(ValueError, match="n_classes must be > 2"):
        E.multi_class_head(2)
    with pytest.raises(
        ValueError, match=r"Length of label_vocabulary must be n_classes \(3\)\. Given: 2"
    ):
        E.multi_class_head(3, label_vocabulary=["a", "b"])
    with pytest.raises(ValueError, match=r"Labels must be in range \[0, 1\]"):
        E.logistic_regression_head().label_array([0.5, 1.5])
    with pytest.raises(ValueError, match="counts, >= 0"):
        E.poisson_regression_head().label_array([1.0, -1.0])
    with pytest.raises(ValueError, match=r"logits shape must be \(batch, 3\)"):
        E.multi_class_head(3).predictions(np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match=r"Prediction key must be in PredictionKeys, given: probs"):
        E.multi_class_head(3).predictions(np.zeros((2, 3), np.float32), keys=["probs"])


# ---------------------------------------------------------------- create_estimator_spec


def test_predict_spec_has_tf_export_outputs():
    logits = np.array([[0.3], [-2.0]], np.float32)
    spec = E.binary_classification_head().create_estimator_spec({}, "infer", logits)
    assert set(spec.export_outputs) == {
        "serving_default",
        "classification",
        "regression",
        "predict",
    }
    np.testing.assert_allclose(
        spec.export_outputs["regression"].value, spec.predictions["logistic"]
    )
    assert spec.export_outputs["serving_default"].outputs["classes"].tolist() == [["0", "1"]] * 2
    spec = E.regression_head().create_estimator_spec({}, "infer", logits)
    assert set(spec.export_outputs) == {"serving_default", "regression", "predict"}


def test_train_spec_minimizes_the_recorded_loss():
    """One SGD step through the head equals the analytic gradient of the mean sigmoid
    cross-entropy of a linear model."""
    x = np.array([[1.0, 2.0], [0.5, -1.0], [-1.5, 0.3]], np.float32)
    y = np.array([1, 0, 1])
    w0 = np.array([[0.2], [-0.1]], np.float32)
    w = cn.core.Variable(w0.copy())
    head = E.binary_classification_head()
    logits = cn.core.matmul(x, w)
    spec = head.create_estimator_spec(
        {},
        "train",
        logits,
        y,
        optimizer=cn.train.GradientDescentOptimizer(0.5),
        trainable_variables=[w],
    )
    p = 1 / (1 + np.exp(-(x @ w0)[:, 0]))
    grad = x.T @ (p - y)[:, None] / len(y)
    np.testing.assert_allclose(w.numpy(), w0 - 0.5 * grad, rtol=1e-6)
    expected_loss = np.mean(np.logaddexp(0, (x @ w0)[:, 0]) - (x @ w0)[:, 0] * y)
    assert float(spec.loss) == pytest.approx(expected_loss, rel=1e-6)
    assert spec.predictions["class_ids"].shape == (3, 1)  # computed when read


def test_train_spec_with_train_op_fn_and_regularization():
    seen, op = [], object()  # a train_op is an op or tensor, not a string (TF's check)
    logits = cn.core.Variable(np.array([[0.5], [1.0]], np.float32))
    reg = cn.core.Variable(np.float32(0.25))
    spec = E.regression_head().create_estimator_spec(
        {},
        "train",
        logits,
        np.array([1.0, 0.0]),
        train_op_fn=lambda loss: seen.append(float(loss)) or op,
        regularization_losses=[reg],
    )
    assert spec.train_op is op
    assert seen == [pytest.approx((0.25 + 1.0) / 2 + 0.25)]
    eval_spec = E.regression_head().create_estimator_spec(
        {}, "eval", logits, np.array([1.0, 0.0]), regularization_losses=[reg]
    )
    assert eval_spec.eval_metric_ops["regularization_loss"].result() == 0.25


def test_train_spec_needs_an_optimizer_or_a_train_op_fn_and_labels():
    logits = cn.core.Variable(np.zeros((2, 1), np.float32))
    head = E.binary_classification_head()
    with pytest.raises(ValueError, match="needs an optimizer or a train_op_fn"):
        head.create_estimator_spec({}, "train", logits, np.array([0, 1]))
    with pytest.raises(ValueError, match=r"You must provide a labels Tensor\. Given: None\."):
        head.create_estimator_spec({}, "eval", logits)


def test_loss_fn_replaces_the_loss_and_its_shape_is_checked():
    def absolute(labels, logits):
        return cn.core.abs(cn.core.subtract(logits, labels))

    head = E.regression_head(loss_fn=absolute)
    loss = head.loss(np.array([1.0, 3.0]), np.array([[0.0], [1.0]], np.float32))
    assert float(loss) == pytest.approx(1.5)
    bad = E.regression_head(loss_fn=lambda labels, logits: cn.core.sum(logits))
    with pytest.raises(
        ValueError, match=r"loss_fn '<lambda>' must return .* \(2, 1\).*loss_shape: \(\)"
    ):
        bad.loss(np.array([1.0, 3.0]), np.array([[0.0], [1.0]], np.float32))


# ---------------------------------------------------------------- canned == model_fn + head


def _predict(est, frame, key):
    """``key`` of ``est``'s TF-style predictions of ``frame``, as one array."""
    batches = est.predict(
        cn.data.Dataset.from_pandas(frame).batch(64), yield_single_examples=False, verbose=0
    )
    return np.concatenate([b[key] for b in batches])


def _frame(n=64, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5, 1.5]) > 0).astype(int)
    if classes == 3:
        y = y + (x[:, 0] > 1.0)
    return pd.DataFrame({"x": list(x), "y": y})


@pytest.mark.parametrize("n_classes", [2, 3])
def test_model_fn_rebuilding_a_canned_dnn_predicts_the_same(tmp_path, n_classes):
    """The equivalence bar: a model_fn with the same columns, layers, initial values,
    head and optimizer as a canned DNNClassifier trains to the same predictions."""
    column = cn.feature_columns.numeric_column("x", shape=(4,))
    frame = _frame(classes=n_classes)
    canned = E.DNNClassifier(
        [8, 5],
        [column],
        tmp_path / "canned",
        n_classes=n_classes,
        optimizer={"name": "Adagrad", "learning_rate": 0.2},
        config=E.RunConfig(tf_random_seed=3),
    )
    init = canned.get_weights()

    def model_fn(features, labels, mode):
        net = cn.feature_columns.input_layer(features, [column])
        for i in range(2):
            net = cn.layers.dense(
                net,
                [8, 5][i],
                activation=cn.nn.relu,
                kernel_initializer=init[f"dnn/hiddenlayer_{i}/kernel"],
                name=f"dnn/hiddenlayer_{i}",
            )
        logits = cn.layers.dense(
            net,
            n_classes if n_classes > 2 else 1,
            kernel_initializer=init["dnn/logits/kernel"],
            name="dnn/logits",
        )
        head = E.multi_class_head(n_classes) if n_classes > 2 else E.binary_classification_head()
        return head.create_estimator_spec(
            features, mode, logits, labels, optimizer=cn.train.AdagradOptimizer(0.2)
        )

    custom = E.Estimator(model_fn, tmp_path / "custom")
    batches = lambda: cn.data.Dataset.from_pandas(frame, label="y").batch(16)  # noqa: E731
    for est in (canned, custom):
        est.train(batches, steps=12, verbose=0)
    test = frame.drop(columns="y")
    got, want = _predict(custom, test, "probabilities"), _predict(canned, test, "probabilities")
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert np.abs(want - 1 / n_classes).max() > 0.05  # it learned
    c_eval, m_eval = canned.evaluate(frame, label="y"), custom.evaluate(frame, label="y")
    for key in ("loss", "accuracy", "average_loss"):
        assert m_eval[key] == pytest.approx(c_eval[key], abs=1e-6), key


def test_canned_eval_metric_ops_come_from_its_head(tmp_path):
    column = cn.feature_columns.numeric_column("x", shape=(4,))
    est = E.LinearClassifier([column], tmp_path, weight_column="w")
    frame = _frame().assign(w=np.linspace(0.5, 2.0, 64))
    est.train(cn.data.Dataset.from_pandas(frame, label="y").batch(16), verbose=0)
    results = est.evaluate(frame, label="y")
    logits = _predict(est, frame.drop(columns="y"), "logits")[:, 0]
    per = np.logaddexp(0, logits) - logits * frame["y"].to_numpy()
    w = frame["w"].to_numpy()
    assert results["average_loss"] == pytest.approx((per * w).sum() / w.sum(), rel=1e-5)
    assert results["accuracy_baseline"] == pytest.approx(
        max(np.average(frame["y"], weights=w), 1 - np.average(frame["y"], weights=w))
    )
    assert math.isfinite(results["auc"])


def test_model_fn_variable_recreated_with_another_shape_is_named(tmp_path):
    def model_fn(features, labels, mode):
        x = np.asarray(features["x"], np.float32).reshape(len(labels), -1)
        w = cn.core.get_variable("tower/w", shape=(x.shape[1], 1))
        return E.regression_head().create_estimator_spec(
            features, mode, cn.core.matmul(x, w), labels, optimizer=cn.train.AdamOptimizer()
        )

    est = E.Estimator(model_fn, tmp_path)
    y = np.zeros(4, np.float32)
    est.train(lambda: ({"x": np.ones((4, 2), np.float32)}, y), steps=1, verbose=0)
    with pytest.raises(ValueError, match=r"'tower/w' already exists with shape \(2, 1\).*\(3, 1\)"):
        est.train(lambda: ({"x": np.ones((4, 3), np.float32)}, y), steps=1, verbose=0)


def test_list_logits_are_arrays_and_ragged_ones_a_value_error():
    head = E.binary_classification_head()
    # sigmoid cross-entropy of logits 1 and 2 with labels 1 and 0, by hand
    expected = (np.log1p(np.exp(-1.0)) + np.log1p(np.exp(2.0))) / 2
    assert np.isclose(float(head.loss([[1], [0]], [[1.0], [2.0]])), expected, rtol=1e-6)
    with pytest.raises(
        ValueError, match=r"logits must be a rectangular \(batch, logits_dimension\)"
    ):
        head.loss([[1], [0]], [[1.0], [2.0, 3.0]])


def test_regression_per_value_weights_and_weight_normalizer():
    """TF's regression_head_test values: (batch, label_dimension) weights, and a
    numeric_column weight whose normalizer_fn adds 1 (loss 101.6 / 3)."""
    head = E.regression_head(weight_column="w", label_dimension=3)
    spec = head.create_estimator_spec(
        {"w": np.array([[1.0, 0.1, 1.5]])},
        "eval",
        np.array([[45.0, 41.0, 44.0]]),
        labels=np.array([[35.0, 42.0, 45.0]]),
    )
    assert np.isclose(float(spec.loss), 101.6 / 3, rtol=1e-6)
    assert np.isclose(spec.eval_metric_ops["average_loss"].result(), 101.6 / 2.6, rtol=1e-6)
    weight = cn.feature_columns.numeric_column("w", normalizer_fn=lambda x: x + 1.0)
    head = E.regression_head(weight_column=weight)
    loss = head.loss(
        np.array([[35.0], [42.0], [45.0]]),
        np.array([[45.0], [41.0], [44.0]]),
        features={"w": np.array([[0.0], [-0.9], [0.5]])},
    )
    assert np.isclose(float(loss), 101.6 / 3, rtol=1e-6)
