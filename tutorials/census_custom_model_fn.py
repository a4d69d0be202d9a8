"""Census income with a custom ``model_fn``: a TF 1.x Estimator program, ported.

Adapted from the custom-estimator pattern of TensorFlow's census sample (Apache-2.0):
``official/r1/wide_deep`` and the "Creating custom Estimators" guide, by The TensorFlow
Authors.

What this tutorial teaches
--------------------------
Many ``tf.estimator`` programs never used a canned model: they wrote a ``model_fn``.
This one is such a program, on the census (UCI Adult) data shipped with colonnade:

* a **tower**: dense features and an 8-dimensional **embedding** of the hashed
  occupation, through ``hidden_units`` ReLU layers to one logit;
* a **wide** part: ``linear_model`` over categorical columns and a cross, whose logit
  is added to the tower's (wide & deep, written by hand);
* the logistic loss, an **auc** and an accuracy metric, and a **LoggingTensorHook** the
  ``model_fn`` hands back in ``training_hooks``;
* ``train_and_evaluate`` with a ``LatestExporter`` that exports for serving with a
  parsing receiver (serialized ``tf.Example`` records), then ``cn.load`` reloads the
  export with the ``model_fn`` passed by name.

Each ported line carries the TF 1.x line it replaces as a ``# TF:`` comment. The port
is renames (``tf.compat.v1.layers`` -> ``cn.layers``, ``tf.estimator`` ->
``cn.estimators``, ...) plus two things that differ by design:

* there are no graphs, so a hook fetches a tensor by *name*: ``"loss"``,
  ``"global_step"``, or a key of the ``predictions`` dict (``{"loss": "loss"}`` where
  TF wrote ``{"loss": loss}``);
* the labels reach the ``model_fn`` as a numpy array, so turning ``">50K"`` into 1.0 is
  numpy (``labels == ">50K"``) rather than ``tf.equal``.

Run it::

    python tutorials/census_custom_model_fn.py
    python tutorials/census_custom_model_fn.py --train-rows 4000 --max-steps 60
"""

from __future__ import annotations

import argparse
import logging
import os
import time

import numpy as np
import pandas as pd

import colonnade as cn

# The census data's label and TF's vocabularies, hash bucket size and age boundaries.
from colonnade.census import (
    AGE_BOUNDARIES,
    EDUCATION,
    HASH_BUCKET_SIZE,
    LABEL,
    MARITAL_STATUS,
    RELATIONSHIP,
)
from colonnade.demo import add_census_arguments, load_census, run_tutorial

fc = cn.feature_columns


def standardized(train: pd.DataFrame, key: str):
    """A numeric column scaled with the training split's mean and standard deviation
    (a named normalizer, so it goes into the export)."""
    values = train[key].to_numpy(np.float64)
    return fc.numeric_column(
        key, normalizer_fn=fc.standardize(float(values.mean()), float(values.std()))
    )


def build_columns(train: pd.DataFrame):
    """The tower's and the wide part's feature columns."""
    education = fc.categorical_column_with_vocabulary_list("education", EDUCATION)
    marital = fc.categorical_column_with_vocabulary_list("marital-status", MARITAL_STATUS)
    relationship = fc.categorical_column_with_vocabulary_list("relationship", RELATIONSHIP)
    occupation = fc.categorical_column_with_hash_bucket("occupation", HASH_BUCKET_SIZE)
    age_buckets = fc.bucketized_column(fc.numeric_column("age"), AGE_BOUNDARIES)
    deep = [
        standardized(train, "age"),
        standardized(train, "educational-num"),
        standardized(train, "hours-per-week"),
        fc.indicator_column(education),
        fc.indicator_column(marital),
        fc.indicator_column(relationship),
        fc.embedding_column(occupation, dimension=8),
    ]
    wide = [
        education,
        marital,
        relationship,
        age_buckets,
        fc.crossed_column(["education", "occupation"], hash_bucket_size=HASH_BUCKET_SIZE),
    ]
    return deep, wide


# ----------------------------------------------------------------------- the model_fn


