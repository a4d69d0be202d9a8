"""What the optimizers check in what they are given, with messages that say how to fix it.

Hyperparameters against their rule (``learning_rate >= 0``, ``beta1`` in ``[0, 1)``, ...),
the loss and ``var_list`` given to ``minimize``, and the ``(gradient, variable)`` pairs
given to ``apply_gradients``: each check raises a ``TypeError`` or ``ValueError`` naming the
argument or the variable, the value received and what was expected.

>>> check_hyperparameter("beta1", 1.0, "unit_open")
Traceback (most recent call last):
...
ValueError: beta1 must be in [0, 1), got 1.0
"""

from __future__ import annotations

import inspect

import numpy as np

from .autodiff import Tensor, value_of
from .backend import get_xp, to_device
from .indexed_rows import IndexedRows
from .variables import Variable

__all__ = [
    "RULES",
    "as_gradient",
    "check_hyperparameter",
    "check_loss",
    "check_var_list",
    "checked_pairs",
    "takes_no_step",
    "trainable_variables_of",
]

RULES = {
    "nonnegative": (lambda x: x >= 0, ">= 0"),
    "positive": (lambda x: x > 0, "> 0"),
    "nonpositive": (lambda x: x <= 0, "<= 0"),
    "unit": (lambda x: 0 <= x <= 1, "in [0, 1]"),
    "unit_open": (lambda x: 0 <= x < 1, "in [0, 1)"),
}
"""What each validation rule accepts, and how an error message says it."""


def check_hyperparameter(arg_name: str, value, rule) -> None:
    """Raise ValueError naming ``arg_name`` and ``value`` unless ``value`` obeys ``rule``
    (a key of :data:`RULES`, or None for no rule); TypeError for a non-number."""
    if rule is None:
        return
    accepts, text = RULES[rule]
    try:
        ok = accepts(float(value_of(value)))
    except (TypeError, ValueError):
        raise TypeError(
            f"{arg_name} must be a number or a callable step -> number, got {value!r}"
        ) from None
    if not ok:
        raise ValueError(f"{arg_name} must be {text}, got {value!r}")


def check_loss(loss_fn) -> None:
    """``minimize`` differentiates a zero-argument callable, or a recorded scalar Tensor."""
    if not callable(loss_fn) and not isinstance(loss_fn, Tensor):
        raise TypeError(
            "loss must be a zero-argument callable that computes the loss, or a "
            f"recorded scalar Tensor; got {type(loss_fn).__name__}"
        )
    if not isinstance(loss_fn, Tensor):
        return
    if not loss_fn.parents and not isinstance(loss_fn, Variable):
        raise ValueError(
            "minimize got a loss Tensor with no recorded graph (a constant, or computed "
            "under no_grad): compute it from the variables with recording on, or pass a "
            "zero-argument function that computes it"
        )


def takes_no_step(fn) -> bool:
    """Whether the hyperparameter callable ``fn`` is called without the step (TF's eager
    ``lambda: 0.1``): it has no parameter that must be given."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: called with the step
        return False
    required = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return not any(p.kind in required and p.default is p.empty for p in params)


def trainable_variables_of(loss) -> list:
    """The trainable Variables ``loss`` was computed from, in the order its graph reaches
    them: what TF's eager ``minimize`` differentiates when ``var_list`` is not given."""
    out, seen, stack = [], set(), [loss]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, Variable):
            if node.trainable:
                out.append(node)
            continue
        stack.extend(reversed(node.parents))
    return out


def check_var_list(var_list, known_variables: list) -> list:
    """``var_list`` as a list of Variables; None falls back to ``known_variables`` (what
    the optimizer already updated), which must then not be empty."""
    if isinstance(var_list, Variable):
        raise TypeError(
            f"var_list must be a list of Variables, got the Variable '{var_list.name}'; "
            f"pass var_list=[{var_list.name}]"
        )
    if var_list is None:
        var_list = known_variables
        if not var_list:
            raise ValueError(
                "var_list is required: the loss reads no trainable variable; pass "
                "var_list=[...] (later calls default to the variables this optimizer has "
                "already updated)"
            )
    var_list = list(var_list)
    for var in var_list:
        if not isinstance(var, Variable):
            raise TypeError(f"var_list must hold Variables, got {type(var).__name__}")
    return var_list


def checked_pairs(grads_and_vars) -> list:
    """The ``(gradient, variable)`` pairs that have a gradient, each gradient on its
    variable's device and dtype; raises when none has one, a variable appears twice, or
    a pair is malformed."""
    pairs = list(grads_and_vars)
    if not pairs:
        raise ValueError("apply_gradients got no (gradient, variable) pairs")
    for pair in pairs:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise TypeError(f"apply_gradients needs (gradient, variable) pairs, got {pair!r}")
        if not isinstance(pair[1], Variable):
            raise TypeError(
                f"apply_gradients needs (gradient, Variable) pairs, got a "
                f"{type(pair[1]).__name__} in place of the Variable"
            )
    with_grad = [(g, v) for g, v in pairs if g is not None]
    if not with_grad:
        names = [v.name for _, v in pairs]
        raise ValueError(
            f"No gradients provided for any variable: {names}; check that the loss depends on them"
        )
    seen = set()
    out = []
    for grad, var in with_grad:
        if id(var) in seen:
            raise ValueError(f"variable '{var.name}' appears twice in grads_and_vars")
        seen.add(id(var))
        out.append((as_gradient(grad, var), var))
    return out


def as_gradient(grad, var):
    """``grad`` on ``var``'s device and dtype, after checking its shape."""
    dtype = var.value.dtype
    if np.dtype(dtype).kind != "f":
        raise TypeError(f"optimizers update floating variables; '{var.name}' is {dtype}")
    xp = get_xp(var.value)
    if isinstance(grad, IndexedRows):
        # TF's sparse updates read the rows' shape, not dense_shape's first dimension
        shape = (var.shape[0],) + tuple(grad.values.shape[1:])
    else:
        grad = to_device(value_of(grad), xp)
        shape = tuple(grad.shape)
    if shape != tuple(var.shape):
        raise ValueError(
            f"gradient for variable '{var.name}' has shape {shape} "
            f"but the variable has shape {tuple(var.shape)}"
        )
    if isinstance(grad, IndexedRows):
        values = to_device(grad.values, xp).astype(dtype, copy=False)
        return IndexedRows(to_device(grad.indices, xp), values, grad.dense_shape, grad.groups)
    return grad.astype(dtype, copy=False)
