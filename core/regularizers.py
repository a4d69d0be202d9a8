"""Weight penalties a ``model_fn`` adds to its loss: TF's regularizers, and the
collection of the penalties its layers and variables made.

``get_variable(..., regularizer=fn)`` and ``dense(..., kernel_regularizer=fn)`` record
``fn(variable)`` for the running ``model_fn`` call (see :mod:`.model_calls`), once per
variable; ``get_regularization_loss()`` adds them up, as TF 1's
``tf.compat.v1.losses.get_regularization_loss()`` adds its collection. Two families of
factories, whose formulas differ as TF's do: Keras' ``l1(l)``, ``l2(l)``, ``l1_l2(...)``
(``l * sum(w**2)``) and TF 1 contrib's ``l1_regularizer(scale)``,
``l2_regularizer(scale)``, ``l1_l2_regularizer(...)`` (``scale * sum(w**2) / 2``, TF's
``nn.l2_loss``).

>>> import numpy as np
>>> w = np.array([1.0, 2.0])
>>> float(l2(0.1)(w).numpy()), float(l2_regularizer(0.1)(w).numpy())
(0.5, 0.25)
"""

from __future__ import annotations

import re

from . import ops
from .model_calls import current

__all__ = [
    "add_regularization_loss",
    "get_regularization_loss",
    "get_regularization_losses",
    "l1",
    "l1_l2",
    "l1_l2_regularizer",
    "l1_regularizer",
    "l2",
    "l2_regularizer",
]


def _checked(scale, what):
    scale = float(scale)
    if scale < 0:
        raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale} ({what})")
    return scale


def _l1_sum(weights):
    return ops.sum(ops.abs(weights))


def _l2_sum(weights):
    return ops.sum(ops.square(weights))


def l1(l1=0.01):  # noqa: E741 (Keras' name)
    """Keras' L1: ``l1 * sum(|w|)``."""
    scale = _checked(l1, "l1")
    return lambda weights: ops.multiply(_l1_sum(weights), scale)


def l2(l2=0.01):
    """Keras' L2: ``l2 * sum(w**2)``."""
    scale = _checked(l2, "l2")
    return lambda weights: ops.multiply(_l2_sum(weights), scale)


def l1_l2(l1=0.01, l2=0.01):  # noqa: E741
    """Keras' L1 + L2: ``l1 * sum(|w|) + l2 * sum(w**2)``."""
    a, b = _checked(l1, "l1"), _checked(l2, "l2")
    return lambda weights: ops.add(
        ops.multiply(_l1_sum(weights), a), ops.multiply(_l2_sum(weights), b)
    )


def l1_regularizer(scale, scope=None):
    """TF 1 contrib's L1: ``scale * sum(|w|)``."""
    return l1(scale)


def l2_regularizer(scale, scope=None):
    """TF 1 contrib's L2: ``scale * sum(w**2) / 2`` (``scale * tf.nn.l2_loss(w)``)."""
    return l2(_checked(scale, "scale") / 2)


def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None):
    """TF 1 contrib's sum of :func:`l1_regularizer` and :func:`l2_regularizer`."""
    return l1_l2(scale_l1, _checked(scale_l2, "scale_l2") / 2)


def add_regularization_loss(name: str, regularizer, weights) -> None:
    """Record ``regularizer(weights)`` under ``name`` for the running ``model_fn`` call
    (once per name and call); outside one, nothing (TF 2's eager layers do the same)."""
    call = current()
    if regularizer is None or call is None or name in call.regularization_losses:
        return
    call.regularization_losses[name] = regularizer(weights)


def get_regularization_losses(scope=None) -> list:
    """The penalties recorded in this ``model_fn`` call, those whose name matches the
    regular expression ``scope`` from its start when given (TF's filter)."""
    call = current()
    if call is None:
        return []
    return [
        loss
        for name, loss in call.regularization_losses.items()
        if scope is None or re.match(scope, name)
    ]


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of :func:`get_regularization_losses` (0.0 when there are none)."""
    losses = get_regularization_losses(scope)
    total = 0.0
    for loss in losses:
        total = ops.add(total, loss)
    return total
