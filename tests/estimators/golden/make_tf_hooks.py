"""Make ``tf_hooks.json`` with real TensorFlow: what a TF 1.x-style hook sees.

Not run by the tests (they read the committed file). Regenerate with a Python that has
``tensorflow-cpu==2.15.1`` and ``tensorflow-estimator==2.15.0``::

    /tmp/tfenv2/bin/python tests/estimators/golden/make_tf_hooks.py

A custom ``model_fn`` (``y = w x + b`` from zeros, mean squared error, gradient descent
0.1) trains 4 steps on 8 rows, then evaluates them in two batches of 4, with a hook that
records each call and, around every step, fetches the global step tensor, the loss and
the prediction ``y``. ``tf_hooks.json`` holds the calls in order and the fetched values.
"""

import json
import os
import tempfile

import numpy as np
import tensorflow as tf

X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(-1, 1)
Y = 3 * X + 1


def model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
    b = tf.compat.v1.get_variable("b", [1], initializer=tf.zeros_initializer())
    y_hat = tf.identity(tf.matmul(features["x"], w) + b, name="y")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": y_hat})
    loss = tf.identity(tf.compat.v1.losses.mean_squared_error(labels, y_hat), name="loss")
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class Recorder(tf.estimator.SessionRunHook):
    def __init__(self):
        self.calls, self.fetched = [], []

    def begin(self):
        self.calls.append("begin")
        self._step = tf.compat.v1.train.get_global_step()

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        self.calls.append("before_run")
        return tf.estimator.SessionRunArgs({"step": self._step, "loss": "loss:0", "y": "y:0"})

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        r = run_values.results
        self.fetched.append(
            {"step": int(r["step"]), "loss": float(r["loss"]), "y": r["y"][:, 0].tolist()}
        )

    def end(self, session):
        self.calls.append("end")


def main():
    est = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp())
    train = Recorder()
    est.train(lambda: ({"x": tf.constant(X)}, tf.constant(Y)), steps=4, hooks=[train])

    def eval_input():
        return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4)

    evaluation = Recorder()
    results = est.evaluate(eval_input, hooks=[evaluation])
    out = {
        "train_calls": train.calls,
        "train_fetched": train.fetched,
        "eval_calls": evaluation.calls,
        "eval_fetched": evaluation.fetched,
        "eval_loss": float(results["loss"]),
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_hooks.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
