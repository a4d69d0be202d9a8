# Copyright 2017 The TensorFlow Authors. All Rights Reserved.
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
"""TF's tensorflow_estimator/python/estimator/run_config_test.py (r2.15), ported: run on
colonnade by default and on TF 2.15 with ``COLONNADE_TF_BACKEND=tf``
(tests/tf/run_against_tf.sh). ``_create_run_config_with_cluster_spec`` patches
``TF_CONFIG`` with ``unittest.mock`` as TF's does with ``tf.compat.v1.test.mock``;
``config_pb2.ConfigProto`` is ``cn.compat.v1.ConfigProto`` on colonnade.

Inventory (every TF method):

- RunConfigTest: ported: test_default_property_values, test_model_dir,
  test_replace_with_allowed_properties, test_replace_none_value,
  test_replace_with_disallowallowed_properties, test_replace,
  test_replace_invalid_values, test_init_with_allowed_properties,
  test_init_none_value, test_init_invalid_values. Out of scope (distribution
  strategies): test_incompatible_train_strategy, test_incompatible_eval_strategy (TF's
  ``tf.distribute`` ParameterServerStrategy objects).
- RunConfigDistributedSettingTest (all 27 methods: test_default_values ...
  test_global_id_in_cluster_for_multipe_worker_types) and
  RunConfigDistributedSettingWithMasterTest (all 19: test_invalid_task_type_for_local ...
  test_global_id_in_cluster_for_multipe_worker_types): out of scope (distribution
  strategies): TF_CONFIG's ``cluster`` and ``task`` describe TF's gRPC servers
  (``cluster_spec``, ``master``, ``task_type``, ``num_ps_replicas``,
  ``global_id_in_cluster``); colonnade runs no TF server and distributes through Ray
  (docs/distributed.md).
- RunConfigSaveCheckpointsTest: ported: test_save_checkpoint,
  test_save_checkpoint_both_steps_and_secs_are_not_none,
  test_save_checkpoint_both_steps_and_secs_are_none,
  test_save_checkpoint_flip_secs_to_none, test_save_checkpoint_flip_steps_to_none.
- RunConfigServiceKeyTest: ported: test_arbitrary_key_value_pairs,
  test_missing_service_key, test_fail_with_non_dict.
- RunConfigModelDirTest: ported: all 7 (test_default, test_model_dir_in_constructor,
  test_model_dir_in_tf_config, test_model_dir_both_set_in_both_constructor_and_tf_config,
  test_model_dir_different_in_both_constructor_and_tf_config,
  test_fail_with_empty_string_in_constructor, test_fail_with_empty_string_in_tf_config).
- RunConfigSessionConfigTest (test_master_session_config, test_chief_session_config,
  test_worker_session_config, test_ps_session_config, test_evaluator_session_config,
  test_other_type_session_config): out of scope (graph/session-only): the default
  session's device filters and graph rewriter options per gRPC task.
"""

import json
import warnings
from unittest import mock

from tf_backend import ON_TF
from tf_test_case import TFTestCase

if ON_TF:
    from tensorflow.core.protobuf import config_pb2
    from tensorflow_estimator.python.estimator import run_config as run_config_lib

    ConfigProto = config_pb2.ConfigProto
else:
    import colonnade as cn

    run_config_lib = cn.estimators
    ConfigProto = cn.compat.v1.ConfigProto

