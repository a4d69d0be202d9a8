"""Writing TensorFlow checkpoints (TF's tensor-bundle format) without TensorFlow.

The inverse of :mod:`colonnade.core.tf_bundle`'s reader, for what an estimator that took
over a TF model_dir saves there, so that TF can still read the directory:
``PREFIX.data-00000-of-00001`` holds the tensors back to back, and ``PREFIX.index`` a
LevelDB table of one data block (the empty key's ``BundleHeaderProto``, then each name's
``BundleEntryProto``: dtype, shape, offset, size and the masked CRC32C of the bytes,
sorted by name), an index block locating it, an empty metaindex block and the footer.
Every tensor is whole (no slices) in one shard, little-endian, as TF writes on x86.
Numeric and bool tensors only: strings are refused naming the tensor.

>>> import tempfile, numpy as np
>>> from colonnade.core.tf_bundle import TFCheckpointReader
>>> prefix = tempfile.mkdtemp() + "/model.ckpt-3"
>>> write_tf_bundle(prefix, {"w": np.arange(3, dtype=np.float32), "global_step": np.int64(3)})
>>> reader = TFCheckpointReader(prefix)
>>> sorted(reader.get_variable_to_shape_map().items()), reader.get_tensor("w").tolist()
([('global_step', []), ('w', [3])], [0.0, 1.0, 2.0])
"""

from __future__ import annotations

import os
import struct

import numpy as np

from .atomic_files import write_bytes_atomic
from .crc import masked_crc
from .tf_bundle import BUNDLE_VERSION, INDEX_SUFFIX, NUMPY_DTYPES
from .tf_bundle_index import TABLE_MAGIC
from .wire_format import length_delimited, varint

__all__ = ["write_tf_bundle"]

DATA_SUFFIX = ".data-00000-of-00001"
_TF_DTYPES = {np.dtype(t): code for code, t in NUMPY_DTYPES.items()}
_FOOTER_HANDLES_SIZE = 40  # two block handles, padded: the footer is 48 bytes with the magic


def _field(number: int, value) -> bytes:
    """One protobuf field: an int as a varint, bytes length-delimited."""
    if isinstance(value, bytes):
        return length_delimited(number, value)
    return varint(number << 3) + varint(int(value))


def _entry(dtype: int, shape: tuple, offset: int, data: bytes) -> bytes:
    """A ``BundleEntryProto`` (shard 0; fields left out where they are 0, as protobuf)."""
    dims = b"".join(_field(2, _field(1, size) if size else b"") for size in shape)
    out = _field(1, dtype) + (_field(2, dims) if dims else b"")
    if offset:
        out += _field(4, offset)
    if data:
        out += _field(5, len(data))
    return out + varint(6 << 3 | 5) + struct.pack("<I", masked_crc(data))


def _header() -> bytes:
    """A ``BundleHeaderProto``: one shard, little-endian, TF's bundle version."""
    return _field(1, 1) + _field(3, _field(1, BUNDLE_VERSION))


def _block(entries: list) -> bytes:
    """A table block of ``(key, value)`` entries, each a restart point (keys whole)."""
    body, restarts = bytearray(), []
    for key, value in entries:
        restarts.append(len(body))
        body += varint(0) + varint(len(key)) + varint(len(value)) + key + value
    restarts = restarts or [0]
    body += b"".join(struct.pack("<I", r) for r in restarts)
    return bytes(body + struct.pack("<I", len(restarts)))


def _with_trailer(block: bytes) -> bytes:
    """The block, its type byte (0: not compressed) and their masked CRC32C."""
    stored = block + b"\x00"
    return stored + struct.pack("<I", masked_crc(stored))


def _handle(offset: int, size: int) -> bytes:
    return varint(offset) + varint(size)


def _tensor_bytes(name: str, value) -> tuple:
    array = np.asarray(value)
    dtype = array.dtype.newbyteorder("<") if array.dtype.byteorder == ">" else array.dtype
    code = _TF_DTYPES.get(np.dtype(dtype.str.replace(">", "<")))
    if code is None:
        raise TypeError(
            f"tensor {name!r} has dtype {array.dtype}; a TF bundle is written with numeric "
            f"or bool tensors only ({sorted(str(d) for d in _TF_DTYPES)})"
        )
    return code, array.shape, np.ascontiguousarray(array, dtype.newbyteorder("<")).tobytes()


def write_tf_bundle(prefix, tensors: dict) -> None:
    """Write ``tensors`` (``{name: array}``) as TF checkpoint ``prefix``: the data file
    first, then the index, each atomically, so a reader finds the whole checkpoint or
    no ``PREFIX.index`` (what makes it a checkpoint)."""
    prefix = os.fspath(prefix)
    data, entries = bytearray(), [(b"", _header())]
    for name in sorted(tensors):
        code, shape, raw = _tensor_bytes(name, tensors[name])
        entries.append((name.encode(), _entry(code, shape, len(data), raw)))
        data += raw
    block = _block(entries)
    index = bytearray(_with_trailer(block))
    meta_offset = len(index)
    meta = _block([])
    index += _with_trailer(meta)
    index_offset = len(index)
    index_block = _block([(entries[-1][0], _handle(0, len(block)))])
    index += _with_trailer(index_block)
    handles = _handle(meta_offset, len(meta)) + _handle(index_offset, len(index_block))
    index += handles.ljust(_FOOTER_HANDLES_SIZE, b"\x00") + struct.pack("<Q", TABLE_MAGIC)
    os.makedirs(os.path.dirname(prefix) or ".", exist_ok=True)
    write_bytes_atomic(prefix + DATA_SUFFIX, bytes(data))
    write_bytes_atomic(prefix + INDEX_SUFFIX, bytes(index))
