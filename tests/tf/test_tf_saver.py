# Copyright 2015 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
# Ported to colonnade: TF's inputs, expected values and tolerances are kept verbatim;
# graph-mode branches are replaced by their eager equivalents.
"""Port of tensorflow/python/training/saver_test.py (SaverTest, MaxToKeepTest,
RecoverLastCheckpointsTest) against ``cn.train.Saver``, TF 1's Saver made eager.

TF's values are kept verbatim; ``sess`` is ``None`` (the eager Saver ignores it) and
``tf.Variable(x, name=n)`` is a named ``Variable``. Not ported (graph-only or TF-only):
``CheckpointedOp`` custom saveables (the ``v2`` parts of testBasics and
testBasicsWithListOfVariables), uninitialized-value errors (eager variables always hold a
value), testGPU, testVariables/testDeferredBuild/testVarListShouldBeEmptyInDeferredBuild/
testBuildShouldBeCalledBeforeSaveInCaseOfDeferBuild (graph collections and
``defer_build``), testReshape (``reshape=True``), testAllowEmpty (TF 2.15's eager Saver
with no variables fails inside ``save``), testSomeErrors' ``SaveSliceInfo``,
SaveRestoreShardedTest and MaxToKeepTest.testSharded (sharded files), the meta-graph
checks of MaxToKeepTest (no ``.meta`` file is written), and ``saver_def=`` copies (a copy is
made here from the same ``var_list``). testSaveToNonexistingPath and testSameName follow
TF 2.15's eager Saver (checked with tensorflow-cpu 2.15.1): the missing directory is
created, and one variable under two names is accepted.
"""

import os
import shutil

import numpy as np
import pytest

import colonnade as cn

Variable = cn.core.Variable
_exists = cn.train.checkpoint_exists


@pytest.mark.parametrize("as_list", [False, True], ids=["dict", "list"])
def test_basics(tmp_path, as_list):
    """SaverTest.testBasics (dict) and testBasicsWithListOfVariables (list)."""
    save_path = str(tmp_path / "basics")
    v0 = Variable(np.float32(10.0), name="v0")
    v1 = Variable(np.float32(20.0), name="v1")
    save = cn.train.Saver([v0, v1] if as_list else {"v0": v0, "v1": v1})
    assert v0.numpy() == 10.0 and v1.numpy() == 20.0
    val = save.save(None, save_path)
    assert isinstance(val, str)
    assert val == save_path

    # Another pair of variables, initialized differently, restored from the file.
    v0_2 = Variable(np.float32(1000.0), name="v0")
    v1_2 = Variable(np.float32(2000.0), name="v1")
    save2 = cn.train.Saver([v0_2, v1_2] if as_list else {"v0": v0_2, "v1": v1_2})
    assert v0_2.numpy() == 1000.0 and v1_2.numpy() == 2000.0
    save2.restore(None, save_path)
    assert v0_2.numpy() == 10.0 and v1_2.numpy() == 20.0


def test_invalid_path():
    """SaverTest.testInvalidPath: TF 2.15's message (its old one began "Restore called
    with invalid save path")."""
    v0 = Variable(np.int32(0), name="v0")
    save = cn.train.Saver({"v0": v0})
    with pytest.raises(ValueError, match="not a valid checkpoint: invalid path"):
        save.restore(None, "invalid path")


def test_int64(tmp_path):
    """SaverTest.testInt64."""
    save_path = str(tmp_path / "int64")
    v = Variable(np.int64(15), name="v")
    val = cn.train.Saver({"v": v}, restore_sequentially=True).save(None, save_path)
    assert isinstance(val, str) and val == save_path
    v = Variable(np.int64(-1), name="v")
    cn.train.Saver({"v": v}).restore(None, save_path)
    assert v.numpy() == np.int64(15)
    assert v.numpy().dtype == np.int64


