"""TFRecord framing: round trips, compression, and the bad-input errors (cn.io)."""

import doctest
import gzip
import importlib
import struct

import numpy as np
import pytest

import colonnade as cn
from colonnade.core.crc import masked_crc
from colonnade.data import tfrecord
from colonnade.data.tfrecord import read_record_chunks

RECORDS = [b"", b"a", b"hello world", bytes(range(256)) * 40]


def write(path, records, compression=None):
    with cn.io.TFRecordWriter(path, compression) as writer:
        for record in records:
            writer.write(record)
    return path


@pytest.mark.parametrize("compression", [None, "", "GZIP", "ZLIB"])
def test_round_trip(tmp_path, compression):
    path = write(tmp_path / "r.tfrecord", RECORDS, compression)
    assert list(cn.io.tf_record_iterator(path, compression)) == RECORDS


def test_options_object_and_flush(tmp_path):
    path = tmp_path / "r.tfrecord"
    writer = cn.io.TFRecordWriter(path, cn.io.TFRecordOptions(compression_type="ZLIB"))
    writer.write(b"x")
    writer.flush()
    writer.write(b"y")
    writer.close()
    assert list(cn.io.tf_record_iterator(path, cn.io.TFRecordOptions("ZLIB"))) == [b"x", b"y"]
    with pytest.raises(ValueError, match="closed"):
        writer.write(b"z")


def test_framing_bytes_are_tfs(tmp_path):
    """Length, masked CRC32C of the length, data, masked CRC32C of the data."""
    path = write(tmp_path / "r.tfrecord", [b"abc"])
    raw = path.read_bytes()
    length = struct.pack("<Q", 3)
    assert raw == length + struct.pack("<I", masked_crc(length)) + b"abc" + struct.pack(
        "<I", masked_crc(b"abc")
    )


def test_many_records_across_chunks(tmp_path):
    records = [bytes([i % 251]) * (i % 97) for i in range(5000)]
    path = write(tmp_path / "r.tfrecord", records)
    chunks = list(read_record_chunks(path, chunk_bytes=4096))
    assert len(chunks) > 10
    got = [bytes(c.buf[s:e]) for c in chunks for s, e in zip(c.starts, c.ends)]
    assert got == records
    assert [c.first_index for c in chunks] == list(
        np.cumsum([0] + [c.starts.size for c in chunks])[:-1]
    )


def test_record_larger_than_chunk(tmp_path):
    records = [b"x" * 10_000, b"y"]
    path = write(tmp_path / "r.tfrecord", records)
    got = [
        bytes(c.buf[s:e])
        for c in read_record_chunks(path, chunk_bytes=100)
        for s, e in zip(c.starts, c.ends)
    ]
    assert got == records


def test_corrupt_record_names_file_and_offset(tmp_path):
    path = write(tmp_path / "r.tfrecord", [b"first", b"second", b"third"])
    raw = bytearray(path.read_bytes())
    second = 12 + 5 + 4  # the second record's header starts here
    raw[second + 12 + 2] ^= 0xFF  # flip a byte of its data
    path.write_bytes(bytes(raw))
    with pytest.raises(cn.io.DataLossError, match=rf"offset {second} of '.*r.tfrecord'") as err:
        list(cn.io.tf_record_iterator(path))
    assert err.value.offset == second and err.value.path.endswith("r.tfrecord")
    assert "data's checksum" in str(err.value)


def test_corrupt_length_is_caught_before_it_is_trusted(tmp_path):
    path = write(tmp_path / "r.tfrecord", [b"first", b"second"])
    raw = bytearray(path.read_bytes())
    raw[21 + 3] ^= 0x40  # the second record's length becomes huge
    path.write_bytes(bytes(raw))
    with pytest.raises(cn.io.DataLossError, match="length's checksum.*offset 21"):
        list(cn.io.tf_record_iterator(path))


