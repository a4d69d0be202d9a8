"""cn.feature_columns.infer: the rules on synthetic data with known properties."""

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import colonnade as cn
from colonnade.feature_columns import infer_rules
from colonnade.feature_columns.infer import ColumnPlan, infer

fc = cn.feature_columns


def _actions(plan):
    return {d.name: (d.action, d.reason) for d in plan.decisions}


@pytest.fixture(scope="module")
def synthetic():
    rng = np.random.default_rng(0)
    n = 4000
    a = rng.choice(["a0", "a1"], n)
    b = rng.choice(["b0", "b1"], n)
    df = pd.DataFrame(
        {
            "row_id": [f"r{i}" for i in range(n)],
            "const": "same",
            "amount": rng.lognormal(3, 1.5, n),
            "height": rng.normal(170, 10, n),
            "color": rng.choice(["red", "green", "blue"], n),
            "city": [f"c{i}" for i in rng.integers(0, 1500, n)],
            "a": a,
            "b": b,
            "noise1": rng.choice(["x", "y"], n),
            "noise2": rng.choice(["u", "v"], n),
            "flag": rng.random(n) > 0.5,
            "mostly_null": [None] * (n - 10) + [1.0] * 10,
        }
    )
    df["y"] = ((a == "a1") ^ (b == "b1")).astype(int)
    return df


def test_rules_on_known_columns(synthetic):
    plan = infer(synthetic, "y")
    acts = _actions(plan)
    assert plan.task == "binary" and plan.n_classes == 2
    assert acts["row_id"][0] == "dropped" and "id" in acts["row_id"][1]
    assert acts["const"] == ("dropped", "constant")
    assert acts["mostly_null"][0] == "dropped" and "null" in acts["mostly_null"][1]
    assert "log1p" in acts["amount"][1]
    assert "log1p" not in acts["height"][1] and "standardized" in acts["height"][1]
    assert "vocabulary of 3" in acts["color"][1] and "indicator" in acts["color"][1]
    assert "hash bucket" in acts["city"][1] and "embedding" in acts["city"][1]
    assert acts["flag"][0] == "boolean"
    by_name = {c.name: c for c in plan.dnn}
    assert isinstance(by_name["amount"].normalizer_fn, fc.normalizers.Chain)
    assert isinstance({c.name: c for c in plan.linear}["color"], fc.VocabularyListCategoricalColumn)


def test_the_informative_cross_is_found(synthetic):
    plan = infer(synthetic, "y")
    crosses = [d.name for d in plan.decisions if d.action == "cross"]
    assert crosses and crosses[0] == "a_X_b"
    assert "noise1_X_noise2" not in crosses


@pytest.mark.parametrize(
    "values, task",
    [
        ([0, 1] * 50, "binary"),
        (["lo", "mid", "hi", "x"] * 25, "multiclass"),
        (list(np.linspace(0, 10, 100)), "regression"),
        ([True, False] * 50, "binary"),
    ],
)
def test_label_task(values, task):
    df = pd.DataFrame({"x": np.arange(100) % 7 * 1.5, "y": values})
    plan = infer(df, "y")
    assert plan.task == task
    assert plan.describe().splitlines()[0].startswith(f"y: label: {task}")


def test_config_round_trip_through_json(synthetic):
    plan = infer(synthetic, "y")
    config = json.loads(json.dumps(plan.to_config()))
    again = ColumnPlan.from_config(config)
    assert again == plan
    assert fc.from_config(config["linear_feature_columns"]) == list(plan.linear)


def test_files_and_datasets_read_the_same(tmp_path, synthetic):
    path = tmp_path / "d.parquet"
    pq.write_table(pa.Table.from_pandas(synthetic.drop(columns=["mostly_null"])), path)
    from_file = infer(str(path), "y")
    from_dataset = infer(cn.data.Dataset.from_files(str(path)), "y")
    assert from_file.linear == from_dataset.linear


def test_bad_labels():
    x = np.arange(100) * 1.0
    with pytest.raises(KeyError, match="label column 'nope' not found"):
        infer(pd.DataFrame({"x": x}), "nope")
    with pytest.raises(ValueError, match="all null"):
        infer(pd.DataFrame({"x": x, "y": [None] * 100}), "y")
    with pytest.raises(ValueError, match="constant"):
        infer(pd.DataFrame({"x": x, "y": [1] * 100}), "y")


def test_mixed_types_are_an_error():
    df = pd.DataFrame({"m": [1, "two", 3.0] * 20, "y": [0, 1, 1] * 20})
    with pytest.raises(TypeError, match="column 'm' mixes types"):
        infer(df, "y")


