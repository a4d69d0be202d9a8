"""Writing a checkpoint's files (core/checkpoint_writer.py) when the disk fills up."""

import errno
import os

import numpy as np
import pytest

from colonnade.core import checkpoint_writer


def test_a_full_disk_names_the_file_and_leaves_no_checkpoint(tmp_path, monkeypatch):
    """Issue 29: a full disk gave numpy's bare "1600000 requested and 1426400 written"."""

    def short_write(f, arr, allow_pickle):
        raise OSError("1600000 requested and 1426400 written")

    monkeypatch.setattr(checkpoint_writer.np, "save", short_write)
    prefix = tmp_path / "model.ckpt-1"
    with pytest.raises(OSError, match="is the disk full. Nothing was saved") as info:
        checkpoint_writer.write_checkpoint(prefix, {"w": (np.zeros(3), {})})
    assert info.value.errno == errno.ENOSPC and info.value.filename.endswith(".npy")
    assert str(tmp_path) in info.value.filename
    assert os.listdir(tmp_path) == []  # the temporary directory is gone, nothing half-made


def test_other_write_failures_are_not_called_a_full_disk(tmp_path, monkeypatch):
    def no_permission(f, arr, allow_pickle):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(checkpoint_writer.np, "save", no_permission)
    with pytest.raises(PermissionError) as info:
        checkpoint_writer.write_checkpoint(tmp_path / "c", {"w": (np.zeros(3), {})})
    assert "disk full" not in str(info.value)
