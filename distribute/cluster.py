"""The actors of one distributed ``train`` call, as the driver sees them: starting
them, watching them, replacing a dead worker, restoring every parameter server from the
latest checkpoint when one dies, and snapshots of the servers into the estimator.
"""

from __future__ import annotations

import copy
import logging
import time

import ray

from ..data.worker_shards import reads_streamed_split
from ..estimators.runtime import distributed as trainer
from . import hosts, state
from .coordinator import Coordinator
from .parameter_server import ParameterServer
from .settle import JobFailure
from .tables import ShapeOnly, network_tables
from .worker import Worker, WorkerStats

logger = logging.getLogger("colonnade")

# Worker replacements allowed per worker in one train() call before giving up.
WORKER_REPLACEMENTS = 3
# How long the roles may take to finish after a server died before their hosts are killed.
WIND_DOWN_S = 10.0
# How long the driver waits for a ping before it deems a parameter server alive but busy.
PING_TIMEOUT_S = 10.0


SERVER_OPTIONS = {"num_cpus": 0, "scheduling_strategy": "SPREAD"}
COORDINATOR_OPTIONS = {"num_cpus": 0}
WORKER_OPTIONS = {"num_cpus": 0, "scheduling_strategy": "SPREAD"}


def worker_copy(estimator):
    """What is sent to the workers: a copy of the estimator without its lock, checkpoint
    manager, strategy and optimizer state (the servers hold that), and with its tables
    shape-only (:class:`~.tables.ShapeOnly`): a worker holds only the rows a step pulls,
    so sending it costs the same whatever the tables' sizes. The driver's estimator
    keeps the one whole copy, from which checkpoints are written."""
    out = trainer.estimator_for_worker(estimator)
    tables = network_tables(trainer.network(estimator)).values()
    memo = {id(a): ShapeOnly(a) for t in tables for a in t.arrays()}
    return copy.deepcopy(out, memo)


