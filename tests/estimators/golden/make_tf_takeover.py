"""Make the fixtures in ``tf_takeover/`` with real TensorFlow: small model_dirs written by
``tf.compat.v1`` canned estimators and by a custom ``model_fn`` with each
``tf.compat.v1.train`` optimizer (TF1's slot names: ``<var>/Adam``, ``<var>/Adam_1``,
``beta1_power``, ``<var>/Momentum``, ``<var>/Ftrl_1``, ...), and what TF predicts.

Not run by the tests (they read the committed files). Regenerate with a Python that has
``tensorflow-cpu==2.15.1`` and ``tensorflow-estimator==2.15.0``::

    /work/tfenv/bin/python tests/estimators/golden/make_tf_takeover.py [NAME ...]

``data.npz`` holds the inputs: ``x`` (64 rows of 3 floats) and ``y`` for the first
training, ``more_x``/``more_y`` (160 rows) for the 10 steps after, ``cat`` and
``more_cat`` a string column for the linear model. Every model is trained 20 steps in
batches of 16 (no shuffle); its model_dir keeps ``model.ckpt-20`` and TF's ``checkpoint``
file. ``<name>.npz`` holds ``predictions``: TF's predictions on the first 16 rows of
``more_x`` at step 20, and ``after/<variable>``: every variable after 10 more steps over
``more_x`` (step 30). ``<name>.json`` lists the variables at steps 20 and 30 and TF's
``evaluate`` loss on the 16 rows.

Each fixture is consistent in itself (its checkpoint, predictions and later variables
come from one run); TF's initial values depend on what the process built before, so
regenerating one model alone gives other numbers.
"""

import json
import os
import shutil
import sys
import tempfile

import numpy as np
import tensorflow as tf
from make_tf_estimators import keep_only, listing  # the same model_dir clean-up

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tf_takeover")
BATCH = 16
v1 = tf.compat.v1
fc = tf.feature_column
CATS = ["a", "b", "c"]


def data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(224, 3)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3).astype(np.float32)
    cat = np.array(CATS)[rng.integers(0, 3, 224)]
    return {
        "x": x[:64], "y": y[:64], "cat": cat[:64],
        "more_x": x[64:], "more_y": y[64:], "more_cat": cat[64:],
    }  # fmt: skip


def input_fn(x, y, cat, repeat, label_dtype=np.float32):
    def fn():
        labels = y.reshape(-1, 1).astype(label_dtype)
        ds = tf.data.Dataset.from_tensor_slices(({"x": x, "cat": cat}, labels)).batch(BATCH)
        return ds.repeat() if repeat else ds

    return fn


OPTIMIZERS = {
    "Adam": lambda: v1.train.AdamOptimizer(0.01),
    "Momentum": lambda: v1.train.MomentumOptimizer(0.01, 0.9),
    "Adagrad": lambda: v1.train.AdagradOptimizer(0.1),
    "Adadelta": lambda: v1.train.AdadeltaOptimizer(1.0),
    "RMSProp": lambda: v1.train.RMSPropOptimizer(0.01, momentum=0.5),
    "Ftrl": lambda: v1.train.FtrlOptimizer(0.1),
    "ProximalAdagrad": lambda: v1.train.ProximalAdagradOptimizer(0.1),
    "AdagradDA": lambda: v1.train.AdagradDAOptimizer(0.1, v1.train.get_global_step()),
}


def custom_model_fn(optimizer_name):
    def model_fn(features, labels, mode):
        hidden = v1.layers.dense(features["x"], 4, activation=tf.nn.relu, name="hidden")
        out = v1.layers.dense(hidden, 1, name="out")
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"y": out})
        loss = v1.losses.mean_squared_error(labels, out)
        optimizer = OPTIMIZERS[optimizer_name]()
        train_op = optimizer.minimize(loss, global_step=v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, {"y": out}, loss, train_op)

    return model_fn


def config():
    return tf.estimator.RunConfig(tf_random_seed=7, save_checkpoints_steps=1000)


def models():
    x_col = fc.numeric_column("x", shape=(3,))
    cat_col = fc.categorical_column_with_vocabulary_list("cat", CATS)
    out = {
        f"custom_{name.lower()}": (
            lambda d, name=name: tf.estimator.Estimator(
                custom_model_fn(name), model_dir=d, config=config()
            ),
            "y",
        )
        for name in OPTIMIZERS
    }
    out["v1_dnn_bn_adam"] = (
        lambda d: v1.estimator.DNNRegressor(
            [4], [x_col], model_dir=d, config=config(), optimizer="Adam", batch_norm=True
        ),
        "predictions",
    )
    out["dnn_bn_adam"] = (
        lambda d: tf.estimator.DNNRegressor(
            [4], [x_col], model_dir=d, config=config(), optimizer="Adam", batch_norm=True
        ),
        "predictions",
    )
    out["v1_linear_ftrl"] = (
        lambda d: v1.estimator.LinearRegressor([x_col, cat_col], model_dir=d, config=config()),
        "predictions",
    )
    return out


def make(name, d):
    model_dir = os.path.join(OUT, name)
    shutil.rmtree(model_dir, ignore_errors=True)
    build, key = models()[name]
    build(model_dir).train(input_fn(d["x"], d["y"], d["cat"], repeat=True), steps=20)
    keep_only(model_dir, 20)
    expected = {"key": key, "variables_20": listing(os.path.join(model_dir, "model.ckpt-20"))}
    est = build(model_dir)
    rows = (d["more_x"][:16], d["more_y"][:16], d["more_cat"][:16])
    preds = list(est.predict(input_fn(*rows, repeat=False)))
    arrays = {"predictions": np.stack([p[key] for p in preds])}
    expected["evaluate"] = {k: float(v) for k, v in est.evaluate(input_fn(*rows, False)).items()}
    shutil.rmtree(os.path.join(model_dir, "eval"), ignore_errors=True)
    scratch = tempfile.mkdtemp()
    shutil.copytree(model_dir, os.path.join(scratch, "m"))
    more = input_fn(d["more_x"], d["more_y"], d["more_cat"], repeat=False)
    build(os.path.join(scratch, "m")).train(more, steps=10)
    prefix = os.path.join(scratch, "m", "model.ckpt-30")
    expected["variables_30"] = listing(prefix)
    for var, _ in tf.train.list_variables(prefix):
        arrays[f"after/{var}"] = np.asarray(tf.train.load_variable(prefix, var))
    shutil.rmtree(scratch)
    np.savez_compressed(os.path.join(OUT, f"{name}.npz"), **arrays)
    with open(os.path.join(OUT, f"{name}.json"), "w") as f:
        json.dump(expected, f, indent=1)


def main(argv):
    os.makedirs(OUT, exist_ok=True)
    d = data()
    np.savez_compressed(os.path.join(OUT, "data.npz"), **d)
    for name in argv or list(models()):
        make(name, d)


if __name__ == "__main__":
    main(sys.argv[1:])
