"""Warm-starting a model after its vocabulary changed: ``WarmStartSettings`` + ``VocabInfo``.

What this tutorial teaches
--------------------------
A production model is retrained as new data arrives, and its vocabulary files are
regenerated with it: values that became common enough join the vocabulary, rare ones
drop out, and the file may come out in another order. A categorical column's id is the
line number of its value in the file, so after such a change row 3 of a weight table no
longer means what it meant. Copying the old checkpoint into the new model row by row
would silently give "Sales" the weights learned for "Exec-managerial".

``cn.train.VocabInfo`` (TF's ``tf.estimator.VocabInfo``) says how to remap: for each
variable whose rows are indexed by a vocabulary, give the new and the old vocabulary and
the number of out-of-vocabulary (OOV) buckets. Warm start then moves each known token's
row to its new position, and gives new tokens and the OOV buckets the
``backup_initializer`` (zeros by default, as in TF). Every other variable (the DNN's
layers, the other columns' weights) is copied as it is.

The story, on the census data (UCI Adult, shipped with colonnade):

1. *Last month*: the vocabulary of ``occupation`` lists the values found in at least 2.5%
   of the rows (about 900 of them), most frequent first, plus one OOV bucket. We train a
   wide & deep model on the first half of the training data.
2. *This month*: the cutoff is lowered to 0.3% (two new occupations join), the unknown
   marker ``?`` is removed (it should be OOV), and the file is sorted alphabetically. We
   warm-start a new model from last month's checkpoint, remapping both variables indexed
   by occupation: the linear model's weights and the DNN's embedding.
3. We check that every token kept its learned row, evaluate the warm-started model before
   it has seen any new data, fine-tune it briefly on the second half, and compare with a
   model trained from scratch with the same small budget.

Run it::

    python tutorials/warm_start_vocabulary.py
    python tutorials/warm_start_vocabulary.py --epochs 1 --fine-tune-steps 20
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

import colonnade as cn
from colonnade.census import LABEL, LABEL_VOCABULARY
from colonnade.demo import load_adult, run_tutorial

fc = cn.feature_columns

EMBEDDING_DIMENSION = 4
# One bucket for every occupation the vocabulary does not list.
NUM_OOV_BUCKETS = 1
# Vocabulary cutoffs, as shares of the rows: on the full training data, 2.5% is about 900
# rows and 0.3% about 100.
LAST_MONTHS_MIN_SHARE = 0.025
THIS_MONTHS_MIN_SHARE = 0.003


def write_vocabulary(path: str, tokens) -> str:
    """A vocabulary file as TF reads it: one token per line; line ``i`` is id ``i``."""
    with open(path, "w") as f:
        f.write("".join(f"{t}\n" for t in tokens))
    return path


def last_months_vocabulary(data: pd.DataFrame) -> list:
    """Occupations in at least 2.5% of the rows, most frequent first."""
    shares = data["occupation"].value_counts(normalize=True)
    return list(shares[shares >= LAST_MONTHS_MIN_SHARE].index)


def this_months_vocabulary(data: pd.DataFrame) -> list:
    """Occupations in at least 0.3% of the rows, without the "?" marker, alphabetical."""
    shares = data["occupation"].value_counts(normalize=True)
    return sorted(t for t in shares[shares >= THIS_MONTHS_MIN_SHARE].index if t != "?")


def build_estimator(vocabulary_file, model_dir, seed, warm_start_from=None):
    """A small wide & deep model in which ``occupation`` is read through a vocabulary file,
    both as a linear (wide) feature and as an embedding (deep)."""
    occupation = fc.categorical_column_with_vocabulary_file(
        "occupation", vocabulary_file, num_oov_buckets=NUM_OOV_BUCKETS
    )
    education = fc.categorical_column_with_hash_bucket("education", 100)
    relationship = fc.categorical_column_with_hash_bucket("relationship", 100)
    age_buckets = fc.bucketized_column(
        fc.numeric_column("age"), [18, 25, 30, 35, 40, 45, 50, 55, 60, 65]
    )
    hours = fc.numeric_column("hours-per-week", normalizer_fn=fc.standardize(40.0, 12.0))
    gain = fc.numeric_column("capital-gain", normalizer_fn=fc.log1p())
    return cn.estimators.DNNLinearCombinedClassifier(
        model_dir=model_dir,
        linear_feature_columns=[occupation, education, relationship, age_buckets],
        linear_optimizer=cn.train.FtrlOptimizer(learning_rate=0.1),
        dnn_feature_columns=[
            fc.embedding_column(occupation, EMBEDDING_DIMENSION),
            fc.indicator_column(education),
            fc.indicator_column(relationship),
            hours,
            gain,
        ],
        dnn_optimizer=cn.train.AdamOptimizer(learning_rate=0.003),
        dnn_hidden_units=[32, 16],
        label_vocabulary=LABEL_VOCABULARY,
        warm_start_from=warm_start_from,
        config=cn.estimators.RunConfig(tf_random_seed=seed, log_step_count_steps=0),
    )


def occupation_variables(estimator) -> dict:
    """The variables whose rows are indexed by the occupation vocabulary, found by name
    (``get_variable_names`` lists every variable as a checkpoint stores it)."""
    names = [n for n in estimator.get_variable_names() if "/occupation" in n]
    linear = next(n for n in names if n.startswith("linear/"))
    embedding = next(n for n in names if n.startswith("dnn/"))
    return {"linear": linear, "embedding": embedding}


def train_input(frame, batch_size, seed, epochs=None):
    """Shuffled batches of ``frame`` for ``epochs`` passes (forever when None: then
    ``train(..., steps=n)`` decides when to stop)."""
    return (
        cn.data.Dataset.from_pandas(frame, label=LABEL)
        .shuffle(buffer_size=len(frame), seed=seed)
        .repeat(epochs)
        .batch(batch_size)
    )


def show_rows(old_tokens, new_tokens, old_weights, new_weights, old_embedding, new_embedding):
    """Print each token's id, linear weight and first embedding coordinate in both models;
    return whether every token in both vocabularies kept exactly its old rows."""
    print(
        f"\n{'occupation':18s} {'old id':>6s} {'weight':>8s} {'emb[0]':>8s}   "
        f"{'new id':>6s} {'weight':>8s} {'emb[0]':>8s}"
    )
    all_kept = True
    oov = "(OOV bucket)"
    for token in list(dict.fromkeys(old_tokens + new_tokens)) + [oov]:
        if token == oov:  # the OOV buckets' rows follow the vocabulary's
            old_id, new_id = len(old_tokens), len(new_tokens)
        else:
            old_id = old_tokens.index(token) if token in old_tokens else None
            new_id = new_tokens.index(token) if token in new_tokens else None
        if token == oov:
            note = "OOV rows start from the backup initializer"
        elif old_id is None:
            note = "new token: backup initializer"
        elif new_id is None:
            note = "removed: now read as OOV"
        else:
            kept = np.array_equal(old_weights[old_id], new_weights[new_id]) and np.array_equal(
                old_embedding[old_id], new_embedding[new_id]
            )
            all_kept &= kept
            note = "kept its rows" if kept else "ROWS DIFFER"
        old = _row(old_id, old_weights, old_embedding)
        new = _row(new_id, new_weights, new_embedding)
        print(f"{token:18s} {old}   {new}  {note}")
    return all_kept


def _row(i, weights, embedding) -> str:
    if i is None:
        return f"{'-':>6s} {'-':>8s} {'-':>8s}"
    return f"{i:6d} {weights[i, 0]:8.4f} {embedding[i, 0]:8.4f}"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--epochs", type=int, default=3, help="last month's training passes")
    parser.add_argument("--fine-tune-steps", type=int, default=30, help="this month's steps")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--train-rows", type=int, help="use a random subset of the training data")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work-dir", help="for vocabularies and models (default: a temp dir)")
    return parser.parse_args(argv)


def run(args, work_dir: str) -> dict:
    started = time.perf_counter()
    train = load_adult("train").sample(frac=1.0, random_state=args.seed)
    if args.train_rows is not None:
        train = train.iloc[: args.train_rows]
    last_month, this_month = train.iloc[: len(train) // 2], train.iloc[len(train) // 2 :]
    test = cn.data.Dataset.from_pandas(load_adult("test"), label=LABEL).batch(4096)

    # 1. Last month's model.
    old_tokens = last_months_vocabulary(train)
    old_vocab = write_vocabulary(os.path.join(work_dir, "occupation_v1.txt"), old_tokens)
    old_model = build_estimator(old_vocab, os.path.join(work_dir, "model_v1"), args.seed)
    old_model.train(train_input(last_month, args.batch_size, args.seed, args.epochs))
    old_metrics = old_model.evaluate(test)
    print(f"last month's vocabulary ({len(old_tokens)} tokens): {old_tokens}")
    print(
        f"last month's model: accuracy {old_metrics['accuracy']:.4f}, "
        f"auc {old_metrics['auc']:.4f} ({len(last_month):,} rows, epochs={args.epochs})"
    )

    # 2. This month's vocabulary, and a model warm-started from last month's checkpoint.
    new_tokens = this_months_vocabulary(train)
    new_vocab = write_vocabulary(os.path.join(work_dir, "occupation_v2.txt"), new_tokens)
    print(f"this month's vocabulary ({len(new_tokens)} tokens): {new_tokens}")

    # A variable's name depends on its column, not on the vocabulary's contents, so last
    # month's model tells us the names the new model's variables will have too.
    names = occupation_variables(old_model)

    def vocab_info(backup_initializer=None):
        return cn.train.VocabInfo(
            new_vocab=new_vocab,
            new_vocab_size=len(new_tokens),
            num_oov_buckets=NUM_OOV_BUCKETS,
            old_vocab=old_vocab,
            backup_initializer=backup_initializer,
        )

    # New embedding rows should look like freshly initialized ones rather than zeros:
    # TF's embedding_column starts from truncated_normal(stddev=1/sqrt(dimension)).
    embedding_init = cn.core.initializers.truncated_normal(stddev=EMBEDDING_DIMENSION**-0.5)
    rng = np.random.default_rng(args.seed)
    settings = cn.estimators.WarmStartSettings(
        ckpt_to_initialize_from=old_model.model_dir,
        # Every other variable (other columns, the DNN's layers) is copied as it is.
        vars_to_warm_start=".*",
        var_name_to_vocab_info={
            names["linear"]: vocab_info(),  # zeros for new tokens, as TF
            names["embedding"]: vocab_info(lambda shape, dtype: embedding_init(shape, dtype, rng)),
        },
    )
    new_model = build_estimator(
        new_vocab, os.path.join(work_dir, "model_v2"), args.seed, warm_start_from=settings
    )
    # Warm start happens when the model first needs its variables: here, an evaluation
    # before any training. Tokens that moved keep their rows, so the model is about as
    # good as last month's before it has seen a single new example.
    warm_metrics = new_model.evaluate(test)
    print(f"\nvariables remapped by VocabInfo: {names['linear']}, {names['embedding']}")
    warm = new_model.get_weights()  # in memory: as TF's, get_variable_value reads checkpoints
    all_kept = show_rows(
        old_tokens,
        new_tokens,
        old_model.get_variable_value(names["linear"]),
        warm[names["linear"]],
        old_model.get_variable_value(names["embedding"]),
        warm[names["embedding"]],
    )
    print(f"\nevery token in both vocabularies kept its rows exactly: {all_kept}")
    print(
        f"warm-started model, before training: accuracy {warm_metrics['accuracy']:.4f}, "
        f"auc {warm_metrics['auc']:.4f}"
    )

    # 3. Fine-tune on this month's data, and compare with a cold start of equal budget.
    steps = args.fine_tune_steps
    new_model.train(train_input(this_month, args.batch_size, args.seed), steps=steps)
    tuned_metrics = new_model.evaluate(test)
    cold_model = build_estimator(new_vocab, os.path.join(work_dir, "model_cold"), args.seed)
    cold_model.train(train_input(this_month, args.batch_size, args.seed), steps=steps)
    cold_metrics = cold_model.evaluate(test)
    print(
        f"warm-started model, after {steps} steps: accuracy {tuned_metrics['accuracy']:.4f}, "
        f"auc {tuned_metrics['auc']:.4f}"
    )
    print(
        f"cold-started model, after {steps} steps: accuracy {cold_metrics['accuracy']:.4f}, "
        f"auc {cold_metrics['auc']:.4f}"
    )
    return {
        "tutorial": "warm_start_vocabulary",
        "old_vocabulary_size": len(old_tokens),
        "new_vocabulary_size": len(new_tokens),
        "kept_rows_identical": bool(all_kept),
        "old_accuracy": round(float(old_metrics["accuracy"]), 4),
        "warm_accuracy_before_training": round(float(warm_metrics["accuracy"]), 4),
        "warm_accuracy": round(float(tuned_metrics["accuracy"]), 4),
        "cold_accuracy": round(float(cold_metrics["accuracy"]), 4),
        "warm_auc": round(float(tuned_metrics["auc"]), 4),
        "cold_auc": round(float(cold_metrics["auc"]), 4),
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv=None) -> dict:
    args = parse_args(argv)
    return run_tutorial(run, args, args.work_dir, prefix="colonnade_warm_start_")


if __name__ == "__main__":
    main()