class Cluster:
    """The parameter servers, workers and coordinator training ``estimator``."""

    def __init__(self, strategy, estimator, shards, last_step):
        self.strategy, self.estimator, self.shards = strategy, estimator, shards
        self.last_step = last_step
        self.plan = state.placement(estimator, strategy.num_ps)
        self.stats = [WorkerStats() for _ in shards]
        self.replacements = [0] * len(shards)
        self.steps_lost = 0
        self.records: list = []
        self.consumed_at: dict = {}
        self.closed = False
        self.servers, self.workers, self.runs = [], [], {}
        self.coordinator = self.hosts = None
        try:
            self._start(estimator.global_step, [0] * len(shards))
        except BaseException:  # a role that failed to build: no actor is left behind
            self.shutdown(kill=True)
            raise

    # ------------------------------------------------------------------ lifecycle

    def _start(self, first_step: int, consumed: list) -> None:
        s, plan = self.strategy, self.plan
        payloads = state.server_payloads(self.estimator, plan)
        built = []
        self.hosts = {"servers": [], "workers": [], "coordinator": None}
        self.servers = []
        for j in range(s.num_ps):
            parts = {
                v: (plan.variables[v].part, payloads[j]["variables"][v].shape)
                for v in plan.on_server(j)
            }
            host = hosts.acquire(SERVER_OPTIONS)
            handle, ref = hosts.play(
                host, ParameterServer, j, payloads[j], parts, s.mode, s.num_workers, first_step
            )
            self.hosts["servers"].append(host)
            self.servers.append(handle)
            built.append(ref)
        host = hosts.acquire(COORDINATOR_OPTIONS)
        self.hosts["coordinator"] = host
        self.coordinator, ref = hosts.play(
            host, Coordinator, s.mode, s.num_workers, first_step, self.last_step, consumed
        )
        built.append(ref)
        self.blob = ray.put(worker_copy(self.estimator))
        self.workers = []
        for i in range(s.num_workers):
            handle, ref = self._new_worker(i)
            self.workers.append(handle)
            built.append(ref)
        ray.get(built)
        self.runs = {i: w.run.remote() for i, w in enumerate(self.workers)}

    @property
    def worker_actors(self) -> list:
        """The Ray actors running the workers now (what a fault test may ``ray.kill``)."""
        return list(self.hosts["workers"]) if self.hosts else []

    @property
    def server_actors(self) -> list:
        """The Ray actors running the parameter servers now."""
        return list(self.hosts["servers"]) if self.hosts else []

    def _worker_options(self) -> dict:
        resources = self.strategy.worker_resources or {}
        return {**WORKER_OPTIONS, **{k: _plain(v) for k, v in resources.items()}}

    def _new_worker(self, i: int) -> tuple:
        host = hosts.acquire(self._worker_options(), blocking=True)
        if len(self.hosts["workers"]) > i:
            self.hosts["workers"][i] = host
        else:
            self.hosts["workers"].append(host)
        return hosts.play(
            host,
            Worker,
            i,
            self.strategy.num_workers,
            self.blob,
            self.plan,
            self.shards[i],
            self.servers,
            self.coordinator,
        )

    def _all_hosts(self) -> list:
        h = self.hosts
        return [*h["workers"], *h["servers"]] + ([h["coordinator"]] if h["coordinator"] else [])

    def shutdown(self, kill: bool = False) -> None:
        """End the roles: hosts go back to the pool (workers still running are stopped
        first), or with ``kill`` are killed."""
        h = getattr(self, "hosts", None)
        if h is None:
            return
        if self.runs and not kill:  # ended by an error: let the roles finish first
            self._wind_down([])
            return
        if kill or self.runs:
            for host in self._all_hosts():
                ray.kill(host, no_restart=True)
        else:
            kinds = [(host, SERVER_OPTIONS, False) for host in h["servers"]]
            kinds.append((h["coordinator"], COORDINATOR_OPTIONS, False))
            kinds += [(host, self._worker_options(), True) for host in h["workers"]]
            for host, options, blocking in [k for k in kinds if k[0] is not None]:
                try:  # a host that died meanwhile is not given back
                    ray.get(host.become.remote(None))
                except ray.exceptions.RayError:
                    ray.kill(host, no_restart=True)
                    continue
                hosts.release(host, options, blocking)
        self.hosts = None
        self.workers, self.servers, self.runs, self.coordinator = [], [], {}, None

    def close(self) -> None:
        """No more snapshots: the actors are done (the final state is in the estimator)."""
        self.closed = True

    # ------------------------------------------------------------------ watching

    def poll(self) -> bool:
        """Collect finished workers and handle failures; True when every worker is done."""
        if not self.runs:
            return True
        refs = list(self.runs.values())
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0.05)
        for i, ref in list(self.runs.items()):
            if ref not in ready:
                continue
            try:
                self.stats[i].add(ray.get(ref))
                del self.runs[i]
            except ray.exceptions.RayTaskError as e:  # raised in the worker's code
                dead = self._dead_servers()
                if dead:
                    self._restore_servers(dead)
                    return False
                raise original_error(e) from None
            except ray.exceptions.RayActorError:  # the worker itself died
                self._replace_worker(i)
        self._pull_records()
        return not self.runs

    def _pull_records(self) -> None:
        if self.coordinator is None:
            return
        try:
            records, step, consumed = ray.get(self.coordinator.drain.remote())
        except ray.exceptions.RayActorError:
            return
        self.records.extend(records)
        self.last_seen = step, consumed

    def take_records(self) -> list:
        records, self.records = self.records, []
        return records

    def stop(self) -> None:
        if self.coordinator is not None:
            ray.get(self.coordinator.stop.remote())

    def _dead_servers(self) -> list:
        pings = {ps.ping.remote(): j for j, ps in enumerate(self.servers)}
        ready, _ = ray.wait(list(pings), num_returns=len(pings), timeout=PING_TIMEOUT_S)
        dead = []
        for ref in ready:
            try:
                ray.get(ref)
            except ray.exceptions.RayActorError:
                dead.append(pings[ref])
        return dead

    def _replace_worker(self, i: int) -> None:
        """Worker ``i`` died: a new one takes its place and its shard from where the
        dead one's reported steps ended (its step in flight is redone)."""
        _refuse_restart_of_ray_split(self.shards, f"worker {i} died")
        self.replacements[i] += 1
        if self.replacements[i] > WORKER_REPLACEMENTS:
            raise JobFailure(
                f"worker {i} died {self.replacements[i]} times in one train() call; giving up"
            )
        logger.warning("worker %d died; starting a new worker in its place", i)
        ray.kill(self.hosts["workers"][i], no_restart=True)
        ray.get(self.coordinator.forfeit.remote(i))
        self.workers[i], built = self._new_worker(i)
        ray.get(built)
        self.runs[i] = self.workers[i].run.remote()

    def _restore_servers(self, dead: list) -> None:
        """Parameter servers ``dead`` died: end every role, restore the estimator from
        the latest checkpoint, and start again from there, logging the steps lost."""
        _refuse_restart_of_ray_split(self.shards, f"parameter server(s) {dead} died")
        self._pull_records()
        self.take_records()  # steps after the checkpoint are lost, with the server's state
        reached = getattr(self, "last_seen", (self.estimator.global_step, None))[0]
        self._wind_down(dead)
        path = self.estimator.train_state.restore_newest()
        restored = self.estimator.global_step
        lost = max(0, reached - restored)
        self.steps_lost += lost
        logger.warning(
            "a parameter server died at global step %d; restored every parameter server "
            "from checkpoint %s (step %d): %d steps lost",
            reached,
            path,
            restored,
            lost,
        )
        consumed = self.consumed_at.get(restored, [0] * len(self.shards))
        self._start(restored, consumed)

    def _wind_down(self, dead: list) -> None:
        """End the job (servers ``dead`` died, or an error): stop the grants, let sync
        rounds go, and once every worker's run has returned give the live hosts back
        (for a restart or a later job: a new process costs seconds); if some role does
        not finish in time, kill every host instead."""
        live = [s for j, s in enumerate(self.servers) if j not in dead]
        try:
            ray.get(
                [self.coordinator.stop.remote()] + [s.abort.remote() for s in live],
                timeout=WIND_DOWN_S,
            )
            runs = list(self.runs.values())
            ready, _ = ray.wait(runs, num_returns=len(runs), timeout=WIND_DOWN_S)
            finished = len(ready) == len(runs)
        except (ray.exceptions.RayError, ray.exceptions.GetTimeoutError):
            finished = False
        if not finished:
            self.shutdown(kill=True)
            return
        for j in sorted(dead, reverse=True):
            ray.kill(self.hosts["servers"].pop(j), no_restart=True)
        self.runs = {}
        self.shutdown()

    # ------------------------------------------------------------------ snapshots

    def sync_estimator(self) -> bool:
        """Bring the servers' state into the estimator: new steps are held until those
        in flight are done, so the variables, slots and global step agree. False when
        a server was found dead instead (and all were restored from a checkpoint)."""
        if self.closed or self.coordinator is None:
            return True
        coordinator = self.coordinator
        try:
            ray.get(coordinator.hold.remote())
            while not ray.get(coordinator.quiet.remote()):
                if self._watch_while_held():
                    return False  # the servers were restored from a checkpoint meanwhile
                time.sleep(0.01)
            snapshots = ray.get([s.snapshot.remote() for s in self.servers])
            records, step, consumed = ray.get(coordinator.drain.remote())
        except ray.exceptions.RayActorError:
            dead = self._dead_servers()
            if dead:
                self._restore_servers(dead)
                return False
            raise
        self.records.extend(records)
        state.apply_snapshots(self.estimator, self.plan, snapshots)
        self.estimator.train_state.set_global_step(step)
        self.consumed_at[step] = consumed
        ray.get(coordinator.release.remote())
        return True

    def _watch_while_held(self) -> bool:
        """Failures while waiting for quiet; True when the servers were restored."""
        before = self.coordinator
        self.poll()
        return self.coordinator is not before

    def saved(self, step: int) -> None:
        """A checkpoint of ``step`` was written (restores after a server dies use it)."""
        self.consumed_at = {k: v for k, v in self.consumed_at.items() if k == step}

    @staticmethod
    def is_job_failure(error) -> bool:
        """Whether ``error`` says the job's actors failed (Ray's errors, or a
        :class:`JobFailure`), not the program (a hook, the input)."""
        return isinstance(error, (ray.exceptions.RayError, JobFailure))

    def explain_death(self, error, estimator):
        """A clear error for a Ray actor's death that training does not recover from (the
        coordinator's, or a server's found while handling another failure), else None."""
        if not isinstance(error, ray.exceptions.RayActorError):
            return None
        roles = [("the coordinator", self.coordinator, "drain")]
        roles += [(f"parameter server {j}", s, "ping") for j, s in enumerate(self.servers)]
        dead = [name for name, actor, method in roles if not _answers(actor, method)]
        return JobFailure(
            f"{' and '.join(dead) or 'an actor of the job'} died (Ray: "
            f"{type(error).__name__}), and training stopped; the estimator holds the latest "
            f"checkpoint, {estimator.latest_checkpoint()} (global step "
            f"{estimator.global_step}): run train again to resume from it"
        )

    def summary(self) -> dict:
        """The workers' summed :class:`WorkerStats` as a dict, with the servers' busy
        seconds (``server_pull_s``, ``server_apply_s``) summed over the servers, the
        workers replaced and the steps lost to failed servers."""
        total = WorkerStats()
        for s in self.stats:
            total.add(s)
        out = vars(total)
        try:
            busy = ray.get([s.stats.remote() for s in self.servers])
        except ray.exceptions.RayActorError:
            busy = []
        for key in ("pull_s", "apply_s"):
            out[f"server_{key}"] = sum(b[key] for b in busy)
        out.update(workers_replaced=sum(self.replacements), steps_lost=self.steps_lost)
        return out


