"""Protobuf's wire format, the little of it colonnade writes: base-128 varints and
length-delimited fields (tf.Example records, TF's tensor-bundle index entries).

>>> varint(300).hex(), length_delimited(1, b"ab").hex()
('ac02', '0a026162')
>>> len(varint(-1))  # an int64 below zero, as protobuf writes it: ten bytes
10
"""

from __future__ import annotations

__all__ = ["length_delimited", "varint"]


def varint(value: int) -> bytes:
    """``value`` as a protobuf varint; a negative int64 as its 64-bit two's complement."""
    value &= (1 << 64) - 1
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def length_delimited(number: int, payload: bytes) -> bytes:
    """Field ``number`` of wire type 2 holding ``payload``."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload
