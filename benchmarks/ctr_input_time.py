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

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ctr  # noqa: E402
from workloads import cpu_and_wall, per_unit_args, per_unit_line  # noqa: E402

import colonnade as cn  # noqa: E402
from colonnade.estimators.inputs.pipeline import transformed_batches  # noqa: E402


def main() -> None:
    args = per_unit_args(__doc__, "wide_deep", "batches", 400, 1_000_000)
    train, _ = ctr.data_paths(args.rows)
    ds = cn.data.Dataset.from_parquet(train, columns=ctr.training_columns(), label="clicked")
    with tempfile.TemporaryDirectory() as model_dir:
        network = ctr.make_model(args.model, model_dir).model.network

        def consume() -> int:
            batches = transformed_batches(
                network, lambda: ds.batch(ctr.BATCH), limit=args.batches, training=True
            )
            return sum(1 for _ in batches)

        consume()
        n, cpu, wall = cpu_and_wall(consume)
    load = round(os.getloadavg()[0], 2)
    print(per_unit_line("ctr_input_time", args.model, "batches", "batch", n, cpu, wall, load=load))


if __name__ == "__main__":
    main()
