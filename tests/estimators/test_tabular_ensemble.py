"""The cross-fitted ensembles of TabularClassifier / TabularRegressor: the folds, the one
stacked model against a plain-numpy replay of its members, its export and describe()."""

import json
import os
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.estimators.tabular import defaults as tabular_defaults
from colonnade.estimators.tabular import ensemble as tabular_ensemble
from colonnade.estimators.tabular import models as tabular
from colonnade.estimators.tabular.ensemble import members_for, stack_members
from colonnade.estimators.tabular.split import fold_ids

fc = cn.feature_columns


@pytest.fixture
def small_members(monkeypatch):
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 3)
    monkeypatch.setattr(tabular_defaults, "MIN_EPOCHS_NOISY", 1)
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8, 4))
    monkeypatch.setattr(tabular_ensemble, "MAX_MEMBERS", 3)
    monkeypatch.setattr(tabular_ensemble, "FOLDS", 3)


def _synthetic(n=400, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "x": rng.normal(size=n),
            "k": rng.choice(list("abcdefghij"), n),
            "j": rng.choice(["p", "q"], n),
        }
    )
    df["y"] = ((df["x"] + (df["k"] < "d") + rng.normal(0, 0.5, n)) > 0.5).astype(int)
    return df


def _logits(frame) -> np.ndarray:
    return np.stack(frame["logits"].to_numpy()).reshape(len(frame), -1)


# ------------------------------------------------------------------ the folds


def test_every_labelled_row_validates_exactly_once_and_classes_are_dealt_evenly():
    y = np.array([0] * 50 + [1] * 23 + [2] * 7 + [None] * 4, dtype=object)
    table = pa.table({"y": pa.array(list(y), pa.int64())})
    ids = fold_ids(table, "y", seed=3, folds=5, stratify=True)
    assert ids[-4:].tolist() == [-1] * 4  # no label: in no fold
    assert set(ids[:-4].tolist()) == set(range(5))
    for lo, hi in ((0, 50), (50, 73), (73, 80)):  # per class: fold sizes within one
        counts = np.bincount(ids[lo:hi], minlength=5)
        assert counts.sum() == hi - lo and counts.max() - counts.min() <= 1
    again = fold_ids(table, "y", seed=3, folds=5, stratify=True)
    np.testing.assert_array_equal(ids, again)
    assert not np.array_equal(ids, fold_ids(table, "y", seed=4, folds=5, stratify=True))


def test_copies_of_a_row_fall_in_different_folds():
    table = pa.table({"x": [1.0] * 40, "y": [0.5] * 40})  # one row, 40 copies
    ids = fold_ids(table, "y", seed=0, folds=4, stratify=False)
    assert np.bincount(ids).tolist() == [10, 10, 10, 10]


def test_fewer_members_than_folds_each_train_on_all_folds_but_one():
    table = pa.table({"x": np.arange(100.0), "y": [0, 1] * 50})
    splits = tabular_ensemble.cross_fit_splits(table, "y", 2, 0, True, None)
    assert [(t.num_rows, v.num_rows) for t, v, _ in splits] == [(80, 20), (80, 20)]
    validated = [set(v.column("x").to_pylist()) for _, v, _ in splits]
    assert not validated[0] & validated[1]
    for train, valid, _ in splits:
        assert set(train.column("x").to_pylist()).isdisjoint(valid.column("x").to_pylist())


