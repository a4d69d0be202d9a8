"""``small_batch.py``'s jobs in TensorFlow 2.15's Estimator, timed the same way (steps
after ``--warmup`` by a hook, one ``train`` call); ``small_batch.py`` runs it in
TensorFlow's own environment. Prints one JSON line, or a JSON note when TensorFlow is
not installed.

    /work/tfenv/bin/python benchmarks/tf_small_batch.py --job deepfm [--steps 1500]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile

from workloads import deepfm_model_fn, deepfm_params, step_timer

JOBS = {"wide_deep": 32, "deepfm": 64}


def tensorflow_api(tf):
    """``workloads.deepfm_model_fn``'s names, in TensorFlow."""
    v1 = tf.compat.v1
    return argparse.Namespace(
        input_layer=v1.feature_column.input_layer,
        linear_model=v1.feature_column.linear_model,
        dense=v1.layers.dense,
        relu=tf.nn.relu,
        reshape=tf.reshape,
        reduce_sum=lambda x, axis, keepdims=False: tf.reduce_sum(x, axis, keepdims=keepdims),
        square=tf.square,
        concat=lambda pieces: tf.concat(pieces, axis=1),
        float_labels=lambda labels: tf.reshape(tf.cast(labels, tf.float32), [-1, 1]),
        loss=v1.losses.sigmoid_cross_entropy,
        optimizer=lambda: v1.train.AdagradOptimizer(0.05),
        global_step=v1.train.get_global_step,
        EstimatorSpec=tf.estimator.EstimatorSpec,
        PREDICT=tf.estimator.ModeKeys.PREDICT,
    )


def make_model(tf, job, model_dir):
    from tf_ctr import columns

    config = tf.estimator.RunConfig(tf_random_seed=0, save_checkpoints_secs=3600)
    if job == "wide_deep":
        wide, deep = columns()
        return tf.estimator.DNNLinearCombinedClassifier(
            model_dir=model_dir,
            linear_feature_columns=wide,
            linear_optimizer=tf.keras.optimizers.legacy.Ftrl(
                0.05, l1_regularization_strength=0.001
            ),
            dnn_feature_columns=deep,
            dnn_hidden_units=[256, 128, 64],
            config=config,
        )
    params = deepfm_params(tf.feature_column, tf.math.log1p)
    model_fn = deepfm_model_fn(tensorflow_api(tf))
    return tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config, params=params)


def measure(job, steps, warmup, data):
    import numpy as np
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    with np.load(data) as arrays:
        features = {k: arrays[k] for k in arrays.files if k != "clicked"}
        labels = arrays["clicked"]

    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        return ds.batch(JOBS[job]).prefetch(2)

    timer = step_timer(tf.estimator.SessionRunHook, warmup)
    with tempfile.TemporaryDirectory(prefix=f"tf_small_{job}_") as model_dir:
        model = make_model(tf, job, model_dir)
        model.train(input_fn, max_steps=steps, hooks=[timer])
    return {
        "bench": "small_batch",
        "impl": "tensorflow",
        "version": tf.__version__,
        "job": job,
        "batch_size": JOBS[job],
        "steps": steps - warmup,
        "steps_per_s": round(timer.steps_per_s(), 1),
        "load": round(os.getloadavg()[0], 2),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--job", choices=sorted(JOBS), required=True)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--data", required=True, help=".npz of the training rows")
    args = parser.parse_args()
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        note = {"bench": "small_batch", "impl": "tensorflow", "job": args.job}
        print(json.dumps({**note, "note": "TensorFlow is not installed: skipped"}))
        return
    print(json.dumps(measure(args.job, args.steps, args.warmup, args.data)), flush=True)


if __name__ == "__main__":
    main()
