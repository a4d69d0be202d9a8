"""``benchmarks/ctr.py``'s job with TensorFlow 2.15's canned estimators, for comparison
on the same machine and data. TensorFlow is not a colonnade dependency: run it in a
separate environment (see ``tf_estimators.py``) after ``ctr.py`` generated the data:

    /tmp/tfenv/bin/python benchmarks/tf_ctr.py [--rows 1000000] [--models linear,dnn,wide_deep]

Same columns (bucketized numerics, hashed categoricals, two crosses; 16-dim embeddings),
one epoch, batch 1024, TF's default optimizers for the DNN parts, Ftrl for the linear ones.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd
import tensorflow as tf

N_NUMERIC, N_CATEGORICAL, BATCH = 13, 26, 1024
CARDINALITIES = np.geomspace(10, 500_000, N_CATEGORICAL).astype(int)
fc = tf.feature_column


def columns():
    numerics = [
        fc.numeric_column(f"i{i}", default_value=0.0, normalizer_fn=tf.math.log1p)
        for i in range(N_NUMERIC)
    ]
    buckets = [
        fc.bucketized_column(
            fc.numeric_column(f"i{i}", default_value=0.0), [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
        )
        for i in range(N_NUMERIC)
    ]
    hashed = [
        fc.categorical_column_with_hash_bucket(f"c{i}", int(min(2 * card, 1_000_000)))
        for i, card in enumerate(CARDINALITIES)
    ]
    crosses = [fc.crossed_column(["c0", "c1"], 100_000), fc.crossed_column(["c2", "c3"], 100_000)]
    return buckets + hashed + crosses, numerics + [fc.embedding_column(h, 16) for h in hashed]


def make_model(kind, model_dir):
    wide, deep = columns()
    ftrl = tf.keras.optimizers.legacy.Ftrl(0.05, l1_regularization_strength=0.001)
    config = tf.estimator.RunConfig(tf_random_seed=0, save_checkpoints_secs=3600)
    if kind == "linear":
        return tf.estimator.LinearClassifier(
            wide, model_dir=model_dir, optimizer=ftrl, config=config
        )
    if kind == "dnn":
        return tf.estimator.DNNClassifier([256, 128, 64], deep, model_dir=model_dir, config=config)
    return tf.estimator.DNNLinearCombinedClassifier(
        model_dir=model_dir,
        linear_feature_columns=wide,
        linear_optimizer=ftrl,
        dnn_feature_columns=deep,
        dnn_hidden_units=[256, 128, 64],
        config=config,
    )


def input_fn(frame, labels, batch):
    features = {k: frame[k].to_numpy() for k in frame.columns}

    def fn():
        ds = tf.data.Dataset.from_tensor_slices(
            (features, labels) if labels is not None else features
        )
        return ds.batch(batch).prefetch(2)

    return fn


def run(kind, rows):
    base = os.path.join(tempfile.gettempdir(), f"colonnade_ctr_{rows}_0")
    train = pd.read_parquet(os.path.join(base, "train.parquet"))
    test = pd.read_parquet(os.path.join(base, "test.parquet"))
    y_train = train.pop("clicked").to_numpy()
    y_test = test.pop("clicked").to_numpy()
    model = make_model(kind, tempfile.mkdtemp())
    start = time.perf_counter()
    model.train(input_fn(train, y_train, BATCH))
    train_s = time.perf_counter() - start
    start = time.perf_counter()
    p = np.array([out["logistic"][0] for out in model.predict(input_fn(test, None, 8192))])
    predict_s = time.perf_counter() - start
    auc = tf.keras.metrics.AUC(num_thresholds=10_000)
    auc.update_state(y_test, p)
    q = np.clip(p, 1e-7, 1 - 1e-7)
    logloss = float(-np.mean(y_test * np.log(q) + (1 - y_test) * np.log(1 - q)))
    return {
        "bench": "ctr_end_to_end",
        "impl": f"tensorflow {tf.__version__}",
        "model": kind,
        "rows": rows,
        "batch_size": BATCH,
        "train_examples_per_s": round(rows / train_s),
        "predict_examples_per_s": round(len(p) / predict_s),
        "auc": round(float(auc.result()), 4),
        "logloss": round(logloss, 4),
        "train_seconds": round(train_s, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--models", default="linear,dnn,wide_deep")
    parser.add_argument("--in-process", action="store_true")
    args = parser.parse_args()
    tf.get_logger().setLevel("ERROR")
    for kind in args.models.split(","):
        if args.in_process:
            print(json.dumps(run(kind, args.rows)), flush=True)
        else:
            subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--rows",
                    str(args.rows),
                    "--models",
                    kind,
                    "--in-process",
                ],
                check=True,
            )


if __name__ == "__main__":
    main()
