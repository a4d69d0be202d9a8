"""core/tf_bundle_writer.py: TF tensor bundles written without TF. TF 2.15 itself reads
what it writes in ``tests/estimators/golden/check_tf_reads_takeover.py`` (recorded in
``tf_takeover/tf_reads_takeover.json``); here the reader of core/tf_bundle.py, which is
checked against TF-written fixtures, reads it back."""

import os

import numpy as np
import pytest

import colonnade as cn
from colonnade.core.checkpoint_writer import delete_checkpoint
from colonnade.core.tf_bundle import TFCheckpointReader
from colonnade.core.tf_bundle_writer import write_tf_bundle

TENSORS = {
    "dnn/logits/kernel": np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5,
    "global_step": np.int64(123456789012),
    "beta1_power": np.float32(0.9**7),
    "flags": np.array([True, False, True]),
    "ids": np.array([-3, 0, 2**31 - 1], np.int32),
    "f64": np.array([np.pi], np.float64),
    "empty": np.zeros((0, 4), np.float32),
    "half": np.array([1.5, -2.0], np.float16),
}


def test_what_is_written_reads_back_with_names_dtypes_shapes_and_values(tmp_path):
    prefix = str(tmp_path / "model.ckpt-7")
    write_tf_bundle(prefix, TENSORS)
    assert sorted(os.listdir(tmp_path)) == [
        "model.ckpt-7.data-00000-of-00001",
        "model.ckpt-7.index",
    ]
    reader = TFCheckpointReader(prefix)
    assert reader.get_variable_to_shape_map() == {k: list(np.shape(v)) for k, v in TENSORS.items()}
    for name, value in TENSORS.items():
        got = reader.get_tensor(name)  # checks the tensor's CRC32C
        assert got.dtype == np.asarray(value).dtype, name
        np.testing.assert_array_equal(got, value, err_msg=name)
    assert cn.train.latest_checkpoint(str(tmp_path)) == prefix  # found intact, no state file
    assert [n for n, _ in cn.train.list_variables(prefix)] == sorted(TENSORS)


def test_big_endian_arrays_are_written_little_endian(tmp_path):
    prefix = str(tmp_path / "ckpt")
    write_tf_bundle(prefix, {"w": np.array([1.0, 2.0], ">f4")})
    np.testing.assert_array_equal(TFCheckpointReader(prefix).get_tensor("w"), [1.0, 2.0])


def test_strings_are_refused_naming_the_tensor(tmp_path):
    with pytest.raises(TypeError, match=r"tensor 'vocab' has dtype <U1; a TF bundle is written"):
        write_tf_bundle(str(tmp_path / "ckpt"), {"vocab": np.array(["a", "b"])})
    assert os.listdir(tmp_path) == []


def test_deleting_a_tf_checkpoint_removes_its_files_only(tmp_path):
    write_tf_bundle(str(tmp_path / "model.ckpt-1"), {"w": np.zeros(2, np.float32)})
    write_tf_bundle(str(tmp_path / "model.ckpt-10"), {"w": np.zeros(2, np.float32)})
    delete_checkpoint(str(tmp_path / "model.ckpt-1"))
    assert sorted(os.listdir(tmp_path)) == [
        "model.ckpt-10.data-00000-of-00001",
        "model.ckpt-10.index",
    ]
