"""Census income with a wide & deep model: TensorFlow's wide_deep tutorial, on colonnade.

Adapted from TensorFlow's wide_deep tutorial (Apache-2.0): the TF 1.x official model
``official/wide_deep`` (census_dataset.py, census_main.py), by The TensorFlow Authors.

What this tutorial teaches
--------------------------
The task: predict whether a person earns more than $50,000 a year from the 1994 US census
(the UCI Adult data, shipped with colonnade). Two kinds of model are good at two things:

* A **wide** (linear) model over sparse categorical features and their *crosses*
  memorizes: "a Masters degree and an Exec-managerial occupation" gets its own weight.
* A **deep** model (a feed-forward network over dense features and low-dimensional
  *embeddings* of the categorical ones) generalizes: occupations that behave alike get
  nearby embeddings, so it can score combinations it has rarely seen.

Wide & deep (Cheng et al., 2016) trains both jointly, adding their logits; each part has
its own optimizer. ``--model-type wide`` and ``--model-type deep`` train either part alone,
to compare.

The feature columns are TensorFlow's, one for one: the same vocabularies, hash buckets,
age boundaries, crosses and hidden units ``[100, 75, 50, 25]``. The porting notes:

* The data's column names are hyphenated (``educational-num``, ``marital-status``,
  ``hours-per-week``, ...) where TF's CSV reader named them with underscores.
* TF's tutorial fed the raw numbers (ages, capital gains of up to 99,999) to the network
  and trained 40 epochs at batch size 40 with small learning rates (Ftrl 0.005, Adagrad
  0.001: the canned defaults). We standardize the deep part's numbers with the training
  set's mean and standard deviation (``log1p`` first for the heavy-tailed capital
  columns), and use larger batches, a larger Ftrl rate and Adam for the network: the same
  accuracy in a few epochs and seconds. The normalizers are stored in the columns, so a
  saved or exported model applies them itself.
* The label is the ``income`` string column; ``label_vocabulary=["<=50K", ">50K"]`` makes
  class 1 mean ">50K" without converting the column first.

Run it::

    python tutorials/census_wide_deep.py                      # wide & deep
    python tutorials/census_wide_deep.py --model-type wide    # the linear part alone
    python tutorials/census_wide_deep.py --train-rows 3000 --epochs 1
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import colonnade as cn

# TF's tutorial: its vocabularies (in TF's order: the order fixes which weight row a value
# gets), _HASH_BUCKET_SIZE, the age boundaries and the DNN's layer sizes.
from colonnade.census import (
    AGE_BOUNDARIES,
    EDUCATION,
    HASH_BUCKET_SIZE,
    HIDDEN_UNITS,
    LABEL,
    LABEL_VOCABULARY,
    MARITAL_STATUS,
    RELATIONSHIP,
    WORKCLASS,
)
from colonnade.demo import add_census_arguments, load_census, run_tutorial

fc = cn.feature_columns


def standardized(train: pd.DataFrame, key: str, log: bool = False):
    """A numeric column scaled to mean 0 and standard deviation 1 on the training data.

    The statistics come from the training split only (never the test split), and live in
    the column's ``normalizer_fn``: evaluation, prediction and exports reuse them.
    """
    values = train[key].to_numpy(np.float64)
    if log:
        values = np.log1p(values)
    scale = fc.standardize(float(values.mean()), float(values.std()))
    return fc.numeric_column(key, normalizer_fn=fc.chain(fc.log1p(), scale) if log else scale)


def build_model_columns(train: pd.DataFrame):
    """The wide and the deep model's feature columns (TF's ``build_model_columns``)."""
    # Continuous columns. The raw age is bucketized for the wide part; the deep part
    # reads standardized numbers (see the module docstring).
    age = fc.numeric_column("age")
    deep_numbers = [
        standardized(train, "age"),
        standardized(train, "educational-num"),
        standardized(train, "capital-gain", log=True),
        standardized(train, "capital-loss", log=True),
        standardized(train, "hours-per-week"),
    ]

    # Categorical columns with known values get a vocabulary list: one id per value,
    # values outside the list get no weight (id -1) unless num_oov_buckets is set.
    education = fc.categorical_column_with_vocabulary_list("education", EDUCATION)
    marital_status = fc.categorical_column_with_vocabulary_list("marital-status", MARITAL_STATUS)
    relationship = fc.categorical_column_with_vocabulary_list("relationship", RELATIONSHIP)
    workclass = fc.categorical_column_with_vocabulary_list("workclass", WORKCLASS)
    # To show an example of hashing: no vocabulary needed, each value lands in one of
    # 1000 buckets (Fingerprint64 % 1000, the same bucket TensorFlow would pick).
    occupation = fc.categorical_column_with_hash_bucket("occupation", HASH_BUCKET_SIZE)

    # Transformations: age in ranges, so a linear model can learn a non-monotonic effect.
    age_buckets = fc.bucketized_column(age, boundaries=AGE_BOUNDARIES)

    base_columns = [education, marital_status, relationship, workclass, occupation, age_buckets]
    # Crosses let the linear model learn interactions; a raw column is named by its key.
    crossed_columns = [
        fc.crossed_column(["education", "occupation"], hash_bucket_size=HASH_BUCKET_SIZE),
        fc.crossed_column(
            [age_buckets, "education", "occupation"], hash_bucket_size=HASH_BUCKET_SIZE
        ),
    ]
    wide_columns = base_columns + crossed_columns

    # The network needs dense input: one-hot (indicator) columns for the small
    # vocabularies, and a learned 8-dimensional embedding for the hashed occupation.
    deep_columns = deep_numbers + [
        fc.indicator_column(workclass),
        fc.indicator_column(education),
        fc.indicator_column(marital_status),
        fc.indicator_column(relationship),
        fc.embedding_column(occupation, dimension=8),
    ]
    return wide_columns, deep_columns


def build_estimator(model_dir, model_type, wide_columns, deep_columns, args):
    """A canned estimator of the requested type (TF's ``build_estimator``)."""
    config = cn.estimators.RunConfig(tf_random_seed=args.seed, log_step_count_steps=0)
    linear_optimizer = cn.train.FtrlOptimizer(learning_rate=args.linear_learning_rate)
    dnn_optimizer = cn.train.AdamOptimizer(learning_rate=args.dnn_learning_rate)
    common = dict(model_dir=model_dir, label_vocabulary=LABEL_VOCABULARY, config=config)
    if model_type == "wide":
        return cn.estimators.LinearClassifier(
            feature_columns=wide_columns, optimizer=linear_optimizer, **common
        )
    if model_type == "deep":
        return cn.estimators.DNNClassifier(
            hidden_units=HIDDEN_UNITS,
            feature_columns=deep_columns,
            optimizer=dnn_optimizer,
            **common,
        )
    return cn.estimators.DNNLinearCombinedClassifier(
        linear_feature_columns=wide_columns,
        linear_optimizer=linear_optimizer,
        dnn_feature_columns=deep_columns,
        dnn_optimizer=dnn_optimizer,
        dnn_hidden_units=HIDDEN_UNITS,
        **common,
    )


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--model-type", choices=["wide", "deep", "wide_deep"], default="wide_deep")
    parser.add_argument("--epochs", type=int, default=4, help="passes over the training data")
    parser.add_argument("--epochs-between-evals", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--linear-learning-rate", type=float, default=0.1, help="Ftrl")
    parser.add_argument("--dnn-learning-rate", type=float, default=0.001, help="Adam")
    add_census_arguments(parser)  # --train-rows, --test-rows, --model-dir, --seed
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.epochs_between_evals < 1:
        parser.error("--epochs and --epochs-between-evals must be at least 1")
    return args


def run(args, model_dir: str) -> dict:
    started = time.perf_counter()
    train, test = load_census(args)

    wide_columns, deep_columns = build_model_columns(train)
    model = build_estimator(model_dir, args.model_type, wide_columns, deep_columns, args)

    # TF's input_fn, as a Dataset: shuffle, repeat for a few passes (each repetition in a
    # new order), batch. The label column comes off as the labels. A fresh Dataset starts
    # from its seed's first order, so each call gets its own seed.
    def train_input_fn(passes, seed):
        return (
            cn.data.Dataset.from_pandas(train, label=LABEL)
            .shuffle(buffer_size=len(train), seed=seed)
            .repeat(passes)
            .batch(args.batch_size)
        )

    test_data = cn.data.Dataset.from_pandas(test, label=LABEL).batch(4096)

    # Train and evaluate every epochs_between_evals epochs, as TF's census_main did.
    epochs_done = 0
    while epochs_done < args.epochs:
        passes = min(args.epochs_between_evals, args.epochs - epochs_done)
        model.train(train_input_fn(passes, seed=args.seed + epochs_done))
        epochs_done += passes
        results = model.evaluate(test_data)
        print(
            f"epochs {epochs_done}/{args.epochs} (step {results['global_step']}): "
            f"accuracy {results['accuracy']:.4f}, auc {results['auc']:.4f}, "
            f"loss {results['average_loss']:.4f}"
        )

    seconds = time.perf_counter() - started
    print(f"\nresults of the {args.model_type} model on the test set:")
    # accuracy_baseline: the accuracy of always predicting the more frequent class.
    for key in (
        "accuracy",
        "accuracy_baseline",
        "auc",
        "auc_precision_recall",
        "precision",
        "recall",
    ):
        print(f"  {key:22s}{results[key]:.4f}")
    return {
        "tutorial": "census_wide_deep",
        "model_type": args.model_type,
        "train_rows": len(train),
        "test_rows": len(test),
        "epochs": args.epochs,
        "accuracy": round(float(results["accuracy"]), 4),
        "auc": round(float(results["auc"]), 4),
        "average_loss": round(float(results["average_loss"]), 4),
        "accuracy_baseline": round(float(results["accuracy_baseline"]), 4),
        "global_step": int(results["global_step"]),
        "seconds": round(seconds, 1),
    }


def main(argv=None) -> dict:
    args = parse_args(argv)
    return run_tutorial(run, args, args.model_dir, prefix="colonnade_census_")


if __name__ == "__main__":
    main()
