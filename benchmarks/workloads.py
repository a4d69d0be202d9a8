"""What the colonnade benchmarks and their TensorFlow twins (``tf_*.py``) share: the
generated data, the CTR feature columns, and running each model in its own process.

Plain Python over numpy and pandas, no colonnade import: the TensorFlow benchmarks run in
a separate environment without colonnade. The feature columns are built from the
feature-column module passed in (``colonnade.feature_columns`` or ``tf.feature_column``:
the same names).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))

# The CTR job (benchmarks/ctr.py): 13 numerics, 26 categoricals of growing cardinality.
N_NUMERIC, N_CATEGORICAL, BATCH = 13, 26, 1024
CARDINALITIES = np.geomspace(10, 500_000, N_CATEGORICAL).astype(int)


def load_census_module():
    """``colonnade/census.py`` (the census model's vocabularies and columns), loaded by
    path: it imports nothing from colonnade, so TensorFlow's environment can read it."""
    path = os.path.join(HERE, "..", "colonnade", "census.py")
    spec = importlib.util.spec_from_file_location("colonnade_census", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def click_log(rows: int, seed: int = 0) -> pd.DataFrame:
    """26 Zipf-distributed categorical features and a click from a hidden logistic model."""
    rng = np.random.default_rng(seed)
    data, logit = {}, np.full(rows, -1.5)
    for i in range(26):
        # Zipf-like ids by inverse transform of uniforms: the same numbers on every numpy
        # version (Generator.zipf's stream changed between numpy 1 and 2).
        values = np.minimum(rng.random(rows) ** (-1 / 0.3), 1e12).astype(np.int64) % 50_000
        effect = rng.normal(0, 0.5, 50_000)
        logit += effect[values] * (i < 8)
        data[f"c{i}"] = pd.Series(values).map("v{}".format).to_numpy()
    data["clicked"] = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    return pd.DataFrame(data)


def click_log_columns(fc) -> list:
    """The click log's 26 hashed columns and two crosses."""
    columns = [fc.categorical_column_with_hash_bucket(f"c{i}", 100_000) for i in range(26)]
    return columns + [
        fc.crossed_column(["c0", "c1"], 100_000),
        fc.crossed_column(["c2", "c3"], 100_000),
    ]


def ctr_columns(fc, log1p) -> tuple:
    """``(wide, deep)`` columns of the CTR job: bucketized numerics, hashed categoricals
    and two crosses; log1p numerics and 16-dimensional embeddings."""
    numerics = [
        fc.numeric_column(f"i{i}", default_value=0.0, normalizer_fn=log1p) for i in range(N_NUMERIC)
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
    wide = buckets + hashed + crosses
    deep = numerics + [fc.embedding_column(h, 16) for h in hashed]
    return wide, deep


def peak_rss_mb() -> float:
    """This process's peak resident memory, in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def log_loss(labels, p) -> float:
    """Mean binary cross-entropy of probabilities ``p`` (clipped away from 0 and 1)."""
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return float(-np.mean(labels * np.log(p) + (1 - labels) * np.log(1 - p)))


def run_each_in_own_process(script: str, rows: int, models: list) -> None:
    """Run ``script --rows ROWS --models KIND --in-process`` once per model, so that each
    model's peak memory is its own."""
    for kind in models:
        command = [sys.executable, script, "--rows", str(rows), "--models", kind]
        subprocess.run(command + ["--in-process"], check=True)


def run_estimator_jobs(description: str, census, click_through) -> None:
    """The command line of ``estimators.py`` and ``tf_estimators.py`` (the same two jobs at
    the same sizes): run ``census(epochs, batch_size)`` and ``click_through(rows,
    batch_size)``, printing each one's JSON line."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--click-rows", type=int, default=500_000)
    parser.add_argument("--click-batch-size", type=int, default=1024)
    args = parser.parse_args()
    print(json.dumps(census(args.epochs, args.batch_size)), flush=True)
    print(json.dumps(click_through(args.click_rows, args.click_batch_size)), flush=True)


def per_unit_args(description: str, model: str, units: str, count: int, rows: int):
    """The command line of the per-step and per-batch timings (``ctr_step_time.py``,
    ``ctr_input_time.py``): ``--model``, ``--<units>`` (how many to time) and ``--rows``
    of generated data."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--model", default=model)
    parser.add_argument(f"--{units}", type=int, default=count)
    parser.add_argument("--rows", type=int, default=rows)
    return parser.parse_args()


def cpu_and_wall(run):
    """``(run(), CPU seconds, wall seconds)`` of one call of ``run``: the process's CPU
    time (every thread's) and the elapsed time."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = run()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def per_unit_line(bench: str, model: str, units: str, unit: str, n: int, cpu, wall, **more):
    """The JSON line of a timing of ``n`` ``units`` (each a ``unit``): ``n``, and the CPU
    and wall milliseconds a unit."""
    return json.dumps(
        {
            "bench": bench,
            "model": model,
            units: n,
            f"cpu_ms_per_{unit}": round(cpu / n * 1e3, 3),
            f"wall_ms_per_{unit}": round(wall / n * 1e3, 3),
            **more,
        }
    )


# The small-batch job (benchmarks/small_batch.py and tf_small_batch.py).
SMALL_BATCH_ROWS = 200_000
FM_DIMENSION = 8


def deepfm_model_fn(api):
    """A DeepFM-style ``model_fn`` (Guo et al., 2017) written once for both libraries:
    ``api`` names the library's functions (``input_layer``, ``linear_model``, ``dense``,
    ``relu``, ``reshape``, ``reduce_sum``, ``square``, ``float_labels``, ``loss``,
    ``optimizer``, ``global_step``, ``EstimatorSpec``, ``PREDICT``).

    Logit = linear part + FM's pairwise term over the 26 categorical embeddings
    (``0.5 * sum((sum_f e_f)^2 - sum_f e_f^2)``) + a [128, 64] ReLU tower over the
    embeddings and the numerics. ``params`` holds ``wide``, ``embedded`` and ``numeric``
    feature-column lists.
    """

    def model_fn(features, labels, mode, params):
        embedded = api.input_layer(features, params["embedded"])
        fields = api.reshape(embedded, [-1, len(params["embedded"]), FM_DIMENSION])
        summed = api.reduce_sum(fields, 1)
        pairwise = 0.5 * api.reduce_sum(
            api.square(summed) - api.reduce_sum(api.square(fields), 1), 1, keepdims=True
        )
        net = api.concat([embedded, api.input_layer(features, params["numeric"])])
        for units in (128, 64):
            net = api.dense(net, units, activation=api.relu)
        logits = api.dense(net, 1) + pairwise + api.linear_model(features, params["wide"])
        if mode == api.PREDICT:
            return api.EstimatorSpec(mode, predictions={"logits": logits})
        loss = api.loss(api.float_labels(labels), logits)
        train_op = api.optimizer().minimize(loss, global_step=api.global_step())
        return api.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def deepfm_params(fc, log1p) -> dict:
    """The DeepFM job's feature columns: the CTR job's wide columns, 8-dimensional
    embeddings of its 26 hashed columns, and its log1p numerics."""
    wide, deep = ctr_columns(fc, log1p=log1p)
    hashed = wide[N_NUMERIC : N_NUMERIC + N_CATEGORICAL]  # buckets, hashed, crosses
    return {
        "wide": wide,
        "embedded": [fc.embedding_column(h, FM_DIMENSION) for h in hashed],
        "numeric": deep[:N_NUMERIC],
    }


def step_timer(base, warmup: int):
    """A ``SessionRunHook`` (subclass of the library's ``base``) timing the steps after
    the first ``warmup``: ``hook.steps_per_s()`` once training ended."""
    import time

    class StepTimer(base):
        def __init__(self):
            self.calls, self.first, self.last = 0, None, None

        def after_run(self, run_context, run_values):
            self.calls += 1
            if self.calls == warmup:
                self.first = time.perf_counter()
            self.last = time.perf_counter()

        def steps_per_s(self) -> float:
            return (self.calls - warmup) / (self.last - self.first)

    return StepTimer()
