"""Make csv_dataset.json: the batches TF 2.15's tf.data.experimental.make_csv_dataset
gives for the file of tests/data/test_csv_records.py (no shuffle, one epoch). Run with
TensorFlow in a throw-away venv: python tests/data/golden/make_csv_dataset.py
"""

import json
import os
import tempfile

import tensorflow as tf

TEXT = "age,city,income\n39,rome,1\n,paris,0\n50,?,1\n41,oslo,0\n"
CALLS = {
    "typed": dict(column_defaults=[[0], ["none"], [0]], na_value="?"),
    "selected": dict(select_columns=["city", "income"], column_defaults=[["-"], [0]]),
}


def main():
    path = os.path.join(tempfile.mkdtemp(), "rows.csv")
    with open(path, "w") as f:
        f.write(TEXT)
    out = {"text": TEXT, "calls": {}}
    for name, kwargs in CALLS.items():
        ds = tf.data.experimental.make_csv_dataset(
            path, 3, label_name="income", shuffle=False, num_epochs=1, **kwargs
        )
        batches = []
        for features, label in ds:
            batches.append(
                {
                    "features": {
                        k: [x.decode() if isinstance(x, bytes) else x.item() for x in v.numpy()]
                        for k, v in features.items()
                    },
                    "dtypes": {k: v.dtype.name for k, v in features.items()},
                    "label": label.numpy().tolist(),
                }
            )
        out["calls"][name] = {"kwargs": kwargs, "batches": batches}
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "csv_dataset.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
