"""The jobs of ``benchmarks/estimators.py`` with TensorFlow 2.15's tf.estimator, for
comparison on the same machine. TensorFlow is not a colonnade dependency: run this in a
separate environment,

    python -m venv /tmp/tfenv && /tmp/tfenv/bin/pip install tensorflow-cpu==2.15.1 pandas pyarrow
    /tmp/tfenv/bin/python benchmarks/tf_estimators.py

It reads the Adult data shipped in colonnade/datasets/ and generates the same click log.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np
import pandas as pd
import tensorflow as tf
from workloads import click_log, click_log_columns, load_census_module, run_estimator_jobs

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "colonnade", "datasets")
fc = tf.feature_column
CENSUS = load_census_module()  # colonnade/census.py: plain Python, no colonnade import


def census_columns():
    """``colonnade/demo.py``'s columns (TF's census tutorial), built by tf.feature_column."""

    def standardize(mean, std):
        return lambda x: (x - mean) / std

    return CENSUS.wide_and_deep_columns(fc, standardize=standardize, log1p=tf.math.log1p)


def input_fn(frame, label, batch_size, epochs, shuffle):
    features = {
        k: (v.astype("float32") if v.dtype.kind in "if" else v)
        for k, v in frame.drop(columns=label).items()
    }

    def fn():
        ds = tf.data.Dataset.from_tensor_slices((dict(features), frame[label].to_numpy()))
        if shuffle:
            ds = ds.shuffle(10_000, seed=0)
        return ds.repeat(epochs).batch(batch_size).prefetch(2)

    return fn


def census(epochs, batch_size):
    train = pd.read_parquet(os.path.join(DATA, "adult_train.parquet"))
    test = pd.read_parquet(os.path.join(DATA, "adult_test.parquet"))
    for frame in (train, test):
        frame["income"] = (frame["income"] == ">50K").astype(np.int64)
    wide, deep = census_columns()
    model = tf.estimator.DNNLinearCombinedClassifier(
        model_dir=tempfile.mkdtemp(),
        linear_feature_columns=wide,
        linear_optimizer=tf.keras.optimizers.legacy.Ftrl(0.05, l1_regularization_strength=0.001),
        dnn_feature_columns=deep,
        dnn_hidden_units=CENSUS.HIDDEN_UNITS,
        dnn_optimizer=tf.keras.optimizers.legacy.Adam(0.001),
    )
    start = time.perf_counter()
    model.train(input_fn(train, "income", batch_size, epochs, True))
    seconds = time.perf_counter() - start
    metrics = model.evaluate(input_fn(test, "income", 4096, 1, False))
    return {
        "bench": "census_wide_deep_fit",
        "impl": f"tensorflow {tf.__version__}",
        "epochs": epochs,
        "batch_size": batch_size,
        "train_seconds": round(seconds, 2),
        "rows_per_s": round(epochs * len(train) / seconds),
        "test_accuracy": round(float(metrics["accuracy"]), 4),
        "test_auc": round(float(metrics["auc"]), 4),
    }


def click_through(rows, batch_size):
    frame = click_log(rows)
    model = tf.estimator.LinearClassifier(
        click_log_columns(fc),
        model_dir=tempfile.mkdtemp(),
        optimizer=tf.keras.optimizers.legacy.Ftrl(0.05, l1_regularization_strength=0.001),
    )
    train, test = frame.iloc[: rows * 9 // 10], frame.iloc[rows * 9 // 10 :]
    start = time.perf_counter()
    model.train(input_fn(train, "clicked", batch_size, 1, True))
    seconds = time.perf_counter() - start
    metrics = model.evaluate(input_fn(test, "clicked", 8192, 1, False))
    return {
        "bench": "click_through_linear_ftrl_fit",
        "impl": f"tensorflow {tf.__version__}",
        "rows": len(train),
        "columns": 28,
        "batch_size": batch_size,
        "train_seconds": round(seconds, 2),
        "rows_per_s": round(len(train) / seconds),
        "test_auc": round(float(metrics["auc"]), 4),
    }


def main():
    tf.get_logger().setLevel("ERROR")
    run_estimator_jobs(__doc__, census, click_through)


if __name__ == "__main__":
    main()
