"""Make ``heads.json``: TF 2.15's heads' losses, predictions and metrics on fixed batches,
and ``tf.compat.v1.losses.compute_weighted_loss`` under each TF1 reduction name.

Run with a throw-away TensorFlow 2.15 (never a project dependency):

    /tmp/tfenv2/bin/python tests/estimators/golden/make_head_goldens.py

The AUC metrics are left out here: ``tf.keras.metrics.AUC``, which TF's heads use, has goldens
of its own (``make_tf_keras_auc.py``).
"""

import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "heads.json")

LOGITS_1 = [[-2.0], [-0.5], [0.3], [1.2], [2.5], [-1.1]]
LOGITS_2 = [[0.5, -1.0], [1.5, 2.0], [-0.3, 0.1], [2.2, -0.7], [0.0, 1.0], [1.1, 0.4]]
LOGITS_3 = [
    [1.0, -0.5, 0.2],
    [-1.2, 0.8, 2.0],
    [0.3, 0.3, -0.9],
    [2.5, -1.5, 0.0],
    [-0.4, 1.7, 0.6],
    [0.9, 0.1, -2.2],
]
WEIGHTS = [[1.0], [0.5], [2.0], [0.0], [1.5], [1.0]]

CASES = [
    {
        "name": "binary",
        "head": ("BinaryClassHead", {"weight_column": "w", "thresholds": [0.3, 0.7]}),
        "logits": LOGITS_1,
        "labels": [[0], [1], [0], [1], [1], [0]],
    },
    {
        "name": "binary_sum_named",
        "head": (
            "BinaryClassHead",
            {
                "label_vocabulary": ["neg", "pos"],
                "loss_reduction": "sum",
                "name": "task",
            },
        ),
        "logits": LOGITS_1,
        "labels": [["neg"], ["pos"], ["pos"], ["pos"], ["neg"], ["neg"]],
        "unweighted": True,
    },
    {
        "name": "multi_class",
        "head": ("MultiClassHead", {"n_classes": 3, "weight_column": "w"}),
        "logits": LOGITS_3,
        "labels": [[0], [2], [1], [0], [1], [2]],
    },
    {
        "name": "multi_label",
        "head": (
            "MultiLabelHead",
            {
                "n_classes": 3,
                "weight_column": "w",
                "thresholds": [0.5],
                "classes_for_class_based_metrics": [0, 2],
            },
        ),
        "logits": LOGITS_3,
        "labels": [[1, 0, 1], [0, 1, 1], [0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]],
    },
    {
        "name": "regression",
        "head": ("RegressionHead", {"label_dimension": 2, "weight_column": "w"}),
        "logits": LOGITS_2,
        "labels": [[0.4, -1.5], [1.0, 2.5], [0.2, 0.0], [3.0, -1.0], [-0.5, 1.2], [1.0, 1.0]],
    },
    {
        "name": "poisson",
        "head": ("PoissonRegressionHead", {"weight_column": "w"}),
        "logits": [[0.1], [0.7], [1.5], [-0.4], [2.0], [0.0]],
        "labels": [[0.0], [1.0], [3.0], [0.0], [7.0], [2.0]],
    },
    {
        "name": "poisson_partial_sum",
        "head": ("PoissonRegressionHead", {"compute_full_loss": False, "loss_reduction": "sum"}),
        "logits": [[0.1], [0.7], [1.5], [-0.4], [2.0], [0.0]],
        "labels": [[0.0], [1.0], [3.0], [0.0], [7.0], [2.0]],
        "unweighted": True,
    },
    {
        "name": "logistic",
        "head": ("LogisticRegressionHead", {"weight_column": "w"}),
        "logits": LOGITS_1,
        "labels": [[0.1], [0.9], [0.5], [1.0], [0.0], [0.3]],
    },
]


def _plain(value):
    value = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
    if value.dtype.kind in "SO":
        return np.vectorize(lambda b: b.decode())(value).tolist()
    return value.astype(np.float64).tolist()


def head_case(case):
    cls_name, kwargs = case["head"]
    head = getattr(tf.estimator, cls_name)(**kwargs)
    logits = tf.constant(case["logits"], tf.float32)
    labels = tf.constant(case["labels"])
    if labels.dtype == tf.int32:
        labels = tf.cast(labels, tf.int64)
    features = {} if case.get("unweighted") else {"w": tf.constant(WEIGHTS, tf.float32)}
    loss = head.loss(labels, logits, features=features, mode=tf.estimator.ModeKeys.TRAIN)
    predictions = {k: _plain(v) for k, v in head.predictions(logits).items()}
    metrics = head.metrics()
    head.update_metrics(metrics, features, logits, labels)
    results = {k: float(m.result()) for k, m in metrics.items() if "auc" not in k}
    return {
        "name": case["name"],
        "head": {"class": cls_name, **kwargs},
        "logits": case["logits"],
        "labels": case["labels"],
        "weights": None if case.get("unweighted") else WEIGHTS,
        "loss": float(loss),
        "predictions": predictions,
        "metrics": results,
    }


def reductions():
    losses = tf.constant([[0.5, 1.5], [2.0, 0.25], [3.0, 1.0], [0.75, 4.0]], tf.float32)
    weights = tf.constant([[1.0], [0.0], [2.0], [0.5]], tf.float32)
    R = tf.compat.v1.losses.Reduction
    out = {}
    for reduction in (R.SUM, R.MEAN, R.SUM_OVER_BATCH_SIZE, R.SUM_BY_NONZERO_WEIGHTS):
        value = tf.compat.v1.losses.compute_weighted_loss(losses, weights, reduction=reduction)
        out[reduction] = float(value)
    return {"losses": _plain(losses), "weights": _plain(weights), "reduced": out}


def main():
    golden = {
        "tf_version": tf.__version__,
        "heads": [head_case(c) for c in CASES],
        "reductions": reductions(),
    }
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=1)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
