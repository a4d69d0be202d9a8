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
"""Port of tensorflow/python/training/warm_starting_util_test.py (graph mode -> eager).

Mechanical translation: each ``ops.Graph()`` is a fresh set of named ``Variable`` objects, the
graph's variable collection is passed as ``variables=``, checkpoints are written by
``cn.train.Saver`` (TF's ``saver_lib.Saver()``). TF's private helpers become the public
call they wrap: ``_get_var_info`` + ``init_from_checkpoint({prev_tensor_name: var})`` is
``init_from_checkpoint({name: var})``, and ``_warm_start_var_with_vocab(var, ...)`` is
``warm_start`` of that one variable with its ``VocabInfo``. ``fc.linear_model`` /
``fc.input_layer`` are replaced by the variables they create, under TF's names and
shapes (zeros, their default initializer). Variables are whole here: where TF
partitions one, its expected partitions are compared concatenated.
"""

import os

import numpy as np
import pytest

import colonnade as cn
from colonnade.core import Variable

ws_util = cn.train
checkpoint_utils = cn.train

_RNG = np.random.default_rng(0)


def ones():
    return lambda shape: np.ones(shape, np.float32)


def zeros():
    return lambda shape: np.zeros(shape, np.float32)


def norms():
    return lambda shape: np.clip(_RNG.normal(0.0, 1.0, shape), -2, 2).astype(np.float32)


def rand():
    return lambda shape: _RNG.uniform(-0.05, 0.05, shape).astype(np.float32)


def _get_variable(name, shape=None, initializer=None):
    """``variable_scope.get_variable``: ``initializer`` a value or an initializer."""
    if callable(initializer):
        value = initializer(shape)
    else:
        value = np.asarray(initializer, np.float32)
    return Variable(value, name=name, dtype=np.float32)


def _assert_all_close(expected, actual):
    np.testing.assert_allclose(np.asarray(actual, np.float64), expected, rtol=1e-6, atol=1e-6)


class _Dir:
    """The test's ``get_temp_dir()`` and its checkpoint/vocabulary helpers."""

    def __init__(self, path):
        self.path = str(path)

    def get_temp_dir(self):
        return self.path

    def _write_vocab(self, string_values, file_name):
        vocab_file = os.path.join(self.get_temp_dir(), file_name)
        with open(vocab_file, "w") as f:
            f.write("\n".join(string_values))
        return vocab_file

    def _write_checkpoint(self, graph):
        saver = cn.train.Saver(graph)
        ckpt_prefix = os.path.join(self.get_temp_dir(), "model")
        saver.save(None, ckpt_prefix, global_step=0)

    def _create_prev_run_var(self, var_name, shape=None, initializer=None):
        var = _get_variable(var_name, shape=shape, initializer=initializer)
        self._write_checkpoint([var])
        return var, var.numpy()

    def _create_prev_run_vars(self, var_names, shapes, initializers):
        all_vars = [
            _get_variable(name, shape=shape, initializer=init)
            for name, shape, init in zip(var_names, shapes, initializers)
        ]
        self._write_checkpoint(all_vars)
        return [var.numpy() for var in all_vars]


@pytest.fixture
def t(tmp_path):
    return _Dir(tmp_path)


def _warm_start_var_with_vocab(
    var,
    current_vocab_path,
    current_vocab_size,
    prev_ckpt,
    prev_vocab_path,
    previous_vocab_size=-1,
    current_oov_buckets=0,
    axis=0,
):
    """TF's ``ws_util._warm_start_var_with_vocab``, through the public ``warm_start``."""
    info = ws_util.VocabInfo(
        current_vocab_path,
        current_vocab_size,
        current_oov_buckets,
        prev_vocab_path,
        old_vocab_size=previous_vocab_size,
        axis=axis,
    )
    ws_util.warm_start(prev_ckpt, [var], var_name_to_vocab_info={var.name: info}, variables=[var])


def _linear_model(specs):
    """The zero-initialized variables ``fc.linear_model`` makes: ``{name: shape}`` plus
    ``linear_model/bias_weights``."""
    out = {name: _get_variable(name, shape, zeros()) for name, shape in specs.items()}
    out["linear_model/bias_weights"] = _get_variable("linear_model/bias_weights", [1], zeros())
    return out