_TEST_DIR = "test_dir"
_MASTER = "master_"
_NOT_SUPPORTED_REPLACE_PROPERTY_MSG = "Replacing .*is not supported"
_SAVE_CKPT_ERR = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."
_MODEL_DIR_ERR = "model_dir should be non-empty"
_MODEL_DIR_TF_CONFIG_ERR = "model_dir in TF_CONFIG should be non-empty"
_MODEL_DIR_MISMATCH_ERR = (
    "`model_dir` provided in RunConfig construct, if set, "
    "must have the same value as the model_dir in TF_CONFIG. "
)
_SAVE_SUMMARY_STEPS_ERR = "save_summary_steps should be >= 0"
_SAVE_CKPT_STEPS_ERR = "save_checkpoints_steps should be >= 0"
_SAVE_CKPT_SECS_ERR = "save_checkpoints_secs should be >= 0"
_SESSION_CONFIG_ERR = "session_config must be instance of ConfigProto"
_KEEP_CKPT_MAX_ERR = "keep_checkpoint_max should be >= 0"
_KEEP_CKPT_HOURS_ERR = "keep_checkpoint_every_n_hours should be > 0"
_TF_RANDOM_SEED_ERR = "tf_random_seed must be integer"
_DEVICE_FN_ERR = 'device_fn must be callable with exactly one argument "op".'
_INVALID_SERVICE_TYPE_ERR = 'If "service" is set in TF_CONFIG, it must be a dict. Given'
_EXPERIMENTAL_MAX_WORKER_DELAY_SECS_ERR = (
    "experimental_max_worker_delay_secs must be an integer if set."
)
_SESSION_CREATION_TIMEOUT_SECS_ERR = "session_creation_timeout_secs should be > 0"


def _create_run_config_with_cluster_spec(tf_config, **kwargs):
    with mock.patch.dict("os.environ", {"TF_CONFIG": json.dumps(tf_config)}):
        return run_config_lib.RunConfig(**kwargs)


