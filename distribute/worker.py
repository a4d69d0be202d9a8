"""The worker: one Ray actor that trains on its shard of the input.

Each step it reads a batch (transformed by the network's feature columns on the input
thread, as single-process training does), pulls from each parameter server, in one call,
the rows of every table the batch reads and the dense variables, computes the loss and
its gradients with colonnade's autodiff on its own copy of the network, and pushes, in
one call per server, the gradients: table gradients stay sparse (IndexedRows, repeated
rows summed, split by the servers' row ranges).

A worker holds no table whole. It gets the estimator with its tables shape-only, and
each step it writes the rows it pulled into a compact buffer per table, sized by the
batch's distinct rows, and reads the batch through ids renumbered into those buffers
(:class:`~.tables.Compactor`); the gradient's buffer positions are mapped back to table
rows before they are split by server. Its memory for tables is one step's rows.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np

from .. import core
from ..estimators.heads.checks import example_weights
from ..estimators.inputs.input_fn import num_rows
from ..estimators.inputs.pipeline import transformed_batches
from ..estimators.runtime import distributed as trainer
from .tables import Compactor, held_bytes, network_tables


class EmptyShardError(ValueError):
    """A worker's shard of the input holds no batch."""


@dataclass
class WorkerStats:
    """Where a worker's time and bytes went (summed over its steps)."""

    steps: int = 0
    rows: int = 0
    input_s: float = 0.0  # waiting for the next batch
    compute_s: float = 0.0  # ids renumbered, forward, backward, gradients split, rows written
    communication_s: float = 0.0  # pull and push calls, less the sync wait
    waiting_s: float = 0.0  # for a step grant, and (sync) for the other workers
    bytes_pulled: int = 0
    bytes_pushed: int = 0
    table_buffer_bytes: int = 0  # the most memory behind one worker's tables (a step's rows)

    def add(self, other: WorkerStats) -> None:
        for k in ("steps", "rows", "input_s", "compute_s", "communication_s", "waiting_s"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.bytes_pulled += other.bytes_pulled
        self.bytes_pushed += other.bytes_pushed
        self.table_buffer_bytes = max(self.table_buffer_bytes, other.table_buffer_bytes)


def loss_denominator(reduction: str, shape: tuple, weights):
    """What ``reduction`` divides a batch's summed weighted loss by (None for ``sum``),
    as :func:`colonnade.core.losses.compute_weighted_loss` computes it."""
    reduction = core.Reduction.resolve(reduction)
    if reduction == core.Reduction.SUM:
        return None
    if reduction == core.Reduction.SUM_OVER_BATCH_SIZE:
        return float(np.prod(shape))
    w = np.broadcast_to(np.asarray(core.to_host(weights), dtype=np.float64), shape)
    if reduction == core.Reduction.MEAN:
        return float(w.sum())
    return float(np.count_nonzero(w))


def _nbytes(tree) -> int:
    if isinstance(tree, np.ndarray):
        return tree.nbytes
    if isinstance(tree, dict):
        return sum(_nbytes(x) for x in tree.values())
    if isinstance(tree, (tuple, list)):
        return sum(_nbytes(x) for x in tree)
    return 0


class Worker:
    """Ray actor: see the module docstring. ``estimator`` is the driver's
    :func:`~.cluster.worker_copy` (its tables shape-only), ``plan`` the
    :class:`~.placement.Placement`, ``dataset`` this worker's shard."""

    def __init__(self, index, num_workers, estimator, plan, dataset, servers, coordinator):
        import ray

        from .hosts import use_assigned_cpus

        self._ray = ray
        use_assigned_cpus()
        self.index, self.num_workers = index, num_workers
        self.estimator, self.plan, self.dataset = estimator, plan, dataset
        self.servers, self.coordinator = list(servers), coordinator
        network = trainer.network(estimator)
        self.variables = [v for _, vs in estimator.train_state.trained_parts() for v in vs]
        tables = network_tables(network)
        self.tables = [
            tables[id(var)] if placed.bounds is not None else None
            for var, placed in zip(self.variables, plan.variables)
        ]
        self.compactor = Compactor(self.tables)
        shapeless = {id(a) for t in self.tables if t is not None for a in t.arrays()}
        # Arrays from Ray's object store are read-only, and pickling copied the row views
        # of fused tables that are not trained here (frozen) apart: own every array but
        # the shape-only tables, then make those views again.
        for var in [*estimator.train_state.model_variables().values(), *self.variables]:
            if id(var.value) not in shapeless:
                var.value = np.array(var.value)
        for layer in network.layers:
            for fused in layer.fused_groups:
                if id(fused.table.value) not in shapeless:
                    for part, start in fused.table.fused_parts:
                        part.value = fused.table.value[start : start + part.shape[0]]

    def table_bytes(self) -> int:
        """Bytes of memory behind this worker's tables now (the last step's buffers)."""
        arrays = {id(a): a for t in self.tables if t is not None for a in t.arrays()}
        return sum(held_bytes(a) for a in arrays.values())

    def ping(self) -> int:
        return self.index

    def run(self) -> WorkerStats:
        """Train until the coordinator says stop or the shard ends; returns the stats."""
        ray, stats = self._ray, WorkerStats()
        skip = ray.get(self.coordinator.join.remote(self.index))
        batches = transformed_batches(trainer.network(self.estimator), self.dataset, training=True)
        try:
            source = itertools.islice(batches, skip, None)
            report, first = None, skip == 0
            done, rows = skip, None  # batches of the shard read; rows of them (once known)
            if skip == 0:
                rows = 0
            while True:
                began = time.perf_counter()
                item = next(source, None)
                stats.input_s += time.perf_counter() - began
                if item is None:
                    if first:
                        raise EmptyShardError(
                            f"worker {self.index} got an empty shard of the input (shard "
                            f"{self.index} of {self.num_workers}): use fewer workers, or an "
                            "input with more files, row groups or batches (rows, for a Ray "
                            "dataset)"
                        )
                    ray.get([s.leave.remote(self.index) for s in self.servers])
                    ray.get(self.coordinator.leave.remote(self.index, report))
                    return stats
                first = False
                began = time.perf_counter()
                step = ray.get(self.coordinator.next.remote(self.index, report))
                stats.waiting_s += time.perf_counter() - began
                if step is None:
                    return stats
                n = num_rows(item[0])
                try:
                    report = self.step(step, *item, stats)
                except Exception as error:
                    raise located(error, self._where(done, rows, n)) from error
                done, rows = done + 1, None if rows is None else rows + n
        finally:
            batches.close()

    def _where(self, batch: int, rows: int | None, n: int) -> str:
        """Where in this worker's shard its batch ``batch`` (of ``n`` rows, after
        ``rows`` rows; ``None``: not known, the run resumed past some batches) is."""
        span = "" if rows is None else f" (rows {rows} to {rows + n - 1} of its shard)"
        return f"worker {self.index} of {self.num_workers}, in its batch {batch}{span}"

    def step(self, global_step, features, labels, cache, stats) -> tuple:
        """One training step at ``global_step``; returns ``(loss, denominator, rows)``."""
        ray, plan, est = self._ray, self.plan, self.estimator
        began = time.perf_counter()
        rows, cache = self.compactor(cache)
        requests, places = [{} for _ in self.servers], {}
        for v, placed in enumerate(plan.variables):
            if placed.bounds is None:
                requests[placed.server][v] = None
                continue
            for s, local, mask in plan.split_rows(v, rows[v]):
                requests[s][v], places[s, v] = local, mask
        prepared = time.perf_counter()
        replies = ray.get([srv.pull.remote(req) for srv, req in zip(self.servers, requests)])
        pulled = time.perf_counter()
        self._new_buffers(rows)
        stats.table_buffer_bytes = max(stats.table_buffer_bytes, self.table_bytes())
        for s, reply in enumerate(replies):
            for v, values in reply.items():
                var = self.variables[v]
                if plan.variables[v].bounds is None:
                    var.value[...] = values
                else:
                    var.value[places[s, v]] = values
        stats.bytes_pulled += _nbytes(replies) + _nbytes(requests)

        if labels is None:
            raise ValueError(
                "training needs labels: build the Dataset with label=... or have "
                "input_fn yield (features, labels)"
            )
        est.train_state.set_global_step(global_step)
        head, network = est.head, trainer.network(est)
        label_array = head.label_array(labels)
        step_rng = est.train_state.step_rng(global_step)

        def loss_fn():
            logits = network.logits(features, training=True, rng=step_rng, cache=cache)
            weights = head.weights(features, logits.shape[0])
            loss, unreduced = head.training_loss(label_array, logits, weights, features)
            return loss, (unreduced.shape, example_weights(weights, logits.shape[0]))

        (loss, (shape, w)), grads = core.value_and_grad(loss_fn, has_aux=True)(self.variables)
        denominator = loss_denominator(head.loss_reduction, shape, w)
        pushes, parts = self._split(grads, rows)
        computed = time.perf_counter()
        waits = ray.get(
            [
                srv.push.remote(self.index, push, denominator, parts, global_step)
                for srv, push in zip(self.servers, pushes)
            ]
        )
        pushed = time.perf_counter()
        stats.bytes_pushed += _nbytes(pushes)
        stats.steps += 1
        stats.rows += num_rows(features)
        stats.compute_s += (prepared - began) + (computed - pulled)
        stats.waiting_s += max(waits)
        stats.communication_s += (pulled - prepared) + (pushed - computed) - max(waits)
        return float(loss), denominator, num_rows(features)

    def _new_buffers(self, rows) -> None:
        """Give each table a buffer for the ``rows`` it pulls."""
        for table, table_rows in zip(self.tables, rows):
            if table is not None:
                var = table.variable
                var.value = np.empty((len(table_rows),) + var.shape[1:], var.value.dtype)

    def _split(self, grads, rows) -> tuple:
        """Each server's share of ``grads`` (``{v: ("dense", array) | ("rows", local
        rows, values)}``, on the host) and the optimizer parts that got a gradient. A
        table's gradient, over its buffer, goes to the table's ``rows``."""
        plan = self.plan
        pushes = [{} for _ in self.servers]
        parts = set()
        for v, (g, placed) in enumerate(zip(grads, plan.variables)):
            if g is None:
                continue
            parts.add(placed.part)
            if placed.bounds is None:
                pushes[placed.server][v] = _host_gradient(g)
                continue
            if isinstance(g, core.IndexedRows):
                g = g.deduplicate()
                indices, values = rows[v][core.to_host(g.indices)], core.to_host(g.values)
            else:  # read other than by row: a gradient for every row of the buffer
                indices, values = rows[v], core.to_host(g)
            row_shape = values.shape[1:]
            for s in placed.servers():  # every holder gets one, maybe empty: one update each
                pushes[s][v] = ("rows", indices[:0], values[:0].reshape((0,) + row_shape))
            for s, local, mask in plan.split_rows(v, indices):
                pushes[s][v] = ("rows", local, values[mask])
        return pushes, sorted(parts)


def _host_gradient(g):
    if isinstance(g, core.IndexedRows):
        return ("rows", core.to_host(g.indices), core.to_host(g.values))
    return ("dense", core.to_host(g))


def located(error: Exception, where: str) -> Exception:
    """``error`` again, of its own type, its message led by ``where`` (the worker and
    the batch's rows), so the caller gets a short message of the type it would catch;
    ``error`` itself when its type cannot be made from a message."""
    try:
        again = type(error)(f"{where}: {error}")
    except Exception:
        return error
    return again if str(again).startswith(where) else error
