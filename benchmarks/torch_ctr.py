"""``benchmarks/ctr.py``'s job in PyTorch, for comparison on the same machine and data.

PyTorch is not a colonnade dependency: run it in a throw-away environment with the CPU
wheel, after ``ctr.py`` generated the data::

    python3 -m venv /tmp/torchenv
    /tmp/torchenv/bin/pip install torch numpy pyarrow pandas scikit-learn
    /tmp/torchenv/bin/python benchmarks/torch_ctr.py [--rows 1000000] [--threads 2]
        [--models linear_adagrad,linear_sparseadam,dnn_adagrad,dnn_sparseadam,...]

The same models as ``ctr.py`` on the same features (``workloads.ctr_columns``): the wide
part is one ``EmbeddingBag`` (sum, one-dimensional rows) over 13 bucketized numerics, 26
hashed categoricals and two hashed crosses; the deep part concatenates 16-dimensional
``Embedding`` rows of the 26 hashed categoricals with the 13 log1p numerics into a [256,
128, 64] ReLU tower. Both tables have sparse gradients. ``*_adagrad`` trains everything
with ``Adagrad`` (TF's rate 0.05 and initial accumulator 0.1, as the canned estimators'
defaults); ``*_sparseadam`` the tables with ``SparseAdam`` and the tower with ``Adam``
(0.001, as colonnade's ``LazyAdam`` variants; 0.01 on the wide table).

Featurization is inside the figures, as it is for colonnade: the train time runs from
reading the Parquet file (strings as dictionaries, as colonnade reads them) through
hashing (each distinct string once, ``pandas.util.hash_array``), bucketizing and one epoch
at batch 1024; the predict time from reading the test file to its probabilities. One
JSON line per model, with the load average beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import warnings

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import torch
from sklearn.metrics import roc_auc_score
from torch import nn
from torch.nn import functional as F
from workloads import BATCH, CARDINALITIES, N_NUMERIC, log_loss, peak_rss_mb

BOUNDARIES = np.array([0.25, 0.5, 1.0, 2.0, 4.0, 8.0], dtype=np.float32)
HASH_BUCKETS = [int(min(2 * card, 1_000_000)) for card in CARDINALITIES]
CROSSES = (((0, 1), 100_000), ((2, 3), 100_000))
MODELS = [f"{m}_{o}" for m in ("linear", "dnn", "wide_deep") for o in ("adagrad", "sparseadam")]


def fingerprints(column) -> np.ndarray:
    """uint64 hashes of a dictionary-encoded string column, each distinct value hashed once."""
    parts = []
    for chunk in column.chunks:
        if chunk.null_count:
            raise ValueError(f"{chunk.null_count} missing values in a categorical column")
        distinct = pd.util.hash_array(chunk.dictionary.to_numpy(zero_copy_only=False))
        parts.append(distinct[chunk.indices.to_numpy()])
    return np.concatenate(parts)


def offsets(sizes) -> np.ndarray:
    """Where each feature's rows start in one table holding all of them."""
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


WIDE_SIZES = [len(BOUNDARIES) + 1] * N_NUMERIC + HASH_BUCKETS + [b for _, b in CROSSES]
WIDE_OFFSETS, DEEP_OFFSETS = offsets(WIDE_SIZES), offsets(HASH_BUCKETS)


def featurize(path: str) -> dict:
    """Parquet file to model inputs: log1p numerics, wide ids and deep ids (each offset
    into its feature's rows of one table), and the label when the file has it."""
    names = [f"i{i}" for i in range(N_NUMERIC)] + [f"c{i}" for i in range(len(CARDINALITIES))]
    schema = pq.read_schema(path)
    wanted = names + (["clicked"] if "clicked" in schema.names else [])
    table = pq.read_table(path, columns=wanted, read_dictionary=names[N_NUMERIC:])
    numerics = np.stack(
        [table.column(f"i{i}").to_numpy().astype(np.float32) for i in range(N_NUMERIC)], 1
    )
    hashes = [fingerprints(table.column(f"c{i}")) for i in range(len(CARDINALITIES))]
    hashed = np.stack([h % np.uint64(b) for h, b in zip(hashes, HASH_BUCKETS)], 1)
    crossed = [
        pd.util.hash_array(hashes[a] * np.uint64(0x9E3779B97F4A7C15) + hashes[b]) % np.uint64(n)
        for (a, b), n in CROSSES
    ]
    buckets = np.searchsorted(BOUNDARIES, numerics, side="right")
    wide = np.concatenate([buckets, hashed, np.stack(crossed, 1)], 1).astype(np.int64)
    out = {
        "numeric": torch.from_numpy(np.log1p(numerics)),
        "wide": torch.from_numpy(wide + WIDE_OFFSETS),
        "deep": torch.from_numpy(hashed.astype(np.int64) + DEEP_OFFSETS),
    }
    if "clicked" in wanted:
        out["label"] = torch.from_numpy(table.column("clicked").to_numpy().astype(np.float32))
    return out


