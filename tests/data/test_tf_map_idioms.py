"""TF's tf.data idioms of issue 39: map functions that take dicts and return Tensors,
2-D arrays or ``(features, labels)`` pairs; ``features.pop``; TFRecordDataset parsed
record-wise and batch-wise; errors that name the op and column instead of pyarrow's."""

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import colonnade as cn
from colonnade.data.example_writer import write_tfrecord

D = cn.data.Dataset
ROWS = 10


@pytest.fixture
def records(tmp_path):
    frame = pd.DataFrame(
        {
            "age": np.arange(ROWS, dtype=np.int64) + 20,
            "pos": [[float(i), float(-i)] for i in range(ROWS)],
            "tags": [["t"] * (i % 3) for i in range(ROWS)],
            "label": np.arange(ROWS, dtype=np.int64) % 2,
        }
    )
    paths = [str(tmp_path / "a.tfrecord"), str(tmp_path / "b.tfrecord")]
    write_tfrecord(frame.iloc[:6], paths[0])
    write_tfrecord(frame.iloc[6:], paths[1])
    return frame, paths


SPEC = {
    "age": cn.io.FixedLenFeature([], "int64"),
    "pos": cn.io.FixedLenFeature([2], "float32"),
    "tags": cn.io.VarLenFeature("string"),
    "label": cn.io.FixedLenFeature([], "int64"),
}


def test_record_wise_and_batch_wise_parsing_give_the_written_rows(records):
    frame, paths = records

    def parse(record):
        features = cn.compat.v1.parse_single_example(record, SPEC)
        return features, features.pop("label")

    record_wise = list(cn.compat.v1.data.TFRecordDataset(paths).map(parse).batch(4))
    batch_wise = list(
        cn.data.TFRecordDataset(paths)
        .batch(4)
        .map(lambda recs: cn.io.parse_example(recs, SPEC))
        .with_label("label")
    )
    assert [f.num_rows for f, _ in record_wise] == [4, 4, 2]
    for (a, la), (b, lb) in zip(record_wise, batch_wise):
        assert a.to_pydict() == b.to_pydict()
        np.testing.assert_array_equal(la, lb)
    table = pa.Table.from_batches([f for f, _ in record_wise])
    assert table.column("age").to_pylist() == frame["age"].tolist()
    assert table.column("pos").to_pylist() == frame["pos"].tolist()
    assert table.column("tags").to_pylist() == frame["tags"].tolist()
    labels = np.concatenate([labels for _, labels in record_wise])
    assert labels.tolist() == frame["label"].tolist()


def test_parse_single_example_runs_once_per_reader_batch_not_per_record(records):
    _, paths = records
    calls = []

    def parse(record):
        calls.append(len(record))
        return cn.io.parse_single_example(record, SPEC)

    ds = cn.data.TFRecordDataset(paths).map(parse)
    assert ds.to_table().num_rows == ROWS
    assert calls[0] == 0  # the trace on an empty batch, as TF traces a map function
    assert calls[1:] == [6, 4]  # one call per file's chunk of records


def test_map_returns_tensors_and_2d_arrays():
    ds = D.from_tensor_slices({"x": np.arange(6.0)})

    def fn(features):
        x = features["x"]
        return {"t": cn.constant(x * 2), "m": np.stack([x, -x], axis=1)}

    out = ds.map(fn).batch(3)
    first = next(iter(out))
    assert first.column("t").to_pylist() == [0.0, 2.0, 4.0]
    assert first.column("m").to_pylist() == [[0.0, -0.0], [1.0, -1.0], [2.0, -2.0]]
    # a plain dataset's map too: a dict of a Tensor and a 2-D array becomes columns
    table = pa.table({"x": [1.0, 2.0]})
    plain = D.from_arrow(table).map(
        lambda b: {"m": np.outer(b.column("x").to_numpy(), [1, 10]), "t": cn.constant([5, 6])}
    )
    assert plain.to_table().to_pydict() == {"m": [[1.0, 10.0], [2.0, 20.0]], "t": [5, 6]}
    # one Tensor for a one-column stream: that column again
    assert ds.map(lambda f: cn.constant(f["x"] + 1)).to_table()["x"].to_pylist()[:2] == [1, 2]