def test_members_by_table_size():
    cells, most = tabular_ensemble.ENSEMBLE_CELLS, tabular_ensemble.ENSEMBLE_MAX_ROWS
    assert members_for(200, 10) == members_for(most, cells // most // 5) == 5
    assert members_for(most, cells // most // 3) == 3  # each member costs one model's fit
    assert members_for(most, cells // most + 1) == 1


@pytest.mark.parametrize(
    "rows, width, members",
    [
        (16_704, 192, 3),  # health_insurance: 21,000,000 // 3,207,168 = 6, at most 3
        (15_142, 139, 3),  # randhie: 21,000,000 // 2,104,738 = 9, at most 3
        (32_561, 308, 2),  # adult: 21,000,000 // 10,028,788 = 2
        (40_455, 226, 2),  # diamonds: 21,000,000 // 9,142,830 = 2
        (20_000, 400, 2),  # 21,000,000 // 8,000,000 = 2
        (100_000, 150, 1),  # 15,000,000 cells: one model
        (60_000, 300, 1),  # 18,000,000 cells: one model
        (5_001, 1, 3),
    ],
)
def test_members_above_five_thousand_rows_by_hand(rows, width, members):
    assert members_for(rows, width) == members


def test_ten_folds_above_five_thousand_rows():
    assert [tabular_ensemble.folds_for(n) for n in (200, 5_000, 5_001, 100_000)] == [5, 5, 10, 10]


@pytest.mark.parametrize("stratify", [True, False])
def test_large_table_members_each_train_on_nine_tenths_and_validate_on_their_own_tenth(
    stratify,
):
    n = 6_000
    table = pa.table({"x": np.arange(float(n)), "y": [0, 1, 1] * (n // 3)})
    splits = tabular_ensemble.cross_fit_splits(table, "y", 3, 0, stratify, None)
    assert [(t.num_rows, v.num_rows, c) for t, v, c in splits] == [(5_400, 600, 600)] * 3
    validated = [set(v.column("x").to_pylist()) for _, v, _ in splits]
    assert len(validated[0] | validated[1] | validated[2]) == 1_800  # disjoint tenths
    for (train, _, _), rows in zip(splits, validated):
        assert set(train.column("x").to_pylist()) == set(range(n)) - rows


# ------------------------------------------------------------------ the stacking math


def _relu_tower(x, weights, layers):
    for i in range(layers):
        x = np.maximum(
            x @ weights[f"dnn/hiddenlayer_{i}/kernel"] + weights[f"dnn/hiddenlayer_{i}/bias"], 0
        )
    return x @ weights["dnn/logits/kernel"] + weights["dnn/logits/bias"]


def test_the_stacked_tower_is_the_members_mean_in_plain_numpy():
    rng = np.random.default_rng(0)
    k = fc.categorical_column_with_identity("k", 4)
    # sorted by name: "a_number" (1), "k_embedding" (3), "z_indicator" (4)
    columns = [
        fc.indicator_column(fc.categorical_column_with_identity("z", 4)),
        fc.embedding_column(k, 3),
        fc.numeric_column("a_number"),
    ]
    table = "dnn/input_from_feature_columns/input_layer/k_embedding/embedding_weights"

    def member():
        return {
            table: rng.normal(size=(4, 3)),
            "dnn/hiddenlayer_0/kernel": rng.normal(size=(8, 5)),
            "dnn/hiddenlayer_0/bias": rng.normal(size=5),
            "dnn/hiddenlayer_1/kernel": rng.normal(size=(5, 2)),
            "dnn/hiddenlayer_1/bias": rng.normal(size=2),
            "dnn/logits/kernel": rng.normal(size=(2, 3)),
            "dnn/logits/bias": rng.normal(size=3),
            "linear/linear_model/k/weights": rng.normal(size=(4, 3)),
            "linear/linear_model/bias_weights": rng.normal(size=3),
        }

    members = [member() for _ in range(3)]
    stacked_columns, units, stacked = stack_members(members, columns)
    assert units == [15, 6]
    assert [c.dimension for c in stacked_columns] == [4, 9, 1]
    number, ids, z = 0.7, np.array([2, 0, 3]), np.array([1, 3, 0])

    def inputs(embedding):  # the input layer: columns by name, an id's row of the table
        return np.concatenate([[number] * len(ids)], 0)[:, None], embedding[ids], np.eye(4)[z]

    expected = np.mean([_relu_tower(np.hstack(inputs(m[table])), m, 2) for m in members], axis=0)
    got = _relu_tower(np.hstack(inputs(stacked[table])), stacked, 2)
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    mean_linear = np.mean([m["linear/linear_model/k/weights"] for m in members], axis=0)
    np.testing.assert_allclose(stacked["linear/linear_model/k/weights"], mean_linear)


def test_columns_with_variables_other_than_embeddings_are_refused():
    k = fc.categorical_column_with_identity("k", 4)
    clipped = fc.embedding_column(k, 2, max_norm=1.0)
    weights = {"dnn/input_from_feature_columns/input_layer/k_embedding/embedding_weights": 0}
    with pytest.raises(ValueError, match="'k_embedding' .*only embeddings without max_norm"):
        stack_members([weights, weights], [clipped])


# ------------------------------------------------------------------ the fitted model


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tabular_defaults, "MAX_EPOCHS", 3)
        patch.setattr(tabular_defaults, "MIN_EPOCHS_NOISY", 1)
        patch.setattr(tabular_defaults, "HIDDEN_UNITS", (8, 4))
        patch.setattr(tabular_ensemble, "MAX_MEMBERS", 3)
        patch.setattr(tabular_ensemble, "FOLDS", 3)
        model_dir = tmp_path_factory.mktemp("ensemble")
        model = cn.estimators.TabularClassifier("y", model_dir=str(model_dir), seed=2)
        return model.fit(_synthetic())


def test_the_ensemble_predicts_the_mean_of_its_members_logits(fitted):
    rows = _synthetic(50, seed=9)
    assert len(fitted.members_) == 3
    members = [_logits(m["estimator"].predict(rows, verbose=0)) for m in fitted.members_]
    got = _logits(fitted.predict(rows))
    np.testing.assert_allclose(got, np.mean(members, axis=0), atol=1e-5)
    # the probability is the sigmoid of that mean logit
    probabilities = np.stack(fitted.predict(rows)["logistic"].to_numpy()).ravel()
    np.testing.assert_allclose(probabilities, 1 / (1 + np.exp(-got.ravel())), atol=1e-6)
    assert os.path.isdir(os.path.join(fitted.model_dir_, "member_3"))


def test_the_members_validated_on_disjoint_folds_covering_every_row(fitted):
    notes = [n for n in fitted.columns_.notes if "fold" in n]
    assert notes and "3 members" in notes[0] and "every row validates once" in notes[0]
    epochs = [m["best_epoch"] for m in fitted.members_]
    summary = [n for n in fitted.columns_.notes if n.startswith("the members' choices")]
    assert summary == [
        "the members' choices: "
        + "; ".join(
            f"member {i + 1}: best epoch {e}, deep weight {m['deep_weight']:g}"
            for i, (e, m) in enumerate(zip(epochs, fitted.members_))
        )
    ]


def test_describe_names_the_rule(fitted):
    text = fitted.columns_.describe()
    assert "a cross-fitted ensemble of 3 members" in text
    assert "predicts their mean logit" in text


def test_the_export_loads_and_predicts_the_same(fitted, tmp_path):
    rows = _synthetic(50, seed=9)
    path = fitted.export_saved_model(str(tmp_path / "export"))
    loaded = cn.load(path).predict(rows.drop(columns=["y"]))
    np.testing.assert_allclose(_logits(loaded), _logits(fitted.predict(rows)), atol=1e-6)
    meta = json.load(open(os.path.join(path, "model.json")))
    assert meta["network"]["dnn"]["hidden_units"] == [24, 12]  # 3 towers of (8, 4)


def test_a_hostile_export_cannot_claim_more_members_than_it_stores(fitted, tmp_path):
    path = fitted.export_saved_model(str(tmp_path / "export"))
    meta_path = os.path.join(path, "model.json")
    meta = json.load(open(meta_path))
    meta["network"]["dnn"]["hidden_units"] = [8 * 100_000, 4 * 100_000]  # 100,000 towers
    json.dump(meta, open(meta_path, "w"))
    with pytest.raises(ValueError, match=r"hiddenlayer_0/kernel.*800000"):
        cn.load(path)


def test_job_config_trains_one_member(fitted):
    config = fitted.job_config("train.csv")
    assert config["model"]["dnn_hidden_units"] == [8, 4]
    assert config["data"]["epochs"] == fitted.members_[0]["best_epoch"]


def test_validation_data_keeps_one_model(tmp_path, small_members):
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    model.fit(_synthetic(), validation_data=_synthetic(200, seed=1))
    assert len(model.members_) == 1 and not os.path.exists(tmp_path / "member_1")
    assert not any("cross-fitted" in n for n in model.columns_.notes)


def test_a_regression_ensemble_predicts_in_the_labels_units(tmp_path, small_members):
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"x": rng.normal(size=300), "k": rng.choice(["a", "b"], 300)})
    df["y"] = 1000.0 + 300.0 * df["x"] + 50.0 * (df["k"] == "a") + rng.normal(0, 10.0, 300)
    model = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path), seed=0).fit(df)
    members = [
        np.asarray(m["estimator"].predict(df, verbose=0)["predictions"].tolist()).ravel()
        for m in model.members_
    ]
    got = np.asarray(model.predict(df)["predictions"].tolist()).ravel()
    np.testing.assert_allclose(got, np.mean(members, axis=0), rtol=1e-5)
    assert np.sqrt(np.mean((got - df["y"]) ** 2)) < 60.0  # the label's std is about 300


# ------------------------------------------------------------------ members=


def test_members_sets_the_ensembles_size_and_says_it_was_given(tmp_path, small_members):
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0, members=2)
    model.fit(_synthetic())
    assert len(model.members_) == 2 and os.path.exists(tmp_path / "member_2")
    assert "a cross-fitted ensemble of 2 members (members=2 given)" in model.columns_.describe()


