"""The estimator contract of issue #7: each model and head learns a problem made for it
(to a stated accuracy or RMSE), seeds reproduce metrics, resuming equals an uninterrupted
run, warm start follows a changed vocabulary, and bad input is refused by name before it
trains anything.

Every problem is generated here with a known answer, so the expectations do not come
from the code under test. Train and test rows are drawn separately.
"""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colonnade as cn

fc = cn.feature_columns
E = cn.estimators


def config(seed=1, **kw):
    return E.RunConfig(tf_random_seed=seed, log_step_count_steps=0, **kw)


def accuracy(est, frame, label="y"):
    return est.evaluate(frame, label=label, batch_size=1024)["accuracy"]


def rmse(est, frame, label="y"):
    return est.evaluate(frame, label=label, batch_size=1024)["rmse"]


# ---------------------------------------------------------------- generated problems

DISC_R2 = 0.6  # a disc of radius sqrt(0.6) covers ~47% of [-1, 1]^2


def xor_frame(n, seed):
    """y = (a == "p") XOR (b == "u"): only a cross of a and b can express it linearly."""
    rng = np.random.default_rng(seed)
    a, b = rng.choice(["p", "q"], n), rng.choice(["u", "v"], n)
    return pd.DataFrame({"a": a, "b": b, "y": ((a == "p") ^ (b == "u")).astype(int)})


def disc_frame(n, seed):
    """y = x1^2 + x2^2 < r^2: a disc, which no half-plane approximates."""
    rng = np.random.default_rng(seed)
    x1, x2 = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    return pd.DataFrame({"x1": x1, "x2": x2, "y": (x1**2 + x2**2 < DISC_R2).astype(int)})


def xor_and_disc_frame(n, seed):
    """y = xor(a, b) AND inside the disc: the cross gives one half, the disc the other.

    About 23% of rows are positive. Each half alone sees P(y=1) <= 0.5 everywhere, so it can
    do no better than the majority class (~0.77); the sum of a linear logit over the cross
    and a DNN logit over (x1, x2), plus a bias, expresses AND exactly.
    """
    cat, num = xor_frame(n, seed), disc_frame(n, seed + 1000)
    return pd.DataFrame({"a": cat.a, "b": cat.b, "x1": num.x1, "x2": num.x2, "y": cat.y & num.y})


def xor_columns(cross=True):
    a = fc.categorical_column_with_vocabulary_list("a", ["p", "q"])
    b = fc.categorical_column_with_vocabulary_list("b", ["u", "v"])
    return [a, b] + ([fc.crossed_column([a, b], hash_bucket_size=16)] if cross else [])


def disc_columns():
    return [fc.numeric_column("x1"), fc.numeric_column("x2")]


# ---------------------------------------------------------------- learnability


def test_linear_learns_a_categorical_xor_to_95_percent_only_with_the_cross():
    train, test = xor_frame(1000, 0), xor_frame(1000, 1)
    scores = {}
    for cross in (True, False):
        est = E.LinearClassifier(xor_columns(cross), config=config())
        est.fit(train, label="y", epochs=3, batch_size=64)
        scores[cross] = accuracy(est, test)
    assert scores[True] >= 0.95
    assert scores[False] <= 0.7  # no sum of per-feature weights separates an XOR


def test_dnn_learns_a_disc_to_90_percent_where_linear_stays_under_75():
    train, test = disc_frame(1500, 0), disc_frame(1000, 1)
    dnn = E.DNNClassifier(
        [16, 16], disc_columns(), optimizer=cn.train.AdamOptimizer(0.02), config=config()
    )
    dnn.fit(train, label="y", epochs=10, batch_size=32)
    linear = E.LinearClassifier(disc_columns(), config=config())
    linear.fit(train, label="y", epochs=10, batch_size=32)
    assert accuracy(dnn, test) >= 0.9
    assert accuracy(linear, test) <= 0.75


