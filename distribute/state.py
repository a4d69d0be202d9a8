"""Moving an estimator's trained state between the driver and the parameter servers.

The driver's estimator is the reference copy: it is restored from ``model_dir`` (or
initialized, or warm-started) as single-machine training would, cut into the servers'
shares (:func:`server_payloads`) and, for a checkpoint, put back together from the
servers' snapshots (:func:`apply_snapshots`). Values, optimizer slots and the
optimizers' non-slot state (``iterations``, Adam's beta powers) all travel.
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..estimators.runtime import distributed as trainer
from .placement import Placement, VariableInfo
from .tables import network_tables


def trained_parts(estimator) -> list:
    """``[(optimizer, [trained variable, ...]), ...]``: what each optimizer updates;
    an error for what cannot be trained distributed (a ``model_fn``, batch norm)."""
    parts = estimator.train_state.trained_parts()
    dnn = trainer.network(estimator).dnn
    if dnn is not None and dnn.tower.batch_norm:
        raise ValueError(
            "train_distribute cannot train batch_norm=True: its moving mean and variance "
            "are updated by each batch's forward pass, which runs on the workers, and no "
            "parameter server holds them; train without batch_norm, or in one process"
        )
    return parts


def placement(estimator, num_ps: int) -> Placement:
    """Where each trained variable of ``estimator`` goes on ``num_ps`` servers."""
    tables = network_tables(trainer.network(estimator))
    infos = [
        [VariableInfo(v.name, tuple(v.shape), id(v) in tables) for v in variables]
        for _, variables in trained_parts(estimator)
    ]
    return Placement.build(infos, num_ps)


def ensure_slots(estimator) -> None:
    """Create every slot the optimizers will have, so that they can be sent and filled."""
    for optimizer, variables in trained_parts(estimator):
        optimizer.create_slots(variables)


def _non_slot_values(optimizer) -> dict:
    return {k: np.array(core.to_host(v.value)) for k, v in optimizer.non_slot_variables().items()}


def server_payloads(estimator, plan: Placement) -> list:
    """For each server: ``{"variables": {v: rows}, "slots": {v: {slot: rows}},
    "parts": {part: (fresh optimizer, non-slot values)}}`` from the estimator's state."""
    ensure_slots(estimator)
    parts = trained_parts(estimator)
    payloads = []
    for server in range(plan.num_ps):
        values, slots, used = {}, {}, {}
        for v in plan.on_server(server):
            placed = plan.variables[v]
            optimizer, variables = parts[placed.part]
            var = variables[placed.index]
            rows = placed.rows_on(server)
            values[v] = np.array(core.to_host(var.value[rows]))
            slots[v] = {
                name: np.array(core.to_host(optimizer.get_slot(var, name).value[rows]))
                for name in optimizer.get_slot_names()
            }
            used[placed.part] = (optimizer.fresh_copy(), _non_slot_values(optimizer))
        payloads.append({"variables": values, "slots": slots, "parts": used})
    return payloads


def apply_snapshots(estimator, plan: Placement, snapshots: list) -> None:
    """Write the servers' ``snapshot()`` results (in server order) into the estimator's
    variables, slots and non-slot state."""
    parts = trained_parts(estimator)
    ensure_slots(estimator)
    for server, snap in enumerate(snapshots):
        for v, (value, slot_values) in snap["variables"].items():
            placed = plan.variables[v]
            optimizer, variables = parts[placed.part]
            var = variables[placed.index]
            rows = placed.rows_on(server)
            var.value[rows] = core.to_device(value, core.get_xp(var.value))
            for name, slot_value in slot_values.items():
                slot = optimizer.get_slot(var, name)
                slot.value[rows] = core.to_device(slot_value, core.get_xp(slot.value))
    for p, (optimizer, _) in enumerate(parts):
        holder = next((v for v in plan.variables if v.part == p), None)
        if holder is None:
            continue
        server = next(iter(holder.servers()))
        for name, value in snapshots[server]["non_slots"].get(p, {}).items():
            optimizer.non_slot_variables()[name].assign(value)
