"""TensorFlow's string and cross hashes, vectorized over Arrow data with numpy ``uint64``.

Hash ids are what an embedding table's rows mean, so they must be exactly TensorFlow's:

- ``Fingerprint64`` is FarmHash's ``Fingerprint64`` (``farmhashna::Hash64``), which
  ``tf.strings.to_hash_bucket_fast`` and ``categorical_column_with_hash_bucket`` use.
  :func:`fingerprint64` computes it for a whole Arrow string array at once, straight
  from the array's offsets and bytes: every step is a numpy ``uint64`` operation over all
  strings of one length class, so no Python string is ever made and numpy releases the
  GIL (two threads hash two columns at once). The ``pyfarmhash`` package is the reference
  the tests check it against.
- ``FingerprintCat64`` (``tensorflow/core/platform/fingerprint.h``) folds the hashes of
  crossed features together; :func:`fingerprint_cat64` is its vectorized form.

All arithmetic is modulo 2**64, which numpy's unsigned integers do natively.

>>> import pyarrow as pa
>>> fingerprint64(pa.array(["hello", ""])).tolist()
[13009744463427800296, 11160318154034397263]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "DEFAULT_HASH_KEY",
    "fingerprint64",
    "fingerprint_cat64",
    "hash_bucket_ids",
]

_U64 = np.uint64

# FarmHash's primes (farmhash.cc) and TensorFlow's FingerprintCat64 multiplier.
_K0 = _U64(0xC3A5C85C97CB3127)
_K1 = _U64(0xB492B66FBE98F273)
_K2 = _U64(0x9AE16A3B2F90404F)
_KMUL = _U64(0xC6A4A7935BD1E995)

DEFAULT_HASH_KEY = 0xDECAFCAFFE
"""TensorFlow's default ``hash_key`` for crossed columns (``sparse_ops._DEFAULT_HASH_KEY``)."""

_S47 = _U64(47)


def _rotate(v, shift: int):
    """Rotate right by ``shift`` bits (farmhash's ``Rotate64``, shift in 1..63)."""
    return (v >> _U64(shift)) | (v << _U64(64 - shift))


def _shift_mix(v):
    return v ^ (v >> _S47)


def _hash_len16(u, v, mul):
    a = (u ^ v) * mul
    a = a ^ (a >> _S47)
    b = (v ^ a) * mul
    b = b ^ (b >> _S47)
    return b * mul


class _Bytes:
    """Little-endian unaligned loads at arbitrary byte offsets of one buffer.

    ``fetch64(pos)`` reads the 8 bytes starting at each position in ``pos``: a strided
    view whose element ``i`` starts at byte ``i`` makes it a single numpy gather.
    """

    def __init__(self, data: np.ndarray):
        padded = np.zeros(data.shape[0] + 8, dtype=np.uint8)
        padded[: data.shape[0]] = data
        self.u8 = padded
        count = data.shape[0] + 1
        self.u64 = np.ndarray((count,), dtype="<u8", buffer=padded, strides=(1,))
        self.u32 = np.ndarray((count,), dtype="<u4", buffer=padded, strides=(1,))

    def fetch64(self, pos):
        return self.u64[pos].astype(_U64, copy=False)

    def fetch32(self, pos):
        return self.u32[pos].astype(_U64)

    def byte(self, pos):
        return self.u8[pos].astype(_U64)


def _len0to16(buf: _Bytes, s, n):
    out = np.full(s.shape[0], _K2, dtype=_U64)
    un = n.astype(_U64)
    ge8 = n >= 8
    if ge8.any():
        ss, nn = s[ge8], un[ge8]
        mul = _K2 + nn * _U64(2)
        a = buf.fetch64(ss) + _K2
        b = buf.fetch64(ss + n[ge8] - 8)
        c = _rotate(b, 37) * mul + a
        d = (_rotate(a, 25) + b) * mul
        out[ge8] = _hash_len16(c, d, mul)
    ge4 = (n >= 4) & ~ge8
    if ge4.any():
        ss, nn = s[ge4], un[ge4]
        mul = _K2 + nn * _U64(2)
        a = buf.fetch32(ss)
        out[ge4] = _hash_len16(nn + (a << _U64(3)), buf.fetch32(ss + n[ge4] - 4), mul)
    ge1 = (n > 0) & (n < 4)
    if ge1.any():
        ss, ni = s[ge1], n[ge1]
        a = buf.byte(ss)
        b = buf.byte(ss + (ni >> 1))
        c = buf.byte(ss + ni - 1)
        y = a + (b << _U64(8))
        z = ni.astype(_U64) + (c << _U64(2))
        out[ge1] = _shift_mix(y * _K2 ^ z * _K0) * _K2
    return out


