"""The linear model the zero-configuration models solve first (estimators/tabular_linear.py),
checked against scikit-learn's solvers on the same design and against hand-built designs."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.estimators.tabular import blend as tabular_blend
from colonnade.estimators.tabular import defaults as tabular_defaults
from colonnade.estimators.tabular import linear as tabular_linear
from colonnade.estimators.tabular.linear import design, gram, solve_logistic, solve_squared

sklearn_linear = pytest.importorskip("sklearn.linear_model")


def _numbers(n=300, width=4, seed=0):
    rng = np.random.default_rng(seed)
    return (
        rng.normal(size=(n, width)) * [1.0, 2.0, 0.5, 3.0][:width] + [0.0, 1.0, -2.0, 5.0][:width]
    )


def _logits(x, w, mean):
    return np.hstack([x - mean, np.full((len(x), 1), tabular_linear.BIAS_SCALE)]) @ w


def test_ridge_matches_scikit_learn():
    x = _numbers()
    y = x @ [0.5, -1.0, 2.0, 0.1] + np.random.default_rng(1).normal(size=len(x))
    lam = 0.3
    s, v, mean = gram(x)
    w = solve_squared(s, v, mean, x, y[:, None], lam)
    # sklearn's Ridge minimizes ||y - Xw - b||^2 + alpha ||w||^2: our mean loss + lam ||w||^2
    # is the same problem at alpha = lam * n (the bias unpenalized, ours nearly so)
    ref = sklearn_linear.Ridge(alpha=lam * len(x)).fit(x, y)
    np.testing.assert_allclose(_logits(x, w, mean)[:, 0], ref.predict(x), atol=1e-5)


@pytest.mark.parametrize("classes", [2, 3])
def test_logistic_and_softmax_match_scikit_learn(classes):
    x = _numbers(400)
    rng = np.random.default_rng(2)
    scores = x @ rng.normal(size=(4, classes)) + rng.gumbel(size=(len(x), classes))
    labels = scores.argmax(1)
    lam = 0.01
    s, v, mean = gram(x)
    targets = (labels == 1)[:, None] * 1.0 if classes == 2 else np.eye(classes)[labels]
    start = np.zeros((5, targets.shape[1]))
    w = solve_logistic(s, v, mean, x, targets, lam, start)
    # sklearn: C * sum(loss) + ||w||^2 / 2 = n C (mean loss + ||w||^2 / (2 n C)): C = 1/(lam n)
    ref = sklearn_linear.LogisticRegression(C=1.0 / (lam * len(x)), tol=1e-10, max_iter=10_000)
    ref.fit(x, labels)
    logits = _logits(x, w, mean)
    if classes == 2:
        ours = 1.0 / (1.0 + np.exp(-logits[:, 0]))
        np.testing.assert_allclose(ours, ref.predict_proba(x)[:, 1], atol=2e-4)
    else:
        ours = np.exp(logits - logits.max(1, keepdims=True))
        ours /= ours.sum(1, keepdims=True)
        np.testing.assert_allclose(ours, ref.predict_proba(x), atol=2e-4)


def test_the_design_holds_one_column_per_id_in_use_and_per_number():
    fc = cn.feature_columns
    columns = [
        fc.categorical_column_with_vocabulary_list("k", ["a", "b", "c"], num_oov_buckets=1),
        fc.numeric_column("x"),
    ]
    train = pa.table({"k": ["b", "a", "b", "zz"], "x": [1.5, -2.0, 0.0, 4.0]})
    x, layout = design(train, columns)
    # ids in use: a=0, b=1, the OOV bucket 3 ("zz"); "c" (2) never appears
    assert layout == [("k", 0, 4), ("k", 1, 4), ("k", 3, 4), ("x", 0, 1)]
    expected = [[0, 1, 0, 1.5], [1, 0, 0, -2.0], [0, 1, 0, 0.0], [0, 0, 1, 4.0]]
    np.testing.assert_array_equal(x, expected)
    valid, _ = design(pa.table({"k": ["c", "a"], "x": [1.0, 2.0]}), columns, layout)
    np.testing.assert_array_equal(valid, [[0, 0, 0, 1.0], [1, 0, 0, 2.0]])  # "c": no column


def test_variables_put_each_weight_in_its_slot_and_fold_the_centring_into_the_bias():
    fc = cn.feature_columns
    columns = [fc.categorical_column_with_vocabulary_list("k", ["a", "b", "c"])]
    layout = [("k", 0, 3), ("k", 2, 3)]
    w = np.array([[1.0], [2.0], [0.01]])
    mean = np.array([0.25, 0.5])
    out = tabular_linear._variables(w, mean, layout, columns)
    np.testing.assert_allclose(out["linear/linear_model/k/weights"][:, 0], [1.0, 0.0, 2.0])
    # logits = (x - mean) . w + BIAS_SCALE * w_bias = x . w + (10 - 0.25 - 1.0)
    np.testing.assert_allclose(out["linear/linear_model/bias_weights"], [10 - 0.25 - 1.0])


def _linear_table(n, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n)})
    df["y"] = ((df["x"] - 0.5 * df["z"] + rng.logistic(size=n) * 0.7) > 0).astype(int)
    return df


def test_a_linear_table_keeps_the_linear_model_solved_to_convergence(tmp_path, monkeypatch):
    """The blend's weight 0 is the linear model solved first, refit on every row: the same
    predictions as scikit-learn's logistic regression with the chosen penalty on the
    same features (before, weight 0 was the wide part of an early-stopped joint run)."""
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 2)
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8,))
    monkeypatch.setattr(tabular_blend, "BLEND_WEIGHTS", (0.0,))
    monkeypatch.setattr(tabular_linear, "PENALTIES", (1.0,))
    df = _linear_table(600, 0)
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0).fit(df)
    notes = "\n".join(model.columns_.notes)
    assert "a linear model of the wide columns solved first" in notes
    assert "solved again on the training and validation rows" in notes
    chosen = [c for c in model.columns_.linear]
    if "(no buckets or crosses," in notes:
        chosen = tabular_linear.plain_columns(chosen)
    x, _ = design(pa.Table.from_pandas(df), chosen)
    ref = sklearn_linear.LogisticRegression(C=1.0, tol=1e-10, max_iter=10_000).fit(x, df["y"])
    got = np.asarray(model.predict(df.drop(columns=["y"]))["logistic"], float).reshape(-1)
    np.testing.assert_allclose(got, ref.predict_proba(x)[:, 1], atol=1e-3)


def test_the_deep_part_trains_on_the_fixed_linear_logits(tmp_path, monkeypatch):
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 2)
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8,))
    monkeypatch.setattr(tabular_blend, "BLEND_WEIGHTS", ())
    df, valid = _linear_table(400, 0), _linear_table(300, 1)
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    model.fit(df, validation_data=valid)
    rates = {name: opt.learning_rate for name, opt, _ in model.estimator_.train_state.parts}
    assert rates["linear_optimizer"] == 0.0 and rates["dnn_optimizer"] > 0
    assert "held fixed" in "\n".join(model.columns_.notes)


def test_too_wide_a_design_trains_no_linear_model_first_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 2)
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8,))
    monkeypatch.setattr(tabular_linear, "MAX_WIDTH", 1)
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    model.fit(_linear_table(400, 0))
    assert "no linear model trained first" in "\n".join(model.columns_.notes)
    rates = {name: opt.learning_rate for name, opt, _ in model.estimator_.train_state.parts}
    assert rates["linear_optimizer"] > 0  # the joint wide&deep training of before


def test_a_job_config_trains_the_wide_part_it_cannot_solve_first(tmp_path, monkeypatch):
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 2)
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8,))
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    model.fit(_linear_table(400, 0))
    assert model.settings_["linear_optimizer"] == tabular_defaults.FROZEN_LINEAR_OPTIMIZER
    job = model.job_config()
    assert job["model"]["linear_optimizer"] == {
        "name": tabular_defaults.LINEAR_OPTIMIZER,
        "learning_rate": tabular_defaults.LINEAR_LEARNING_RATE,
        "l1_regularization_strength": tabular_defaults.LINEAR_L1,
    }


def test_leave_one_out_errors_match_refitting_without_each_row():
    x = _numbers(40, 3)
    y = (x @ [1.0, 0.5, -1.0] + np.random.default_rng(3).normal(size=len(x)))[:, None]
    lam = 0.2
    s, v, mean = gram(x)
    w = solve_squared(s, v, mean, x, y, lam)
    z = np.hstack([x - mean, np.full((len(x), 1), tabular_linear.BIAS_SCALE)])
    got = tabular_linear.leave_one_out_errors((z @ v) ** 2, s, z @ w - y, lam)
    # the same penalty (n lam ||w||^2 on the summed loss), refit 40 times without a row
    expected = 0.0
    for i in range(len(x)):
        rest = np.arange(len(x)) != i
        a = z[rest].T @ z[rest] + len(x) * lam * np.eye(z.shape[1])
        wi = np.linalg.solve(a, z[rest].T @ y[rest])
        expected += float((z[i] @ wi - y[i])[0] ** 2)
    assert got == pytest.approx(expected, rel=1e-8)


def test_a_validation_label_outside_the_classes_gets_the_heads_error(tmp_path, monkeypatch):
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 1)
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8,))
    df, valid = _linear_table(300, 0), _linear_table(300, 1)
    valid.loc[0, "y"] = 7  # no such class: not an IndexError of the linear solver
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    with pytest.raises(ValueError, match=r"class ids in \[0, 1\]; got values from 0 to 7"):
        model.fit(df, validation_data=valid)


def test_large_designs_are_sampled_and_not_refit(monkeypatch):
    fc = cn.feature_columns
    columns = [fc.numeric_column("x"), fc.numeric_column("z")]
    train, valid = _linear_table(500, 0), _linear_table(400, 1)
    tables = [pa.Table.from_pandas(t[["x", "z"]]) for t in (train, valid)]
    labels = (train["y"].to_numpy(), valid["y"].to_numpy(), 2)
    monkeypatch.setattr(tabular_linear, "MAX_CELLS", 600)  # 300 rows of 2 numbers each
    weights, note, refit = tabular_linear.linear_first(*tables, columns, labels, seed=0)
    assert "300 rows" in note  # the 500 training rows sampled down
    assert refit() is None  # 300 + 300 rows would exceed the cells
    monkeypatch.setattr(tabular_linear, "MAX_CELLS", 10_000)
    _, note, refit = tabular_linear.linear_first(*tables, columns, labels, seed=0)
    assert "500 rows" in note and set(refit()) == set(weights)


def test_ridge_penalty_is_chosen_by_leave_one_out_over_every_row_as_ridge_cv_does():
    """One column set (numbers only): the penalty with the lowest exact leave-one-out
    error over the training and validation rows together, the choice scikit-learn's
    RidgeCV makes by its own leave-one-out on the same design (alpha = penalty)."""
    rng = np.random.default_rng(4)
    n, width = 120, 6
    x = rng.normal(size=(n, width))
    y = x @ rng.normal(size=width) * 0.3 + rng.normal(size=n)
    names = [f"x{i}" for i in range(width)]
    table = pa.table({name: x[:, i] for i, name in enumerate(names)})
    columns = [cn.feature_columns.numeric_column(name) for name in names]
    train, valid = table.slice(0, 90), table.slice(90)
    _, note, _ = tabular_linear.linear_first(
        train, valid, columns, (y[:90], y[90:], "regression"), seed=0
    )
    ref = sklearn_linear.RidgeCV(alphas=tabular_linear.PENALTIES).fit(x, y)
    assert f"L2 penalty {ref.alpha_:g}/n" in note
    assert f"leave-one-out over {n} rows" in note


def test_cross_validated_logistic_losses_match_refitting_scikit_learn_on_each_fold():
    x = _numbers(200, 3)
    rng = np.random.default_rng(5)
    labels = (x @ [0.8, -0.5, 0.3] + rng.logistic(size=len(x)) > 0).astype(int)
    targets = labels[:, None] * 1.0
    folds = rng.permutation(len(x)) % 4
    got = tabular_linear._held_out(x, targets, False, folds)
    for penalty in (0.1, 10.0):
        expected = np.zeros(len(x))
        for fold in range(4):
            out = folds == fold
            fitted = int((~out).sum())
            # mean loss + lam/2 ||w||^2 with lam = penalty / n: sklearn's C = 1 / penalty
            ref = sklearn_linear.LogisticRegression(C=1.0 / penalty, tol=1e-10, max_iter=10_000)
            ref.fit(x[~out], labels[~out])
            p = ref.predict_proba(x[out])[np.arange(out.sum()), labels[out]]
            expected[out] = -np.log(p)
            assert fitted > 0
        np.testing.assert_allclose(got[penalty], expected, atol=1e-3)


def _step_table(n, seed, step):
    """A label linear in x (``step`` False) or a step of |x| (True), plus a noise column."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n)})
    signal = (np.abs(df["x"]) > 1.0) * 3.0 - 1.5 if step else df["x"] * 1.5
    df["y"] = (signal + rng.logistic(size=n) > 0).astype(int)
    return df