@pytest.mark.parametrize("cut", [3, 12 + 2, 12 + 5 + 2])
def test_truncated_file(tmp_path, cut):
    path = write(tmp_path / "r.tfrecord", [b"first", b"second"])
    raw = path.read_bytes()
    path.write_bytes(raw[: 21 + cut])
    with pytest.raises(cn.io.DataLossError, match="truncated record.*offset 21"):
        list(cn.io.tf_record_iterator(path))


def test_truncated_gzip_file(tmp_path):
    path = write(tmp_path / "r.tfrecord", RECORDS, "GZIP")
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(cn.io.DataLossError, match="r.tfrecord"):
        list(cn.io.tf_record_iterator(path, "GZIP"))


def test_wrong_compression_type(tmp_path):
    gz = write(tmp_path / "g.tfrecord", RECORDS, "GZIP")
    with pytest.raises(cn.io.DataLossError, match='compression_type="GZIP"'):
        list(cn.io.tf_record_iterator(gz))
    with pytest.raises(cn.io.DataLossError, match="cannot decompress as ZLIB"):
        list(cn.io.tf_record_iterator(gz, "ZLIB"))
    plain = write(tmp_path / "p.tfrecord", RECORDS)
    with pytest.raises(cn.io.DataLossError, match="cannot decompress as GZIP.*p.tfrecord"):
        list(cn.io.tf_record_iterator(plain, "GZIP"))
    with pytest.raises(ValueError, match="compression_type must be"):
        list(cn.io.tf_record_iterator(plain, "BZIP2"))


@pytest.mark.parametrize(
    "module",
    [
        "colonnade.io",
        "colonnade.data.tfrecord",
        "colonnade.data.tfrecord_source",
        "colonnade.data.example",
        "colonnade.data.example_writer",
        "colonnade.data.parse_spec",
        "colonnade.data.wire",
    ],
)
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_public_names_have_examples():
    for name in cn.io.__all__:
        obj = getattr(cn.io, name)
        assert obj.__doc__ and ">>>" in obj.__doc__, name


def test_decompression_never_makes_more_than_a_read_asks(tmp_path):
    """Issue 29: a 509 KB GZIP file expanded to gigabytes in one decompress call."""
    path = tmp_path / "zeros.gz"
    path.write_bytes(gzip.compress(bytes(20 << 20)))  # 20 MiB of zeros in ~20 KB
    stream = tfrecord._Decompressed(str(path), "GZIP")
    sizes = [len(stream.read(1 << 20)) for _ in range(25)]
    stream.close()
    assert max(sizes) <= 1 << 20 and sum(sizes) == 20 << 20 and sizes[-1] == 0


def test_a_record_longer_than_the_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """A length with a valid checksum but over MAX_RECORD_BYTES (a compression bomb's
    record) is refused at its header, without decompressing what it claims."""
    length = struct.pack("<Q", 50 << 20)
    header = length + struct.pack("<I", masked_crc(length))
    path = tmp_path / "bomb.tfrecord.gz"
    path.write_bytes(gzip.compress(header + bytes(8 << 20)))  # truncated: 8 of 50 MiB
    monkeypatch.setattr(tfrecord, "MAX_RECORD_BYTES", 10 << 20)
    with pytest.raises(tfrecord.DataLossError, match="over the 10,485,760-byte limit"):
        list(tfrecord.tf_record_iterator(str(path), "GZIP"))


def test_bytes_after_a_zlib_stream_are_refused_as_such(tmp_path):
    path = tmp_path / "a.tfrecord.zlib"
    with tfrecord.TFRecordWriter(str(path), tfrecord.TFRecordOptions("ZLIB")) as w:
        w.write(b"abc")
    path.write_bytes(path.read_bytes() + b"trailing")
    with pytest.raises(tfrecord.DataLossError, match="data after the end of the ZLIB stream"):
        list(tfrecord.tf_record_iterator(str(path), "ZLIB"))
