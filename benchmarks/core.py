"""Core autodiff speed: forward+backward of an MLP and of a 26-table embedding model.

Prints JSON lines. The MLP is also run as plain numpy with hand-written gradients in the
same process; ``ratio_vs_numpy`` is our examples/s over that baseline's (target >= 0.8).

    python benchmarks/core.py [--seconds 3] [--backend numpy|cupy]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import colonnade as cn

C = cn.core
LAYERS = (429, 256, 128, 64, 1)
BATCH = 1024


def timed(step, seconds: float, sync=lambda: None) -> float:
    """Steps per second of ``step()``, after one warm-up call."""
    step()
    sync()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        n += 1
    sync()
    return n / (time.perf_counter() - start)


def mlp_params(rng, xp):
    shapes = list(zip(LAYERS[:-1], LAYERS[1:]))
    weights = [xp.asarray(rng.normal(0, 0.05, s).astype(np.float32)) for s in shapes]
    biases = [xp.zeros(s[1], np.float32) for s in shapes]
    return weights, biases


def autodiff_mlp_step(x, y, weights, biases):
    variables = [C.Variable(w) for w in weights] + [C.Variable(b) for b in biases]
    ws, bs = variables[: len(weights)], variables[len(weights) :]

    def loss_fn():
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = h @ w + b
            if i < len(ws) - 1:
                h = C.relu(h)
        return C.sigmoid_cross_entropy(y, h, reduction=C.Reduction.SUM_OVER_BATCH_SIZE)

    grad_fn = C.value_and_grad(loss_fn)
    return lambda: grad_fn(variables)


def numpy_mlp_step(x, y, weights, biases, xp):
    """The same network and loss with hand-written backpropagation."""

    def step():
        activations, h = [x], x
        for i, (w, b) in enumerate(zip(weights, biases)):
            h = h @ w + b
            if i < len(weights) - 1:
                h = xp.maximum(h, 0)
            activations.append(h)
        logits = activations[-1]
        loss = xp.mean(xp.maximum(logits, 0) - logits * y + xp.log1p(xp.exp(-xp.abs(logits))))
        g = (1 / (1 + xp.exp(-logits)) - y) / logits.shape[0]
        grads = []
        for i in reversed(range(len(weights))):
            grads.append((activations[i].T @ g, g.sum(0)))
            if i > 0:
                g = (g @ weights[i].T) * (activations[i] > 0)
        return loss, grads

    return step


def embedding_step(xp, rng, tables=26, rows=1_000_000, dim=16, ids_per_example=2):
    variables = [
        C.Variable(xp.asarray(rng.normal(0, 0.01, (rows, dim)).astype(np.float32)))
        for _ in range(tables)
    ]
    n = BATCH * ids_per_example
    ids = [xp.asarray(rng.integers(0, rows, n)) for _ in range(tables)]
    segments = xp.asarray(np.repeat(np.arange(BATCH), ids_per_example))
    head = xp.asarray(rng.normal(0, 0.1, (tables * dim, 1)).astype(np.float32))

    def loss_fn():
        pooled = [C.segment_mean(C.gather(t, i), segments, BATCH) for t, i in zip(variables, ids)]
        return C.mean(C.concat(pooled, axis=1) @ head)

    grad_fn = C.value_and_grad(loss_fn)
    return lambda: grad_fn(variables)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--backend", default="numpy", choices=["numpy", "cupy"])
    args = parser.parse_args()
    C.set_backend(args.backend)
    xp = C.get_xp()
    sync = (lambda: xp.cuda.Stream.null.synchronize()) if args.backend == "cupy" else (lambda: None)
    rng = np.random.default_rng(0)
    x = xp.asarray(rng.normal(size=(BATCH, LAYERS[0])).astype(np.float32))
    y = xp.asarray((rng.random((BATCH, 1)) < 0.3).astype(np.float32))
    weights, biases = mlp_params(rng, xp)

    ours = timed(autodiff_mlp_step(x, y, weights, biases), args.seconds, sync)
    plain = timed(numpy_mlp_step(x, y, weights, biases, xp), args.seconds, sync)
    common = {"backend": args.backend, "batch": BATCH}
    print(
        json.dumps(
            {
                "bench": "mlp_fwd_bwd",
                "impl": "numpy_by_hand",
                **common,
                "layers": LAYERS,
                "examples_per_s": round(plain * BATCH),
            }
        )
    )
    print(
        json.dumps(
            {
                "bench": "mlp_fwd_bwd",
                "impl": "colonnade_autodiff",
                **common,
                "layers": LAYERS,
                "examples_per_s": round(ours * BATCH),
                "ratio_vs_numpy": round(ours / plain, 3),
            }
        )
    )
    emb = timed(embedding_step(xp, rng), args.seconds, sync)
    print(
        json.dumps(
            {
                "bench": "embedding_gather_segment_fwd_bwd",
                **common,
                "tables": 26,
                "table_shape": [1_000_000, 16],
                "ids_per_example": 2,
                "examples_per_s": round(emb * BATCH),
            }
        )
    )


if __name__ == "__main__":
    main()