@pytest.mark.parametrize("step", [False, True])
def test_the_plain_columns_are_kept_unless_the_buckets_win_clearly(step):
    """A label linear in x: the plain numbers (the buckets' extra weights cannot win by two
    standard errors); a step of |x|, which no linear term fits: the buckets."""
    df = _step_table(1200, 0, step)
    plan = cn.feature_columns.infer(df, "y")
    table = pa.Table.from_pandas(df)
    train, valid = table.slice(0, 900), table.slice(900)
    labels = (df["y"].to_numpy()[:900], df["y"].to_numpy()[900:], 2)
    _, note, _ = tabular_linear.linear_first(train, valid, list(plan.linear), labels, seed=0)
    chosen = note.split("(")[1].split(",")[0]
    assert chosen == ("every wide column" if step else "no buckets or crosses")
    assert f"{tabular_linear.CV_FOLDS}-fold cross-validation over 1200 rows" in note
    assert f"more than {tabular_linear.PLAIN_PREFERENCE_SE:g} standard errors" in note


def test_choose_prefers_the_plain_set_within_the_noise():
    rng = np.random.default_rng(6)
    plain = rng.exponential(size=400)
    noise = rng.normal(size=400)
    se = noise.std() / np.sqrt(400)
    every, plain_name = tabular_linear.COLUMN_SETS
    for gain, expected in ((1.0 * se, plain_name), (3.0 * se, every)):
        # every wide column lower by `gain` on average, the rows' differences `noise`
        lower = plain - (noise - noise.mean()) - gain
        losses = {every: {1.0: lower}, plain_name: {1.0: plain, 10.0: plain + 1.0}}
        assert tabular_linear._choose(losses)[:2] == (expected, 1.0)


