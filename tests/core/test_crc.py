"""TF's masked CRC32C (core/crc.py), shared by TFRecord files and TF checkpoints."""

import struct
from pathlib import Path

import numpy as np

from colonnade.core.crc import mask_crc, masked_crc

TF_WRITTEN = Path(__file__).parents[1] / "data" / "golden" / "adult_tf.tfrecord"


def test_masked_check_value():
    # RFC 3720's CRC32C check value of "123456789" is 0xE3069283; TF masks it as
    # ((crc >> 15) | (crc << 17)) + 0xa282ead8, which is 0xC78AB0E5 (worked by hand).
    assert masked_crc(b"123456789") == 0xC78AB0E5
    assert mask_crc(0xE3069283) == 0xC78AB0E5


def test_the_checksums_tensorflow_wrote_into_a_tfrecord_file():
    """Every record header and body of a file TF 2.15 wrote carries TF's own masked CRC."""
    data = TF_WRITTEN.read_bytes()
    off, records = 0, 0
    while off < len(data):
        (length,) = struct.unpack_from("<Q", data, off)
        (length_crc,) = struct.unpack_from("<I", data, off + 8)
        assert masked_crc(data[off : off + 8]) == length_crc
        body = data[off + 12 : off + 12 + length]
        (body_crc,) = struct.unpack_from("<I", data, off + 12 + length)
        assert masked_crc(body) == body_crc
        off, records = off + 16 + length, records + 1
    assert records == 8  # the fixture's records, all checked


def test_array_masking_gives_the_known_values():
    raw = np.array([0xE3069283, 0, 2**32 - 1], dtype=np.uint64)
    # 0 -> 0xa282ead8; 0xffffffff rotates to itself, + 0xa282ead8 mod 2^32
    assert mask_crc(raw).tolist() == [0xC78AB0E5, 0xA282EAD8, 0xA282EAD7]
