"""``colonnade demo``: train a small network with colonnade's core on generated data.

A stand-in for the census wide&deep demo until the estimators land: it shows the core
(Variables, ops, value_and_grad) learning a non-linear decision boundary.
"""

from __future__ import annotations

import time

import numpy as np

from . import core


def make_rings(n: int, rng: np.random.Generator):
    """Two noisy concentric rings: label 1 for the outer ring."""
    labels = rng.integers(0, 2, n)
    radius = 1.0 + labels + rng.normal(0, 0.25, n)
    angle = rng.uniform(0, 2 * np.pi, n)
    x = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    return x.astype(np.float32), labels.astype(np.float32)[:, None]


def run_demo(steps: int = 300, seed: int = 0, batch_size: int = 256) -> int:
    rng = np.random.default_rng(seed)
    x_train, y_train = make_rings(8192, rng)
    x_test, y_test = make_rings(2048, rng)
    init = core.initializers.glorot_uniform()
    params = [
        core.Variable(init((2, 32), rng=rng), name="hidden/kernel"),
        core.Variable(np.zeros(32, np.float32), name="hidden/bias"),
        core.Variable(init((32, 1), rng=rng), name="logits/kernel"),
        core.Variable(np.zeros(1, np.float32), name="logits/bias"),
    ]

    def logits(x):
        w1, b1, w2, b2 = params
        return core.relu(x @ w1 + b1) @ w2 + b2

    start = time.perf_counter()
    for step in range(steps):
        idx = rng.integers(0, len(x_train), batch_size)
        batch_x, batch_y = x_train[idx], y_train[idx]
        loss, grads = core.value_and_grad(
            lambda x=batch_x, y=batch_y: core.sigmoid_cross_entropy(y, logits(x))
        )(params)
        for p, g in zip(params, grads):
            p.assign_sub(0.5 * g)
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step:4d}  loss {float(loss):.4f}")
    elapsed = time.perf_counter() - start
    with core.no_grad():
        predicted = core.to_host(logits(x_test).value) > 0
    accuracy = float(np.mean(predicted == (y_test > 0.5)))
    print(
        f"test accuracy {accuracy:.3f} after {steps} steps in {elapsed:.2f}s "
        f"({steps * batch_size / elapsed:,.0f} examples/s)"
    )
    return 0
