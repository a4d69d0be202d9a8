"""TF's masked CRC32C (core/crc.py), shared by TFRecord files and TF checkpoints."""

import numpy as np

from colonnade.core.crc import mask_crc, masked_crc


def test_masked_check_value():
    # The CRC32C check value of "123456789" is 0xE3069283 (RFC 3720); masked as TF does.
    crc = 0xE3069283
    assert masked_crc(b"123456789") == ((((crc >> 15) | (crc << 17)) + 0xA282EAD8) % 2**32)


def test_array_masking_matches_scalar():
    raw = np.array([0, 1, 0xE3069283, 2**32 - 1], dtype=np.uint64)
    assert mask_crc(raw).tolist() == [mask_crc(int(crc)) for crc in raw]