def original_error(error) -> Exception:
    """The exception a worker's code raised, as its own type (with its message, which
    names the worker and the batch's rows: :func:`.worker.located`), not Ray's
    ``RayTaskError`` that wraps it with the worker's whole traceback; Ray's own form
    when the original could not travel (an exception that does not pickle)."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, Exception) and not isinstance(cause, ray.exceptions.RayError):
        return cause
    return error.as_instanceof_cause()


def _answers(actor, method: str) -> bool:
    """Whether ``actor`` (None: gone) answers a call of its ``method`` in time."""
    if actor is None:
        return False
    try:
        ray.get(getattr(actor, method).remote(), timeout=PING_TIMEOUT_S)
    except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
        return False
    return True


def _plain(value):
    """A worker resource as Ray takes it: a nested mapping as a plain dict."""
    return {k: _plain(v) for k, v in value.items()} if isinstance(value, dict) else value


def _refuse_restart_of_ray_split(shards, what: str) -> None:
    if any(reads_streamed_split(shard) for shard in shards):
        raise JobFailure(
            f"{what}, and the workers read parts of a lazy Ray dataset's streaming_split, "
            "which cannot be handed to new workers mid-pass: training stopped; run train "
            "again to resume from the latest checkpoint. A materialized dataset "
            "(ray_dataset.materialize()) is split into row ranges that a new worker reads "
            "again, so failures are recovered from as with files"
        )
