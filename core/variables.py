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
        # Set by colonnade.core.fused, which stores several Variables as rows of one:
        self.fused_into = None  # (fused Variable, first row) when this is a view of its rows
        self.fused_parts = ()  # ((part Variable, first row), ...) when this is a fused Variable

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


def variable_owning(array, name: str, trainable: bool = False) -> Variable:
    """A Variable that owns ``array`` as it is: the constructor would copy it and place
    numpy input on the default backend, but an optimizer's slot or a fused table must
    share its source's device and not double a large table's memory while being made.

    >>> a = np.zeros(3, np.float32)
    >>> variable_owning(a, "zeros").value is a
    True
    """
    out = Variable(0.0, name=name, trainable=trainable)
    out.value = array
    return out