def census_model(features, labels, mode, params):
    """The TF 1.x ``model_fn``, ported: each line's TF original is beside it."""
    # TF: net = tf.compat.v1.feature_column.input_layer(features, params["deep_columns"])
    net = fc.input_layer(features, params["deep_columns"])
    for units in params["hidden_units"]:
        # TF: net = tf.compat.v1.layers.dense(net, units, activation=tf.nn.relu)
        net = cn.layers.dense(net, units, activation=cn.nn.relu)
    # TF: deep_logits = tf.compat.v1.layers.dense(net, 1)
    deep_logits = cn.layers.dense(net, 1)
    # TF: wide_logits = tf.compat.v1.feature_column.linear_model(features, params["wide_columns"])
    wide_logits = fc.linear_model(features, params["wide_columns"])
    logits = deep_logits + wide_logits  # TF: logits = deep_logits + wide_logits
    # TF: probabilities = tf.sigmoid(logits)
    probabilities = cn.nn.sigmoid(logits)
    # TF: predictions = {"logistic": probabilities, "logits": logits}
    predictions = {"logistic": probabilities, "logits": logits}
    # TF: if mode == tf.estimator.ModeKeys.PREDICT:
    if mode == cn.estimators.ModeKeys.PREDICT:
        # TF: return tf.estimator.EstimatorSpec(mode, predictions=predictions)
        return cn.estimators.EstimatorSpec(mode, predictions=predictions)

    # TF: labels = tf.cast(tf.equal(labels, ">50K"), tf.float32)[:, None]
    labels = (np.asarray(labels) == ">50K").astype(np.float32)[:, None]
    # TF: loss = tf.compat.v1.losses.sigmoid_cross_entropy(labels, logits)
    loss = cn.losses.sigmoid_cross_entropy(labels, logits)
    # TF: auc = tf.compat.v1.metrics.auc(labels, probabilities)
    auc = cn.metrics.auc(labels, probabilities)
    # TF: accuracy = tf.compat.v1.metrics.accuracy(labels, tf.round(probabilities))
    accuracy = cn.metrics.accuracy(labels, np.round(probabilities.numpy()))
    metrics = {"auc": auc, "accuracy": accuracy}  # TF: metrics = {"auc": auc, ...}
    # TF: if mode == tf.estimator.ModeKeys.EVAL:
    if mode == cn.estimators.ModeKeys.EVAL:
        # TF: return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
        return cn.estimators.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)

    # TF: optimizer = tf.compat.v1.train.AdamOptimizer(params["learning_rate"])
    optimizer = cn.train.AdamOptimizer(params["learning_rate"])
    # TF: train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    train_op = optimizer.minimize(loss, global_step=cn.train.get_global_step())
    # TF: hook = tf.estimator.LoggingTensorHook({"loss": loss}, every_n_iter=params["log_every"])
    hook = cn.estimators.LoggingTensorHook({"loss": "loss"}, every_n_iter=params["log_every"])
    # TF: return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
    #                                       training_hooks=[hook])
    return cn.estimators.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[hook])


# ----------------------------------------------------------------------- the program


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--max-steps", type=int, default=1500, help="training steps")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--learning-rate", type=float, default=0.01, help="Adam")
    parser.add_argument("--hidden-units", type=int, nargs="+", default=[64, 32])
    parser.add_argument("--save-checkpoints-steps", type=int, default=500)
    parser.add_argument("--throttle-secs", type=float, default=0, help="EvalSpec's")
    add_census_arguments(parser)  # --train-rows, --test-rows, --model-dir, --seed
    args = parser.parse_args(argv)
    if args.max_steps < 1:
        parser.error("--max-steps must be at least 1")
    return args


