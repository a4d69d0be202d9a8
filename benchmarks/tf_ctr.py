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
import tempfile
import time

import numpy as np
import pandas as pd
import tensorflow as tf
from workloads import BATCH, ctr_columns, log_loss, peak_rss_mb, run_each_in_own_process

fc = tf.feature_column


def columns():
    return ctr_columns(fc, log1p=tf.math.log1p)


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
    return {
        "bench": "ctr_end_to_end",
        "impl": f"tensorflow {tf.__version__}",
        "model": kind,
        "rows": rows,
        "batch_size": BATCH,
        "train_examples_per_s": round(rows / train_s),
        "predict_examples_per_s": round(len(p) / predict_s),
        "auc": round(float(auc.result()), 4),
        "logloss": round(log_loss(y_test, p), 4),
        "train_seconds": round(train_s, 2),
        "peak_rss_mb": round(peak_rss_mb()),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--models", default="linear,dnn,wide_deep")
    parser.add_argument("--in-process", action="store_true")
    args = parser.parse_args()
    tf.get_logger().setLevel("ERROR")
    models = args.models.split(",")
    if not args.in_process:
        run_each_in_own_process(__file__, args.rows, models)
        return
    for kind in models:
        print(json.dumps(run(kind, args.rows)), flush=True)


if __name__ == "__main__":
    main()
