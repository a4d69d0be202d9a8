"""The array backend: numpy always, cupy when it is installed and a GPU is present.

Every array operation in colonnade goes through this module, so the same code runs on
either. The process-wide default (``set_backend``) decides where *new* arrays are made;
``get_xp(*arrays)`` asks existing data which module it lives on, the way
``cupy.get_array_module`` does. cupy is imported lazily, never at module import.

>>> import colonnade as cn
>>> cn.core.get_backend()
'numpy'
>>> cn.core.get_xp(np.zeros(3)) is np
True
"""

from __future__ import annotations

import ctypes
import os
import sys

import numpy as np

DEFAULT_DTYPE = np.float32
"""Floating dtype of new variables and data unless asked otherwise (float64 works too)."""

_state = {"name": "numpy", "xp": np}

# glibc returns freed blocks over its (dynamic) mmap threshold to the kernel at once, so a
# training step that frees and re-allocates its activations pays for fresh zeroed pages
# every step, a large share of an MLP step's time. Keeping up to these sizes in the process
# heap removes that churn; it is what framework caching allocators do.
MALLOC_MMAP_THRESHOLD = 64 << 20
MALLOC_TRIM_THRESHOLD = 256 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameter numbers


def tune_allocator() -> bool:
    """Keep freed array memory in the process (glibc only); True if applied.

    Called on import of ``colonnade.core``; set the environment variable
    ``COLONNADE_TUNE_MALLOC=0`` to leave the allocator alone.
    """
    if os.environ.get("COLONNADE_TUNE_MALLOC", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (e.g. musl)
        return False
    ok = mallopt(_M_MMAP_THRESHOLD, MALLOC_MMAP_THRESHOLD)
    return bool(ok and mallopt(_M_TRIM_THRESHOLD, MALLOC_TRIM_THRESHOLD))


def _import_cupy():
    try:
        import cupy
    except ImportError as e:
        raise RuntimeError(
            "backend 'cupy' needs the cupy package and a CUDA GPU; "
            "install it with `pip install colonnade[gpu]`"
        ) from e
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
    except Exception as e:  # cupy raises its own CUDARuntimeError without a driver
        raise RuntimeError(f"backend 'cupy' needs a CUDA GPU, but none is usable: {e}") from e
    return cupy


def set_backend(name: str) -> None:
    """Make ``"numpy"`` or ``"cupy"`` the module new arrays are created with."""
    if name == "numpy":
        _state.update(name="numpy", xp=np)
    elif name == "cupy":
        _state.update(name="cupy", xp=_import_cupy())
    else:
        raise ValueError(f"backend must be 'numpy' or 'cupy', got {name!r}")


def get_backend() -> str:
    """The name of the current default backend: ``"numpy"`` or ``"cupy"``."""
    return _state["name"]


def default_xp():
    """The array module of the current default backend."""
    return _state["xp"]


def cupy_available() -> bool:
    """True when cupy imports and sees at least one GPU."""
    try:
        _import_cupy()
    except RuntimeError:
        return False
    return True


_NEUTRAL = (int, float, bool, list, tuple)


def _module_of(a):
    module = type(a).__module__
    if module.startswith("cupy"):
        return "cupy"
    return "numpy"


def get_xp(*arrays):
    """The array module (numpy or cupy) that ``arrays`` live on.

    Python scalars, lists and ``None`` are neutral. With no array among the arguments the
    default backend's module is returned. Mixing numpy and cupy arrays is an error: it
    would copy silently between host and device.
    """
    found = None
    for a in arrays:
        if type(a) is np.ndarray:  # the common case, first: one check per argument
            kind = "numpy"
        elif a is None or isinstance(a, _NEUTRAL):
            continue
        else:
            a = getattr(a, "value", a)  # Tensor, Variable
            if not hasattr(a, "shape"):
                continue
            kind = _module_of(a)
        if found is None:
            found = kind
        elif kind != found:
            raise TypeError(
                f"cannot mix numpy and cupy arrays in one operation (got a {found} array and a "
                f"{kind} array); move them to one device with colonnade.core.to_device"
            )
    if found == "cupy":
        import cupy

        return cupy
    if found == "numpy":
        return np
    return _state["xp"]


def to_host(a) -> np.ndarray:
    """A numpy copy (or view) of ``a``, wherever it lives."""
    a = getattr(a, "value", a)
    if _module_of(a) == "cupy":
        return a.get()
    return np.asarray(a)


def to_device(a, xp=None, dtype=None):
    """``a`` as an array of ``xp`` (default: the current backend), copying only if needed.

    This is the one place host/device copies happen.
    """
    xp = xp or _state["xp"]
    a = getattr(a, "value", a)
    if xp is np:
        return np.asarray(to_host(a) if _module_of(a) == "cupy" else a, dtype=dtype)
    return xp.asarray(a, dtype=dtype)


def scatter_add(target, indices, values) -> None:
    """``target[indices] += values`` in place, adding duplicate indices up."""
    xp = get_xp(target, values)
    if xp is np:
        np.add.at(target, indices, values)
    else:
        import cupyx

        cupyx.scatter_add(target, indices, values)


def segment_sum_array(data, segment_ids, num_segments: int):
    """Sum the rows of ``data`` that share a segment id into ``(num_segments, ...)``.

    Sorted ids (the usual case for ragged rows) take numpy's ``reduceat`` fast path.
    """
    xp = get_xp(data, segment_ids)
    out = xp.zeros((num_segments,) + tuple(data.shape[1:]), dtype=data.dtype)
    if data.shape[0] == 0:
        return out
    if xp is np and segment_ids.size and bool(np.all(segment_ids[1:] >= segment_ids[:-1])):
        starts = np.flatnonzero(np.r_[True, segment_ids[1:] != segment_ids[:-1]])
        out[segment_ids[starts]] = np.add.reduceat(data, starts, axis=0)
        return out
    scatter_add(out, segment_ids, data)
    return out


def _as_row_items(a: np.ndarray):
    """``a`` (C-contiguous numpy, rows of at least one byte) seen as a 1-D array with
    one opaque item per row, else ``None``: numpy's one-dimensional ``take`` and ``put``
    then copy whole rows as single items."""
    if a.ndim < 1 or not a.flags.c_contiguous or a.dtype.hasobject or a.shape[0] == 0:
        return None
    row_bytes = a.itemsize * (a.size // a.shape[0])
    if row_bytes == 0:
        return None
    return a.reshape(a.shape[0], -1).view(np.dtype((np.void, row_bytes))).reshape(-1)


def take_rows(table, rows):
    """``table[rows]`` for an integer array ``rows`` (``take`` along axis 0): shape
    ``rows.shape + table.shape[1:]``.

    A C-contiguous numpy table is read as one item per row (see ``put_rows``): the same
    bytes as fancy indexing, ~10% sooner at an embedding gather's shapes (26,624 rows of
    16 floats from a 3.3M-row table).

    >>> take_rows(np.arange(6.0).reshape(3, 2), np.array([2, 0])).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """
    items = _as_row_items(table) if type(table) is np.ndarray else None
    if items is None:
        return get_xp(table).take(table, rows, axis=0)
    picked = items.take(rows.reshape(-1)).view(table.dtype)
    return picked.reshape(rows.shape + table.shape[1:])


def put_rows(table, rows, values) -> None:
    """``table[rows] = values`` in place, for 1-D integer ``rows`` without repeats and
    ``values`` of shape ``(len(rows),) + table.shape[1:]``: how a sparse update writes
    back the rows it changed.

    A C-contiguous numpy table with values of its dtype is written through ``np.put``
    on one item per row: the same bytes as fancy assignment, which numpy does element
    by element, in ~40% of its time at a sparse Adagrad's shapes (6,873 rows of 16 floats
    of a 3.3M-row table). Anything else takes fancy assignment.

    >>> table = np.zeros((3, 2))
    >>> put_rows(table, np.array([2]), np.array([[1.0, 2.0]]))
    >>> table.tolist()
    [[0.0, 0.0], [0.0, 0.0], [1.0, 2.0]]
    """
    items = None
    if (
        type(table) is np.ndarray
        and type(values) is np.ndarray
        and rows.ndim == 1
        and rows.dtype.kind == "i"  # np.put refuses uint64 indices, fancy assignment not
        and values.dtype == table.dtype
        and values.shape == (rows.shape[0],) + table.shape[1:]
    ):
        items = _as_row_items(table)
    if items is None or rows.shape[0] == 0:
        table[rows] = values
        return
    np.put(items, rows, _as_row_items(np.ascontiguousarray(values)))
