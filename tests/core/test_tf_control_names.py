"""TF's graph-control names with their eager meaning (TF 2.15 outside a graph, checked there:
``cond`` calls one branch, ``group``/``no_op`` give None, ``name_scope('a')`` inside ``'b'``
yields ``'b/a/'`` each time), TF 1's collections, scope defaults and initializers."""

import math

import numpy as np
import pytest

import colonnade as cn

v1 = cn.compat.v1


def test_cond_calls_one_branch_only():
    calls = []
    out = v1.cond(np.array(False), lambda: calls.append("t") or 1, lambda: calls.append("f") or 2)
    assert out == 2 and calls == ["f"]
    with pytest.raises(TypeError, match="'true_fn' argument required"):
        v1.cond(True, None, lambda: 2)
    with pytest.raises(ValueError, match="scalar"):
        v1.cond(np.array([True, False]), lambda: 1, lambda: 2)


def test_group_no_op_and_control_dependencies_are_eager_nothing():
    assert v1.group() is None and v1.no_op() is None
    with v1.control_dependencies(None) as nothing:
        assert nothing is None
    with pytest.raises(TypeError, match="unknown keyword"):
        v1.group(foo=1)


def test_name_scope_nests_and_repeats_as_eager_tf():
    with v1.name_scope("b"):
        with v1.name_scope("a") as first:
            pass
        with v1.name_scope(None, default_name="d") as default:
            pass
        with v1.name_scope("a") as again:
            pass
    assert (first, default, again) == ("b/a/", "b/d/", "b/a/")


def test_collections_read_the_current_store():
    store = cn.core.VariableStore(seed=0)
    with store.as_default():
        with v1.variable_scope("tower"):
            w = v1.get_variable("w", shape=[2])
        b = v1.get_variable("b", shape=[1], trainable=False)
        assert v1.get_collection(v1.GraphKeys.GLOBAL_VARIABLES) == [w, b]
        assert v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES) == [w]
        assert v1.trainable_variables(scope="tower") == [w]
        assert v1.global_variables(scope="b") == [b]
        assert v1.get_collection(v1.GraphKeys.UPDATE_OPS) == []
        with pytest.raises(ValueError, match="keeps no graph collections"):
            v1.get_collection(v1.GraphKeys.LOSSES)
    assert v1.global_variables() == []
    assert v1.GraphKeys.UPDATE_OPS == "update_ops" and v1.GraphKeys.GLOBAL_VARIABLES == "variables"


def test_variable_scope_takes_tf_arguments_and_gives_its_initializer():
    with cn.core.VariableStore(seed=0).as_default():
        with v1.variable_scope("s", values=[1], initializer=v1.constant_initializer(0.5)):
            inner = v1.get_variable("x", shape=[2])
            own = v1.get_variable("y", shape=[1], initializer=v1.zeros_initializer())
        outside = v1.get_variable("z", shape=[1], initializer=v1.ones_initializer())
    assert inner.numpy().tolist() == [0.5, 0.5] and own.numpy().tolist() == [0.0]
    assert outside.numpy().tolist() == [1.0]
    with pytest.raises(ValueError, match="custom_getter"):
        with v1.variable_scope("s", custom_getter=lambda getter, *a, **k: getter(*a, **k)):
            pass


@pytest.mark.parametrize(
    "mode, distribution, fan",
    [
        ("fan_in", "truncated_normal", 400),
        ("fan_out", "uniform", 300),
        ("fan_avg", "untruncated_normal", 350),
    ],
)
def test_variance_scaling_has_the_documented_variance(mode, distribution, fan):
    init = v1.variance_scaling_initializer(2.0, mode, distribution, seed=3)
    values = init((400, 300))
    assert values.dtype == np.float32
    np.testing.assert_allclose(values.var(), 2.0 / fan, rtol=0.02)
    if distribution == "uniform":
        assert np.abs(values).max() <= math.sqrt(3 * 2.0 / fan)
    if distribution == "truncated_normal":
        assert np.abs(values).max() <= 2 * math.sqrt(2.0 / fan) / 0.87962566103423978


