"""``RayStrategy``: parameter-server training of a canned estimator on Ray.

Passed as ``RunConfig(train_distribute=RayStrategy(...))``, it makes ``train`` and
``fit`` run on a Ray cluster: ``num_ps`` parameter-server actors hold the trained
variables (tables cut into row ranges, dense variables whole, with their optimizer
slots), ``num_workers`` worker actors each train on their own shard of the input, and a
small coordinator actor hands out steps. The driver process (where ``train`` was called)
is the chief: it runs the hooks on every finished step's values, writes ordinary
checkpoints to ``model_dir`` from consistent snapshots of the servers, and replaces
failed actors. Each ``train`` call is a :class:`~.run.Run`; the strategy itself is only
its definition. See ``docs/distributed.md``.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..data import Dataset
from ..data.ray_source import is_ray_dataset
from ..data.worker_shards import worker_shards
from ..estimators.hooks.runner import SessionRunHook
from ..estimators.runtime import training_loop

MODES = ("async", "sync")
WORKER_RESOURCE_KEYS = ("num_cpus", "num_gpus", "memory", "resources", "accelerator_type")
# How long joining a cluster at ``address`` may take before it is reported unreachable.
CONNECT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class RayStrategy:
    """Train on Ray: ``num_workers`` workers and ``num_ps`` parameter servers.

    A definition, like TF's strategies: immutable, equal and hashable by its arguments.
    What one ``train`` call does and measures belongs to that call (a
    :class:`~.run.Run`): ``estimator.last_run`` holds its :class:`~.run.RunStats`
    afterwards, and a hook finds it in progress with :func:`~.run.current_run`.

    Args:
        num_workers: worker actors, each training on its own shard of the input
            (default 2).
        num_ps: parameter-server actors; every table is cut into ``num_ps`` row
            ranges, so each table needs at least ``num_ps`` rows (default 1).
        mode: ``"async"`` (TF's parameter-server default: each worker applies its
            gradients when ready) or ``"sync"`` (each step applies the workers'
            gradients together, as one large batch).
        address: ``None`` starts a local Ray cluster in this process (or uses the one
            already started); ``"auto"`` joins the cluster of ``ray start --head`` on
            this machine; ``"ray://host:10001"`` joins one through Ray Client.
        worker_resources: Ray resources each worker reserves, e.g. ``{"num_cpus": 4}``
            (keys ``num_cpus``, ``num_gpus``, ``memory``, ``resources``,
            ``accelerator_type``); default none reserved. Kept as a read-only copy.

    >>> RayStrategy(num_workers=4, num_ps=2, mode="sync").mode
    'sync'
    >>> a, b = (RayStrategy(worker_resources={"num_cpus": 4}) for _ in range(2))
    >>> a == b and hash(a) == hash(b) and a.worker_resources == {"num_cpus": 4}
    True
    >>> RayStrategy(mode="fast")
    Traceback (most recent call last):
    ...
    ValueError: RayStrategy mode must be one of ('async', 'sync'), got 'fast'
    """

    num_workers: int = 2
    num_ps: int = 1
    mode: str = "async"
    address: str | None = None
    worker_resources: dict | None = None

    def __post_init__(self):
        for name in ("num_workers", "num_ps"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"RayStrategy {name} must be an integer >= 1, got {value!r}")
        if self.mode not in MODES:
            raise ValueError(f"RayStrategy mode must be one of {MODES}, got {self.mode!r}")
        if self.address is not None and (not isinstance(self.address, str) or not self.address):
            raise ValueError(
                f"RayStrategy address must be None, 'auto', 'ray://host:port' or "
                f"'host:port', got {self.address!r}"
            )
        if self.worker_resources is not None:
            if not isinstance(self.worker_resources, Mapping):
                raise TypeError(
                    f"RayStrategy worker_resources must be a dict, got "
                    f"{type(self.worker_resources).__name__}"
                )
            unknown = sorted(set(self.worker_resources) - set(WORKER_RESOURCE_KEYS))
            if unknown:
                raise ValueError(
                    f"RayStrategy worker_resources has unknown keys {unknown}; expected some "
                    f"of {list(WORKER_RESOURCE_KEYS)}"
                )
            object.__setattr__(self, "worker_resources", _ReadOnlyDict(self.worker_resources))

    def train(
        self,
        estimator,
        input_fn,
        steps=None,
        max_steps=None,
        hooks=None,
        saving_listeners=None,
        verbose="auto",
    ):
        """``estimator.train(...)`` on Ray (what a canned estimator's ``train`` calls
        when its config has ``train_distribute``); returns the run's
        :class:`~.run.RunStats`, or None when ``max_steps`` was already reached."""
        if steps is not None and max_steps is not None:
            raise ValueError("set at most one of steps and max_steps")
        for name, value in (("steps", steps), ("max_steps", max_steps)):
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be > 0, got {value}")
        hooks = list(hooks or [])
        for hook in hooks:
            if not isinstance(hook, SessionRunHook):
                raise TypeError(f"hooks must be SessionRunHook instances, got {type(hook)}")
        from .state import ensure_slots, trained_parts

        trained_parts(estimator)  # a clear error for what cannot be distributed, first
        shards = shard_input(input_fn, self.num_workers, self.mode)
        connect(self.address)
        from .run import Run

        if not training_loop.resume(estimator, max_steps):
            return None
        first_step = estimator.global_step
        last_step = max_steps if steps is None else first_step + steps
        if estimator.latest_checkpoint() is None:  # what a failed server restarts from
            ensure_slots(estimator)  # saved too: a restore reads the servers' whole state
            estimator.save_checkpoint()
        stats = Run(self, estimator, shards, last_step).train(
            input_fn, hooks, saving_listeners, verbose
        )
        if estimator.global_step == first_step:
            raise ValueError("training got no batches from its input: the dataset is empty")
        return stats

    def __hash__(self) -> int:
        resources = None if self.worker_resources is None else _frozen(self.worker_resources)
        return hash((self.num_workers, self.num_ps, self.mode, self.address, resources))


class _ReadOnlyDict(dict):
    """A dict that refuses changes (``RayStrategy.worker_resources``): Ray's options take
    it as the dict it is, and the strategy stays what it was built with. Nested dicts
    (``resources``) are copied read-only too."""

    def __init__(self, items):
        super().__init__(
            (k, _ReadOnlyDict(v) if isinstance(v, Mapping) else v) for k, v in items.items()
        )

    def _refuse(self, *args, **kwargs):
        raise TypeError("RayStrategy.worker_resources is read-only: make a new RayStrategy")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        return _ReadOnlyDict, (dict(self),)


def _frozen(value):
    """A hashable form of a (nested) mapping."""
    if isinstance(value, Mapping):
        return frozenset((k, _frozen(v)) for k, v in value.items())
    return value


def shard_input(input_fn, num_workers: int, mode: str = "sync") -> list:
    """Each worker's shard of the input (a Dataset, or what ``input_fn`` returns):
    :func:`~colonnade.data.worker_shards.worker_shards`, the workers in lockstep in
    ``mode="sync"``. What no worker can read a shard of is refused with the reason."""
    source = input_fn
    if callable(input_fn) and not isinstance(input_fn, (Dataset, Iterable)):
        source = input_fn()
    if is_ray_dataset(source):
        raise TypeError(
            "train takes a ray.data.Dataset as cn.data.Dataset.from_ray(ray_dataset, "
            "label='<column>').batch(n) (or pass it to fit with label='<column>'): each "
            "worker then reads its part of the Ray dataset's streaming_split"
        )
    if not isinstance(source, Dataset):
        raise TypeError(
            "train_distribute needs an input that each worker can read its own shard of: a "
            "cn.data.Dataset (from files, or from in-memory data) or an input_fn returning "
            f"one; got {type(source).__name__}. A Python generator or iterable of batches "
            "exists only in this process: write the data to files, or build a Dataset"
        )
    return worker_shards(source, num_workers, lockstep=mode == "sync")


def connect(address):
    """Make sure this process is connected to Ray: ``address=None`` starts a local
    cluster unless one is already up; an address is checked for reachability first, so
    that a wrong one fails within :data:`CONNECT_TIMEOUT_S` seconds with its name."""
    try:
        import ray
    except ImportError as e:
        raise ImportError('RayStrategy needs Ray: pip install "colonnade[ray]"') from e
    if address not in (None, "auto"):
        _check_reachable(address)
    if ray.is_initialized():
        return ray
    try:
        if address is None:
            ray.init(include_dashboard=False, configure_logging=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    except ConnectionError as e:
        raise ConnectionError(
            f"cannot join the Ray cluster at address={address!r}: {e}. Start one with "
            "`ray start --head` (and `ray start --address=HEAD:6379` on the other machines), "
            "or use address=None for a local cluster"
        ) from e
    return ray


def _check_reachable(address: str) -> None:
    hostport = address.split("://", 1)[-1]
    host, _, port = hostport.rpartition(":")
    if not host or not (port.isascii() and port.isdigit()):
        raise ValueError(
            f"RayStrategy address must be 'auto', 'ray://host:port' or 'host:port', got {address!r}"
        )
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as e:
        raise ConnectionError(
            f"cannot reach the Ray cluster at {address!r}: {e}. Is `ray start --head` "
            "running there, and is the port open?"
        ) from None