class RunConfigTest(TFTestCase):
    def setUp(self):
        # colonnade warns once that the TF session arguments are ignored
        self._warnings = warnings.catch_warnings()
        self._warnings.__enter__()
        warnings.simplefilter("ignore", UserWarning)

    def tearDown(self):
        self._warnings.__exit__(None, None, None)

    def test_default_property_values(self):
        config = run_config_lib.RunConfig()
        self.assertIsNone(config.model_dir)
        self.assertIsNone(config.session_config)
        self.assertIsNone(config.tf_random_seed)
        self.assertEqual(100, config.save_summary_steps)
        self.assertEqual(600, config.save_checkpoints_secs)
        self.assertIsNone(config.save_checkpoints_steps)
        self.assertEqual(5, config.keep_checkpoint_max)
        self.assertEqual(10000, config.keep_checkpoint_every_n_hours)
        self.assertIsNone(config.service)
        self.assertIsNone(config.device_fn)
        self.assertIsNone(config.experimental_max_worker_delay_secs)
        self.assertEqual(7200, config.session_creation_timeout_secs)

    def test_model_dir(self):
        empty_config = run_config_lib.RunConfig()
        self.assertIsNone(empty_config.model_dir)

        new_config = empty_config.replace(model_dir=_TEST_DIR)
        self.assertEqual(_TEST_DIR, new_config.model_dir)

    def test_replace_with_allowed_properties(self):
        session_config = ConfigProto(allow_soft_placement=True)
        device_fn = lambda op: "/cpu:0"  # noqa: E731

        config = run_config_lib.RunConfig().replace(
            tf_random_seed=11,
            save_summary_steps=12,
            save_checkpoints_secs=14,
            session_config=session_config,
            keep_checkpoint_max=16,
            keep_checkpoint_every_n_hours=17,
            device_fn=device_fn,
            session_creation_timeout_secs=18,
        )
        self.assertEqual(11, config.tf_random_seed)
        self.assertEqual(12, config.save_summary_steps)
        self.assertEqual(14, config.save_checkpoints_secs)
        self.assertEqual(session_config, config.session_config)
        self.assertEqual(16, config.keep_checkpoint_max)
        self.assertEqual(17, config.keep_checkpoint_every_n_hours)
        self.assertEqual(device_fn, config.device_fn)
        self.assertEqual(18, config.session_creation_timeout_secs)

    def test_replace_none_value(self):
        config = run_config_lib.RunConfig().replace(
            tf_random_seed=None,
            model_dir=None,
            save_summary_steps=None,
            save_checkpoints_secs=None,
            save_checkpoints_steps=None,
            session_config=None,
            keep_checkpoint_max=None,
            keep_checkpoint_every_n_hours=None,
            device_fn=None,
        )
        self.assertIsNone(config.tf_random_seed)
        self.assertIsNone(config.model_dir)
        self.assertIsNone(config.save_summary_steps)
        self.assertIsNone(config.save_checkpoints_secs)
        self.assertIsNone(config.save_checkpoints_steps)
        self.assertIsNone(config.session_config)
        self.assertIsNone(config.keep_checkpoint_max)
        self.assertIsNone(config.keep_checkpoint_every_n_hours)
        self.assertIsNone(config.device_fn)

    def test_replace_with_disallowallowed_properties(self):
        config = run_config_lib.RunConfig()
        with self.assertRaises(ValueError):
            # tf_random_seed is not allowed to be replaced.
            config.replace(master="_master")
        with self.assertRaises(ValueError):
            config.replace(some_undefined_property=123)

    def test_replace(self):
        config = run_config_lib.RunConfig()

        with self.assertRaisesRegex(ValueError, _NOT_SUPPORTED_REPLACE_PROPERTY_MSG):
            # master is not allowed to be replaced.
            config.replace(master=_MASTER)

        with self.assertRaisesRegex(ValueError, _NOT_SUPPORTED_REPLACE_PROPERTY_MSG):
            config.replace(some_undefined_property=_MASTER)

    def test_replace_invalid_values(self):
        config = run_config_lib.RunConfig()

        with self.assertRaisesRegex(ValueError, _MODEL_DIR_ERR):
            config.replace(model_dir="")
        with self.assertRaisesRegex(ValueError, _SAVE_SUMMARY_STEPS_ERR):
            config.replace(save_summary_steps=-1)
        with self.assertRaisesRegex(ValueError, _SAVE_CKPT_STEPS_ERR):
            config.replace(save_checkpoints_steps=-1)
        with self.assertRaisesRegex(ValueError, _SAVE_CKPT_SECS_ERR):
            config.replace(save_checkpoints_secs=-1)
        with self.assertRaisesRegex(ValueError, _SESSION_CONFIG_ERR):
            config.replace(session_config={})
        with self.assertRaisesRegex(ValueError, _KEEP_CKPT_MAX_ERR):
            config.replace(keep_checkpoint_max=-1)
        with self.assertRaisesRegex(ValueError, _KEEP_CKPT_HOURS_ERR):
            config.replace(keep_checkpoint_every_n_hours=0)
        with self.assertRaisesRegex(ValueError, _SESSION_CREATION_TIMEOUT_SECS_ERR):
            config.replace(session_creation_timeout_secs=0)
        with self.assertRaisesRegex(ValueError, _TF_RANDOM_SEED_ERR):
            config.replace(tf_random_seed=1.0)
        with self.assertRaisesRegex(ValueError, _DEVICE_FN_ERR):
            config.replace(device_fn=lambda x, y: 0)
        with self.assertRaisesRegex(ValueError, _EXPERIMENTAL_MAX_WORKER_DELAY_SECS_ERR):
            config.replace(experimental_max_worker_delay_secs="5")

    def test_init_with_allowed_properties(self):
        session_config = ConfigProto(allow_soft_placement=True)
        device_fn = lambda op: "/cpu:0"  # noqa: E731

        config = run_config_lib.RunConfig(
            tf_random_seed=11,
            save_summary_steps=12,
            save_checkpoints_secs=14,
            session_config=session_config,
            keep_checkpoint_max=16,
            keep_checkpoint_every_n_hours=17,
            device_fn=device_fn,
            experimental_max_worker_delay_secs=10,
        )
        self.assertEqual(11, config.tf_random_seed)
        self.assertEqual(12, config.save_summary_steps)
        self.assertEqual(14, config.save_checkpoints_secs)
        self.assertEqual(session_config, config.session_config)
        self.assertEqual(16, config.keep_checkpoint_max)
        self.assertEqual(17, config.keep_checkpoint_every_n_hours)
        self.assertEqual(device_fn, config.device_fn)
        self.assertEqual(10, config.experimental_max_worker_delay_secs)

    def test_init_none_value(self):
        config = run_config_lib.RunConfig(
            tf_random_seed=None,
            model_dir=None,
            save_summary_steps=None,
            save_checkpoints_secs=None,
            save_checkpoints_steps=None,
            session_config=None,
            keep_checkpoint_max=None,
            keep_checkpoint_every_n_hours=None,
            device_fn=None,
        )
        self.assertIsNone(config.tf_random_seed)
        self.assertIsNone(config.model_dir)
        self.assertIsNone(config.save_summary_steps)
        self.assertIsNone(config.save_checkpoints_secs)
        self.assertIsNone(config.save_checkpoints_steps)
        self.assertIsNone(config.session_config)
        self.assertIsNone(config.keep_checkpoint_max)
        self.assertIsNone(config.keep_checkpoint_every_n_hours)
        self.assertIsNone(config.device_fn)

    def test_init_invalid_values(self):
        with self.assertRaisesRegex(ValueError, _MODEL_DIR_ERR):
            run_config_lib.RunConfig(model_dir="")
        with self.assertRaisesRegex(ValueError, _SAVE_SUMMARY_STEPS_ERR):
            run_config_lib.RunConfig(save_summary_steps=-1)
        with self.assertRaisesRegex(ValueError, _SAVE_CKPT_STEPS_ERR):
            run_config_lib.RunConfig(save_checkpoints_steps=-1)
        with self.assertRaisesRegex(ValueError, _SAVE_CKPT_SECS_ERR):
            run_config_lib.RunConfig(save_checkpoints_secs=-1)
        with self.assertRaisesRegex(ValueError, _SESSION_CONFIG_ERR):
            run_config_lib.RunConfig(session_config={})
        with self.assertRaisesRegex(ValueError, _KEEP_CKPT_MAX_ERR):
            run_config_lib.RunConfig(keep_checkpoint_max=-1)
        with self.assertRaisesRegex(ValueError, _KEEP_CKPT_HOURS_ERR):
            run_config_lib.RunConfig(keep_checkpoint_every_n_hours=0)
        with self.assertRaisesRegex(ValueError, _TF_RANDOM_SEED_ERR):
            run_config_lib.RunConfig(tf_random_seed=1.0)
        with self.assertRaisesRegex(ValueError, _DEVICE_FN_ERR):
            run_config_lib.RunConfig(device_fn=lambda x: "/cpu:0")
        with self.assertRaisesRegex(ValueError, _EXPERIMENTAL_MAX_WORKER_DELAY_SECS_ERR):
            run_config_lib.RunConfig(experimental_max_worker_delay_secs="5")


