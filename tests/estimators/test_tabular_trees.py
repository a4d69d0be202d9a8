"""The tree member of the zero-configuration models: its blend in the label's units
against LightGBM's own prediction of the saved model, its determinism with the seed, a
blend weight of 0 where the trees lose, and the fits that get no tree member."""

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.estimators.tabular import defaults as tabular_defaults
from colonnade.estimators.tabular import ensemble as tabular_ensemble
from colonnade.estimators.tabular import tree_blend, tree_member
from colonnade.feature_columns.trees import tree_inputs

lgb = pytest.importorskip("lightgbm")


@pytest.fixture(autouse=True)
def small(monkeypatch):
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 2)
    monkeypatch.setattr(tabular_defaults, "MIN_EPOCHS_NOISY", 1)
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8,))
    monkeypatch.setattr(tabular_ensemble, "MAX_MEMBERS", 1)
    monkeypatch.setattr(tree_member, "MAX_ROUNDS", 300)


def steps(n=400, seed=0):
    """A label that is a step function of two coordinates and a category: trees' shape."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "lat": rng.uniform(-1, 1, n),
            "lon": rng.uniform(-1, 1, n),
            "k": rng.choice(list("abcdefgh"), n),
        }
    )
    df.loc[rng.random(n) < 0.1, "lat"] = np.nan
    inside = (df["lat"].fillna(0) > 0.2) & (df["lon"] < -0.1)
    df["y"] = 10.0 * inside + 3.0 * df["k"].isin(["a", "c"]) + rng.normal(0, 0.3, n)
    return df


def lightgbm_predictions(model, rows):
    """What LightGBM itself predicts from the saved file, in the label's units."""
    (member,) = model.tree_members_
    column = member["column"]
    codes = []
    for key, kind, vocabulary in column.inputs:
        values = rows[key].tolist()
        if kind == "category":
            values = [vocabulary.index(v) if v in vocabulary else np.nan for v in values]
        codes.append(np.array(values, np.float64))
    raw = lgb.Booster(model_file=column.trees_file).predict(np.stack(codes, 1), raw_score=True)
    mean, std = model.columns_.label_mean, model.columns_.label_std
    return mean + std * raw


def test_a_regressor_of_trees_alone_predicts_as_lightgbm(tmp_path, monkeypatch):
    monkeypatch.setattr(tree_blend, "TREE_WEIGHTS", (1.0,))
    df = steps()
    model = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path), seed=0).fit(df)
    assert model.tree_weight_ == 1.0
    rows = steps(30, seed=1).drop(columns="y")
    rows.loc[0, "k"] = "never seen"
    expected = lightgbm_predictions(model, rows)
    np.testing.assert_allclose(model.predict(rows)["predictions"], expected, rtol=1e-5, atol=1e-4)
    export = model.export_saved_model(str(tmp_path / "export"))
    loaded = cn.load(export).predict(rows)["predictions"]
    np.testing.assert_allclose(loaded, expected, rtol=1e-5, atol=1e-4)
    assert "trees: 1 LightGBM member(s)" in model.describe()
    assert "blend weight 1 (the wide&deep model's 0)" in model.describe()
    # the export's own copy of the trees is what serving reads, checked as hostile
    (copied,) = [p for p in os.listdir(os.path.join(export, "assets")) if p.endswith(".txt")]
    path = os.path.join(export, "assets", copied)
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("left_child=", "left_child=99999 ", 1))
    with pytest.raises(cn.estimators.ExportError, match=copied):
        cn.load(export)
    meta_path = os.path.join(export, "model.json")
    with open(meta_path) as f:
        meta = f.read()
    with open(meta_path, "w") as f:
        f.write(meta.replace(f"assets/{copied}", "../../outside.txt"))
    with pytest.raises(cn.estimators.ExportError, match="trees_file"):
        cn.load(export)


def test_the_same_seed_gives_the_same_trees(tmp_path):
    df = steps()
    texts, weights = [], []
    for run in range(2):
        where = tmp_path / str(run)
        model = cn.estimators.TabularRegressor("y", model_dir=str(where), seed=3).fit(df)
        with open(model.tree_members_[0]["column"].trees_file) as f:
            texts.append(f.read().split("parameters:")[0])
        weights.append(model.tree_weight_)
    assert texts[0] == texts[1] and weights[0] == weights[1]
    assert weights[0] > 0  # the trees fit a step the wide&deep model of 2 epochs cannot


def test_trees_that_lose_get_weight_zero_and_the_model_stays_as_it_was(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=400)})
    df["y"] = 3.0 * df["x"] + rng.normal(0, 0.1, 400)  # a line: trees only approximate it
    model = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path), seed=0).fit(df)
    assert model.tree_weight_ == 0.0 and len(model.tree_members_) == 1
    assert not any("gbdt" in name for name in model.estimator_.get_weights())
    assert "blend weight 0: not used" in model.describe()
    (note,) = [n for n in model.columns_.notes if n.startswith("a gradient-boosted tree member")]
    assert "blended with weight 0" in note


def test_streamed_data_and_the_switch_get_no_tree_member(tmp_path, monkeypatch):
    df = steps(300)
    path = tmp_path / "train.parquet"
    df.to_parquet(path)
    model = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path / "m"), seed=0)
    model.fit(str(path))
    assert model.tree_members_ == [] and model.tree_weight_ == 0.0
    assert "no tree member: the data is streamed" in model.describe(verbose=True)
    monkeypatch.setattr(tree_member, "ENABLED", False)
    off = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path / "o"), seed=0).fit(df)
    assert off.tree_members_ == [] and "trees:" not in off.describe()


def test_a_multiclass_blend_is_exact_in_one_model(tmp_path, monkeypatch):
    monkeypatch.setattr(tree_blend, "TREE_WEIGHTS", (0.5,))
    rng = np.random.default_rng(0)
    n = 450
    df = pd.DataFrame({"x": rng.normal(size=n), "k": rng.choice(list("abc"), n)})
    df["y"] = np.where(df["x"] > 0.5, "hi", np.where(df["k"] == "a", "a", "other"))
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0).fit(df)
    rows = df.head(20).drop(columns="y")
    column = model.tree_members_[0]["column"]
    trees = column.model.raw_scores(tree_inputs(pa.Table.from_pandas(rows), column.inputs))
    nn = model.members_[0]["estimator"].predict(rows, verbose=0)
    nn_logits = np.stack([nn[f"logits_{i}"] for i in range(3)], 1)
    logits = 0.5 * nn_logits + 0.5 * trees
    expected = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(rows), expected, atol=1e-5)
