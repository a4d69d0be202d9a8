"""Serializable initializers for embedding tables.

``embedding_column(..., initializer=f)`` accepts any callable ``f(shape, dtype, rng)``
returning an array (the signature of ``colonnade.core.initializers``). To write it into a
config, name one of the core initializers instead: ``initializer("random_uniform",
minval=-0.1, maxval=0.1)`` is a frozen, comparable value that ``to_config`` stores.

>>> init = initializer("truncated_normal", stddev=0.5)
>>> init((2, 3), rng=0).shape
(2, 3)
>>> init.to_config()
{'type': 'truncated_normal', 'stddev': 0.5}
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from ..core import initializers as core_initializers
from ..core.backend import DEFAULT_DTYPE

__all__ = [
    "INITIALIZERS",
    "Initializer",
    "call_initializer",
    "initializer",
    "initializer_from_config",
]

INITIALIZERS = (
    "zeros",
    "ones",
    "constant",
    "random_normal",
    "truncated_normal",
    "random_uniform",
    "glorot_uniform",
)
"""The names :func:`initializer` accepts: functions of ``colonnade.core.initializers``."""


@dataclass(frozen=True)
class Initializer:
    """A core initializer by name with its arguments (sorted ``(name, value)`` pairs).

    >>> Initializer("zeros")((1, 2)).tolist()
    [[0.0, 0.0]]
    """

    name: str
    params: tuple = ()

    def __call__(self, shape, dtype=DEFAULT_DTYPE, rng=None):
        factory = getattr(core_initializers, self.name)
        return factory(**dict(self.params))(tuple(shape), dtype, rng)

    def to_config(self) -> dict:
        return {"type": self.name, **dict(self.params)}


def initializer(name: str, **params) -> Initializer:
    """A serializable initializer: ``colonnade.core.initializers.<name>(**params)``.

    ``name`` is one of :data:`INITIALIZERS`; ``params`` are numbers.

    >>> initializer("constant", value=0.5)((1, 2)).tolist()
    [[0.5, 0.5]]
    """
    if name not in INITIALIZERS:
        raise ValueError(f"unknown initializer {name!r}; choose one of {list(INITIALIZERS)}")
    accepted = inspect.signature(getattr(core_initializers, name)).parameters
    for key, value in params.items():
        if key not in accepted:
            raise ValueError(
                f"initializer {name!r} takes {sorted(accepted) or 'no arguments'}, got {key!r}"
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"initializer argument {key}={value!r} must be a number")
    return Initializer(name, tuple(sorted((k, float(v)) for k, v in params.items())))


def initializer_from_config(config: dict) -> Initializer:
    """Rebuild an :class:`Initializer` from its ``to_config()`` dict.

    >>> initializer_from_config({"type": "zeros"})
    Initializer(name='zeros', params=())
    """
    if not isinstance(config, dict) or "type" not in config:
        raise ValueError(f"an initializer config needs a 'type', got {config!r}")
    params = {k: v for k, v in config.items() if k != "type"}
    return initializer(config["type"], **params)


def call_initializer(fn, shape: tuple, dtype, rng):
    """The initial value ``fn`` gives a table of ``shape`` (``dtype`` is passed as a
    ``numpy.dtype``, equal to its name, as TF's ``dtypes.float32`` is): colonnade's
    ``fn(shape, dtype, rng)`` gets all three positionally; TF1's ``fn(shape, dtype,
    partition_info=None)`` gets ``partition_info=None`` (a variable is never partitioned
    here); a Keras-style ``fn(shape, dtype=None, **kwargs)`` (TF 2's initializer objects)
    gets ``shape`` and ``dtype`` only.

    >>> call_initializer(lambda shape, dtype=None, **kw: [[1.0, 2.0]], (1, 2), "float32", 0)
    [[1.0, 2.0]]
    >>> def tf1(shape, dtype, partition_info=None):
    ...     return partition_info
    >>> call_initializer(tf1, (1,), "float32", 0) is None
    True
    """
    dtype = np.dtype(dtype)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature
        return fn(shape, dtype, rng)
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) >= 3 and positional[2].name == "partition_info":
        return fn(shape, dtype, partition_info=None)
    takes_three = len(positional) >= 3 or any(p.kind == p.VAR_POSITIONAL for p in params)
    if takes_three:
        return fn(shape, dtype, rng)
    return fn(shape, dtype=dtype)
