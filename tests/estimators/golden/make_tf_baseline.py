"""Make the fixtures in ``tf_baseline/`` with real TensorFlow: model_dirs written by TF
2.15's ``tf.estimator.BaselineClassifier`` (3 classes) and ``BaselineRegressor`` (2 label
dimensions) with their default optimizer (Keras' Ftrl at learning rate 0.3), and what
TF does next, for tests/estimators/test_baseline_takeover.py (colonnade takes the
model_dir over and must continue as TF did).

Not run by the tests (they read the committed files). Regenerate with a Python that has
``tensorflow-cpu==2.15.1`` and ``tensorflow-estimator==2.15.0``::

    /tmp/tfenv/bin/python tests/estimators/golden/make_tf_baseline.py

Each model trains 5 steps on ``labels_a`` (one batch), keeps ``model.ckpt-5``; then
``<name>.json`` records TF's predictions at step 5, its variables (bias and Ftrl's
slots) after 5 more steps on ``labels_b`` (step 10), and the listing of both checkpoints.
"""

import json
import os
import shutil
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_tf_estimators import keep_only, listing  # noqa: E402 - the same model_dir clean-up

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tf_baseline")
X = np.arange(6, dtype=np.float32)[:, None]
MODELS = {
    "classifier": (
        lambda d: tf.estimator.BaselineClassifier(model_dir=d, n_classes=3),
        [[0], [1], [1], [2], [1], [0]],
        [[2], [2], [1], [2], [0], [2]],
    ),
    "regressor": (
        lambda d: tf.estimator.BaselineRegressor(model_dir=d, label_dimension=2),
        [[1.0, -1.0], [2.0, 0.5], [4.0, 0.0], [3.0, 2.0], [0.0, 1.0], [5.0, -2.0]],
        [[2.0, 1.0], [1.0, 1.5], [0.5, 0.0], [3.0, -2.0], [1.0, 0.0], [2.0, 2.0]],
    ),
}


def input_fn(labels):
    return lambda: ({"x": tf.constant(X)}, tf.constant(labels))


def variables(prefix):
    reader = tf.train.load_checkpoint(prefix)
    return {n: reader.get_tensor(n).tolist() for n, _ in tf.train.list_variables(prefix)}


def make(name):
    build, labels_a, labels_b = MODELS[name]
    model_dir = os.path.join(OUT, name)
    shutil.rmtree(model_dir, ignore_errors=True)
    build(model_dir).train(input_fn(labels_a), steps=5)
    keep_only(model_dir, 5)
    est = build(model_dir)
    predictions = [
        {k: v.tolist() for k, v in p.items() if k not in ("classes", "all_classes")}
        for p in est.predict(
            tf.compat.v1.estimator.inputs.numpy_input_fn(
                {"x": X[:2]}, batch_size=2, num_epochs=1, shuffle=False
            )
        )
    ]
    step5 = listing(os.path.join(model_dir, "model.ckpt-5"))
    scratch = model_dir + "_scratch"
    shutil.copytree(model_dir, scratch)
    build(scratch).train(input_fn(labels_b), steps=5)
    after = variables(os.path.join(scratch, "model.ckpt-10"))
    shutil.rmtree(scratch)
    golden = {
        "labels_a": labels_a,
        "labels_b": labels_b,
        "variables_5": step5,
        "predictions_5": predictions,
        "after_10": after,
    }
    with open(os.path.join(OUT, f"{name}.json"), "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for name in MODELS:
        make(name)
        print("wrote", name)
