"""A value that is not a number, in a column a model reads as numbers, is named with its
file, row and value on every input path (CSV, Parquet, JSON lines, TFRecord), as a
DataFrame's is."""

import json
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.data.sources import TableSource, first_non_number, first_non_number_in

fc = cn.feature_columns
ROWS = 300
BAD = 57  # the row holding "forty"


def frame(ages=None) -> pd.DataFrame:
    ages = [str(i % 90) for i in range(ROWS)] if ages is None else ages
    ages[BAD] = "forty"
    return pd.DataFrame({"age": ages, "y": np.arange(len(ages)) % 2})


def model(tmp_path):
    columns = [fc.numeric_column("age")]
    return cn.estimators.LinearRegressor(columns, model_dir=str(tmp_path / "m"))


def refused(tmp_path, data, **kwargs) -> str:
    with pytest.raises(
        ValueError
    ) as caught:  # ColumnArgumentError is both ValueError and TypeError
        model(tmp_path).fit(data, verbose=0, **kwargs)
    return str(caught.value)


def test_csv_names_file_row_and_value(tmp_path):
    path = tmp_path / "ages.csv"
    frame().to_csv(path, index=False)
    message = refused(tmp_path, str(path), label="y")
    assert message.startswith("column 'age' expects numeric values in feature 'age', got Arrow")
    assert f"'{path}', row {BAD} (from 0, the header not counted) holds 'forty', not a number" in (
        message
    )
    # the row as the file has it: line BAD + 2 (the header is line 1)
    assert path.read_text().splitlines()[BAD + 1].startswith("forty,")


def test_csv_read_through_a_tf_style_input_fn_too(tmp_path):
    path = tmp_path / "ages.csv"
    frame().to_csv(path, index=False)
    with pytest.raises(TypeError, match=rf"row {BAD} \(from 0, the header not counted\) holds"):
        model(tmp_path).train(lambda: cn.data.Dataset.from_csv(str(path), label="y").batch(64))


def test_parquet_names_file_row_and_value_of_a_text_column(tmp_path):
    path = tmp_path / "ages.parquet"
    frame().to_parquet(path)
    message = refused(tmp_path, str(path), label="y")
    assert f"'{path}', row {BAD} (from 0) holds 'forty', not a number, in column 'age'" in message


def test_the_second_of_two_files_is_named_with_its_own_row(tmp_path):
    (tmp_path / "d").mkdir()
    good = frame()
    good.loc[BAD, "age"] = "1"
    good.to_parquet(tmp_path / "d" / "a.parquet")
    frame().to_parquet(tmp_path / "d" / "b.parquet")
    message = refused(tmp_path, str(tmp_path / "d"), label="y")
    assert f"b.parquet', row {BAD} (from 0) holds 'forty'" in message


def test_json_lines_name_file_line_and_value(tmp_path):
    path = tmp_path / "ages.jsonl"
    rows = [{"age": "forty" if i == BAD else i % 90, "y": i % 2} for i in range(ROWS)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    message = refused(tmp_path, str(path), label="y")  # Arrow cannot even infer the schema
    assert message == (
        f"cannot read '{path}': line {BAD + 1}, key 'age' holds 'forty' (a string) where "
        "line 1 holds a number; a column of JSON lines has one type"
    )
    texts = [{"age": "forty" if i == BAD else str(i % 90), "y": i % 2} for i in range(ROWS)]
    path.write_text("".join(json.dumps(r) + "\n" for r in texts))
    message = refused(tmp_path, str(path), label="y")  # a column of strings throughout
    assert f"'{path}', line {BAD + 1} holds 'forty', not a number, in column 'age'" in message


def test_json_lines_whose_clash_comes_after_the_first_block(tmp_path):
    path = tmp_path / "late.jsonl"
    late = 120_000  # past the reader's first block (1 MiB), from which the schema comes
    with open(path, "w") as f:
        for i in range(late + 5):
            f.write(json.dumps({"age": "forty" if i == late else i % 90, "y": i % 2}) + "\n")
    message = refused(tmp_path, str(path), label="y", batch_size=50_000)
    assert message == (
        f"error reading '{path}': line {late + 1}, key 'age' holds 'forty' (a string) where "
        "line 1 holds a number; a column of JSON lines has one type"
    )


def test_tfrecord_names_file_record_and_value(tmp_path):
    path = tmp_path / "ages.tfrecord"
    cn.io.write_tfrecord(frame(), str(path))
    spec = {"age": cn.io.FixedLenFeature([1], "string"), "y": cn.io.FixedLenFeature([1], "int64")}
    data = cn.data.Dataset.from_tfrecord(str(path), spec, label="y")
    message = refused(tmp_path, data)
    assert f"'{path}', record {BAD} (from 0) holds 'forty', not a number, in column 'age'" in (
        message
    )


def test_a_dataframe_of_text_names_its_row_and_value(tmp_path):
    message = refused(tmp_path, frame(), label="y")
    assert f"the pandas DataFrame, row {BAD} (from 0) holds 'forty', not a number" in message


def test_numbers_written_as_text_are_not_culprits():
    assert first_non_number_in(pa.array(["1", "2.5e3", None, " 7 "])) is None
    assert first_non_number_in(pa.array([["1"], ["2", "x"]])) == (1, "x")
    table = pa.table({"age": frame()["age"].tolist()})
    source = TableSource(table, "table", unit_rows=50)  # the row counts across slices
    assert first_non_number(source, "age") == ("table", BAD, "forty")


def test_other_errors_are_left_as_they_were(tmp_path):
    """A numeric column of infinities is refused by its own check, unchanged."""
    data = pd.DataFrame({"age": [1.0, np.inf], "y": [0, 1]})
    message = refused(tmp_path, data, label="y")
    assert "holds" not in message and re.search("inf", message)


def test_a_csv_value_unlike_its_columns_type_names_the_column(tmp_path):
    """Arrow's own conversion error (a value unlike the type of the first rows, or of
    column_types) names the file, row and value; the column's name is added."""
    path = tmp_path / "ages.csv"
    frame().to_csv(path, index=False)
    with pytest.raises(ValueError) as caught:  # Arrow reads the first rows for the schema
        cn.data.Dataset.from_csv(str(path), label="y", column_types={"age": "int64"})
    message = str(caught.value)
    assert message.startswith(f"error reading '{path}' (csv): In CSV column #0: Row #{BAD + 2}")
    assert "invalid value 'forty'" in message
    assert "Column #0 is 'age', read as int64" in message


def test_a_json_lines_file_with_a_line_that_is_not_json_names_the_line(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"age": 1, "y": 0}\n{"age": 2, "y": 1\n')
    with pytest.raises(ValueError, match=r"rows.jsonl': line 2 is not JSON \("):
        cn.data.Dataset.from_files(str(path))
