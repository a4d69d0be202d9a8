"""Estimator training speed and quality: wide&deep on the census data, and a hashed
click-through LinearClassifier on generated data. Prints JSON lines.

    python benchmarks/estimators.py [--click-rows 1000000] [--epochs 4]

``benchmarks/tf_estimators.py`` runs the same two jobs with TensorFlow 2.15's
tf.estimator (in a separate environment) for comparison; see RESULTS.md.
"""

from __future__ import annotations

import tempfile
import time

from workloads import click_log, click_log_columns, run_estimator_jobs

import colonnade as cn
from colonnade.census import HIDDEN_UNITS
from colonnade.demo import LABEL, LABEL_VOCABULARY, census_columns, load_adult

fc = cn.feature_columns


def census(epochs: int, batch_size: int) -> dict:
    train, test = load_adult("train"), load_adult("test")
    wide, deep = census_columns()
    model = cn.estimators.DNNLinearCombinedClassifier(
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=HIDDEN_UNITS,
        dnn_optimizer=cn.train.AdamOptimizer(0.001),
        linear_optimizer=cn.train.FtrlOptimizer(0.05, l1_regularization_strength=0.001),
        label_vocabulary=LABEL_VOCABULARY,
        config=cn.estimators.RunConfig(
            model_dir=tempfile.mkdtemp(), tf_random_seed=0, log_step_count_steps=0
        ),
    )
    start = time.perf_counter()
    model.fit(train, label=LABEL, epochs=epochs, batch_size=batch_size, seed=0)
    seconds = time.perf_counter() - start
    metrics = model.evaluate(test, label=LABEL, batch_size=4096)
    return {
        "bench": "census_wide_deep_fit",
        "impl": "colonnade",
        "epochs": epochs,
        "batch_size": batch_size,
        "train_seconds": round(seconds, 2),
        "rows_per_s": round(epochs * len(train) / seconds),
        "test_accuracy": round(metrics["accuracy"], 4),
        "test_auc": round(metrics["auc"], 4),
    }


def click_through(rows: int, batch_size: int) -> dict:
    frame = click_log(rows)
    model = cn.estimators.LinearClassifier(
        click_log_columns(fc),
        optimizer=cn.train.FtrlOptimizer(0.05, l1_regularization_strength=0.001),
        config=cn.estimators.RunConfig(model_dir=tempfile.mkdtemp(), log_step_count_steps=0),
    )
    train, test = frame.iloc[: rows * 9 // 10], frame.iloc[rows * 9 // 10 :]
    start = time.perf_counter()
    model.fit(train, label="clicked", epochs=1, batch_size=batch_size, seed=0)
    seconds = time.perf_counter() - start
    metrics = model.evaluate(test, label="clicked", batch_size=8192)
    return {
        "bench": "click_through_linear_ftrl_fit",
        "impl": "colonnade",
        "rows": len(train),
        "columns": 28,
        "batch_size": batch_size,
        "train_seconds": round(seconds, 2),
        "rows_per_s": round(len(train) / seconds),
        "test_auc": round(metrics["auc"], 4),
    }


def main() -> None:
    run_estimator_jobs(__doc__, census, click_through)


if __name__ == "__main__":
    main()
