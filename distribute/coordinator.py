"""The coordinator: one small Ray actor (asyncio) that hands out steps and keeps the
global step.

Before each step a worker asks ``next`` (reporting its previous step's loss) and gets
the global step to run at, or None to stop. ``async``: a step is granted while
``global step + steps in flight < last_step``, and every reported step adds one to the
global step (TF's asynchronous global step). ``sync``: steps are rounds that every
active worker runs together; a round counts once, when all of them reported it.

The driver reads the finished steps' records (``drain``) to run the hooks, stops the
job (``stop``), and takes consistent snapshots by holding new grants (``hold``) until
nothing is in flight (``quiet``), then ``release``.
"""

from __future__ import annotations

import asyncio

WAIT = object()


class Coordinator:
    """Ray actor: see the module docstring. ``consumed`` is the batches each worker has
    already trained on (a restart from a checkpoint skips them)."""

    def __init__(self, mode, num_workers, first_step, last_step, consumed=None):
        self.mode, self.num_workers = mode, num_workers
        self.step, self.last_step = first_step, last_step
        self.first_step = first_step
        self.consumed = list(consumed or [0] * num_workers)
        self.reported = [0] * num_workers  # steps reported by each worker in this run
        self.active = set(range(num_workers))
        self.in_flight: set = set()
        self.max_granted = first_step - 1
        self.stop_at = None  # no grant at or beyond this round (sync) / at all (async)
        self.held_at = None
        self.rounds: dict = {}  # sync: round -> {worker: (loss, denominator, rows)}
        self.records: list = []
        self.changed = asyncio.Condition()

    async def join(self, worker: int) -> int:
        """A worker (re)starting: how many of its batches to skip."""
        return self.consumed[worker]

    async def next(self, worker: int, report):
        async with self.changed:
            self._report(worker, report)
            while True:
                decision = self._decide(worker)
                if decision is not WAIT:
                    return decision
                await self.changed.wait()

    async def leave(self, worker: int, report) -> None:
        async with self.changed:
            self._report(worker, report)
            self.active.discard(worker)
            self.in_flight.discard(worker)
            self._close_rounds()
            self.changed.notify_all()

    async def forfeit(self, worker: int) -> None:
        """``worker`` died: its step in flight will not be reported (its restart redoes
        it)."""
        async with self.changed:
            self.in_flight.discard(worker)
            self.changed.notify_all()

    async def stop(self) -> None:
        async with self.changed:
            self.stop_at = self._boundary()
            self.changed.notify_all()

    async def hold(self) -> None:
        async with self.changed:
            self.held_at = self._boundary()

    async def release(self) -> None:
        async with self.changed:
            self.held_at = None
            self.changed.notify_all()

    async def quiet(self) -> bool:
        """Whether every granted step has been reported (what a snapshot needs)."""
        if self.mode == "async":
            return not self.in_flight
        return self.step > self.max_granted or not self.active

    async def drain(self) -> tuple:
        """``(records, global step, consumed)``: the steps finished since the last call,
        as ``(global_step, loss, rows)``, and each worker's batches done."""
        records, self.records = self.records, []
        return records, self.step, list(self.consumed)

    # ------------------------------------------------------------------ internals

    def _boundary(self) -> int:
        """The first step not yet granted to anyone (sync: a round that some worker
        started must be finished by all)."""
        if self.mode == "async":
            return self.step + len(self.in_flight)
        return max(self.max_granted + 1, self.step)

    def _report(self, worker: int, report) -> None:
        if report is None:
            return
        self.consumed[worker] += 1
        if self.mode == "async":
            self.in_flight.discard(worker)
            self.step += 1
            self.records.append((self.step, report[0], report[2]))
        else:
            round_ = self.first_step + self.reported[worker]
            self.rounds.setdefault(round_, {})[worker] = report
            self._close_rounds()
        self.reported[worker] += 1
        self.changed.notify_all()

    def _close_rounds(self) -> None:
        while self.step in self.rounds and all(w in self.rounds[self.step] for w in self.active):
            reports = list(self.rounds.pop(self.step).values())
            self.step += 1
            denominators = [d for _, d, _ in reports]
            if any(d is None for d in denominators):
                loss = sum(x for x, _, _ in reports)
            else:
                total = sum(denominators)
                loss = sum(x * d for x, d, _ in reports) / total if total else 0.0
            self.records.append((self.step, loss, sum(r for _, _, r in reports)))

    def _decide(self, worker: int):
        if self.mode == "async":
            step = self.step + len(self.in_flight)
        else:
            step = self.first_step + self.reported[worker]
        if self.last_step is not None and step >= self.last_step:
            return None
        if self.stop_at is not None and step >= self.stop_at:
            return None
        if self.held_at is not None and step >= self.held_at:
            return WAIT
        if self.mode == "async":
            self.in_flight.add(worker)
        self.max_granted = max(self.max_granted, step)
        return step
