"""One distributed ``train`` call: a :class:`Run` from the actors' start to their end,
and what it measured, :class:`RunStats`.

A ``RayStrategy`` is a definition (frozen, compared by its arguments); everything about
one call of its ``train`` lives in the ``Run`` that call makes: the actors (a
:class:`~.cluster.Cluster`), the chief's loop over the finished steps, and the
measurements, which ``estimator.train`` keeps as ``estimator.last_run``. While a run is
in progress, :func:`current_run` returns it to the hooks in the chief's thread (what a
fault-injection test ``ray.kill``-s is ``current_run().worker_actors[i]``). The actor
processes outlive the run: they go back to a pool (:mod:`.hosts`) for the next one.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time

from ..estimators.runtime import distributed as trainer
from .settle import settle_failed_run

logger = logging.getLogger("colonnade")


@dataclasses.dataclass(frozen=True)
class RunStats:
    """What one distributed ``train`` call measured (``estimator.last_run``).

    The workers' figures are summed over the workers: ``steps`` (each worker's steps:
    in sync mode a global step counts once per worker), ``rows``, the seconds they spent
    waiting for input (``input_s``), computing (``compute_s``: forward, backward,
    splitting gradients, writing pulled rows), communicating (``communication_s``: the
    pull and push calls, less the sync wait) and waiting for step grants or, in sync
    mode, for the other workers (``waiting_s``), and the bytes pulled and pushed. The
    servers' seconds gathering pulls and applying updates (``server_pull_s``,
    ``server_apply_s``) are summed over the servers. ``start_s`` is the seconds the
    actors took to start, ``train_s`` those of training; ``workers_replaced`` and
    ``steps_lost`` count failed workers and the steps lost to failed servers.
    ``table_buffer_bytes`` is the most memory one worker held for tables (its largest
    step's rows; a worker holds no table whole).
    """

    steps: int
    rows: int
    input_s: float
    compute_s: float
    communication_s: float
    waiting_s: float
    bytes_pulled: int
    bytes_pushed: int
    server_pull_s: float
    server_apply_s: float
    start_s: float
    train_s: float
    workers_replaced: int = 0
    steps_lost: int = 0
    table_buffer_bytes: int = 0

    def as_dict(self) -> dict:
        """The figures by name (a benchmark's JSON line)."""
        return dataclasses.asdict(self)


_running = threading.local()


def current_run() -> Run:
    """The distributed ``train`` call in progress in this thread (for a hook: its
    ``worker_actors`` and ``server_actors``); ``RuntimeError`` outside one."""
    run = getattr(_running, "run", None)
    if run is None:
        raise RuntimeError(
            "current_run() is called outside a distributed train(): it is for hooks of an "
            "estimator whose RunConfig has train_distribute=cn.distribute.RayStrategy(...)"
        )
    return run


class Run:
    """One ``RayStrategy.train`` call over ``shards`` (one per worker) up to global
    step ``last_step``: see the module docstring."""

    def __init__(self, strategy, estimator, shards, last_step):
        self.strategy, self.estimator = strategy, estimator
        self.shards, self.last_step = shards, last_step
        self.cluster = None
        self.saved: dict = {}  # step -> path of each checkpoint this run wrote
        self.hooked = estimator.global_step  # the last step whose hooks all ran
        self.hooking = self.hooked  # the step whose hooks are running (or last ran)

    @property
    def worker_actors(self) -> list:
        """The Ray actors running the workers now."""
        return self.cluster.worker_actors if self.cluster is not None else []

    @property
    def server_actors(self) -> list:
        """The Ray actors running the parameter servers now."""
        return self.cluster.server_actors if self.cluster is not None else []

    def train(self, input_fn, hooks, saving_listeners, verbose) -> RunStats:
        """Start the actors, run the chief's loop until every worker is done, give the
        actors back; what was measured."""
        from .cluster import Cluster

        began = time.perf_counter()
        self.cluster = Cluster(self.strategy, self.estimator, self.shards, self.last_step)
        previous, _running.run = getattr(_running, "run", None), self
        try:
            started = time.perf_counter()
            self._drive(input_fn, hooks, saving_listeners, verbose)
            summary = self.cluster.summary()
            return RunStats(
                **summary, start_s=started - began, train_s=time.perf_counter() - started
            )
        except Exception as error:
            # a hook that failed at a step: nothing saved of later steps may stay latest
            in_hooks = self.hooking != self.hooked and not self.cluster.is_job_failure(error)
            settle_failed_run(self.estimator, self.saved, self.hooked if in_hooks else None)
            clear = self.cluster.explain_death(error, self.estimator)
            if clear is None:
                raise
            raise clear from error
        finally:
            _running.run = previous
            self.cluster.shutdown()

    def _saved(self, step: int) -> None:
        self.saved[step] = self.estimator.latest_checkpoint()
        self.cluster.saved(step)

    def _drive(self, input_fn, hooks, saving_listeners, verbose) -> None:
        """The chief's loop: the hooks on each finished step, until every worker is
        done; the estimator then holds the servers' final state."""
        cluster, estimator = self.cluster, self.estimator
        chief = trainer.ChiefHooks(
            estimator,
            input_fn,
            self.last_step,
            hooks,
            saving_listeners,
            verbose,
            fetch_state=cluster.sync_estimator,
            saved=self._saved,
        )
        started = time.monotonic()
        with chief.running():
            while True:
                finished = cluster.poll()
                for step, loss, rows in cluster.take_records():
                    self.hooking = step
                    if chief.after_step(step, loss, rows):
                        cluster.stop()
                    self.hooked = step
                if finished and cluster.sync_estimator():  # else: restored, training goes on
                    break
            cluster.close()
            chief.end()
        s = self.strategy
        logger.info(
            "trained to step %d in %.1fs on %d workers and %d parameter servers (%s)",
            estimator.global_step,
            time.monotonic() - started,
            s.num_workers,
            s.num_ps,
            s.mode,
        )
