"""Parquet string columns are read as dictionary<string>: the same values, through every
Dataset operation, into feature columns and labels."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import colonnade as cn

fc = cn.feature_columns


@pytest.fixture()
def path(tmp_path):
    """Two row groups whose dictionaries differ (each holds only some of the words)."""
    rng = np.random.default_rng(0)
    words = np.array(["ant", "bee", "cat", "dog", "eel"])
    first, second = rng.choice(words[:3], 300), rng.choice(words[2:], 300)
    table = pa.table(
        {
            "word": np.concatenate([first, second]).tolist(),
            "label": np.concatenate([first, second]).tolist(),
            "x": np.arange(600, dtype=np.float32),
        }
    )
    file = str(tmp_path / "w.parquet")
    pq.write_table(table, file, row_group_size=300)
    return file


def test_strings_come_as_dictionary_with_the_same_values(path):
    plain = pq.read_table(path)
    ds = cn.data.Dataset.from_parquet(path)
    got = ds.to_table()
    assert pa.types.is_dictionary(got.schema.field("word").type)
    assert got.column("word").to_pylist() == plain.column("word").to_pylist()
    off = cn.data.Dataset.from_parquet(path, strings_as_dictionary=False).to_table()
    assert off.schema.field("word").type == pa.string()


def test_filter_shuffle_and_batch_keep_each_rows_string(path):
    plain = pq.read_table(path).to_pandas()
    ds = cn.data.Dataset.from_parquet(path, filter=pc.field("word") == "cat")
    got = ds.shuffle(1000, seed=1).batch(64).to_table()
    assert got.num_rows == int((plain.word == "cat").sum())
    assert set(got.column("word").to_pylist()) == {"cat"}
    x = sorted(got.column("x").to_pylist())
    assert x == sorted(plain.x[plain.word == "cat"].tolist())


def test_hashed_ids_and_string_labels_equal_those_of_plain_strings(path):
    column = fc.categorical_column_with_hash_bucket("word", 97)
    plain = pq.read_table(path)
    want = fc.transform_features(plain, [column])["word"].ids
    ds = cn.data.Dataset.from_parquet(path, label="label").batch(200)
    ids, labels = [], []
    for features, y in ds:
        ids.append(fc.transform_features(features, [column])["word"].ids)
        labels.append(y)
    np.testing.assert_array_equal(np.concatenate(ids), want)
    assert np.concatenate(labels).tolist() == plain.column("label").to_pylist()
    weights = []
    for data in (ds, cn.data.Dataset.from_arrow(plain, label="label").batch(200)):
        est = cn.estimators.LinearClassifier(
            [column], n_classes=5, label_vocabulary=["ant", "bee", "cat", "dog", "eel"]
        )
        est.train(data.repeat(20))
        weights.append(est.get_weights())
        assert est.evaluate(data)["accuracy"] > 0.99
    for name in weights[0]:
        np.testing.assert_array_equal(weights[0][name], weights[1][name], err_msg=name)
