"""TFRecord files: reading and writing the record framing, optionally GZIP/ZLIB compressed.

A TFRecord file is a run of records, each::

    uint64 length              (little-endian)
    uint32 masked_crc(length)  CRC32C of those 8 bytes, masked
    bytes  data[length]
    uint32 masked_crc(data)

with ``masked_crc`` TF's masked CRC32C (Castagnoli) checksum (:mod:`colonnade.core.crc`).
A compressed file is the whole stream compressed (``GZIP``: gzip format, ``ZLIB``: zlib
format). Every checksum is checked when reading; a corrupt or truncated record raises
:class:`DataLossError` naming the file and the byte offset of the record (in the
decompressed stream for a compressed file).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
>>> with TFRecordWriter(path, "GZIP") as writer:
...     writer.write(b"hello")
...     writer.write(b"world")
>>> list(tf_record_iterator(path, "GZIP"))
[b'hello', b'world']
"""

from __future__ import annotations

import enum
import gzip
import os
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

import google_crc32c
import numpy as np

from ..core.crc import mask_crc, masked_crc
from .wire import PADDING

__all__ = [
    "DataLossError",
    "RecordChunk",
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "read_record_chunks",
    "tf_record_iterator",
]

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
HEADER_BYTES = 12
FOOTER_BYTES = 4

# Bytes read from the file (after decompression) per chunk: records are framed and
# parsed a chunk at a time, so memory stays about this size per reader.
CHUNK_BYTES = 4 << 20
# The largest record read (2 GiB, protobuf's own limit on a message such as a tf.Example):
# a bound on what a hostile or corrupt length, or a compression bomb, can make a reader
# hold.
MAX_RECORD_BYTES = (1 << 31) - 1

COMPRESSION_TYPES = ("", "GZIP", "ZLIB")


class DataLossError(OSError):
    """A TFRecord file is corrupt or truncated (TF's ``tf.errors.DataLossError``).

    ``path`` and ``offset`` say where: the byte offset of the bad record's header.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "bad.tfrecord")
    >>> _ = open(path, "wb").write(b"not a tfrecord file")
    >>> list(tf_record_iterator(path))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    colonnade.data.tfrecord.DataLossError: corrupted record: ... at byte offset 0 of '...'
    """

    def __init__(self, path, offset, reason):
        super().__init__(f"{reason} in record at byte offset {offset} of '{path}'")
        self.path = path
        self.offset = offset


class TFRecordCompressionType(enum.IntEnum):
    """TF 1's ``tf.compat.v1.io.TFRecordCompressionType`` constants, which
    :class:`TFRecordOptions` and the readers and writers take as the names they stand for.

    >>> TFRecordOptions(TFRecordCompressionType.GZIP).compression_type
    'GZIP'
    """

    NONE = 0
    ZLIB = 1
    GZIP = 2


@dataclass(frozen=True)
class TFRecordOptions:
    """Options of a TFRecord file (TF's ``tf.io.TFRecordOptions``): ``compression_type``
    ``None``/``""`` (none), ``"GZIP"`` or ``"ZLIB"``.

    >>> TFRecordOptions("gzip").compression_type
    'GZIP'
    """

    compression_type: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "compression_type", compression_name(self.compression_type))


def compression_name(value) -> str:
    """TFRecord's compression name (``""``, ``"ZLIB"`` or ``"GZIP"``) of a
    ``TFRecordOptions``, a name or ``None``; an error naming the accepted ones."""
    if isinstance(value, TFRecordOptions):
        return value.compression_type
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1, 2):
        value = TFRecordCompressionType(value)
    if isinstance(value, TFRecordCompressionType):
        return "" if value is TFRecordCompressionType.NONE else value.name
    name = "" if value is None else str(value).upper()
    if name not in COMPRESSION_TYPES:
        raise ValueError(
            f"compression_type must be None, '', 'GZIP' or 'ZLIB' (or a "
            f"TFRecordCompressionType); got {value!r}"
        )
    return name


# ----------------------------------------------------------------------------- reading


class _Decompressed:
    """A file's bytes after decompression, read in chunks."""

    def __init__(self, path, compression):
        self.path = os.fspath(path)
        self.compression = compression
        self._file = open(self.path, "rb")  # noqa: SIM115 - closed in close()
        self._z = None
        if compression == "GZIP":
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif compression == "ZLIB":
            self._z = zlib.decompressobj(zlib.MAX_WBITS)
        self._pending = b""
        self._done = False

    def read(self, size):
        """Up to ``size`` more bytes; ``b""`` at the end. Decompression never makes more
        than ``size`` bytes at once (a small compressed file can expand a thousandfold):
        input it has not used yet waits in ``self._pending``. An uncompressed file is
        asked for at most what it holds: ``read(n)`` reserves ``n`` bytes up front, and a
        record's length (up to 2 GiB) is only a claim."""
        if self._z is None:
            left = os.fstat(self._file.fileno()).st_size - self._file.tell()
            return self._file.read(max(0, min(size, left)))
        out = []
        have = 0
        while have < size and not self._done:
            raw = self._pending or self._file.read(1 << 20)
            self._pending = b""
            try:
                if not raw:
                    data = self._z.flush()
                    self._done = True
                else:
                    data = self._z.decompress(raw, size - have)
                    self._pending = self._z.unconsumed_tail
                    if self._z.eof and self._z.unused_data:
                        if self.compression != "GZIP":  # one ZLIB stream, then bytes
                            raise zlib.error("data after the end of the ZLIB stream")
                        self._pending = self._z.unused_data  # the next gzip member
                        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
            except zlib.error as err:
                raise DataLossError(
                    self.path,
                    self._file.tell() - len(raw),
                    f"cannot decompress as {self.compression} ({err}); is compression_type right?",
                ) from None
            out.append(data)
            have += len(data)
        if self._done and not self._z.eof:
            raise DataLossError(
                self.path,
                self._file.tell(),
                f"the {self.compression} stream ends early (truncated file)",
            )
        return b"".join(out)

    def close(self):
        self._file.close()


