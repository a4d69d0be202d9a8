"""Where more BLAS threads pay off: float32 matrix products of a dense layer's shapes
(forward ``x @ W``, at several batch sizes and widths), timed at each thread count.

Prints one JSON line per shape: microseconds per product at each thread count and the
fastest count. It is what ``core/threads.py``'s ``MIN_FLOPS_PER_THREAD`` was chosen from.

    python benchmarks/blas_threads.py [--threads 1,2,4,8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

SHAPES = [
    (32, 64, 32),
    (32, 400, 256),
    (64, 400, 256),
    (256, 400, 256),
    (1024, 64, 32),
    (1024, 128, 64),
    (1024, 256, 128),
    (1024, 400, 256),
    (4096, 400, 256),
    (1024, 1024, 1024),
    (8192, 1024, 1024),
]


def time_product(a, b, seconds: float = 0.2) -> float:
    """Best-of-three microseconds for ``a @ b``, each timing repeated for ``seconds``."""
    a @ b
    reps = max(3, int(seconds * 1e9 / (2 * a.shape[0] * a.shape[1] * b.shape[1])))
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(reps):
            a @ b
        best = min(best, (time.perf_counter() - start) / reps)
    return best * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    default = ",".join(str(t) for t in (1, 2, 4, 8, 16) if t <= os.cpu_count())
    parser.add_argument("--threads", default=default)
    args = parser.parse_args()
    counts = [int(t) for t in args.threads.split(",")]
    rng = np.random.default_rng(0)
    for m, k, n in SHAPES:
        a = rng.random((m, k), dtype=np.float32)
        b = rng.random((k, n), dtype=np.float32)
        micros = {}
        for t in counts:
            with threadpool_limits(limits=t, user_api="blas"):
                micros[t] = round(time_product(a, b), 1)
        best = min(micros, key=micros.get)
        print(
            json.dumps(
                {
                    "bench": "blas_threads",
                    "shape": [m, k, n],
                    "flops": 2 * m * k * n,
                    "us_by_threads": micros,
                    "best_threads": best,
                    "cpus": os.cpu_count(),
                    "load": os.getloadavg()[0],
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
