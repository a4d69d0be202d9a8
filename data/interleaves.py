"""``Dataset.interleave``: the elements of the datasets ``map_func`` makes from each input
element, in TF's deterministic order.

TF's order (``InterleaveDatasetOp``): ``cycle_length`` slots are visited round-robin;
a slot with an open dataset gives its next ``block_length`` elements, then the next slot
has its turn; a dataset that ends closes its slot and the turn passes on; an empty slot
takes the next input element on its turn (and gives its elements at once). A block is
taken as one slice of rows, not row by row. ``num_parallel_calls`` and
``deterministic`` are accepted: the order is always this one, which is what TF gives
with ``deterministic=True`` (or unset).

>>> import colonnade as cn
>>> ds = cn.data.Dataset.from_tensor_slices({"k": [1, 2]}).interleave(
...     lambda e: cn.data.Dataset.from_dict({"v": [e["k"]] * 3}), cycle_length=2)
>>> ds.to_table().column("v").to_pylist()
[1, 2, 1, 2, 1, 2]
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass

import numpy as np

from . import batches as B

__all__ = ["Interleave", "input_elements", "interleave_order"]

OP = "Dataset.interleave"


def input_elements(batch, scalar: bool) -> list:
    """The elements of ``batch`` as ``map_func`` takes them: a dict per row, or, for a
    one-column stream of scalars (lines, records), the value itself."""
    columns = {name: column.to_pylist() for name, column in zip(batch.schema.names, batch.columns)}
    if scalar and len(columns) == 1:
        return next(iter(columns.values()))
    rows = []
    for i in range(batch.num_rows):
        rows.append({name: _value(values[i]) for name, values in columns.items()})
    return rows


def _value(value):
    if isinstance(value, (bool, int, float)):
        return np.asarray(value)[()]
    if isinstance(value, list):
        return np.asarray(value)
    return value


class _Slot:
    """One open dataset of the cycle, giving blocks of rows (or of whole batches)."""

    def __init__(self, dataset):
        self.stream = dataset.record_batches()
        self.batched = dataset.batched
        self.pending = deque()

    def take(self, count):
        if self.batched:
            out = []
            for batch in self.stream:
                out.append(batch)
                if len(out) == count:
                    break
            return out
        pieces, need = [], count
        while need:
            if not self.pending:
                batch = next(self.stream, None)
                if batch is None:
                    break
                if batch.num_rows:
                    self.pending.append(batch)
                continue
            head = self.pending.popleft()
            if head.num_rows > need:
                self.pending.appendleft(head.slice(need))
                head = head.slice(0, need)
            pieces.append(head)
            need -= head.num_rows
        return [B.concat(pieces, OP)] if pieces else []


def interleave_order(inputs, open_dataset, cycle_length, block_length):
    """TF's interleave loop (see the module docstring) over the iterator ``inputs``."""
    slots = [None] * cycle_length
    index, open_count, inputs_done = 0, 0, False
    while not inputs_done or open_count:
        slot = slots[index]
        if slot is not None:
            block = slot.take(block_length)
            got = len(block) if slot.batched else sum(b.num_rows for b in block)
            yield from block
            if got < block_length:
                slots[index] = None
                open_count -= 1
            index = (index + 1) % cycle_length
        elif not inputs_done:
            element = next(inputs, _END)
            if element is _END:
                inputs_done = True
            else:
                slots[index] = _Slot(open_dataset(element))
                open_count += 1
        else:
            index = (index + 1) % cycle_length


_END = object()


def check_dataset(result, fn):
    if not hasattr(result, "record_batches"):
        name = getattr(fn, "__name__", repr(fn))
        raise TypeError(f"{OP}: map_func {name} must return a Dataset, got {type(result).__name__}")
    return result


def cycle_of(cycle_length):
    """TF's ``cycle_length``: None or AUTOTUNE (-1) is the number of CPUs, as TF's."""
    if cycle_length is None or cycle_length == -1:
        return os.cpu_count() or 1
    if isinstance(cycle_length, bool) or not isinstance(cycle_length, (int, np.integer)):
        raise ValueError(f"{OP}: cycle_length must be a positive count, got {cycle_length!r}")
    if cycle_length < 1:
        raise ValueError(f"{OP}: cycle_length must be a positive count, got {cycle_length!r}")
    return int(cycle_length)


@dataclass(frozen=True, eq=False)
class Interleave:
    """Interleave the datasets ``map_func`` makes from the child's elements."""

    child: object
    map_func: object
    cycle_length: int
    block_length: int
    scalar: bool = False
    known_schema: object = None

    @property
    def schema(self):
        """The rows' schema when the caller knows it (every dataset made alike)."""
        return self.known_schema

    def describe(self):
        name = getattr(self.map_func, "__name__", self.map_func)
        return [
            *self.child.describe(),
            f"interleave({name}, {self.cycle_length}, {self.block_length})",
        ]

    def iterate(self, key):
        def inputs():
            for batch in self.child.iterate(key):
                yield from input_elements(batch, self.scalar)

        def open_dataset(element):
            return check_dataset(self.map_func(element), self.map_func)

        if self.cycle_length == 1:  # TF's order is then one dataset after another
            return (b for e in inputs() for b in open_dataset(e).record_batches())
        return interleave_order(inputs(), open_dataset, self.cycle_length, self.block_length)