def _mix_ends(buf: _Bytes, s, n, first_multiplier):
    """``(mul, a, y, x)``: the mix of a string's first and last 16 bytes that farmhash's
    17-32 and 33-64 byte paths both start with (``a`` is the first word times
    ``first_multiplier``, ``_K1`` or ``_K2``)."""
    mul = _K2 + n.astype(_U64) * _U64(2)
    a = buf.fetch64(s) * first_multiplier
    b = buf.fetch64(s + 8)
    c = buf.fetch64(s + n - 8) * mul
    d = buf.fetch64(s + n - 16) * _K2
    return mul, a, _rotate(a + b, 43) + _rotate(c, 30) + d, a + _rotate(b + _K2, 18) + c


def _len17to32(buf: _Bytes, s, n):
    mul, _, y, x = _mix_ends(buf, s, n, _K1)
    return _hash_len16(y, x, mul)


def _len33to64(buf: _Bytes, s, n):
    mul, a, y, x = _mix_ends(buf, s, n, _K2)
    z = _hash_len16(y, x, mul)
    e = buf.fetch64(s + 16) * mul
    f = buf.fetch64(s + 24)
    g = (y + buf.fetch64(s + n - 32)) * mul
    h = (z + buf.fetch64(s + n - 24)) * mul
    return _hash_len16(_rotate(e + f, 43) + _rotate(g, 30) + h, e + _rotate(f + a, 18) + g, mul)


def _weak_hash_len32_with_seeds(buf: _Bytes, s, a, b):
    w, x, y, z = buf.fetch64(s), buf.fetch64(s + 8), buf.fetch64(s + 16), buf.fetch64(s + 24)
    a = a + w
    b = _rotate(b + a + z, 21)
    c = a
    a = a + x
    a = a + y
    b = b + _rotate(a, 44)
    return a + z, b + c


def _len_over64(buf: _Bytes, s, n):
    """Strings longer than 64 bytes: farmhash's 64-byte block loop, run for all at once.

    Each string takes ``(n - 1) // 64`` blocks; iteration ``j`` updates only the strings
    that still have a block ``j``.
    """
    count = s.shape[0]
    seed = _U64(81)  # farmhashna::Hash64's seed for long strings
    x = np.full(count, seed, dtype=_U64)
    y = x * _K1 + _U64(113)
    z = _shift_mix(y * _K2 + _U64(113)) * _K2
    v0 = np.zeros(count, _U64)
    v1 = np.zeros(count, _U64)
    w0 = np.zeros(count, _U64)
    w1 = np.zeros(count, _U64)
    x = x * _K2 + buf.fetch64(s)
    blocks = (n - 1) // 64
    for j in range(int(blocks.max())):
        act = np.flatnonzero(blocks > j)
        p = s[act] + 64 * j
        xa, ya, za = x[act], y[act], z[act]
        v0a, v1a, w0a, w1a = v0[act], v1[act], w0[act], w1[act]
        xa = _rotate(xa + ya + v0a + buf.fetch64(p + 8), 37) * _K1
        ya = _rotate(ya + v1a + buf.fetch64(p + 48), 42) * _K1
        xa = xa ^ w1a
        ya = ya + v0a + buf.fetch64(p + 40)
        za = _rotate(za + w0a, 33) * _K1
        v0a, v1a = _weak_hash_len32_with_seeds(buf, p, v1a * _K1, xa + w0a)
        w0a, w1a = _weak_hash_len32_with_seeds(buf, p + 32, za + w1a, ya + buf.fetch64(p + 16))
        x[act], y[act], z[act] = za, ya, xa  # std::swap(z, x)
        v0[act], v1[act], w0[act], w1[act] = v0a, v1a, w0a, w1a
    mul = _K1 + ((z & _U64(0xFF)) << _U64(1))
    p = s + n - 64  # the last 64 bytes
    w0 = w0 + ((n - 1) & 63).astype(_U64)
    v0 = v0 + w0
    w0 = w0 + v0
    x = _rotate(x + y + v0 + buf.fetch64(p + 8), 37) * mul
    y = _rotate(y + v1 + buf.fetch64(p + 48), 42) * mul
    x = x ^ (w1 * _U64(9))
    y = y + v0 * _U64(9) + buf.fetch64(p + 40)
    z = _rotate(z + w0, 33) * mul
    v0, v1 = _weak_hash_len32_with_seeds(buf, p, v1 * mul, x + w0)
    w0, w1 = _weak_hash_len32_with_seeds(buf, p + 32, z + w1, y + buf.fetch64(p + 16))
    x, z = z, x
    return _hash_len16(
        _hash_len16(v0, w0, mul) + _shift_mix(y) * _K0 + z,
        _hash_len16(v1, w1, mul) + x,
        mul,
    )


def _as_string_array(values) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = pa.array(values, type=pa.string())
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if pa.types.is_string_view(values.type) or pa.types.is_binary_view(values.type):
        values = values.cast(pa.large_binary())
    if not (
        pa.types.is_string(values.type)
        or pa.types.is_large_string(values.type)
        or pa.types.is_binary(values.type)
        or pa.types.is_large_binary(values.type)
    ):
        raise TypeError(f"fingerprint64 needs strings or binary values, got Arrow {values.type}")
    return values