def test_text_and_all_null_columns_are_dropped_with_a_reason():
    text = [f"a long free text review number {i} that goes on and on" for i in range(60)]
    df = pd.DataFrame(
        {"text": text, "empty": [None] * 60, "x": np.arange(60) % 5, "y": [0, 1] * 30}
    )
    acts = _actions(infer(df, "y"))
    assert acts["text"][0] == "dropped" and "free text" in acts["text"][1]
    assert acts["empty"] == ("dropped", "all null")


def test_long_values_that_recur_are_categories_not_text():
    # german credit's credit_history: 5 values averaging 45 characters
    history = [
        "critical account/other credits existing (not at this bank)",
        "existing credits paid back duly till now",
        "delay in paying off in the past",
        "no credits taken/all credits paid back duly",
        "all credits at this bank paid back duly",
    ]
    df = pd.DataFrame({"history": history * 40, "y": [0, 1] * 100})
    assert np.mean([len(v) for v in df["history"]]) > 40
    acts = _actions(infer(df, "y"))
    assert acts["history"][0] == "categorical", acts["history"]
    assert "vocabulary of 5" in acts["history"][1]


def test_no_usable_column():
    with pytest.raises(ValueError, match="no usable feature column"):
        infer(pd.DataFrame({"c": ["k"] * 60, "y": [0, 1] * 30}), "y")


def test_a_spike_gets_its_own_bucket_and_the_rest_quantile_buckets():
    rng = np.random.default_rng(0)
    n = 5000
    gain = np.where(rng.random(n) < 0.9, 0.0, rng.lognormal(8, 1, n))
    df = pd.DataFrame({"gain": gain, "y": rng.integers(0, 2, n)})
    plan = infer(df, "y")
    wide = next(c for c in plan.linear if c.name == "gain_bucketized")
    rest = gain[gain != 0]
    # The whole column fits the sample: the boundaries are numpy's quantiles exactly.
    expected = {float(np.nextafter(np.float32(0), np.float32(1)))}
    for values in (gain, rest):
        expected |= {float(np.float32(q)) for q in np.quantile(values, infer_rules.QUANTILES)}
    assert list(wide.boundaries) == sorted(b for b in expected if 0.0 < b <= gain.max())
    assert "90% of values are 0" in _actions(plan)["gain"][1]
    # Without a spike the boundaries are the plain quantiles.
    height = rng.normal(170, 10, n)
    plan = infer(pd.DataFrame({"h": height, "y": rng.integers(0, 2, n)}), "y")
    wide = next(c for c in plan.linear if c.name == "h_bucketized")
    plain = sorted({float(np.float32(q)) for q in np.quantile(height, infer_rules.QUANTILES)})
    assert list(wide.boundaries) == plain


def test_numbers_get_a_bucket_embedding_in_the_deep_part():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"h": rng.normal(size=3000), "few": rng.integers(0, 2, 3000) * 1.5})
    df["y"] = (df["h"] > 0).astype(int)
    plan = infer(df, "y")
    names = [c.name for c in plan.dnn]
    # 2 buckets: no embedding, no piecewise-linear encoding
    assert names == ["h", "h_bucketized_embedding", "h_piecewise_linear", "few"]
    embedding = plan.dnn[1]
    assert embedding.dimension == min(32, int(np.ceil(6 * 20**0.25)))  # 20 buckets
    # 21 edges: the minimum, the 19 quantile boundaries, the maximum
    h = df["h"].to_numpy()
    assert plan.dnn[2].edges == (
        float(h.min()),
        *sorted({float(np.float32(q)) for q in np.quantile(h, infer_rules.QUANTILES)}),
        float(h.max()),
    )


def test_a_timestamp_gives_the_parts_that_vary():
    rng = np.random.default_rng(0)
    n = 1000
    df = pd.DataFrame(
        {
            "at": pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 10**7, n), "s"),
            # one month of dates: no hour, and the day of the month would stand for the date
            "on": pd.Timestamp("2023-05-01") + pd.to_timedelta(rng.integers(0, 28, n), "D"),
            # Mondays of January, at midnight: no part varies
            "monday": pd.Timestamp("2024-01-01") + pd.to_timedelta(7 * rng.integers(0, 5, n), "D"),
        }
    )
    df["y"] = (df["at"].dt.hour >= 12).astype(int)
    plan = infer(df, "y")
    acts = _actions(plan)
    assert [c.name for c in plan.linear if c.name.startswith(("at_", "on_"))] == [
        "at_hour",
        "at_weekday",
        "at_month",
        "at_day",
        "on_weekday",
    ]
    assert acts["at"][0] == "timestamp" and "hour (24 seen" in acts["at"][1]
    never = "a timestamp whose parts (hour, weekday, month, day) never vary"
    assert acts["monday"] == ("dropped", never)
    dnn = {c.name for c in plan.dnn}
    assert {"at_hour_embedding", "at_weekday_indicator", "on_weekday_indicator"} <= dnn
    rebuilt = ColumnPlan.from_config(json.loads(json.dumps(plan.to_config())))
    assert rebuilt.linear == plan.linear and rebuilt.dnn == plan.dnn


