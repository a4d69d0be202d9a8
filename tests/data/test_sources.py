"""Sources: in-memory data, Parquet/CSV/IPC files, globs, directories, hive partitions,
pushed-down projection and filters, and the errors bad input gets."""

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
from datahelpers import ids_of, make_table

import colonnade as cn

Dataset = cn.data.Dataset


@pytest.mark.parametrize(
    "build",
    [
        lambda t: Dataset.from_arrow(t),
        lambda t: Dataset.from_arrow(t.to_batches(max_chunksize=100)),
        lambda t: Dataset.from_arrow(t.combine_chunks().to_batches()[0]),
        lambda t: Dataset.from_arrow(pa.RecordBatchReader.from_batches(t.schema, t.to_batches())),
        lambda t: Dataset.from_arrow(pads.dataset(t)),
        lambda t: Dataset.from_pandas(t.to_pandas()),
        lambda t: Dataset.from_dict(t.to_pydict()),
    ],
    ids=["table", "batches", "batch", "reader", "pyarrow-dataset", "pandas", "dict"],
)
def test_in_memory_sources_yield_every_row_in_order(table, build):
    out = build(table).to_table()
    assert out.column_names == ["id", "x", "k", "s"]
    assert out.column("id").to_pylist() == list(range(1000))
    assert out.column("s").to_pylist() == table.column("s").to_pylist()


def test_from_arrow_rejects_other_objects():
    with pytest.raises(TypeError, match="from_arrow takes"):
        Dataset.from_arrow(42)


def test_parquet_projection_and_filter_match_pandas(parquet_files, table):
    ds = Dataset.from_parquet(
        parquet_files, columns=["id", "x"], filter=(pc.field("k") >= 5) & (pc.field("x") < 0)
    )
    df = table.to_pandas()
    expected = df[(df.k >= 5) & (df.x < 0)][["id", "x"]].reset_index(drop=True)
    got = ds.to_table().to_pandas()
    pd.testing.assert_frame_equal(got, expected)
    assert ds.schema.names == ["id", "x"]


def test_filter_as_dnf_tuples(parquet_files, table):
    ds = Dataset.from_parquet(parquet_files, filter=[("k", "=", 3)])
    expected = [i for i, k in enumerate(table.column("k").to_pylist()) if k == 3]
    assert ids_of(ds) == expected


def test_filter_pushdown_skips_row_groups(tmp_path):
    # Row groups whose statistics exclude the filter are never read: a corrupt-typed row
    # group is not needed to prove it, the units list shows it.
    path = tmp_path / "sorted.parquet"
    pq.write_table(make_table(1000), path, row_group_size=100)
    ds = Dataset.from_parquet(path, filter=pc.field("id") >= 850).shard(1, 0)
    units = ds._node.source.units(ds._node.filter, split=True)
    assert len(units) == 2  # row groups 800-899 and 900-999 only
    assert ids_of(ds) == list(range(850, 1000))