def test_warm_start_var(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStartVar"""
    _, prev_val = t._create_prev_run_var("fruit_weights", initializer=[[0.5], [1.0], [1.5], [2.0]])

    fruit_weights = _get_variable("fruit_weights", initializer=[[0.0], [0.0], [0.0], [0.0]])
    checkpoint_utils.init_from_checkpoint(t.get_temp_dir(), {"fruit_weights": fruit_weights})
    _assert_all_close(prev_val, fruit_weights.numpy())


@pytest.mark.parametrize("case", ["PrevVarPartitioned", "CurrentVarPartitioned"])
def test_warm_start_var_partitioned(t, case):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStartVarPrevVarPartitioned /
    testWarmStartVarCurrentVarPartitioned (partitions [2, 1]: whole here, compared
    concatenated as TF's test does)"""
    _, prev_val = t._create_prev_run_var(
        "fruit_weights", shape=[4, 1], initializer=[[0.5], [1.0], [1.5], [2.0]]
    )
    fruit_weights = _get_variable("fruit_weights", initializer=[[0.0], [0.0], [0.0], [0.0]])
    checkpoint_utils.init_from_checkpoint(t.get_temp_dir(), {"fruit_weights": fruit_weights})
    new_val = np.concatenate(np.split(fruit_weights.numpy(), 2), axis=0)
    _assert_all_close(prev_val, new_val)


def test_warm_start_var_current_var_partitions_as_list(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStartVarCurrentVarPartitioned,
    with the current variable's two partitions given as a list (TF's
    ``_get_var_info`` of a PartitionedVariable)"""
    _, prev_val = t._create_prev_run_var("fruit_weights", initializer=[[0.5], [1.0], [1.5], [2.0]])
    parts = [_get_variable(f"fruit_weights/part_{i}", initializer=[[0.0], [0.0]]) for i in range(2)]
    checkpoint_utils.init_from_checkpoint(t.get_temp_dir(), {"fruit_weights": parts})
    new_val = np.concatenate([parts[0].numpy(), parts[1].numpy()], axis=0)
    _assert_all_close(prev_val, new_val)


def test_warm_start_var_both_vars_partitioned(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStartVarBothVarsPartitioned"""
    _, prev_val = t._create_prev_run_var(
        "old_scope/fruit_weights", shape=[4, 1], initializer=[[0.5], [1.0], [1.5], [2.0]]
    )
    parts = [
        _get_variable(f"new_scope/fruit_weights/part_{i}", initializer=[[0.0], [0.0]])
        for i in range(2)
    ]
    checkpoint_utils.init_from_checkpoint(t.get_temp_dir(), {"old_scope/fruit_weights": parts})
    new_val = np.concatenate([parts[0].numpy(), parts[1].numpy()], axis=0)
    _assert_all_close(prev_val, new_val)


def _fruit_vocabs(t):
    """The old vocabulary, its checkpoint of fruit_weights, and the new vocabulary of
    TF's fruit_weights vocabulary tests."""
    prev_vocab_path = t._write_vocab(["apple", "banana", "guava", "orange"], "old_vocab")
    t._create_prev_run_var("fruit_weights", initializer=[[0.5], [1.0], [1.5], [2.0]])

    # New vocab with elements in reverse order and one new element.
    new_vocab_path = t._write_vocab(
        ["orange", "guava", "banana", "apple", "raspberry"], "new_vocab"
    )
    return prev_vocab_path, new_vocab_path


@pytest.mark.parametrize("case", ["", "PrevVarPartitioned"])
def test_warm_start_var_with_vocab(t, case):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStartVarWithVocab /
    testWarmStartVarWithVocabPrevVarPartitioned"""
    prev_vocab_path, new_vocab_path = _fruit_vocabs(t)
    fruit_weights = _get_variable("fruit_weights", initializer=[[0.0], [0.0], [0.0], [0.0], [0.0]])
    _warm_start_var_with_vocab(fruit_weights, new_vocab_path, 5, t.get_temp_dir(), prev_vocab_path)
    _assert_all_close([[2.0], [1.5], [1.0], [0.5], [0.0]], fruit_weights.numpy())


@pytest.mark.parametrize(
    "case", ["", "PrevVarPartitioned", "CurrentVarPartitioned", "BothVarsPartitioned"]
)
def test_warm_start_var_with_column_vocab(t, case):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStartVarWithColumnVocab /
    ...PrevVarPartitioned / ...CurrentVarPartitioned / ...BothVarsPartitioned (the two
    [2, 3] partitions TF checks, concatenated)"""
    prev_vocab_path = t._write_vocab(["apple", "orange"], "old_vocab")
    t._create_prev_run_var(
        "fruit_output_layer", initializer=[[0.5, 0.3], [1.0, 0.8], [1.5, 1.2], [2.0, 2.3]]
    )

    # New vocab with elements in reverse order and one new element.
    new_vocab_path = t._write_vocab(["orange", "apple", "banana"], "new_vocab")
    fruit_output_layer = _get_variable(
        "fruit_output_layer",
        initializer=[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
    )
    _warm_start_var_with_vocab(
        fruit_output_layer,
        new_vocab_path,
        current_vocab_size=3,
        prev_ckpt=t.get_temp_dir(),
        prev_vocab_path=prev_vocab_path,
        axis=1,
    )
    part0, part1 = np.split(fruit_output_layer.numpy(), 2)
    _assert_all_close([[0.3, 0.5, 0.0], [0.8, 1.0, 0.0]], part0)
    _assert_all_close([[1.2, 1.5, 0.0], [2.3, 2.0, 0.0]], part1)


def test_warm_start_var_with_vocab_constrained_old_vocab_size(t):
    """warm_starting_util_test.py
    WarmStartingUtilTest.testWarmStartVarWithVocabConstrainedOldVocabSize"""
    prev_vocab_path, new_vocab_path = _fruit_vocabs(t)
    fruit_weights = _get_variable("fruit_weights", initializer=[[0.0], [0.0], [0.0], [0.0], [0.0]])
    _warm_start_var_with_vocab(
        fruit_weights,
        new_vocab_path,
        5,
        t.get_temp_dir(),
        prev_vocab_path,
        previous_vocab_size=2,
    )
    # Old vocabulary limited to ['apple', 'banana'].
    _assert_all_close([[0.0], [0.0], [1.0], [0.5], [0.0]], fruit_weights.numpy())


def test_warm_start_var_with_vocab_current_var_partitioned(t):
    """warm_starting_util_test.py
    WarmStartingUtilTest.testWarmStartVarWithVocabCurrentVarPartitioned"""
    prev_vocab_path, new_vocab_path = _fruit_vocabs(t)
    fruit_weights = _get_variable(
        "fruit_weights", shape=[6, 1], initializer=[[0.0], [0.0], [0.0], [0.0], [0.0], [0.0]]
    )
    _warm_start_var_with_vocab(
        fruit_weights,
        new_vocab_path,
        5,
        t.get_temp_dir(),
        prev_vocab_path,
        current_oov_buckets=1,
    )
    fruit_weights_vars = np.split(fruit_weights.numpy(), 2)
    _assert_all_close([[2.0], [1.5], [1.0]], fruit_weights_vars[0])
    _assert_all_close([[0.5], [0.0], [0.0]], fruit_weights_vars[1])


def test_warm_start_var_with_vocab_both_vars_partitioned(t):
    """warm_starting_util_test.py
    WarmStartingUtilTest.testWarmStartVarWithVocabBothVarsPartitioned"""
    prev_vocab_path = t._write_vocab(["apple", "banana", "guava", "orange"], "old_vocab")
    t._create_prev_run_var("fruit_weights", shape=[4, 1], initializer=[[0.5], [1.0], [1.5], [2.0]])

    # New vocab with elements in reverse order and two new elements.
    new_vocab_path = t._write_vocab(
        ["orange", "guava", "banana", "apple", "raspberry", "blueberry"], "new_vocab"
    )
    fruit_weights = _get_variable(
        "fruit_weights", shape=[6, 1], initializer=[[0.0], [0.0], [0.0], [0.0], [0.0], [0.0]]
    )
    _warm_start_var_with_vocab(fruit_weights, new_vocab_path, 6, t.get_temp_dir(), prev_vocab_path)
    fruit_weights_vars = np.split(fruit_weights.numpy(), 2)
    _assert_all_close([[2.0], [1.5], [1.0]], fruit_weights_vars[0])
    _assert_all_close([[0.5], [0.0], [0.0]], fruit_weights_vars[1])


def test_warm_start_list_of_variables(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStart_ListOfVariables"""
    # Save checkpoint from which to warm-start.
    _, prev_int_val = t._create_prev_run_var("v1", shape=[10, 1], initializer=ones())
    # Verify we initialized the values correctly.
    np.testing.assert_array_equal(np.ones([10, 1]), prev_int_val)

    # Initialize with zeros.
    var = _get_variable("v1", shape=[10, 1], initializer=zeros())
    ws_util.warm_start(t.get_temp_dir(), vars_to_warm_start=[var], variables=[var])
    # Verify weights were correctly warm-started (init overridden to ones).
    np.testing.assert_array_equal(var.numpy(), prev_int_val)


def test_warm_start_list_of_strings(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStart_ListOfStrings"""
    _, prev_int_val = t._create_prev_run_var("v1", shape=[10, 1], initializer=ones())
    np.testing.assert_array_equal(np.ones([10, 1]), prev_int_val)

    var = _get_variable("v1", shape=[10, 1], initializer=zeros())
    ws_util.warm_start(t.get_temp_dir(), vars_to_warm_start=["v1"], variables=[var])
    np.testing.assert_array_equal(var.numpy(), prev_int_val)


def test_warm_start_two_vars_from_the_same_prev_var(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStart_TwoVarsFromTheSamePrevVar"""
    _, prev_int_val = t._create_prev_run_var("v1", shape=[10, 1], initializer=ones())
    np.testing.assert_array_equal(np.ones([10, 1]), prev_int_val)

    var = _get_variable("v1", shape=[10, 1], initializer=zeros())
    var2 = _get_variable("v2", shape=[10, 1], initializer=zeros())
    ws_util.warm_start(
        t.get_temp_dir(),
        vars_to_warm_start=["v1", "v2"],
        var_name_to_prev_var_name=dict(v2="v1"),
        variables=[var, var2],
    )
    np.testing.assert_array_equal(var.numpy(), prev_int_val)
    np.testing.assert_array_equal(var2.numpy(), prev_int_val)


def test_warm_start_list_of_regexes(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStart_ListOfRegexes"""
    [prev_v1_val, prev_v1_momentum_val, prev_v2_val, _] = t._create_prev_run_vars(
        var_names=["v1", "v1/Momentum", "v2", "v2/Momentum"],
        shapes=[[10, 1]] * 4,
        initializers=[ones()] * 4,
    )

    v1 = _get_variable("v1", shape=[10, 1], initializer=zeros())
    v1_momentum = _get_variable("v1/Momentum", shape=[10, 1], initializer=zeros())
    v2 = _get_variable("v2", shape=[10, 1], initializer=zeros())
    v2_momentum = _get_variable("v2/Momentum", shape=[10, 1], initializer=zeros())
    ws_util.warm_start(
        t.get_temp_dir(),
        # This warm-starts both v1 and v1/Momentum, but only
        # v2 (and not v2/Momentum).
        vars_to_warm_start=["v1", "v2[^/]"],
        variables=[v1, v1_momentum, v2, v2_momentum],
    )
    np.testing.assert_array_equal(v1.numpy(), prev_v1_val)
    np.testing.assert_array_equal(v1_momentum.numpy(), prev_v1_momentum_val)
    np.testing.assert_array_equal(v2.numpy(), prev_v2_val)
    np.testing.assert_array_equal(v2_momentum.numpy(), np.zeros([10, 1]))


@pytest.mark.parametrize(
    "name,shape,init,pattern",
    [
        ("sc_int", [10, 1], ones, ".*sc_int.*"),
        ("sc_hash", [15, 1], norms, ".*sc_hash.*"),
        ("sc_vocab", [4, 1], ones, ".*sc_vocab.*"),
        ("real_bucketized", [5, 1], norms, ".*real_bucketized.*"),
    ],
    ids=["SparseColumnIntegerized", "SparseColumnHashed", "SparseColumnVocabulary", "Bucketized"],
)
def test_warm_start_single_column(t, name, shape, init, pattern):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStart_SparseColumnIntegerized /
    testWarmStart_SparseColumnHashed / testWarmStart_SparseColumnVocabulary /
    testWarmStart_BucketizedColumn"""
    var_name = f"linear_model/{name}/weights"
    _, prev_val = t._create_prev_run_var(var_name, shape=shape, initializer=init())

    # WITHOUT warm-starting: the default initializer (zeros).
    cols_to_vars = _linear_model({var_name: shape})
    _assert_all_close(np.zeros(shape), cols_to_vars[var_name].numpy())

    cols_to_vars = _linear_model({var_name: shape})
    ws_util.warm_start(
        t.get_temp_dir(), vars_to_warm_start=pattern, variables=list(cols_to_vars.values())
    )
    _assert_all_close(prev_val, cols_to_vars[var_name].numpy())


def test_warm_start_explicit_checkpoint_file(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStart_ExplicitCheckpointFile"""
    var_name = "linear_model/sc_vocab/weights"
    _, prev_vocab_val = t._create_prev_run_var(var_name, shape=[4, 1], initializer=ones())

    cols_to_vars = _linear_model({var_name: [4, 1]})
    ws_util.warm_start(
        # Explicitly provide the file prefix instead of just the dir.
        os.path.join(t.get_temp_dir(), "model-0"),
        vars_to_warm_start=".*sc_vocab.*",
        variables=list(cols_to_vars.values()),
    )
    _assert_all_close(prev_vocab_val, cols_to_vars[var_name].numpy())


def test_warm_start_sparse_column_vocabulary_constrained_vocab_sizes(t):
    """warm_starting_util_test.py
    WarmStartingUtilTest.testWarmStart_SparseColumnVocabularyConstrainedVocabSizes"""
    old_vocab_path = t._write_vocab(["apple", "guava", "banana"], "old_vocab")
    old_vocab_size = 2  # ['apple', 'guava']
    current_vocab_path = t._write_vocab(["apple", "banana", "guava", "orange"], "current_vocab")
    var_name = "linear_model/sc_vocab/weights"
    t._create_prev_run_var(var_name, shape=[2, 1], initializer=ones())

    cols_to_vars = _linear_model({var_name: [2, 1]})
    vocab_info = ws_util.VocabInfo(
        new_vocab=current_vocab_path,
        new_vocab_size=2,
        num_oov_buckets=0,
        old_vocab=old_vocab_path,
        old_vocab_size=old_vocab_size,
    )
    ws_util.warm_start(
        ckpt_to_initialize_from=t.get_temp_dir(),
        vars_to_warm_start=".*sc_vocab.*",
        var_name_to_vocab_info={"linear_model/sc_vocab/weights": vocab_info},
        variables=list(cols_to_vars.values()),
    )
    # 'banana' isn't in the first two entries of the old vocabulary, so it's newly
    # initialized.
    _assert_all_close([[1], [0]], cols_to_vars[var_name].numpy())


_MULTIPLE_COLS = {
    "linear_model/sc_int/weights": ([10, 1], ones),
    "linear_model/sc_hash/weights": ([15, 1], norms),
    "linear_model/sc_keys/weights": ([4, 1], rand),
    "linear_model/sc_vocab/weights": ([4, 1], ones),
    "linear_model/real_bucketized/weights": ([5, 1], norms),
    "linear_model/sc_keys_X_sc_vocab/weights": ([20, 1], rand),
    "linear_model/bias_weights": ([1], rand),
}


def test_warm_start_multiple_cols(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStart_MultipleCols"""
    vocab_path = t._write_vocab(["apple", "banana", "guava", "orange"], "vocab")
    prev = t._create_prev_run_vars(
        list(_MULTIPLE_COLS),
        [shape for shape, _ in _MULTIPLE_COLS.values()],
        [init() for _, init in _MULTIPLE_COLS.values()],
    )
    specs = {name: shape for name, (shape, _) in _MULTIPLE_COLS.items() if "bias" not in name}

    cols_to_vars = _linear_model(specs)
    for name, (shape, _) in _MULTIPLE_COLS.items():
        _assert_all_close(np.zeros(shape), cols_to_vars[name].numpy())

    cols_to_vars = _linear_model(specs)
    vocab_info = ws_util.VocabInfo(
        new_vocab=vocab_path, new_vocab_size=4, num_oov_buckets=0, old_vocab=vocab_path
    )
    ws_util.warm_start(
        t.get_temp_dir(),
        var_name_to_vocab_info={"linear_model/sc_vocab/weights": vocab_info},
        variables=list(cols_to_vars.values()),
    )
    for name, prev_val in zip(_MULTIPLE_COLS, prev):
        _assert_all_close(prev_val, cols_to_vars[name].numpy())


def _more_settings_checkpoint(t):
    prev_vocab_path = t._write_vocab(["apple", "banana", "guava", "orange"], "old_vocab")
    new_vocab_path = t._write_vocab(
        ["orange", "guava", "banana", "apple", "raspberry", "blueberry"], "new_vocab"
    )
    graph = [
        _get_variable("linear_model/sc_hash/weights", shape=[15, 1], initializer=norms()),
        _get_variable("some_other_name", shape=[4, 1], initializer=rand()),
        _get_variable("linear_model/sc_vocab/weights", initializer=[[0.5], [1.0], [2.0], [3.0]]),
    ]
    t._write_checkpoint(graph)
    cols_to_vars = _linear_model(
        {
            "linear_model/sc_hash/weights": [15, 1],
            "linear_model/sc_keys/weights": [4, 1],
            "linear_model/sc_vocab/weights": [6, 1],
        }
    )
    vocab_info = ws_util.VocabInfo(
        new_vocab=new_vocab_path, new_vocab_size=6, num_oov_buckets=0, old_vocab=prev_vocab_path
    )
    return graph[1].numpy(), cols_to_vars, vocab_info


@pytest.mark.parametrize("case", ["", "NoPartitioning"])
def test_warm_start_more_settings(t, case):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStartMoreSettings /
    testWarmStartMoreSettingsNoPartitioning (TF's 2-way partitions, concatenated)"""
    prev_keys_val, cols_to_vars, vocab_info = _more_settings_checkpoint(t)
    ws_util.warm_start(
        t.get_temp_dir(),
        vars_to_warm_start=".*(sc_keys|sc_vocab).*",
        var_name_to_vocab_info={"linear_model/sc_vocab/weights": vocab_info},
        var_name_to_prev_var_name={"linear_model/sc_keys/weights": "some_other_name"},
        variables=list(cols_to_vars.values()),
    )
    # Var corresponding to sc_hash should not be warm-started.  Var corresponding to
    # sc_vocab should be correctly warm-started after vocab remapping.
    _assert_all_close(prev_keys_val, cols_to_vars["linear_model/sc_keys/weights"].numpy())
    _assert_all_close(np.zeros([15, 1]), cols_to_vars["linear_model/sc_hash/weights"].numpy())
    _assert_all_close(
        np.array([[3.0], [2.0], [1.0], [0.5], [0.0], [0.0]]),
        cols_to_vars["linear_model/sc_vocab/weights"].numpy(),
    )


def test_warm_start_vars_to_warmstart_is_none(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStartVarsToWarmstartIsNone"""
    _, cols_to_vars, vocab_info = _more_settings_checkpoint(t)
    ws_util.warm_start(
        t.get_temp_dir(),
        # The special value of None here will ensure that only the variable
        # specified in var_name_to_vocab_info (sc_vocab embedding) is
        # warm-started.
        vars_to_warm_start=None,
        var_name_to_vocab_info={"linear_model/sc_vocab/weights": vocab_info},
        # Even though this is provided, the None value for
        # vars_to_warm_start overrides the logic, and this will not be
        # warm-started.
        var_name_to_prev_var_name={"linear_model/sc_keys/weights": "some_other_name"},
        variables=list(cols_to_vars.values()),
    )
    _assert_all_close(np.zeros([4, 1]), cols_to_vars["linear_model/sc_keys/weights"].numpy())
    _assert_all_close(np.zeros([15, 1]), cols_to_vars["linear_model/sc_hash/weights"].numpy())
    _assert_all_close(
        np.array([[3.0], [2.0], [1.0], [0.5], [0.0], [0.0]]),
        cols_to_vars["linear_model/sc_vocab/weights"].numpy(),
    )


def _embedding_vocab(t):
    prev_vocab_path = t._write_vocab(["apple", "banana", "guava", "orange"], "old_vocab")
    new_vocab_path = t._write_vocab(
        ["orange", "guava", "banana", "apple", "raspberry", "blueberry"], "new_vocab"
    )
    return ws_util.VocabInfo(
        new_vocab=new_vocab_path,
        new_vocab_size=6,
        num_oov_buckets=0,
        old_vocab=prev_vocab_path,
        # Can't use constant_initializer with load_and_remap.  In practice,
        # use a truncated normal initializer.
        backup_initializer=cn.core.initializers.random_uniform(minval=0.42, maxval=0.42),
    )


# The two embedding_weights partitions TF's embedding tests expect, concatenated.
_EXPECTED_EMBEDDING_PARTS = np.concatenate(
    [
        np.array([[3.0, 3.3], [2.0, 2.2], [1.0, 1.1]]),
        np.array([[0.5, 0.4], [0.42, 0.42], [0.42, 0.42]]),
    ]
)


def test_warm_start_embedding_column(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStartEmbeddingColumn"""
    name = "input_layer/sc_vocab_embedding/embedding_weights"
    t._write_checkpoint(
        [_get_variable(name, initializer=[[0.5, 0.4], [1.0, 1.1], [2.0, 2.2], [3.0, 3.3]])]
    )
    vocab_info = _embedding_vocab(t)
    emb = _get_variable(name, shape=[6, 2], initializer=norms())
    ws_util.warm_start(t.get_temp_dir(), var_name_to_vocab_info={name: vocab_info}, variables=[emb])
    _assert_all_close(_EXPECTED_EMBEDDING_PARTS, emb.numpy())


def test_warm_start_embedding_column_linear_model(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStartEmbeddingColumnLinearModel"""
    emb_name = "linear_model/sc_vocab_embedding/embedding_weights"
    w_name = "linear_model/sc_vocab_embedding/weights"
    t._write_checkpoint(
        [
            _get_variable(emb_name, initializer=[[0.5, 0.4], [1.0, 1.1], [2.0, 2.2], [3.0, 3.3]]),
            _get_variable(w_name, initializer=[[0.69], [0.71]]),
        ]
    )
    vocab_info = _embedding_vocab(t)
    emb = _get_variable(emb_name, shape=[6, 2], initializer=norms())
    weights = _get_variable(w_name, shape=[2, 1], initializer=zeros())
    ws_util.warm_start(
        t.get_temp_dir(),
        vars_to_warm_start=".*sc_vocab.*",
        var_name_to_vocab_info={emb_name: vocab_info},
        variables=[emb, weights],
    )
    # linear weights part 0 and part 1.
    _assert_all_close(np.concatenate([np.array([[0.69]]), np.array([[0.71]])]), weights.numpy())
    # embedding_weights part 0 and part 1.
    _assert_all_close(_EXPECTED_EMBEDDING_PARTS, emb.numpy())


def test_error_conditions(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testErrorConditions (its first check,
    a list of PartitionedVariables passed to the private ``_warm_start_var_with_vocab``,
    has no counterpart: there are no PartitionedVariables)"""
    x = _get_variable("x", shape=[4, 1], initializer=ones())
    t._write_checkpoint([x])

    with pytest.raises(ValueError):
        ws_util.warm_start(
            t.get_temp_dir(),
            var_name_to_vocab_info={"y": ws_util.VocabInfo("", 1, 0, "")},
            variables=[x],
        )
    with pytest.raises(ValueError):
        ws_util.warm_start(t.get_temp_dir(), var_name_to_prev_var_name={"y": "y2"}, variables=[x])


def test_warm_start_from_object_based_checkpoint(t):
    """warm_starting_util_test.py WarmStartingUtilTest.testWarmStartFromObjectBasedCheckpoint"""
    prev_val = [[0.5], [1.0], [1.5], [2.0]]
    prev_var = _get_variable("fruit_weights", initializer=prev_val)
    # Save object-based checkpoint.
    cn.train.Checkpoint(v=prev_var).save(os.path.join(t.get_temp_dir(), "checkpoint"))

    fruit_weights = _get_variable("fruit_weights", initializer=[[0.0], [0.0], [0.0], [0.0]])
    ws_util.warm_start(t.get_temp_dir(), variables=[fruit_weights])
    _assert_all_close(prev_val, fruit_weights.numpy())
