"""Actor processes kept between ``train`` calls: starting one costs seconds (a Python
process importing numpy, pyarrow and colonnade), and ``fit`` trains an epoch per call.

A :class:`Host` is a Ray actor that plays one role at a time (a parameter server, a
worker or the coordinator): ``become(cls, *args)`` builds the role in it, ``call``
forwards a method call (coroutines run on the actor's event loop, blocking methods
such as a worker's ``run`` on a thread). The driver keeps a pool of idle hosts per kind
for the current Ray session; a host that died is simply not returned to it.
"""

from __future__ import annotations

import asyncio

import ray

from ..core.threads import set_cpu_share


class Host:
    """Ray actor (asyncio) holding one role object (a server or the coordinator); see
    the module docstring."""

    def __init__(self):
        self.role = None

    async def become(self, cls, *args) -> None:
        self.role = None if cls is None else cls(*args)

    async def call(self, method: str, *args):
        fn = getattr(self.role, method)
        if asyncio.iscoroutinefunction(fn):
            return await fn(*args)
        return await asyncio.to_thread(fn, *args)


class BlockingHost:
    """Ray actor (one thread) holding a worker: its ``run`` blocks on Ray calls, which
    an asyncio actor's event loop must not."""

    def __init__(self):
        self.role = None

    def become(self, cls, *args) -> None:
        self.role = None if cls is None else cls(*args)

    def call(self, method: str, *args):
        return getattr(self.role, method)(*args)


class Handle:
    """A role on a host, called like an actor: ``handle.method.remote(*args)``."""

    def __init__(self, host):
        self.host = host

    def __getattr__(self, method):
        host = self.host

        class _Method:
            @staticmethod
            def remote(*args):
                return host.call.remote(method, *args)

        return _Method

    def __reduce__(self):
        return Handle, (self.host,)


def use_assigned_cpus() -> None:
    """Size colonnade's BLAS threads by the CPUs Ray gave this actor (``num_cpus``; one
    when it reserved none), not by the machine's cores, which other actors share."""
    if ray.is_initialized():
        set_cpu_share(ray.get_runtime_context().get_assigned_resources().get("CPU", 0))


_pool: dict = {}  # (job id, options) -> [idle Host actors]


def _key(options: dict) -> tuple:
    job = ray.get_runtime_context().get_job_id()
    return job, tuple(sorted((k, repr(v)) for k, v in options.items()))


def acquire(options: dict, blocking: bool = False):
    """An idle host started with Ray actor ``options`` (a :class:`BlockingHost` if
    ``blocking``, else a :class:`Host`), or a new one."""
    idle = _pool.get(_key({**options, "blocking": blocking}), [])
    if idle:
        return idle.pop()
    if blocking:
        return ray.remote(BlockingHost).options(max_restarts=0, **options).remote()
    return ray.remote(Host).options(max_restarts=0, max_concurrency=64, **options).remote()


def release(host, options: dict, blocking: bool = False) -> None:
    """Give ``host`` back for a later role (it must be alive and idle)."""
    _pool.setdefault(_key({**options, "blocking": blocking}), []).append(host)


def play(host, cls, *args) -> tuple:
    """Make ``host`` play ``cls(*args)``: the handle to call it, and the reference to
    wait on for the role to be built (calls made meanwhile run after it)."""
    return Handle(host), host.become.remote(cls, *args)
