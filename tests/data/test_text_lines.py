"""TextLineDataset, and TF's CSV input_fn pattern on it: lines as TF 2.15 gives them
(empty lines kept, \\r\\n and a missing last newline handled), skip, map returning
(features, labels)."""

import gzip

import numpy as np
import pytest

import colonnade as cn
from colonnade.data.text_lines import TextLineDataset

CSV_COLUMNS = ["age", "city", "income"]


def lines(ds):
    return ds.to_table().column("line").to_pylist()


def test_lines_are_tfs(tmp_path):
    path = tmp_path / "t.txt"
    path.write_bytes(b"a\r\nb\n\nc")  # TF 2.15: [b'a', b'b', b'', b'c']
    assert lines(TextLineDataset(str(path))) == ["a", "b", "", "c"]
    second = tmp_path / "u.txt"
    second.write_text("h\nd\n")
    assert lines(TextLineDataset([str(path), str(second)]).skip(1)) == ["b", "", "c", "d"]
    packed = tmp_path / "v.txt.gz"
    with gzip.open(packed, "wt") as f:
        f.write("x\ny\n")
    assert lines(TextLineDataset(str(packed), compression_type="GZIP")) == ["x", "y"]
    with pytest.raises(ValueError, match="only as GZIP files named"):
        TextLineDataset(str(path), compression_type="GZIP")
    with pytest.raises(ValueError, match="skip takes a count"):
        TextLineDataset(str(path)).skip(-1)


def parse_csv(value):
    """TF's census tutorial parse function, with tf. -> cn. (and == for tf.equal)."""
    columns = cn.io.decode_csv(value, record_defaults=[[0], [""], [""]])
    features = dict(zip(CSV_COLUMNS, columns))
    labels = features.pop("income")
    return features, labels == ">50K"


def test_tfs_csv_input_fn_trains_an_estimator(tmp_path):
    rows = [
        (20 + i % 50, ["rome", "oslo"][i % 2], ">50K" if i % 50 > 25 else "<=50K")
        for i in range(200)
    ]
    path = tmp_path / "adult.csv"
    path.write_text("age,city,income\n" + "".join(f"{a},{c},{y}\n" for a, c, y in rows))

    def input_fn():
        dataset = TextLineDataset(str(path)).skip(1)
        dataset = dataset.shuffle(buffer_size=200, seed=0)
        dataset = dataset.map(parse_csv)
        return dataset.repeat(2).batch(32)

    features, labels = next(iter(input_fn()))
    assert features.schema.names == ["age", "city"] and labels.dtype == bool
    by_age = {a: y == ">50K" for a, _, y in rows}
    assert [by_age[a] for a in features.column("age").to_pylist()] == labels.tolist()

    fc = cn.feature_columns
    columns = [
        fc.bucketized_column(fc.numeric_column("age"), [30, 40, 45, 50, 60]),
        fc.categorical_column_with_vocabulary_list("city", ["rome", "oslo"]),
    ]
    est = cn.estimators.LinearClassifier(columns, model_dir=str(tmp_path / "m"))
    est.train(input_fn)
    assert est.get_variable_value("global_step") == 13  # 2 x 200 rows in batches of 32
    assert est.evaluate(input_fn)["accuracy"] > 0.9


def test_a_map_returning_a_labels_dict_labels_with_its_keys(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("1,2\n3,4\n")

    def parse(value):
        a, b = cn.io.decode_csv(value, [[0], [0.0]])
        return {"a": a}, {"b": b, "twice": 2 * b}

    features, labels = next(iter(TextLineDataset(str(path)).map(parse)))
    assert features.to_pydict() == {"a": [1, 3]}
    assert labels.to_pydict() == {"b": [2.0, 4.0], "twice": [4.0, 8.0]}
    plain = TextLineDataset(str(path)).map(lambda batch: batch)  # one batch back: unlabelled
    assert plain.label is None and lines(plain) == ["1,2", "3,4"]
    np.testing.assert_array_equal(
        cn.io.decode_csv(next(iter(TextLineDataset(str(path)))), [[0], [0]])[0], [1, 3]
    )


def test_tf1_input_fn_returning_get_next_trains_evaluates_and_predicts(tmp_path):
    """TF 1's `return dataset.make_one_shot_iterator().get_next()` (and the unpacked
    `features, labels = iterator.get_next()`): every batch is read, as TF's graph did."""
    path = tmp_path / "rows.csv"
    path.write_text(
        "".join(f"{20 + i % 50},rome,{'>50K' if i % 50 > 25 else '<=50K'}\n" for i in range(96))
    )

    def input_fn():
        dataset = TextLineDataset(str(path)).map(parse_csv).batch(16)
        features, labels = dataset.make_one_shot_iterator().get_next()
        return features, labels

    def predict_input_fn():
        ds = TextLineDataset(str(path)).map(lambda v: parse_csv(v)[0]).batch(32)
        return cn.data.make_one_shot_iterator(ds).get_next()

    fc = cn.feature_columns
    age = fc.bucketized_column(fc.numeric_column("age"), [30, 40, 45, 50, 60])
    est = cn.estimators.LinearClassifier([age], model_dir=str(tmp_path / "m"))
    est.train(input_fn)
    assert est.get_variable_value("global_step") == 6  # 96 rows in batches of 16
    assert est.evaluate(input_fn)["accuracy"] > 0.9
    assert len(list(est.predict(predict_input_fn))) == 96
    features, _ = TextLineDataset(str(path)).map(parse_csv).make_one_shot_iterator().get_next()
    with pytest.raises(TypeError, match="stands for every batch of the dataset"):
        features["age"]
