"""TensorFlow checkpoints read without TensorFlow, against fixtures written by TF 2.15.1.

The fixtures and what TF reported about them come from ``golden/make_tf_checkpoints.py``.
"""

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

import colonnade as cn
from colonnade.core import tf_bundle, tf_bundle_index
from colonnade.core.checkpoint_format import (
    CheckpointCorruptedError,
    checkpoints_iterator,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)
from colonnade.core.crc import masked_crc
from colonnade.core.wire_format import varint as _varint

FIXTURES = Path(__file__).parent / "golden" / "tf_checkpoints"
CASES = [("tf2", "ckpt-1"), ("tf1", "model.ckpt-1"), ("tf1", "model.ckpt-2")]
Variable = cn.core.Variable


def _expected(directory, name):
    """``[(name, shape, dtype, value)]`` as TF reported them, in TF's order."""
    meta = json.loads((FIXTURES / directory / "expected.json").read_text())
    arrays = np.load(FIXTURES / directory / "expected.npz")
    out = []
    for item in meta["checkpoints"][name]:
        if "hex" in item:
            value = np.array([bytes.fromhex(h) for h in item["hex"]] or [], dtype=object)
            value = value.reshape(item["shape"])
        else:
            value = arrays[item["npz_key"]]
        out.append((item["name"], item["shape"], item["dtype"], value))
    return out


def _copy(tmp_path, directory="tf1"):
    shutil.copytree(FIXTURES / directory, tmp_path / directory)
    return tmp_path / directory


# --------------------------------------------------------------------------- TF's view


@pytest.mark.parametrize("directory,name", CASES)
def test_names_and_shapes_are_tfs(directory, name):
    expected = _expected(directory, name)
    got = list_variables(FIXTURES / directory / name)
    assert got == [(n, shape) for n, shape, _, _ in expected]


@pytest.mark.parametrize("directory,name", CASES)
def test_every_value_equals_tfs_exactly(directory, name):
    prefix = FIXTURES / directory / name
    dtypes = load_checkpoint(prefix).get_variable_to_dtype_map()
    for var, _, tf_dtype, value in _expected(directory, name):
        got = load_variable(prefix, var)
        assert got.dtype == value.dtype, var
        assert dtypes[var] == (np.dtype(object) if tf_dtype == "string" else np.dtype(tf_dtype))
        np.testing.assert_array_equal(got, value, err_msg=var)


def test_strings_come_back_as_bytes():
    words = load_variable(FIXTURES / "tf2", "words/.ATTRIBUTES/VARIABLE_VALUE")
    assert words.dtype == object and words.shape == (2, 2)
    assert words.tolist() == [[b"alpha", b""], [b"gamma\x00delta", "\u00e9t\u00e9".encode()]]
    graph = load_variable(FIXTURES / "tf2", "_CHECKPOINTABLE_OBJECT_GRAPH")
    assert graph.shape == () and isinstance(graph.item(), bytes)


def test_tf2_object_names_and_numeric_dtypes():
    reader = load_checkpoint(FIXTURES / "tf2" / "ckpt-1")
    assert reader.has_tensor("model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE")
    assert not reader.has_tensor("model/layer/kernel")
    assert reader.get_tensor("step/.ATTRIBUTES/VARIABLE_VALUE") == 2**40 + 3
    assert reader.get_tensor("flag/.ATTRIBUTES/VARIABLE_VALUE").dtype == np.bool_
    assert reader.get_variable_to_shape_map()["matrix/.ATTRIBUTES/VARIABLE_VALUE"] == [3, 4]
    np.testing.assert_array_equal(
        load_variable(FIXTURES / "tf2", "matrix/.ATTRIBUTES/VARIABLE_VALUE:0"),
        np.arange(12, dtype=np.float32).reshape(3, 4) / np.float32(7.0),
    )


