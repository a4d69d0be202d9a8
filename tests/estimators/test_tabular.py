"""TabularClassifier / TabularRegressor and `colonnade train --data --label`."""

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import colonnade as cn
from colonnade.cli import main
from colonnade.cli.job import load_config
from colonnade.demo import load_adult
from colonnade.estimators.tabular import blend as tabular_blend
from colonnade.estimators.tabular import defaults as tabular_defaults
from colonnade.estimators.tabular import ensemble as tabular_ensemble
from colonnade.estimators.tabular import tree_member
from colonnade.estimators.tabular.linear import label_targets
from colonnade.estimators.tabular.split import part, validation_mask


@pytest.fixture
def few_epochs(monkeypatch):
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 4)
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (32, 16))


@pytest.fixture
def one_model(monkeypatch):
    """One model and one validation split, as on a table too large for an ensemble
    (the ensemble's tests are in test_tabular_ensemble.py)."""
    monkeypatch.setattr(tabular_ensemble, "MAX_MEMBERS", 1)


def _synthetic(n=600, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.normal(size=n), "k": rng.choice(["a", "b", "c"], n)})
    df["y"] = ((df["x"] + (df["k"] == "a") + rng.normal(0, 0.5, n)) > 0.5).astype(int)
    return df


def test_adult_slice_beats_the_trivial_baseline(tmp_path, few_epochs):
    train, test = load_adult("train").head(3000), load_adult("test").head(1000)
    model = cn.estimators.TabularClassifier("income", model_dir=str(tmp_path), seed=0, members=1)
    model.fit(train)
    metrics = model.evaluate(test)
    majority = (test["income"] == "<=50K").mean()
    assert metrics["accuracy"] > majority + 0.03 and metrics["auc"] > 0.85
    assert model.columns_.task == "binary"


def test_seed_reproduces(tmp_path, few_epochs):
    df = _synthetic()
    runs = [
        cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / str(i)), seed=3)
        .fit(df)
        .predict(df)["logistic"]
        for i in range(2)
    ]
    np.testing.assert_array_equal(np.stack(runs[0]), np.stack(runs[1]))


def test_the_best_epoch_is_restored_and_checkpointed(tmp_path, monkeypatch):
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 6)
    monkeypatch.setattr(tabular_defaults, "PATIENCE", 10)  # run all epochs past the best
    monkeypatch.setattr(tabular_defaults, "DNN_LEARNING_RATE", 0.05)  # noisy: the last is not best
    monkeypatch.setattr(tabular_blend, "BLEND_WEIGHTS", ())  # the best epoch's weights as they are
    df, valid = _synthetic(400, 0), _synthetic(300, 1)
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    model.fit(df, validation_data=valid)
    losses = model.history_.history["val_loss"]
    assert model.best_epoch_ == int(np.argmin(losses)) + 1
    assert model.evaluate(valid)["loss"] == pytest.approx(min(losses), rel=1e-5)
    settings = {k: v for k, v in model.settings_.items() if k != "batch_size"}
    fresh = cn.estimators.DNNLinearCombinedClassifier(
        model_dir=str(tmp_path),
        linear_feature_columns=list(model.columns_.linear),
        dnn_feature_columns=list(model.columns_.dnn),
        **settings,
    )
    assert fresh.evaluate(valid, label="y", verbose=0)["loss"] == pytest.approx(
        min(losses), rel=1e-5
    )


def test_export_loads_with_the_same_predictions(tmp_path, few_epochs):
    df = _synthetic()
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "m"), seed=0).fit(df)
    path = model.export_saved_model(str(tmp_path / "export"))
    rows = df.drop(columns=["y"]).head(20)
    expected = np.stack(model.predict(rows)["logistic"])
    got = cn.load(path).predict(rows)
    np.testing.assert_allclose(np.stack(got["logistic"]), expected, rtol=1e-5)


