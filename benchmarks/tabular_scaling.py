"""How the zero-configuration models' fit time grows with the table: ``TabularClassifier``
on ``ctr.py``'s generated click data (13 skewed numbers, 26 Zipf categories with 10 to
500k values, a hidden logistic label) at several row counts, beyond issue 28's 100k.

Prints one JSON line per size: fit seconds, epochs trained, the number of ensemble
members where the model reports one, and AUC on ``ctr.py``'s held-out file.

    python benchmarks/tabular_scaling.py [--rows 100000,300000,1000000] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import pyarrow.parquet as pq
from ctr import data_paths
from workloads import peak_rss_mb

import colonnade as cn


def fit_one(rows: int, seed: int) -> dict:
    """Fit on the first ``rows`` generated rows; time it and score the held-out file."""
    train_path, test_path = data_paths(1_000_000)
    train = pq.read_table(train_path).slice(0, rows)
    test = pq.read_table(test_path)
    model = cn.estimators.TabularClassifier("clicked", model_dir=tempfile.mkdtemp(), seed=seed)
    start = time.perf_counter()
    model.fit(train)
    seconds = time.perf_counter() - start
    probabilities = model.predict(test.drop(["clicked"]))["probabilities_1"]
    auc = cn.metrics.ExactAUC()
    auc.update(test.column("clicked").to_numpy(), probabilities.to_numpy())
    return {
        "bench": "tabular_scaling",
        "rows": rows,
        "fit_seconds": round(seconds, 1),
        "epochs": model.best_epoch_,
        "members": len(getattr(model, "members_", [None])),
        "auc": round(auc.result(), 4),
        "peak_rss_mb": round(peak_rss_mb()),
        "load": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", default="100000,300000,1000000")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for rows in (int(r) for r in args.rows.split(",")):
        print(json.dumps(fit_one(rows, args.seed)), flush=True)


if __name__ == "__main__":
    main()