def test_a_log1p_number_is_also_in_the_wide_part_as_the_standard_scalers():
    """A skewed number is log1p'd for the deep part; the wide part also holds it as it is,
    standardized: its design column equals scikit-learn's StandardScaler (plus the bin's
    1/2), a value beyond the training range reads as the range's end, and the plain
    column set keeps it in place of the log."""
    preprocessing = pytest.importorskip("sklearn.preprocessing")
    rng = np.random.default_rng(7)
    df = pd.DataFrame({"amount": rng.lognormal(0.0, 1.5, size=500)})
    df["y"] = (df["amount"] + rng.normal(size=500) > 2).astype(int)
    plan = cn.feature_columns.infer(df, "y")
    (as_is,) = [c for c in plan.linear if c.name == "amount_piecewise_linear"]
    x, _ = design(pa.Table.from_pandas(df[["amount"]]), [as_is])
    expected = preprocessing.StandardScaler().fit_transform(df[["amount"]].to_numpy())
    np.testing.assert_allclose(x - 0.5, expected, rtol=1e-4, atol=1e-5)
    far, _ = design(pa.table({"amount": [df["amount"].max() * 10]}), [as_is])
    np.testing.assert_allclose(far - 0.5, expected.max(), rtol=1e-5)
    plain = [c.name for c in tabular_linear.plain_columns(plan.linear)]
    assert plain == ["amount_piecewise_linear"]
    assert "amount" in [c.name for c in plan.linear]  # the log1p'd number: every wide column
    assert "the linear baseline's StandardScaler" in plan.describe()


