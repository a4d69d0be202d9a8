"""categorical_column_with_time_part: ids checked against pandas' own datetime fields."""

import datetime as dt

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn

fc = cn.feature_columns
PANDAS_FIELD = {
    "hour": lambda s: s.dt.hour,
    "weekday": lambda s: s.dt.dayofweek,  # Monday 0
    "month": lambda s: s.dt.month - 1,
    "day": lambda s: s.dt.day - 1,
}


def ids_of(values, part, key="t"):
    column = fc.categorical_column_with_time_part(key, part)
    return fc.transform_features({key: values}, [column])[column.name].to_lists()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2199, 12, 31)),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from(["s", "ms", "us"]),
    st.sampled_from(sorted(PANDAS_FIELD)),
)
def test_each_part_is_the_field_pandas_computes(times, unit, part):
    times = [t.replace(microsecond=0) for t in times]
    arrow = pa.array(times, pa.timestamp(unit))
    want = PANDAS_FIELD[part](pd.Series(times)).tolist()
    assert ids_of(arrow, part) == [[w] for w in want]


def test_a_zone_aware_timestamp_gives_its_local_parts():
    midnight_utc = pa.array([0], pa.timestamp("s", tz="America/New_York"))  # 1970-01-01
    # 00:00 UTC is 19:00 of Wednesday 31 December 1969 in New York (UTC-5 in winter)
    assert ids_of(midnight_utc, "hour") == [[19]]
    assert ids_of(midnight_utc, "weekday") == [[2]]
    assert ids_of(midnight_utc, "month") == [[11]]
    assert ids_of(midnight_utc, "day") == [[30]]


def test_dates_strings_and_nulls():
    monday = dt.date(2024, 3, 4)
    assert ids_of(pa.array([monday, None], pa.date32()), "weekday") == [[0], []]
    assert ids_of(pa.array([monday], pa.date32()), "hour") == [[0]]
    # what a JSON request or a tf.Example bytes feature carries
    assert ids_of(["2024-03-09 17:30:00", "2024-12-25", None], "weekday") == [[5], [2], []]
    assert ids_of(pa.array([dt.time(23, 59)], pa.time64("us")), "hour") == [[23]]


def test_bad_input_names_the_column_and_the_feature():
    with pytest.raises(ValueError, match="column 't_hour'.*feature 't'.*not ISO 8601"):
        ids_of(["2024-03-09", "next tuesday"], "hour")
    with pytest.raises(TypeError, match="column 't_hour' reads timestamps.*feature 't' is int64"):
        ids_of(pa.array([1_700_000_000]), "hour")
    with pytest.raises(TypeError, match="times of day.*no weekday"):
        ids_of(pa.array([dt.time(1)], pa.time64("us")), "weekday")
    with pytest.raises(ValueError, match=r"part must be one of \['day', 'hour', 'month', 'wee"):
        fc.categorical_column_with_time_part("t", "minute")
    with pytest.raises(ValueError, match="part must be one of .* got \\['hour'\\]"):
        fc.categorical_column_with_time_part("t", ["hour"])  # a wrong type, not a crash
    with pytest.raises(fc.ConfigError, match="part"):
        fc.from_config([{"type": "categorical_column_with_time_part", "key": "t"}])
    with pytest.raises(ValueError, match="not ISO 8601") as hostile:
        ids_of(["9" * 100_000], "hour")  # a huge value: the error quotes a bounded part
    assert len(str(hostile.value)) < 400


def test_config_round_trip_and_parse_spec():
    hour = fc.categorical_column_with_time_part("t", "hour")
    columns = [hour, fc.embedding_column(hour, 3), fc.crossed_column([hour, "k"], 50)]
    assert fc.from_config(fc.to_config(columns)) == columns
    with pytest.raises(fc.ConfigError, match="part"):
        fc.from_config([{"type": "categorical_column_with_time_part", "key": "t", "part": "x"}])
    assert fc.make_parse_example_spec([hour]).field("t").type == pa.list_(pa.string())


def test_an_export_takes_the_raw_timestamp_as_iso_text(tmp_path):
    rng = np.random.default_rng(0)
    when = pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 10**7, 2000), unit="s")
    df = pd.DataFrame({"when": when})
    df["y"] = (df["when"].dt.hour >= 12).astype(int)
    hour = fc.categorical_column_with_time_part("when", "hour")
    est = cn.estimators.LinearClassifier(
        [hour], optimizer={"name": "Ftrl", "learning_rate": 1.0}, model_dir=str(tmp_path / "m")
    )
    est.fit(df, label="y", epochs=3, batch_size=64, verbose=0)
    assert est.evaluate(df, label="y", verbose=0)["accuracy"] == 1.0
    model = cn.load(est.export_saved_model(str(tmp_path / "export")))
    got = model.predict({"when": ["2021-02-01 03:00:00", "2021-02-01 15:00:00"]})
    assert got["class_ids"].tolist() == [0, 1]
    frame = pd.DataFrame({"when": pd.to_datetime(["2021-02-01 03:00", "2021-02-01 15:00"])})
    np.testing.assert_allclose(est.predict(frame, verbose=0)["logits"], got["logits"], rtol=1e-6)