class Model(nn.Module):
    """The wide part, the deep part, or both (their logits summed)."""

    def __init__(self, kind: str):
        super().__init__()
        self.wide = self.tables = self.tower = None
        if kind.startswith(("linear", "wide_deep")):
            self.wide = nn.EmbeddingBag(sum(WIDE_SIZES), 1, mode="sum", sparse=True)
            nn.init.zeros_(self.wide.weight)
            self.bias = nn.Parameter(torch.zeros(1))
        if kind.startswith(("dnn", "wide_deep")):
            self.tables = nn.Embedding(sum(HASH_BUCKETS), 16, sparse=True)
            nn.init.trunc_normal_(self.tables.weight, std=0.25, a=-0.5, b=0.5)
            width, layers = len(HASH_BUCKETS) * 16 + N_NUMERIC, []
            for units in (256, 128, 64):
                layers += [nn.Linear(width, units), nn.ReLU()]
                width = units
            layers.append(nn.Linear(width, 1))
            for layer in layers[::2]:
                nn.init.xavier_uniform_(layer.weight)
                nn.init.zeros_(layer.bias)
            self.tower = nn.Sequential(*layers)

    def forward(self, numeric, wide, deep):
        logits = 0
        if self.wide is not None:
            logits = self.wide(wide)[:, 0] + self.bias
        if self.tower is not None:
            embedded = self.tables(deep).flatten(1)
            logits = logits + self.tower(torch.cat([embedded, numeric], 1))[:, 0]
        return logits

    def sparse_parameters(self):
        return [t.weight for t in (self.wide, self.tables) if t is not None]

    def dense_parameters(self):
        sparse = {id(p) for p in self.sparse_parameters()}
        return [p for p in self.parameters() if id(p) not in sparse]


def optimizers(model: Model, kind: str) -> list:
    """``*_adagrad``: Adagrad (0.05, accumulators from 0.1) everywhere; ``*_sparseadam``:
    SparseAdam on the tables (0.01 wide, 0.001 deep) and Adam (0.001) on the tower."""
    if kind.endswith("_adagrad"):
        return [torch.optim.Adagrad(model.parameters(), lr=0.05, initial_accumulator_value=0.1)]
    groups = []
    if model.wide is not None:
        groups.append({"params": [model.wide.weight], "lr": 0.01})
    if model.tables is not None:
        groups.append({"params": [model.tables.weight], "lr": 0.001})
    dense = torch.optim.Adam(model.dense_parameters(), lr=0.001)
    return [torch.optim.SparseAdam(groups), dense]


def train(model: Model, opts: list, inputs: dict) -> None:
    """One epoch in file order at batch ``BATCH``."""
    rows = len(inputs["label"])
    for start in range(0, rows, BATCH):
        part = {k: v[start : start + BATCH] for k, v in inputs.items()}
        for opt in opts:
            opt.zero_grad(set_to_none=True)
        logits = model(part["numeric"], part["wide"], part["deep"])
        F.binary_cross_entropy_with_logits(logits, part["label"]).backward()
        for opt in opts:
            opt.step()


def predict(model: Model, inputs: dict) -> np.ndarray:
    with torch.no_grad():
        logits = model(inputs["numeric"], inputs["wide"], inputs["deep"])
    return torch.sigmoid(logits).numpy()


def run(kind: str, rows: int, threads: int) -> dict:
    base = os.path.join(tempfile.gettempdir(), f"colonnade_ctr_{rows}_0")
    torch.manual_seed(0)
    model = Model(kind)
    opts = optimizers(model, kind)
    load = os.getloadavg()[0]
    cpu, start = time.process_time(), time.perf_counter()
    inputs = featurize(os.path.join(base, "train.parquet"))
    featurize_s = time.perf_counter() - start
    train(model, opts, inputs)
    train_s, train_cpu_s = time.perf_counter() - start, time.process_time() - cpu
    start = time.perf_counter()
    test = featurize(os.path.join(base, "test.parquet"))
    p = predict(model, test)
    predict_s = time.perf_counter() - start
    labels = test["label"].numpy()
    return {
        "bench": "ctr_end_to_end",
        "impl": f"pytorch {torch.__version__}",
        "model": kind,
        "rows": rows,
        "batch_size": BATCH,
        "threads": threads,
        "train_examples_per_s": round(rows / train_s),
        "predict_examples_per_s": round(len(p) / predict_s),
        "auc": round(float(roc_auc_score(labels, p)), 4),
        "logloss": round(log_loss(labels, p), 4),
        "train_seconds": round(train_s, 2),
        "train_cpu_seconds": round(train_cpu_s, 2),
        "featurize_seconds": round(featurize_s, 2),
        "peak_rss_mb": round(peak_rss_mb()),
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    # Adagrad's sparse state update says each step that invariant checks are off.
    warnings.filterwarnings("ignore", "Sparse invariant checks", UserWarning)
    for kind in args.models.split(","):
        if kind not in MODELS:
            raise SystemExit(f"unknown model {kind!r}: expected one of {MODELS}")
        print(json.dumps(run(kind, args.rows, args.threads)), flush=True)


if __name__ == "__main__":
    main()
