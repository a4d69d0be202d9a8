"""The parameter server: one Ray actor holding a row range of every table and some dense
variables whole, with their optimizer slots, updated by the optimizers of single-process
training (:mod:`colonnade.core.optimizers`): a server's optimizer is a state-free copy of
the estimator's, given IndexedRows gradients in local row numbers.

A worker makes one ``pull`` (the rows its batch reads, the dense variables whole) and
one ``push`` (its gradients) per step. In ``async`` mode a push is applied at once. In
``sync`` mode the server waits for one push from every active worker, applies their
weighted sum in one update, and only then answers them all: a worker's next pull sees
the whole step applied.
"""

from __future__ import annotations

import asyncio
import time

import numpy as np

from .. import core
from ..core.indexed_rows import IndexedRows


def push_weights(denominators: list) -> list:
    """How much each worker's gradient counts in a synchronous step.

    A worker's gradient is that of its batch's loss, reduced over its own batch; a
    single process would reduce over all of them at once. For the mean-type reductions
    (``sum_over_batch_size``, ``mean``, ``sum_by_nonzero_weights``) that is the average of
    the workers' gradients weighted by their denominators ``d_k`` (``sum_k d_k g_k /
    sum_k d_k``); for ``sum`` (denominator None) the plain sum.

    >>> push_weights([32, 32]), push_weights([None, None]), push_weights([3, 1])
    ([0.5, 0.5], [1.0, 1.0], [0.75, 0.25])
    """
    if any(d is None for d in denominators):
        return [1.0] * len(denominators)
    total = float(sum(denominators))
    return [float(d) / total if total else 0.0 for d in denominators]


class ParameterServer:
    """Ray actor (asyncio): see the module docstring.

    ``payload`` is this server's share from :func:`colonnade.distribute.state.server_payloads`;
    ``parts`` maps each variable ``v`` it holds to ``(part, dense shape)``.
    """

    def __init__(
        self, index: int, payload: dict, parts: dict, mode: str, num_workers: int, first_step=0
    ):
        self.index, self.mode = index, mode
        self.variables = {
            v: core.Variable(value, name=f"ps{index}/{v}", trainable=True)
            for v, value in payload["variables"].items()
        }
        self.parts = parts
        self.optimizers = {}
        for p, (optimizer, non_slots) in payload["parts"].items():
            mine = [self.variables[v] for v, (part, _) in parts.items() if part == p]
            optimizer.create_slots(mine)
            for name, value in non_slots.items():
                optimizer.non_slot_variables()[name].assign(value)
            self.optimizers[p] = optimizer
        for v, slots in payload["slots"].items():
            optimizer = self.optimizers[parts[v][0]]
            for name, value in slots.items():
                optimizer.get_slot(self.variables[v], name).assign(value)
        self.active = set(range(num_workers))
        self.busy = {"pull_s": 0.0, "apply_s": 0.0, "pulls": 0, "applies": 0}
        self.pending: dict = {}
        self.round = first_step  # sync: the global step of the round being pooled
        self.changed = asyncio.Condition()

    async def ping(self) -> int:
        return self.index

    async def pull(self, request: dict) -> dict:
        """``{v: values}`` for ``request``'s ``{v: local rows, or None for all}``."""
        began, out = time.perf_counter(), {}
        for v, rows in request.items():
            value = self.variables[v].value
            out[v] = value.copy() if rows is None else np.take(value, rows, axis=0)
        self.busy["pull_s"] += time.perf_counter() - began
        self.busy["pulls"] += 1
        return out

    async def stats(self) -> dict:
        """Seconds this server spent gathering pulls and applying updates, and counts."""
        return dict(self.busy)

    async def push(self, worker: int, grads: dict, denominator, parts, step: int) -> float:
        """Apply (async) or pool (sync) one worker's gradients ``{v: ("dense", array) |
        ("rows", local rows, values)}`` for the optimizer parts ``parts``, computed at
        global step ``step``; returns the seconds it waited for the other workers (sync).

        A sync push for a round already applied is dropped: it comes from a worker
        that replaced one which died after its push of that round reached this server."""
        if self.mode == "async":
            self._apply([(grads, denominator, parts)])
            return 0.0
        if step < self.round:
            return 0.0
        began, round_ = time.perf_counter(), self.round
        self.pending[worker] = (grads, denominator, parts)
        async with self.changed:
            self._complete_round()
            await self.changed.wait_for(lambda: self.round != round_)
        return time.perf_counter() - began

    async def abort(self) -> None:
        """The job is ending (another server died): a sync round still waiting for
        pushes lets its workers go, unapplied."""
        self.pending = {}
        async with self.changed:
            self.round += 1
            self.changed.notify_all()

    async def leave(self, worker: int) -> None:
        """``worker`` has no more batches: sync rounds stop waiting for it."""
        self.active.discard(worker)
        self.pending.pop(worker, None)
        async with self.changed:
            self._complete_round()

    def _complete_round(self) -> None:
        if self.pending and all(w in self.pending for w in self.active):
            pushes = [self.pending[w] for w in sorted(self.pending)]
            self.pending = {}
            self._apply(pushes)
            self.round += 1
            self.changed.notify_all()

    def _apply(self, pushes: list) -> None:
        began = time.perf_counter()
        self._update(pushes)
        self.busy["apply_s"] += time.perf_counter() - began
        self.busy["applies"] += 1

    def _update(self, pushes: list) -> None:
        weights = push_weights([d for _, d, _ in pushes])
        parts = sorted({p for _, _, ps in pushes for p in ps})
        by_part = {p: [] for p in parts}
        for v, var in self.variables.items():
            part, shape = self.parts[v]
            pieces = [(g[v], w) for (g, _, _), w in zip(pushes, weights) if v in g]
            if part in by_part and pieces:
                by_part[part].append((_combine(pieces, shape), var))
        for p, pairs in by_part.items():
            if pairs:
                self.optimizers[p].apply_gradients(pairs)

    async def snapshot(self) -> dict:
        """Values, slots and non-slot state, as ``state.apply_snapshots`` reads them."""
        variables = {}
        for v, var in self.variables.items():
            optimizer = self.optimizers[self.parts[v][0]]
            slots = {n: optimizer.get_slot(var, n).value.copy() for n in optimizer.get_slot_names()}
            variables[v] = (var.value.copy(), slots)
        non_slots = {
            p: {k: np.array(x.value) for k, x in opt.non_slot_variables().items()}
            for p, opt in self.optimizers.items()
        }
        return {"variables": variables, "non_slots": non_slots}


def _combine(pieces: list, shape: tuple):
    """One gradient from the workers' ``(gradient, weight)`` pieces: dense ones summed,
    row ones concatenated (the optimizer sums repeated rows, as TF sums the workers'
    IndexedSlices)."""
    if all(g[0] == "rows" for g, _ in pieces):
        indices = np.concatenate([g[1] for g, _ in pieces])
        values = np.concatenate([_scaled(g[2], w) for g, w in pieces])
        return IndexedRows(indices, values, shape)
    total = None
    for g, w in pieces:
        dense = g[1] if g[0] == "dense" else IndexedRows(g[1], g[2], shape).to_dense()
        dense = _scaled(dense, w)
        total = dense if total is None else total + dense
    return total


def _scaled(values, weight: float):
    return values if weight == 1.0 else values * values.dtype.type(weight)