def test_regressor_and_small_data_note(tmp_path, few_epochs):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=120)})
    df["y"] = 3 * df["x"] + rng.normal(0, 0.1, 120)
    model = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path), seed=0).fit(df)
    assert model.columns_.task == "regression"
    assert any("too few for a validation split" in n for n in model.columns_.notes)
    assert "average_loss" in model.evaluate(df)
    with pytest.raises(ValueError, match="use TabularRegressor"):
        cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "c")).fit(df)


def test_cli_without_config_writes_a_reusable_inferred_toml(
    tmp_path, few_epochs, capsys, monkeypatch
):
    from colonnade.cli import inferred

    monkeypatch.setattr(inferred, "PROGRESS_EVERY_S", 0.0)  # every progress line
    data = tmp_path / "train.parquet"
    _synthetic().to_parquet(data)
    model_dir = tmp_path / "model"
    args = ["train", "--data", str(data), "--label", "y", "--model-dir", str(model_dir)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "y: label: binary" in out and "k: categorical" in out
    assert "inferring the columns of" in out and "infer: read 600 rows of 3 columns" in out
    config = model_dir / "inferred.toml"
    job = load_config(config)
    assert job.data.label == "y" and job.model.type == "DNNLinearCombinedClassifier"
    assert job.model.model_dir == str(model_dir)  # the model just trained: it trains on
    assert main(["train", str(config)]) == 0
    assert json.loads(capsys.readouterr().out)["model_dir"] == str(model_dir)


def test_cli_needs_config_or_data(capsys):
    assert main(["train"]) == 2
    assert "--data PATH --label COLUMN" in capsys.readouterr().err


def _rows(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "id": np.arange(n),
            "x": rng.normal(size=n),
            "k": rng.choice(["a", "b", "c", None], n),
        }
    )
    df["y"] = (df["x"] > 0).astype(int)
    return df


def _ids(part):
    table = part if isinstance(part, pa.Table) else part.to_table()
    return sorted(table.column("id").to_pylist())