def test_partitioned_variable_and_its_slot_are_joined():
    prefix = FIXTURES / "tf1" / "model.ckpt-2"
    names = [n for n, _ in list_variables(prefix)]
    assert not any("part_" in n or n.startswith("\x00") for n in names)
    reader = load_checkpoint(prefix)
    for name in ["dnn/embedding", "dnn/embedding/Adagrad"]:
        entry = reader._entries[name]
        assert [s[0] for s in entry["slices"]] == [(0, 4), (4, 3), (7, 3)]  # 10 rows in 3
        assert reader.get_tensor(name).shape == (10, 4)
    # rows 0, 3 and 9 were looked up: their accumulators grew, the others kept 0.1
    acc = reader.get_tensor("dnn/embedding/Adagrad")
    assert (acc[[1, 2, 4, 5, 6, 7, 8]] == np.float32(0.1)).all()
    assert (acc[[0, 3, 9]] > 0.1).all()


def test_slice_key_encoding_sorts_as_its_numbers():
    numbers = [-(2**63), -(2**40), -8193, -65, -64, -1, 0, 1, 63, 64, 8191, 8192, 2**62, 2**63 - 1]
    encoded = [tf_bundle_index._ordered_int(n) for n in numbers]
    assert encoded == sorted(encoded)
    assert len(set(encoded)) == len(encoded)
    assert tf_bundle_index._ordered_bytes(b"a\x00b\xff") == b"a\x00\xffb\xff\x00\x00\x01"


# --------------------------------------------------------------------------- finding checkpoints


def test_latest_checkpoint_finds_the_tf_prefix():
    assert latest_checkpoint(FIXTURES / "tf1") == str(FIXTURES / "tf1" / "model.ckpt-2")
    assert latest_checkpoint(FIXTURES / "tf2") == str(FIXTURES / "tf2" / "ckpt-1")
    assert list(checkpoints_iterator(FIXTURES / "tf1", timeout=0)) == [
        str(FIXTURES / "tf1" / "model.ckpt-2")
    ]
    # a directory reads as its latest checkpoint
    np.testing.assert_array_equal(load_variable(FIXTURES / "tf1", "global_step"), 2)


def test_latest_checkpoint_without_state_file_finds_newest_prefix(tmp_path):
    d = _copy(tmp_path)
    (d / "checkpoint").unlink()
    assert latest_checkpoint(d) == str(d / "model.ckpt-2")


def test_latest_checkpoint_skips_a_truncated_tf_checkpoint(tmp_path, caplog):
    d = _copy(tmp_path)
    data = d / "model.ckpt-2.data-00000-of-00001"
    data.write_bytes(data.read_bytes()[:-10])
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        assert latest_checkpoint(d) == str(d / "model.ckpt-1")
    assert "truncated" in caplog.text and "model.ckpt-2.data-00000-of-00001" in caplog.text


# --------------------------------------------------------------------------- damage


def test_flipped_byte_in_a_data_shard_names_file_and_tensor(tmp_path):
    d = _copy(tmp_path)
    prefix = d / "model.ckpt-2"
    entry = load_checkpoint(prefix)._entries["dnn/hiddenlayer_0/kernel"]
    data = d / "model.ckpt-2.data-00000-of-00001"
    raw = bytearray(data.read_bytes())
    raw[entry["offset"] + 3] ^= 0x10
    data.write_bytes(bytes(raw))
    with pytest.raises(CheckpointCorruptedError, match=r"'dnn/hiddenlayer_0/kernel'.*data-00000"):
        load_variable(prefix, "dnn/hiddenlayer_0/kernel")
    np.testing.assert_array_equal(load_variable(prefix, "global_step"), 2)  # the rest reads
    assert latest_checkpoint(d, verify=True) == str(d / "model.ckpt-1")


