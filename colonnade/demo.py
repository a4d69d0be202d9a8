"""``colonnade demo``: the wide&deep census model on the UCI Adult data shipped inside the
package — no arguments, no network.

It trains ``DNNLinearCombinedClassifier`` on the official training split (32,561 rows),
evaluates on the official test split (16,281 rows), and prints test accuracy, AUC and
the model_dir. The columns follow TensorFlow's wide&deep census tutorial: a wide part of
bucketized, hashed and crossed columns, a deep part of numeric, indicator and embedding
columns.
"""

from __future__ import annotations

import json
import tempfile
import time
from importlib.resources import files

import pandas as pd

from . import estimators, feature_columns, train

LABEL = "income"
LABEL_VOCABULARY = ["<=50K", ">50K"]


def adult_path(split: str) -> str:
    """Path of the shipped Adult split, ``"train"`` or ``"test"`` (Parquet)."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    return str(files("colonnade") / "datasets" / f"adult_{split}.parquet")


def load_adult(split: str) -> pd.DataFrame:
    """The shipped Adult split as a DataFrame (CC BY 4.0; see datasets/README.md)."""
    return pd.read_parquet(adult_path(split))


def census_columns():
    """``(wide_columns, deep_columns)`` of TensorFlow's census tutorial."""
    fc = feature_columns
    age = fc.numeric_column("age")
    education = fc.categorical_column_with_hash_bucket("education", 1000)
    marital = fc.categorical_column_with_vocabulary_list(
        "marital-status",
        [
            "Married-civ-spouse",
            "Divorced",
            "Married-spouse-absent",
            "Never-married",
            "Separated",
            "Married-AF-spouse",
            "Widowed",
        ],
    )
    relationship = fc.categorical_column_with_vocabulary_list(
        "relationship",
        ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried", "Other-relative"],
    )
    workclass = fc.categorical_column_with_vocabulary_list(
        "workclass",
        [
            "Self-emp-not-inc",
            "Private",
            "State-gov",
            "Federal-gov",
            "Local-gov",
            "?",
            "Self-emp-inc",
            "Without-pay",
            "Never-worked",
        ],
    )
    occupation = fc.categorical_column_with_hash_bucket("occupation", 1000)
    age_buckets = fc.bucketized_column(age, [18, 25, 30, 35, 40, 45, 50, 55, 60, 65])
    wide = [
        education,
        marital,
        relationship,
        workclass,
        occupation,
        age_buckets,
        fc.crossed_column(["education", "occupation"], 1000),
        fc.crossed_column([age_buckets, "education", "occupation"], 1000),
    ]
    deep = [
        fc.numeric_column("age", normalizer_fn=fc.standardize(38.6, 13.6)),
        fc.numeric_column("educational-num", normalizer_fn=fc.standardize(10.1, 2.6)),
        fc.numeric_column("capital-gain", normalizer_fn=fc.log1p()),
        fc.numeric_column("capital-loss", normalizer_fn=fc.log1p()),
        fc.numeric_column("hours-per-week", normalizer_fn=fc.standardize(40.4, 12.3)),
        fc.indicator_column(workclass),
        fc.indicator_column(marital),
        fc.indicator_column(relationship),
        fc.embedding_column(education, dimension=8),
        fc.embedding_column(occupation, dimension=8),
    ]
    return wide, deep


def run_demo(
    epochs: int = 4,
    batch_size: int = 256,
    train_rows: int | None = None,
    model_dir: str | None = None,
    seed: int = 0,
) -> dict:
    """Train and evaluate the census model; print and return its metrics."""
    started = time.perf_counter()
    train_frame, test_frame = load_adult("train"), load_adult("test")
    if train_rows is not None:
        train_frame = train_frame.head(train_rows)
    model_dir = model_dir or tempfile.mkdtemp(prefix="colonnade_demo_")
    wide, deep = census_columns()
    model = estimators.DNNLinearCombinedClassifier(
        linear_feature_columns=wide,
        linear_optimizer=train.FtrlOptimizer(0.05, l1_regularization_strength=0.001),
        dnn_feature_columns=deep,
        dnn_hidden_units=[100, 75, 50, 25],
        dnn_optimizer=train.AdamOptimizer(0.001),
        label_vocabulary=LABEL_VOCABULARY,
        config=estimators.RunConfig(
            model_dir=model_dir, tf_random_seed=seed, log_step_count_steps=0
        ),
    )
    print(f"training wide&deep on {len(train_frame):,} census rows for {epochs} epochs ...")
    model.fit(train_frame, label=LABEL, epochs=epochs, batch_size=batch_size, seed=seed)
    metrics = model.evaluate(test_frame, label=LABEL, batch_size=4096)
    elapsed = time.perf_counter() - started
    print(
        f"test accuracy {metrics['accuracy']:.4f}  AUC {metrics['auc']:.4f}  "
        f"({len(test_frame):,} test rows, {elapsed:.1f}s)"
    )
    print(f"model_dir {model_dir}")
    summary = {
        "demo": "census_wide_deep",
        "accuracy": round(metrics["accuracy"], 4),
        "auc": round(metrics["auc"], 4),
        "seconds": round(elapsed, 1),
        "model_dir": model_dir,
    }
    print(json.dumps(summary))
    return summary