def test_split_is_seeded_stratified_complete_and_repeatable_streamed(tmp_path):
    df = _rows()
    path = tmp_path / "rows.parquet"
    df.to_parquet(path, row_group_size=500)
    split = (7, 0.1, True)
    valid = _ids(part(df, "y", split, "validation", None))
    train = _ids(part(df, "y", split, "train", None))
    assert sorted(valid + train) == list(range(len(df)))
    # stratified: a tenth of each class, to the row (random rounding of the fraction)
    for cls in (0, 1):
        count = int((df["y"] == cls).sum())
        held = int((df.loc[valid, "y"] == cls).sum())
        assert held in (count // 10, count // 10 + 1), (cls, count, held)
    assert valid == _ids(part(df, "y", split, "validation", None))
    # A file streamed batch by batch: complete, stratified per batch, the same each pass.
    streamed = part(str(path), "y", split, "validation", None)
    assert isinstance(streamed, cn.data.Dataset)
    assert _ids(streamed) == _ids(part(str(path), "y", split, "validation", None))
    assert abs(len(_ids(streamed)) - 300) <= 6 * 2  # one rounding per class and batch
    # Another seed, another split.
    other = _ids(part(df, "y", (8, 0.1, True), "validation", None))
    assert len(set(other) & set(valid)) < len(valid) / 2


def test_rows_without_a_label_are_skipped_streamed_or_not(tmp_path):
    df = _rows(1000)
    df["y"] = df["y"].astype("Int64")
    df.loc[::10, "y"] = pd.NA
    path = tmp_path / "rows.parquet"
    df.to_parquet(path)
    for data in (df, str(path)):
        parts = [part(data, "y", (0, 0.1, True), side, None) for side in ("train", "validation")]
        ids = sorted(_ids(parts[0]) + _ids(parts[1]))
        assert ids == [i for i in range(1000) if i % 10]


FIT_A_FILE = """
import json, resource, sys
import pyarrow as pa
import colonnade as cn
from colonnade.estimators.tabular import ensemble as tabular_ensemble
from colonnade.estimators.tabular import defaults as tabular_defaults
from colonnade.estimators.tabular.split import part, validation_mask

tabular_defaults.MAX_EPOCHS, tabular_defaults.HIDDEN_UNITS = 1, (8,)
path = sys.argv[1]
rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
model = cn.estimators.TabularClassifier("y", seed=0).fit(path)
print(json.dumps({
    "arrow_peak": pa.default_memory_pool().max_memory(),
    "rss_growth": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss_before,
    "notes": list(model.columns_.notes),
}))
"""


def test_fit_streams_a_file_in_bounded_memory(tmp_path):
    rows, columns = 1_200_000, 2
    rng = np.random.default_rng(0)
    path = tmp_path / "big.parquet"
    schema = pa.schema([(f"c{i}", pa.float64()) for i in range(columns)] + [("y", pa.int64())])
    with pq.ParquetWriter(path, schema, compression="none") as writer:
        for _ in range(0, rows, 100_000):
            block = {f"c{i}": rng.random(100_000) for i in range(columns)}
            block["y"] = (block["c0"] + 0.3 * rng.random(100_000) > 0.65).astype(np.int64)
            writer.write_table(pa.table(block, schema=schema), row_group_size=16_384)
    size = os.path.getsize(path)
    result = subprocess.run(
        [sys.executable, "-c", FIT_A_FILE, str(path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout.strip().splitlines()[-1])
    assert any("held out about 50000 rows" in n for n in stats["notes"]), stats["notes"]
    # Reading the file whole would allocate its size at least (uncompressed doubles);
    # streaming holds a few read batches, the 64k-row shuffle buffer and infer's 20k-row
    # sample: about a third of this file (8 MB measured), whatever the file's length.
    assert stats["arrow_peak"] < size / 2, stats
    assert stats["rss_growth"] < 2 * size, stats


def test_regression_trains_on_standardized_labels_and_predicts_in_label_units(
    tmp_path, few_epochs, one_model
):
    rng = np.random.default_rng(0)
    n = 2000
    df = pd.DataFrame({"x": rng.normal(size=n), "k": rng.choice(["a", "b"], n)})
    noise = rng.normal(0, 50.0, n)
    df["y"] = 10_000.0 + 800.0 * df["x"] + 400.0 * (df["k"] == "a") + noise
    model = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path / "m"), seed=0).fit(df)
    plan = model.columns_
    assert plan.label_mean == pytest.approx(df["y"].mean(), rel=1e-9)
    assert plan.label_std == pytest.approx(df["y"].std(ddof=0), rel=1e-9)
    assert any("standardized" in n for n in plan.notes)
    # The losses seen while training are in the label's units, as evaluate's: the noise
    # variance 50**2 at best, not the standardized label's (below 1).
    history = model.history_.history
    assert min(history["val_loss"]) > 0.5 * 50.0**2 and min(history["loss"]) > 0.5 * 50.0**2
    predictions = np.asarray(model.predict(df)["predictions"], dtype=float)
    rmse = float(np.sqrt(np.mean((predictions - df["y"].to_numpy()) ** 2)))
    assert rmse < 0.25 * df["y"].std()  # a model of the label in its units, not of z-scores
    assert model.evaluate(df)["average_loss"] == pytest.approx(rmse**2, rel=1e-3)
    path = model.export_saved_model(str(tmp_path / "export"))
    assert not [p for p in os.listdir(path) if p.endswith((".pkl", ".pickle"))]
    loaded = np.asarray(cn.load(path).predict(df.drop(columns=["y"]))["predictions"], float)
    np.testing.assert_allclose(loaded, predictions, rtol=1e-5)
    # A fresh estimator on the same model_dir reads the rescaled checkpoint.
    settings = {k: v for k, v in model.settings_.items() if k != "batch_size"}
    fresh = cn.estimators.DNNLinearCombinedRegressor(
        model_dir=str(tmp_path / "m"),
        linear_feature_columns=list(plan.linear),
        dnn_feature_columns=list(plan.dnn),
        **settings,
    )
    again = np.asarray(fresh.predict(df, verbose=0)["predictions"], dtype=float)
    np.testing.assert_allclose(again, predictions, rtol=1e-5)


def test_every_training_choice_is_stated(tmp_path, few_epochs, one_model):
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    notes = "\n".join(model.fit(_synthetic()).columns_.notes)
    assert "held out" in notes and "seeded random permutation" in notes
    assert "batch size 32" in notes
    assert f"learning rates x{tabular_defaults.LR_DECAY}" in notes


def test_learning_rates_halve_after_an_epoch_without_improvement(tmp_path, monkeypatch):
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 5)
    monkeypatch.setattr(tabular_defaults, "PATIENCE", 10)
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8,))
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    model.fit(_synthetic(400, 0), validation_data=_synthetic(300, 1))
    losses = model.history_.history["val_loss"]
    worse = sum(1 for i, v in enumerate(losses) if v >= min(losses[:i], default=float("inf")))
    rates = {name: opt.learning_rate for name, opt, _ in model.estimator_.train_state.parts}
    assert rates["dnn_optimizer"] == pytest.approx(tabular_defaults.DNN_LEARNING_RATE * 0.5**worse)
    # the wide part is the linear model solved first, held fixed (LINEAR_FIRST)
    assert rates["linear_optimizer"] == 0.0


