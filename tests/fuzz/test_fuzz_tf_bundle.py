"""Fuzzing the TF checkpoint (tensor bundle) reader (issue 29).

Seeds are TensorFlow-written checkpoints (``tests/core/golden/tf_checkpoints``: a
partitioned variable, strings, TF2 object names). A mutation hits the index file as
stored (caught mostly by its block checksums), one index entry or the header *behind*
valid checksums (the table is rewritten, so the parsers of entries, shapes and slices
are reached), or a data shard. Reading every tensor must work or raise
``CheckpointCorruptedError`` / ``CheckpointVersionError`` (or the ``TypeError`` for a
dtype colonnade does not read), in bounded time and memory.
"""

import shutil
import tracemalloc
from pathlib import Path

import pytest
from fuzzhelpers import FUZZ, HUGE, bounded, mutate, mutations, varint
from hypothesis import given
from hypothesis import strategies as st

from colonnade.core import tf_bundle, tf_bundle_index
from colonnade.core.checkpoint_errors import CheckpointCorruptedError, CheckpointVersionError
from colonnade.core.crc import masked_crc

GOLDEN = Path(__file__).parents[1] / "core" / "golden" / "tf_checkpoints"
SEEDS = [("tf1", "model.ckpt-2"), ("tf2", "ckpt-1")]
# Memory reading a mutated checkpoint may take beyond its files' size.
SLACK_BYTES = 32 << 20


def write_table(entries: dict) -> bytes:
    """A LevelDB table holding ``entries`` (bytes -> bytes) in one data block, keys sorted,
    every key stored whole (restart points only at the start), with valid checksums."""

    def block(pairs):
        body = b"".join(varint(0) + varint(len(k)) + varint(len(v)) + k + v for k, v in pairs)
        body += bytes(4) + (1).to_bytes(4, "little")
        return body + b"\x00" + masked_crc(body + b"\x00").to_bytes(4, "little")

    data = block(sorted(entries.items()))
    handle = varint(0) + varint(len(data) - 5)
    index = block([(b"\xff", handle)])
    footer = (varint(0) + varint(0) + varint(len(data)) + varint(len(index) - 5)).ljust(40, b"\0")
    return data + index + footer + tf_bundle_index.TABLE_MAGIC.to_bytes(8, "little")


def copy_seed(tmp_path, seed):
    directory, prefix = seed
    target = tmp_path / directory
    shutil.copytree(GOLDEN / directory, target)
    return target / prefix


def read_everything(prefix):
    """Every tensor through each way colonnade reads one."""
    reader = tf_bundle.TFCheckpointReader(str(prefix))
    reader.get_variable_to_shape_map()
    for name in reader.keys():
        reader.get_tensor(name)
        reader.get_slices(name)
    reader.problem(verify=True)
    tf_bundle.bundle_problem(str(prefix), verify=True)


def check_bounded_read(prefix):
    size = sum(p.stat().st_size for p in prefix.parent.iterdir())
    tracemalloc.start()
    try:
        with bounded():
            read_everything(prefix)
    except (CheckpointCorruptedError, CheckpointVersionError) as err:
        assert str(prefix) in str(err), err
    except TypeError as err:  # a dtype colonnade does not read: named, not a crash
        assert "which colonnade does not read" in str(err), err
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < SLACK_BYTES + 8 * size, f"reading {size} bytes of checkpoint took {peak}"


def index_of(prefix) -> Path:
    return Path(str(prefix) + ".index")


