"""CPU and wall time per training step of one of ``ctr.py``'s models, in process.

Trains 20 warm-up steps, then times ``train`` over the next ``--steps`` batches of 1,024
rows of ``ctr.py``'s generated data, read into memory first. CPU time
(``time.process_time``, the input thread included) is the figure that holds up on a
loaded machine; run it under ``farm-bench`` against another checkout's copy to compare.

    python benchmarks/ctr_step_time.py [--model linear] [--steps 150] [--rows 200000]
"""

from __future__ import annotations

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ctr  # noqa: E402
from workloads import cpu_and_wall, per_unit_args, per_unit_line  # noqa: E402

import colonnade as cn  # noqa: E402

WARMUP = 20


def main() -> None:
    args = per_unit_args(__doc__, "linear", "steps", 150, 200_000)
    train, _ = ctr.data_paths(args.rows)
    table = cn.data.Dataset.from_parquet(train, columns=ctr.training_columns()).to_table()
    with tempfile.TemporaryDirectory() as model_dir:
        model = ctr.make_model(args.model, model_dir)
        warm = cn.data.Dataset.from_arrow(table.slice(0, ctr.BATCH * WARMUP), label="clicked")
        model.train(lambda: warm.batch(ctr.BATCH), verbose=0)
        timed = table.slice(ctr.BATCH * WARMUP, ctr.BATCH * args.steps)
        ds = cn.data.Dataset.from_arrow(timed, label="clicked")
        _, cpu, wall = cpu_and_wall(lambda: model.train(lambda: ds.batch(ctr.BATCH), verbose=0))
    print(per_unit_line("ctr_step_time", args.model, "steps", "step", args.steps, cpu, wall))


if __name__ == "__main__":
    main()