def test_bad_input_through_fit(tmp_path, few_epochs):
    df = _synthetic()
    with pytest.raises(KeyError, match="label column 'nope' not found"):
        cn.estimators.TabularClassifier("nope", model_dir=str(tmp_path / "a")).fit(df)
    mixed = df.assign(m=[1, "a"] * (len(df) // 2))
    with pytest.raises(TypeError, match="column 'm' mixes types"):
        cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "b")).fit(mixed)
    with pytest.raises(ValueError, match="constant"):
        cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "c")).fit(df.assign(y=1))
    with pytest.raises(ValueError, match="all null"):
        cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "d")).fit(
            df.assign(y=pd.Series([None] * len(df), dtype="float64"))
        )
    plan = cn.feature_columns.infer(df, "y")
    with pytest.raises(ValueError, match="inferred for label 'y', not 'x'"):
        cn.estimators.TabularRegressor("x", model_dir=str(tmp_path / "e"), columns=plan).fit(df)


def test_copies_of_a_row_fall_on_both_sides_of_the_split():
    # census fertility: many exact duplicates. A hash of the row put every copy (label
    # included) on one side: validation measured rows never trained on... or all copies.
    base = pd.DataFrame({"x": np.arange(30.0), "y": np.arange(30) % 2})
    df = pd.concat([base] * 20, ignore_index=True)
    table = pa.Table.from_pandas(df)
    for seed in range(3):
        mask = validation_mask(table, "y", seed, 0.2, True)
        in_valid = set(df["x"][mask])
        in_train = set(df["x"][~mask])
        # each of the 30 rows has 20 copies: all 20 on one side has chance 0.2**20
        assert in_valid <= in_train and len(in_valid) > 20, (seed, len(in_valid))