def test_wide_and_deep_learns_cross_and_disc_to_95_percent_each_part_only_the_majority():
    train, test = xor_and_disc_frame(2000, 0), xor_and_disc_frame(1000, 1)
    wide, deep = xor_columns(), disc_columns()

    def combined(linear_columns, dnn_columns):
        return E.DNNLinearCombinedClassifier(
            linear_feature_columns=linear_columns,
            linear_optimizer=cn.train.FtrlOptimizer(0.3),
            dnn_feature_columns=dnn_columns,
            dnn_hidden_units=[16, 16] if dnn_columns else None,
            dnn_optimizer=cn.train.AdamOptimizer(0.02),
            config=config(),
        )

    scores = {}
    for name, est in [
        ("both", combined(wide, deep)),
        ("wide", combined(wide, None)),
        ("deep", combined(None, deep)),
    ]:
        est.fit(train, label="y", epochs=8, batch_size=32)
        scores[name] = accuracy(est, test)
    assert scores["both"] >= 0.95, scores
    majority = max(test["y"].mean(), 1 - test["y"].mean())
    assert scores["wide"] <= majority + 0.03 and scores["deep"] <= majority + 0.03, scores


def test_multiclass_heads_with_a_label_vocabulary_reach_90_percent():
    def frame(n, seed):
        # class = argmax(x1, x2, -x1 - x2): three linear scores, i.e. a softmax-linear problem
        rng = np.random.default_rng(seed)
        x = rng.normal(size=(n, 2))
        scores = np.stack([x[:, 0], x[:, 1], -x[:, 0] - x[:, 1]], axis=1)
        names = np.array(["red", "green", "blue"])[scores.argmax(axis=1)]
        return pd.DataFrame({"x1": x[:, 0], "x2": x[:, 1], "color": names})

    train, test = frame(1500, 0), frame(1000, 1)
    vocab = ["blue", "green", "red"]  # not the generator's order: the vocabulary decides ids
    linear = E.LinearClassifier(
        disc_columns(), n_classes=3, label_vocabulary=vocab, config=config()
    )
    linear.fit(train, label="color", epochs=5, batch_size=32)
    dnn = E.DNNClassifier(
        [16],
        disc_columns(),
        n_classes=3,
        label_vocabulary=vocab,
        optimizer=cn.train.AdamOptimizer(0.02),
        config=config(),
    )
    dnn.fit(train, label="color", epochs=5, batch_size=32)
    for est in (linear, dnn):
        assert accuracy(est, test, "color") >= 0.9
        predicted = est.predict(test.head(200))["classes"].to_numpy()
        assert np.mean(predicted == test["color"].head(200).to_numpy()) >= 0.9


def regression_frame(n, seed, fn):
    rng = np.random.default_rng(seed)
    x1, x2 = rng.uniform(-1.5, 1.5, n), rng.uniform(-1.5, 1.5, n)
    g = rng.choice(["k", "m", "z"], n)
    y = fn(x1, x2, g) + rng.normal(scale=0.05, size=n)
    return pd.DataFrame({"x1": x1, "x2": x2, "g": g, "y": y})


def linear_fn(x1, x2, g):
    return 2 * x1 - 3 * x2 + 1


def nonlinear_fn(x1, x2, g):
    return x1**2 + np.sin(2 * x2)


def group_plus_nonlinear_fn(x1, x2, g):
    offset = np.select([g == "k", g == "m"], [1.5, -1.0], 0.0)
    return offset + x1**2


def group_columns():
    return [fc.categorical_column_with_vocabulary_list("g", ["k", "m", "z"])]