def test_some_errors():
    """SaverTest.testSomeErrors, without SaveSliceInfo: two variables named "v1" in a
    list are TF's error; different names in a dict work."""
    v0 = Variable(np.array([10.0], np.float32), name="v0")
    v1 = Variable(np.array([20.0], np.float32), name="v1")
    v2 = Variable(np.array([20.0], np.float32), name="v1")
    with pytest.raises(ValueError, match="same name: v1"):
        cn.train.Saver([v0, v1, v2])
    cn.train.Saver({"vee1": v1, "other": v2})


def test_same_name(tmp_path):
    """SaverTest.testSameName: TF 2.15's eager Saver accepts one variable under two names
    (graph mode refused it); both names are then written and restored."""
    v0 = Variable(np.array([10.0], np.float32), name="v0")
    path = cn.train.Saver({"v0": v0, "v0too": v0}).save(None, str(tmp_path / "same"))
    assert sorted(name for name, _ in cn.train.list_variables(path)) == ["v0", "v0too"]
    cn.train.Saver({"v0": v0}).restore(None, path)


def _save_and_load(var_name, var_value, other_value, save_path):
    """SaverTest._SaveAndLoad."""
    var = Variable(np.float32(var_value), name=var_name)
    val = cn.train.Saver({var_name: var}).save(None, save_path)
    assert val == save_path
    var = Variable(np.float32(other_value), name=var_name)
    cn.train.Saver({var_name: var}).restore(None, save_path)
    np.testing.assert_allclose(var.numpy(), var_value, rtol=1e-6)


def test_cache_rereads_file(tmp_path):
    """SaverTest.testCacheRereadsFile: a second save to the same path is read anew."""
    save_path = str(tmp_path / "cache_rereads")
    _save_and_load("var0", 0.0, 1.0, save_path)
    _save_and_load("var1", 1.1, 2.2, save_path)


@pytest.mark.parametrize("use_tensor", [True, False])
def test_save_with_global_step(tmp_path, use_tensor):
    """SaverTest.testSaveWithGlobalStep (a Variable step stands for TF's tensor)."""
    save_path = str(tmp_path / "ckpt_with_global_step")
    global_step_int = 5
    _save_and_load("var0", 0.0, 1.0, save_path)
    var = Variable(np.float32(1.0), name="var0")
    save = cn.train.Saver({"var0": var})
    global_step = Variable(np.int64(global_step_int)) if use_tensor else global_step_int
    val = save.save(None, save_path, global_step=global_step)
    assert val == f"{save_path}-{global_step_int}"


def test_save_to_nonexisting_path(tmp_path):
    """SaverTest.testSaveToNonexistingPath: TF 2.15's eager Saver makes the missing
    directory (graph mode raised "Parent directory of ... doesn't exist")."""
    save_path = str(tmp_path / "nonexisting_dir" / "path")
    v0 = Variable(np.float32(10.0), name="v0")
    v1 = Variable(np.float32(20.0), name="v1")
    save = cn.train.Saver({"v0": v0, "v1": v1}, restore_sequentially=True)
    assert save.save(None, save_path) == save_path
    v0.assign(np.float32(-1.0))
    save.restore(None, save_path)
    assert v0.numpy() == 10.0 and v1.numpy() == 20.0


