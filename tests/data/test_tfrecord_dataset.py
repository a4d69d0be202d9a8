"""Dataset.from_tfrecord: streaming parsed batches, and training from TFRecord files."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.demo import load_adult

F, V = cn.io.FixedLenFeature, cn.io.VarLenFeature

SPEC = {
    "age": F([], "int64"),
    "hours-per-week": F([], "float32"),
    "education": F([], "string"),
    "workclass": F([], "string"),
    "label": F([], "int64"),
}


def adult(n=600):
    df = load_adult("train").head(n)
    return pd.DataFrame(
        {
            "age": df["age"].astype("int64"),
            "hours-per-week": df["hours-per-week"].astype("float32"),
            "education": df["education"].astype(object),
            "workclass": df["workclass"].astype(object),
            "label": (df["income"] == ">50K").astype("int64"),
        }
    )


@pytest.fixture
def shards(tmp_path):
    df = adult()
    folder = tmp_path / "shards"
    folder.mkdir()
    for i, part in enumerate([df.iloc[:200], df.iloc[200:400], df.iloc[400:]]):
        cn.io.write_tfrecord(part, folder / f"part-{i}.tfrecord", compression_type="GZIP")
    return df, folder


def test_streams_files_and_globs(shards):
    df, folder = shards
    for paths in (folder, str(folder / "*.tfrecord"), sorted(folder.iterdir())):
        table = cn.data.Dataset.from_tfrecord(paths, SPEC, compression_type="GZIP").to_table()
        assert table.to_pydict() == df.to_dict(orient="list")
    via_files = cn.data.Dataset.from_files(
        folder, format="tfrecord", features=SPEC, compression_type="GZIP"
    )
    assert via_files.to_table().num_rows == len(df)


def test_bounded_chunks_labels_columns_and_shard(tmp_path):
    df = adult()
    path = tmp_path / "adult.tfrecord"
    cn.io.write_tfrecord(df, path)
    ds = cn.data.Dataset.from_tfrecord(path, SPEC, label="label", columns=["age"])
    (features, labels), *_ = list(ds.batch(100))
    assert features.schema.names == ["age"] and labels.tolist() == df["label"][:100].tolist()
    from colonnade.data.tfrecord_source import TFRecordSource

    source = TFRecordSource(path, SPEC, chunk_bytes=2048)
    sizes = [b.num_rows for u in source.units() for b in source.read(u)]
    assert sum(sizes) == len(df) and max(sizes) < 100  # a chunk at a time, not the file
    shard = cn.data.Dataset.from_tfrecord(path, SPEC).batch(50).shard(2, 1).to_table()
    assert shard.num_rows == len(df) // 2


def test_make_parse_example_spec_schema_and_bad_file(tmp_path):
    fc = cn.feature_columns
    columns = [
        fc.numeric_column("hours-per-week"),
        fc.categorical_column_with_hash_bucket("education", 10),
    ]
    schema = fc.make_parse_example_spec(columns)
    path = tmp_path / "adult.tfrecord"
    cn.io.write_tfrecord(adult(50), path)
    table = cn.data.Dataset.from_tfrecord(path, schema).to_table()
    assert table.schema == schema and table.num_rows == 50
    raw = bytearray(path.read_bytes())
    raw[500] ^= 1
    path.write_bytes(bytes(raw))
    with pytest.raises(cn.io.DataLossError, match="adult.tfrecord"):
        cn.data.Dataset.from_tfrecord(path, schema).to_table()


def test_linear_classifier_from_tfrecord_equals_pandas(tmp_path):
    df = adult(2000)
    path = tmp_path / "adult.tfrecord"
    cn.io.write_tfrecord(df, path)
    fc = cn.feature_columns
    columns = [
        fc.numeric_column("age"),
        fc.numeric_column("hours-per-week"),
        fc.categorical_column_with_hash_bucket("education", 50),
        fc.categorical_column_with_vocabulary_list("workclass", ["Private", "State-gov", "?"]),
    ]

    def train(ds, model_dir):
        est = cn.estimators.LinearClassifier(columns, model_dir=str(model_dir))
        est.train(ds.shuffle(500, seed=7).batch(64), steps=25)
        return {n: est.get_variable_value(n) for n in est.get_variable_names()}

    from_pandas = train(cn.data.Dataset.from_pandas(df, label="label"), tmp_path / "a")
    from_tfrecord = train(cn.data.Dataset.from_tfrecord(path, SPEC, label="label"), tmp_path / "b")
    assert from_pandas.keys() == from_tfrecord.keys()
    for name, value in from_pandas.items():
        np.testing.assert_allclose(from_tfrecord[name], value, atol=1e-6, err_msg=name)
    assert sum(np.abs(v).sum() for n, v in from_pandas.items() if "weights" in n) > 0


def test_write_tfrecord_from_dataset_and_arrow(tmp_path):
    table = pa.table({"x": [1, 2, 3], "y": [[1.5], [], None]})
    ds = cn.data.Dataset.from_arrow(table, label="x")
    assert cn.io.write_tfrecord(ds, tmp_path / "d.tfrecord") == 3
    got = cn.io.parse_example(
        list(cn.io.tf_record_iterator(tmp_path / "d.tfrecord")),
        {"x": F([], "int64"), "y": V("float32")},
    )
    assert got.to_pydict() == {"x": [1, 2, 3], "y": [[1.5], [], []]}
