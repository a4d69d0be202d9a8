"""Issue 41: a ``checkpoint`` state file received with a model_dir must not make the
sweep of old checkpoints delete anything but checkpoint files inside that model_dir.

TF's own sweep (``CheckpointManager._sweep`` / ``Saver._delete_file_if_exists``) removes
only ``prefix.index`` and ``prefix.data-?????-of-?????``; colonnade's checkpoints are
directories holding only ``index.json`` and ``.npy`` files. Anything else a state file lists
is left alone, with a warning naming it.
"""

import logging
import os

import numpy as np

import colonnade as cn
from colonnade.core.checkpoint_state import update_checkpoint_state
from colonnade.core.tf_bundle_writer import write_tf_bundle
from colonnade.core.variables import Variable


def _tree(root) -> set:
    out = set()
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            out.add(os.path.relpath(os.path.join(base, name), root))
    return out


def _hostile_model_dir(tmp_path):
    """A model_dir whose state file lists, besides two real checkpoints, paths that are not
    checkpoint files of this directory; returns (model_dir, victim dir, listed paths)."""
    victim = tmp_path / "home"
    (victim / "photos").mkdir(parents=True)
    (victim / "photos" / "a.jpg").write_bytes(b"jpg")
    (victim / "notes.txt").write_text("keep me")
    outside_ckpt = cn.core.checkpoint_format.write_checkpoint(
        str(victim / "ckpt-9"), {"v": (np.zeros(1), {})}
    )
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "data").mkdir()
    (model_dir / "data" / "train.csv").write_text("x,y\n1,2\n")
    (model_dir / "README").write_text("readme")
    (model_dir / "fake.npy").mkdir()  # a directory named like an array file
    (model_dir / "fake.npy" / "inner.txt").write_text("inner")
    (model_dir / "looks_like_ckpt").mkdir()
    (model_dir / "looks_like_ckpt" / "index.json").write_text("{}")
    (model_dir / "looks_like_ckpt" / "sub.npy").mkdir()  # not a plain .npy file
    (model_dir / "looks_like_ckpt" / "sub.npy" / "precious").write_text("precious")
    os.symlink(victim / "photos", model_dir / "link_to_photos")
    os.symlink(outside_ckpt, model_dir / "link_to_ckpt")
    os.symlink(victim, model_dir / "linked_home")
    tf_old = str(model_dir / "model.ckpt-1")
    write_tf_bundle(tf_old, {"v": np.ones(1, np.float32)})
    hostile = [
        str(victim),
        os.path.join(str(model_dir), "..", "home"),
        "../home/notes.txt",
        outside_ckpt,
        str(model_dir / "data"),
        str(model_dir / "README"),
        str(model_dir / "fake.npy"),
        str(model_dir / "looks_like_ckpt"),
        str(model_dir / "link_to_photos"),
        str(model_dir / "link_to_ckpt"),
        str(model_dir / "linked_home" / "ckpt-9"),
        str(model_dir / "data" / ".."),
    ]
    update_checkpoint_state(str(model_dir), tf_old, hostile + [tf_old])
    return str(model_dir), str(victim), hostile


def test_the_manager_sweeps_only_checkpoint_files_of_its_directory(tmp_path, caplog):
    model_dir, victim, hostile = _hostile_model_dir(tmp_path)
    before_victim = _tree(victim)
    before_model = _tree(model_dir)
    ckpt = cn.core.Checkpoint(v=Variable(np.zeros(1, np.float32)))
    manager = cn.core.CheckpointManager(ckpt, model_dir, max_to_keep=1, checkpoint_name="c")
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        manager.save()
        manager.save()
    assert _tree(victim) == before_victim
    # the TF checkpoint it listed (a real one, inside) and the first save were swept
    tf_files = {"model.ckpt-1.index", "model.ckpt-1.data-00000-of-00001"}
    assert tf_files <= before_model
    after = _tree(model_dir)
    assert after == (before_model - tf_files) | {"checkpoint", "c-2", "c-2/index.json"} | {
        n for n in after if n.startswith("c-2/") and n.endswith(".npy")
    }
    assert not any(n.startswith("c-1") for n in after)
    for path in hostile:
        assert repr(path) in caplog.text or path in caplog.text, path
    assert "not a checkpoint" in caplog.text
    assert [os.path.basename(p) for p in manager.checkpoints] == ["c-2"]


def test_the_tf_bundle_sweep_leaves_other_prefixes_and_directories_named_as_shards(tmp_path):
    model_dir = str(tmp_path)
    old, other = os.path.join(model_dir, "m-1"), os.path.join(model_dir, "m-10")
    write_tf_bundle(old, {"v": np.ones(1, np.float32)})
    write_tf_bundle(other, {"v": np.ones(1, np.float32)})
    os.mkdir(old + ".data-00001-of-00002")  # a directory named like a shard: not TF's file
    update_checkpoint_state(model_dir, old, [old])
    manager = cn.core.CheckpointManager(
        cn.core.Checkpoint(v=Variable(np.zeros(1))), model_dir, max_to_keep=1, checkpoint_name="m"
    )
    manager.save(checkpoint_number=2)
    names = set(os.listdir(model_dir))
    assert "m-1.index" not in names and "m-1.data-00000-of-00001" not in names
    assert {"m-10.index", "m-10.data-00000-of-00001", "m-1.data-00001-of-00002"} <= names


def test_the_v1_saver_sweeps_only_checkpoints_of_its_directory(tmp_path, caplog):
    model_dir, victim, hostile = _hostile_model_dir(tmp_path)
    before_victim = _tree(victim)
    state = cn.train.get_checkpoint_state(model_dir)
    w = Variable(np.ones(1, np.float32), name="w")
    saver = cn.train.Saver([w], max_to_keep=1)
    saver.recover_last_checkpoints(state.all_model_checkpoint_paths)
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        saver.save(None, os.path.join(model_dir, "model.ckpt"), global_step=5)
        saver.save(None, os.path.join(model_dir, "model.ckpt"), global_step=6)
    assert _tree(victim) == before_victim
    assert os.path.isdir(os.path.join(model_dir, "data"))
    assert os.path.isfile(os.path.join(model_dir, "README"))
    assert os.path.islink(os.path.join(model_dir, "link_to_ckpt"))
    assert not os.path.exists(os.path.join(model_dir, "model.ckpt-5"))  # its own: swept
    assert cn.train.latest_checkpoint(model_dir).endswith("model.ckpt-6")
    assert "outside the checkpoint directory" in caplog.text
