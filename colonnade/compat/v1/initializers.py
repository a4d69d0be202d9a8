"""TF 1's initializer names (``tf.constant_initializer``, ``tf.truncated_normal_initializer``,
...), with TF 1's arguments (``seed``, ``dtype``), each a :mod:`colonnade.core.initializers`
recipe for ``get_variable``. ``dtype`` is the dtype drawn when ``get_variable`` gives none.

>>> import colonnade as cn
>>> cn.compat.v1.constant_initializer(0.5)((2,)).tolist()
[0.5, 0.5]
"""

from colonnade.core import initializers
from colonnade.core.symbolic import dtype_name

__all__ = [
    "constant_initializer",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "ones_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "truncated_normal_initializer",
    "variance_scaling_initializer",
    "zeros_initializer",
]


def _tf1(init, seed=None, dtype="float32"):
    """``init`` with TF 1's ``seed`` (when given, the values depend on it alone, as TF's
    op-level seed) and default ``dtype``."""
    default = dtype_name(dtype)

    def seeded(shape, dtype=None, rng=None):
        return init(shape, default if dtype is None else dtype, seed if seed is not None else rng)

    return seeded


def constant_initializer(value=0, dtype="float32", verify_shape=False):
    """Every element equal to ``value`` (TF 1's ``tf.constant_initializer``)."""
    return _tf1(initializers.constant(value), dtype=dtype)


def zeros_initializer(dtype="float32"):
    """All zeros (TF 1's ``tf.zeros_initializer``)."""
    return _tf1(initializers.zeros(), dtype=dtype)


def ones_initializer(dtype="float32"):
    """All ones (TF 1's ``tf.ones_initializer``)."""
    return _tf1(initializers.ones(), dtype=dtype)


def glorot_normal_initializer(seed=None, dtype="float32"):
    """TF 1's ``tf.glorot_normal_initializer``: see
    :func:`colonnade.core.initializers.glorot_normal`."""
    return _tf1(initializers.glorot_normal(), seed, dtype)


def glorot_uniform_initializer(seed=None, dtype="float32"):
    """TF 1's ``tf.glorot_uniform_initializer``: see
    :func:`colonnade.core.initializers.glorot_uniform`."""
    return _tf1(initializers.glorot_uniform(), seed, dtype)


def truncated_normal_initializer(mean=0.0, stddev=1.0, seed=None, dtype="float32"):
    """TF 1's ``tf.truncated_normal_initializer``: Normal(mean, stddev), redrawn beyond two
    standard deviations."""
    return _tf1(initializers.truncated_normal(mean, stddev), seed, dtype)


def random_normal_initializer(mean=0.0, stddev=1.0, seed=None, dtype="float32"):
    """TF 1's ``tf.random_normal_initializer``: Normal(mean, stddev)."""
    return _tf1(initializers.random_normal(mean, stddev), seed, dtype)


def random_uniform_initializer(minval=0.0, maxval=None, seed=None, dtype="float32"):
    """TF 1's ``tf.random_uniform_initializer``: Uniform on ``[minval, maxval)``;
    ``maxval`` None is 1 (TF 1's default for floats)."""
    return _tf1(initializers.random_uniform(minval, 1.0 if maxval is None else maxval), seed, dtype)


def variance_scaling_initializer(
    scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, dtype="float32"
):
    """TF 1's ``tf.variance_scaling_initializer``: see
    :func:`colonnade.core.initializers.variance_scaling`."""
    return _tf1(initializers.variance_scaling(scale, mode, distribution), seed, dtype)