def test_pop_label_on_a_dict_and_labels_returned_as_2d():
    ds = D.from_tensor_slices({"x": [1, 2, 3], "y": [[0, 1], [1, 0], [1, 1]]})

    def split(features):
        assert isinstance(features, dict)
        labels = features.pop("y")
        return features, cn.constant(labels)

    features, labels = next(iter(ds.map(split).batch(3)))
    assert features.schema.names == ["x"]
    np.testing.assert_array_equal(labels, [[0, 1], [1, 0], [1, 1]])
    # a labelled stream's map gets (dict, labels) and may keep them
    relabelled = ds.map(split).map(lambda f, y: ({"x2": f["x"] * 2}, y[:, 0]))
    features, labels = next(iter(relabelled))
    assert features.column("x2").to_pylist() == [2, 4, 6] and labels.tolist() == [0, 1, 1]


def test_errors_name_the_op_and_column():
    ds = D.from_tensor_slices({"x": [1, 2], "y": [3, 4]})
    with pytest.raises(ValueError, match=r"Dataset.map: .*column 'bad'.*"):
        list(ds.map(lambda f: {"bad": [[1], "x"]}))
    with pytest.raises(ValueError, match=r"Dataset.map: .*column 'short' has 1 rows.*"):
        list(ds.map(lambda f: {"x": f["x"], "short": [1]}))
    with pytest.raises(ValueError, match=r"Dataset.map: .*'s' is a scalar"):
        list(ds.map(lambda f: {"s": 3}))
    with pytest.raises(TypeError, match=r"Dataset.map: the function returned one ndarray .*2"):
        list(ds.map(lambda f: f["x"]))
    with pytest.raises(ValueError, match=r"Dataset.map: the function .* failed in pyarrow"):
        list(D.from_dict({"s": ["a"]}).map(lambda b: {"n": pc.multiply(b.column("s"), 2)}))
    with pytest.raises(ValueError, match=r"Dataset.filter\(.*\) cannot be applied to rows"):
        list(D.from_dict({"s": ["a"]}).map(lambda b: b).filter(pc.field("s") > 3))
    flip = {"n": 0}

    def changes_type(batch):
        flip["n"] += 1
        return {"v": batch.column("v") if flip["n"] % 2 else batch.column("v").cast(pa.string())}

    stream = D.from_arrow(pa.table({"v": list(range(8))})).batch(2).map(changes_type)
    with pytest.raises(ValueError, match=r"Dataset.batch: .*column 'v' was int64 and then string"):
        list(stream.batch(4))
    with pytest.raises(ValueError, match="column 'x' cannot be converted"):
        D.from_tensor_slices({"x": [1, "a"]})


def test_from_generator_errors_name_the_component():
    def yields(*elements):
        return lambda: iter(elements)

    gen = D.from_generator
    with pytest.raises(TypeError, match="output_types .* or output_signature"):
        gen(yields({"x": 1}))
    with pytest.raises(
        ValueError, match="component 'x'.*cannot be converted to the expected int64"
    ):
        list(gen(yields({"x": "a"}), {"x": "int64"}))
    with pytest.raises(ValueError, match=r"yielded \['y'\] where the components \['x'\]"):
        list(gen(yields({"y": 1}), {"x": "int64"}))
    with pytest.raises(TypeError, match="yielded a int where a dict of features"):
        list(gen(yields(1), {"x": "int64"}))
    with pytest.raises(TypeError, match="colonnade's rows have named columns"):
        gen(yields(1), "int64")
    seen = []
    ds = gen(lambda name: iter(seen.append(name) or [{"x": 1}]), {"x": "int64"}, args=("f",))
    assert ds.to_table().num_rows == 1 and seen == [b"f"]  # TF hands text args as bytes


