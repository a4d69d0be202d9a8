"""CPU time per batch of the training input pipeline alone, for one of ``ctr.py``'s models.

Reads ``ctr.py``'s generated Parquet file as training does
(``Dataset.from_parquet(...).batch(1024)``) and consumes ``--batches`` batches of the
estimators' threaded pipeline (read, transform a chunk, cut it into batches, prepare the
fused tables' rows for the gradient) with nothing else running, after one pass of
warm-up. The process's CPU time is then the input thread's: the figure that the training
step shares its cores with.

    python benchmarks/ctr_input_time.py [--model wide_deep] [--batches 400] [--rows 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ctr  # noqa: E402

import colonnade as cn  # noqa: E402
from colonnade.estimators.inputs.pipeline import transformed_batches  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="wide_deep")
    parser.add_argument("--batches", type=int, default=400)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    train, _ = ctr.data_paths(args.rows)
    needed = ctr.training_columns()
    ds = cn.data.Dataset.from_parquet(train, columns=needed, label="clicked")
    with tempfile.TemporaryDirectory() as model_dir:
        network = ctr.make_model(args.model, model_dir).model.network

        def consume() -> int:
            batches = transformed_batches(
                network, lambda: ds.batch(ctr.BATCH), limit=args.batches, training=True
            )
            return sum(1 for _ in batches)

        consume()
        cpu, wall = time.process_time(), time.perf_counter()
        n = consume()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(
        json.dumps(
            {
                "bench": "ctr_input_time",
                "model": args.model,
                "batches": n,
                "cpu_ms_per_batch": round(cpu / n * 1e3, 3),
                "wall_ms_per_batch": round(wall / n * 1e3, 3),
                "load": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