def test_describe_names_the_linear_rules(tmp_path, monkeypatch):
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 2)
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8,))
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"x": rng.lognormal(size=400), "k": rng.choice(["a", "b"], 400)})
    df["y"] = 3.0 * df["x"] + (df["k"] == "a") + rng.normal(size=400)
    model = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path), seed=0).fit(df)
    described = model.columns_.describe()
    assert "leave-one-out over 400 rows" in described
    assert f"more than {tabular_linear.PLAIN_PREFERENCE_SE:g} standard errors" in described
    assert f"more than {tabular_blend.BLEND_PREFERENCE_SE:g} standard errors" in described or (
        "weighted 0 (" in described
    )
    assert "the linear baseline's StandardScaler" in described


def test_every_column_set_is_held_out_the_same_way(monkeypatch):
    """The plain set within the cross-validation budget and every wide column beyond it:
    both are measured on the validation rows, so their rows' losses pair up (they were
    once measured differently, and the paired difference failed on shapes)."""
    df = _step_table(1200, 0, True)
    plan = cn.feature_columns.infer(df, "y")
    table = pa.Table.from_pandas(df)
    monkeypatch.setattr(tabular_linear, "CV_MAX_WORK", 1200 * 10)  # the plain set's 2 numbers
    labels = (df["y"].to_numpy()[:900], df["y"].to_numpy()[900:], 2)
    _, note, _ = tabular_linear.linear_first(
        table.slice(0, 900), table.slice(900), list(plan.linear), labels, seed=0
    )
    assert "(300 validation rows)" in note
