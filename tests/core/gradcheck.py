"""One helper for every op's gradient: analytic (our autodiff) vs central finite differences."""

from __future__ import annotations

import numpy as np

import colonnade as cn


def numeric_grad(f, arrays, index, eps=1e-6):
    """Central-difference gradient of the scalar ``f(*arrays)`` w.r.t. ``arrays[index]``."""
    x = arrays[index]
    grad = np.zeros_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        up = f(*arrays)
        flat[i] = old - eps
        down = f(*arrays)
        flat[i] = old
        gflat[i] = (up - down) / (2 * eps)
    return grad


def check_gradients(op, arrays, rtol=1e-5, atol=1e-7, seed=0):
    """Assert that d/dx sum(op(*xs) * r) from autodiff matches finite differences.

    ``r`` is a fixed random weighting so every output element matters. Arrays are float64.
    """
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    out_shape = np.shape(cn.core.as_tensor(op(*arrays)).value)
    r = np.random.default_rng(seed).normal(size=out_shape)

    def scalar(*xs):
        return float(np.sum(np.asarray(cn.core.as_tensor(op(*xs)).value) * r))

    variables = [cn.core.Variable(a, dtype=np.float64) for a in arrays]
    grads = cn.core.gradients(cn.core.sum(op(*variables) * r), variables)
    for i, g in enumerate(grads):
        assert g is not None, f"input {i} got no gradient"
        if isinstance(g, cn.core.IndexedRows):
            g = g.to_dense()
        np.testing.assert_allclose(
            np.asarray(g),
            numeric_grad(scalar, arrays, i),
            rtol=rtol,
            atol=atol,
            err_msg=f"gradient of input {i}",
        )
