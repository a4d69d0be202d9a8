"""cn.io.decode_csv against what TF 2.15's tf.io.decode_csv returned for the same records
(golden/make_decode_csv.py), errors included."""

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
