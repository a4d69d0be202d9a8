"""select, filter, map, batch, repeat, shard and labels: row contents and order."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from datahelpers import ids_of, make_table

import colonnade as cn

Dataset = cn.data.Dataset


@pytest.mark.parametrize("drop", [False, True])
def test_batch_sizes_and_contents(table, drop):
    ds = Dataset.from_arrow(table.to_batches(max_chunksize=37)).batch(64, drop_remainder=drop)
    sizes = [b.num_rows for b in ds]
    assert sizes == [64] * 15 + ([] if drop else [40])
    assert ids_of(ds) == list(range(960 if drop else 1000))
    assert all(isinstance(b, pa.RecordBatch) for b in ds)


def test_batch_slices_without_copying_when_inside_one_input_batch(table):
    source = table.combine_chunks().to_batches()[0]
    first = next(iter(Dataset.from_arrow(source).batch(10)))
    assert first.column("x").buffers()[1].address == source.column("x").buffers()[1].address


def test_batch_again_regroups_and_rejects_bad_sizes(table):
    assert [b.num_rows for b in Dataset.from_arrow(table).batch(300).batch(400)] == [400] * 2 + [
        200
    ]
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        Dataset.from_arrow(table).batch(0)


def test_select_and_filter_on_a_stream_after_map(table):
    ds = Dataset.from_arrow(table).map(lambda b: b).filter(pc.field("k") == 2).select(["s", "id"])
    expected = [i for i, k in enumerate(table.column("k").to_pylist()) if k == 2]
    out = ds.to_table()
    assert out.column_names == ["s", "id"]
    assert out.column("id").to_pylist() == expected
    assert ds.schema is None  # unknown after map, until read


def test_filter_after_batch_keeps_matching_rows_of_each_batch(table):
    ds = Dataset.from_arrow(table).batch(100).filter(pc.field("k") < 5)
    k = table.column("k").to_numpy()
    assert [b.num_rows for b in ds] == [
        int((k[i : i + 100] < 5).sum()) for i in range(0, 1000, 100)
    ]


def test_map_accepts_tables_dataframes_and_dicts(table):
    def to_df(b):
        df = b.to_pandas()
        df["y"] = df["id"] * 2
        return df

    for fn in (to_df, lambda b: pa.Table.from_batches([b]), lambda b: {"id": b.column("id")}):
        ds = Dataset.from_arrow(table).batch(128).map(fn)
        assert ids_of(ds) == list(range(1000))
    assert Dataset.from_arrow(table).map(to_df).to_table().column("y").to_pylist()[:3] == [0, 2, 4]
    with pytest.raises(TypeError, match="must return a pyarrow RecordBatch"):
        list(Dataset.from_arrow(table).map(lambda b: 3))


def test_labels_single_and_multiple(table):
    features, labels = next(iter(Dataset.from_arrow(table, label="x").batch(8)))
    assert features.schema.names == ["id", "k", "s"]
    assert isinstance(labels, np.ndarray) and labels.dtype == np.float64 and labels.shape == (8,)
    np.testing.assert_array_equal(labels, table.column("x").to_numpy()[:8])
    features, labels = next(iter(Dataset.from_arrow(table, label=["x", "k"]).batch(8)))
    assert features.schema.names == ["id", "s"]
    assert isinstance(labels, pa.RecordBatch) and labels.schema.names == ["x", "k"]
    plain = Dataset.from_arrow(table, label="x").with_label(None)
    assert isinstance(next(iter(plain)), pa.RecordBatch)


def test_map_on_labelled_dataset_takes_and_returns_features_and_labels(table):
    def scale(features, labels):
        return features.append_column("double", pc.multiply(features.column("id"), 2)), labels + 1

    ds = Dataset.from_arrow(table, label="k").batch(10).map(scale)
    features, labels = next(iter(ds))
    assert features.schema.names == ["id", "x", "s", "double"]
    np.testing.assert_array_equal(labels, table.column("k").to_numpy()[:10] + 1)
    with pytest.raises(TypeError, match=r"return a \(features, labels\) tuple"):
        next(iter(Dataset.from_arrow(table, label="k").map(lambda f, y: f)))


def test_select_keeps_the_label(table):
    ds = Dataset.from_arrow(table, label="k").select(["x"])
    features, labels = next(iter(ds))
    assert features.schema.names == ["x"] and len(labels) == 1000


def test_repeat_counts_and_epoch_boundaries(table):
    ds = Dataset.from_arrow(table.slice(0, 5))
    assert ids_of(ds.repeat(3)) == [0, 1, 2, 3, 4] * 3
    assert ids_of(ds.repeat(0)) == []
    # batch before repeat: each epoch ends with its own small batch (TF's num_epochs)
    assert [b.num_rows for b in ds.batch(2).repeat(2)] == [2, 2, 1, 2, 2, 1]
    # repeat before batch: batches span epochs
    assert [b.num_rows for b in ds.repeat(2).batch(4)] == [4, 4, 2]
    forever = iter(ds.repeat())
    assert ids_of(next(forever) for _ in range(3)) == [0, 1, 2, 3, 4] * 3
    assert ids_of(ds.filter(pc.field("id") > 99).repeat()) == []  # empty forever is empty


@pytest.mark.parametrize(
    "build",
    [
        lambda files: Dataset.from_parquet(files),  # 20 row groups: by unit
        lambda files: Dataset.from_arrow(make_table(1000)),  # 1 table slice: by row
        lambda files: Dataset.from_arrow(make_table(1000)).map(lambda b: b),  # stream: by row
        lambda files: Dataset.from_parquet(files).shuffle(50, seed=4),  # pushed under shuffle
    ],
    ids=["row-groups", "table", "stream", "shuffled"],
)
@pytest.mark.parametrize("num_shards", [1, 3, 7])
def test_shards_are_disjoint_and_complete(parquet_files, build, num_shards):
    parts = [ids_of(build(parquet_files).shard(num_shards, i)) for i in range(num_shards)]
    every = sorted(i for part in parts for i in part)
    assert every == list(range(1000))
    if num_shards > 1:
        assert all(100 <= len(part) <= 500 for part in parts)


def test_shard_by_file_keeps_whole_row_groups(parquet_files):
    part = ids_of(Dataset.from_parquet(parquet_files).shard(2, 1))
    assert part[:50] == list(range(50, 100))  # the second row group, whole


def test_shard_by_row_and_after_batch(table):
    assert ids_of(Dataset.from_arrow(table.slice(0, 10)).shard(3, 1)) == [1, 4, 7]
    batches = Dataset.from_arrow(table).batch(100).shard(4, 1)
    assert [ids_of([b])[0] for b in batches] == [100, 500, 900]
    with pytest.raises(ValueError, match=r"index must be in \[0, 3\)"):
        Dataset.from_arrow(table).shard(3, 3)


def test_repr_lists_the_steps(parquet_files):
    ds = Dataset.from_parquet(parquet_files, label="k").shuffle(10, seed=1).batch(4).prefetch()
    text = repr(ds)
    assert "4 paths (parquet)" in text and "shuffle(10, seed=1)" in text
    assert "batch(4, False)" in text and "prefetch(2)" in text and "label='k'" in text


def test_a_batch_size_beyond_what_arrow_reads_is_refused_by_name():
    """Issue 29: batch_size = 2^62 in a job config ended in a 56-line OverflowError from
    inside pyarrow's reader thread."""
    ds = cn.data.Dataset.from_dict({"x": [1.0, 2.0]})
    with pytest.raises(ValueError, match=r"batch_size must be at most 2,147,483,647 \(2\^31 - 1\)"):
        ds.batch(2**62)
    with pytest.raises(ValueError, match="buffer_size must be at most"):
        ds.shuffle(2**40)
    assert ds.batch(2**31 - 1).plan.batch_size == 2**31 - 1