@pytest.mark.parametrize(
    "fn, make, max_rmse",
    [
        (
            linear_fn,
            lambda: E.LinearRegressor(
                disc_columns(), optimizer=cn.train.AdamOptimizer(0.05), config=config()
            ),
            0.1,
        ),
        (
            nonlinear_fn,
            lambda: E.DNNRegressor(
                [32, 32], disc_columns(), optimizer=cn.train.AdamOptimizer(0.01), config=config()
            ),
            0.15,
        ),
        (
            group_plus_nonlinear_fn,
            lambda: E.DNNLinearCombinedRegressor(
                linear_feature_columns=group_columns(),
                linear_optimizer=cn.train.AdamOptimizer(0.05),
                dnn_feature_columns=[fc.numeric_column("x1")],
                dnn_hidden_units=[32],
                dnn_optimizer=cn.train.AdamOptimizer(0.01),
                config=config(),
            ),
            0.1,
        ),
    ],
    ids=["linear_rmse_0.1", "dnn_rmse_0.15", "wide_deep_rmse_0.1"],
)
def test_regressors_fit_their_function_to_a_stated_rmse(fn, make, max_rmse):
    train, test = regression_frame(1500, 0, fn), regression_frame(1000, 1, fn)
    est = make()
    est.fit(train, label="y", epochs=10, batch_size=32)
    assert rmse(est, test) <= max_rmse


def test_linear_regressor_cannot_fit_the_nonlinear_function():
    # the counterpart of dnn_rmse_0.15: a straight plane misses x1^2 + sin(2 x2) by > 0.4
    train, test = regression_frame(1500, 0, nonlinear_fn), regression_frame(1000, 1, nonlinear_fn)
    est = E.LinearRegressor(disc_columns(), optimizer=cn.train.AdamOptimizer(0.05), config=config())
    est.fit(train, label="y", epochs=10, batch_size=32)
    assert rmse(est, test) >= 0.4


