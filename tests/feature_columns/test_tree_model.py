"""colonnade's numpy evaluator of LightGBM's text model format against LightGBM's own
``predict(raw_score=True)`` (the independent reference), on random data with nulls and
categories the training never saw; and malformed model files refused by name."""

import numpy as np
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.feature_columns.tree_model import (
    MAX_DEPTH,
    TreeModelError,
    parse_tree_model,
)
from colonnade.feature_columns.trees import tree_ensemble_column, tree_inputs

lgb = pytest.importorskip("lightgbm")


def data(n, seed):
    rng = np.random.default_rng(seed)
    x = np.column_stack(
        [rng.normal(size=n), rng.integers(0, 30, n).astype(float), rng.normal(size=n)]
    )
    x[rng.random(n) < 0.15, 0] = np.nan
    x[rng.random(n) < 0.15, 1] = np.nan
    return x, rng


def booster(objective, seed=0, **params):
    x, rng = data(600, seed)
    signal = np.nan_to_num(x[:, 0]) + (np.nan_to_num(x[:, 1]) % 4 == 1) + np.isnan(x[:, 1])
    y = {
        "binary": (signal > 0.5).astype(int),
        "multiclass": (signal > 0.5).astype(int) + (x[:, 2] > 0),
        "regression": signal + x[:, 2],
    }[objective]
    params = dict(objective=objective, verbosity=-1, num_leaves=15, min_data_per_group=5, **params)
    if objective == "multiclass":
        params["num_class"] = 3
    dataset = lgb.Dataset(x, y, categorical_feature=[1])
    return lgb.train(dict(params, deterministic=True, num_threads=1), dataset, 20)


def probe(seed=5, n=400):
    x, rng = data(n, seed)
    x[:, 1] = rng.integers(-3, 45, n)  # negative and unseen category codes
    x[rng.random(n) < 0.2, 1] = np.nan
    x[:10, 0] = 0.0
    return x


@pytest.mark.parametrize("objective", ["binary", "multiclass", "regression"])
@pytest.mark.parametrize("missing", [True, False])
def test_raw_scores_are_lightgbms(objective, missing):
    model = booster(objective, use_missing=missing, zero_as_missing=not missing)
    ours = parse_tree_model(model.model_to_string(), "model.txt")
    x = probe()
    expected = model.predict(x, raw_score=True).reshape(len(x), -1)
    np.testing.assert_allclose(ours.raw_scores(x), expected, rtol=1e-12, atol=1e-12)
    assert ours.n_outputs == expected.shape[1]


def test_a_single_leaf_tree_and_the_best_iteration_only():
    x, _ = data(50, 1)
    single = lgb.train(
        {"objective": "regression", "verbosity": -1, "min_data_in_leaf": 100},
        lgb.Dataset(x, np.ones(50)),
        3,
    )
    ours = parse_tree_model(single.model_to_string(), "m")
    np.testing.assert_allclose(
        ours.raw_scores(probe()), single.predict(probe(), raw_score=True)[:, None]
    )
    model = booster("binary")
    ours = parse_tree_model(model.model_to_string(num_iteration=7), "m")
    expected = model.predict(probe(), raw_score=True, num_iteration=7)
    np.testing.assert_allclose(ours.raw_scores(probe())[:, 0], expected, rtol=1e-12, atol=1e-12)


def test_the_column_reads_raw_inputs_as_trained(tmp_path):
    rng = np.random.default_rng(3)
    n = 500
    k = rng.choice(["a", "b", "c", "d"], n)
    x = rng.normal(size=n).astype(np.float32)
    y = (x > 0) ^ (k == "b")
    inputs = (("x", "number", None), ("k", "category", ("a", "b", "c", "d")))
    table = pa.table({"x": pa.array(x), "k": pa.array(k)})
    values = tree_inputs(table, inputs)
    model = lgb.train(
        {"objective": "binary", "verbosity": -1, "min_data_per_group": 5},
        lgb.Dataset(values, y.astype(int), categorical_feature=[1]),
        10,
    )
    path = tmp_path / "trees.txt"
    path.write_text(model.model_to_string())
    column = tree_ensemble_column("gbdt", str(path), inputs)
    rows = {"x": [0.5, None, -0.5, 1.0], "k": ["b", "a", None, "never seen"]}
    got = cn.feature_columns.transform_features(rows, [column])["gbdt"]
    codes = np.array([[0.5, 1], [np.nan, 0], [-0.5, np.nan], [1.0, np.nan]])
    expected = model.predict(codes, raw_score=True)
    np.testing.assert_allclose(got[:, 0], expected, rtol=1e-6)
    rebuilt = cn.feature_columns.from_config([column.to_config()])[0]
    assert rebuilt == column and rebuilt.dimension == 1


# ------------------------------------------------------------------ malformed files

