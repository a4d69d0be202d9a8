"""The bytes of a TF checkpoint's index (``PREFIX.index``): protobuf fields, LevelDB
table blocks, the ordered-code keys of partitioned slices, and the ``BundleEntryProto`` /
``BundleHeaderProto`` messages, parsed with every length, offset and CRC checked so that a
damaged index is a ``ValueError`` saying what is wrong (the reader turns it into a
:class:`~colonnade.core.checkpoint_errors.CheckpointCorruptedError` naming the file),
never a wrong read. :mod:`colonnade.core.tf_bundle` reads tensors with
them; the format is described there.

>>> varint(bytes([0x96, 0x01]), 0, 2, "example")
(150, 2)
"""

from __future__ import annotations

import re
import struct

from .crc import masked_crc

__all__ = ["TABLE_MAGIC", "parse_entry", "parse_header", "read_table", "slice_key", "varint"]

TABLE_MAGIC = 0xDB4775248B80FB57  # LevelDB's table magic number, last 8 bytes of the index
FOOTER_SIZE = 48  # two block handles padded to 40 bytes, then the magic
BLOCK_TRAILER_SIZE = 5  # compression type byte + masked CRC32C


# --------------------------------------------------------------------------- bytes


def varint(data, pos: int, end: int, what: str) -> tuple:
    """``(value, next position)`` of the varint at ``data[pos]``. The index is parsed one
    entry after another (each key depends on the one before), so this is a plain scalar
    loop rather than :mod:`colonnade.data.wire`'s decoder for batches of messages."""
    value, shift = 0, 0
    while pos < end and shift < 70:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if byte < 0x80:
            return value, pos
        shift += 7
    raise ValueError(f"a truncated or malformed varint in {what}")


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _proto_fields(data: bytes, what: str):
    """Yield ``(field number, value)`` for each field of a protobuf message: an int for
    varint and fixed-size fields, the bytes for length-delimited ones."""
    pos, end = 0, len(data)
    while pos < end:
        tag, pos = varint(data, pos, end, what)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = varint(data, pos, end, what)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if pos + size > end:
                raise ValueError(f"field {number} of {what} is truncated")
            value = int.from_bytes(data[pos : pos + size], "little")
            pos += size
        elif wire == 2:
            size, pos = varint(data, pos, end, what)
            if pos + size > end:
                raise ValueError(f"field {number} of {what} is truncated")
            value = bytes(data[pos : pos + size])
            pos += size
        else:
            raise ValueError(f"unsupported wire type {wire} (field {number}) in {what}")
        yield number, value


def _message(value, number: int, what: str) -> bytes:
    """Field ``number``'s value as an embedded message (length-delimited bytes)."""
    if not isinstance(value, bytes):
        raise ValueError(f"field {number} of {what} should be a message, got the number {value}")
    return value


def _number(value, number: int, what: str) -> int:
    """Field ``number``'s value as an integer (a varint or fixed-size field)."""
    if not isinstance(value, int):
        raise ValueError(f"field {number} of {what} should be a number, got {len(value)} bytes")
    return value


# --------------------------------------------------------------------------- SSTable


def _block_handle(data: bytes, pos: int, what: str) -> tuple:
    """``((offset, size), next position)`` of a LevelDB block handle (two varints)."""
    offset, pos = varint(data, pos, len(data), what)
    size, pos = varint(data, pos, len(data), what)
    return (offset, size), pos


def _read_block(data: bytes, handle: tuple, what: str) -> bytes:
    offset, size = handle
    if offset + size + BLOCK_TRAILER_SIZE > len(data):
        raise ValueError(f"{what} runs past the end of the file (truncated)")
    contents = data[offset : offset + size]
    kind = data[offset + size]
    (stored,) = struct.unpack_from("<I", data, offset + size + 1)
    if masked_crc(data[offset : offset + size + 1]) != stored:
        raise ValueError(f"{what} fails its CRC32C check (corrupted)")
    if kind != 0:
        kinds = {1: "snappy", 2: "zstd"}
        raise ValueError(
            f"{what} is {kinds.get(kind, f'type-{kind}')}-compressed; colonnade reads "
            "uncompressed tables only, as TensorFlow writes them"
        )
    return contents


def _block_entries(block: bytes, what: str):
    """Yield ``(key, value)`` for each entry of a table block, in order."""
    if len(block) < 4:
        raise ValueError(f"{what} is too short to be a table block")
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    end = len(block) - 4 - 4 * num_restarts
    if end < 0:
        raise ValueError(f"{what} has a malformed restart array")
    pos, key = 0, b""
    while pos < end:
        shared, pos = varint(block, pos, end, what)
        unshared, pos = varint(block, pos, end, what)
        value_size, pos = varint(block, pos, end, what)
        if shared > len(key) or pos + unshared + value_size > end:
            raise ValueError(f"{what} has a malformed entry at byte {pos}")
        key = key[:shared] + block[pos : pos + unshared]
        pos += unshared
        yield key, block[pos : pos + value_size]
        pos += value_size


