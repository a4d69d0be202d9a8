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


def compute_fans(shape) -> tuple:
    """``(fan_in, fan_out)`` of a kernel of ``shape``, as TF's initializers count them: 1
    and 1 for a scalar, ``n`` and ``n`` for a vector, and for a convolution kernel the
    last two dimensions times the receptive field (the product of the others).

    >>> compute_fans(()), compute_fans((4,)), compute_fans((3, 5)), compute_fans((2, 2, 3, 5))
    ((1, 1), (4, 4), (3, 5), (12, 20))
    """
    shape = tuple(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


def glorot_uniform():
    """Uniform on ``±sqrt(6 / (fan_in + fan_out))``: TF's default for dense kernels
    (fans as :func:`compute_fans`)."""

    def init(shape, dtype=DEFAULT_DTYPE, rng=None):
        fan_in, fan_out = compute_fans(shape)
        limit = math.sqrt(6.0 / max(fan_in + fan_out, 1))
        return _rng(rng).uniform(-limit, limit, shape).astype(dtype)

    return init


def glorot_normal():
    """Truncated normal of standard deviation ``sqrt(2 / (fan_in + fan_out)) /
    0.87962566103423978`` (cut at two of them): TF's ``glorot_normal_initializer``, whose
    divisor is the standard deviation of a unit normal truncated at ±2, so that the kept
    values have variance ``2 / (fan_in + fan_out)``."""

    def init(shape, dtype=DEFAULT_DTYPE, rng=None):
        fan_in, fan_out = compute_fans(shape)
        stddev = math.sqrt(2.0 / max(fan_in + fan_out, 1)) / 0.87962566103423978
        return truncated_normal(0.0, stddev)(shape, dtype, rng)

    return init


def variance_scaling(scale=1.0, mode="fan_in", distribution="truncated_normal"):
    """TF 1's ``variance_scaling_initializer``: values of variance ``scale / n``, ``n`` the
    kernel's fan in, fan out or their mean (``mode``; fans as :func:`compute_fans`), drawn
    from a normal truncated at two standard deviations (``"truncated_normal"``, also TF 1's
    ``"normal"``), a plain normal (``"untruncated_normal"``) or a uniform (``"uniform"``)."""
    if scale <= 0.0:
        raise ValueError(f"variance_scaling: scale must be positive, got {scale}")
    if mode not in ("fan_in", "fan_out", "fan_avg"):
        raise ValueError(f"variance_scaling: mode must be fan_in, fan_out or fan_avg, got {mode!r}")
    kinds = ("normal", "truncated_normal", "untruncated_normal", "uniform")
    if distribution not in kinds:
        raise ValueError(
            f"variance_scaling: distribution must be one of {kinds}, got {distribution!r}"
        )

    def init(shape, dtype=DEFAULT_DTYPE, rng=None):
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[mode]
        variance = scale / max(1.0, n)
        if distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return _rng(rng).uniform(-limit, limit, shape).astype(dtype)
        if distribution == "untruncated_normal":
            return random_normal(0.0, math.sqrt(variance))(shape, dtype, rng)
        return truncated_normal(0.0, math.sqrt(variance) / 0.87962566103423978)(shape, dtype, rng)

    return init