class RunConfigSaveCheckpointsTest(TFTestCase):
    def test_save_checkpoint(self):
        empty_config = run_config_lib.RunConfig()
        self.assertEqual(600, empty_config.save_checkpoints_secs)
        self.assertIsNone(empty_config.save_checkpoints_steps)

        config_with_steps = empty_config.replace(save_checkpoints_steps=100)
        del empty_config
        self.assertEqual(100, config_with_steps.save_checkpoints_steps)
        self.assertIsNone(config_with_steps.save_checkpoints_secs)

        config_with_secs = config_with_steps.replace(save_checkpoints_secs=200)
        del config_with_steps
        self.assertEqual(200, config_with_secs.save_checkpoints_secs)
        self.assertIsNone(config_with_secs.save_checkpoints_steps)

    def test_save_checkpoint_both_steps_and_secs_are_not_none(self):
        empty_config = run_config_lib.RunConfig()
        with self.assertRaisesRegex(ValueError, _SAVE_CKPT_ERR):
            empty_config.replace(save_checkpoints_steps=100, save_checkpoints_secs=200)

        with self.assertRaisesRegex(ValueError, _SAVE_CKPT_ERR):
            run_config_lib.RunConfig(save_checkpoints_steps=100, save_checkpoints_secs=200)

    def test_save_checkpoint_both_steps_and_secs_are_none(self):
        config_with_secs = run_config_lib.RunConfig()
        config_without_ckpt = config_with_secs.replace(
            save_checkpoints_steps=None, save_checkpoints_secs=None
        )
        self.assertIsNone(config_without_ckpt.save_checkpoints_steps)
        self.assertIsNone(config_without_ckpt.save_checkpoints_secs)

    def test_save_checkpoint_flip_secs_to_none(self):
        config_with_secs = run_config_lib.RunConfig()
        config_without_ckpt = config_with_secs.replace(save_checkpoints_secs=None)
        self.assertIsNone(config_without_ckpt.save_checkpoints_steps)
        self.assertIsNone(config_without_ckpt.save_checkpoints_secs)

    def test_save_checkpoint_flip_steps_to_none(self):
        config_with_steps = run_config_lib.RunConfig().replace(save_checkpoints_steps=100)
        config_without_ckpt = config_with_steps.replace(save_checkpoints_steps=None)
        self.assertIsNone(config_without_ckpt.save_checkpoints_steps)
        self.assertIsNone(config_without_ckpt.save_checkpoints_secs)