def planted_field():
    """A protobuf field appended to an entry (the last occurrence wins): a hostile dtype,
    shard, offset, size, a shape dimension or a slice extent."""
    hostile = st.one_of(st.sampled_from(HUGE), st.integers(0, 2**64 - 1), st.integers(0, 40))

    def encode(choice):
        kind, value = choice
        if kind == "shape":  # TensorShapeProto.dim { size }
            dim = b"\x08" + varint(value)
            return b"\x12" + varint(len(dim) + 2) + b"\x12" + varint(len(dim)) + dim
        if kind == "slice":  # TensorSliceProto.extent { start, length }
            extent = b"\x08" + varint(value) + b"\x10" + varint(value // 2)
            return b"\x3a" + varint(len(extent) + 2) + b"\x0a" + varint(len(extent)) + extent
        number = {"dtype": 1, "shard": 3, "offset": 4, "size": 5}[kind]
        return varint(number << 3) + varint(value)

    kinds = st.sampled_from(["dtype", "shard", "offset", "size", "shape", "slice"])
    return st.tuples(kinds, hostile).map(encode)


@FUZZ
@given(seed=st.sampled_from(SEEDS), ops=mutations())
def test_a_mutated_index_file_reads_or_raises(tmp_path_factory, seed, ops):
    prefix = copy_seed(tmp_path_factory.mktemp("fuzz"), seed)
    index_of(prefix).write_bytes(mutate(index_of(prefix).read_bytes(), ops))
    check_bounded_read(prefix)


@FUZZ
@given(
    seed=st.sampled_from(SEEDS),
    which=st.integers(0, 1000),
    ops=st.one_of(mutations(), st.lists(planted_field(), min_size=1, max_size=3)),
)
def test_a_mutated_entry_behind_valid_checksums_reads_or_raises(tmp_path_factory, seed, which, ops):
    prefix = copy_seed(tmp_path_factory.mktemp("fuzz"), seed)
    table = tf_bundle.read_table(index_of(prefix).read_bytes(), "seed")
    key = sorted(table)[which % len(table)]  # the empty key is the header
    if isinstance(ops[0], bytes):
        table[key] += b"".join(ops)
    else:
        table[key] = mutate(table[key], ops)
    index_of(prefix).write_bytes(write_table(table))
    check_bounded_read(prefix)


@FUZZ
@given(seed=st.sampled_from(SEEDS), ops=mutations())
def test_a_mutated_data_shard_reads_or_raises(tmp_path_factory, seed, ops):
    prefix = copy_seed(tmp_path_factory.mktemp("fuzz"), seed)
    (shard,) = prefix.parent.glob(prefix.name + ".data-*")
    shard.write_bytes(mutate(shard.read_bytes(), ops))
    check_bounded_read(prefix)


def test_the_table_writer_round_trips_a_seed(tmp_path):
    """The fuzzers' table writer is right: a rewritten seed index reads as TF's did."""
    prefix = copy_seed(tmp_path, SEEDS[0])
    expected = {n: v.tolist() for n, v in read_all(prefix).items()}
    table = tf_bundle.read_table(index_of(prefix).read_bytes(), "seed")
    index_of(prefix).write_bytes(write_table(table))
    assert {n: v.tolist() for n, v in read_all(prefix).items()} == expected


def read_all(prefix):
    reader = tf_bundle.TFCheckpointReader(str(prefix))
    return {name: reader.get_tensor(name) for name in reader.keys()}


# ----------------------------------------------------------------- regression crashers


@pytest.fixture
def seed_prefix(tmp_path):
    return copy_seed(tmp_path, SEEDS[0])


def message(number: int, body: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(body)) + body


def entry_proto(dtype=1, shape=(), offset=0, size=0, slices=()):
    """A BundleEntryProto (shard 0, no checksum): ``slices`` as ``[(start, length)]``
    lists."""
    dims = b"".join(message(2, b"\x08" + varint(d % 2**64)) for d in shape)
    out = b"\x08" + varint(dtype) + message(2, dims) + b"\x20" + varint(offset % 2**64)
    out += b"\x28" + varint(size % 2**64)
    for extents in slices:
        body = b"".join(message(1, b"\x08" + varint(s) + b"\x10" + varint(n)) for s, n in extents)
        out += message(7, body)
    return out


def rewrite_entry(prefix, key: bytes, value: bytes):
    table = tf_bundle.read_table(index_of(prefix).read_bytes(), "seed")
    table[key] = value
    index_of(prefix).write_bytes(write_table(table))


def test_a_header_field_of_the_wrong_wire_type_is_corruption(seed_prefix):
    """Found by the fuzzer: a header whose VersionDef (field 3) was a number raised
    ``TypeError: object of type 'int' has no len()``."""
    rewrite_entry(seed_prefix, b"", b"\x08\x01\x18\x80\x80\x80\x08")
    with pytest.raises(CheckpointCorruptedError, match="field 3 of .* should be a message"):
        tf_bundle.TFCheckpointReader(str(seed_prefix))


def test_a_negative_size_is_corruption(tmp_path):
    """Found by the fuzzer: a string tensor whose size was negative (2^63 as int64) ended
    in ``ValueError: read length must be non-negative``."""
    prefix = copy_seed(tmp_path, SEEDS[1])
    name = b"words/.ATTRIBUTES/VARIABLE_VALUE"
    rewrite_entry(prefix, name, entry_proto(7, [2, 2], 91, 2**63))
    with pytest.raises(CheckpointCorruptedError, match=r"places -9,223,.* outside the file's"):
        tf_bundle.TFCheckpointReader(str(prefix)).get_tensor(name.decode())


@pytest.mark.parametrize(
    "shape,match",
    [([-3], "has a dimension of -3"), ([2**32, 2**32], r"the index records 0 bytes for")],
)
def test_a_hostile_shape_is_corruption(seed_prefix, shape, match):
    """A negative dimension reached numpy (its own ValueError), and 2^32 x 2^32 elements
    of 0 bytes passed the size check (the element count wrapped around in int64)."""
    rewrite_entry(seed_prefix, b"global_step", entry_proto(9, shape, 400, 0))
    with pytest.raises(CheckpointCorruptedError, match=match):
        tf_bundle.TFCheckpointReader(str(seed_prefix)).get_tensor("global_step")


def test_a_string_variable_claiming_a_trillion_elements_is_refused_before_allocating(
    tmp_path,
):
    """Partitioned strings skipped the size check: one slice claiming 10^12 elements (its
    entry 29 bytes) allocated the whole object array first (MemoryError)."""
    prefix = copy_seed(tmp_path, SEEDS[1])
    name = "words/.ATTRIBUTES/VARIABLE_VALUE"
    whole = [(0, 10**12)]
    rewrite_entry(prefix, name.encode(), entry_proto(7, [10**12], slices=[whole]))
    rewrite_entry(prefix, tf_bundle.slice_key(name, whole), entry_proto(7, [], 91, 29))
    tracemalloc.start()
    try:
        with pytest.raises(CheckpointCorruptedError, match="needs at least 1,000,000,000,000"):
            tf_bundle.TFCheckpointReader(str(prefix)).get_tensor(name)
    finally:
        tracemalloc.stop()


def test_twenty_thousand_slices_are_checked_in_linear_time(seed_prefix):
    """Slices were compared pair by pair in Python: 20,000 one-row slices listed in a
    300 KB index took minutes. Cut along one axis (as TF cuts) they are sorted instead;
    cut along two, more than 4,096 are refused."""
    rows = 20_000
    slices = [[(i, 1), (0, 4)] for i in range(rows)]
    slices[-1] = [(rows - 2, 1), (0, 4)]  # a repeat, found among 20,000
    rewrite_entry(seed_prefix, b"dnn/embedding", entry_proto(1, [rows, 4], slices=slices))
    reader = tf_bundle.TFCheckpointReader(str(seed_prefix))
    with bounded(), pytest.raises(CheckpointCorruptedError, match=r"\(19998, 1\).*overlaps"):
        reader.get_tensor("dnn/embedding")
    grid = [[(i, 1), (j, 1)] for i in range(100) for j in range(50)]
    rewrite_entry(seed_prefix, b"dnn/embedding", entry_proto(1, [100, 50], slices=grid))
    reader = tf_bundle.TFCheckpointReader(str(seed_prefix))
    with bounded(), pytest.raises(CheckpointCorruptedError, match="5,000 slices cut along"):
        reader.get_tensor("dnn/embedding")
