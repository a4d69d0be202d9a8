"""Recovery from a lost state file or a damaged checkpoint, and no silent overwrite:
latest_checkpoint falls back to the newest intact checkpoint, saying what it skipped."""

import json
import logging
import os

import numpy as np
import pytest

import colonnade as cn
from colonnade.core import checkpoint_format as fmt

T = cn.train
Variable = cn.core.Variable


def three_checkpoints(directory):
    """ckpt-1..3 of a variable ``v`` holding 1, 2, 3 (10 floats each)."""
    v = Variable(np.zeros(10, np.float32))
    manager = T.CheckpointManager(T.Checkpoint(v=v), directory, max_to_keep=None)
    for i in (1, 2, 3):
        v.assign(np.full(10, float(i), np.float32))
        manager.save()
    return [str(directory / f"ckpt-{i}") for i in (1, 2, 3)]


def array_file(checkpoint, key="v"):
    with open(os.path.join(checkpoint, "index.json")) as f:
        return os.path.join(checkpoint, json.load(f)["arrays"][key]["file"])


def flip_last_byte(path):
    with open(path, "r+b") as f:
        f.seek(-1, os.SEEK_END)
        byte = f.read(1)
        f.seek(-1, os.SEEK_END)
        f.write(bytes([byte[0] ^ 0xFF]))


def truncate(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) - 8)


DAMAGE = {
    "truncated array": (lambda c: truncate(array_file(c)), "truncated"),
    "missing array file": (lambda c: os.remove(array_file(c)), "missing"),
    "missing index": (lambda c: os.remove(os.path.join(c, "index.json")), "no index.json"),
    "garbled index": (
        lambda c: open(os.path.join(c, "index.json"), "w").write("{not json"),
        "truncated or corrupted",
    ),
}


# --------------------------------------------------------------------------- state file


def test_a_lost_state_file_falls_back_to_the_newest_checkpoint(tmp_path, caplog):
    paths = three_checkpoints(tmp_path)
    os.remove(tmp_path / "checkpoint")
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        assert T.latest_checkpoint(tmp_path) == paths[-1]
    assert "no 'checkpoint' state file" in caplog.text and "ckpt-3" in caplog.text
    assert T.load_variable(tmp_path, "v")[0] == 3.0  # readers of the directory too


def test_a_corrupt_state_file_falls_back_to_the_newest_checkpoint(tmp_path, caplog):
    paths = three_checkpoints(tmp_path)
    (tmp_path / "checkpoint").write_bytes(b"\x00\xffgarbage")
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        assert T.latest_checkpoint(tmp_path) == paths[-1]
    assert "state file is unreadable" in caplog.text
    manager = T.CheckpointManager(T.Checkpoint(v=Variable(np.zeros(10))), tmp_path, None)
    assert manager.latest_checkpoint == paths[-1]


def test_a_corrupt_state_file_with_nothing_to_fall_back_on_is_an_error(tmp_path):
    (tmp_path / "checkpoint").write_text("model_checkpoint_path ckpt-1\n")
    os.mkdir(tmp_path / "ckpt-1")
    np.save(tmp_path / "ckpt-1" / "00000_v.npy", np.ones(3))  # damaged: no index
    with pytest.raises(T.CheckpointCorruptedError, match=r"no intact checkpoint.*ckpt-1"):
        T.latest_checkpoint(tmp_path)


def test_the_newest_checkpoint_is_picked_by_age_not_by_name(tmp_path):
    paths = three_checkpoints(tmp_path)
    os.remove(tmp_path / "checkpoint")
    old = os.path.getmtime(os.path.join(paths[2], "index.json")) - 100
    os.utime(os.path.join(paths[2], "index.json"), (old, old))  # ckpt-3 is the oldest now
    assert T.latest_checkpoint(tmp_path) == paths[1]


# --------------------------------------------------------------------------- damage


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_damaged_latest_checkpoint_is_skipped_with_a_warning(tmp_path, caplog, kind):
    paths = three_checkpoints(tmp_path)
    damage, problem = DAMAGE[kind]
    damage(paths[-1])
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        assert T.latest_checkpoint(tmp_path) == paths[1]
    assert f"skipping damaged checkpoint {paths[-1]}" in caplog.text
    assert problem in caplog.text
    restored = Variable(np.zeros(10, np.float32))
    T.Checkpoint(v=restored).restore(tmp_path)
    assert restored.numpy()[0] == 2.0


