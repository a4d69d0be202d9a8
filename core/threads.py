"""How many BLAS threads colonnade's matrix products use, chosen per product.

OpenBLAS starts one thread per core and keeps them spinning between calls. A training
step is mostly Python and elementwise numpy on one thread, with the input pipeline on
another, so on a machine other programs are using, those spinning threads take the cores
the step itself needs: on a 2-core machine under load a DNN trained 2.4x faster with one
BLAS thread than with OpenBLAS's default, and a small-batch model 7x. More threads pay
only for products big enough to share.

So each product asks :func:`threads_for` for a count, and by default the count depends
on the product's size and this process's CPUs only, never on how busy the machine is:
a product gets one thread below two shares of :data:`MIN_FLOPS_PER_THREAD`, and one
thread per share above it, at most the CPUs this process may use (its CPU affinity, its
cgroup quota, or the share set with :func:`set_cpu_share`, e.g. by a Ray worker). Some
BLAS and LAPACK routines round differently with a different thread count (a float64
dot product splits its sum, ``eigh`` and ``solve`` their blocks), so a count that
followed the machine's load made the same seed give a different model from run to run
(issue 41); a count by shape gives the same bits under any load.

``set_blas_threads("load")`` (or ``COLONNADE_BLAS_THREADS=load``) chooses by load
instead, as colonnade did before: what the rest of the machine uses is measured every
:data:`LOAD_RECHECK_SECONDS` as the machine's busy CPU time (Linux's ``/proc/stat``) less
this process's own, and

- when the rest of the machine leaves all of this process's cores free, every product
  gets them all and OpenBLAS sizes each one itself (it keeps products under ~0.5 MFLOP on
  one thread), exactly as its default does;
- when other programs use some of them, a product gets one thread below
  :data:`MIN_FLOPS_PER_THREAD` of work per thread, and never more threads than the cores
  left free.

Where ``/proc/stat`` cannot be read, or before the first measurement, the 1-minute load
average is used instead and one core is kept for the input thread. This is faster on a
machine whose load changes, and not reproducible bit for bit. The count is set through
threadpoolctl only when it changes, so a product costs a comparison more.

``COLONNADE_BLAS_THREADS=n`` in the environment, or ``set_blas_threads(n)``, fixes the
count; ``set_blas_threads(None)`` returns to the choice by shape.

>>> set_blas_threads(1); threads_for(2 * 1024 * 1024 * 1024)
1
>>> set_blas_threads(None); threads_for(1000)
1
>>> set_blas_threads(blas_threads_from_environment())
"""

from __future__ import annotations

import math
import os
import time

__all__ = [
    "BY_LOAD",
    "blas_threads_from_environment",
    "cpu_share",
    "cpu_times",
    "product",
    "set_blas_threads",
    "set_cpu_share",
    "threads_for",
]

MIN_FLOPS_PER_THREAD = 1 << 23
"""Work (multiply-adds x 2) a BLAS thread must get before a product is split further:
about a quarter of a millisecond of one core; smaller shares lose more to waking and
joining threads, and to the cores' other users, than they gain."""

LOAD_RECHECK_SECONDS = 1.0
"""How often the rest of the machine's CPU use is measured again (over the time since the
last measurement): long enough for ``/proc/stat``'s 10 ms ticks to count to ~1%, short
enough to follow a neighbour's job starting or ending."""

NEIGHBOURS_IGNORED_CORES = 0.25
"""CPU use by the rest of the machine below this (a shell, a monitor, a test starting)
still leaves a whole core free."""

BY_LOAD = "load"
"""The :func:`set_blas_threads` value (and ``COLONNADE_BLAS_THREADS`` value) that chooses
counts by the machine's load (see the module docstring)."""

_state = {
    "fixed": None,  # a count set by set_blas_threads or the environment, BY_LOAD, or None
    "detected": None,  # cpu_share() as detected, once
    "share": None,  # CPUs given to this process by set_cpu_share, else None (detected)
    "free": None,  # (time read, cores this process may use now, its CPU share)
    "busy": None,  # (time, machine busy CPU-seconds or None, this process's CPU-seconds)
    "current": None,  # the count last set, None before the first product
    "setter": None,  # the function that sets the count in every BLAS library loaded
}


def blas_threads_from_environment():
    """``COLONNADE_BLAS_THREADS`` as a count, :data:`BY_LOAD` for ``load``, or None when
    unset."""
    value = os.environ.get("COLONNADE_BLAS_THREADS", "").strip()
    if not value:
        return None
    if value.lower() == BY_LOAD:
        return BY_LOAD
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise ValueError(
            f"COLONNADE_BLAS_THREADS must be a positive integer or 'load', got {value!r}; "
            "unset it to let colonnade choose by each product's size"
        )
    return count


def _cgroup_cpus():
    """The CPUs a cgroup v2 quota (``cpu.max``) allows, or None without a quota."""
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()[:2]
    except (OSError, ValueError):
        return None
    if quota == "max":
        return None
    return max(1, math.floor(int(quota) / int(period)))


