"""TF's graph-control names with their eager meaning, as TF 2.15 gives them outside a graph:
``cond`` calls one branch, ``group``/``no_op`` are nothing to run (``None``),
``control_dependencies`` orders nothing (every op already ran), ``name_scope`` yields its
scope name; and TF 1's collections, read from the current variable store.

>>> cond(True, lambda: "yes", lambda: "no")
'yes'
>>> with name_scope("outer"), name_scope("inner") as scope:
...     scope
'outer/inner/'
"""

from __future__ import annotations

import contextlib
import re
import threading

import numpy as np

from .autodiff import value_of
from .regularizers import get_regularization_losses
from .variable_scope import LOCAL_VARIABLES, current_store

_names = threading.local()

AUTO_REUSE = "AUTO_REUSE"
"""TF 1's ``tf.compat.v1.AUTO_REUSE``: colonnade's variable scopes always reuse by name."""


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``tf.cond``, eager: ``true_fn()`` when ``pred`` holds, else ``false_fn()``."""
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    for fn, what in ((true_fn, "true_fn"), (false_fn, "false_fn")):
        if fn is None:
            raise TypeError(f"cond(): '{what}' argument required")
        if not callable(fn):
            raise TypeError(f"cond(): {what} must be callable, got {type(fn).__name__}")
    flag = np.asarray(value_of(pred))
    if flag.size != 1:
        raise ValueError(f"cond(): pred must be a scalar boolean, got shape {flag.shape}")
    return true_fn() if bool(flag.reshape(())) else false_fn()


def group(*inputs, **kwargs):
    """``tf.group``: in eager TF, ``None`` (the grouped ops already ran)."""
    unknown = set(kwargs) - {"name"}
    if unknown:
        raise TypeError(f"group(): unknown keyword arguments {sorted(unknown)}")
    return None


def no_op(name=None):
    """``tf.no_op``: in eager TF, ``None``."""
    return None


@contextlib.contextmanager
def control_dependencies(control_inputs):
    """``tf.control_dependencies``, eager: nothing to order, as every op already ran."""
    yield None


def _scopes() -> list:
    if not hasattr(_names, "scopes"):
        _names.scopes = []
    return _names.scopes


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None):
    """``tf.compat.v1.name_scope``: yields ``outer/name/``, as eager TF 2.15 (names are not
    made unique, and a ``name`` ending in ``/`` is taken whole)."""
    name = default_name if name is None else name
    if name is None:
        raise ValueError("name_scope needs name or default_name")
    name = str(name)
    scopes = _scopes()
    full = name if name.endswith("/") else "".join(scopes[-1:]) + (f"{name}/" if name else "")
    scopes.append(full)
    try:
        yield full
    finally:
        scopes.pop()


class GraphKeys:
    """TF 1's collection names (``tf.compat.v1.GraphKeys``), for :func:`get_collection`."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = LOCAL_VARIABLES
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SUMMARIES = "summaries"
    GLOBAL_STEP = "global_step"


def _scoped(named: dict, scope) -> list:
    if scope is None:
        return list(named.values())
    return [v for n, v in named.items() if re.match(scope, n)]


def global_variables(scope=None) -> list:
    """``tf.compat.v1.global_variables``: the current store's variables (in a ``model_fn``:
    the model's), those whose name matches ``scope`` from its start when given."""
    store = current_store()
    return [] if store is None else _scoped(store.variables(), scope)


def local_variables(scope=None) -> list:
    """``tf.compat.v1.local_variables``: the current store's local variables (made with
    ``collections=[GraphKeys.LOCAL_VARIABLES]`` or ``get_local_variable``), matched by
    ``scope`` as :func:`global_variables`."""
    store = current_store()
    return [] if store is None else _scoped(store.local_variables(), scope)


def trainable_variables(scope=None) -> list:
    """``tf.compat.v1.trainable_variables``: :func:`global_variables` that train."""
    return [v for v in global_variables(scope) if getattr(v, "trainable", True)]


def get_collection(key, scope=None) -> list:
    """``tf.compat.v1.get_collection`` with its eager meaning: the current model's variables
    for the variable keys (global, model, trainable, local), the call's regularization
    losses, and ``[]`` for ``UPDATE_OPS`` (batch normalization updates its moving
    statistics as it runs). The other collections a TF graph fills (``LOSSES``,
    ``SUMMARIES``, a key of your own) are not kept, so asking for one is a
    ``ValueError`` rather than a silent ``[]``."""
    if key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        return global_variables(scope)
    if key == GraphKeys.LOCAL_VARIABLES:
        return local_variables(scope)
    if key == GraphKeys.TRAINABLE_VARIABLES:
        return trainable_variables(scope)
    if key == GraphKeys.REGULARIZATION_LOSSES:
        return get_regularization_losses(scope)
    if key == GraphKeys.UPDATE_OPS:
        return []
    raise ValueError(
        f"get_collection({key!r}): colonnade keeps no graph collections but the variables, "
        "the regularization losses and UPDATE_OPS (always empty: updates run eagerly); "
        "keep the values you need in the model_fn instead"
    )