def test_flipped_byte_in_a_slice_or_string_is_found(tmp_path):
    d = _copy(tmp_path, "tf2")
    prefix = d / "ckpt-1"
    name = "words/.ATTRIBUTES/VARIABLE_VALUE"
    entry = load_checkpoint(prefix)._entries[name]
    data = d / "ckpt-1.data-00000-of-00001"
    raw = bytearray(data.read_bytes())
    raw[entry["offset"] + entry["size"] - 1] ^= 0x01  # in the string bytes
    data.write_bytes(bytes(raw))
    with pytest.raises(CheckpointCorruptedError, match="words/.ATTRIBUTES.*checksum"):
        load_variable(prefix, name)


def test_truncated_index_names_the_file(tmp_path):
    d = _copy(tmp_path)
    index = d / "model.ckpt-2.index"
    index.write_bytes(index.read_bytes()[:-20])
    with pytest.raises(CheckpointCorruptedError, match=r"model\.ckpt-2\.index.*truncated"):
        load_checkpoint(d / "model.ckpt-2")
    assert latest_checkpoint(d) == str(d / "model.ckpt-1")


def test_corrupt_index_block_names_the_file(tmp_path):
    d = _copy(tmp_path)
    index = d / "model.ckpt-1.index"
    raw = bytearray(index.read_bytes())
    raw[20] ^= 0xFF  # inside the first data block
    index.write_bytes(bytes(raw))
    with pytest.raises(CheckpointCorruptedError, match=r"model\.ckpt-1\.index.*CRC32C"):
        list_variables(d / "model.ckpt-1")


def test_missing_tensor_suggests_close_names():
    with pytest.raises(KeyError, match="did you mean.*dnn/hiddenlayer_0/kernel"):
        load_variable(FIXTURES / "tf1" / "model.ckpt-1", "dnn/hiddenlayer_0/kernal")


# --------------------------------------------------------------------------- warm start


def test_warm_start_from_a_tf_checkpoint_with_vocab_remap():
    prefix = FIXTURES / "tf1" / "model.ckpt-2"
    old = load_variable(prefix, "dnn/embedding")  # 10 rows: tokens t0..t9
    old_vocab = [f"t{i}" for i in range(10)]
    emb = Variable(np.full((4, 4), 9.0, np.float32), name="emb")
    kernel = Variable(np.zeros((4, 2), np.float32), name="dnn/hiddenlayer_0/kernel")
    info = cn.train.VocabInfo(["t9", "new", "t3"], 3, num_oov_buckets=1, old_vocab=old_vocab)
    done = cn.train.warm_start(
        prefix,
        ["emb", "dnn/hiddenlayer_0/kernel"],
        var_name_to_vocab_info={"emb": info},
        var_name_to_prev_var_name={"emb": "dnn/embedding"},
        variables=[emb, kernel],
    )
    assert sorted(done) == ["dnn/hiddenlayer_0/kernel", "emb"]
    np.testing.assert_array_equal(emb.numpy(), [old[9], np.zeros(4), old[3], np.zeros(4)])
    np.testing.assert_array_equal(kernel.numpy(), load_variable(prefix, "dnn/hiddenlayer_0/kernel"))


def test_init_from_checkpoint_reads_tf2_object_names():
    w = Variable(np.zeros((2, 2), np.float32), name="dense/kernel")
    loaded = cn.train.init_from_checkpoint(
        FIXTURES / "tf2", {"model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE": w}
    )
    assert loaded == {"dense/kernel": "model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE"}
    np.testing.assert_array_equal(w.numpy(), [[0.5, -1.5], [2.25, 3.0]])


def test_colonnade_reader_refuses_a_tf_checkpoint_clearly():
    from colonnade.core.checkpoint_format import CheckpointReader

    with pytest.raises(ValueError, match="is a TensorFlow checkpoint.*warm_start"):
        CheckpointReader(FIXTURES / "tf1")