def test_csv_column_types_are_honoured(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("id,zip,score,name\n1,02139,1.5,a\n2,10001,2.5,\n")
    ds = Dataset.from_csv(
        path, column_types={"zip": pa.string(), "score": "float32"}, null_values=[""]
    )
    schema = ds.schema
    assert schema.field("zip").type == pa.string()
    assert schema.field("score").type == pa.float32()
    assert schema.field("id").type == pa.int64()
    out = ds.to_table()
    assert out.column("zip").to_pylist() == ["02139", "10001"]
    assert out.column("name").to_pylist() == ["a", None]


def test_csv_without_header_and_other_delimiter(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("1;x\n2;y\n")
    ds = Dataset.from_csv(path, column_names=["n", "c"], delimiter=";", label="n")
    features, labels = next(iter(ds))
    assert features.column("c").to_pylist() == ["x", "y"]
    assert labels.tolist() == [1, 2]


def test_tsv_is_detected_from_extension(tmp_path):
    (tmp_path / "t.tsv").write_text("a\tb\n1\t2\n")
    assert Dataset.from_files(tmp_path / "t.tsv").to_table().to_pydict() == {"a": [1], "b": [2]}


def test_feather_and_ipc_files(tmp_path, table):
    feather.write_feather(table, tmp_path / "t.feather")
    with pa.ipc.new_file(tmp_path / "t.arrow", table.schema) as writer:
        writer.write_table(table)
    for name in ("t.feather", "t.arrow"):
        assert ids_of(Dataset.from_files(tmp_path / name)) == list(range(1000))


def test_glob_directory_list_and_url(parquet_files, tmp_path):
    expected = list(range(1000))
    assert ids_of(Dataset.from_files(str(tmp_path / "part-*.parquet"))) == expected
    assert ids_of(Dataset.from_files(tmp_path)) == expected
    assert ids_of(Dataset.from_files([str(p) for p in parquet_files[::-1]])) == (
        list(range(750, 1000)) + list(range(500, 750)) + list(range(250, 500)) + list(range(250))
    )
    assert ids_of(Dataset.from_files(f"file://{tmp_path}")) == expected


def test_hive_partition_columns_appear_and_filter_prunes(tmp_path, table):
    pads.write_dataset(
        table, tmp_path / "hive", format="parquet", partitioning=["k"], partitioning_flavor="hive"
    )
    ds = Dataset.from_files(tmp_path / "hive")
    assert "k" in ds.schema.names
    out = ds.to_table().sort_by("id")
    assert out.column("k").to_pylist() == table.column("k").to_pylist()
    globbed = Dataset.from_files(str(tmp_path / "hive" / "*" / "*.parquet"), columns=["id", "k"])
    assert globbed.to_table().sort_by("id").column("k").to_pylist() == table["k"].to_pylist()
    pruned = Dataset.from_files(tmp_path / "hive", filter=pc.field("k") == 4)
    assert len(pruned._node.source.units(pruned._node.filter)) == 1
    expected = [i for i, k in enumerate(table.column("k").to_pylist()) if k == 4]
    assert sorted(ids_of(pruned)) == expected


def test_missing_path_names_it(tmp_path):
    missing = tmp_path / "nope.parquet"
    with pytest.raises(FileNotFoundError, match="nope.parquet"):
        Dataset.from_files(missing)
    with pytest.raises(FileNotFoundError, match=r"nothing-\*\.csv"):
        Dataset.from_files(str(tmp_path / "nothing-*.csv"))
    (tmp_path / "ok.parquet").write_bytes(b"")
    with pytest.raises(FileNotFoundError, match="also-missing"):
        Dataset.from_files([tmp_path / "ok.parquet", tmp_path / "also-missing.parquet"])


def test_corrupt_file_names_it(parquet_files, tmp_path):
    bad = tmp_path / "zz-bad.parquet"
    bad.write_bytes(b"this is not parquet" * 10)
    with pytest.raises(ValueError, match="zz-bad.parquet"):
        Dataset.from_files(bad)
    # Found only when read (the schema came from a good file): still named.
    ds = Dataset.from_files([*parquet_files, bad])
    with pytest.raises(ValueError, match="zz-bad.parquet.*corrupt"):
        ids_of(ds)


def test_incompatible_schemas_name_file_and_column(tmp_path):
    pq.write_table(pa.table({"a": [1, 2], "b": [1.0, 2.0]}), tmp_path / "1.parquet")
    pq.write_table(pa.table({"a": ["x", "y"], "b": [1.0, 2.0]}), tmp_path / "2.parquet")
    with pytest.raises(ValueError, match=r"2\.parquet.*column 'a' is string.*int64"):
        Dataset.from_files(tmp_path).to_table()
    (tmp_path / "1.csv").write_text("a,b\n1,2\n")
    (tmp_path / "2.csv").write_text("a,b\n1,2\nfoo,3\n")
    with pytest.raises(ValueError, match=r"2\.csv.*column 'a'"):
        Dataset.from_files([tmp_path / "1.csv", tmp_path / "2.csv"]).to_table()


def test_unknown_format_and_mixed_formats(tmp_path):
    (tmp_path / "data.bin").write_bytes(b"x")
    with pytest.raises(ValueError, match="format="):
        Dataset.from_files(tmp_path / "data.bin")
    (tmp_path / "t.csv").write_text("a\n1\n")
    pq.write_table(pa.table({"a": [1]}), tmp_path / "t.parquet")
    with pytest.raises(ValueError, match=r"mixes file formats \['csv', 'parquet'\]"):
        Dataset.from_files(tmp_path)
    assert Dataset.from_files(tmp_path / "t.parquet", format="parquet").to_table().num_rows == 1


def test_missing_label_and_columns_list_the_columns(parquet_files, table):
    with pytest.raises(KeyError, match=r"'target' not found.*\['id', 'x', 'k', 's'\]"):
        Dataset.from_parquet(parquet_files, label="target")
    with pytest.raises(KeyError, match=r"'target' not found.*\['id', 'x', 'k', 's'\]"):
        Dataset.from_arrow(table).with_label("target")
    with pytest.raises(KeyError, match="'nope' not found"):
        Dataset.from_parquet(parquet_files, columns=["id", "nope"])
    with pytest.raises(KeyError, match="zz"):
        Dataset.from_arrow(table).filter(pc.field("zz") > 1)


def test_label_column_is_read_even_when_not_projected(parquet_files):
    ds = Dataset.from_parquet(parquet_files, columns=["x"], label="k")
    features, labels = next(iter(ds))
    assert features.schema.names == ["x"]
    assert labels.dtype == np.int64
    assert ds.label == "k"


def test_relative_paths(parquet_files, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert len(ids_of(Dataset.from_files("part-*.parquet"))) == 1000
    assert len(ids_of(Dataset.from_files(os.path.basename(parquet_files[0])))) == 250


@pytest.mark.parametrize("suffix, opener", [(".csv.gz", "gzip"), (".tsv.bz2", "bz2")])
def test_from_files_reads_compressed_csv(tmp_path, suffix, opener):
    import importlib

    sep = "\t" if suffix.startswith(".tsv") else ","
    path = tmp_path / f"t{suffix}"
    with importlib.import_module(opener).open(path, "wt") as f:
        f.write(f"a{sep}b\n1{sep}x\n2{sep}y\n")
    table = Dataset.from_files(str(path)).to_table()
    assert table.column("a").to_pylist() == [1, 2]
    assert table.column("b").to_pylist() == ["x", "y"]


def test_a_column_missing_from_the_first_file_names_that_file(tmp_path):
    """Issue 29: a directory whose first file lacks a column gave "column 'c' not found"
    without saying that the dataset's schema is the first file's."""
    pd.DataFrame({"a": [1.0], "y": [0]}).to_parquet(tmp_path / "p1.parquet")
    pd.DataFrame({"a": [1.0], "c": [2.0], "y": [0]}).to_parquet(tmp_path / "p2.parquet")
    first = str(tmp_path / "p1.parquet")
    with pytest.raises(KeyError, match=f"the columns of '{first}', the first of 2 files"):
        cn.data.Dataset.from_parquet(str(tmp_path), columns=["a", "c"])
    with pytest.raises(KeyError, match="label column 'c' not found.*the first of 2 files"):
        cn.data.Dataset.from_parquet(str(tmp_path), columns=["a"], label="c")


def test_the_first_files_schema_is_named_for_a_label_too_but_not_when_schema_is_given(tmp_path):
    pd.DataFrame({"a": [1.0], "y": [0]}).to_parquet(tmp_path / "p1.parquet")
    pd.DataFrame({"a": [1.0], "c": [2.0], "y": [0]}).to_parquet(tmp_path / "p2.parquet")
    with pytest.raises(KeyError, match="label column 'c' not found.*the first of 2 files"):
        cn.data.Dataset.from_parquet(str(tmp_path), label="c")
    schema = pa.schema([("a", pa.float64()), ("y", pa.int64())])
    with pytest.raises(KeyError) as info:
        cn.data.Dataset.from_parquet(str(tmp_path), schema=schema, columns=["a", "c"])
    assert "first of 2 files" not in str(info.value)
