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
from colonnade.estimators import tabular


@pytest.fixture
def few_epochs(monkeypatch):
    monkeypatch.setattr(tabular, "MAX_EPOCHS", 4)
    monkeypatch.setattr(tabular, "HIDDEN_UNITS", (32, 16))


def _synthetic(n=600, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.normal(size=n), "k": rng.choice(["a", "b", "c"], n)})
    df["y"] = ((df["x"] + (df["k"] == "a") + rng.normal(0, 0.5, n)) > 0.5).astype(int)
    return df


def test_adult_slice_beats_the_trivial_baseline(tmp_path, few_epochs):
    train, test = load_adult("train").head(3000), load_adult("test").head(1000)
    model = cn.estimators.TabularClassifier("income", model_dir=str(tmp_path), seed=0)
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
    monkeypatch.setattr(tabular, "MAX_EPOCHS", 6)
    monkeypatch.setattr(tabular, "PATIENCE", 10)  # run all epochs past the best
    monkeypatch.setattr(tabular, "DNN_LEARNING_RATE", 0.05)  # noisy: the last is not best
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


def test_cli_without_config_writes_a_reusable_inferred_toml(tmp_path, few_epochs, capsys):
    data = tmp_path / "train.parquet"
    _synthetic().to_parquet(data)
    model_dir = tmp_path / "model"
    args = ["train", "--data", str(data), "--label", "y", "--model-dir", str(model_dir)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "y: label: binary" in out and "k: categorical" in out
    config = model_dir / "inferred.toml"
    job = load_config(config)
    assert job.data.label == "y" and job.model.type == "DNNLinearCombinedClassifier"
    assert main(["train", str(config)]) == 0
    assert (model_dir / "retrained").is_dir()


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


def test_split_is_seeded_complete_and_the_same_streamed_or_in_memory(tmp_path):
    df = _rows()
    path = tmp_path / "rows.parquet"
    df.to_parquet(path, row_group_size=500)
    valid = _ids(tabular._part(df, "y", 7, 0.1, "validation", None))
    train = _ids(tabular._part(df, "y", 7, 0.1, "train", None))
    assert sorted(valid + train) == list(range(len(df)))
    # 300 expected of 3000: outside 5 binomial standard deviations (~82) fails.
    assert abs(len(valid) - 300) < 82
    # A file streamed batch by batch, and the rows in another order, split the same.
    streamed = tabular._part(str(path), "y", 7, 0.1, "validation", None)
    assert isinstance(streamed, cn.data.Dataset)
    assert _ids(streamed) == valid
    shuffled = df.sample(frac=1.0, random_state=1)
    assert _ids(tabular._part(shuffled, "y", 7, 0.1, "validation", None)) == valid
    # Another seed, another split.
    other = _ids(tabular._part(df, "y", 8, 0.1, "validation", None))
    assert len(set(other) & set(valid)) < len(valid) / 2


def test_rows_without_a_label_are_skipped_streamed_or_not(tmp_path):
    df = _rows(1000)
    df["y"] = df["y"].astype("Int64")
    df.loc[::10, "y"] = pd.NA
    path = tmp_path / "rows.parquet"
    df.to_parquet(path)
    for data in (df, str(path)):
        parts = [tabular._part(data, "y", 0, 0.1, side, None) for side in ("train", "validation")]
        ids = sorted(_ids(parts[0]) + _ids(parts[1]))
        assert ids == [i for i in range(1000) if i % 10]


FIT_A_FILE = """
import json, resource, sys
import pyarrow as pa
import colonnade as cn
from colonnade.estimators import tabular

tabular.MAX_EPOCHS, tabular.HIDDEN_UNITS = 1, (8,)
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


def test_regression_trains_on_standardized_labels_and_predicts_in_label_units(tmp_path, few_epochs):
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
    # The losses seen while training are of the standardized label (its variance is 1).
    assert max(model.history_.history["val_loss"]) < 1.0
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


def test_every_training_choice_is_stated(tmp_path, few_epochs):
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    notes = "\n".join(model.fit(_synthetic()).columns_.notes)
    assert "held out" in notes and "seeded hash" in notes
    assert "batch size 32" in notes
    assert f"learning rates x{tabular.LR_DECAY}" in notes


def test_learning_rates_halve_after_an_epoch_without_improvement(tmp_path, monkeypatch):
    monkeypatch.setattr(tabular, "MAX_EPOCHS", 5)
    monkeypatch.setattr(tabular, "PATIENCE", 10)
    monkeypatch.setattr(tabular, "HIDDEN_UNITS", (8,))
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    model.fit(_synthetic(400, 0), validation_data=_synthetic(300, 1))
    losses = model.history_.history["val_loss"]
    worse = sum(1 for i, v in enumerate(losses) if v >= min(losses[:i], default=float("inf")))
    rates = {name: opt.learning_rate for name, opt, _ in model.estimator_.train_state.parts}
    assert rates["dnn_optimizer"] == pytest.approx(tabular.DNN_LEARNING_RATE * 0.5**worse)
    assert rates["linear_optimizer"] == pytest.approx(tabular.LINEAR_LEARNING_RATE * 0.5**worse)


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


def test_duplicates_that_leave_no_validation_rows_fall_back_with_a_note(tmp_path, few_epochs):
    base = pd.DataFrame({"x": [0.0, 1.0, 2.0], "y": [0, 1, 1]})
    df = pd.concat([base] * 100, ignore_index=True)
    fraction = tabular.validation_fraction(len(df))
    seed = next(
        s
        for s in range(100)
        if not tabular._validation_mask(pa.Table.from_pandas(base), s, fraction).any()
    )
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=seed).fit(df)
    assert any("left no rows for validation" in n for n in model.columns_.notes)


def test_small_tables_hold_out_more_rows(tmp_path, few_epochs):
    # 1,500 rows: 10% would be 150 validation rows; the rule raises the share toward
    # 1,000 rows, capped at 20%: about 300 (binomial sd 15.5 around the hash split).
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    notes = "\n".join(model.fit(_synthetic(1500)).columns_.notes)
    held = [n for n in notes.splitlines() if n.startswith("held out")]
    assert len(held) == 1 and "(20.0%," in held[0] and "small table" in held[0], notes
    rows = int(held[0].split()[2])
    assert 240 <= rows <= 360, held[0]
    # a large table keeps a tenth, and a huge one at most VALIDATION_MAX_ROWS rows
    assert tabular.validation_fraction(12_000) == tabular.VALIDATION_FRACTION
    assert tabular.validation_fraction(10**8) * 10**8 == pytest.approx(tabular.VALIDATION_MAX_ROWS)
    assert tabular.validation_fraction(100_000 // 12) * (100_000 // 12) >= 999