def test_seeded_initializers_depend_on_their_seed_only():
    init = v1.truncated_normal_initializer(mean=1.0, stddev=0.5, seed=7, dtype="float64")
    a, b = init((1000,)), init((1000,), rng=np.random.default_rng(99))
    assert a.dtype == np.float64 and np.array_equal(a, b)
    assert np.abs(a - 1.0).max() <= 1.0 and abs(a.mean() - 1.0) < 0.05
    assert v1.random_uniform_initializer(seed=1)((1000,)).max() < 1.0  # maxval None is 1


def test_minimize_takes_tf1s_loss_keyword():
    w = cn.core.Variable([1.0, 2.0])
    loss = cn.core.sum(w * w)
    assert float(v1.train.GradientDescentOptimizer(0.25).minimize(loss=loss, var_list=[w])) == 5.0
    assert w.numpy().tolist() == [0.5, 1.0]
    with pytest.raises(TypeError, match="once"):
        v1.train.GradientDescentOptimizer(0.1).minimize(loss, loss=loss)


def test_softmax_takes_name_and_tf1_dim():
    logits = np.array([[1.0, 2.0], [0.0, 0.0]], np.float32)
    expected = np.exp(logits) / np.exp(logits).sum(axis=0, keepdims=True)
    np.testing.assert_allclose(v1.nn.softmax(logits, dim=0, name="p").numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(cn.nn.softmax(logits, axis=None, name="p").numpy().sum(1), [1, 1])


def test_embedding_lookup_sparse_takes_tfs_arguments():
    from types import SimpleNamespace as S

    table = np.array([[1.0, 0.0], [3.0, 4.0]], np.float32)
    ids = S(
        indices=np.array([[0, 0], [0, 1], [2, 0]]), values=np.array([0, 1, 1]), dense_shape=(3, 2)
    )
    # TF's default combiner is the mean; row 1 has no ids: zeros
    got = cn.nn.embedding_lookup_sparse(table, ids, None, name="emb").numpy()
    assert got.tolist() == [[2.0, 2.0], [0.0, 0.0], [3.0, 4.0]]
    summed = cn.nn.embedding_lookup_sparse(table, ids, None, "mod", None, "sum").numpy()
    assert summed.tolist() == [[4.0, 4.0], [0.0, 0.0], [3.0, 4.0]]
    with pytest.raises(ValueError, match="max_norm"):
        cn.nn.embedding_lookup_sparse(table, ids, max_norm=1.0)


def test_string_ops_refuse_bad_inputs_by_name():
    with pytest.raises(ValueError, match="fill must be one of"):
        v1.as_string(np.array([1.5]), width=4, fill="x")
    with pytest.raises(ValueError, match="scientific or shortest"):
        v1.as_string(np.array([1.5]), scientific=True, shortest=True)
    with pytest.raises(TypeError, match="numbers or booleans"):
        v1.as_string(np.array(["a"], dtype=object))
    with pytest.raises(ValueError, match="num_buckets must be >= 1"):
        v1.string_to_hash_bucket_fast(["a"], 0)
    with pytest.raises(TypeError, match="takes strings"):
        v1.string_to_hash_bucket_fast([1, 2], 10)
    # bytes hash as their text does (TF's strings are bytes)
    assert v1.string_to_hash_bucket_fast([b"hello"], 1000).tolist() == [296]


def test_shape_ops_refuse_bad_arguments_by_name():
    m = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="tensordot: axes=3"):
        v1.tensordot(m, m.T, 3)
    with pytest.raises(ValueError, match="differ in size"):
        v1.tensordot(m, m, [[0], [1]])
    with pytest.raises(ValueError, match="not a permutation"):
        v1.transpose(m, perm=[0, 0])
    with pytest.raises(ValueError, match="one count >= 0 per axis"):
        v1.tile(m, [2])
    with pytest.raises(ValueError, match="must be >= 0"):
        v1.fill([-1], 1.0)
    with pytest.raises(ValueError, match="out of range"):
        v1.argmax(m, axis=5)
