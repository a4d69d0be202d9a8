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
"""TF's tensorflow/python/training/checkpoint_management_test.py, ported: run on colonnade
by default and on TF 2.15 with ``COLONNADE_TF_BACKEND=tf`` (tests/tf/run_against_tf.sh).
TF runs CheckpointManagerTest in graph and eager modes; the port runs the eager one
(``self.evaluate(v.initializer)`` has nothing to do there). ``mock.patch.object(
checkpoint_management, "time")`` patches the manager's module (colonnade's
``colonnade.core.checkpoint_manager``), and ``logging.warning`` its logger.

Inventory (every TF method):

- LatestCheckpointWithRelativePaths: testNameCollision, testRelativePath: out of scope
  (graph/session-only: ``tf.compat.v1.train.Saver`` over a session, sharded saves).
- CheckpointStateTest: ported: testAbsPath, testRelPath, testAllModelCheckpointPaths
  (``tf.compat.v1.train.generate_checkpoint_state_proto``), testUpdateCheckpointState,
  testCheckPointStateFailsWhenIncomplete, testCheckPointCompletesRelativePaths. Out of
  scope: testUpdateCheckpointStateSaveRelativePaths (TF-internal
  ``update_checkpoint_state_internal`` and its ``CheckpointState`` protocol buffer).
- SaverUtilsTest: testCheckpointExists, testGetCheckpointMtimes, testRemoveCheckpoint:
  out of scope (graph/session-only: a graph ``Saver`` in a session, the V1 format).
- CheckpointManagerTest: ported: testDeletion, testKeepAll, testSaveRestoreState,
  testContinueFromUnmanaged, testClockReset, testCustomNumbering,
  testCustomCheckpointPrefix, testRestoreOrInitialize, testCheckpointInterval,
  testCheckpointIntervalWithRestore.
"""

import os
import shutil
import tempfile
from unittest import mock

from tf_backend import ON_TF, int64
from tf_test_case import TFTestCase

if ON_TF:
    import tensorflow as tf
    from tensorflow.python.checkpoint import checkpoint_management as _manager_module
    from tensorflow.python.platform import tf_logging as logging

    Checkpoint = tf.train.Checkpoint
    Variable = tf.Variable
    train_v1 = tf.compat.v1.train
    CheckpointManager = tf.train.CheckpointManager
else:
    import colonnade as cn
    from colonnade.core import checkpoint_manager as _manager_module

    logging = _manager_module.logger
    Checkpoint = cn.train.Checkpoint
    Variable = cn.core.Variable
    train_v1 = cn.compat.v1.train
    CheckpointManager = cn.train.CheckpointManager


class checkpoint_management:  # noqa: N801 (TF's module name)
    """The names TF's test takes from ``checkpoint_management``."""

    generate_checkpoint_state_proto = staticmethod(train_v1.generate_checkpoint_state_proto)
    update_checkpoint_state = staticmethod(train_v1.update_checkpoint_state)
    get_checkpoint_state = staticmethod(train_v1.get_checkpoint_state)
    checkpoint_exists = staticmethod(train_v1.checkpoint_exists)
    latest_checkpoint = staticmethod(train_v1.latest_checkpoint)
    CheckpointManager = CheckpointManager


class TempDirTestCase(TFTestCase):
    """``tf.test.TestCase``'s ``get_temp_dir`` (one per test) and its working directory."""

    def setUp(self):
        self._temp_dir = tempfile.mkdtemp()
        self._cwd = os.getcwd()

    def tearDown(self):
        os.chdir(self._cwd)
        shutil.rmtree(self._temp_dir, ignore_errors=True)

    def get_temp_dir(self):
        return self._temp_dir


