"""Batch scoring speed: ``cn.distribute.predict_dataset`` on a local Ray cluster against
single-process ``cn.load(export).predict`` of the same export and rows. Prints JSON lines.

    python benchmarks/ray_scoring.py [--rows 400000] [--blocks 16] [--cpus 2]
                                     [--concurrency 1 2] [--model wide_deep|linear]

A wide&deep (or linear) classifier is trained briefly on generated click-log rows (4
numeric, 4 hashed categorical columns, a cross), exported, and scored. Ray's figures
count from the call to the last row received on the driver, so they include starting
the actors and each loading the export; ``startup_s`` is the same for a 1-block, 1k-row
dataset, what a run pays whatever its size.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np
import pandas as pd

import colonnade as cn

fc = cn.feature_columns
NUMERIC = [f"n{i}" for i in range(4)]
CATEGORICAL = [f"c{i}" for i in range(4)]


def click_log(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    data = {"request_id": np.arange(rows)}
    for name in NUMERIC:
        data[name] = rng.normal(size=rows)
    for i, name in enumerate(CATEGORICAL):
        data[name] = np.char.add(f"v{i}_", rng.integers(0, 1000, rows).astype(str))
    score = data["n0"] + (rng.integers(0, 1000, rows) % 3 == 0)
    data["clicked"] = (score + rng.normal(size=rows) > 0.5).astype(np.int64)
    return pd.DataFrame(data)


def export_model(kind: str, root: str) -> str:
    cats = [fc.categorical_column_with_hash_bucket(c, 10_000) for c in CATEGORICAL]
    nums = [fc.numeric_column(c) for c in NUMERIC]
    cross = fc.crossed_column(CATEGORICAL[:2], 50_000)
    config = cn.estimators.RunConfig(model_dir=os.path.join(root, "model"), tf_random_seed=0)
    if kind == "linear":
        est = cn.estimators.LinearClassifier(nums + cats + [cross], config=config)
    else:
        est = cn.estimators.DNNLinearCombinedClassifier(
            linear_feature_columns=cats + [cross],
            dnn_feature_columns=nums + [fc.embedding_column(c, 16) for c in cats],
            dnn_hidden_units=[256, 128, 64],
            config=config,
        )
    est.fit(click_log(20_000, seed=1), label="clicked", batch_size=256, verbose=0)
    return est.export_saved_model(os.path.join(root, "exports"))


def blocks(ray, df: pd.DataFrame, n: int):
    edges = np.linspace(0, len(df), n + 1).astype(int)
    return ray.data.from_pandas([df.iloc[a:b] for a, b in zip(edges[:-1], edges[1:])])


def score_ray(ray, path, rds, batch_size, concurrency) -> tuple[int, float]:
    started = time.perf_counter()
    scored = cn.distribute.predict_dataset(
        path, rds, batch_size=batch_size, concurrency=concurrency, forward_features="request_id"
    )
    rows = sum(b.num_rows for b in scored.iter_batches(batch_size=None, batch_format="pyarrow"))
    return rows, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--blocks", type=int, default=16)
    parser.add_argument("--cpus", type=int, default=os.cpu_count())
    parser.add_argument("--concurrency", type=int, nargs="+", default=None)
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--model", choices=["wide_deep", "linear"], default="wide_deep")
    args = parser.parse_args()
    import ray

    root = tempfile.mkdtemp(prefix="ray_scoring_")
    path = export_model(args.model, root)
    df = click_log(args.rows).drop(columns="clicked")
    common = {"model": args.model, "rows": args.rows, "cpus": args.cpus}

    predictor = cn.load(path)
    predictor.predict(df.head(1000), batch_size=args.batch_size)  # warm caches
    started = time.perf_counter()
    frame = predictor.predict(df, batch_size=args.batch_size)
    seconds = time.perf_counter() - started
    assert len(frame) == args.rows
    print(
        json.dumps(
            {
                **common,
                "job": "single_process_predict",
                "seconds": round(seconds, 2),
                "rows_per_s": round(args.rows / seconds),
            }
        ),
        flush=True,
    )

    ray.init(
        num_cpus=args.cpus, include_dashboard=False, log_to_driver=False, configure_logging=False
    )
    ray.data.DataContext.get_current().enable_progress_bars = False
    rds = blocks(ray, df, args.blocks).materialize()
    _, startup = score_ray(ray, path, blocks(ray, df.head(1000), 1), args.batch_size, 1)
    for concurrency in args.concurrency or sorted({1, args.cpus}):
        rows, seconds = score_ray(ray, path, rds, args.batch_size, concurrency)
        assert rows == args.rows, rows
        print(
            json.dumps(
                {
                    **common,
                    "job": "predict_dataset",
                    "blocks": args.blocks,
                    "concurrency": concurrency,
                    "seconds": round(seconds, 2),
                    "rows_per_s": round(rows / seconds),
                    "startup_s": round(startup, 2),
                }
            ),
            flush=True,
        )
    ray.shutdown()


if __name__ == "__main__":
    main()
