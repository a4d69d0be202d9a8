"""Checkpoint cleanup removes only its own and dead writers' temporary files, never those
of a live writer (another trainer, or another save in flight in this process)."""

import os
import subprocess
import sys

import numpy as np

import colonnade as cn
from colonnade.core import checkpoint_writer as fmt
from colonnade.core.dir_lock import owner_tag

T = cn.train
Variable = cn.core.Variable


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_temporary_names_record_their_writer(tmp_path, monkeypatch):
    seen = []
    real = fmt._write_array
    monkeypatch.setattr(fmt, "_write_array", lambda p, a: (seen.append(p), real(p, a)))
    T.Checkpoint(v=Variable([1.0])).write(tmp_path / "c")
    assert f".tmp-{owner_tag()}-" in seen[0]


def test_cleanup_leaves_a_live_writers_temporary_files(tmp_path):
    host = owner_tag().split("@", 1)[1]
    live = tmp_path / f"ckpt-2.tmp-{os.getppid()}@{host}-0123abcd"  # the test runner's parent
    dead = tmp_path / f"ckpt-2.tmp-{dead_pid()}@{host}-4567abcd"
    remote = tmp_path / "ckpt-2.tmp-1@some-other-host-89abcdef"
    for path in (live, dead, remote):
        path.mkdir()
    (tmp_path / "checkpoint.tmp-12345678").write_text("an older colonnade's leftover")
    manager = T.CheckpointManager(T.Checkpoint(v=Variable([1.0])), tmp_path, max_to_keep=None)
    manager.save()
    manager.save()
    left = sorted(os.listdir(tmp_path))
    assert live.name in left and remote.name in left  # someone else's work in progress
    assert dead.name not in left and "checkpoint.tmp-12345678" not in left  # debris


def test_a_save_in_flight_survives_a_concurrent_cleanup(tmp_path, monkeypatch):
    real = fmt._write_array

    def write_while_someone_cleans(path, arr):
        fmt.remove_debris(str(tmp_path / "c"))  # another saver's cleanup, mid-write
        real(path, arr)

    monkeypatch.setattr(fmt, "_write_array", write_while_someone_cleans)
    v = Variable(np.arange(3.0))
    path = T.Checkpoint(v=v, w=Variable([2.0])).write(tmp_path / "c")
    assert T.load_variable(path, "v").tolist() == [0.0, 1.0, 2.0]
    assert sorted(os.listdir(tmp_path)) == ["c"]
