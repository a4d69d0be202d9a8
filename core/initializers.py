"""Initializers: ``(shape, dtype, rng) -> array`` recipes for new variables (TF's defaults).

``rng`` is a numpy ``Generator``; values are drawn on the host so that a seed gives the
same numbers on every backend, then moved to the current backend by ``Variable``.
"""

from __future__ import annotations

import math

import numpy as np

from .backend import DEFAULT_DTYPE


def _rng(rng):
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def zeros():
    """All zeros."""
    return lambda shape, dtype=DEFAULT_DTYPE, rng=None: np.zeros(shape, dtype)


def ones():
    """All ones."""
    return lambda shape, dtype=DEFAULT_DTYPE, rng=None: np.ones(shape, dtype)


def constant(value):
    """Every element equal to ``value``."""
    return lambda shape, dtype=DEFAULT_DTYPE, rng=None: np.full(shape, value, dtype)


def random_normal(mean=0.0, stddev=1.0):
    """Normal(mean, stddev)."""
    return lambda shape, dtype=DEFAULT_DTYPE, rng=None: (
        _rng(rng).normal(mean, stddev, shape).astype(dtype)
    )


def truncated_normal(mean=0.0, stddev=1.0):
    """Normal(mean, stddev) redrawn until within two standard deviations (as TF)."""

    def init(shape, dtype=DEFAULT_DTYPE, rng=None):
        rng = _rng(rng)
        out = rng.standard_normal(shape)
        bad = np.abs(out) > 2
        while bad.any():
            out[bad] = rng.standard_normal(int(bad.sum()))
            bad = np.abs(out) > 2
        return (mean + stddev * out).astype(dtype)

    return init


def random_uniform(minval=-0.05, maxval=0.05):
    """Uniform on ``[minval, maxval)``."""
    return lambda shape, dtype=DEFAULT_DTYPE, rng=None: (
        _rng(rng).uniform(minval, maxval, shape).astype(dtype)
    )


def glorot_uniform():
    """Uniform on ``±sqrt(6 / (fan_in + fan_out))``: TF's default for dense kernels."""

    def init(shape, dtype=DEFAULT_DTYPE, rng=None):
        fan_in = shape[-2] if len(shape) > 1 else shape[0]
        fan_out = shape[-1]
        limit = math.sqrt(6.0 / max(fan_in + fan_out, 1))
        return _rng(rng).uniform(-limit, limit, shape).astype(dtype)

    return init