def cpu_share() -> int:
    """The CPUs this process may use: :func:`set_cpu_share`'s value, else its CPU
    affinity capped by its cgroup quota."""
    if _state["share"] is not None:
        return _state["share"]
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    quota = _cgroup_cpus()
    return min(cpus, quota) if quota else cpus


def _process_cpus() -> int:
    """:func:`cpu_share`, detected once (the choice by shape must not change with it)."""
    if _state["share"] is not None:
        return _state["share"]
    if _state["detected"] is None:
        _state["detected"] = cpu_share()
    return _state["detected"]


def set_cpu_share(cpus) -> None:
    """Tell colonnade how many CPUs this process was given (a Ray worker's ``num_cpus``);
    ``None`` detects it again. Fewer than one CPU counts as one."""
    if cpus is not None:
        cpus = max(1, int(cpus))
    _state["share"] = cpus
    _state["detected"] = None
    _state["free"] = None
    _state["busy"] = cpu_times()  # measure the machine afresh from now


def set_blas_threads(count) -> None:
    """Use ``count`` BLAS threads for every product colonnade computes, ``None`` to
    choose per product by its size (the default, reproducible under any load), or
    :data:`BY_LOAD` (``"load"``) to choose by the machine's load."""
    if count == BY_LOAD:
        _state["fixed"] = BY_LOAD
        _state["current"] = None
        return
    if count is not None and (isinstance(count, (bool, str)) or int(count) != count or count < 1):
        raise ValueError(
            f"set_blas_threads needs a positive integer, None or 'load', got {count!r}"
        )
    _state["fixed"] = None if count is None else int(count)
    _state["current"] = None  # set it again on the next product, whoever changed it since


def cpu_times():
    """One reading of the clocks the choice measures the machine with: ``(monotonic
    seconds, the machine's busy CPU-seconds since boot or None where /proc/stat cannot be
    read, this process's CPU-seconds, every thread's, BLAS threads included)``."""
    now, own = time.monotonic(), time.process_time()
    try:
        with open("/proc/stat", "rb") as f:
            ticks = [int(t) for t in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return now, None, own
    # user nice system idle iowait irq softirq steal: all but idle and iowait are busy
    return now, (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK"), own


def _idle_cores_by_load() -> float:
    """Cores free by the 1-minute load average, counting this process as about one and
    keeping one core for its input thread: the choice without CPU accounting."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    return os.cpu_count() - max(0.0, load - 1.0) - 1


def _idle_cores() -> float:
    """Cores the rest of the machine leaves free: all cores less the CPU time the other
    processes used since the last reading, per second (see the module docstring)."""
    idle, last, reading = None, _state["busy"], cpu_times()
    window = reading[0] - last[0] if last else 0.0
    if window >= LOAD_RECHECK_SECONDS / 4:  # shorter ones count too few ticks
        _state["busy"] = reading
        if reading[1] is not None and last[1] is not None:
            neighbours = max(0.0, (reading[1] - last[1]) - (reading[2] - last[2])) / window
            idle = os.cpu_count() - neighbours + NEIGHBOURS_IGNORED_CORES
    return _idle_cores_by_load() if idle is None else idle


def _free_cores(now: float) -> tuple:
    """``(cores this process may use now, its share)``, measured again every
    :data:`LOAD_RECHECK_SECONDS` (a product in between costs a clock reading)."""
    seen = _state["free"]
    if seen is None or now - seen[0] > LOAD_RECHECK_SECONDS:
        share = cpu_share()
        seen = (now, min(share, math.floor(_idle_cores())), share)
        _state["free"] = seen
    return seen[1], seen[2]


def threads_for(flops: int) -> int:
    """The BLAS threads a product of ``flops`` operations should use (see the module
    docstring)."""
    fixed = _state["fixed"]
    if fixed is None:
        wanted = flops // MIN_FLOPS_PER_THREAD
        return 1 if wanted < 2 else min(wanted, _process_cpus())
    if fixed != BY_LOAD:
        return fixed
    cores, share = _free_cores(time.monotonic())
    if cores >= share:
        return share
    wanted = flops // MIN_FLOPS_PER_THREAD
    return 1 if wanted < 2 else max(1, min(wanted, cores))


def _blas_setter():
    """A function setting the thread count of every BLAS library numpy (and scipy) loaded;
    a no-op without threadpoolctl."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return lambda count: None
    libraries = [lib for lib in ThreadpoolController().lib_controllers if lib.user_api == "blas"]

    def set_count(count: int) -> None:
        for lib in libraries:
            lib.set_num_threads(count)

    return set_count


def use_threads(count: int) -> None:
    """Make the BLAS libraries use ``count`` threads, if that is not already so."""
    if _state["current"] != count:
        if _state["setter"] is None:
            _state["setter"] = _blas_setter()
        _state["setter"](count)
        _state["current"] = count


def product(a, b):
    """``a @ b`` computed with :func:`threads_for` its size's BLAS threads."""
    use_threads(threads_for(2 * a.size * (b.shape[-1] if b.ndim > 1 else 1)))
    return a @ b


_state["fixed"] = blas_threads_from_environment()
_state["busy"] = cpu_times()  # the first window starts at import
