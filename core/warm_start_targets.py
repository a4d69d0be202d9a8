"""What :func:`~colonnade.core.warm_start.warm_start` and
:func:`~colonnade.core.assignment_map.init_from_checkpoint` share: the target variables
by name, the messages for a name the checkpoint lacks, and each array's shape and dtype
checked before and after it is read (:mod:`colonnade.core.restore_checks`).

>>> from colonnade.core import Variable
>>> sorted(name_map([Variable([1.0], name="w")]))
['w']
"""

from __future__ import annotations

import difflib

import numpy as np

from .checkpoint_reader import CheckpointReader
from .restore_checks import dtype_problem, value_problem
from .variables import Variable

__all__ = [
    "missing_message",
    "name_map",
    "name_of",
    "raise_problems",
    "read_checked",
    "shape_problem",
]


def name_map(variables) -> dict:
    if variables is None:
        raise ValueError(
            "pass the target variables as variables=[Variable, ...] or {name: Variable}; "
            "colonnade keeps no global variable collection"
        )
    if callable(getattr(variables, "named_variables", None)):
        variables = variables.named_variables()
    if isinstance(variables, dict):
        out = {}
        for name, var in variables.items():
            if not isinstance(var, Variable):
                raise TypeError(f"variables[{name!r}] is a {type(var).__name__}, not a Variable")
            out[str(name)] = var
        return out
    out = {}
    for var in variables:
        if not isinstance(var, Variable):
            raise TypeError(f"variables must hold Variables, got a {type(var).__name__}")
        if var.name in out and out[var.name] is not var:
            raise ValueError(
                f"two variables are named {var.name!r}; pass variables as a dict name -> "
                "Variable to tell them apart"
            )
        out[var.name] = var
    return out


def name_of(var: Variable, names: dict) -> str:
    for name, v in names.items():
        if v is var:
            return name
    return var.name


def missing_message(key: str, reader: CheckpointReader) -> str:
    close = difflib.get_close_matches(key, reader.keys(), n=3)
    hint = f" (similar: {close})" if close else ""
    return f"{key!r} is not in checkpoint {reader.path}{hint}"


def shape_problem(name, var, key, reader) -> str | None:
    shape = tuple(reader.get_variable_to_shape_map()[key])
    if shape != tuple(var.shape):
        return (
            f"variable {name!r} has shape {tuple(var.shape)} but {key!r} in the checkpoint "
            f"has shape {shape}"
        )
    old = reader.get_variable_to_dtype_map()[key]
    return dtype_problem(key, old, var.dtype, holder=f"variable {name!r}")


def raise_problems(problems, what):
    if problems:
        raise ValueError(f"{what}: " + "; ".join(problems))


def read_checked(reader, key: str, var, name: str) -> np.ndarray:
    """The array ``key`` read, checked again as read (dtype, shape, integer range): the
    index is someone else's word (:func:`~colonnade.core.restore_checks.value_problem`)."""
    value = reader.get_tensor(key)
    if isinstance(var, list):
        problems = [
            dtype_problem(key, value.dtype, part.dtype, holder=f"partition {part.name!r}")
            for part in var
        ]
    else:
        problems = [value_problem(key, value, var.shape, var.dtype, holder=f"variable {name!r}")]
    raise_problems([p for p in problems if p], f"cannot restore from {reader.path}")
    return value
