"""Variables: named, mutable arrays that gradients are taken against."""

from __future__ import annotations

import numpy as np

from .autodiff import Tensor, value_of
from .backend import DEFAULT_DTYPE, default_xp, get_xp, to_device


def _initial_array(initial_value, dtype):
    if callable(initial_value):
        initial_value = initial_value()
    initial_value = value_of(initial_value)
    if dtype is None and not hasattr(initial_value, "dtype"):
        probe = np.asarray(initial_value)
        dtype = DEFAULT_DTYPE if probe.dtype.kind in "fc" else probe.dtype
    xp = default_xp() if not hasattr(initial_value, "shape") else get_xp(initial_value)
    if xp is np:
        xp = default_xp()
    out = to_device(initial_value, xp, dtype=dtype)
    return out.copy() if out is initial_value else out


class Variable(Tensor):
    """A named array that persists across steps and that optimizers update.

    ``initial_value`` is an array, a nested list, a number or a zero-argument callable
    returning one; Python floats become float32. The value lives on the current backend.

    >>> v = Variable([[1.0, 2.0]], name="w")
    >>> v.shape, str(v.dtype), v.name
    ((1, 2), 'float32', 'w')
    >>> v.assign([[3.0, 4.0]]).numpy().tolist()
    [[3.0, 4.0]]
    """

    __slots__ = ("name", "trainable", "fused_into", "fused_parts")

    def __init__(self, initial_value, name=None, trainable=True, dtype=None):
        super().__init__(_initial_array(initial_value, dtype))
        self.name = name or "Variable"
        self.trainable = bool(trainable)
        self.fused_into = None  # (fused Variable, first row) when this is a view (see fuse)
        self.fused_parts = ()  # ((part Variable, first row), ...) when this is a fused table

    def assign(self, value) -> Variable:
        """Replace the value with a copy of ``value``; shape must match, dtype is kept.

        Optimizers update ``.value`` in place instead, so a 10M-row table is not copied
        for a sparse step.
        """
        xp = get_xp(self.value)
        return self._replace(xp.array(value_of(value), dtype=self.value.dtype, copy=True))

    def _replace(self, new) -> Variable:
        if new.shape != self.value.shape:
            raise ValueError(
                f"cannot assign a value of shape {tuple(new.shape)} to variable "
                f"'{self.name}' of shape {tuple(self.value.shape)}"
            )
        if self.fused_into is not None or self.fused_parts:
            self.value[...] = new  # in place: parts and their fused table share memory
        else:
            self.value = new
        return self

    def assign_add(self, delta) -> Variable:
        """``value += delta`` (a new array; earlier reads keep the old one)."""
        return self._replace((self.value + value_of(delta)).astype(self.value.dtype, copy=False))

    def assign_sub(self, delta) -> Variable:
        """``value -= delta``."""
        return self._replace((self.value - value_of(delta)).astype(self.value.dtype, copy=False))

    def __repr__(self) -> str:
        return f"Variable(name={self.name!r}, shape={self.shape}, dtype={self.dtype})"


def fuse(variables, name: str) -> Variable:
    """One Variable holding ``variables`` stacked row-wise, each of them becoming a view of
    its rows: what a layer trains instead of many small tables of the same row shape.

    One gather, one gradient and one optimizer update then serve all the tables of a layer
    (a CTR model has 26-41 of them), instead of one each. The parts keep their names and
    values, so checkpoints, warm start and ``get_slot`` still see them one by one; an
    optimizer given the fused Variable keeps its slots fused too, with views per part.
    Assigning to a part or to the fused Variable writes in place, keeping them shared.

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
    fused = Variable(0.0, name=name, trainable=any(v.trainable for v in variables))
    fused.value = xp.concatenate([v.value for v in variables], axis=0)
    parts, start = [], 0
    for v in variables:
        v.value = fused.value[start : start + v.shape[0]]
        v.fused_into = (fused, start)
        parts.append((v, start))
        start += v.shape[0]
    fused.fused_parts = tuple(parts)
    return fused