def run(args, model_dir: str) -> dict:
    started = time.perf_counter()
    train, test = load_census(args)
    deep_columns, wide_columns = build_columns(train)

    # TF: config = tf.estimator.RunConfig(save_checkpoints_steps=..., tf_random_seed=...)
    config = cn.estimators.RunConfig(
        save_checkpoints_steps=args.save_checkpoints_steps,
        tf_random_seed=args.seed,
        log_step_count_steps=0,
    )
    params = {
        "deep_columns": deep_columns,
        "wide_columns": wide_columns,
        "hidden_units": args.hidden_units,
        "learning_rate": args.learning_rate,
        "log_every": max(args.max_steps // 5, 1),
    }
    # TF: model = tf.estimator.Estimator(census_model, model_dir, config=config, params=params)
    model = cn.estimators.Estimator(census_model, model_dir, config=config, params=params)

    # TF's input_fns: shuffled, repeated training batches; one pass over the test set.
    def train_input_fn():
        dataset = cn.data.Dataset.from_pandas(train, label=LABEL)
        return dataset.shuffle(len(train), seed=args.seed).repeat().batch(args.batch_size)

    def eval_input_fn():
        return cn.data.Dataset.from_pandas(test, label=LABEL).batch(4096)

    # TF: feature_spec = tf.feature_column.make_parse_example_spec(deep_columns + wide_columns)
    feature_spec = fc.make_parse_example_spec(deep_columns + wide_columns)
    # TF: receiver_fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(feature_spec)
    receiver_fn = cn.estimators.build_parsing_serving_input_receiver_fn(feature_spec)
    # TF: exporter = tf.estimator.LatestExporter("census", receiver_fn)
    exporter = cn.estimators.LatestExporter("census", receiver_fn)
    # TF: train_spec = tf.estimator.TrainSpec(train_input_fn, max_steps=max_steps)
    train_spec = cn.estimators.TrainSpec(train_input_fn, max_steps=args.max_steps)
    # TF: eval_spec = tf.estimator.EvalSpec(eval_input_fn, steps=None, exporters=[exporter], ...)
    eval_spec = cn.estimators.EvalSpec(
        eval_input_fn,
        steps=None,
        exporters=[exporter],
        start_delay_secs=0,
        throttle_secs=args.throttle_secs,
    )
    # TF: results, exports = tf.estimator.train_and_evaluate(model, train_spec, eval_spec)
    results, exports = cn.estimators.train_and_evaluate(model, train_spec, eval_spec)
    export_path = exports[0]
    print(
        f"step {results['global_step']}: auc {results['auc']:.4f}, "
        f"accuracy {results['accuracy']:.4f}, loss {results['loss']:.4f}"
    )
    print(f"exported to {export_path}")

    # Reload the export: the model_fn is given by the name the export records.
    # TF: predictor = tf.saved_model.load(export_path)
    predictor = cn.load(export_path, model_fns={"census_model": census_model})
    rows = test.drop(columns=[LABEL])
    reloaded = predictor.predict(rows)["logistic"].to_numpy()
    direct = np.concatenate(
        [p["logistic"][:, 0] for p in model.predict(eval_input_fn, yield_single_examples=False)]
    )
    # Serialized tf.Example records, as a serving client sends them (the numeric columns
    # as float_list: the parse spec's numeric_column dtype).
    records = os.path.join(model_dir, "test_rows.tfrecord")
    numbers = {key: "float32" for key in ("age", "educational-num", "hours-per-week")}
    cn.io.write_tfrecord(rows.head(100).astype(numbers), records)
    from_examples = predictor.predict_examples(list(cn.io.tf_record_iterator(records)))
    return {
        "tutorial": "census_custom_model_fn",
        "train_rows": len(train),
        "test_rows": len(test),
        "global_step": int(results["global_step"]),
        "auc": round(float(results["auc"]), 4),
        "accuracy": round(float(results["accuracy"]), 4),
        "loss": round(float(results["loss"]), 4),
        "exported_step": int(predictor.metadata["global_step"]),
        "reload_max_abs_diff": float(np.max(np.abs(reloaded - direct))),
        "examples_max_abs_diff": float(
            np.max(np.abs(from_examples["logistic"].to_numpy() - reloaded[:100]))
        ),
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv=None) -> dict:
    args = parse_args(argv)
    return run_tutorial(run, args, args.model_dir, prefix="colonnade_census_custom_")


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("colonnade").setLevel(logging.INFO)  # the LoggingTensorHook's lines
    main()
