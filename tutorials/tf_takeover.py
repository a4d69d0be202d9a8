"""Take over a TensorFlow estimator: its model_dir and its TFRecord data, without TF.

What this tutorial teaches
--------------------------
A team leaving ``tf.estimator`` has two kinds of assets: trained model_dirs full of TF
checkpoints, and data stored as TFRecord files of ``tf.Example`` records. colonnade
reads both as they are, exactly, without TensorFlow installed.

The inputs here are real TF output, committed with the tests
(``tests/estimators/golden/tf_estimators/``, made by ``make_tf_estimators.py`` with
TensorFlow 2.15): the model_dir of a ``tf.estimator.DNNLinearCombinedClassifier`` trained
128 steps on census rows, ``rows.tfrecord`` (320 census rows as ``tf.Example``\\ s that TF
serialized and wrote) and what TF's own export predicted for the first 64 of them.

1. Copy the model_dir (the tutorial never writes into its input) and list TF's
   variables with ``cn.train.list_variables``: TF's names, as TF lists them.
2. Build the colonnade estimator with the *same* columns, hidden units and optimizers
   and ``model_dir=<the copy>``. It loads TF's latest checkpoint; its predictions on the
   TFRecord rows equal TF's to float precision.
3. Continue training from the TFRecord file: ``Dataset.from_tfrecord(path,
   features=make_parse_example_spec(columns + [label]), label="label")``. Weights,
   optimizer slots and ``global_step`` carry on (128 -> 128 + steps), and colonnade's
   checkpoint lands beside TF's. TF trained its copy 10 more steps on the same records:
   colonnade's variables after 10 steps equal TF's.
4. Evaluate (TF's metric keys), export with a parsing serving input receiver, and serve
   one ``tf.Example`` -- the bytes an old TF client sends -- through
   ``predictor.predict_examples``.

Run it::

    python tutorials/tf_takeover.py
    python tutorials/tf_takeover.py --model-dir my_tf_model_dir --tfrecord data.tfrecord \\
        --tf-predictions ''   # your own TF model_dir and data (same columns as below)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile

import numpy as np

import colonnade as cn
from colonnade.census import AGE_BOUNDARIES, EDUCATION, RELATIONSHIP  # TF's census vocabularies

fc = cn.feature_columns
FIXTURES = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "tests", "estimators", "golden"
)
FIXTURES = os.path.normpath(os.path.join(FIXTURES, "tf_estimators"))


def columns():
    """The TF script's columns, renamed ``tf.feature_column`` -> ``cn.feature_columns``
    and otherwise unchanged: same keys, vocabularies, bucket counts and boundaries give the
    same variables (and the same ids: colonnade hashes as TF does)."""
    age = fc.numeric_column("age")
    age_buckets = fc.bucketized_column(age, AGE_BOUNDARIES)
    education = fc.categorical_column_with_vocabulary_list("education", EDUCATION)
    relationship = fc.categorical_column_with_vocabulary_list("relationship", RELATIONSHIP)
    occupation = fc.categorical_column_with_hash_bucket("occupation", 20)
    crossed = fc.crossed_column([age_buckets, "education", "occupation"], 50)
    wide = [age_buckets, education, relationship, occupation, crossed]
    deep = [
        age,
        fc.numeric_column("hours_per_week"),
        fc.indicator_column(education),
        fc.indicator_column(relationship),
        fc.embedding_column(occupation, 4),
    ]
    return wide, deep


def build(model_dir):
    """The TF estimator's constructor call, with ``tf.estimator`` -> ``cn.estimators``."""
    wide, deep = columns()
    return cn.estimators.DNNLinearCombinedClassifier(
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=[8, 4],
        model_dir=model_dir,
        config=cn.estimators.RunConfig(log_step_count_steps=0),
    )


