# Copyright 2016 The TensorFlow Authors. All Rights Reserved.
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
"""Port of tensorflow/python/training/checkpoint_utils_test.py (graph mode -> eager).

Mechanical translation: TF's ``variable_scope.get_variable(name, shape)`` (glorot-uniform
values, saved by ``saver_lib.Saver()`` from the graph's collection) is a named
``Variable`` of random values saved by ``cn.train.Saver(var_list)``; the graph collection
that ``init_from_checkpoint`` searches is passed as ``variables=``. A partitioned
variable is held whole here: its partitions are compared concatenated (TF's tests do the
same with ``np.concatenate``), and ``{"scope/var1": my1_var_list}`` maps one checkpoint
tensor onto a list of partitions (split along the first axis, TF's partitioner axis).
Graph-only checks (graph-def size, ops created under a name scope, devices) are left out,
each noted in its test.
"""

import os
import pathlib
import time

import numpy as np
import pytest

import colonnade as cn
from colonnade.core import Variable

checkpoint_utils = cn.train

_RNG = np.random.default_rng(0)


def _get_variable(name, shape, dtype=np.float32, initializer=None):
    """``variable_scope.get_variable(name, shape)``: TF's default glorot-uniform values
    (random, as TF's), or ``initializer`` (zeros_initializer: ``np.zeros``)."""
    if initializer is None:
        limit = np.sqrt(6.0 / (shape[0] + shape[-1]))
        value = _RNG.uniform(-limit, limit, shape).astype(dtype)
    else:
        value = np.asarray(initializer(shape), dtype)
    return Variable(value, name=name, dtype=dtype)


def _create_checkpoints(checkpoint_dir):
    checkpoint_prefix = os.path.join(checkpoint_dir, "model")
    checkpoint_state_name = "checkpoint"
    v1 = _get_variable("var1", [1, 10])
    v2 = _get_variable("var2", [10, 10])
    v3 = _get_variable("var3", [100, 100])
    v4 = _get_variable("useful_scope/var4", [9, 9])
    saver = cn.train.Saver([v1, v2, v3, v4])
    saver.save(None, checkpoint_prefix, global_step=0, latest_filename=checkpoint_state_name)
    return v1.numpy(), v2.numpy(), v3.numpy(), v4.numpy()


def _partitions(full, sizes):
    return np.split(full, np.cumsum(sizes)[:-1], axis=0)


# min_max_variable_partitioner(max_partitions=5, axis=0, min_slice_size=8 << 10) of a
# [100, 100] float32: ceil(40000 / 8192) = 5 partitions of 20 rows; with 16 << 10: 3
# partitions (34, 33, 33 rows).
_SIZES_8K, _SIZES_16K = [20] * 5, [34, 33, 33]


def _create_partition_checkpoints(checkpoint_dir):
    checkpoint_prefix = os.path.join(checkpoint_dir, "model")
    checkpoint_state_name = "checkpoint"
    v1 = Variable(
        np.clip(_RNG.normal(0.5, 1.0, [100, 100]), -1.5, 2.5).astype(np.float32),
        name="scope/var1",
    )
    saver = cn.train.Saver([v1])
    saver.save(None, checkpoint_prefix, global_step=0, latest_filename=checkpoint_state_name)
    return _partitions(v1.numpy(), _SIZES_8K)


# What TF's testGetAllVariables / testFSPath expect list_variables to give.
_ALL_VARIABLES = [
    ("useful_scope/var4", [9, 9]),
    ("var1", [1, 10]),
    ("var2", [10, 10]),
    ("var3", [100, 100]),
]


