"""Fuzzing the TFRecord reader (issue 29): mutated files read or raise ``DataLossError``.

Seeds are valid files of ``tf.Example`` records, plain, GZIP and ZLIB. A mutation hits the
file as stored (the compressed stream) or the records before compression (so framing is
hit behind a valid stream). Reading must yield records or raise ``DataLossError`` naming
the file, within the time bound, allocating at most a bounded multiple of what the file
decompresses to (a length field may claim 2^64 bytes).
"""

import gzip
import tracemalloc
import zlib

import pandas as pd
import pytest
from fuzzhelpers import FUZZ, HUGE, bounded, mutate, mutations
from hypothesis import given
from hypothesis import strategies as st

import colonnade as cn
from colonnade.data import tfrecord
from colonnade.data.example_writer import write_tfrecord
from colonnade.data.parse_spec import FixedLenFeature, VarLenFeature
from colonnade.data.tfrecord_source import TFRecordSource

FEATURES = {"x": FixedLenFeature([], "int64"), "s": VarLenFeature("string")}
COMPRESSIONS = ["", "GZIP", "ZLIB"]
# Memory a read may take beyond the file's decompressed size (chunk buffers, arrays).
SLACK_BYTES = 32 << 20


@pytest.fixture(scope="module")
def plain_stream(tmp_path_factory):
    """The uncompressed bytes of a small file of tf.Examples."""
    path = tmp_path_factory.mktemp("seed") / "seed.tfrecord"
    rows = pd.DataFrame({"x": range(6), "s": [[b"a"], [], [b"bc", b"d"], [b"e"], [], [b"f"]]})
    write_tfrecord(rows, str(path))
    return path.read_bytes()


@pytest.fixture(scope="module")
def seed_records(plain_stream, tmp_path_factory):
    path = tmp_path_factory.mktemp("seed") / "records.tfrecord"
    path.write_bytes(plain_stream)
    return list(cn.io.tf_record_iterator(path))


def compress(data: bytes, compression: str) -> bytes:
    if compression == "GZIP":
        return gzip.compress(data)
    if compression == "ZLIB":
        return zlib.compress(data)
    return data


def read_everything(path, compression):
    """Every way colonnade reads a TFRecord file: the records, small chunks (the long
    record path), and the dataset source parsing tf.Examples."""
    records = list(cn.io.tf_record_iterator(path, compression))
    for _ in tfrecord.read_record_chunks(path, compression, chunk_bytes=64):
        pass
    source = TFRecordSource(str(path), FEATURES, compression)
    for unit in source.units():
        for _ in source.read(unit):
            pass
    return records


def check_bounded_read(path, compression, size_hint):
    """Read ``path``; only DataLossError or a ValueError naming the file may come out,
    in bounded time and memory."""
    tracemalloc.start()
    try:
        with bounded():
            read_everything(path, compression)
    except tfrecord.DataLossError as err:
        assert err.path == str(path)
    except ValueError as err:  # a record that frames but is not a valid tf.Example
        assert str(path) in str(err), err
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < SLACK_BYTES + 8 * size_hint, f"a read of a {size_hint}-byte file took {peak}"


@FUZZ
@given(compression=st.sampled_from(COMPRESSIONS), ops=mutations(), before=st.booleans())
def test_a_mutated_tfrecord_file_reads_or_raises_data_loss(
    tmp_path_factory, plain_stream, compression, ops, before
):
    if before:  # framing damaged behind a valid compressed stream
        data = compress(mutate(plain_stream, ops), compression)
    else:
        data = mutate(compress(plain_stream, compression), ops)
    path = tmp_path_factory.mktemp("fuzz") / "f.tfrecord"
    path.write_bytes(data)
    check_bounded_read(path, compression, len(data) * 1100)  # deflate: at most ~1032x


def frame_with_length(record: bytes, length: int) -> bytes:
    """A TFRecord frame of ``record`` whose header claims ``length`` bytes, with the
    length's checksum right (so the claim gets past the header check)."""
    raw = (length % 2**64).to_bytes(8, "little")
    crc = cn.core.crc.masked_crc
    return raw + crc(raw).to_bytes(4, "little") + record + crc(record).to_bytes(4, "little")


@FUZZ
@given(
    compression=st.sampled_from(COMPRESSIONS),
    which=st.integers(0, 5),
    length=st.one_of(st.sampled_from(HUGE), st.integers(0, 2**64 - 1), st.integers(0, 200)),
)
def test_a_record_with_a_checksummed_hostile_length_is_refused(
    tmp_path_factory, seed_records, compression, which, length
):
    data = b"".join(
        frame_with_length(r, length) if i == which else frame_with_length(r, len(r))
        for i, r in enumerate(seed_records)
    )
    path = tmp_path_factory.mktemp("fuzz") / "f.tfrecord"
    path.write_bytes(compress(data, compression))
    check_bounded_read(path, compression, len(data))


# ----------------------------------------------------------------- regression crashers


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_a_record_claiming_two_gib_in_a_small_file_is_refused_without_reserving_it(
    tmp_path, compression
):
    """Found by the fuzzer: a 2^31 - 1 length (under the record cap) in a 30-byte file made
    the reader ask the file for 2 GiB at once (``read(n)`` reserves n bytes: a bare
    MemoryError under a memory limit). It is read as a truncated record, naming the file."""
    length = (2**31 - 1).to_bytes(8, "little")
    header = length + cn.core.crc.masked_crc(length).to_bytes(4, "little")
    path = tmp_path / "claims.tfrecord"
    path.write_bytes(compress(header + b"x" * 20, compression))
    tracemalloc.start()
    try:
        with pytest.raises(tfrecord.DataLossError, match=r"truncated record.*claims\.tfrecord"):
            list(tfrecord.read_record_chunks(path, compression, chunk_bytes=16))
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < SLACK_BYTES


@pytest.mark.parametrize("length", [2**31, 2**63, 2**64 - 1])
def test_a_record_length_over_the_cap_is_refused_naming_the_file(tmp_path, length):
    """Issue 29's weak case: a length of 2^63 gave a bare MemoryError or OverflowError
    naming no file."""
    raw = length.to_bytes(8, "little")
    path = tmp_path / "huge.tfrecord"
    path.write_bytes(raw + cn.core.crc.masked_crc(raw).to_bytes(4, "little") + b"x" * 8)
    with pytest.raises(tfrecord.DataLossError, match=r"over the 2,147,483,647-byte limit.*huge"):
        list(tfrecord.read_record_chunks(path, chunk_bytes=16))
    with pytest.raises(tfrecord.DataLossError, match="huge.tfrecord"):
        list(cn.io.tf_record_iterator(path))
