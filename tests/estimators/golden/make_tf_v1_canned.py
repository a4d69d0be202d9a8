"""Make tf_v1_canned.json: TF 1's canned linear estimators (tf.compat.v1.estimator), trained
3 steps with their defaults, for tests/estimators/test_canned_v1.py.

Linear models start from zeros, so TF's weights after 3 steps are reproducible from the
data alone: they pin TF 1's defaults (named Ftrl at 0.2, loss_reduction "weighted_sum").
Run with TensorFlow 2.15 (a throw-away venv; TF is never a colonnade dependency):

    python tests/estimators/golden/make_tf_v1_canned.py
"""

import json
import os
import tempfile

import numpy as np
import tensorflow as tf

ROWS = {
    "x": [0.5, -1.0, 2.0, 0.0, 1.5, -0.5, 3.0, 1.0],
    "c": ["a", "b", "c", "a", "b", "b", "c", "a"],
}
CLASS_LABELS = [0, 1, 1, 0, 1, 0, 1, 0]
REGRESSION_LABELS = [1.0, -2.0, 3.5, 0.5, 2.0, -1.0, 5.0, 1.5]
BATCH, STEPS = 4, 3


def columns():
    fc = tf.feature_column
    return [
        fc.numeric_column("x"),
        fc.categorical_column_with_vocabulary_list("c", ["a", "b", "c"]),
    ]


def input_fn(labels):
    def make():
        data = tf.data.Dataset.from_tensor_slices(({k: v for k, v in ROWS.items()}, labels))
        return data.batch(BATCH).repeat()

    return make


def trained(estimator_class, labels, **kwargs):
    model_dir = tempfile.mkdtemp()
    est = estimator_class(columns(), model_dir=model_dir, **kwargs)
    est.train(input_fn(labels), steps=STEPS)
    names = [n for n in est.get_variable_names() if "Ftrl" not in n]
    return {
        "variables": {n: np.asarray(est.get_variable_value(n)).tolist() for n in names},
        "loss_after": float(est.evaluate(input_fn(labels), steps=1)["loss"]),
    }


def main():
    v1 = tf.compat.v1.estimator
    golden = {
        "rows": ROWS,
        "class_labels": CLASS_LABELS,
        "regression_labels": REGRESSION_LABELS,
        "batch": BATCH,
        "steps": STEPS,
        "LinearClassifier": trained(v1.LinearClassifier, CLASS_LABELS),
        "LinearRegressor": trained(v1.LinearRegressor, REGRESSION_LABELS),
        "tf_version": tf.__version__,
    }
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_v1_canned.json")
    with open(out, "w") as f:
        json.dump(golden, f, indent=1)


if __name__ == "__main__":
    main()
