"""required_columns: the raw columns a set of feature columns reads, duck-typed."""

from dataclasses import dataclass

import pyarrow.parquet as pq
import pytest
from datahelpers import make_table

import colonnade as cn


@dataclass(frozen=True)
class Numeric:
    key: str

    @property
    def input_keys(self):
        return (self.key,)


@dataclass(frozen=True)
class Crossed:
    keys: tuple

    @property
    def input_keys(self):
        return tuple(k for key in self.keys for k in cn.data.required_columns([key]))


@dataclass(frozen=True)
class Embedding:
    categorical_column: object
    dimension: int = 4

    @property
    def input_keys(self):
        return self.categorical_column.input_keys


@dataclass(frozen=True)
class KeyOnly:
    key: str


@dataclass(frozen=True)
class NameOnly:
    name: str


def test_input_keys_key_and_name_in_first_seen_order():
    columns = [
        Crossed(("s", Numeric("k"))),
        Numeric("x"),
        Embedding(Numeric("s")),
        KeyOnly("a"),
        NameOnly("b"),
        "c",
    ]
    assert cn.data.required_columns(columns, label="y", weight=Numeric("w")) == [
        "s",
        "k",
        "x",
        "a",
        "b",
        "c",
        "y",
        "w",
    ]
    assert cn.data.required_columns(Numeric("x"), label=["y1", "y2"]) == ["x", "y1", "y2"]


def test_unknown_objects_are_refused():
    with pytest.raises(TypeError, match="cannot tell which input columns"):
        cn.data.required_columns([object()])


def test_reading_only_the_required_columns(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(make_table(100), path)
    needed = cn.data.required_columns([Numeric("x")], label="k")
    ds = cn.data.Dataset.from_parquet(path, columns=needed, label="k")
    assert ds.schema.names == ["x", "k"]
    features, labels = next(iter(ds.batch(10)))
    assert features.schema.names == ["x"] and labels.shape == (10,)
