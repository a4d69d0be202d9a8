"""Make decode_csv.json: what TF 2.15's tf.io.decode_csv returns (or that it raises) for
the cases of tests/data/test_csv_records.py. Run with TensorFlow in a throw-away venv:

    python tests/data/golden/make_decode_csv.py
"""

import json
import os

import tensorflow as tf

CASES = [
    {"records": ["39,Bob,1.5", ",Ann,"], "defaults": [[0], [""], [2.0]]},
    {"records": ["1,?,7", "2,x,?"], "defaults": [[0], ["d"], [0.5]], "na_value": "?"},
    {
        "records": ["a;1;x", "b;2;y"],
        "defaults": [[0], [""]],
        "select_cols": [1, 2],
        "field_delim": ";",
    },
    {"records": ['"a,b",1', '"c",2'], "defaults": [[""], [0]]},
    {"records": ['"a,b",1'], "defaults": [[""], [""], [0]], "use_quote_delim": False},
    {"records": [""], "defaults": [["d"]]},
    {"records": ["1,2", "3"], "defaults": [[0], [0]]},
    {"records": ["1,", "3,4"], "defaults": [[0], []]},
    {"records": ["x"], "defaults": [[0]]},
    {"records": ["1,2,3"], "defaults": [[0], [0]]},
    {"records": ["1,2", ""], "defaults": [[0], [0]]},
]


def run(case):
    kwargs = {
        k: case[k]
        for k in ("na_value", "select_cols", "field_delim", "use_quote_delim")
        if k in case
    }
    try:
        out = tf.io.decode_csv(case["records"], record_defaults=case["defaults"], **kwargs)
    except (tf.errors.InvalidArgumentError, ValueError) as e:
        return {"error": type(e).__name__, "message": str(e).splitlines()[0][:200]}
    values = []
    for t in out:
        v = t.numpy()
        values.append(
            {
                "dtype": v.dtype.name if v.dtype != object else "string",
                "values": [x.decode() if isinstance(x, bytes) else x.item() for x in v.reshape(-1)],
            }
        )
    return {"values": values}


if __name__ == "__main__":
    golden = [dict(case, tf=run(case)) for case in CASES]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "decode_csv.json")
    with open(path, "w") as f:
        json.dump(golden, f, indent=1)
