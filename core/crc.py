"""TFRecord's masked CRC32C, used by TFRecord files and TF tensor bundles (checkpoints).

TensorFlow never stores a raw CRC32C (Castagnoli) checksum: it stores it *masked*,
``((crc >> 15) | (crc << 17)) + 0xa282ead8 (mod 2**32)``, so that the checksum of data
holding checksums is not trivially related to them. The CRC32C itself is computed by the
``google-crc32c`` library.

>>> hex(masked_crc(b"123456789"))  # the CRC32C check value 0xe3069283, masked
'0xc78ab0e5'
"""

from __future__ import annotations

import google_crc32c

__all__ = ["mask_crc", "masked_crc"]

MASK_DELTA = 0xA282EAD8  # TF's kMaskDelta (tsl/lib/hash/crc32c.h)
_LOW_32_BITS = 0xFFFFFFFF


def masked_crc(data) -> int:
    """The masked CRC32C TensorFlow stores for the bytes ``data``.

    >>> hex(masked_crc(b""))
    '0xa282ead8'
    """
    return mask_crc(google_crc32c.value(data))


def mask_crc(crc):
    """A raw CRC32C value masked as TF stores it: rotated right by 15 bits, plus a constant.

    ``crc`` is an ``int``, or a numpy ``uint64`` array of raw values masked all at once
    (the TFRecord reader checks a chunk's records together).

    >>> mask_crc(0) == masked_crc(b"")  # the CRC32C of no bytes is 0
    True
    >>> import numpy as np
    >>> mask_crc(np.array([0, 0xE3069283], dtype=np.uint64)).tolist() == [
    ...     mask_crc(0), mask_crc(0xE3069283)]
    True
    """
    rotated = ((crc >> 15) | (crc << 17)) & _LOW_32_BITS
    return (rotated + MASK_DELTA) & _LOW_32_BITS
