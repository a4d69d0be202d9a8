"""End-to-end click-through benchmark of the three canned classifiers (issue 7's job).

Generated CTR-like data — 13 numerics and 26 categoricals, Zipf-distributed with
cardinalities from 10 to 500k — is written once to Parquet, then each model trains one
epoch (batch 1024) reading it through ``cn.data`` with the feature transforms included,
with the input pipeline prefetched on a background thread. Prints one JSON line per model:
train and predict examples/s, AUC and log loss on a held-out file, peak memory, and the
time the model's matrix products alone take at the same shapes (numpy, same run).

    python benchmarks/ctr.py [--rows 1000000] [--models linear,dnn,wide_deep] [--phases]

``--phases`` instead times the parts of a training step (waiting for the input thread,
forward, backward, optimizer) over 200 steps of each model, from an in-memory table.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from workloads import (
    BATCH,
    CARDINALITIES,
    N_NUMERIC,
    ctr_columns,
    log_loss,
    peak_rss_mb,
    run_each_in_own_process,
)

import colonnade as cn
from colonnade.core.autodiff import gradients
from colonnade.estimators.inputs import pipeline as input_pipeline

fc = cn.feature_columns


def zipf_ids(rng, n, cardinality, a=1.2):
    """Zipf-like ids in [0, cardinality): inverse transform of uniforms (numpy-version
    independent), shuffled through a fixed permutation so frequent ids are spread out."""
    ranks = np.minimum(rng.random(n) ** (-1 / (a - 1)), 1e12).astype(np.int64) % cardinality
    return rng.permutation(cardinality)[ranks]


def generate(path: str, rows: int, seed: int) -> None:
    """Write ``rows`` CTR-like rows to ``path`` (Parquet) with a hidden logistic label."""
    rng = np.random.default_rng(seed)
    columns, logit = {}, np.full(rows, -1.6)
    for i in range(N_NUMERIC):
        x = rng.lognormal(0, 1.0, rows).astype(np.float32)
        columns[f"i{i}"] = x
        if i < 4:
            logit += 0.3 * np.sin(np.log(x) * 2)
    ids = []
    for i, card in enumerate(CARDINALITIES):
        v = zipf_ids(rng, rows, card)
        ids.append(v)
        effect = np.random.default_rng(1000 + i).normal(0, 0.6 if i < 10 else 0.1, card)
        logit += effect[v]
        strings = pa.array([f"c{i}_{k}" for k in range(card)])
        columns[f"c{i}"] = pa.DictionaryArray.from_arrays(pa.array(v, pa.int32()), strings)
    cross = np.random.default_rng(7).normal(0, 0.8, 10_007)
    logit += cross[(ids[0] * 31 + ids[1]) % 10_007]
    columns["clicked"] = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    table = pa.table(columns)
    table = table.cast(
        pa.schema(
            [
                pa.field(f.name, pa.string()) if pa.types.is_dictionary(f.type) else f
                for f in table.schema
            ]
        )
    )
    pq.write_table(table, path, row_group_size=65_536, write_page_checksum=True)


def data_paths(rows: int, seed: int = 0) -> tuple:
    """Train/test Parquet files, generated once and kept in the temp dir."""
    base = os.path.join(tempfile.gettempdir(), f"colonnade_ctr_{rows}_{seed}")
    os.makedirs(base, exist_ok=True)
    train, test = os.path.join(base, "train.parquet"), os.path.join(base, "test.parquet")
    if not os.path.exists(train):
        generate(train + ".tmp", rows, seed)
        os.rename(train + ".tmp", train)
    if not os.path.exists(test):
        generate(test + ".tmp", max(rows // 10, 10_000), seed + 1)
        os.rename(test + ".tmp", test)
    return train, test


def columns():
    """``(wide, deep)`` feature columns of the CTR job (see ``workloads.ctr_columns``)."""
    return ctr_columns(fc, log1p=fc.log1p())


def training_columns() -> list:
    """The columns of the generated files a training run reads: the features and the label."""
    wide, deep = columns()
    return sorted(set(cn.data.required_columns(wide + deep)) | {"clicked"})


def make_model(kind: str, model_dir: str):
    wide, deep = columns()
    config = cn.estimators.RunConfig(
        model_dir=model_dir, tf_random_seed=0, log_step_count_steps=0, save_checkpoints_secs=3600
    )
    ftrl = cn.train.FtrlOptimizer(0.05, l1_regularization_strength=0.001)
    if kind == "linear":
        return cn.estimators.LinearClassifier(wide, optimizer=ftrl, config=config)
    # "dnn"/"wide_deep" train their DNN part with TF's default optimizer (Adagrad at
    # TF's default rate); the "_lazyadam" variants with LazyAdam(0.001), which learns
    # the embeddings far better in one epoch.
    dnn_optimizer = cn.train.LazyAdamOptimizer(0.001) if kind.endswith("_lazyadam") else None
    if kind.startswith("dnn"):
        return cn.estimators.DNNClassifier(
            [256, 128, 64], deep, config=config, optimizer=dnn_optimizer or "Adagrad"
        )
    return cn.estimators.DNNLinearCombinedClassifier(
        linear_feature_columns=wide,
        linear_optimizer=ftrl,
        dnn_feature_columns=deep,
        dnn_hidden_units=[256, 128, 64],
        dnn_optimizer=dnn_optimizer or "Adagrad",
        config=config,
    )


def matmul_seconds(model, steps: int) -> float:
    """Time of the model's dense-layer matrix products alone (forward and backward) for
    ``steps`` batches, in plain numpy at the same shapes."""
    network = model.model.network
    if network.dnn is None:
        return 0.0
    rng = np.random.default_rng(0)
    kernels = [layer["kernel"].numpy() for _, layer in network.dnn.tower.layers]
    x = rng.normal(size=(BATCH, kernels[0].shape[0])).astype(np.float32)
    start = time.perf_counter()
    for _ in range(steps):
        acts = [x]
        for k in kernels:
            acts.append(acts[-1] @ k)
        g = np.ones_like(acts[-1])
        for i in reversed(range(len(kernels))):
            _ = acts[i].T @ g
            if i:
                g = g @ kernels[i].T
    return time.perf_counter() - start


def run(kind: str, train: str, test: str, rows: int) -> dict:
    """The JSON line of one model, its model_dir removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=f"ctr_{kind}_") as model_dir:  # ~1 GB each
        return measure(make_model(kind, model_dir), kind, train, test, rows)


