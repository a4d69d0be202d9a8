"""Which of quality_wide.py's tables the equal-columns rule fires on: runs only the column
inference (no training) on each table's training split and prints, per table and seed, a
JSON line of the equalities kept (each decision's line) and the inference's seconds.

    python benchmarks/equal_columns_tables.py [--datasets fishing,car] [--seeds 0,1,2]

The seed is the inference sample's, as ``TabularClassifier(seed=...)`` passes it.
"""

import argparse
import json
import os
import time

from quality_wide import DATASETS

import colonnade as cn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--seeds", default="0")
    args = parser.parse_args()
    for name in args.datasets.split(","):
        task, train, _, label = DATASETS[name]()
        for seed in [int(s) for s in args.seeds.split(",")]:
            start = time.perf_counter()
            plan = cn.feature_columns.infer(train, label, task=task, seed=seed)
            seconds = time.perf_counter() - start
            fired = [d.line() for d in plan.decisions if d.action == "equal columns"]
            line = {"bench": "equal_columns", "dataset": name, "seed": seed}
            line.update(equalities=fired, inference_seconds=round(seconds, 2))
            print(json.dumps({**line, "load": round(os.getloadavg()[0], 2)}), flush=True)


if __name__ == "__main__":
    main()
