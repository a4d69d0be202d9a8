"""tf.compat.v1.train names that were missing from cn.train: checkpoint_exists,
remove_checkpoint, get_checkpoint_mtimes and piecewise_constant_decay."""

import os
import time

import numpy as np
import pytest

import colonnade as cn

T = cn.train
Variable = cn.core.Variable


def _saved(tmp_path, n=2):
    manager = T.CheckpointManager(T.Checkpoint(v=Variable([1.0])), tmp_path, max_to_keep=None)
    return [manager.save() for _ in range(n)]


def test_checkpoint_exists_is_true_only_for_a_complete_checkpoint(tmp_path):
    first, _ = _saved(tmp_path)
    assert T.checkpoint_exists(first) is True
    assert T.checkpoint_exists(str(tmp_path / "ckpt-9")) is False
    assert T.checkpoint_exists(str(tmp_path)) is False  # a directory of checkpoints is not one
    os.remove(os.path.join(first, "index.json"))  # a save that never finished
    assert T.checkpoint_exists(first) is False


def test_remove_checkpoint_deletes_it_and_leaves_the_state_file(tmp_path):
    first, second = _saved(tmp_path)
    T.remove_checkpoint(second, checkpoint_format_version=2)
    assert not os.path.exists(second) and not T.checkpoint_exists(second)
    assert T.get_checkpoint_state(tmp_path).model_checkpoint_path == second  # as TF
    assert T.latest_checkpoint(tmp_path) == first  # falls back to the newest remaining
    T.remove_checkpoint(second)  # gone already: not an error, as in TF
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1"]


def test_remove_checkpoint_refuses_what_is_not_a_checkpoint(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("keep me")
    with pytest.raises(ValueError, match=r"refusing to remove .*notes.*not a colonnade checkpoint"):
        T.remove_checkpoint(str(tmp_path / "notes"))
    assert (tmp_path / "notes" / "todo.txt").read_text() == "keep me"
    (first,) = _saved(tmp_path / "c", 1)
    with pytest.raises(ValueError, match="checkpoint_format_version must be one of"):
        T.remove_checkpoint(first, checkpoint_format_version=7)
    assert T.checkpoint_exists(first)


def test_get_checkpoint_mtimes_skips_missing_and_keeps_order(tmp_path):
    first, second = _saved(tmp_path)
    old = time.time() - 3600
    os.utime(os.path.join(first, "index.json"), (old, old))
    mtimes = T.get_checkpoint_mtimes([second, str(tmp_path / "ckpt-404"), first])
    assert len(mtimes) == 2
    assert abs(mtimes[0] - time.time()) < 60 and abs(mtimes[1] - old) < 1e-3
    assert T.get_checkpoint_mtimes([]) == []
    with pytest.raises(TypeError, match="list of checkpoint prefixes"):
        T.get_checkpoint_mtimes(first)


def test_piecewise_constant_decay_is_piecewise_constant():
    assert T.piecewise_constant_decay is T.piecewise_constant
    assert cn.core.piecewise_constant_decay is cn.core.piecewise_constant
    values = [T.piecewise_constant_decay(s, [10, 20], [1.0, 0.5, 0.1]) for s in (0, 10, 11, 21)]
    assert values == [1.0, 1.0, 0.5, 0.1]
    step = Variable(np.int64(15), trainable=False)
    assert float(T.piecewise_constant_decay(step, [10, 20], [1.0, 0.5, 0.1])) == 0.5  # follows step


def test_new_names_are_in_the_public_facade():
    for name in ("checkpoint_exists", "remove_checkpoint", "get_checkpoint_mtimes"):
        assert name in T.__all__ and name in cn.core.__all__
        assert getattr(T, name).__doc__ and ">>>" in getattr(T, name).__doc__
    assert "piecewise_constant_decay" in T.__all__
