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


def test_small_products_use_one_thread():
    threads.set_blas_threads(None)
    assert threads.threads_for(2 * 1024 * 256 * 128) == 1
    assert threads.threads_for(threads.MIN_FLOPS_PER_THREAD) == 1


def test_threads_never_exceed_the_cpu_share_less_one(monkeypatch):
    threads.set_blas_threads(None)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(threads.os, "cpu_count", lambda: 64)
    threads.set_cpu_share(4)
    huge = 1000 * threads.MIN_FLOPS_PER_THREAD
    assert threads.threads_for(huge) == 3
    assert threads.threads_for(3 * threads.MIN_FLOPS_PER_THREAD) == 3
    assert threads.threads_for(2 * threads.MIN_FLOPS_PER_THREAD) == 2
    threads.set_cpu_share(2)
    assert threads.threads_for(huge) == 1
    threads.set_cpu_share(0)  # a Ray worker given no CPU: one thread
    assert threads.cpu_share() == 1 and threads.threads_for(huge) == 1


def test_a_busy_machine_gets_one_thread(monkeypatch):
    threads.set_blas_threads(None)
    monkeypatch.setattr(threads.os, "cpu_count", lambda: 16)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    threads.set_cpu_share(16)
    assert threads.threads_for(1000 * threads.MIN_FLOPS_PER_THREAD) == 15
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (17.0, 17.0, 17.0))
    threads.set_cpu_share(16)  # reads the load again
    assert threads.threads_for(1000 * threads.MIN_FLOPS_PER_THREAD) == 1


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