def test_small_tables_hold_out_more_rows(tmp_path, few_epochs, one_model):
    # 1,500 rows: 10% would be 150 validation rows; the rule raises the share toward
    # 1,000 rows, capped at 20%: about 300 (binomial sd 15.5 around the hash split).
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    notes = "\n".join(model.fit(_synthetic(1500)).columns_.notes)
    held = [n for n in notes.splitlines() if n.startswith("held out")]
    assert len(held) == 1 and "(20.0% " in held[0] and "small table" in held[0], notes
    rows = int(held[0].split()[2])
    assert 299 <= rows <= 301, held[0]  # 20% of each class, rounded at random
    # a large table keeps a tenth, and a huge one at most VALIDATION_MAX_ROWS rows
    assert tabular_defaults.validation_fraction(12_000) == tabular_defaults.VALIDATION_FRACTION
    huge = tabular_defaults.validation_fraction(10**8) * 10**8
    assert huge == pytest.approx(tabular_defaults.VALIDATION_MAX_ROWS)
    assert tabular_defaults.validation_fraction(100_000 // 12) * (100_000 // 12) >= 999


def _mixed_table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "x": rng.normal(size=n),
            "k": rng.choice(["a", "b", "c"], n),
            "flag": rng.random(n) > 0.5,
            # movielens' Unix timestamps: int64, beyond float32's exact integers
            "timestamp": 874_724_710 + rng.integers(0, 10**8, n),
        }
    )
    df["y"] = ((df["x"] + (df["k"] == "a") + rng.normal(0, 0.5, n)) > 0.5).astype(int)
    return df


def test_nulls_and_new_values_at_predict_time_read_as_described(tmp_path, few_epochs):
    df = _mixed_table()
    assert not df.isna().any().any()  # the training split has no null anywhere
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0).fit(df)
    described = model.columns_.describe()
    test = df.head(40).copy()
    test.loc[:2, "x"] = np.nan
    test["timestamp"] = test["timestamp"].astype("Int64")
    test.loc[3, "timestamp"] = pd.NA
    test.loc[4, "k"] = None
    test.loc[5, "k"] = "never seen"
    test["flag"] = test["flag"].astype(object)
    test.loc[6, "flag"] = None
    assert 0.0 <= model.evaluate(test)["accuracy"] <= 1.0
    assert 0.0 <= model.evaluate(test.assign(k=[None] * len(test)))["accuracy"] <= 1.0
    # a null x reads as the training median, as describe() says
    median = float(np.median(df["x"]))
    assert f"read as the median {median:.4g}" in described
    as_null = model.predict(test.head(3))["logistic"]
    as_median = model.predict(test.head(3).assign(x=median))["logistic"]
    np.testing.assert_allclose(np.stack(as_null), np.stack(as_median), rtol=1e-6)
    assert "nulls as 0 (false)" in described


def test_integers_of_any_size_train(tmp_path, few_epochs):
    df = _mixed_table()
    rng = np.random.default_rng(1)
    df["code"] = rng.choice(np.array([2**60, 2**60 + 7, 2**61 + 3], dtype=np.int64), len(df))
    plan = cn.feature_columns.infer(df, "y")
    lines = {d.name: d for d in plan.decisions}
    assert lines["timestamp"].action == "numeric" and "read as float64" in lines["timestamp"].reason
    assert lines["code"].action == "categorical" and "beyond 2**53" in lines["code"].reason
    (wide,) = [c for c in plan.linear if c.name == "timestamp_bucketized"]
    assert (
        df["timestamp"].min() < min(wide.boundaries)
        and max(wide.boundaries) <= df["timestamp"].max()
    )
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0).fit(df)
    assert model.evaluate(df)["accuracy"] > 0.6


def test_an_integer_code_trains_exports_and_serves_unseen_codes(tmp_path, few_epochs, one_model):
    rng = np.random.default_rng(0)
    n = 3000
    school, hours = rng.integers(1, 41, n), rng.integers(0, 80, n)
    effect = np.random.default_rng(99).normal(0, 1, 41)
    df = pd.DataFrame({"school": school, "hours": hours})
    df["y"] = effect[school] + 0.02 * hours + rng.normal(0, 0.5, n)
    model = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path / "m"), seed=0).fit(df)
    assert "school: numeric:" in model.columns_.describe()
    assert "also a code" in next(d.reason for d in model.columns_.decisions if d.name == "school")
    predictions = np.asarray(model.predict(df.head(50))["predictions"], float)
    # a weight per school: the model follows the schools' effects, which no trend in the
    # id gives (their correlation with the id is about zero)
    truth = effect[school[:50]] + 0.02 * hours[:50]
    assert np.corrcoef(predictions, truth)[0, 1] > 0.95
    path = model.export_saved_model(str(tmp_path / "export"))
    loaded = cn.load(path)
    again = np.asarray(loaded.predict(df.head(50).drop(columns=["y"]))["predictions"], float)
    np.testing.assert_allclose(again, predictions, rtol=1e-5)
    unseen = pd.DataFrame({"school": pd.array([99, None], dtype="Int64"), "hours": [40, 40]})
    assert np.isfinite(np.asarray(loaded.predict(unseen)["predictions"], float)).all()