class RecordChunk(NamedTuple):
    """Records framed from one chunk of a file: record ``i`` is
    ``buf[starts[i]:ends[i]]``; ``buf`` is followed by zero padding (see :mod:`.wire`);
    ``first_index`` is the index of the chunk's first record in the file."""

    buf: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    first_index: int


def _stored_crcs(view, positions):
    """The little-endian uint32s at ``positions`` of the uint8 array ``view``."""
    at = positions[:, None] + np.arange(4)
    return view[at].copy().view("<u4").reshape(-1).astype(np.uint64)


def _frame(data, base, path, compression, final):
    """``(starts, ends, consumed)``: the complete records at the front of ``data``, their
    data ranges and how many bytes they take; every checksum is checked.

    The walk from header to header and one CRC32C call per record's data are the only
    per-record Python work. A length's checksum depends only on the length, so it is
    computed once per distinct length (a file's records have few); the stored checksums
    are compared for all records at once.
    """
    size = len(data)
    off = 0
    heads = []
    append, unpack = heads.append, _LENGTH.unpack_from  # locals: this loop runs per record
    last_head, framing = size - HEADER_BYTES, HEADER_BYTES + FOOTER_BYTES
    while off <= last_head:
        after = off + framing + unpack(data, off)[0]
        if after > size:
            break
        append(off)
        off = after
    # The walk trusted each length before its checksum was checked: a bad one is found
    # below at its own record, which is reported before anything read past it.
    heads = np.array(heads, dtype=np.int64)
    starts = heads + HEADER_BYTES
    ends = np.append(heads[1:], off) - FOOTER_BYTES
    if heads.size:
        value = google_crc32c.value  # takes bytes only, so each record is sliced (copied)
        # map() keeps the per-record calls out of the interpreter loop
        data_crcs = np.fromiter(
            map(value, map(data.__getitem__, map(slice, starts.tolist(), ends.tolist()))),
            dtype=np.uint64,
            count=heads.size,
        )
        lengths, which = np.unique(ends - starts, return_inverse=True)
        length_crcs = [value(_LENGTH.pack(n)) for n in lengths.tolist()]
        head_crcs = np.array(length_crcs, dtype=np.uint64)[which]
        view = np.frombuffer(data, dtype=np.uint8)
        bad_head = mask_crc(head_crcs) != _stored_crcs(view, heads + 8)
        bad_data = mask_crc(data_crcs) != _stored_crcs(view, ends)
        if bad_head.any() or bad_data.any():
            i = int(np.argmax(bad_head | bad_data))
            reason = (
                _bad_header(data, int(heads[i]), compression)
                if bad_head[i]
                else "corrupted record: the data's checksum does not match"
            )
            raise DataLossError(path, base + int(heads[i]), reason)
    left = size - off
    stored = _CRC.unpack_from(data, off + 8)[0] if left >= HEADER_BYTES else None
    if stored is not None and masked_crc(data[off : off + 8]) != stored:
        raise DataLossError(path, base + off, _bad_header(data, off, compression))
    if final and left:
        if left >= HEADER_BYTES:
            length = unpack(data, off)[0]
            reason = (
                f"truncated record: {length} data bytes and a 4-byte checksum expected, "
                f"{left - HEADER_BYTES} bytes left"
            )
        else:
            reason = f"truncated record: a 12-byte header expected, {left} bytes left"
        raise DataLossError(path, base + off, reason)
    return starts, ends, off


def _bad_header(data, off, compression):
    hint = ""
    head = bytes(data[:2])
    if off == 0 and not compression and head[:2] == b"\x1f\x8b":
        hint = '; the file looks GZIP-compressed: pass compression_type="GZIP"'
    elif off == 0 and not compression and head[:1] == b"\x78":
        hint = '; the file looks ZLIB-compressed: pass compression_type="ZLIB"'
    return f"corrupted record: the length's checksum does not match{hint}"


def _long_record_bytes(data, base, path) -> int:
    """The bytes the record at the front of ``data`` takes, framing included (``_frame``
    has checked its length's checksum); a :class:`DataLossError` for a length over
    :data:`MAX_RECORD_BYTES`, before anything more is read for it."""
    length = _LENGTH.unpack_from(data, 0)[0]
    if length > MAX_RECORD_BYTES:
        raise DataLossError(
            path,
            base,
            f"a record of {length:,} bytes, over the {MAX_RECORD_BYTES:,}-byte limit a record "
            "may have",
        )
    return length + HEADER_BYTES + FOOTER_BYTES