def test_interleave_of_tfrecord_files_and_parallel_reads(records):
    frame, paths = records
    files = D.from_tensor_slices({"filename": paths})
    mixed = files.interleave(lambda e: cn.data.TFRecordDataset(e["filename"]), cycle_length=2)
    by_one = cn.data.TFRecordDataset(paths, num_parallel_reads=2)
    a = mixed.to_table().column("record").to_pylist()
    assert a == by_one.to_table().column("record").to_pylist()
    ages = cn.io.parse_example(a, {"age": SPEC["age"]}).column("age").to_pylist()
    assert ages == [20, 26, 21, 27, 22, 28, 23, 29, 24, 25]  # one record from each in turn
    with pytest.raises(TypeError, match="map_func .* must return a Dataset"):
        files.interleave(lambda e: e, cycle_length=2)
    with pytest.raises(FileNotFoundError, match="No such file"):
        cn.data.TFRecordDataset([paths[0] + ".missing"])
    with pytest.raises(ValueError, match="buffer_size must be None or a count"):
        cn.data.TFRecordDataset(paths, buffer_size=-1)


def test_padded_batch_and_apply_errors():
    ds = D.from_generator(lambda: iter([{"v": [1, 2]}, {"v": [3]}]), {"v": "int64"}, {"v": [None]})
    with pytest.raises(KeyError, match="name 'w', which the elements do not have"):
        list(ds.padded_batch(2, padding_values={"w": 0}))
    with pytest.raises(ValueError, match="padding value 'x' is not a int64"):
        list(ds.padded_batch(2, padding_values={"v": "x"}))
    with pytest.raises(TypeError, match="padded_shapes of a labelled dataset is a"):
        D.from_tensor_slices(({"x": [1]}, [0])).padded_batch(1, padded_shapes={"x": []})
    with pytest.raises(TypeError, match="Dataset.apply: transformation_func must return"):
        ds.apply(lambda d: 3)


def test_list_files_interleaved_into_records(records):
    _, paths = records
    folder = os.path.dirname(paths[0])
    files = D.list_files(os.path.join(folder, "*.tfrecord"), shuffle=False)
    assert files.to_table().column("filename").to_pylist() == sorted(paths)
    mixed = files.interleave(cn.data.TFRecordDataset, cycle_length=2)  # TF's own spelling
    assert mixed.to_table().column("record").to_pylist() == (
        cn.data.TFRecordDataset(paths, num_parallel_reads=2).to_table().column("record").to_pylist()
    )
    shuffled = D.list_files(os.path.join(folder, "*.tfrecord"), seed=3)
    assert sorted(shuffled.to_table().column("filename").to_pylist()) == sorted(paths)
    with pytest.raises(FileNotFoundError, match="no files match the pattern"):
        D.list_files(os.path.join(folder, "*.none"))


def test_a_dataset_of_file_names_is_read_in_each_pass_order(records):
    frame, paths = records
    ages = {
        p: cn.io.parse_example(list(cn.io.tf_record_iterator(p)), SPEC)["age"].to_pylist()
        for p in paths
    }
    files = D.list_files(paths, seed=5)
    ds = cn.data.TFRecordDataset(files)
    orders = set()
    for epoch in range(6):
        names = [n for b in files.iterate(epoch) for n in b.column("filename").to_pylist()]
        orders.add(tuple(names))
        got = [r for b in ds.iterate(epoch) for r in b.column("record").to_pylist()]
        parsed = cn.io.parse_example(got, {"age": SPEC["age"]}).column("age").to_pylist()
        assert parsed == [a for n in names for a in ages[n]]
    assert len(orders) == 2  # reshuffled between passes, as TF's list_files
    with pytest.raises(TypeError, match="one string column"):
        cn.data.TFRecordDataset(D.from_dict({"n": [1]}))