def test_max_to_keep_non_sharded(tmp_path):
    """MaxToKeepTest.testNonSharded (save2/save3 are made from the same var_list in place
    of ``saver_def=save.as_saver_def()``; no meta-graph files)."""
    save_dir = str(tmp_path)
    v = Variable(np.float32(10.0), name="v")
    save = cn.train.Saver({"v": v}, max_to_keep=2)
    assert save.last_checkpoints == []

    s1 = save.save(None, os.path.join(save_dir, "s1"))
    assert save.last_checkpoints == [s1]
    assert _exists(s1)
    s2 = save.save(None, os.path.join(save_dir, "s2"))
    assert save.last_checkpoints == [s1, s2]
    assert _exists(s1) and _exists(s2)
    s3 = save.save(None, os.path.join(save_dir, "s3"))
    assert save.last_checkpoints == [s2, s3]
    assert not _exists(s1) and _exists(s2) and _exists(s3)

    save2 = cn.train.Saver({"v": v}, max_to_keep=2)
    save2.set_last_checkpoints(save.last_checkpoints)
    save3 = cn.train.Saver({"v": v}, max_to_keep=2)

    # Adding s2 again (old s2 is removed first, then new s2 appended)
    s2 = save.save(None, os.path.join(save_dir, "s2"))
    assert save.last_checkpoints == [s3, s2]
    assert not _exists(s1) and _exists(s3) and _exists(s2)
    # Adding s1 (s3 should now be deleted as oldest in list)
    s1 = save.save(None, os.path.join(save_dir, "s1"))
    assert save.last_checkpoints == [s2, s1]
    assert not _exists(s3) and _exists(s2) and _exists(s1)

    # The second helper.
    s2 = save2.save(None, os.path.join(save_dir, "s2"))
    assert save2.last_checkpoints == [s3, s2]
    assert _exists(s1)  # created by the first helper
    assert not _exists(s3)  # deleted by the first helper
    assert _exists(s2)
    s1 = save2.save(None, os.path.join(save_dir, "s1"))
    assert save2.last_checkpoints == [s2, s1]
    assert not _exists(s3) and _exists(s2) and _exists(s1)

    # The third helper, unaware of the earlier checkpoints.
    s2 = save3.save(None, os.path.join(save_dir, "s2"))
    assert save3.last_checkpoints == [s2]
    assert _exists(s1) and not _exists(s3) and _exists(s2)
    s1 = save3.save(None, os.path.join(save_dir, "s1"))
    assert save3.last_checkpoints == [s2, s1]
    assert not _exists(s3) and _exists(s2) and _exists(s1)


def _assert_checkpoint_state(model_checkpoint_path, all_model_checkpoint_paths, save_dir):
    """RecoverLastCheckpointsTest.assertCheckpointState."""
    state = cn.train.get_checkpoint_state(save_dir)
    assert state.model_checkpoint_path == model_checkpoint_path
    assert list(state.all_model_checkpoint_paths) == all_model_checkpoint_paths


def test_recover_last_checkpoints(tmp_path):
    """RecoverLastCheckpointsTest.test_recover_last_checkpoints (eager in TF too)."""
    save_dir = str(tmp_path)
    v = Variable(np.float32(10.0), name="v")
    save = cn.train.Saver({"v": v}, max_to_keep=10)
    assert save.last_checkpoints == []
    s1 = save.save(None, os.path.join(save_dir, "ckpt-1"))
    s2 = save.save(None, os.path.join(save_dir, "ckpt-2"))
    s3 = save.save(None, os.path.join(save_dir, "ckpt-3"))
    assert save.last_checkpoints == [s1, s2, s3]
    assert _exists(s1) and _exists(s2) and _exists(s3)
    _assert_checkpoint_state(s3, [s1, s2, s3], save_dir)

    save2 = cn.train.Saver({"v": v}, max_to_keep=10)
    assert save2.last_checkpoints == []
    save2.recover_last_checkpoints([s1, s2, s3])
    assert save2.last_checkpoints == [s1, s2, s3]

    shutil.rmtree(s1)  # a colonnade checkpoint is one directory (TF's: files s1*)
    assert not _exists(s1)

    save3 = cn.train.Saver({"v": v}, max_to_keep=10)
    assert save3.last_checkpoints == []
    save3.recover_last_checkpoints([s1, s2, s3])
    assert save3.last_checkpoints == [s2, s3]
    s4 = save3.save(None, os.path.join(save_dir, "ckpt-4"))
    _assert_checkpoint_state(s4, [s2, s3, s4], save_dir)


def test_restore_missing_key(tmp_path):
    """A name the checkpoint lacks: TF's NotFoundError says "Key zz not found in
    checkpoint" (TF 2.15); here a KeyError with the same words, nothing assigned."""
    v0 = Variable(np.float32(10.0), name="v0")
    path = cn.train.Saver({"v0": v0}).save(None, str(tmp_path / "a"))
    v0.assign(np.float32(3.0))
    with pytest.raises(KeyError, match="Key zz not found in checkpoint"):
        cn.train.Saver({"zz": v0, "v0": v0}).restore(None, path)
    assert v0.numpy() == 3.0