def test_overlapping_slices_of_a_partitioned_variable_are_refused():
    """Issue 29: slices that overlap, with sizes adding up to the whole, left the rest of
    the variable zero, silently."""
    reader = load_checkpoint(FIXTURES / "tf1" / "model.ckpt-2")
    entry = reader._entries["dnn/embedding"]
    first, second, _ = entry["slices"]  # rows 0-3, 4-6, 7-9
    entry["slices"] = [first, second, second]  # 4 + 3 + 3 rows: 10, but 7-9 never read
    with pytest.raises(CheckpointCorruptedError, match=r"slice \[\(4, 3\).*overlaps its slice"):
        reader.get_tensor("dnn/embedding")


def _block(entries):
    """A LevelDB table block of ``[(key, value)]`` (no shared prefixes), with its trailer."""
    body = b"".join(_varint(0) + _varint(len(k)) + _varint(len(v)) + k + v for k, v in entries)
    body += (0).to_bytes(4, "little") + (1).to_bytes(4, "little")  # one restart, at 0
    return body + b"\x00" + masked_crc(body + b"\x00").to_bytes(4, "little")


def _table(data_blocks, handles):
    """A LevelDB table: ``data_blocks`` laid out in turn, an index block listing
    ``handles`` (indices into them, repeats allowed), and the footer."""
    out, placed = b"", []
    for block in data_blocks:
        placed.append((len(out), len(block) - 5))
        out += block
    index = _block(
        [(b"k%d" % i, _varint(placed[h][0]) + _varint(placed[h][1])) for i, h in enumerate(handles)]
    )
    index_handle = _varint(len(out)) + _varint(len(index) - 5)
    out += index
    footer = (_varint(0) + _varint(0) + index_handle).ljust(40, b"\x00")
    return out + footer + tf_bundle_index.TABLE_MAGIC.to_bytes(8, "little")


def test_an_index_that_repeats_a_data_block_is_refused():
    """Issue 29: a 1 MB index repeating one data block 20,000 times took minutes to list;
    a table's blocks follow one another, so each is read at most once."""
    blocks = [_block([(b"a", b"1")]), _block([(b"b", b"2")])]
    assert tf_bundle.read_table(_table(blocks, [0, 1]), "t") == {b"a": b"1", b"b": b"2"}
    with pytest.raises(ValueError, match="data block 1 of t starts inside the block before it"):
        tf_bundle.read_table(_table(blocks, [0, 0]), "t")


def test_an_index_claiming_more_than_its_files_hold_is_refused_before_allocating():
    """Issue 29: a TF index claiming 10^12 elements raised a bare MemoryError, and a
    negative offset an OSError [Errno 22]."""
    reader = load_checkpoint(FIXTURES / "tf1" / "model.ckpt-2")
    whole = reader._entries["dnn/embedding"]
    whole["shape"] = [10**12, 4]
    with pytest.raises(
        CheckpointCorruptedError, match="needs 16,000,000,000,000 bytes but its slices hold 160"
    ):
        reader.get_tensor("dnn/embedding")
    name = "dnn/hiddenlayer_0/kernel"
    entry = reader._entries[name]
    entry["shape"], entry["size"] = [10**12], 4 * 10**12
    with pytest.raises(CheckpointCorruptedError, match="outside the file's"):
        reader.get_tensor(name)
    entry["size"], entry["shape"], entry["offset"] = 4, [1], -8
    with pytest.raises(CheckpointCorruptedError, match="at offset -8, outside the file's"):
        reader.get_tensor(name)


def test_a_slice_outside_its_tensor_is_refused():
    reader = load_checkpoint(FIXTURES / "tf1" / "model.ckpt-2")
    entry = reader._entries["dnn/embedding"]
    first, second, third = entry["slices"]
    entry["slices"] = [first, second, [(8, 3), third[1]]]  # rows 8-10 of 10
    with pytest.raises(CheckpointCorruptedError, match="lies outside its shape"):
        reader.get_tensor("dnn/embedding")