def test_one_member_is_one_model_on_one_split(tmp_path, small_members):
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0, members=1)
    model.fit(_synthetic())
    assert len(model.members_) == 1 and not os.path.exists(tmp_path / "member_1")
    assert not any("cross-fitted" in n for n in model.columns_.notes)


@pytest.mark.parametrize(
    "members, error, message",
    [
        (0, ValueError, "members must be between 1 and 3 (one member per fold of 3), got 0"),
        (4, ValueError, "got 4"),
        (2.0, TypeError, "members must be None or an int, got 2.0"),
        (True, TypeError, "got True"),
    ],
)
def test_a_bad_members_is_refused_before_anything_is_inferred(
    members, error, message, small_members, monkeypatch
):
    def no_inference(*args, **kwargs):
        raise AssertionError("inferred before members was checked")

    monkeypatch.setattr(tabular, "infer", no_inference)
    with pytest.raises(error, match=re.escape(message)):
        cn.estimators.TabularClassifier("y", members=members).fit(_synthetic())


def test_members_needs_rows_to_fold(tmp_path, small_members):
    too_few = "members=2: the members validate on folds of the training data, which needs "
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), members=2)
    with pytest.raises(ValueError, match=re.escape(too_few + "no validation_data")):
        model.fit(_synthetic(), validation_data=_synthetic(200, seed=1))
    with pytest.raises(ValueError, match=re.escape("at least 200 labelled rows (got 150)")):
        model.fit(_synthetic(150))
    path = tmp_path / "train.csv"
    _synthetic().to_csv(path, index=False)
    with pytest.raises(ValueError, match="an in-memory table"):
        model.fit(str(path))