def measure(model, kind: str, train: str, test: str, rows: int) -> dict:
    """Train ``model`` one epoch on ``train``, predict ``test``; speeds and quality."""
    wide, deep = columns()
    needed = cn.data.required_columns(wide + deep)
    ds = cn.data.Dataset.from_parquet(
        train, columns=sorted(set(needed) | {"clicked"}), label="clicked"
    )
    start = time.perf_counter()
    model.train(lambda: ds.batch(BATCH).prefetch(2))
    train_s = time.perf_counter() - start
    test_ds = cn.data.Dataset.from_parquet(test, columns=sorted(needed), label=None)
    labels = pq.read_table(test, columns=["clicked"]).column(0).to_numpy()
    start = time.perf_counter()
    probs = model.predict(
        test_ds.batch(8192).prefetch(2), predict_keys=["logistic"], yield_single_examples=False
    )
    p = np.concatenate([b["logistic"][:, 0] for b in probs])
    predict_s = time.perf_counter() - start
    auc = cn.metrics.ExactAUC()
    auc.update(labels, p)
    steps = model.global_step
    return {
        "bench": "ctr_end_to_end",
        "model": kind,
        "rows": rows,
        "batch_size": BATCH,
        "train_examples_per_s": round(rows / train_s),
        "predict_examples_per_s": round(len(p) / predict_s),
        "auc": round(auc.result(), 4),
        "logloss": round(log_loss(labels, p), 4),
        "train_seconds": round(train_s, 2),
        "matmul_seconds": round(matmul_seconds(model, steps), 2),
        "peak_rss_mb": round(peak_rss_mb()),
    }


def phases(kind: str, train: str, steps: int = 200, warmup: int = 20) -> dict:
    """Milliseconds per training step spent in each part of ``Estimator.train_step``."""
    with tempfile.TemporaryDirectory(prefix=f"ctr_{kind}_") as model_dir:
        return _phases(make_model(kind, model_dir), kind, train, steps, warmup)


def _phases(model, kind: str, train: str, steps: int, warmup: int) -> dict:
    """Run ``Estimator.train_step``'s parts one by one, timing each."""
    needed = training_columns()
    table = cn.data.Dataset.from_parquet(train, columns=needed).to_table()
    ds = cn.data.Dataset.from_arrow(table.slice(0, BATCH * (steps + warmup)), label="clicked")
    state = model.train_state
    network, variables = model.model.network, [v for _, vs in state.trained_parts() for v in vs]
    batches = input_pipeline.transformed_batches(network, ds.batch(BATCH), training=True)
    times = dict.fromkeys(["input_wait", "forward", "backward", "optimizer"], 0.0)
    for step in range(steps + warmup):
        if step == warmup:
            times = dict.fromkeys(times, 0.0)
        start = time.perf_counter()
        features, labels, cache = next(batches)
        labels = model.head.label_array(labels)
        t1 = time.perf_counter()
        logits = network.logits(features, training=True, rng=state.step_rng(), cache=cache)
        loss = model.head.training_loss(labels, logits)[0]
        t2 = time.perf_counter()
        grads = gradients([loss], variables)
        t3 = time.perf_counter()
        done = 0
        for optimizer, part in state.trained_parts():
            optimizer.apply_gradients(list(zip(grads[done : done + len(part)], part)))
            done += len(part)
        t4 = time.perf_counter()
        for key, seconds in zip(times, (t1 - start, t2 - t1, t3 - t2, t4 - t3)):
            times[key] += seconds
    batches.close()
    per_step = {k: round(v / steps * 1000, 2) for k, v in times.items()}
    total = sum(times.values()) / steps
    return {
        "bench": "ctr_step_phases",
        "model": kind,
        "ms_per_step": per_step,
        "total_ms": round(total * 1000, 2),
        "examples_per_s": round(BATCH / total),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--models", default="linear,dnn,dnn_lazyadam,wide_deep,wide_deep_lazyadam")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run the models here (by default each runs in its own process, "
        "so its peak memory is its own)",
    )
    parser.add_argument("--phases", action="store_true", help="time the parts of a step")
    args = parser.parse_args()
    train, test = data_paths(args.rows)
    models = args.models.split(",")
    if not (args.phases or args.in_process):
        run_each_in_own_process(__file__, args.rows, models)
        return
    for kind in models:
        result = phases(kind, train) if args.phases else run(kind, train, test, args.rows)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
