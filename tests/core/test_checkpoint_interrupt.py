"""Issue 41: an interrupt (Ctrl-C) that lands inside a save leaves one consistent state:
either the save completed and is the latest checkpoint, or it did not happen, and then no
file of it is left behind and the manager agrees with the state file."""

import os

import numpy as np
import pytest

import colonnade as cn
import colonnade.core.atomic_files as atomic_files
import colonnade.core.checkpoint_state as checkpoint_state
from colonnade.core.variables import Variable


def _interrupt_state_writes(monkeypatch, after_replace=False):
    """Make the next write of a state file raise KeyboardInterrupt: before it is renamed
    into place, or (``after_replace``) once it is, while its directory is synced."""
    if after_replace:
        real = atomic_files.fsync_dir

        def fsync_then_interrupt(path):
            real(path)
            raise KeyboardInterrupt

        monkeypatch.setattr(atomic_files, "fsync_dir", fsync_then_interrupt)
    else:

        def interrupt(path, data):
            raise KeyboardInterrupt

        monkeypatch.setattr(checkpoint_state, "write_bytes_atomic", interrupt)


def _manager(directory):
    ckpt = cn.core.Checkpoint(v=Variable(np.zeros(2, np.float32)))
    return ckpt, cn.core.CheckpointManager(ckpt, str(directory), max_to_keep=1)


def test_an_interrupted_state_write_leaves_the_previous_checkpoint_latest(tmp_path, monkeypatch):
    ckpt, manager = _manager(tmp_path)
    first = manager.save()
    ckpt.v.assign(np.ones(2, np.float32))
    _interrupt_state_writes(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        manager.save()
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1"]  # no ckpt-2, no temp
    assert cn.train.latest_checkpoint(str(tmp_path)) == first
    assert manager.latest_checkpoint == first and manager.checkpoints == [first]
    assert int(ckpt.save_counter.numpy()) == 1
    # the next save goes on as if the interrupted one never began
    second = manager.save()
    assert os.path.basename(second) == "ckpt-2"
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-2"]
    assert cn.train.load_variable(str(tmp_path), "v").tolist() == [1.0, 1.0]


def test_an_interrupt_after_the_state_is_written_keeps_the_completed_save(tmp_path, monkeypatch):
    ckpt, manager = _manager(tmp_path)
    manager.save()
    _interrupt_state_writes(monkeypatch, after_replace=True)
    with pytest.raises(KeyboardInterrupt):
        manager.save()
    monkeypatch.undo()
    latest = cn.train.latest_checkpoint(str(tmp_path))
    assert os.path.basename(latest) == "ckpt-2" and manager.latest_checkpoint == latest
    assert int(ckpt.save_counter.numpy()) == 2
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-2"]  # ckpt-1 swept


def test_checkpoint_save_interrupted_at_its_state_write_leaves_nothing(tmp_path, monkeypatch):
    ckpt = cn.core.Checkpoint(v=Variable(np.zeros(2, np.float32)))
    first = ckpt.save(str(tmp_path / "ckpt"))
    _interrupt_state_writes(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        ckpt.save(str(tmp_path / "ckpt"))
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1"]
    assert cn.train.latest_checkpoint(str(tmp_path)) == first
    assert int(ckpt.save_counter.numpy()) == 1


def test_a_ctrl_c_in_a_periodic_saves_state_write_still_saves_that_step(tmp_path, monkeypatch):
    """End to end: the interrupted periodic save at step 2 is undone, and the save on the
    way out (logged "saving a checkpoint of its state") makes step 2 the latest."""
    rng = np.random.default_rng(0)
    data = {"x": rng.normal(size=64).astype(np.float32)}
    labels = rng.normal(size=64).astype(np.float32)
    dataset = cn.data.Dataset.from_tensor_slices((data, labels)).batch(8).repeat()
    est = cn.estimators.LinearRegressor(
        [cn.feature_columns.numeric_column("x")],
        config=cn.estimators.RunConfig(
            model_dir=str(tmp_path), save_checkpoints_steps=2, log_step_count_steps=0
        ),
    )
    real = checkpoint_state.write_bytes_atomic
    writes = []

    def interrupt_the_first(path, payload):
        writes.append(path)
        if len(writes) == 2:  # the first is the state of TF's step-0 save
            raise KeyboardInterrupt
        real(path, payload)

    monkeypatch.setattr(checkpoint_state, "write_bytes_atomic", interrupt_the_first)
    with pytest.raises(KeyboardInterrupt):
        est.train(dataset, max_steps=10, verbose=0)
    latest = cn.train.latest_checkpoint(str(tmp_path))
    assert os.path.basename(latest) == "model.ckpt-2"
    names = sorted(n for n in os.listdir(tmp_path) if n.startswith("model.ckpt"))
    assert names == ["model.ckpt-0", "model.ckpt-2"]
