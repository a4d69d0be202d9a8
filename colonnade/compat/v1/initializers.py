"""TF 1's initializer names (``tf.constant_initializer``, ``tf.glorot_normal_initializer``,
...), each a :mod:`colonnade.core.initializers` recipe for ``get_variable``.

>>> import colonnade as cn
>>> cn.compat.v1.constant_initializer(0.5)((2,)).tolist()
[0.5, 0.5]
"""

from colonnade.core import initializers

__all__ = [
    "constant_initializer",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "ones_initializer",
    "zeros_initializer",
]


def _seeded(init, seed):
    """``init`` drawing from ``seed`` when one is given, as TF's ``seed=`` argument."""
    if seed is None:
        return init
    return lambda shape, dtype=initializers.DEFAULT_DTYPE, rng=None: init(
        shape, dtype, seed if rng is None else rng
    )


def constant_initializer(value=0):
    """Every element equal to ``value`` (TF 1's ``tf.constant_initializer``)."""
    return initializers.constant(value)


def zeros_initializer():
    """All zeros (TF 1's ``tf.zeros_initializer``)."""
    return initializers.zeros()


def ones_initializer():
    """All ones (TF 1's ``tf.ones_initializer``)."""
    return initializers.ones()


def glorot_normal_initializer(seed=None):
    """TF 1's ``tf.glorot_normal_initializer``: see
    :func:`colonnade.core.initializers.glorot_normal`."""
    return _seeded(initializers.glorot_normal(), seed)


def glorot_uniform_initializer(seed=None):
    """TF 1's ``tf.glorot_uniform_initializer``: see
    :func:`colonnade.core.initializers.glorot_uniform`."""
    return _seeded(initializers.glorot_uniform(), seed)
