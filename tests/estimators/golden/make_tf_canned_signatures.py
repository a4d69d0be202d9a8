"""Make tf_canned_signatures.json: the constructor signatures of TF's six canned
estimators and its three Baseline estimators, in ``tf.estimator`` (TF 2) and
``tf.compat.v1.estimator`` (TF 1), and the learning rates and optimizer names TF 1's
canned modules give names, for tests/estimators/test_canned_defaults.py (which checks
colonnade's TF 2 classes and its table of TF 1's changes,
``estimators/canned/defaults.py``, against them).

A default is written as JSON; a function default (``tf.nn.relu``) as ``{"function":
name}``; a required argument has no ``default``. Run with TensorFlow 2.15 (a throw-away
venv; TF is never a colonnade dependency):

    python tests/estimators/golden/make_tf_canned_signatures.py
"""

import inspect
import json
from pathlib import Path

import tensorflow as tf
from tensorflow_estimator.python.estimator.canned import (
    baseline,
    dnn,
    dnn_linear_combined,
    linear,
    optimizers,
)

NAMES = (
    "LinearClassifier",
    "LinearRegressor",
    "DNNClassifier",
    "DNNRegressor",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedRegressor",
    "BaselineClassifier",
    "BaselineRegressor",
    "BaselineEstimator",
)


def parameters(cls):
    out = []
    for name, p in inspect.signature(cls.__init__).parameters.items():
        if name == "self":
            continue
        entry = {"name": name}
        if p.default is not inspect.Parameter.empty:
            default = p.default
            entry["default"] = {"function": default.__name__} if callable(default) else default
        out.append(entry)
    return out


def main():
    golden = {
        "tf_version": tf.__version__,
        "tf2": {n: parameters(getattr(tf.estimator, n)) for n in NAMES},
        "tf1": {n: parameters(getattr(tf.compat.v1.estimator, n)) for n in NAMES},
        "tf1_learning_rates": {
            "dnn": dnn._LEARNING_RATE,
            "linear": linear._LEARNING_RATE,
            "combined_dnn": dnn_linear_combined._DNN_LEARNING_RATE,
            "combined_linear": dnn_linear_combined._LINEAR_LEARNING_RATE,
            "baseline": baseline._LEARNING_RATE,
        },
        "tf1_optimizer_names": sorted(optimizers._OPTIMIZER_CLS_NAMES),
    }
    path = Path(__file__).with_name("tf_canned_signatures.json")
    path.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
