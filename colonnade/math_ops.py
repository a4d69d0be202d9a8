"""``cn.math``: the elementwise ``tf.math`` functions a ``serving_input_fn`` (or a
``model_fn``) calls; each records a serving graph node when given a serving input (see
:mod:`colonnade.array_ops`).

>>> import colonnade as cn
>>> cn.math.log1p(cn.compat.v1.placeholder("float32", [None])).op
'log1p'
"""

from colonnade.array_ops import (  # noqa: A004 (TF's names)
    abs,
    equal,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    maximum,
    minimum,
    not_equal,
    sqrt,
)

__all__ = [
    "abs",
    "equal",
    "exp",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "log1p",
    "maximum",
    "minimum",
    "not_equal",
    "sqrt",
]
