"""Optimizer step throughput, one JSON line per measurement.

For every optimizer: a dense update of 1M float32 parameters, and a sparse update of a
1024 x 26 row batch (``IndexedRows``, duplicates included) into a 1M x 16 and a 10M x 16
float32 table. A final line per optimizer gives the 10M/1M sparse step-time ratio, which
should stay under 1.5: a sparse step costs the rows it touches, not the table. The
exception is ``AdamOptimizer``, whose TF1 sparse update decays its moments on every row
(``LazyAdamOptimizer`` is the one to use for large tables).

    python benchmarks/optimizers.py                   # all optimizers, numpy (~1-2 min)
    python benchmarks/optimizers.py --only Adagrad,Ftrl --backend cupy
"""

from __future__ import annotations

import argparse
import gc
import json
import time

import numpy as np

import colonnade as cn

BATCH_ROWS = 1024 * 26
ROW_WIDTH = 16
DENSE_SIZE = 1_000_000
TABLE_ROWS = {"sparse_1M_x16": 1_000_000, "sparse_10M_x16": 10_000_000}
MAX_RATIO = 1.5

OPTIMIZERS = {
    "GradientDescent": lambda: cn.train.GradientDescentOptimizer(0.1),
    "Momentum": lambda: cn.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "Adagrad": lambda: cn.train.AdagradOptimizer(0.1),
    "AdagradDA": lambda: cn.train.AdagradDAOptimizer(
        0.1, cn.core.Variable(0, dtype=np.int64), l1_regularization_strength=0.001
    ),
    "Adadelta": lambda: cn.train.AdadeltaOptimizer(1.0),
    "Adam": lambda: cn.train.AdamOptimizer(0.001),
    "LazyAdam": lambda: cn.train.LazyAdamOptimizer(0.001),
    "Ftrl": lambda: cn.train.FtrlOptimizer(
        0.1, l1_regularization_strength=0.001, l2_regularization_strength=0.001
    ),
    "RMSProp": lambda: cn.train.RMSPropOptimizer(0.01, momentum=0.9),
    "ProximalGradientDescent": lambda: cn.train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.001
    ),
    "ProximalAdagrad": lambda: cn.train.ProximalAdagradOptimizer(
        0.1, l1_regularization_strength=0.001
    ),
}


def _sync(xp):
    if xp is not np:
        xp.cuda.Stream.null.synchronize()


def _time_steps(step, xp, min_seconds, min_steps):
    """Steps per second of ``step()`` after one warm-up step."""
    step()
    _sync(xp)
    count, start = 0, time.perf_counter()
    while count < min_steps or time.perf_counter() - start < min_seconds:
        step()
        count += 1
    _sync(xp)
    return count / (time.perf_counter() - start)


def _prepare(opt, var):
    """Create the slots and write every page of them once, so that the timed steps see
    a resident table (as after a while of training), not first-touch page faults."""
    opt.create_slots([var])
    for _, _, slot in opt.slot_items():
        slot.value += 0


def bench_dense(name, xp, rng, min_seconds):
    var = cn.core.Variable(xp.full(DENSE_SIZE, 0.5, dtype=np.float32), name="dense")
    grad = xp.asarray(rng.normal(size=DENSE_SIZE).astype(np.float32))
    opt = OPTIMIZERS[name]()
    _prepare(opt, var)
    return _time_steps(lambda: opt.apply_gradients([(grad, var)]), xp, min_seconds, 5)


def bench_sparse(name, rows, xp, rng, min_seconds):
    var = cn.core.Variable(xp.full((rows, ROW_WIDTH), 0.5, dtype=np.float32), name="table")
    values = xp.asarray(rng.normal(size=(BATCH_ROWS, ROW_WIDTH)).astype(np.float32))
    batches = [
        cn.core.IndexedRows(
            xp.asarray(rng.integers(0, rows, size=BATCH_ROWS)), values, (rows, ROW_WIDTH)
        )
        for _ in range(8)
    ]
    opt = OPTIMIZERS[name]()
    _prepare(opt, var)
    state = {"k": 0}

    def step():
        opt.apply_gradients([(batches[state["k"] % len(batches)], var)])
        state["k"] += 1

    return _time_steps(step, xp, min_seconds, 3)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated optimizer names (default: all)")
    parser.add_argument("--backend", default="numpy", choices=["numpy", "cupy"])
    parser.add_argument("--min-seconds", type=float, default=0.4, help="per measurement")
    args = parser.parse_args(argv)
    cn.core.set_backend(args.backend)
    xp = cn.core.backend.default_xp()
    names = args.only.split(",") if args.only else list(OPTIMIZERS)
    rng = np.random.default_rng(0)
    common = {"bench": "optimizers", "backend": args.backend}
    for name in names:
        rate = bench_dense(name, xp, rng, args.min_seconds)
        print(json.dumps({**common, "optimizer": name, "case": "dense_1M", "steps_per_s": rate}))
        rates = {}
        for case, rows in TABLE_ROWS.items():
            rates[case] = bench_sparse(name, rows, xp, rng, args.min_seconds)
            gc.collect()
            line = {**common, "optimizer": name, "case": case, "steps_per_s": rates[case]}
            print(json.dumps(line), flush=True)
        ratio = rates["sparse_1M_x16"] / rates["sparse_10M_x16"]
        print(
            json.dumps(
                {
                    **common,
                    "optimizer": name,
                    "case": "sparse_step_time_ratio_10M_over_1M",
                    "ratio": round(ratio, 3),
                    "under_1.5": ratio < MAX_RATIO,
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
