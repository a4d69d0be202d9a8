"""The fastest a batch-1024 CTR training step can be on this machine: its matrix products.

A step of ``ctr.py``'s DNN (and of wide&deep's deep part) multiplies, per dense layer,
the activations by the kernel (forward), the transposed activations by the output
gradient (the kernel's gradient) and the output gradient by the transposed kernel (the
input's gradient: for the first layer this trains the 26 embeddings, so it is needed
too). This script times exactly those float32 products, at the model's shapes, with
every core (the best of ``--repeats`` rounds of ``--steps`` steps), next to a large square
product as the machine's practical peak, and prints the rows/s ceiling the products alone
allow, before any input decoding, embedding gather, optimizer update or Python.

    python benchmarks/ctr_ceiling.py [--steps 200] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits
from workloads import BATCH, N_CATEGORICAL, N_NUMERIC

EMBEDDING_DIMENSION = 16
HIDDEN_UNITS = (256, 128, 64)


def layer_shapes() -> list:
    """``(inputs, outputs)`` of each dense layer of ``ctr.py``'s DNN, logits included."""
    widths = [N_NUMERIC + N_CATEGORICAL * EMBEDDING_DIMENSION, *HIDDEN_UNITS, 1]
    return list(zip(widths[:-1], widths[1:]))


def step_products(rng) -> tuple:
    """``(products, flops)``: the step's products as argument pairs, and their FLOPs."""
    products, flops = [], 0
    for inputs, outputs in layer_shapes():
        x = rng.normal(size=(BATCH, inputs)).astype(np.float32)
        w = rng.normal(size=(inputs, outputs)).astype(np.float32)
        g = rng.normal(size=(BATCH, outputs)).astype(np.float32)
        products += [(x, w), (x.T, g), (g, w.T)]
        flops += 3 * 2 * BATCH * inputs * outputs
    return products, flops


def best_seconds(products, steps: int, repeats: int) -> float:
    """The fastest of ``repeats`` timings of ``steps`` rounds of ``products``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            for a, b in products:
                a @ b
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    products, flops = step_products(rng)
    square = rng.normal(size=(2048, 2048)).astype(np.float32)
    cores = len(os.sched_getaffinity(0))
    with threadpool_limits(cores, user_api="blas"):
        step_s = best_seconds(products, args.steps, args.repeats) / args.steps
        peak_s = best_seconds([(square, square)], 5, args.repeats) / 5
    print(
        json.dumps(
            {
                "bench": "ctr_ceiling",
                "cores": cores,
                "step_mflop": round(flops / 1e6, 1),
                "products_ms_per_step": round(step_s * 1e3, 3),
                "products_gflops": round(flops / step_s / 1e9, 1),
                "square_2048_gflops": round(2 * 2048**3 / peak_s / 1e9, 1),
                "ceiling_rows_per_s": round(BATCH / step_s),
                "ms_per_step_at_150k": round(BATCH / 150_000 * 1e3, 3),
                "ms_per_step_at_120k": round(BATCH / 120_000 * 1e3, 3),
                "load": round(os.getloadavg()[0], 2),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