def test_no_cross_of_columns_that_only_memorize():
    """A label of one column, and many-valued noise: in-sample information credits any
    pair with a many-valued column (each pair seen once predicts its row perfectly);
    measured on the other half of the sample, such pairs earn nothing."""
    rng = np.random.default_rng(1)
    n = 4000
    df = pd.DataFrame(
        {
            "signal": rng.choice(["s0", "s1", "s2"], n),
            "user": [f"u{i}" for i in rng.integers(0, 2500, n)],
            "city": rng.choice([f"c{i}" for i in range(30)], n),
            "amount": rng.lognormal(3, 1, n),
        }
    )
    df["y"] = (df["signal"] == "s1").astype(int)
    plan = infer(df, "y")
    assert [d.name for d in plan.decisions if d.action == "cross"] == []


def test_small_tables_get_no_crosses_of_noise_with_many_cells():
    # 300 rows, label independent of everything: two 20-bucket numbers make a 400-cell
    # pair that memorizes the rows; an in-sample (Miller-Madow) score reads it as
    # informative, the out-of-sample one does not.
    rng = np.random.default_rng(3)
    n = 300
    df = pd.DataFrame({"u": rng.normal(size=n), "v": rng.normal(size=n), "w": rng.normal(size=n)})
    df["y"] = rng.integers(0, 2, n)
    plan = infer(df, "y")
    assert [d for d in plan.decisions if d.action == "cross"] == []


def test_a_real_interaction_of_numbers_is_crossed_on_a_small_table():
    rng = np.random.default_rng(4)
    n = 600
    df = pd.DataFrame({"u": rng.normal(size=n), "v": rng.normal(size=n), "w": rng.normal(size=n)})
    df["y"] = ((df["u"] > 0) ^ (df["v"] > 0)).astype(int)
    crosses = [d.name for d in infer(df, "y").decisions if d.action == "cross"]
    assert crosses == ["u_bucketized_X_v_bucketized"]  # and no pair with the noise w


@settings(max_examples=25, deadline=None)
@given(shape=st.floats(0.3, 50.0), seed=st.integers(0, 2**16), shift=st.sampled_from([0, -5]))
def test_log1p_exactly_when_non_negative_and_skewed_beyond_the_rule(shape, seed, shift):
    # Gamma(shape) has skewness 2/sqrt(shape): both sides of LOG_SKEW = 1 are drawn.
    values = np.random.default_rng(seed).gamma(shape, 1.0, 2000) + shift
    d = values - values.mean()
    skew = float((d**3).mean() / (d**2).mean() ** 1.5)  # numpy, not the streaming moments
    assume(abs(skew - infer_rules.LOG_SKEW) > 0.02)
    df = pd.DataFrame({"x": values, "y": np.arange(2000) % 2})
    reason = _actions(infer(df, "y"))["x"][1]
    logged = values.min() >= 0 and skew > infer_rules.LOG_SKEW
    assert ("log1p" in reason) == logged, (skew, values.min(), reason)


def test_inference_is_linear_in_columns(monkeypatch):
    # `colonnade train --data` on 10,000 columns printed nothing for minutes: each
    # column's cross scoring converted the whole sample (every column) again.
    from colonnade.feature_columns import transform_cache

    converted = []
    original = transform_cache.transform_features

    def counting(data, columns, *args, **kwargs):
        if hasattr(data, "num_columns"):
            converted.append(data.num_columns)
        return original(data, columns, *args, **kwargs)

    monkeypatch.setattr(transform_cache, "transform_features", counting)
    rng = np.random.default_rng(0)
    width = 120
    df = pd.DataFrame({f"c{i}": rng.normal(size=200) for i in range(width)})
    df["y"] = rng.integers(0, 2, 200)
    lines = []
    infer(df, "y", progress=lines.append)
    assert sum(converted) <= 3 * width, sum(converted)  # was width * width
    assert lines and lines[0] == f"read 200 rows of {width + 1} columns"


def test_the_wide_part_holds_the_linear_baseline():
    # a weight per standardized number (and per category): the wide part can be the
    # logistic regression the benchmark's linear baseline fits, not only its steps
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(5.0, 2.0, 300), "k": rng.choice(["a", "b"], 300)})
    df["y"] = (df["x"] > 5).astype(int)
    plan = infer(df, "y")
    linear = {c.name: c for c in plan.linear}
    assert {"x", "x_bucketized", "k"} <= set(linear)
    from colonnade.feature_columns import transform_features

    values = transform_features({"x": [5.0, 7.0]}, [linear["x"]])["x"].ravel()
    mean, std = df["x"].mean(), df["x"].std(ddof=0)
    np.testing.assert_allclose(values, [(5.0 - mean) / std, (7.0 - mean) / std], rtol=1e-4)