class CheckpointStateTest(TempDirTestCase):
    def _get_test_dir(self, dirname):
        test_dir = os.path.join(self.get_temp_dir(), dirname)
        os.makedirs(test_dir, exist_ok=True)
        return test_dir

    def testAbsPath(self):
        save_dir = self._get_test_dir("abs_paths")
        abs_path = os.path.join(save_dir, "model-0")
        ckpt = checkpoint_management.generate_checkpoint_state_proto(save_dir, abs_path)
        self.assertEqual(ckpt.model_checkpoint_path, abs_path)
        self.assertTrue(os.path.isabs(ckpt.model_checkpoint_path))
        self.assertEqual(len(ckpt.all_model_checkpoint_paths), 1)
        self.assertEqual(ckpt.all_model_checkpoint_paths[-1], abs_path)

    def testRelPath(self):
        train_dir = "train"
        model = os.path.join(train_dir, "model-0")
        # model_checkpoint_path should have no "train" directory part.
        new_rel_path = "model-0"
        ckpt = checkpoint_management.generate_checkpoint_state_proto(train_dir, model)
        self.assertEqual(ckpt.model_checkpoint_path, new_rel_path)
        self.assertEqual(len(ckpt.all_model_checkpoint_paths), 1)
        self.assertEqual(ckpt.all_model_checkpoint_paths[-1], new_rel_path)

    def testAllModelCheckpointPaths(self):
        save_dir = self._get_test_dir("all_models_test")
        abs_path = os.path.join(save_dir, "model-0")
        for paths in [None, [], ["model-2"]]:
            ckpt = checkpoint_management.generate_checkpoint_state_proto(
                save_dir, abs_path, all_model_checkpoint_paths=paths
            )
            self.assertEqual(ckpt.model_checkpoint_path, abs_path)
            self.assertTrue(os.path.isabs(ckpt.model_checkpoint_path))
            self.assertEqual(len(ckpt.all_model_checkpoint_paths), len(paths) if paths else 1)
            self.assertEqual(ckpt.all_model_checkpoint_paths[-1], abs_path)

    def testUpdateCheckpointState(self):
        save_dir = self._get_test_dir("update_checkpoint_state")
        os.chdir(save_dir)
        # Make a temporary train directory.
        train_dir = "train"
        os.mkdir(train_dir)
        abs_path = os.path.join(save_dir, "model-0")
        rel_path = os.path.join("train", "model-2")
        checkpoint_management.update_checkpoint_state(
            train_dir, rel_path, all_model_checkpoint_paths=[abs_path, rel_path]
        )
        ckpt = checkpoint_management.get_checkpoint_state(train_dir)
        self.assertEqual(ckpt.model_checkpoint_path, rel_path)
        self.assertEqual(len(ckpt.all_model_checkpoint_paths), 2)
        self.assertEqual(ckpt.all_model_checkpoint_paths[-1], rel_path)
        self.assertEqual(ckpt.all_model_checkpoint_paths[0], abs_path)

    def testCheckPointStateFailsWhenIncomplete(self):
        save_dir = self._get_test_dir("checkpoint_state_fails_when_incomplete")
        os.chdir(save_dir)
        ckpt_path = os.path.join(save_dir, "checkpoint")
        ckpt_file = open(ckpt_path, "w")
        ckpt_file.write("")
        ckpt_file.close()
        with self.assertRaises(ValueError):
            checkpoint_management.get_checkpoint_state(save_dir)

    def testCheckPointCompletesRelativePaths(self):
        save_dir = self._get_test_dir("checkpoint_completes_relative_paths")
        os.chdir(save_dir)
        ckpt_path = os.path.join(save_dir, "checkpoint")
        ckpt_file = open(ckpt_path, "w")
        ckpt_file.write("""
        model_checkpoint_path: "./model.ckpt-687529"
        all_model_checkpoint_paths: "./model.ckpt-687500"
        all_model_checkpoint_paths: "./model.ckpt-687529"
        """)
        ckpt_file.close()
        ckpt = checkpoint_management.get_checkpoint_state(save_dir)
        self.assertEqual(ckpt.model_checkpoint_path, os.path.join(save_dir, "./model.ckpt-687529"))
        self.assertEqual(
            ckpt.all_model_checkpoint_paths[0], os.path.join(save_dir, "./model.ckpt-687500")
        )
        self.assertEqual(
            ckpt.all_model_checkpoint_paths[1], os.path.join(save_dir, "./model.ckpt-687529")
        )


