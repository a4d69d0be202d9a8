"""Make tf_auc.json: tf.compat.v1.metrics.auc (TF 2.15, graph mode) on fixed data, for
tests/estimators/test_metric_ops.py: its thresholded ROC/PR areas under each summation
method, two batches accumulated, weighted. Run with TensorFlow in a throw-away venv."""

import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(7)
LABELS = rng.integers(0, 2, 300).astype(np.float32)
SCORES = np.clip(LABELS * 0.25 + rng.uniform(size=300) * 0.75, 0, 1).astype(np.float32)
WEIGHTS = rng.uniform(0.5, 2.0, 300).astype(np.float32)
CASES = [
    dict(curve="ROC", num_thresholds=200, summation_method="trapezoidal"),
    dict(curve="ROC", num_thresholds=10, summation_method="minoring"),
    dict(curve="ROC", num_thresholds=10, summation_method="majoring"),
    dict(curve="PR", num_thresholds=200, summation_method="trapezoidal"),
    dict(curve="PR", num_thresholds=50, summation_method="careful_interpolation"),
    dict(curve="ROC", thresholds=[0.25, 0.5, 0.75], summation_method="trapezoidal"),
]


def tf_auc(case, weighted):
    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.float32, [None])
        scores = tf.compat.v1.placeholder(tf.float32, [None])
        weights = tf.compat.v1.placeholder(tf.float32, [None]) if weighted else None
        value, update = tf.compat.v1.metrics.auc(labels, scores, weights=weights, **case)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.local_variables_initializer())
            for part in (slice(0, 120), slice(120, 300)):  # two batches, accumulated
                feed = {labels: LABELS[part], scores: SCORES[part]}
                if weighted:
                    feed[weights] = WEIGHTS[part]
                sess.run(update, feed)
            return float(sess.run(value))


if __name__ == "__main__":
    out = {
        "labels": LABELS.tolist(),
        "scores": SCORES.tolist(),
        "weights": WEIGHTS.tolist(),
        "cases": [
            dict(case, weighted=w, auc=tf_auc(case, w)) for case in CASES for w in (False, True)
        ],
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_auc.json")
    with open(path, "w") as f:
        json.dump(out, f)
