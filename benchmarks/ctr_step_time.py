"""CPU and wall time per training step of one of ``ctr.py``'s models, in process.

Trains 20 warm-up steps, then times ``train`` over the next ``--steps`` batches of 1,024
rows of ``ctr.py``'s generated data, read into memory first. CPU time
(``time.process_time``, the input thread included) is the figure that holds up on a
loaded machine; run it under ``farm-bench`` against another checkout's copy to compare.

    python benchmarks/ctr_step_time.py [--model linear] [--steps 150] [--rows 200000]
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

WARMUP = 20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="linear")
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--rows", type=int, default=200_000)
    args = parser.parse_args()
    train, _ = ctr.data_paths(args.rows)
    needed = ctr.training_columns()
    table = cn.data.Dataset.from_parquet(train, columns=needed).to_table()
    with tempfile.TemporaryDirectory() as model_dir:
        model = ctr.make_model(args.model, model_dir)
        warm = cn.data.Dataset.from_arrow(table.slice(0, ctr.BATCH * WARMUP), label="clicked")
        model.train(lambda: warm.batch(ctr.BATCH), verbose=0)
        timed = table.slice(ctr.BATCH * WARMUP, ctr.BATCH * args.steps)
        ds = cn.data.Dataset.from_arrow(timed, label="clicked")
        cpu, wall = time.process_time(), time.perf_counter()
        model.train(lambda: ds.batch(ctr.BATCH), verbose=0)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(
        json.dumps(
            {
                "bench": "ctr_step_time",
                "model": args.model,
                "steps": args.steps,
                "cpu_ms_per_step": round(cpu / args.steps * 1e3, 3),
                "wall_ms_per_step": round(wall / args.steps * 1e3, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
