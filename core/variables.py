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

    __slots__ = ("name", "trainable")

    def __init__(self, initial_value, name=None, trainable=True, dtype=None):
        super().__init__(_initial_array(initial_value, dtype))
        self.name = name or "Variable"
        self.trainable = bool(trainable)

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