TEXT = "\n".join(
    [
        "tree",
        "version=v4",
        "num_class=1",
        "num_tree_per_iteration=1",
        "max_feature_idx=1",
        "feature_names=a b",
        "",
        "Tree=0",
        "num_leaves=3",
        "num_cat=0",
        "split_feature=0 1",
        "threshold=0.5 1.5",
        "decision_type=2 2",
        "left_child=1 -1",
        "right_child=-2 -3",
        "leaf_value=1 2 3",
        "",
        "end of trees",
    ]
)


def test_the_hand_made_tree_predicts_as_drawn():
    model = parse_tree_model(TEXT, "m")
    x = np.array([[0.0, 0.0], [0.0, 2.0], [1.0, 0.0], [np.nan, 2.0]])
    # root: a <= 0.5 left to node 1 (b <= 1.5: leaf 0, else leaf 2), else leaf 1
    assert model.raw_scores(x)[:, 0].tolist() == [1.0, 3.0, 2.0, 3.0]


@pytest.mark.parametrize(
    "old, new, words",
    [
        ("left_child=1 -1", "left_child=7 -1", "outside the tree"),
        ("left_child=1 -1", "left_child=-9 -1", "outside the tree"),
        ("left_child=1 -1", "left_child=0 -1", "child of two splits"),
        ("left_child=1 -1", "left_child=-1 -1", "no split reaches"),
        ("right_child=-2 -3", "right_child=-1 -3", "child of two splits"),
        ("split_feature=0 1", "split_feature=0 5", "split_feature"),
        ("leaf_value=1 2 3", "leaf_value=1 2", "expected 3 values"),
        ("leaf_value=1 2 3", "leaf_value=1 2 inf", "not finite"),
        ("num_leaves=3", "num_leaves=99999999999", "num_leaves"),
        ("num_leaves=3", "num_leaves=x", "expected an integer"),
        ("threshold=0.5 1.5", "threshold=0.5 abc", "not numbers"),
        ("num_tree_per_iteration=1", "num_tree_per_iteration=2", "num_tree_per_iteration"),
        ("decision_type=2 2", "decision_type=3 2", "categorical split outside num_cat"),
        ("num_cat=0", "num_cat=1\ncat_boundaries=0 99999999\ncat_threshold=1", "cat_"),
        ("tree\n", "nothing\n", "not a LightGBM text model"),
    ],
)
def test_a_malformed_file_is_refused_by_name(old, new, words):
    assert old in TEXT
    with pytest.raises(TreeModelError, match="m.txt") as err:
        parse_tree_model(TEXT.replace(old, new, 1), "m.txt")
    assert words in str(err.value)


def test_a_tree_deeper_than_the_bound_is_refused():
    inner = MAX_DEPTH + 1
    left = " ".join(str(i + 1) if i + 1 < inner else "-1" for i in range(inner))
    right = " ".join(str(-(i + 2)) for i in range(inner))
    text = TEXT.replace("num_leaves=3", f"num_leaves={inner + 1}")
    text = text.replace("split_feature=0 1", "split_feature=" + " ".join(["0"] * inner))
    text = text.replace("threshold=0.5 1.5", "threshold=" + " ".join(["0"] * inner))
    text = text.replace("decision_type=2 2", "decision_type=" + " ".join(["2"] * inner))
    text = text.replace("left_child=1 -1", f"left_child={left}")
    text = text.replace("right_child=-2 -3", f"right_child={right}")
    text = text.replace("leaf_value=1 2 3", "leaf_value=" + " ".join(["1"] * (inner + 1)))
    with pytest.raises(TreeModelError, match="deeper than"):
        parse_tree_model(text, "m")


def test_random_corruptions_give_a_clear_error_or_a_valid_model():
    model = booster("multiclass")
    text = model.model_to_string()
    rng = np.random.default_rng(0)
    x = probe(n=20)
    for _ in range(60):
        chars = list(text)
        for i in rng.integers(0, len(chars), 3):
            chars[i] = str(rng.choice(list("0123456789-= \n.eA")))
        try:
            parsed = parse_tree_model("".join(chars), "m")
        except TreeModelError as e:
            assert str(e).startswith("m")
            continue
        assert np.isfinite(parsed.raw_scores(np.resize(x, (20, parsed.n_features)))).all()


def test_a_column_whose_file_is_not_the_model_refuses(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(TEXT)
    with pytest.raises(TreeModelError, match="2 features, the column names 1"):
        tree_ensemble_column("g", str(path), [("a", "number", None)])
    with pytest.raises(ValueError, match="kind must be one of"):
        tree_ensemble_column("g", str(path), [("a", "text", None), ("b", "number", None)])
    with pytest.raises(ValueError, match="needs a vocabulary"):
        tree_ensemble_column("g", str(path), [("a", "category", None), ("b", "number", None)])
    path.write_bytes(b"\xff\xfe tree")
    with pytest.raises(TreeModelError, match="not UTF-8"):
        tree_ensemble_column("g", str(path), [("a", "number", None), ("b", "number", None)])