def test_a_rare_class_is_stratified_and_warned_about(tmp_path, few_epochs):
    df = _synthetic(400)
    df["y"] = np.where(np.arange(400) < 3, "rare", "common")
    with pytest.warns(UserWarning, match=r"fewer than 10 rows \('rare': 3 rows\)"):
        model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0).fit(df)
    assert any("'rare': 3 rows" in n for n in model.columns_.notes)
    for seed in range(5):
        mask = validation_mask(pa.Table.from_pandas(df), "y", seed, 0.2, True)
        assert mask[:3].sum() == 1  # 0.6 rounds to 0 or 1; one is kept on each side


def test_ids_and_useless_features_are_said(tmp_path, few_epochs):
    df = _synthetic(400).assign(order_id=[f"o-{i:05d}" for i in range(400)])
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0).fit(df)
    assert "order_id: dropped: an id (400 distinct values in 400 rows)" in (
        model.columns_.describe()
    )
    useless = pd.DataFrame({"c": 1.0, "n": [None] * 400, "y": [0, 1] * 200})
    useless["n"] = useless["n"].astype("float64")
    with pytest.raises(ValueError, match="no usable feature column.*c: dropped: constant"):
        cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "u")).fit(useless)


def test_small_validation_splits_do_not_stop_by_chance(tmp_path, monkeypatch):
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8,))
    assert tabular_defaults.early_stopping_for(300) == (
        tabular_defaults.PATIENCE + tabular_defaults.NOISY_EXTRA_PATIENCE,
        tabular_defaults.MIN_EPOCHS_NOISY,
    )
    steady = tabular_defaults.STEADY_VALIDATION_ROWS
    assert tabular_defaults.early_stopping_for(steady) == (tabular_defaults.PATIENCE, 1)
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=500), "y": rng.integers(0, 2, 500)})  # noise
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0).fit(df)
    assert len(model.history_.history["val_loss"]) >= tabular_defaults.MIN_EPOCHS_NOISY
    assert "never stop before epoch 6" in "\n".join(model.columns_.notes)


def test_regressor_tensorboard_losses_are_in_label_units(tmp_path, monkeypatch, one_model):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    monkeypatch.setattr(tabular_defaults, "MAX_EPOCHS", 3)
    monkeypatch.setattr(tabular_defaults, "HIDDEN_UNITS", (8,))
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=600)})
    df["y"] = 1000.0 + 300.0 * df["x"] + rng.normal(0, 15.0, 600)
    model = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path), seed=0).fit(df)

    def losses(directory):
        acc = accumulator.EventAccumulator(str(directory))
        acc.Reload()
        return [e.value for e in acc.Scalars("loss")]

    train, valid = losses(tmp_path), losses(tmp_path / "eval")
    # both are mean squared errors in the label's units: at least the noise's 15**2
    # (a standardized loss would be below 1)
    assert len(train) == len(valid) == len(model.history_.history["loss"])
    assert min(train) > 100.0 and min(valid) > 100.0
    np.testing.assert_allclose(valid, model.history_.history["val_loss"], rtol=1e-5)


