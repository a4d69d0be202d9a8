"""Click-through prediction: hashed and crossed columns, a linear model, FTRL, Parquet input.

What this tutorial teaches
--------------------------
Ad click logs are the classic home of wide linear models: dozens of categorical fields
with millions of distinct values (ad ids, site ids, device ids), most of them rare. The
recipe that has served since Google's FTRL paper (McMahan et al., "Ad Click Prediction:
a View from the Trenches", KDD 2013) is:

1. **Hash** every categorical field into a fixed number of buckets
   (``categorical_column_with_hash_bucket``): no vocabulary to build or ship, unseen
   values still get an id, and memory is bounded; the price is a few collisions.
2. **Cross** fields whose combination matters more than either alone
   (``crossed_column``): a linear model cannot learn "this site *and* this device" from
   the two separate weights, but it can learn one weight per hashed pair.
3. **Bucketize** numeric counts, so a linear model can give each range its own weight.
4. Train a ``LinearClassifier`` with **FTRL-Proximal** (``cn.train.FtrlOptimizer``): a
   per-coordinate adaptive learning rate (rare values learn fast, frequent ones settle) and
   an L1 penalty that sets most weights of rare values to exactly zero, so the model stays
   small.

We have no real click log to ship, so the script first *generates* one (seeded numpy):
26 categorical fields whose values follow a Zipf law (a few values are everywhere, most are
rare), 4 count-like numeric fields with missing values, and clicks drawn from a hidden
logistic model that includes some pairwise interactions. Knowing the hidden model lets us
print the best AUC and log loss any model could reach on this data, next to ours.

The log is written as Parquet files to a temporary directory and read back with
``cn.data.Dataset.from_files``, the way a real pipeline would read a day of logs: the reader
streams a few record batches at a time, reads only the columns the model needs, shuffles
through a bounded buffer, batches, and prefetches the next batches on a background thread
while the model trains on the current one.

Run it::

    python tutorials/click_through_ftrl.py                # 300,000 rows
    python tutorials/click_through_ftrl.py --rows 20000 --epochs 1
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import colonnade as cn
from colonnade.demo import run_tutorial

fc = cn.feature_columns

LABEL = "click"
HIDDEN_PROBABILITY = "hidden_probability"
NUM_CATEGORICAL = 26
NUM_NUMERIC = 4
# Distinct values per categorical field, from a handful (e.g. device type) to tens of
# thousands (e.g. site or ad ids), as in the Criteo display-ads logs.
CARDINALITIES = [4, 8, 12, 30, 50, 100, 200, 300, 500, 800, 1000, 2000, 3000] + [
    5000,
    8000,
    10_000,
    15_000,
    20_000,
    30_000,
    40_000,
    50_000,
    60_000,
    70_000,
    80_000,
    90_000,
    100_000,
]
# The hidden model's interactions: pairs of fields (by index) whose combination carries
# its own weight. The linear model is told to cross exactly these; see build_columns.
HIDDEN_CROSSES = [(0, 5), (2, 7), (4, 9), (1, 11)]
# Boundaries for the numeric counts: roughly powers of two, so each bucket covers a range
# of similar relative size.
COUNT_BOUNDARIES = [0.5, 1.5, 2.5, 4.5, 8.5, 16.5, 32.5, 64.5, 128.5]
# The overall click-through rate of the generated log (Criteo's is about 0.26).
TARGET_CTR = 0.25


def categorical_name(j: int) -> str:
    return f"C{j + 1}"


def numeric_name(j: int) -> str:
    return f"I{j + 1}"


# ---------------------------------------------------------------- the synthetic click log


class HiddenClickModel:
    """The "true" click model behind the generated log: a logistic model with one weight
    per (field, value), per crossed pair of values, and per numeric field."""

    def __init__(self, seed: int):
        rng = np.random.default_rng(seed)
        # Some fields matter a lot, some a little, a few not at all (pure noise, which the
        # L1 penalty should learn to ignore).
        scales = rng.choice([0.0, 0.15, 0.3, 0.6], size=NUM_CATEGORICAL, p=[0.2, 0.3, 0.3, 0.2])
        self.value_weights = [rng.normal(0.0, s, size=v) for s, v in zip(scales, CARDINALITIES)]
        self.cross_weights = {
            (a, b): rng.normal(0.0, 0.7, size=(CARDINALITIES[a], CARDINALITIES[b]))
            for a, b in HIDDEN_CROSSES
        }
        self.numeric_weights = rng.normal(0.0, 0.25, size=NUM_NUMERIC)
        # Zipf exponents: how skewed each field's value distribution is.
        self.zipf_exponents = rng.uniform(1.05, 1.4, size=NUM_CATEGORICAL)
        self.bias = 0.0

    def sample_ids(self, rng, n: int) -> np.ndarray:
        """``(n, 26)`` value ids: id ``k`` (0-based) of a field has probability
        proportional to ``(k + 1) ** -s``."""
        ids = np.empty((n, NUM_CATEGORICAL), np.int64)
        for j, (v, s) in enumerate(zip(CARDINALITIES, self.zipf_exponents)):
            cdf = np.cumsum(np.arange(1, v + 1, dtype=np.float64) ** -s)
            ids[:, j] = np.searchsorted(cdf / cdf[-1], rng.random(n), side="right")
        return np.minimum(ids, np.array(CARDINALITIES) - 1)

    def logits(self, ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
        z = np.full(len(ids), self.bias)
        for j, w in enumerate(self.value_weights):
            z += w[ids[:, j]]
        for (a, b), w in self.cross_weights.items():
            z += w[ids[:, a], ids[:, b]]
        # A missing count (NaN) contributes nothing, as it will for the model (default 0).
        z += np.nan_to_num(np.log1p(counts)) @ self.numeric_weights
        return z

    def calibrate(self, ids, counts, target_ctr: float) -> None:
        """Set the bias so that the mean click probability is ``target_ctr`` (bisection)."""
        low, high = -20.0, 20.0
        for _ in range(50):
            self.bias = (low + high) / 2
            if np.mean(_sigmoid(self.logits(ids, counts))) > target_ctr:
                high = self.bias
            else:
                low = self.bias


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _sample_counts(rng, n: int) -> np.ndarray:
    """Count-like numeric fields (impressions, clicks seen, ...): heavy-tailed integers,
    10% missing (NaN here, null in the Parquet file)."""
    counts = np.floor(rng.lognormal(mean=1.0, sigma=1.5, size=(n, NUM_NUMERIC)))
    counts[rng.random((n, NUM_NUMERIC)) < 0.1] = np.nan
    return counts


def _tokens(field: int, cardinality: int) -> np.ndarray:
    """The string values of one field: 8 hex digits, as the anonymized Criteo logs have."""
    rng = np.random.default_rng(1000 + field)
    return np.array([f"{x:08x}" for x in rng.integers(0, 2**32, size=cardinality)])


def generate_click_log(directory: str, rows: int, num_files: int, seed: int):
    """Write ``rows`` generated impressions as ``num_files`` Parquet files; return their
    paths. Each row also records the hidden model's click probability, a column the model
    must not (and, thanks to ``columns=``, does not even) read."""
    model = HiddenClickModel(seed)
    rng = np.random.default_rng(seed + 1)
    model.calibrate(model.sample_ids(rng, 20_000), _sample_counts(rng, 20_000), TARGET_CTR)
    tokens = [_tokens(j, v) for j, v in enumerate(CARDINALITIES)]
    paths = []
    for part, n in enumerate(np.diff(np.linspace(0, rows, num_files + 1).astype(int))):
        ids, counts = model.sample_ids(rng, n), _sample_counts(rng, n)
        p = _sigmoid(model.logits(ids, counts))
        columns = {
            LABEL: pa.array((rng.random(n) < p).astype(np.int64)),
            HIDDEN_PROBABILITY: pa.array(p),
        }
        for j in range(NUM_NUMERIC):
            columns[numeric_name(j)] = pa.array(counts[:, j], from_pandas=True)  # NaN -> null
        for j in range(NUM_CATEGORICAL):
            columns[categorical_name(j)] = pa.array(tokens[j][ids[:, j]])
        path = os.path.join(directory, f"part-{part:05d}.parquet")
        # Row groups of 16k rows let the reader (and its shuffle) work in small pieces.
        pq.write_table(pa.table(columns), path, row_group_size=16_384)
        paths.append(path)
    return paths


# ---------------------------------------------------------------- the model


def build_columns(hash_bucket_size: int, cross_bucket_size: int):
    """Hashed categorical fields, their crosses, and bucketized counts."""
    categorical = [
        fc.categorical_column_with_hash_bucket(categorical_name(j), hash_bucket_size)
        for j in range(NUM_CATEGORICAL)
    ]
    # A cross hashes the pair of raw values together (TF's FingerprintCat64), into its own,
    # usually larger, bucket space: pairs are far more numerous than single values.
    crosses = [
        fc.crossed_column([categorical_name(a), categorical_name(b)], cross_bucket_size)
        for a, b in HIDDEN_CROSSES
    ]
    # Missing counts read as 0, which then falls into the first bucket.
    counts = [
        fc.bucketized_column(
            fc.numeric_column(numeric_name(j), default_value=0.0), COUNT_BOUNDARIES
        )
        for j in range(NUM_NUMERIC)
    ]
    return categorical + crosses + counts


def train_input(paths, columns, batch_size: int, seed: int):
    """The training pipeline: read only the columns the model needs (not the hidden
    probability, nor whatever else the files hold), shuffle through a bounded buffer
    (files and row groups are also visited in a seeded order), batch, and prefetch
    batches on a background thread while the model trains."""
    needed = cn.data.required_columns(columns, label=LABEL)
    return (
        cn.data.Dataset.from_files(paths, columns=needed, label=LABEL)
        .shuffle(buffer_size=50_000, seed=seed)
        .batch(batch_size)
        .prefetch(4)
    )


def eval_input(paths, columns):
    needed = cn.data.required_columns(columns, label=LABEL)
    return cn.data.Dataset.from_files(paths, columns=needed, label=LABEL).batch(8192)


def oracle_metrics(path) -> dict:
    """AUC and log loss of the hidden model's own probabilities on one file: the best any
    model can expect on this data (the clicks are coin flips with these probabilities)."""
    table = pq.read_table(path, columns=[LABEL, HIDDEN_PROBABILITY])
    labels = table.column(LABEL).to_numpy()
    probabilities = table.column(HIDDEN_PROBABILITY).to_numpy()
    auc = cn.metrics.AUC()
    auc.update(labels, probabilities)
    p = np.clip(probabilities, 1e-7, 1 - 1e-7)
    logloss = -np.mean(labels * np.log(p) + (1 - labels) * np.log(1 - p))
    return {"auc": float(auc.result()), "logloss": float(logloss)}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=int, default=300_000, help="generated impressions")
    parser.add_argument("--files", type=int, default=6, help="Parquet files (last = test set)")
    parser.add_argument("--epochs", type=int, default=2, help="passes over the training files")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--hash-buckets", type=int, default=2**16, help="per categorical field")
    parser.add_argument("--cross-buckets", type=int, default=2**18, help="per crossed column")
    parser.add_argument("--learning-rate", type=float, default=0.1, help="FTRL's alpha")
    parser.add_argument("--l1", type=float, default=1.0, help="FTRL L1 regularization")
    parser.add_argument("--l2", type=float, default=1.0, help="FTRL L2 regularization")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", help="where to write the log (default: a temp dir)")
    args = parser.parse_args(argv)
    if args.files < 2:
        parser.error("--files must be at least 2: one or more to train on, one to test on")
    return args


def run(args, data_dir: str) -> dict:
    started = time.perf_counter()
    paths = generate_click_log(data_dir, args.rows, args.files, args.seed)
    train_paths, test_paths = paths[:-1], paths[-1:]
    size_mb = sum(os.path.getsize(p) for p in paths) / 2**20
    print(
        f"generated {args.rows:,} impressions in {len(paths)} Parquet files "
        f"({size_mb:.1f} MB) in {time.perf_counter() - started:.1f}s"
    )

    columns = build_columns(args.hash_buckets, args.cross_buckets)
    estimator = cn.estimators.LinearClassifier(
        feature_columns=columns,
        model_dir=os.path.join(data_dir, "model"),
        # FTRL-Proximal as in the paper: learning_rate is alpha, the per-coordinate rate is
        # alpha / sqrt(sum of squared gradients); l1 zeroes weights whose accumulated
        # evidence is weaker than it, l2 shrinks the rest.
        optimizer=cn.train.FtrlOptimizer(
            learning_rate=args.learning_rate,
            l1_regularization_strength=args.l1,
            l2_regularization_strength=args.l2,
        ),
        config=cn.estimators.RunConfig(tf_random_seed=args.seed, log_step_count_steps=0),
        # Sum the loss over the batch rather than averaging it (TF 1.x's canned estimators
        # did the same): each example then contributes a full gradient, as in the FTRL
        # paper, so its learning rate and L1/L2 strengths keep their per-example meaning
        # and do not change with the batch size. With a mean, a value seen once in a batch
        # of 512 would move by 1/512 of a step, and alpha = 0.1, l1 = l2 = 1 (this
        # script's defaults, in the paper's range) would need rescaling.
        loss_reduction=cn.core.Reduction.SUM,
    )
    train_ds = train_input(train_paths, columns, args.batch_size, args.seed)
    train_rows = sum(pq.ParquetFile(p).metadata.num_rows for p in train_paths)

    train_seconds = 0.0
    for epoch in range(args.epochs):
        # Each pass over the dataset gets a new (seeded) shuffle order.
        start = time.perf_counter()
        estimator.train(train_ds)
        train_seconds += time.perf_counter() - start
        metrics = estimator.evaluate(eval_input(test_paths, columns))
        print(
            f"epoch {epoch + 1}/{args.epochs}: test AUC {metrics['auc']:.4f}, "
            f"log loss {metrics['average_loss']:.4f}, step {metrics['global_step']}"
        )

    oracle = oracle_metrics(test_paths[0])
    # How many weights did L1 leave non-zero? Only the fields' buckets that were ever seen
    # can be non-zero at all; FTRL with l1 > 0 keeps many of those at exactly zero too.
    weights = {
        name: estimator.get_variable_value(name)
        for name in estimator.get_variable_names()
        if name.endswith("/weights")
    }
    total = sum(w.size for w in weights.values())
    nonzero = sum(int(np.count_nonzero(w)) for w in weights.values())
    throughput = train_rows * args.epochs / train_seconds

    print(f"test AUC       {metrics['auc']:.4f}   (hidden model: {oracle['auc']:.4f})")
    print(f"test log loss  {metrics['average_loss']:.4f}   (hidden model: {oracle['logloss']:.4f})")
    print(f"test CTR       {metrics['label/mean']:.4f}, predicted {metrics['prediction/mean']:.4f}")
    print(f"non-zero weights: {nonzero:,} of {total:,} ({nonzero / total:.1%})")
    print(f"training: {train_seconds:.1f}s, {throughput:,.0f} rows/s")
    return {
        "tutorial": "click_through_ftrl",
        "rows": args.rows,
        "epochs": args.epochs,
        "auc": round(float(metrics["auc"]), 4),
        "logloss": round(float(metrics["average_loss"]), 4),
        "oracle_auc": round(oracle["auc"], 4),
        "oracle_logloss": round(oracle["logloss"], 4),
        "nonzero_weight_fraction": round(nonzero / total, 4),
        "train_rows_per_second": round(throughput),
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv=None) -> dict:
    args = parse_args(argv)
    return run_tutorial(run, args, args.data_dir, prefix="colonnade_ctr_")


if __name__ == "__main__":
    main()