def parse_spec():
    """What each ``tf.Example`` holds: the columns' inputs and the label, as TF scripts
    write it (``make_parse_example_spec(columns + [label_column])``)."""
    wide, deep = columns()
    label = fc.numeric_column("label", dtype="int64")
    return fc.make_parse_example_spec(wide + deep + [label])


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", default=os.path.join(FIXTURES, "wide_deep_classifier"))
    parser.add_argument("--tfrecord", default=os.path.join(FIXTURES, "rows.tfrecord"))
    parser.add_argument(
        "--tf-predictions",
        default=os.path.join(FIXTURES, "examples.npz"),
        help="TF's probabilities for the first records (an .npz); '' to skip the check",
    )
    parser.add_argument(
        "--tf-after",
        default=os.path.join(FIXTURES, "wide_deep_classifier.npz"),
        help="TF's variables after 10 more steps on the records in batches of 32 (``after/"
        "<name>`` in an .npz); '' to skip the check",
    )
    parser.add_argument("--steps", type=int, default=10, help="training steps to continue")
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="tf_takeover_")
    try:
        return run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args, work) -> dict:
    # 1. TF's model_dir, copied; its variables as TF names them.
    model_dir = os.path.join(work, "model")
    shutil.copytree(args.model_dir, model_dir)
    tf_checkpoint = cn.train.latest_checkpoint(model_dir)
    variables = cn.train.list_variables(tf_checkpoint)
    print(f"TF checkpoint {os.path.basename(tf_checkpoint)}: {len(variables)} variables")
    for name, shape in variables[:6]:
        print(f"  {name:70s} {tuple(shape)}")

    # 2. The same estimator, pointed at it: it predicts what TF predicted.
    model = build(model_dir)
    spec = parse_spec()
    data = cn.data.Dataset.from_tfrecord(args.tfrecord, features=spec, label="label")
    first = next(iter(data.batch(64)))[0].to_pandas()  # the first 64 records, parsed
    probabilities = model.predict(first)[["probabilities_0", "probabilities_1"]].to_numpy()
    max_diff_vs_tf = None
    if args.tf_predictions:
        want = np.load(args.tf_predictions)["probabilities"]
        n = min(len(want), len(first))
        max_diff_vs_tf = float(np.abs(probabilities[:n] - want[:n]).max())
        print(f"predictions vs TF's on {n} TF-made tf.Examples: max |diff| {max_diff_vs_tf:.2e}")
    step_before = model.global_step

    # 3. Continue training from the TFRecord file, in order, in batches of 32.
    model.train(lambda: data.batch(args.batch_size), steps=args.steps)
    written = cn.train.latest_checkpoint(model_dir)
    print(f"global_step {step_before} -> {model.global_step}; "
          f"latest checkpoint {os.path.basename(written)} (colonnade's, beside TF's)")  # fmt: skip

    max_diff_vs_tf_training = None
    if args.tf_after and (args.steps, args.batch_size) == (10, 32):
        after = np.load(args.tf_after)
        names = [k.removeprefix("after/") for k in after.files if k.startswith("after/")]
        names = [n for n in names if n in model.get_variable_names()]  # not TF's hyperparameters
        # relative where values exceed 1 (Ftrl's float32 accumulators reach 10^4)
        max_diff_vs_tf_training = max(
            float((np.abs(model.get_variable_value(n) - b) / np.maximum(1, np.abs(b))).max())
            for n in names
            for b in [after[f"after/{n}"]]
        )
        print(f"{len(names)} variables after {args.steps} steps vs TF's after the same steps: "
              f"max difference {max_diff_vs_tf_training:.2e}")  # fmt: skip

    # 4. Evaluate (here on the same records: a real job keeps a held-out TFRecord file),
    #    export for tf.Example clients, serve one record.
    metrics = model.evaluate(lambda: data.batch(64))
    wide, deep = columns()
    receiver = cn.estimators.export.build_parsing_serving_input_receiver_fn(
        fc.make_parse_example_spec(wide + deep)
    )
    export = model.export_saved_model(os.path.join(work, "exports"), receiver)
    predictor = cn.load(export)
    record = next(iter(cn.io.tf_record_iterator(args.tfrecord)))
    served = predictor.predict_examples([record])
    served_p = float(served["probabilities_1"].iloc[0])
    direct_p = float(model.predict(first.iloc[:1])["probabilities_1"].iloc[0])
    print(f"one tf.Example served: P(>50K) = {served_p:.4f} (estimator: {direct_p:.4f})")

    results = {
        "tutorial": "tf_takeover",
        "tf_variables": len(variables),
        "max_diff_vs_tf": max_diff_vs_tf,
        "max_diff_vs_tf_training": max_diff_vs_tf_training,
        "global_step_before": int(step_before),
        "global_step_after": int(model.global_step),
        "latest_checkpoint": os.path.basename(written),
        "accuracy": float(metrics["accuracy"]),
        "average_loss": float(metrics["average_loss"]),
        "served_probability": served_p,
        "served_vs_estimator_diff": abs(served_p - direct_p),
    }
    print(json.dumps(results))
    return results


if __name__ == "__main__":
    main()
