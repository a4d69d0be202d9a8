"""Fused variables: several Variables of one row shape stored as the rows of one Variable,
so that one gather, one gradient and one optimizer update serve them all.

A model with many small tables of one width (a CTR model has 26-41 of them) would
otherwise pay the per-call costs of a gather and of an optimizer step once per table.
The parts stay Variables of their own, views of their rows of the fused Variable: they
keep their names and values, so checkpoints, warm start and ``get_slot`` still see them
one by one.

This module is also the whole of what an optimizer needs to know about fusion:

- :func:`trained_variable` -- the Variable an update of ``var`` goes to (the fused
  Variable for a part, else ``var`` itself);
- :func:`slot_like` -- a slot for a Variable, and for a fused Variable the views of that
  slot which stand for it per part (the slots checkpoints save).

>>> from colonnade.core import Variable
>>> a, b = Variable([[1.0], [2.0]], name="a"), Variable([[3.0]], name="b")
>>> ab = fuse([a, b], "ab")
>>> trained_variable(b) is ab, trained_variable(ab) is ab
(True, True)
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

from .backend import get_xp
from .variables import Variable, variable_owning

__all__ = ["Slot", "fuse", "slot_like", "trained_variable"]


def fuse(variables, name: str) -> Variable:
    """One Variable holding ``variables`` stacked row-wise, each of them becoming a view of
    its rows: what a layer trains instead of many small tables of the same row shape.

    ``part.fused_into`` is then ``(fused, first row)`` and ``fused.fused_parts`` lists
    ``(part, first row)``. An optimizer given the fused Variable keeps its slots fused
    too, with views per part (see :func:`slot_like`). Assigning to a part or to the fused
    Variable writes in place, keeping them shared.

    >>> from colonnade.core import Variable
    >>> a, b = Variable([[1.0], [2.0]], name="a"), Variable([[3.0]], name="b")
    >>> ab = fuse([a, b], "ab")
    >>> ab.numpy().ravel().tolist(), a.fused_into[1], b.fused_into[1]
    ([1.0, 2.0, 3.0], 0, 2)
    >>> _ = b.assign([[5.0]]); ab.numpy().ravel().tolist()
    [1.0, 2.0, 5.0]
    """
    variables = list(variables)
    if not variables:
        raise ValueError(f"fuse needs at least one variable for '{name}'")
    first = variables[0]
    for v in variables:
        if v.fused_into is not None or v.fused_parts:
            raise ValueError(f"variable '{v.name}' is already fused")
        if v.shape[1:] != first.shape[1:] or v.value.dtype != first.value.dtype:
            raise ValueError(
                f"cannot fuse '{v.name}' of shape {v.shape} and dtype {v.value.dtype} with "
                f"'{first.name}' of shape {first.shape} and dtype {first.value.dtype}: fused "
                "variables share their row shape and dtype"
            )
    xp = get_xp(first.value)
    value = xp.concatenate([v.value for v in variables], axis=0)
    fused = variable_owning(value, name, trainable=any(v.trainable for v in variables))
    starts = list(itertools.accumulate((v.shape[0] for v in variables[:-1]), initial=0))
    for v, start in zip(variables, starts):
        v.value = fused.value[start : start + v.shape[0]]
    _link(fused, tuple(zip(variables, starts)))
    return fused


def _link(fused: Variable, parts: tuple) -> None:
    """Record that each ``(part, start)`` of ``parts`` is a view of ``fused``'s rows from
    ``start`` on (what :meth:`Variable.assign` and the two functions below read)."""
    for part, start in parts:
        part.fused_into = (fused, start)
    fused.fused_parts = parts


def trained_variable(var: Variable) -> Variable:
    """The Variable an optimizer updates for ``var``: the fused Variable ``var`` is a part
    of, or ``var`` itself. Its gradient is the fused Variable's, as the model reads
    through the fused Variable.

    >>> from colonnade.core import Variable
    >>> w = Variable([1.0], name="w")
    >>> trained_variable(w) is w
    True
    """
    return var.fused_into[0] if var.fused_into is not None else var


class Slot(NamedTuple):
    """An optimizer slot of one Variable: ``variable`` holds the state; ``views`` pairs
    each part of a fused Variable with its view of that state (empty otherwise), the
    slots checkpoints save and ``get_slot(part, ...)`` returns."""

    variable: Variable
    views: tuple


def slot_like(var: Variable, array, name_suffix: str) -> Slot:
    """A non-trainable slot of ``var`` owning ``array`` (of ``var``'s shape), named
    ``var.name + name_suffix``; for a fused ``var``, with one view per part, named
    ``part.name + name_suffix``, so that part slots read and write the fused slot's rows.

    >>> from colonnade.core import Variable
    >>> import numpy as np
    >>> a, b = Variable([[1.0], [2.0]], name="a"), Variable([[3.0]], name="b")
    >>> slot = slot_like(fuse([a, b], "ab"), np.zeros((3, 1), np.float32), "/Adagrad")
    >>> slot.variable.name, [(part.name, view.name) for part, view in slot.views]
    ('ab/Adagrad', [('a', 'a/Adagrad'), ('b', 'b/Adagrad')])
    """
    slot = variable_owning(array, f"{var.name}{name_suffix}")
    views = tuple(
        (variable_owning(array[start : start + part.shape[0]], f"{part.name}{name_suffix}"), start)
        for part, start in var.fused_parts
    )
    _link(slot, views)
    return Slot(slot, tuple((part, view) for (part, _), (view, _) in zip(var.fused_parts, views)))