def read_table(data: bytes, what: str) -> dict:
    """Every ``key -> value`` (both bytes) of a LevelDB table held in ``data``.

    Raises ``ValueError`` saying what is wrong; ``what`` names the file in messages.
    """
    if len(data) < FOOTER_SIZE:
        raise ValueError(f"{what} is {len(data)} bytes, shorter than a table footer (truncated)")
    footer = data[-FOOTER_SIZE:]
    if int.from_bytes(footer[-8:], "little") != TABLE_MAGIC:
        raise ValueError(
            f"{what} does not end in the table magic number (truncated or not an index)"
        )
    _, pos = _block_handle(footer, 0, what)  # the metaindex block: TF leaves it empty
    index_handle, _ = _block_handle(footer, pos, what)
    index_block = _read_block(data, index_handle, f"the index block of {what}")
    table = {}
    free_from = 0  # a table's data blocks follow one another: each is read once
    for i, (_, value) in enumerate(_block_entries(index_block, f"the index block of {what}")):
        handle, _ = _block_handle(value, 0, what)
        if handle[0] < free_from:
            raise ValueError(
                f"data block {i} of {what} starts inside the block before it (a table's "
                "blocks follow one another; corrupted or crafted index)"
            )
        free_from = handle[0] + handle[1] + BLOCK_TRAILER_SIZE
        block = _read_block(data, handle, f"data block {i} of {what}")
        table.update(_block_entries(block, f"data block {i} of {what}"))
    return table


# --------------------------------------------------------------------------- slice keys
# A slice's key is TF's "ordered code" of (0, name, rank, start_0, length_0, ...): bytes
# that sort as the values do. Only the encoding is needed, to find a slice by its key.


def _ordered_uint(n: int) -> bytes:
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([len(body)]) + body


def _ordered_bytes(s: bytes) -> bytes:
    escaped = re.sub(
        rb"[\x00\xff]", lambda m: m.group() + (b"\xff" if m.group() == b"\x00" else b"\x00"), s
    )
    return escaped + b"\x00\x01"


def _ordered_int(v: int) -> bytes:
    magnitude = ~v if v < 0 else v
    length = min(magnitude.bit_length() // 7 + 1, 10)  # 7 bits a byte, less the sign
    body = bytearray((v & ((1 << 80) - 1)).to_bytes(10, "big")[10 - length :])
    if length <= 8:
        body[0] ^= (0xFF << (8 - length)) & 0xFF
    else:
        body[0] ^= 0xFF
        body[1] ^= 0x80 if length == 9 else 0xC0
    return bytes(body)


def slice_key(name: str, extents: list) -> bytes:
    """The table key of the slice ``[(start, length), ...]`` of tensor ``name`` (length
    ``-1``: the whole dimension)."""
    key = _ordered_uint(0) + _ordered_bytes(name.encode()) + _ordered_uint(len(extents))
    return key + b"".join(_ordered_int(s) + _ordered_int(n) for s, n in extents)


# --------------------------------------------------------------------------- entries


def _parse_shape(data: bytes, what: str) -> list:
    dims = []
    for number, value in _proto_fields(data, what):
        if number == 2:  # Dim {int64 size = 1; string name = 2}
            dim = _proto_fields(_message(value, number, what), what)
            sizes = [_number(v, n, what) for n, v in dim if n == 1]
            dims.append(_signed64(sizes[-1]) if sizes else 0)
            if dims[-1] < 0:
                raise ValueError(f"{what} has a dimension of {dims[-1]} (a saved shape is known)")
        elif number == 3 and value:
            raise ValueError(f"{what} has an unknown rank")
    return dims


def _parse_slice(data: bytes, what: str) -> list:
    extents = []
    for number, value in _proto_fields(data, what):
        if number == 1:  # Extent {int64 start = 1; oneof {int64 length = 2}}
            fields = {
                n: _number(v, n, what) for n, v in _proto_fields(_message(value, 1, what), what)
            }
            length = _signed64(fields[2]) if 2 in fields else -1
            extents.append((_signed64(fields.get(1, 0)), length))
    return extents


def parse_entry(data: bytes, what: str) -> dict:
    entry = {"dtype": 0, "shape": [], "shard_id": 0, "offset": 0, "size": 0, "crc32c": None}
    entry["slices"] = []
    for number, value in _proto_fields(data, what):
        if number == 1:
            entry["dtype"] = _number(value, number, what)
        elif number == 2:
            entry["shape"] = _parse_shape(_message(value, number, what), what)
        elif number in (3, 4, 5):
            entry[("shard_id", "offset", "size")[number - 3]] = _signed64(
                _number(value, number, what)
            )
        elif number == 6:
            entry["crc32c"] = _number(value, number, what)
        elif number == 7:
            entry["slices"].append(_parse_slice(_message(value, number, what), what))
    return entry


def parse_header(data: bytes, what: str) -> dict:
    header = {"num_shards": 0, "endianness": 0, "producer": 0, "min_consumer": 0}
    header["bad_consumers"] = []
    for number, value in _proto_fields(data, what):
        if number in (1, 2):
            header[("num_shards", "endianness")[number - 1]] = _number(value, number, what)
        elif number == 3:  # VersionDef {producer = 1; min_consumer = 2; bad_consumers = 3}
            for n, v in _proto_fields(_message(value, number, what), what):
                if n in (1, 2):
                    header[("producer", "min_consumer")[n - 1]] = _number(v, n, what)
                elif n == 3:
                    header["bad_consumers"].append(v)
    return header