def test_up_weighting_one_region_flips_the_decision_there_only():
    # Region "k": 60% label 0, 40% label 1. Region "m": 80% label 1. Weighting the label-1
    # rows of "k" by 3 makes them 1.2 against 0.6: the weighted MLE P(y=1 | k) is 2/3.
    n = 600
    region = np.repeat(["k", "m"], n // 2)
    y = np.concatenate([np.arange(n // 2) % 5 < 2, np.arange(n // 2) % 5 < 4]).astype(int)
    frame = pd.DataFrame({"region": region, "y": y})
    frame["w"] = np.where((region == "k") & (y == 1), 3.0, 1.0)
    columns = [fc.categorical_column_with_vocabulary_list("region", ["k", "m"])]
    probe = pd.DataFrame({"region": ["k", "m"]})

    def fitted(weight_column):
        est = E.LinearClassifier(
            columns,
            weight_column=weight_column,
            optimizer=cn.train.AdamOptimizer(0.05),
            config=config(),
        )
        est.fit(frame, label="y", epochs=10, batch_size=32)
        return est.predict(probe)

    plain, weighted = fitted(None), fitted("w")
    assert plain["class_ids"].tolist() == [0, 1]
    assert weighted["class_ids"].tolist() == [1, 1]
    np.testing.assert_allclose(plain["logistic"], [0.4, 0.8], atol=0.05)
    np.testing.assert_allclose(weighted["logistic"], [2 / 3, 0.8], atol=0.05)


# ---------------------------------------------------------------- reproducibility


def mixed_frame(n, seed):
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    color = rng.choice(["red", "green", "blue"], n)
    y = ((x1 * x2 > 0) ^ (color == "red")).astype(int)
    return pd.DataFrame({"x1": x1, "x2": x2, "color": color, "y": y})


def color_column(vocab=("red", "green", "blue"), num_oov_buckets=0):
    return fc.categorical_column_with_vocabulary_list(
        "color", list(vocab), num_oov_buckets=num_oov_buckets
    )


FAMILIES = {
    "linear": lambda cfg: E.LinearClassifier(
        [fc.numeric_column("x1"), fc.numeric_column("x2"), color_column()], config=cfg
    ),
    "dnn": lambda cfg: E.DNNClassifier(
        [8, 8],
        [fc.numeric_column("x1"), fc.numeric_column("x2"), fc.embedding_column(color_column(), 2)],
        dropout=0.3,
        optimizer="Adam",
        config=cfg,
    ),
    "wide_deep": lambda cfg: E.DNNLinearCombinedClassifier(
        linear_feature_columns=[color_column(), fc.numeric_column("x1")],
        dnn_feature_columns=[fc.numeric_column("x1"), fc.numeric_column("x2")],
        dnn_hidden_units=[8],
        dnn_dropout=0.2,
        config=cfg,
    ),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_same_seed_gives_identical_metrics_and_another_seed_does_not(family, tmp_path):
    train, test = mixed_frame(256, 0), mixed_frame(256, 1)

    def metrics(seed, sub):
        est = FAMILIES[family](config(seed=seed, model_dir=str(tmp_path / sub)))
        est.fit(train, label="y", epochs=2, batch_size=32)  # shuffled by the seed too
        return est.evaluate(test, label="y")

    first, second, other = metrics(7, "a"), metrics(7, "b"), metrics(8, "c")
    assert first == second  # exactly, every key
    assert first["global_step"] == other["global_step"] == 16
    assert first["average_loss"] != other["average_loss"]


def checkpoint_tensors(model_dir):
    path = cn.train.latest_checkpoint(str(model_dir))
    names = [name for name, _ in cn.train.list_variables(path) if name != "save_counter"]
    return {name: cn.train.load_variable(path, name) for name in names}  # not how often saved


@pytest.mark.parametrize(
    "make",
    [
        lambda cfg: FAMILIES["dnn"](cfg),  # dropout 0.3 and Adam
        lambda cfg: E.DNNLinearCombinedClassifier(
            linear_feature_columns=[color_column(), fc.numeric_column("x1")],
            linear_optimizer="Ftrl",
            dnn_feature_columns=[fc.numeric_column("x1"), fc.numeric_column("x2")],
            dnn_optimizer="Adagrad",
            dnn_hidden_units=[8],
            dnn_dropout=0.2,
            config=cfg,
        ),
    ],
    ids=["dnn_dropout_adam", "wide_deep_ftrl_adagrad"],
)
def test_resume_from_model_dir_equals_an_uninterrupted_run(make, tmp_path):
    K, B = 5, 32
    ds = cn.data.Dataset.from_pandas(mixed_frame(K * B, 0), label="y").batch(B)

    whole = make(config(seed=3, model_dir=str(tmp_path / "whole")))
    whole.train(lambda: ds.repeat(), steps=2 * K)

    first = make(config(seed=3, model_dir=str(tmp_path / "split")))
    first.train(lambda: ds.repeat(), steps=K)
    assert first.global_step == K
    resumed = make(config(seed=3, model_dir=str(tmp_path / "split")))  # a new object
    resumed.train(lambda: ds.repeat(), steps=K)

    assert whole.global_step == resumed.global_step == 2 * K
    a, b = whole.get_weights(), resumed.get_weights()
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    # the whole checkpoint (optimizer slots and global step included) matches too
    saved_whole = checkpoint_tensors(tmp_path / "whole")
    saved_split = checkpoint_tensors(tmp_path / "split")
    assert saved_whole.keys() == saved_split.keys()
    for name in saved_whole:
        np.testing.assert_array_equal(saved_whole[name], saved_split[name], err_msg=name)
    assert int(saved_split["global_step"]) == 2 * K


# ---------------------------------------------------------------- warm start

OLD_VOCAB, NEW_VOCAB = ["red", "green", "blue"], ["blue", "purple", "red"]


def old_and_warm_started(make, variable, tmp_path):
    """A model trained on OLD_VOCAB, and a new one on NEW_VOCAB warm-started from it with
    ``variable`` remapped by a VocabInfo (the warm start happens at its first restore)."""
    old = make(color_column(OLD_VOCAB), config(model_dir=str(tmp_path / "old")), None)
    old.fit(mixed_frame(300, 0), label="y", epochs=2)
    info = E.VocabInfo(
        new_vocab=NEW_VOCAB, new_vocab_size=3, num_oov_buckets=1, old_vocab=OLD_VOCAB
    )
    ws = E.WarmStartSettings(
        str(tmp_path / "old"), var_name_to_vocab_info={variable: info}, vars_to_warm_start=".*"
    )
    new = make(
        color_column(NEW_VOCAB, num_oov_buckets=1),
        config(seed=2, model_dir=str(tmp_path / "new")),
        ws,
    )
    return old, new


@pytest.mark.parametrize(
    "make, variable",
    [
        (
            lambda color, cfg, ws: E.LinearClassifier(
                [color, fc.numeric_column("x1")], config=cfg, warm_start_from=ws
            ),
            "linear/linear_model/color/weights",
        ),
        (
            lambda color, cfg, ws: E.DNNClassifier(
                [4],
                [fc.embedding_column(color, 3), fc.numeric_column("x1")],
                config=cfg,
                warm_start_from=ws,
            ),
            "dnn/input_from_feature_columns/input_layer/color_embedding/embedding_weights",
        ),
    ],
    ids=["linear", "dnn_embedding"],
)
def test_warm_start_with_a_changed_vocabulary_keeps_the_moved_rows(make, variable, tmp_path):
    old, new = old_and_warm_started(make, variable, tmp_path)
    old_rows = old.get_variable_value(variable)
    assert old_rows.shape[0] == 3 and np.all(old_rows != 0)
    probe = pd.DataFrame({"x1": [0.5, 0.5, 0.5], "color": ["red", "blue", "green"]})
    predictions = new.predict(probe)  # warm start happens at the first restore
    rows = new.get_weights()[variable]  # no checkpoint yet: get_variable_value raises, as TF
    assert rows.shape[0] == 4
    np.testing.assert_array_equal(rows[0], old_rows[2])  # "blue" moved from row 2 to 0
    np.testing.assert_array_equal(rows[2], old_rows[0])  # "red" moved from row 0 to 2
    np.testing.assert_array_equal(rows[1], 0)  # "purple" is new: TF's zeros backup
    np.testing.assert_array_equal(rows[3], 0)  # the OOV bucket
    for name in old.get_variable_names():  # every other model variable is copied as is
        if name != variable and name != "global_step" and not name.startswith("training/"):
            np.testing.assert_array_equal(new.get_weights()[name], old.get_variable_value(name))
    # tokens in both vocabularies score as before; "green" is now out of vocabulary
    before = old.predict(probe)["logits"].to_numpy()
    after = predictions["logits"].to_numpy()
    np.testing.assert_allclose(after[:2], before[:2], rtol=1e-6)
    assert not np.isclose(after[2], before[2])


# ---------------------------------------------------------------- bad input


def small_frame(n=64, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "x1": rng.normal(size=n),
            "x2": rng.normal(size=n),
            "color": rng.choice(OLD_VOCAB, n),
            "y": rng.integers(0, 2, n),
            "w": 1.0,
        }
    )


def linear_binary(**kw):
    return E.LinearClassifier([fc.numeric_column("x1"), color_column()], config=config(), **kw)


def dnn_multiclass(**kw):
    return E.DNNClassifier(
        [4], [fc.numeric_column("x1"), fc.numeric_column("x2")], n_classes=3, config=config(), **kw
    )


def regressor(**kw):
    return E.LinearRegressor([fc.numeric_column("x1")], config=config(), **kw)


BAD_LABELS = [
    # (estimator, frame change, exception, message)
    (dnn_multiclass, {"y": [0, 1, 2, 3] * 16}, ValueError, r"class ids in \[0, 2\].* to 3"),
    (dnn_multiclass, {"y": [-1, 0, 1, 2] * 16}, ValueError, r"class ids in \[0, 2\].*from -1"),
    (linear_binary, {"y": [-1, 0] * 32}, ValueError, r"class ids in \[0, 1\].*from -1"),
    (dnn_multiclass, {"y": ["lo", "mid", "hi", "mid"] * 16}, TypeError, "label_vocabulary"),
    (
        lambda: dnn_multiclass(label_vocabulary=["lo", "mid", "hi"]),
        {"y": ["lo", "mid", "high", "mid"] * 16},
        ValueError,
        r"\['high'\] are not in label_vocabulary \['lo', 'mid', 'hi'\]",
    ),
    (linear_binary, {"y": [0.0, np.nan] * 32}, ValueError, r"labels have \d+ NaN .*missing label"),
    (regressor, {"y": [0.5, np.nan] * 32}, ValueError, r"regression labels have \d+ NaN"),
    (regressor, {"y": ["a", "b"] * 32}, TypeError, "regression labels must be numbers"),
    (
        lambda: regressor(label_dimension=2),
        {},
        ValueError,
        "labels have 1 values per example but label_dimension is 2",
    ),
    (
        lambda: linear_binary(weight_column="w"),
        {"w": [1.0, np.nan] * 32},
        ValueError,
        r"weights \(weight_column\) have \d+ NaN",
    ),
]


@pytest.mark.parametrize(
    "make, change, error, message",
    BAD_LABELS,
    ids=[
        "multiclass_label_too_big",
        "multiclass_label_negative",
        "binary_label_negative",
        "string_labels_without_vocabulary",
        "label_not_in_vocabulary",
        "nan_class_label",
        "nan_regression_label",
        "string_regression_label",
        "regression_label_dimension",
        "nan_weight",
    ],
)
def test_bad_labels_and_weights_are_refused_before_any_step(make, change, error, message):
    est = make()
    initial = est.get_weights()
    bad = small_frame().assign(**change)
    with pytest.raises(error, match=message):
        est.fit(bad, label="y", batch_size=16)
    assert est.global_step == 0
    for name, value in est.get_weights().items():
        np.testing.assert_array_equal(value, initial[name], err_msg=name)
    with pytest.raises(error, match=message):
        est.evaluate(bad, label="y")


def test_a_missing_label_or_weight_column_is_named_with_the_columns_present():
    frame = small_frame()
    with pytest.raises(KeyError, match=r"label column 'nope' not found.*'x1', 'x2', 'color'"):
        linear_binary().fit(frame, label="nope")
    with pytest.raises(KeyError, match=r"label column 'nope' not found"):
        linear_binary().evaluate(frame, label="nope")
    est = linear_binary(weight_column="weight")
    with pytest.raises(KeyError, match=r"'weight' not found.*'x1', 'x2', 'color', 'w'"):
        est.fit(frame, label="y")
    with pytest.raises(KeyError, match=r"'weight' not found"):
        est.evaluate(frame, label="y")
    assert est.global_step == 0


def test_a_feature_column_whose_key_is_absent_names_the_key_and_the_columns():
    frame = small_frame()
    message = r"feature 'age' not found .*the data has columns \['color', 'w', 'x1', 'x2'\]"
    for columns in (
        [fc.numeric_column("age")],
        [fc.bucketized_column(fc.numeric_column("age"), [30.0])],
        [fc.categorical_column_with_hash_bucket("age", 10)],
    ):
        est = E.LinearClassifier(columns + [fc.numeric_column("x1")], config=config())
        with pytest.raises(KeyError, match=message):
            est.fit(frame, label="y")
        assert est.global_step == 0
    dnn = E.DNNClassifier([4], [fc.numeric_column("age")], config=config())
    with pytest.raises(KeyError, match=message):
        dnn.predict(frame.drop(columns="y"))


@pytest.mark.parametrize(
    "make",
    [
        lambda: E.LinearClassifier([fc.numeric_column("x1")], config=config()),
        lambda: E.DNNClassifier([4], [fc.numeric_column("x1")], config=config()),
        lambda: E.LinearClassifier(
            [fc.bucketized_column(fc.numeric_column("x1"), [0.0])], config=config()
        ),
    ],
    ids=["linear", "dnn", "bucketized"],
)
def test_nan_features_without_default_are_refused_before_any_step(make):
    frame = small_frame()
    frame.loc[3, "x1"] = np.nan  # pandas NaN: an Arrow null
    est = make()
    initial = est.get_weights()
    with pytest.raises(ValueError, match="'x1' has 1 null values .*no default_value"):
        est.fit(frame, label="y", batch_size=16)
    assert est.global_step == 0
    for name, value in est.get_weights().items():
        np.testing.assert_array_equal(value, initial[name], err_msg=name)
    # a NaN that is a float value, not a null, is refused the same way
    table = pa.table({"x1": np.array([0.5, np.nan, 1.0]), "y": [0, 1, 0]})
    with pytest.raises(ValueError, match="'x1' has 1 NaN values .*no default_value"):
        est.fit(table, label="y")
    with pytest.raises(ValueError, match="no default_value"):
        est.evaluate(frame, label="y")
    with pytest.raises(ValueError, match="no default_value"):
        est.predict(frame)
    assert est.global_step == 0


def test_nan_in_a_later_batch_stops_training_before_that_batch(tmp_path):
    frame = small_frame()  # 4 batches of 16; batch 3 holds the NaN
    frame.loc[40, "x1"] = np.nan
    columns = [fc.numeric_column("x1"), color_column()]
    est = E.LinearClassifier(columns, config=config(model_dir=str(tmp_path / "a")))
    with pytest.raises(ValueError, match="no default_value"):
        est.train(cn.data.Dataset.from_pandas(frame, label="y").batch(16))
    assert est.global_step == 2
    clean = E.LinearClassifier(columns, config=config(model_dir=str(tmp_path / "b")))
    clean.train(cn.data.Dataset.from_pandas(frame.head(32), label="y").batch(16))
    a, b = est.get_weights(), clean.get_weights()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_an_empty_dataset_is_refused():
    empty = small_frame().iloc[:0]
    est = linear_binary()
    with pytest.raises(ValueError, match="training got no batches.*empty"):
        est.fit(empty, label="y")
    assert est.global_step == 0
    with pytest.raises(ValueError, match="training got no batches.*empty"):
        est.train(cn.data.Dataset.from_pandas(empty, label="y").batch(8), steps=5)
    with pytest.raises(ValueError, match="evaluation got no batches"):
        est.evaluate(empty, label="y")
    assert est.global_step == 0


@pytest.mark.parametrize(
    "make, variable",
    [
        (
            lambda color, cfg, ws: E.LinearClassifier(
                [color, fc.bucketized_column(fc.numeric_column("x1"), [0.0, 1.0])],
                config=cfg,
                warm_start_from=ws,
            ),
            "linear/linear_model/color/weights",
        ),
        (
            lambda color, cfg, ws: E.DNNClassifier(
                [4],
                [
                    fc.embedding_column(color, 3),
                    fc.embedding_column(fc.bucketized_column(fc.numeric_column("x1"), [0.0]), 3),
                ],
                config=cfg,
                warm_start_from=ws,
            ),
            "dnn/input_from_feature_columns/input_layer/color_embedding/embedding_weights",
        ),
    ],
    ids=["linear_fused", "dnn_fused"],
)
def test_warm_start_reaches_tables_trained_as_one_fused_table(make, variable, tmp_path):
    """Columns whose tables are fused: the warm-started rows must be what the model
    computes with, so red and blue (moved rows) predict exactly as in the old model."""
    old, new = old_and_warm_started(make, variable, tmp_path)
    probe = pd.DataFrame({"x1": [0.5, -0.5], "color": ["red", "blue"]})
    np.testing.assert_allclose(
        new.predict(probe)["logits"].tolist(), old.predict(probe)["logits"].tolist(), rtol=1e-6
    )