class CheckpointManagerTest(TempDirTestCase):
    def testDeletion(self):
        checkpoint = Checkpoint()
        manager = checkpoint_management.CheckpointManager(
            checkpoint, self.get_temp_dir(), max_to_keep=3
        )
        first_path = manager.save()
        second_path = manager.save()
        third_path = manager.save()
        fourth_path = manager.save()
        self.assertTrue(checkpoint_management.checkpoint_exists(fourth_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(third_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(second_path))
        self.assertFalse(checkpoint_management.checkpoint_exists(first_path))

    def testKeepAll(self):
        checkpoint = Checkpoint()
        directory = os.path.join(
            self.get_temp_dir(),
            # Avoid sharing directories between eager and graph
            str(True),
        )
        manager = checkpoint_management.CheckpointManager(checkpoint, directory, max_to_keep=None)
        first_path = manager.save()
        second_path = manager.save()
        third_path = manager.save()
        self.assertTrue(checkpoint_management.checkpoint_exists(third_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(second_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(first_path))
        self.assertEqual(third_path, manager.latest_checkpoint)
        self.assertEqual([first_path, second_path, third_path], manager.checkpoints)
        del manager
        manager = checkpoint_management.CheckpointManager(checkpoint, directory, max_to_keep=None)
        fourth_path = manager.save()
        self.assertEqual([first_path, second_path, third_path, fourth_path], manager.checkpoints)
        del manager
        manager = checkpoint_management.CheckpointManager(checkpoint, directory, max_to_keep=3)
        self.assertEqual([first_path, second_path, third_path, fourth_path], manager.checkpoints)
        self.assertTrue(checkpoint_management.checkpoint_exists(fourth_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(third_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(second_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(first_path))
        fifth_path = manager.save()
        self.assertEqual([third_path, fourth_path, fifth_path], manager.checkpoints)
        self.assertTrue(checkpoint_management.checkpoint_exists(fifth_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(fourth_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(third_path))
        self.assertFalse(checkpoint_management.checkpoint_exists(second_path))
        self.assertFalse(checkpoint_management.checkpoint_exists(first_path))

    @mock.patch.object(_manager_module, "time")
    def testSaveRestoreState(self, mock_time):
        directory = self.get_temp_dir()
        mock_time.time.return_value = 3.0
        checkpoint = Checkpoint()
        first_manager = checkpoint_management.CheckpointManager(
            checkpoint, directory, max_to_keep=2
        )
        first_time = 10000.0
        first_name = os.path.join(directory, "ckpt-1")
        mock_time.time.return_value = first_time
        first_manager.save()
        state = checkpoint_management.get_checkpoint_state(directory)
        second_time = first_time + 3610.0
        second_name = os.path.join(directory, "ckpt-2")
        mock_time.time.return_value = second_time
        first_manager.save()
        state = checkpoint_management.get_checkpoint_state(directory)
        self.assertEqual([first_time, second_time], state.all_model_checkpoint_timestamps)
        self.assertEqual([first_name, second_name], first_manager.checkpoints)
        self.assertEqual(second_name, first_manager.latest_checkpoint)
        del first_manager

        second_manager = checkpoint_management.CheckpointManager(
            checkpoint, directory, max_to_keep=2, keep_checkpoint_every_n_hours=1.5
        )
        self.assertEqual([first_name, second_name], second_manager.checkpoints)
        self.assertEqual(second_name, second_manager.latest_checkpoint)
        third_name = os.path.join(directory, "ckpt-3")
        third_time = second_time + 3600.0 * 0.2
        mock_time.time.return_value = third_time
        second_manager.save()
        self.assertTrue(checkpoint_management.checkpoint_exists(first_name))
        self.assertTrue(checkpoint_management.checkpoint_exists(second_name))
        self.assertEqual([second_name, third_name], second_manager.checkpoints)
        state = checkpoint_management.get_checkpoint_state(directory)
        self.assertEqual(first_time, state.last_preserved_timestamp)
        fourth_time = third_time + 3600.0 * 0.5
        mock_time.time.return_value = fourth_time
        fourth_name = os.path.join(directory, "ckpt-4")
        second_manager.save()
        self.assertTrue(checkpoint_management.checkpoint_exists(first_name))
        self.assertFalse(checkpoint_management.checkpoint_exists(second_name))
        self.assertEqual([third_name, fourth_name], second_manager.checkpoints)
        fifth_time = fourth_time + 3600.0 * 0.5
        mock_time.time.return_value = fifth_time
        fifth_name = os.path.join(directory, "ckpt-5")
        second_manager.save()
        self.assertEqual([fourth_name, fifth_name], second_manager.checkpoints)
        state = checkpoint_management.get_checkpoint_state(directory)
        self.assertEqual(first_time, state.last_preserved_timestamp)
        del second_manager
        third_manager = checkpoint_management.CheckpointManager(
            checkpoint, directory, max_to_keep=2, keep_checkpoint_every_n_hours=1.5
        )
        self.assertEqual(fifth_name, third_manager.latest_checkpoint)
        mock_time.time.return_value += 10.0
        third_manager.save()
        sixth_name = os.path.join(directory, "ckpt-6")
        state = checkpoint_management.get_checkpoint_state(directory)
        self.assertEqual(fourth_time, state.last_preserved_timestamp)
        self.assertTrue(checkpoint_management.checkpoint_exists(first_name))
        self.assertTrue(checkpoint_management.checkpoint_exists(fourth_name))
        self.assertTrue(checkpoint_management.checkpoint_exists(fifth_name))
        self.assertTrue(checkpoint_management.checkpoint_exists(sixth_name))
        self.assertFalse(checkpoint_management.checkpoint_exists(second_name))
        self.assertFalse(checkpoint_management.checkpoint_exists(third_name))
        self.assertEqual([fifth_name, sixth_name], third_manager.checkpoints)

    def testContinueFromUnmanaged(self):
        directory = self.get_temp_dir()
        prefix = os.path.join(directory, "unusual_prefix")
        checkpoint = Checkpoint()
        first_path = checkpoint.save(prefix)
        second_path = checkpoint.save(prefix)
        del checkpoint
        checkpoint = Checkpoint()
        manager = checkpoint_management.CheckpointManager(checkpoint, directory, max_to_keep=2)
        checkpoint.restore(manager.latest_checkpoint).run_restore_ops()
        self.assertEqual(2, self.evaluate(checkpoint.save_counter))
        third_path = manager.save()
        self.assertEqual([third_path], manager.checkpoints)
        fourth_path = manager.save()
        self.assertEqual([third_path, fourth_path], manager.checkpoints)
        fifth_path = manager.save()
        self.assertEqual([fourth_path, fifth_path], manager.checkpoints)
        self.assertTrue(checkpoint_management.checkpoint_exists(first_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(second_path))
        self.assertFalse(checkpoint_management.checkpoint_exists(third_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(fourth_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(fifth_path))

    @mock.patch.object(_manager_module, "time")
    def testClockReset(self, mock_time):
        directory = self.get_temp_dir()
        mock_time.time.return_value = 10000.0
        checkpoint = Checkpoint()
        first_manager = checkpoint_management.CheckpointManager(
            checkpoint, directory, max_to_keep=1, keep_checkpoint_every_n_hours=1.0
        )
        first_path = first_manager.save()
        mock_time.time.return_value += 3600.0
        second_path = first_manager.save()
        mock_time.time.return_value += 3600.0
        third_path = first_manager.save()
        self.assertFalse(checkpoint_management.checkpoint_exists(first_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(second_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(third_path))
        self.assertEqual([third_path], first_manager.checkpoints)
        state = checkpoint_management.get_checkpoint_state(directory)
        self.assertEqual(13600.0, state.last_preserved_timestamp)
        # Set the clock back in time
        mock_time.time.return_value = 5000.0
        del first_manager
        with mock.patch.object(logging, "warning") as mock_log:
            second_manager = checkpoint_management.CheckpointManager(
                checkpoint, directory, max_to_keep=1
            )
            self.assertRegex(
                str(mock_log.call_args), "behind the last preserved checkpoint timestamp"
            )
        # We should err on the side of keeping checkpoints around when we're not
        # sure whether they were preserved or not due to clock funkiness.
        self.assertTrue(checkpoint_management.checkpoint_exists(second_path))
        # We know about the existing checkpoints, but they'll never be deleted and
        # so won't go in the CheckpointState proto on save.
        self.assertEqual(third_path, second_manager.latest_checkpoint)
        self.assertEqual([], second_manager.checkpoints)
        mock_time.time.return_value += 10.0
        fourth_path = second_manager.save()
        self.assertTrue(checkpoint_management.checkpoint_exists(second_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(third_path))
        self.assertEqual(fourth_path, second_manager.latest_checkpoint)
        self.assertEqual([fourth_path], second_manager.checkpoints)
        mock_time.time.return_value += 10.0
        fifth_path = second_manager.save()
        self.assertTrue(checkpoint_management.checkpoint_exists(second_path))
        self.assertTrue(checkpoint_management.checkpoint_exists(third_path))
        self.assertEqual([fifth_path], second_manager.checkpoints)
        state = checkpoint_management.get_checkpoint_state(directory)
        self.assertEqual(5000.0, state.last_preserved_timestamp)
        self.assertEqual([5020.0], state.all_model_checkpoint_timestamps)

    def testCustomNumbering(self):
        directory = self.get_temp_dir()
        step = Variable(0, dtype=int64)
        checkpoint = Checkpoint(step=step)
        manager = checkpoint_management.CheckpointManager(checkpoint, directory, max_to_keep=2)
        for i in range(5):
            path = manager.save(checkpoint_number=step)
            expected_suffix = "-%d" % (2 * i,)  # noqa: UP031
            if not path.endswith(expected_suffix):
                self.fail("%s should have suffix %s" % (path, expected_suffix))  # noqa: UP031
            self.evaluate(step.assign_add(2))
        self.assertEqual(5, self.evaluate(checkpoint.save_counter))
        # Test regular integers
        last_path = manager.save(checkpoint_number=32)
        self.assertIn("-32", last_path)
        self.assertEqual(last_path, manager.latest_checkpoint)
        self.assertEqual(last_path, checkpoint_management.latest_checkpoint(directory))
        state = checkpoint_management.get_checkpoint_state(directory)
        # Only the most recent two checkpoints are saved
        self.assertEqual([path, last_path], state.all_model_checkpoint_paths)

    def testCustomCheckpointPrefix(self):
        directory = self.get_temp_dir()
        checkpoint = Checkpoint()
        manager = checkpoint_management.CheckpointManager(
            checkpoint, directory, max_to_keep=2, checkpoint_name="ckpt_name"
        )
        path = manager.save(checkpoint_number=5)
        self.assertEqual(os.path.basename(path), "ckpt_name-5")
        manager = checkpoint_management.CheckpointManager(checkpoint, directory, max_to_keep=2)
        path = manager.save(checkpoint_number=5)
        self.assertEqual(os.path.basename(path), "ckpt-5")

    def testRestoreOrInitialize(self):
        directory = self.get_temp_dir()

        # Create a checkpoint for initializing.
        init_prefix = os.path.join(directory, "init")
        init_v = Variable(2.0)
        init_ckpt = Checkpoint(v=init_v)
        init_path = init_ckpt.save(init_prefix)

        # Create the checkpoint manager.
        ckpt_dir = os.path.join(directory, "ckpt")
        v = Variable(1.0)
        checkpoint = Checkpoint(v=v)
        manager = checkpoint_management.CheckpointManager(
            checkpoint,
            ckpt_dir,
            max_to_keep=None,
            init_fn=lambda: checkpoint.restore(init_path).run_restore_ops(),
        )

        # First call should call `init_fn`.
        self.assertIsNone(manager.restore_or_initialize())
        self.assertEqual(2.0, self.evaluate(v))

        # Save a checkpoint and second call should restore from the checkpoints.
        manager.save()
        self.assertIsNotNone(manager.restore_or_initialize())

    def testCheckpointInterval(self):
        v = Variable(1.0)
        step_counter = Variable(0)
        checkpoint = Checkpoint(v=v)
        manager = checkpoint_management.CheckpointManager(
            checkpoint,
            self.get_temp_dir(),
            max_to_keep=None,
            step_counter=step_counter,
            checkpoint_interval=2,
        )

        # step_counter: 0, save an initial checkpoint.
        path = manager.save(check_interval=True)
        self.assertTrue(checkpoint_management.checkpoint_exists(path))

        # step_counter: 1, no checkpoint saved.
        self.evaluate(step_counter.assign_add(1))
        path = manager.save(check_interval=True)
        self.assertIsNone(path)

        # step_counter: 2, checkpoint saved.
        self.evaluate(step_counter.assign_add(1))
        path = manager.save(check_interval=True)
        self.assertTrue(checkpoint_management.checkpoint_exists(path))

        # no checkpoint saved when calling `save` with the same step counter.
        path = manager.save(check_interval=True)
        self.assertIsNone(path)

        # step_counter: 3, no checkpoint saved.
        self.evaluate(step_counter.assign_add(1))
        path = manager.save(check_interval=True)
        self.assertIsNone(path)

        # Always save the checkpoint.
        path = manager.save(check_interval=False)
        self.assertTrue(checkpoint_management.checkpoint_exists(path))

    def testCheckpointIntervalWithRestore(self):
        directory = self.get_temp_dir()
        v = Variable(1.0)
        step_counter = Variable(0)

        # Prepare a checkpoint.
        checkpoint = Checkpoint(v=v)
        checkpoint.save(os.path.join(directory, "ckpt"))

        manager = checkpoint_management.CheckpointManager(
            checkpoint,
            directory,
            max_to_keep=None,
            step_counter=step_counter,
            checkpoint_interval=2,
        )

        # Restore from the checkpoint.
        self.assertIsNotNone(manager.restore_or_initialize())

        # step_counter: 0, no checkpoint saved because it is restored from the
        # checkpoint with the same step.
        path = manager.save()
        self.assertIsNone(path)
