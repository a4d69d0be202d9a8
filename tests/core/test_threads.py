"""colonnade's choice of BLAS threads per matrix product (core/threads.py)."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from colonnade.core import threads


@pytest.fixture(autouse=True)
def _restore_state():
    yield
    threads.set_blas_threads(threads.blas_threads_from_environment())
    threads.set_cpu_share(None)


def _blas_threads() -> set:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def _neighbours_use(monkeypatch, cores: float, cpus: int, own: float = 1.5):
    """Make the machine ``cpus`` cores where, per second of each reading, this process
    uses ``own`` CPU-seconds and the other processes ``cores``."""
    clock = {"now": 0.0, "machine": 0.0, "own": 0.0}

    def reading():
        clock["now"] += 1.0
        clock["own"] += own
        clock["machine"] += own + cores
        return clock["now"], clock["machine"], clock["own"]

    monkeypatch.setattr(threads, "cpu_times", reading)
    monkeypatch.setattr(threads.os, "cpu_count", lambda: cpus)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (cpus * 4.0,) * 3)  # unread


def test_threads_never_exceed_the_cpu_share(monkeypatch):
    threads.set_blas_threads(threads.BY_LOAD)
    _neighbours_use(monkeypatch, 0.0, cpus=64)
    threads.set_cpu_share(4)
    huge = 1000 * threads.MIN_FLOPS_PER_THREAD
    assert threads.threads_for(huge) == 4
    assert threads.threads_for(2 * 32 * 416 * 256) == 4  # all cores free: OpenBLAS sizes it
    threads.set_cpu_share(2)
    assert threads.threads_for(huge) == 2
    threads.set_cpu_share(0)  # a Ray worker given no CPU: one thread
    assert threads.cpu_share() == 1 and threads.threads_for(huge) == 1


def test_an_otherwise_idle_machine_gives_every_product_all_cores(monkeypatch):
    # This process's own threads (1.9 cores: its step, input thread and BLAS threads)
    # are not a neighbour's load, nor is a shell using a tenth of a core. With every core
    # free, OpenBLAS sizes each product itself (its default), so the count never changes.
    threads.set_blas_threads(threads.BY_LOAD)
    _neighbours_use(monkeypatch, 0.1, cpus=2, own=1.9)
    threads.set_cpu_share(None)
    assert threads.threads_for(2 * 1024 * 416 * 256) == 2  # a CTR DNN's first layer
    assert threads.threads_for(2 * 1024 * 64 * 1) == 2  # its logits layer
    assert threads.threads_for(2 * 32 * 416 * 256) == 2  # batch 32
    threads.set_cpu_share(1)
    assert threads.threads_for(2 * 1024 * 416 * 256) == 1


def test_on_a_shared_machine_small_products_use_one_thread(monkeypatch):
    threads.set_blas_threads(threads.BY_LOAD)
    _neighbours_use(monkeypatch, 2.0, cpus=6)  # four cores of six left free
    threads.set_cpu_share(6)
    assert threads.threads_for(2 * 32 * 416 * 256) == 1  # a batch-32 CTR DNN's first layer
    assert threads.threads_for(2 * threads.MIN_FLOPS_PER_THREAD - 1) == 1
    assert threads.threads_for(3 * threads.MIN_FLOPS_PER_THREAD) == 3
    assert threads.threads_for(2 * 1024 * 416 * 256) == 4  # never more than the free cores


@pytest.mark.parametrize("neighbours", [0.5, 1.0, 2.0])
def test_a_neighbour_using_half_a_core_or_more_leaves_two_cores_one_thread(monkeypatch, neighbours):
    threads.set_blas_threads(threads.BY_LOAD)
    _neighbours_use(monkeypatch, neighbours, cpus=2, own=1.0)
    threads.set_cpu_share(None)
    assert threads.threads_for(2 * 1024 * 416 * 256) == 1


def test_a_busy_machine_gets_one_thread(monkeypatch):
    threads.set_blas_threads(threads.BY_LOAD)
    _neighbours_use(monkeypatch, 1.0, cpus=16)
    threads.set_cpu_share(16)
    assert threads.threads_for(1000 * threads.MIN_FLOPS_PER_THREAD) == 15
    _neighbours_use(monkeypatch, 15.5, cpus=16)
    threads.set_cpu_share(16)  # measures again
    assert threads.threads_for(1000 * threads.MIN_FLOPS_PER_THREAD) == 1


def test_without_cpu_accounting_the_load_average_decides_and_keeps_a_core(monkeypatch):
    clock = {"now": 0.0}

    def reading():  # not Linux: no /proc/stat
        clock["now"] += 1.0
        return clock["now"], None, clock["now"]

    threads.set_blas_threads(threads.BY_LOAD)
    monkeypatch.setattr(threads, "cpu_times", reading)
    monkeypatch.setattr(threads.os, "cpu_count", lambda: 16)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    threads.set_cpu_share(16)
    assert threads.threads_for(1000 * threads.MIN_FLOPS_PER_THREAD) == 15
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (17.0, 17.0, 17.0))
    threads.set_cpu_share(16)
    assert threads.threads_for(1000 * threads.MIN_FLOPS_PER_THREAD) == 1


def test_real_readings_count_this_process_and_the_machine():
    now, machine, own = threads.cpu_times()
    sum(i * i for i in range(200_000))  # some CPU time of this process
    later = threads.cpu_times()
    assert later[0] > now and later[2] > own
    if machine is not None:
        assert later[1] >= machine


def test_fixed_count_and_product_sets_the_blas_pool():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.ones((4, 2), np.float32)
    threads.set_blas_threads(1)
    np.testing.assert_array_equal(threads.product(a, b), np.array([[6, 6], [22, 22], [38, 38]]))
    assert _blas_threads() == {1}
    assert threads.threads_for(10**15) == 1


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2"])
def test_set_blas_threads_refuses_non_positive_integers(bad):
    with pytest.raises((ValueError, TypeError), match="positive integer|not supported"):
        threads.set_blas_threads(bad)


@pytest.mark.parametrize("value", ["0", "two"])
def test_environment_count_must_be_positive(monkeypatch, value):
    monkeypatch.setenv("COLONNADE_BLAS_THREADS", value)
    with pytest.raises(ValueError, match="COLONNADE_BLAS_THREADS must be a positive integer"):
        threads.blas_threads_from_environment()


def test_environment_count_is_read(monkeypatch):
    monkeypatch.setenv("COLONNADE_BLAS_THREADS", "3")
    assert threads.blas_threads_from_environment() == 3
    monkeypatch.delenv("COLONNADE_BLAS_THREADS")
    assert threads.blas_threads_from_environment() is None


def test_dense_layer_products_go_through_the_chosen_count():
    import colonnade as cn

    threads.set_blas_threads(2)
    threads.product(np.ones((2, 2)), np.ones((2, 2)))
    threads.set_blas_threads(1)
    x = cn.core.as_tensor(np.ones((8, 3), np.float32))
    w = cn.core.as_tensor(np.full((3, 2), 0.5, np.float32))
    out = cn.core.nn.dense(x, w)
    np.testing.assert_allclose(out.value, np.full((8, 2), 1.5))
    assert _blas_threads() == {1}
