"""cn.io.decode_csv against what TF 2.15's tf.io.decode_csv returned for the same records
(golden/make_decode_csv.py), errors included."""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import colonnade as cn

CASES = json.loads((Path(__file__).parent / "golden" / "decode_csv.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[str(c["records"]) for c in CASES])
def test_decode_csv_as_tf(case):
    kwargs = {
        k: case[k]
        for k in ("na_value", "select_cols", "field_delim", "use_quote_delim")
        if k in case
    }
    want = case["tf"]
    if "error" in want:
        message = want["message"].split("}} ")[-1].split(" [Op:")[0]
        with pytest.raises(ValueError) as raised:
            cn.io.decode_csv(case["records"], case["defaults"], **kwargs)
        assert str(raised.value) == message
        return
    got = cn.io.decode_csv(case["records"], case["defaults"], **kwargs)
    assert len(got) == len(want["values"])
    for column, expected in zip(got, want["values"]):
        assert (column.dtype.name if column.dtype != object else "string") == expected["dtype"]
        assert column.tolist() == expected["values"]


def test_decode_csv_keeps_the_records_shape_and_takes_numpy_dtypes():
    records = np.array([["1,2.5", "3,4"], ["5,6", "7,"]])
    ints, floats = cn.io.decode_csv(records, [[np.int64(0)], [np.float64(-1)]])
    assert ints.shape == floats.shape == (2, 2)
    assert ints.dtype == np.int64 and floats.dtype == np.float64
    assert floats.tolist() == [[2.5, 4.0], [6.0, -1.0]]
    lines = [b"a,1", b"b,2"]  # bytes, as TextLineDataset gives them
    assert cn.io.decode_csv(lines, [[""], [0]])[0].tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="at most one value"):
        cn.io.decode_csv(["1"], [[0, 1]])
    with pytest.raises(ValueError, match="select_cols selects 1 columns"):
        cn.io.decode_csv(["1,2"], [[0], [0]], select_cols=[1])


CSV_GOLDEN = json.loads((Path(__file__).parent / "golden" / "csv_dataset.json").read_text())


@pytest.mark.parametrize("name", sorted(CSV_GOLDEN["calls"]))
def test_make_csv_dataset_gives_tfs_batches(tmp_path, name):
    path = tmp_path / "rows.csv"
    path.write_text(CSV_GOLDEN["text"])
    call = CSV_GOLDEN["calls"][name]
    ds = cn.data.experimental.make_csv_dataset(
        str(path), 3, label_name="income", shuffle=False, num_epochs=1, **call["kwargs"]
    )
    got = [(features.to_pydict(), labels.tolist()) for features, labels in ds]
    assert got == [(b["features"], b["label"]) for b in call["batches"]]
    features, _ = next(iter(ds))
    dtypes = {
        f.name: "string" if f.type == "string" else f.type.to_pandas_dtype().__name__
        for f in features.schema
    }
    assert dtypes == call["batches"][0]["dtypes"]


def test_make_csv_dataset_defaults_shuffle_and_repeat(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("x,y\n" + "".join(f"{i},{i % 2}\n" for i in range(20)))
    ds = cn.data.make_csv_dataset(str(path), 4, label_name="y", shuffle_seed=3)
    xs = [features.column("x").to_pylist() for features, _ in itertools.islice(ds, 10)]
    assert len(xs) == 10  # num_epochs=None: it repeats past the 20 rows
    assert sorted(sum(xs[:5], [])) == list(range(20)) and sum(xs[:5], []) != list(range(20))
    with pytest.raises(ValueError, match="need column_names"):
        cn.data.make_csv_dataset(str(path), 4, header=False)
    with pytest.raises(ValueError, match="compression_type='GZIP'"):
        cn.data.make_csv_dataset(str(path), 4, compression_type="GZIP")
    with pytest.raises(ValueError, match="3 entries for 2 columns"):
        cn.data.make_csv_dataset(str(path), 4, column_defaults=[[0], [0], [0]])


@pytest.mark.parametrize(
    "record, expected",
    [  # TF 2.15's tf.io.decode_csv of each record, record_defaults [[0], [''], [0.0]]
        ("39, State-gov, 77516", [[39], [" State-gov"], [77516.0]]),
        (" 39 , x ,1.5 ", [[39], [" x "], [1.5]]),
        ("\t39,\tx,\t2", [[39], ["\tx"], [2.0]]),
        (" 5, x, ", [[5], [" x"], [0.0]]),
        (" 5, x,  ", [[5], [" x"], [0.0]]),
    ],
)
def test_numbers_may_have_whitespace_around_them_as_tf(record, expected):
    out = cn.io.decode_csv([record], record_defaults=[[0], [""], [0.0]])
    assert [np.asarray(o).tolist() for o in out] == expected


def test_whitespace_inside_a_number_is_tfs_error():
    with pytest.raises(ValueError, match="Field 0 in record 0 is not a valid int32: 1 2"):
        cn.io.decode_csv(["1 2, x, 3"], record_defaults=[[0], [""], [0]])
