"""Which of quality_wide.py's tables the equal-columns rule fires on: runs only the column
inference (no training) on each table's training split and prints the equalities kept.

    python benchmarks/equal_columns_tables.py [--datasets fishing,car] [--seeds 0,1,2]

The seed is the inference sample's, as ``TabularClassifier(seed=...)`` passes it.
"""

import argparse
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
            print(
                f"{name} seed {seed}: {len(fired)} equalities (inference {seconds:.1f} s)",
                flush=True,
            )
            for line in fired:
                print(f"  {line}", flush=True)


if __name__ == "__main__":
    main()