def fingerprint64(values) -> np.ndarray:
    """FarmHash ``Fingerprint64`` of each UTF-8 string, as a ``uint64`` numpy array.

    ``values`` is an Arrow string/binary array (plain, large, view or dictionary-typed) or
    a list of Python strings. Nulls hash as the empty string; callers drop them first.
    The result equals ``farmhash.fingerprint64`` (and TensorFlow's ``Fingerprint64``).

    >>> fingerprint64(["a", "b"]).tolist()
    [12917804110809363939, 11795596070477164822]
    """
    arr = _as_string_array(values)
    count = len(arr)
    if count == 0:
        return np.zeros(0, dtype=_U64)
    if count <= _SMALL:
        return _fingerprint64_small(arr)
    return _fingerprint64_vectorized(arr)


_SMALL = 64
"""Arrays of at most this many strings are hashed through :data:`_small_memo`: the
vectorized path costs some 80 numpy calls whatever the size, which is most of a one-row
request's time when serving."""
_SMALL_MEMO_SIZE = 1 << 16
_small_memo: dict = {}  # str or bytes -> its Fingerprint64; cleared when full


def _fingerprint64_small(arr: pa.Array) -> np.ndarray:
    values = ["" if v is None else v for v in arr.to_pylist()]
    hashes = [_small_memo.get(v) for v in values]
    missing = list(dict.fromkeys(v for v, h in zip(values, hashes) if h is None))
    if missing:
        computed = _fingerprint64_vectorized(pa.array(missing, type=arr.type)).tolist()
        if len(_small_memo) + len(missing) > _SMALL_MEMO_SIZE:
            _small_memo.clear()
        _small_memo.update(zip(missing, computed))
        found = dict(zip(missing, computed))
        hashes = [found[v] if h is None else h for v, h in zip(values, hashes)]
    return np.array(hashes, dtype=_U64)


def _fingerprint64_vectorized(arr: pa.Array) -> np.ndarray:
    count = len(arr)
    large = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    _, offsets_buf, data_buf = arr.buffers()
    off_type = np.int64 if large else np.int32
    offsets = np.frombuffer(offsets_buf, dtype=off_type, count=arr.offset + count + 1)
    offsets = offsets[arr.offset :].astype(np.int64)
    start = offsets[:-1]
    length = offsets[1:] - start
    if data_buf is None or offsets[-1] == offsets[0]:
        data = np.zeros(0, dtype=np.uint8)
    else:
        data = np.frombuffer(data_buf, dtype=np.uint8, count=int(offsets[-1]))
    buf = _Bytes(data)
    out = np.empty(count, dtype=_U64)
    classes = (
        (length <= 16, _len0to16),
        ((length > 16) & (length <= 32), _len17to32),
        ((length > 32) & (length <= 64), _len33to64),
        (length > 64, _len_over64),
    )
    for mask, fn in classes:
        if mask.all():
            out[:] = fn(buf, start, length)
        elif mask.any():
            out[mask] = fn(buf, start[mask], length[mask])
    return out


def fingerprint_cat64(fp1, fp2) -> np.ndarray:
    """TensorFlow's ``FingerprintCat64(fp1, fp2)``: fold fingerprint ``fp2`` into ``fp1``.

    Elementwise over ``uint64`` arrays (or numbers); this is how ``crossed_column`` combines
    its keys, starting from ``hash_key``.

    >>> int(fingerprint_cat64(DEFAULT_HASH_KEY, 3)) == int(fingerprint_cat64(
    ...     np.uint64(DEFAULT_HASH_KEY), np.uint64(3)))
    True
    """
    fp1, fp2 = np.broadcast_arrays(np.asarray(fp1, dtype=_U64), np.asarray(fp2, dtype=_U64))
    shape = fp1.shape
    # 1-D arrays, never numpy scalars: scalar uint64 arithmetic warns on wrap-around.
    fp1, fp2 = fp1.reshape(-1), fp2.reshape(-1)
    result = fp1 ^ _KMUL
    result = result ^ (_shift_mix(fp2 * _KMUL) * _KMUL)
    result = result * _KMUL
    result = _shift_mix(result) * _KMUL
    return _shift_mix(result).reshape(shape)


def hash_bucket_ids(values, num_buckets: int) -> np.ndarray:
    """``Fingerprint64(value) % num_buckets`` as int64: TensorFlow's
    ``to_hash_bucket_fast``. Integer arrays are hashed through their decimal strings.

    >>> hash_bucket_ids(["a", "b"], 10).tolist()
    [9, 2]
    """
    if isinstance(values, (pa.Array, pa.ChunkedArray)) and pa.types.is_integer(values.type):
        values = pc.cast(values, pa.string())
    elif isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        values = pc.cast(pa.array(values), pa.string())
    return (fingerprint64(values) % _U64(num_buckets)).astype(np.int64)