def test_no_checkpoints(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testNoCheckpoints"""
    checkpoint_dir = str(tmp_path) + "/no_checkpoints"
    with pytest.raises((OSError, ValueError)):
        np.testing.assert_array_equal(checkpoint_utils.load_variable(checkpoint_dir, "var1"), [])


def test_no_tensor(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testNoTensor"""
    checkpoint_dir = str(tmp_path)
    _, _, _, _ = _create_checkpoints(checkpoint_dir)
    with pytest.raises((KeyError, ValueError)):
        np.testing.assert_array_equal(checkpoint_utils.load_variable(checkpoint_dir, "var5"), [])


def test_get_tensor(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testGetTensor"""
    checkpoint_dir = str(tmp_path)
    v1, v2, v3, v4 = _create_checkpoints(checkpoint_dir)
    np.testing.assert_array_equal(checkpoint_utils.load_variable(checkpoint_dir, "var1"), v1)
    np.testing.assert_array_equal(checkpoint_utils.load_variable(checkpoint_dir, "var2"), v2)
    np.testing.assert_array_equal(checkpoint_utils.load_variable(checkpoint_dir, "var3"), v3)
    np.testing.assert_array_equal(
        checkpoint_utils.load_variable(checkpoint_dir, "useful_scope/var4"), v4
    )


def test_get_all_variables(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testGetAllVariables"""
    checkpoint_dir = str(tmp_path)
    _create_checkpoints(checkpoint_dir)
    assert checkpoint_utils.list_variables(checkpoint_dir) == _ALL_VARIABLES


def test_fs_path(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testFSPath"""
    checkpoint_dir = pathlib.Path(tmp_path)
    v1, v2, v3, v4 = _create_checkpoints(checkpoint_dir)

    reader = checkpoint_utils.load_checkpoint(checkpoint_dir)
    np.testing.assert_array_equal(reader.get_tensor("var1"), v1)

    np.testing.assert_array_equal(checkpoint_utils.load_variable(checkpoint_dir, "var1"), v1)

    assert checkpoint_utils.list_variables(checkpoint_dir) == _ALL_VARIABLES


def test_init_from_checkpoint(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testInitFromCheckpoint (the graph-def
    size check, that no tensor is embedded in the graph, has no eager meaning)"""
    checkpoint_dir = str(tmp_path)
    v1, v2, v3, v4 = _create_checkpoints(checkpoint_dir)

    my1 = _get_variable("some_scope/my1", [1, 10])
    my2 = _get_variable("some_scope/some_other_scope/my2", [10, 10])
    my4 = _get_variable("some_scope/some_other_scope/other_useful_scope/var4", [9, 9])
    my3 = _get_variable("my3", [100, 100])
    my3b = _get_variable("my3b", [100, 100])
    graph = [my1, my2, my4, my3, my3b]

    checkpoint_utils.init_from_checkpoint(
        checkpoint_dir,
        {
            "var1": "some_scope/my1",
            "useful_scope/": "some_scope/some_other_scope/other_useful_scope/",
        },
        variables=graph,
    )
    checkpoint_utils.init_from_checkpoint(
        checkpoint_dir,
        [
            ("var2", "some_scope/some_other_scope/my2"),
            ("var3", my3),
            ("var3", my3b),
        ],
        variables=graph,
    )

    np.testing.assert_array_equal(my1.numpy(), v1)
    np.testing.assert_array_equal(my2.numpy(), v2)
    np.testing.assert_array_equal(my3.numpy(), v3)
    np.testing.assert_array_equal(my3b.numpy(), v3)
    np.testing.assert_array_equal(my4.numpy(), v4)


def test_initial_value_comes_from_checkpoint(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testInitialValueComesFromCheckpoint
    (eager: ``before`` is the value before the call, ``after`` the value after it)"""
    checkpoint_dir = str(tmp_path)
    v1, _, _, _ = _create_checkpoints(checkpoint_dir)

    my1 = _get_variable("some_scope/my1", [1, 10], initializer=np.zeros)

    before = my1.numpy().copy()

    checkpoint_utils.init_from_checkpoint(checkpoint_dir, {"var1": my1})

    after = my1.numpy()

    np.testing.assert_array_equal(before, [[0.0] * 10])
    np.testing.assert_array_equal(after, v1)

    np.testing.assert_array_equal(my1.numpy(), v1)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(v1, [[0.0] * 10], rtol=1e-6, atol=1e-6)


def test_init_with_scope_does_not_capture_suffixes(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testInitWithScopeDoesNotCaptureSuffixes"""
    checkpoint_dir = str(tmp_path)
    _, _, _, v4 = _create_checkpoints(checkpoint_dir)

    my4 = _get_variable("useful_scope/var4", [9, 9])
    my5_init = [[1.0, 2.0], [3.0, 4.0]]
    my5 = Variable(np.asarray(my5_init, np.float32), name="useful_scope_1/var5")

    checkpoint_utils.init_from_checkpoint(
        checkpoint_dir, {"useful_scope/": "useful_scope/"}, variables=[my4, my5]
    )
    np.testing.assert_array_equal(my4.numpy(), v4)
    np.testing.assert_array_equal(my5.numpy(), my5_init)


def test_restore_runs_on_same_device(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testRestoreRunsOnSameDevice (the
    ``ops.device("/job:ps")`` placement has no meaning here: one host)"""
    checkpoint_dir = str(tmp_path)
    _create_checkpoints(checkpoint_dir)

    var4 = _get_variable("useful_scope/var4", [9, 9])

    checkpoint_utils.init_from_checkpoint(
        checkpoint_dir, {"useful_scope/": "useful_scope/"}, variables=[var4]
    )


@pytest.mark.parametrize(
    "scope,target", [("some_scope/", "some_scope/"), ("", "/")], ids=["FromRoot", "ToRoot"]
)
def test_init_root_checkpoint(tmp_path, scope, target):
    """checkpoint_utils_test.py CheckpointsTest.testInitFromRootCheckpoint /
    testInitToRootCheckpoint"""
    checkpoint_dir = str(tmp_path)
    v1, v2, v3, v4 = _create_checkpoints(checkpoint_dir)

    my1 = _get_variable(scope + "var1", [1, 10])
    my2 = _get_variable(scope + "var2", [10, 10])
    my3 = _get_variable(scope + "var3", [100, 100])
    my4 = _get_variable(scope + "useful_scope/var4", [9, 9])

    checkpoint_utils.init_from_checkpoint(
        checkpoint_dir,
        {
            "/": target,
        },
        variables=[my1, my2, my3, my4],
    )

    np.testing.assert_array_equal(my1.numpy(), v1)
    np.testing.assert_array_equal(my2.numpy(), v2)
    np.testing.assert_array_equal(my3.numpy(), v3)
    np.testing.assert_array_equal(my4.numpy(), v4)


def test_init_from_partition_var(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testInitFromPartitionVar (variables are
    whole here: ``my1``/``my2`` by name are checked concatenated; the list form
    ``{"scope/var1": my1_var_list}`` fills each partition with its rows)"""
    checkpoint_dir = str(tmp_path)
    v1 = _create_partition_checkpoints(checkpoint_dir)

    my1 = _get_variable("some_scope/my1", [100, 100], initializer=np.zeros)
    # Create another variable with different partitions than the variable in
    # the checkpoint.
    my2 = _get_variable("some_other_scope/var1", [100, 100], initializer=np.zeros)

    checkpoint_utils.init_from_checkpoint(
        checkpoint_dir,
        {"scope/var1": "some_scope/my1", "scope/": "some_other_scope/"},
        variables=[my1, my2],
    )

    my1_values = _partitions(my1.numpy(), _SIZES_8K)
    np.testing.assert_array_equal(my1_values, v1)
    my2_values = _partitions(my2.numpy(), _SIZES_16K)
    # Verify we created different number of partitions.
    assert len(my2_values) != len(v1)
    # Verify the values were correctly initialized inspite of different
    # partitions.
    full_my2_values = np.concatenate(my2_values, axis=0)
    full_v1_values = np.concatenate(v1, axis=0)
    np.testing.assert_array_equal(full_my2_values, full_v1_values)

    # New graph and session.
    my1_var_list = [
        Variable(np.zeros([rows, 100], np.float32), name=f"some_scope/my1/part_{i}")
        for i, rows in enumerate(_SIZES_8K)
    ]

    checkpoint_utils.init_from_checkpoint(
        checkpoint_dir,
        {
            "scope/var1": my1_var_list,
        },
    )

    my1_values = [v.numpy() for v in my1_var_list]
    np.testing.assert_array_equal(my1_values, v1)


def test_init_from_checkpoint_missing(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testInitFromCheckpointMissing"""
    checkpoint_dir = str(tmp_path)
    _, _, _, _ = _create_checkpoints(checkpoint_dir)

    graph = [
        _get_variable("some_scope/my1", [10, 10]),
        _get_variable("some_scope/my2", [1, 10], dtype=np.int64, initializer=np.zeros),
    ]

    # No directory.
    with pytest.raises((OSError, ValueError)):
        checkpoint_utils.init_from_checkpoint("no_dir", {"var1": "some_scope/my1"}, graph)

    # No variable in checkpoint.
    with pytest.raises(ValueError):
        checkpoint_utils.init_from_checkpoint(checkpoint_dir, {"no_var": "some_scope/my1"}, graph)

    # No variable in the graph.
    with pytest.raises(ValueError):
        checkpoint_utils.init_from_checkpoint(checkpoint_dir, {"var3": "some_scope/no_var"}, graph)

    # Shape mismatch.
    with pytest.raises(ValueError):
        checkpoint_utils.init_from_checkpoint(checkpoint_dir, {"var1": "some_scope/my1"}, graph)

    # Variable 'my1' and 'my2' are missing in given checkpoint scope.
    with pytest.raises(ValueError):
        checkpoint_utils.init_from_checkpoint(
            checkpoint_dir, {"useful_scope/": "some_scope/"}, graph
        )

    # Mapping is not to scope name.
    with pytest.raises(ValueError):
        checkpoint_utils.init_from_checkpoint(
            checkpoint_dir, {"useful_scope": "some_scope/"}, graph
        )


def test_no_additional_read_ops_for_resource_variables(tmp_path):
    """checkpoint_utils_test.py CheckpointsTest.testNoAdditionalReadOpsForResourceVariables
    (its basic sanity check; the count of graph ops made under a name scope has no eager
    meaning)"""
    checkpoint_dir = str(tmp_path)
    v1, _, _, _ = _create_checkpoints(checkpoint_dir)

    my1 = Variable(np.asarray([[0.0] * 10], np.float32), name="my1")

    checkpoint_utils.init_from_checkpoint(checkpoint_dir, {"var1": my1})

    # Basic sanity checks:
    np.testing.assert_array_equal(my1.numpy(), v1)


def test_returns_empty_if_no_checkpoints_found(tmp_path):
    """checkpoint_utils_test.py CheckpointIteratorTest.testReturnsEmptyIfNoCheckpointsFound"""
    checkpoint_dir = os.path.join(str(tmp_path), "no_checkpoints_found")

    num_found = 0
    for _ in checkpoint_utils.checkpoints_iterator(checkpoint_dir, timeout=0):
        num_found += 1
    assert num_found == 0


@pytest.mark.parametrize("as_path", [False, True], ids=["str", "FSPath"])
def test_returns_single_checkpoint_if_one_checkpoint_found(tmp_path, as_path):
    """checkpoint_utils_test.py
    CheckpointIteratorTest.testReturnsSingleCheckpointIfOneCheckpointFound /
    testWorksWithFSPath (the directory as a ``pathlib.Path``)"""
    checkpoint_dir = os.path.join(str(tmp_path), "one_checkpoint_found")
    if as_path:
        checkpoint_dir = pathlib.Path(checkpoint_dir)
    os.makedirs(checkpoint_dir, exist_ok=True)

    save_path = os.path.join(checkpoint_dir, "model.ckpt")

    a = Variable(5)
    checkpoint = cn.train.Checkpoint(a=a)
    checkpoint.save(file_prefix=save_path)

    num_found = 0
    for _ in checkpoint_utils.checkpoints_iterator(checkpoint_dir, timeout=0):
        num_found += 1
    assert num_found == 1


def test_returns_single_checkpoint_if_one_sharded_checkpoint(tmp_path):
    """checkpoint_utils_test.py
    CheckpointIteratorTest.testReturnsSingleCheckpointIfOneShardedCheckpoint (TF shards
    by device, ``/cpu:0`` and ``/cpu:1``; one host here, so one shard, still one
    checkpoint)"""
    checkpoint_dir = os.path.join(str(tmp_path), "one_checkpoint_found_sharded")
    os.makedirs(checkpoint_dir, exist_ok=True)

    global_step = Variable(0, name="v0")

    v1 = Variable(10, name="v1")
    v2 = Variable(20, name="v2")

    saver = cn.train.Saver([global_step, v1, v2], sharded=True)

    save_path = os.path.join(checkpoint_dir, "model.ckpt")
    saver.save(None, save_path, global_step=global_step)

    num_found = 0
    for _ in checkpoint_utils.checkpoints_iterator(checkpoint_dir, timeout=0):
        num_found += 1
    assert num_found == 1


def test_timeout_fn():
    """checkpoint_utils_test.py CheckpointIteratorTest.testTimeoutFn"""
    timeout_fn_calls = [0]

    def timeout_fn():
        timeout_fn_calls[0] += 1
        return timeout_fn_calls[0] > 3

    results = list(
        checkpoint_utils.checkpoints_iterator(
            "/non-existent-dir", timeout=0.1, timeout_fn=timeout_fn
        )
    )
    assert [] == results
    assert 4 == timeout_fn_calls[0]


def test_returns_none_after_timeout():
    """checkpoint_utils_test.py WaitForNewCheckpointTest.testReturnsNoneAfterTimeout"""
    start = time.time()
    ret = checkpoint_utils.wait_for_new_checkpoint(
        "/non-existent-dir", "foo", timeout=1.0, seconds_to_sleep=0.5
    )
    end = time.time()
    assert ret is None

    # We've waited one second.
    assert end > start + 0.5

    # The timeout kicked in.
    assert end < start + 1.1