class RunConfigServiceKeyTest(TFTestCase):
    def test_arbitrary_key_value_pairs(self):
        tf_config = {
            "service": {
                "key1": [1, 2],
                "key2": {"a": 3, "b": 4},
                "key3": 789,
            },
        }
        run_config = _create_run_config_with_cluster_spec(tf_config)
        self.assertEqual(tf_config["service"], run_config.service)

    def test_missing_service_key(self):
        tf_config = {
            "model_dir": "/tmp/123",
        }
        run_config = _create_run_config_with_cluster_spec(tf_config)
        self.assertIsNone(run_config.service)

    def test_fail_with_non_dict(self):
        tf_config = {
            "service": 789,
        }
        with self.assertRaisesRegex(TypeError, _INVALID_SERVICE_TYPE_ERR):
            _create_run_config_with_cluster_spec(tf_config)


class RunConfigModelDirTest(TFTestCase):
    def test_default(self):
        run_config = run_config_lib.RunConfig()
        self.assertIsNone(run_config.model_dir)

    def test_model_dir_in_constructor(self):
        run_config = run_config_lib.RunConfig(model_dir="/tmp/123")
        self.assertEqual("/tmp/123", run_config.model_dir)

    def test_model_dir_in_tf_config(self):
        tf_config = {
            "model_dir": "/tmp/123",
        }
        run_config = _create_run_config_with_cluster_spec(tf_config)
        self.assertEqual("/tmp/123", run_config.model_dir)

    def test_model_dir_both_set_in_both_constructor_and_tf_config(self):
        model_dir = "/tmp/123"
        tf_config = {"model_dir": model_dir}
        kwargs = {"model_dir": model_dir}
        run_config = _create_run_config_with_cluster_spec(tf_config, **kwargs)
        self.assertEqual("/tmp/123", run_config.model_dir)

    def test_model_dir_different_in_both_constructor_and_tf_config(self):
        tf_config = {"model_dir": "/tmp/123"}
        kwargs = {"model_dir": "/tmp/456"}
        with self.assertRaisesRegex(ValueError, _MODEL_DIR_MISMATCH_ERR):
            _create_run_config_with_cluster_spec(tf_config, **kwargs)

    def test_fail_with_empty_string_in_constructor(self):
        with self.assertRaisesRegex(ValueError, _MODEL_DIR_ERR):
            run_config_lib.RunConfig(model_dir="")

    def test_fail_with_empty_string_in_tf_config(self):
        with self.assertRaisesRegex(ValueError, _MODEL_DIR_TF_CONFIG_ERR):
            tf_config = {"model_dir": ""}
            _create_run_config_with_cluster_spec(tf_config)
