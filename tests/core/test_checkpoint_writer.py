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


def test_a_full_disk_found_at_fsync_names_the_file(tmp_path, monkeypatch):
    """With delayed allocation the disk may be found full only when the data is synced."""
    real_fsync = os.fsync

    def fsync(fd):
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".npy"):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(checkpoint_writer.os, "fsync", fsync)
    with pytest.raises(OSError, match="is the disk full. Nothing was saved") as info:
        checkpoint_writer.write_checkpoint(tmp_path / "c", {"w": (np.zeros(3), {})})
    assert info.value.errno == errno.ENOSPC and info.value.filename.endswith(".npy")
    assert os.listdir(tmp_path) == []


def test_every_array_file_is_synced_before_the_index_is_written(tmp_path, monkeypatch):
    events = []
    real_fsync, real_open = os.fsync, open

    def fsync(fd):
        events.append(("fsync", os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))))
        real_fsync(fd)

    def tracking_open(path, *args, **kwargs):
        if os.path.basename(str(path)) == "index.json":
            events.append(("write", "index.json"))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(checkpoint_writer.os, "fsync", fsync)
    monkeypatch.setattr("builtins.open", tracking_open)
    entries = {f"v{i}": (np.full(i + 1, float(i)), {}) for i in range(20)}
    checkpoint_writer.write_checkpoint(tmp_path / "c", entries)
    index_at = events.index(("write", "index.json"))
    synced = {name for kind, name in events[:index_at] if kind == "fsync"}
    assert synced == {n for n in os.listdir(tmp_path / "c") if n.endswith(".npy")}
    assert len(synced) == 20
