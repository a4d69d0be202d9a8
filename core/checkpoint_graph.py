"""The object graph a :class:`~colonnade.core.checkpoint.Checkpoint` saves: which
objects are trackable, and the path of each array (the one ``(owner, slot) -> key`` rule).

The rules are in :mod:`colonnade.core.checkpoint`'s docstring: variables by attribute
path, children of ``checkpoint_children()``, dicts, lists and tuples walked, optimizers'
slots under ``<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot>``, ``state_dict()``
entries under ``<path>/<key>``; breadth first, an object reached twice saved once.

>>> w = Variable(np.ones(2))
>>> sorted(ObjectGraph({"model": {"w": w, "again": w}}).variables)
['model/w']
"""

from __future__ import annotations

import collections
import functools
import logging
import types

import numpy as np

from .variables import Variable

__all__ = [
    "SAVE_COUNTER",
    "SLOT_MARKER",
    "ObjectGraph",
    "has_children",
    "has_state_dict",
    "is_optimizer",
    "is_plain_object",
    "is_trackable",
    "python_value",
    "slot_key",
]

logger = logging.getLogger("colonnade")

SLOT_MARKER = ".OPTIMIZER_SLOT"
"""Path part separating a variable's path from its optimizer slot: ``v/.OPTIMIZER_SLOT/opt/m``."""

SAVE_COUNTER = "save_counter"


def slot_key(variable_path: str, optimizer_path: str, slot_name: str) -> str:
    """The checkpoint key of an optimizer slot.

    >>> slot_key("model/dense/kernel", "optimizer", "m")
    'model/dense/kernel/.OPTIMIZER_SLOT/optimizer/m'
    """
    return f"{variable_path}/{SLOT_MARKER}/{optimizer_path}/{slot_name}"


# --------------------------------------------------------------------------- object graph


def is_optimizer(obj) -> bool:
    return all(
        callable(getattr(obj, m, None))
        for m in ("slot_items", "non_slot_variables", "create_slots")
    )


def has_state_dict(obj) -> bool:
    return callable(getattr(obj, "state_dict", None)) and callable(
        getattr(obj, "load_state_dict", None)
    )


def has_children(obj) -> bool:
    return callable(getattr(obj, "checkpoint_children", None))


def is_trackable(obj) -> bool:
    return (
        isinstance(obj, (Variable, dict, list, tuple))
        or is_optimizer(obj)
        or has_state_dict(obj)
        or has_children(obj)
    )


def is_plain_object(obj) -> bool:
    not_plain = (type, types.FunctionType, types.MethodType, types.ModuleType, functools.partial)
    return hasattr(obj, "__dict__") and not isinstance(obj, not_plain)


class ObjectGraph:
    """The trackable objects reachable from a set of roots, by path."""

    def __init__(self, roots: dict):
        self.variables = {}  # path -> Variable (first path only)
        self.var_paths = {}  # id(Variable) -> path
        self.optimizers = {}  # path -> optimizer
        self.stateful = {}  # path -> object with state_dict
        seen = set()
        queue = collections.deque((name, obj, True) for name, obj in roots.items())
        while queue:
            path, obj, is_root = queue.popleft()
            if isinstance(obj, Variable):
                if id(obj) in self.var_paths:
                    continue
                self._claim(path)
                self.variables[path] = obj
                self.var_paths[id(obj)] = path
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if is_optimizer(obj):
                self._claim(path)
                self.optimizers[path] = obj
                children = list(obj.non_slot_variables().items())
                if has_children(obj):
                    children += list(obj.checkpoint_children().items())
            elif has_state_dict(obj):
                self._claim(path)
                self.stateful[path] = obj
                continue
            elif has_children(obj):
                children = list(obj.checkpoint_children().items())
            elif isinstance(obj, dict):
                children = [(str(k), v) for k, v in obj.items()]
            elif isinstance(obj, (list, tuple)):
                children = [(str(i), v) for i, v in enumerate(obj)]
            elif is_root and is_plain_object(obj):
                children = [(k, v) for k, v in vars(obj).items() if not k.startswith("_")]
            else:
                continue
            for name, child in children:
                if is_trackable(child):
                    queue.append((f"{path}/{name}", child, False))

    def _claim(self, path):
        if path in self.variables or path in self.optimizers or path in self.stateful:
            raise ValueError(
                f"two different objects are reachable under the checkpoint path {path!r}; "
                "give them distinct names"
            )

    def slots(self):
        """``{key: (slot Variable, metadata)}`` for every slot of a variable in the graph."""
        out = {}
        for opt_path, opt in self.optimizers.items():
            for var, slot_name, slot_var in opt.slot_items():
                var_path = self.var_paths.get(id(var))
                if var_path is None:
                    logger.warning(
                        "slot %r of variable %r of optimizer %r is not saved: the variable is "
                        "not reachable from the checkpoint's objects",
                        slot_name,
                        getattr(var, "name", var),
                        opt_path,
                    )
                    continue
                meta = {
                    "kind": "slot",
                    "variable": var_path,
                    "optimizer": opt_path,
                    "slot": slot_name,
                }
                out[slot_key(var_path, opt_path, slot_name)] = (slot_var, meta)
        return out

    def state_entries(self):
        """``{key: (value, metadata)}`` for every entry of every ``state_dict()``."""
        out = {}
        for path, obj in self.stateful.items():
            for key, value in obj.state_dict().items():
                meta = {"kind": "state", "owner": path, "key": str(key)}
                if isinstance(value, (bool, int, float, str)) and not isinstance(value, np.generic):
                    meta["python_type"] = type(value).__name__
                elif not hasattr(value, "shape") and not isinstance(value, np.generic):
                    raise TypeError(
                        f"state_dict() of {path!r} returned {type(value).__name__} for key "
                        f"{key!r}; checkpoints store arrays, Python numbers and strings"
                    )
                out[f"{path}/{key}"] = (value, meta)
        return out


def python_value(arr: np.ndarray, python_type: str | None):
    if python_type is None:
        return arr
    return {"bool": bool, "int": int, "float": float, "str": str}[python_type](arr.item())
