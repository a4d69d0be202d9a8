"""get_variable / variable_scope (AUTO_REUSE), global steps, and minimize on a recorded loss."""

import numpy as np
import pytest

import colonnade as cn
from colonnade.core import VariableStore


def test_variables_are_created_once_and_reused_by_full_name():
    store = VariableStore(seed=0)

    def build():
        with store.as_default(), cn.core.variable_scope("tower"):
            return cn.core.get_variable("w", shape=(2, 3)), cn.core.get_variable("b", shape=[3])

    first, second = build(), build()
    assert first[0] is second[0] and first[1] is second[1]
    assert sorted(store.variables()) == ["tower/b", "tower/w"]
    assert first[0].name == "tower/w"


def test_recreating_with_another_shape_names_the_variable_and_both_shapes():
    store = VariableStore()
    with store.as_default():
        cn.core.get_variable("w", shape=(2, 3))
        with pytest.raises(ValueError, match=r"'w' already exists with shape \(2, 3\).*\(4, 3\)"):
            cn.core.get_variable("w", shape=(4, 3))


def test_outside_a_store_get_variable_says_how_to_get_one():
    with pytest.raises(RuntimeError, match="VariableStore"):
        cn.core.get_variable("w", shape=(1,))


def test_initializers_values_and_functions():
    with VariableStore().as_default():
        c = cn.core.get_variable("c", initializer=np.array([1.0, 2.0]))
        z = cn.core.get_variable("z", shape=(2,), initializer=cn.core.initializers.zeros())
        n = cn.core.get_variable("n", shape=(), dtype=np.int64)
    assert c.numpy().tolist() == [1.0, 2.0] and z.numpy().tolist() == [0.0, 0.0]
    assert n.dtype == np.int64 and n.shape == ()


def test_unique_names_restart_at_each_entry():
    store = VariableStore()
    for _ in range(2):
        with store.as_default():
            names = [_unique("dense") for _ in range(3)]
        assert names == ["dense", "dense_1", "dense_2"]


def _unique(base):
    from colonnade.core.variable_scope import unique_name

    return unique_name(base)


def test_global_step_functions():
    store = VariableStore()
    assert cn.train.get_global_step() is None
    with store.as_default():
        step = cn.train.get_or_create_global_step()
        assert cn.train.get_global_step() is step
        with pytest.raises(ValueError, match="already exists"):
            cn.train.create_global_step()
        cn.train.assert_global_step(step)
    with pytest.raises(TypeError, match="integer scalar"):
        cn.train.assert_global_step(cn.core.Variable([1.0]))


def test_global_step_outside_a_store_is_the_default_graphs():
    cn.core.reset_default_graph()
    try:
        assert cn.train.get_global_step() is None
        step = cn.train.get_or_create_global_step()  # TF: the default graph's, at top level
        assert cn.train.get_or_create_global_step() is step
        assert cn.train.get_global_step() is step and step.dtype == np.int64
        with pytest.raises(ValueError, match="already exists"):
            cn.train.create_global_step()
        with VariableStore().as_default():  # a model_fn's graph has its own
            assert cn.train.get_global_step() is None
    finally:
        cn.core.reset_default_graph()
    assert cn.train.get_global_step() is None


def test_a_graph_argument_names_a_store_and_nothing_else():
    """TF's ``graph`` argument is a VariableStore: its step, made and found from outside it
    (TF's values: tests/tf/test_tf_training_util.py); anything else is refused by name."""
    store = VariableStore()
    step = cn.train.get_or_create_global_step(store)
    assert cn.train.get_global_step(store) is step and cn.train.get_global_step() is None
    with store.as_default():
        assert cn.train.get_global_step() is step
    for fn in (cn.train.create_global_step, cn.train.get_global_step):
        with pytest.raises(ValueError, match=f"{fn.__name__} takes graph=None .*got str"):
            fn("graph")


@pytest.mark.parametrize(
    "make", [lambda: cn.train.AdagradOptimizer(0.1), lambda: cn.train.AdamOptimizer(0.01)]
)
def test_minimize_on_a_recorded_loss_equals_value_and_grad_plus_apply(make):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3)).astype(np.float32)
    y = rng.normal(size=(8, 1)).astype(np.float32)
    w0 = rng.normal(size=(3, 1)).astype(np.float32)
    a, b = cn.core.Variable(w0), cn.core.Variable(w0)
    opt_a, opt_b = make(), make()
    for _ in range(3):
        loss = cn.core.mean(cn.core.square(x @ a - y))
        opt_a.minimize(loss, var_list=[a])
        _, grads = cn.core.value_and_grad(lambda: cn.core.mean(cn.core.square(x @ b - y)))([b])
        opt_b.apply_gradients(zip(grads, [b]))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_minimize_in_a_store_defaults_to_its_variables_and_keeps_slots_across_calls():
    store = VariableStore(seed=1)
    store.global_step = cn.core.Variable(np.int64(0), trainable=False, dtype=np.int64)
    x = np.ones((4, 2), np.float32)
    for _ in range(3):
        with store.as_default():
            w = cn.core.get_variable("w", shape=(2, 1))
            opt = cn.train.AdagradOptimizer(0.1)  # a new optimizer each call, as a model_fn
            opt.minimize(cn.core.mean(x @ w), global_step=cn.train.get_global_step())
    assert int(store.global_step.numpy()) == 3
    assert int(opt.iterations.numpy()) == 3
    np.testing.assert_allclose(opt.get_slot(w, "accumulator").numpy(), 0.1 + 3.0, rtol=1e-6)


def test_minimize_refuses_a_loss_without_graph_and_sums_one_not_scalar():
    w = cn.core.Variable([1.0, 2.0])
    opt = cn.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="no recorded graph"):
        with cn.core.no_grad():
            opt.minimize(cn.core.sum(w * w), var_list=[w])
    opt.minimize(w * w, var_list=[w])  # TF differentiates the sum of a non-scalar loss
    np.testing.assert_allclose(w.numpy(), [1.0 - 0.2 * 1.0, 2.0 - 0.2 * 2.0], rtol=1e-6)


def test_get_variable_of_a_scalar_shape_uses_tfs_fans():
    # TF counts fan_in = fan_out = 1 for a scalar: limit sqrt(6 / 2) = sqrt(3)
    with cn.core.VariableStore().as_default():
        b = cn.core.get_variable("b", shape=())
    assert b.shape == () and abs(float(b.numpy())) <= np.sqrt(3.0)
    assert cn.core.initializers.compute_fans((2, 2, 3, 5)) == (12, 20)
