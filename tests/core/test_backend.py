"""The backend switch; numpy always, cupy only where a GPU is present."""

import itertools

import numpy as np
import pytest

import colonnade as cn

C = cn.core
needs_gpu = pytest.mark.skipif(
    not C.cupy_available(), reason="cupy with a CUDA GPU is not available on this machine"
)


class FakeCupyArray:
    """Looks like a cupy array to get_xp, which decides by the type's module."""

    __module__ = "cupy._core.core"
    shape = (2,)


def test_default_backend_is_numpy():
    assert C.get_backend() == "numpy"
    assert C.get_xp(np.zeros(2), 3.0, None) is np
    assert C.get_xp() is np


def test_mixing_numpy_and_cupy_raises_type_error_naming_both():
    with pytest.raises(TypeError, match="numpy array and a cupy array"):
        C.get_xp(np.zeros(2), FakeCupyArray())


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="'numpy' or 'cupy'"):
        C.set_backend("jax")


@pytest.mark.skipif(C.cupy_available(), reason="this machine has a GPU")
def test_cupy_backend_without_gpu_says_why():
    with pytest.raises(RuntimeError, match="cupy"):
        C.set_backend("cupy")
    assert C.get_backend() == "numpy"


def test_host_copies():
    x = np.arange(3.0)
    assert C.to_host(x) is x
    assert C.to_device(x, np).dtype == np.float64
    assert C.to_device(x, np, dtype=np.float32).dtype == np.float32


@needs_gpu
def test_cupy_forward_and_backward_match_numpy():
    import cupy

    C.set_backend("cupy")
    try:
        rng = np.random.default_rng(0)
        w_host = rng.normal(size=(4, 3)).astype(np.float32)
        x_host = rng.normal(size=(5, 4)).astype(np.float32)
        table_host = rng.normal(size=(10, 3)).astype(np.float32)
        ids = np.array([1, 1, 7])
        w, table = C.Variable(w_host), C.Variable(table_host)
        assert isinstance(w.value, cupy.ndarray)
        x = cupy.asarray(x_host)
        loss, (gw, gt) = C.value_and_grad(
            lambda: C.sum(C.sigmoid(x @ w)) + C.sum(C.gather(table, cupy.asarray(ids)))
        )([w, table])
        s = 1 / (1 + np.exp(-(x_host @ w_host)))
        np.testing.assert_allclose(C.to_host(gw), x_host.T @ (s * (1 - s)), rtol=1e-5)
        dense = np.zeros_like(table_host)
        np.add.at(dense, ids, 1.0)
        np.testing.assert_allclose(C.to_host(gt.to_dense()), dense)
        with pytest.raises(TypeError, match="cannot mix"):
            C.add(np.ones(3, np.float32), cupy.ones(3, np.float32))
    finally:
        C.set_backend("numpy")


def test_allocator_tuning_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("COLONNADE_TUNE_MALLOC", "0")
    assert C.tune_allocator() is False
    monkeypatch.setenv("COLONNADE_TUNE_MALLOC", "1")
    import platform
    import sys

    on_glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert C.tune_allocator() is on_glibc


ROW_TABLES = [
    np.arange(60, dtype=np.float32).reshape(20, 3),
    np.arange(20, dtype=np.float64).reshape(20, 1),
    np.arange(20, dtype=np.int64),
    np.arange(80, dtype=np.float32).reshape(20, 2, 2),
    np.arange(120, dtype=np.float32).reshape(20, 6)[:, ::2],  # not contiguous: fancy path
]


@pytest.mark.parametrize("table", ROW_TABLES, ids=lambda t: f"{t.dtype}{t.shape}")
def test_take_rows_equals_fancy_indexing(table):
    from colonnade.core.backend import take_rows

    for rows in (
        np.array([3, 0, 19, 3, -1]),
        np.array([3, 0, 19], np.uint64),
        np.array([[1, 2], [2, 1]]),
        np.array([], np.int64),
    ):
        got = take_rows(table, rows)
        assert got.shape == table[rows].shape and got.dtype == table.dtype
        np.testing.assert_array_equal(got, table[rows])
    with pytest.raises(IndexError):
        take_rows(table, np.array([20]))


@pytest.mark.parametrize("table", ROW_TABLES, ids=lambda t: f"{t.dtype}{t.shape}")
def test_put_rows_equals_fancy_assignment(table):
    from colonnade.core.backend import put_rows

    rng = np.random.default_rng(0)
    for rows, values in itertools.product(
        (np.array([7, 0, 19]), np.array([7, 0, 19], np.uint64)),
        (
            rng.normal(size=(3,) + table.shape[1:]).astype(table.dtype),
            rng.normal(size=(3,) + table.shape[1:]),  # another dtype: fancy path, cast as it
            np.full(table.shape[1:], 5, table.dtype),  # broadcast: fancy path
        ),
    ):
        expected, got = table.copy(), table.copy()
        expected[rows] = values
        put_rows(got, rows, values)
        np.testing.assert_array_equal(got, expected)
    view = table.copy()[::2]  # a strided view of a parent: written through, as fancy does
    parent = view.base
    put_rows(view, np.array([1]), np.zeros((1,) + table.shape[1:], table.dtype))
    assert not view[1].any() and not parent[2].any()
    with pytest.raises(IndexError):
        put_rows(table.copy(), np.array([20]), table[:1].copy())