# ------------------------------------------------------------------ a table above ENSEMBLE_MAX_ROWS


@pytest.fixture(scope="module")
def ten_folds(tmp_path_factory):
    """A 10-fold ensemble of 3 members (ENSEMBLE_MAX_ROWS lowered to 300 for a 400-row
    table), with the blend's inputs recorded."""
    seen = {"validation x": [], "out of fold": []}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tabular_defaults, "MAX_EPOCHS", 3)
        patch.setattr(tabular_defaults, "MIN_EPOCHS_NOISY", 1)
        patch.setattr(tabular_defaults, "HIDDEN_UNITS", (8, 4))
        patch.setattr(tabular_ensemble, "ENSEMBLE_MAX_ROWS", 300)

        def blend_losses(estimator, validate, rows):
            seen["validation x"].append(rows[0].column("x").to_numpy())
            return tabular.tabular_blend.blend_losses(estimator, validate, rows)

        def choose_blend(losses, *how):
            if how:
                seen["out of fold"].append({w: len(v) for w, v in losses.items()})
            return tabular.tabular_blend.choose_blend(losses, *how)

        patch.setattr(tabular, "blend_losses", blend_losses)
        patch.setattr(tabular, "choose_blend", choose_blend)
        model_dir = tmp_path_factory.mktemp("ten_folds")
        data = _synthetic()
        model = cn.estimators.TabularClassifier("y", model_dir=str(model_dir), seed=1)
        return model.fit(data), data, seen


def test_a_large_table_trains_members_on_ten_folds(ten_folds):
    model, data, _ = ten_folds
    assert len(model.members_) == 3
    text = model.columns_.describe()
    assert "a cross-fitted ensemble of 3 members" in text
    assert "10 folds on > 300 rows" in text
    assert "the rows of 3 folds validate once, the others never" in text


def test_the_shared_blend_sees_the_members_validation_tenths_only(ten_folds):
    _, data, seen = ten_folds
    folds = fold_ids(pa.Table.from_pandas(data), "y", seed=1, folds=10, stratify=True)
    expected = [np.sort(data["x"].to_numpy()[folds == k]) for k in range(3)]
    assert all(40 <= len(x) <= 41 for x in expected)  # a tenth of 400, per class within one
    got = [np.sort(x) for x in seen["validation x"]]
    assert len(got) == 3
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    out_of_fold = sum(len(x) for x in expected)  # 3 tenths; the 7 other folds validate none
    assert seen["out of fold"] == [{w: out_of_fold for w in tabular.tabular_blend.BLEND_WEIGHTS}]


def test_a_ten_fold_ensemble_exports_loads_and_predicts_the_same(ten_folds, tmp_path):
    model, _, _ = ten_folds
    rows = _synthetic(50, seed=9)
    members = [_logits(m["estimator"].predict(rows, verbose=0)) for m in model.members_]
    got = _logits(model.predict(rows))
    np.testing.assert_allclose(got, np.mean(members, axis=0), atol=1e-5)
    path = model.export_saved_model(str(tmp_path / "export"))
    loaded = cn.load(path).predict(rows.drop(columns=["y"]))
    np.testing.assert_allclose(_logits(loaded), got, atol=1e-6)
    meta = json.load(open(os.path.join(path, "model.json")))
    assert meta["network"]["dnn"]["hidden_units"] == [24, 12]