def read_record_chunks(path, compression_type=None, chunk_bytes=CHUNK_BYTES):
    """Yield :class:`RecordChunk` s of a TFRecord file, about ``chunk_bytes`` at a time
    (a record larger than that gets a chunk of its own). All checksums are checked.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
    >>> with TFRecordWriter(path) as w:
    ...     w.write(b"abc")
    >>> chunk = next(read_record_chunks(path))
    >>> bytes(chunk.buf[chunk.starts[0]:chunk.ends[0]])
    b'abc'
    """
    path = os.fspath(path)
    compression = compression_name(compression_type)
    stream = _Decompressed(path, compression)
    try:
        pending = b""
        base = 0
        index = 0
        final = False
        while not final:
            more = stream.read(chunk_bytes)
            final = not more
            data = pending + more if pending else more
            if not data:
                break
            starts, ends, used = _frame(data, base, path, compression, final)
            if starts.size == 0 and not final:
                # One record longer than the chunk: read up to its end at once, once its
                # length is known to be under the cap.
                if len(data) >= HEADER_BYTES:
                    need = _long_record_bytes(data, base, path)
                    data += stream.read(max(need - len(data), 0))
                pending = data
                continue
            buf = np.zeros(used + PADDING, dtype=np.uint8)
            buf[:used] = np.frombuffer(data, dtype=np.uint8, count=used)
            yield RecordChunk(buf, starts, ends, index)
            index += starts.size
            pending = data[used:]
            base += used
    finally:
        stream.close()


def tf_record_iterator(
    path: str | os.PathLike,
    compression_type: str | TFRecordOptions | None = None,
    options: str | TFRecordOptions | None = None,
) -> Iterator[bytes]:
    """Yield the data of each record of a TFRecord file as ``bytes`` (TF's
    ``tf.compat.v1.io.tf_record_iterator``); checksums are checked. ``path``: the file;
    ``compression_type``: None, ``"GZIP"``, ``"ZLIB"`` or a :class:`TFRecordOptions`;
    ``options`` is TF's name for the same argument (give one of the two).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
    >>> with TFRecordWriter(path, TFRecordOptions("ZLIB")) as w:
    ...     w.write(b"x")
    >>> list(tf_record_iterator(path, "ZLIB"))
    [b'x']
    """
    if options is not None:
        if compression_type is not None:
            raise ValueError(
                f"tf_record_iterator takes compression_type or options (TF's name for it), "
                f"not both: got {compression_type!r} and {options!r}"
            )
        compression_type = options
    if isinstance(compression_type, TFRecordOptions):
        compression_type = compression_type.compression_type
    for chunk in read_record_chunks(path, compression_type):
        data = chunk.buf.tobytes()
        for s, e in zip(chunk.starts.tolist(), chunk.ends.tolist()):
            yield data[s:e]


# ----------------------------------------------------------------------------- writing


class TFRecordWriter:
    """Writes records to a TFRecord file (TF's ``tf.io.TFRecordWriter``).

    ``options``: ``None``, a compression name (``"GZIP"``, ``"ZLIB"``) or
    :class:`TFRecordOptions`. The file is complete once :meth:`close` returns (or the
    ``with`` block ends).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
    >>> writer = TFRecordWriter(path)
    >>> writer.write(b"record")
    >>> writer.close()
    >>> os.path.getsize(path)
    22
    """

    def __init__(self, path, options=None):
        self.path = os.fspath(path)
        self.compression_type = compression_name(options)
        if self.compression_type == "GZIP":
            self._file = gzip.open(self.path, "wb")  # noqa: SIM115
        elif self.compression_type == "ZLIB":
            self._raw = open(self.path, "wb")  # noqa: SIM115
            self._z = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, zlib.MAX_WBITS)
            self._file = None
        else:
            self._file = open(self.path, "wb")  # noqa: SIM115
        self._closed = False

    def write(self, record) -> None:
        """Append one record (bytes-like)."""
        if self._closed:
            raise ValueError(f"TFRecordWriter for '{self.path}' is closed")
        record = bytes(record)
        length = struct.pack("<Q", len(record))
        framed = b"".join(
            (length, _CRC.pack(masked_crc(length)), record, _CRC.pack(masked_crc(record)))
        )
        self._put(framed)

    def _put(self, data):
        if self._file is None:
            self._raw.write(self._z.compress(data))
        else:
            self._file.write(data)

    def flush(self) -> None:
        """Push buffered records to the file (a compressed stream stays open)."""
        if self._file is None:
            self._raw.write(self._z.flush(zlib.Z_SYNC_FLUSH))
            self._raw.flush()
        else:
            self._file.flush()

    def close(self) -> None:
        """Finish the file; further writes raise."""
        if self._closed:
            return
        self._closed = True
        if self._file is None:
            self._raw.write(self._z.flush())
            self._raw.close()
        else:
            self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