def _interaction(n, seed):
    """A label the linear model cannot fit (x's sign flips it for k == "a"): the deep
    part wins the blend."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.normal(size=n), "k": rng.choice(["a", "b"], n)})
    df["y"] = ((df["x"] > 0) ^ (df["k"] == "a")).astype(int)
    return df


@pytest.mark.parametrize("table", [_synthetic, _interaction])
def test_the_blend_of_wide_and_deep_is_chosen_on_validation(
    tmp_path, few_epochs, table, monkeypatch
):
    monkeypatch.setattr(tree_member, "ENABLED", False)  # the wide&deep blend alone
    df, valid = table(400, 0), table(300, 1)
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    model.fit(df, validation_data=valid)
    (note,) = [n for n in model.columns_.notes if n.startswith("the deep part's logits")]
    tried = dict(
        (float(w), float(v))
        for w, v in (p.split(": ") for p in note.split("(")[-1][:-1].split(", "))
    )
    assert set(tried) == set(tabular_blend.BLEND_WEIGHTS)
    lowest = min(tried, key=lambda w: (tried[w], -w))
    # the lowest loss (printed to 4 digits), or 0 when it is not lower by the margin
    assert model.deep_weight_ in (lowest, 0.0)
    assert f"{tabular_blend.BLEND_PREFERENCE_SE:g} standard errors" in note or lowest == 0.0
    # what is checkpointed is the blend chosen: at a weight above 0 the blended model ...
    loss = model.evaluate(valid)["loss"]
    if model.deep_weight_ > 0:
        assert loss == pytest.approx(tried[model.deep_weight_], rel=1e-3)
    else:
        # ... at 0 the linear model alone, solved again on the validation rows too (its
        # values: test_tabular_linear.py), so lower there than the one fitted without them
        assert "solved again on the training and validation rows" in "\n".join(model.columns_.notes)
        assert loss < tried[0.0]


@pytest.mark.parametrize("regression", [False, True])
def test_the_blends_row_losses_average_to_the_heads_evaluation(tmp_path, few_epochs, regression):
    """The per-row validation losses the blend is chosen on are the head's: their mean at
    each weight is ``evaluate``'s loss with the deep part's logits scaled by it."""
    df, valid = _synthetic(400, 0), _synthetic(300, 1)
    if regression:
        df["y"], valid["y"] = df["x"] * 3.0 + 10.0, valid["x"] * 3.0 + 10.0 + valid["y"]
    cls = cn.estimators.TabularRegressor if regression else cn.estimators.TabularClassifier
    model = cls("y", model_dir=str(tmp_path), seed=0).fit(df, validation_data=valid)
    est = model.estimator_
    features = pa.Table.from_pandas(valid.drop(columns=["y"]))
    # the fitted model predicts in the label's units: its targets unscaled, no scale
    task = "regression" if regression else 2
    targets = label_targets(valid["y"].to_numpy(), task)
    losses = tabular_blend.blend_losses(est, None, (features, targets, task, None))
    deep = {k: v for k, v in est.get_weights().items() if k.startswith("dnn/logits/")}
    for weight, rows in losses.items():
        est.set_weights({k: v * weight for k, v in deep.items()})
        expected = est.evaluate(valid, label="y", verbose=0)["loss"]
        assert rows.mean() == pytest.approx(expected, rel=1e-4)


def test_the_deep_part_is_kept_only_when_it_wins_by_more_than_the_noise():
    rng = np.random.default_rng(0)
    wide = rng.exponential(size=300)
    noise = rng.normal(size=300)
    noise -= noise.mean()
    se = noise.std() / np.sqrt(300)
    margin = tabular_blend.BLEND_PREFERENCE_SE
    for gain, expected in ((0.5 * margin * se, 0.0), (1.5 * margin * se, 1.0)):
        losses = {0.0: wide, 0.5: wide - noise - gain / 2, 1.0: wide - noise - gain}
        weight, note = tabular_blend.choose_blend(losses)
        assert weight == expected
        assert f"by more than {tabular_blend.BLEND_PREFERENCE_SE:g} standard errors" in note
    # a streamed validation set gives one mean loss per weight: the lowest wins
    weight, _ = tabular_blend.choose_blend({0.0: np.array([1.0]), 1.0: np.array([0.99])})
    assert weight == 1.0