def test_a_bad_checksum_is_found_by_verify_and_by_restore(tmp_path, caplog):
    paths = three_checkpoints(tmp_path)
    flip_last_byte(array_file(paths[-1]))
    assert T.latest_checkpoint(tmp_path) == paths[-1]  # the fast check reads no array bytes
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        assert T.latest_checkpoint(tmp_path, verify=True) == paths[1]
    assert "checksum mismatch" in caplog.text and "ckpt-3" in caplog.text
    with pytest.raises(T.CheckpointCorruptedError, match="checksum mismatch"):
        T.Checkpoint(v=Variable(np.zeros(10, np.float32))).restore(paths[-1])


def test_all_damaged_means_no_checkpoint(tmp_path, caplog):
    paths = three_checkpoints(tmp_path)
    for path in paths:
        truncate(array_file(path))
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        assert T.latest_checkpoint(tmp_path) is None
    assert all(f"skipping damaged checkpoint {p}" in caplog.text for p in paths)


def test_temporary_and_moved_aside_directories_are_not_candidates(tmp_path):
    (first,) = three_checkpoints(tmp_path)[:1]
    for name in ("ckpt-7.tmp-1234@host-abcd1234", "ckpt-8.damaged-1234abcd", "notes-9"):
        os.mkdir(tmp_path / name)
    os.remove(tmp_path / "checkpoint")
    assert fmt.numbered_checkpoints(str(tmp_path))[-1] == first
    names = [os.path.basename(p) for p in fmt.numbered_checkpoints(str(tmp_path))]
    assert names == ["ckpt-3", "ckpt-2", "ckpt-1"]


# --------------------------------------------------------------------------- no overwrite


def test_saving_the_same_values_again_keeps_the_checkpoint(tmp_path):
    v = Variable(np.ones(3, np.float32))
    manager = T.CheckpointManager(T.Checkpoint(v=v), tmp_path, max_to_keep=None)
    path = manager.save(checkpoint_number=5)
    stamp = os.stat(os.path.join(path, "index.json")).st_mtime_ns
    assert manager.save(checkpoint_number=5) == path  # save_counter differs: bookkeeping
    assert os.stat(os.path.join(path, "index.json")).st_mtime_ns == stamp


def test_saving_other_values_over_a_checkpoint_is_refused(tmp_path):
    v = Variable(np.ones(3, np.float32))
    ckpt = T.Checkpoint(v=v)
    manager = T.CheckpointManager(ckpt, tmp_path, max_to_keep=None)
    path = manager.save(checkpoint_number=5)
    v.assign(np.zeros(3, np.float32))
    with pytest.raises(FileExistsError, match=r"ckpt-5 already exists and holds different"):
        manager.save(checkpoint_number=5)
    assert T.load_variable(path, "v").tolist() == [1.0, 1.0, 1.0]
    assert int(ckpt.save_counter.numpy()) == 1  # the failed save is not counted
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-5"]


def test_saving_over_a_damaged_checkpoint_moves_it_aside(tmp_path, caplog):
    v = Variable(np.ones(3, np.float32))
    manager = T.CheckpointManager(T.Checkpoint(v=v), tmp_path, max_to_keep=None)
    path = manager.save(checkpoint_number=5)
    flip_last_byte(array_file(path))
    v.assign(np.zeros(3, np.float32))
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        assert manager.save(checkpoint_number=5) == path
    assert "is damaged" in caplog.text and "moved it aside" in caplog.text
    assert T.load_variable(path, "v").tolist() == [0.0, 0.0, 0.0]
    aside = [n for n in os.listdir(tmp_path) if ".damaged-" in n]
    assert len(aside) == 1 and aside[0].startswith("ckpt-5.damaged-")


def test_a_path_that_is_not_a_checkpoint_is_never_replaced(tmp_path):
    (tmp_path / "ckpt-1").mkdir()
    (tmp_path / "ckpt-1" / "mine.txt").write_text("user data")
    with pytest.raises(FileExistsError, match="is not a colonnade checkpoint"):
        T.Checkpoint(v=Variable([1.0])).write(tmp_path / "ckpt-1")
    assert (tmp_path / "ckpt-1" / "mine.txt").read_text() == "user data"
