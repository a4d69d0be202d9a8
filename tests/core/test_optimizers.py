"""The tf.train optimizers against TensorFlow's own trajectories, plus their contract.

Golden values: ``golden/optimizers.json`` was produced once by TensorFlow 2.15.1's
``tf.compat.v1.train`` optimizers (TF1's kernels, run eagerly on float64 variables) with
``golden/make_goldens.py``; each case is 5 steps of one optimizer and hyperparameter set,
dense or sparse (``tf.IndexedSlices`` with a duplicate index in every step; row 5 is
never touched), with the variable after every step and the final slots. LazyAdam has no
TF 2 counterpart: it is checked against a numpy replay of its rule written here.
"""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn

IndexedRows = cn.core.IndexedRows
Variable = cn.core.Variable

GOLDEN = json.loads((Path(__file__).parent / "golden" / "optimizers.json").read_text())["cases"]
CASE_IDS = [f"{c['optimizer']}-{c['case']}-{c['mode']}" for c in GOLDEN]
# TF holds hyperparameters such as 0.9 or 1e-8 as float32; the cases use dyadic values
# where they can, and this tolerance covers the default-valued ones.
RTOL, ATOL = 1e-6, 1e-9

# One valid constructor call per optimizer (AdagradDA also needs a global_step).
DEFAULTS = {
    "GradientDescent": {"learning_rate": 0.1},
    "Momentum": {"learning_rate": 0.1, "momentum": 0.9},
    "Adagrad": {"learning_rate": 0.1},
    "AdagradDA": {"learning_rate": 0.1},
    "Adadelta": {"learning_rate": 1.0},
    "Adam": {"learning_rate": 0.1},
    "LazyAdam": {"learning_rate": 0.1},
    "Ftrl": {"learning_rate": 0.1, "l1_regularization_strength": 0.01},
    "RMSProp": {"learning_rate": 0.1, "momentum": 0.5, "centered": True},
    "ProximalGradientDescent": {"learning_rate": 0.1, "l1_regularization_strength": 0.01},
    "ProximalAdagrad": {"learning_rate": 0.1, "l2_regularization_strength": 0.01},
}
ALL_NAMES = list(DEFAULTS)
ROW_SPARSE_NAMES = [n for n in ALL_NAMES if n != "Adam"]  # only the touched rows change


def make_optimizer(name, kwargs=None, global_step=None):
    kwargs = dict(DEFAULTS[name] if kwargs is None else kwargs)
    if name == "AdagradDA":
        kwargs["global_step"] = global_step if global_step is not None else Variable(0)
    return getattr(cn.train, name + "Optimizer")(**kwargs)


def as_gradient(grad, shape, dtype):
    if isinstance(grad, dict):
        return IndexedRows(np.array(grad["indices"]), np.array(grad["values"], dtype), shape)
    return np.array(grad, dtype)


def run_case(case, dtype=np.float64, name=None):
    """Replay a golden case with colonnade; returns (optimizer, var, global_step, trajectory)."""
    w = Variable(np.array(case["init"], dtype), name="w")
    step = Variable(0, dtype=np.int64, name="global_step")
    opt = make_optimizer(name or case["optimizer"], case["kwargs"], step)
    trajectory = []
    for grad in case["grads"]:
        opt.apply_gradients([(as_gradient(grad, w.shape, dtype), w)], global_step=step)
        trajectory.append(w.numpy().copy())
    return opt, w, step, trajectory


# ----- golden trajectories -----
@pytest.mark.parametrize("case", GOLDEN, ids=CASE_IDS)
def test_matches_tensorflow_trajectory_and_slots(case):
    opt, w, step, trajectory = run_case(case)
    for k, (got, want) in enumerate(zip(trajectory, case["trajectory"])):
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"step {k + 1}")
    assert opt.get_slot_names() == sorted(case["slots"])
    for slot_name, want in case["slots"].items():
        np.testing.assert_allclose(
            opt.get_slot(w, slot_name).numpy(), want, rtol=RTOL, atol=ATOL, err_msg=slot_name
        )
    for key, want in case["non_slot"].items():
        assert float(opt.non_slot_variables()[key]) == pytest.approx(want, rel=1e-7)
    assert int(step.numpy()) == case["global_step"] == 5


@pytest.mark.parametrize("case", GOLDEN, ids=CASE_IDS)
def test_float32_stays_float32(case):
    opt, w, _, trajectory = run_case(case, dtype=np.float32)
    assert w.value.dtype == np.float32
    assert all(slot.value.dtype == np.float32 for _, _, slot in opt.slot_items())
    np.testing.assert_allclose(trajectory[-1], case["trajectory"][-1], rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize(
    "case", [c for c in GOLDEN if c["optimizer"] == "Adam" and c["mode"] == "dense"]
)
def test_lazy_adam_dense_is_adam(case):
    _, _, _, trajectory = run_case(case, name="LazyAdam")
    np.testing.assert_allclose(trajectory, case["trajectory"], rtol=RTOL, atol=ATOL)


def lazy_adam_replay(init, grads, lr, b1, b2, eps):
    """LazyAdam's rule in numpy: moments and parameters change on the deduplicated rows."""
    p, m, v = init.copy(), np.zeros_like(init), np.zeros_like(init)
    b1p, b2p = b1, b2
    for rows, values in grads:
        summed = {}
        for r, val in zip(rows, values):
            summed[r] = summed.get(r, 0.0) + val
        lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
        for r, g in summed.items():
            m[r] = b1 * m[r] + (1 - b1) * g
            v[r] = b2 * v[r] + (1 - b2) * g * g
            p[r] -= lr_t * m[r] / (np.sqrt(v[r]) + eps)
        b1p, b2p = b1p * b1, b2p * b2
    return p, m, v


@pytest.mark.parametrize(
    "kwargs",
    [
        {"learning_rate": 0.125, "beta1": 0.875, "beta2": 0.9375},
        {"learning_rate": 0.25, "beta1": 0.5, "beta2": 0.75, "epsilon": 0.125},
    ],
)
def test_lazy_adam_sparse_matches_numpy_replay(kwargs):
    rng = np.random.default_rng(5)
    init = rng.normal(size=(6, 3))
    grads = [([0, 3, 0], rng.normal(size=(3, 3))), ([1, 1, 4], rng.normal(size=(3, 3)))]
    grads += [([3, 0, 3], rng.normal(size=(3, 3))), ([2, 4, 2], rng.normal(size=(3, 3)))]
    grads += [([0, 0, 1], rng.normal(size=(3, 3)))]
    w = Variable(init, name="w")
    opt = cn.train.LazyAdamOptimizer(**kwargs)
    for rows, values in grads:
        opt.apply_gradients([(IndexedRows(np.array(rows), values, w.shape), w)])
    full = {"epsilon": 1e-8, **kwargs}
    p, m, v = lazy_adam_replay(
        init, grads, full["learning_rate"], full["beta1"], full["beta2"], full["epsilon"]
    )
    np.testing.assert_allclose(w.numpy(), p, rtol=1e-12)
    np.testing.assert_allclose(opt.get_slot(w, "m").numpy(), m, rtol=1e-12)
    np.testing.assert_allclose(opt.get_slot(w, "v").numpy(), v, rtol=1e-12)
    np.testing.assert_array_equal(w.numpy()[5], init[5])


# ----- sparse semantics -----
@pytest.mark.parametrize("name", ROW_SPARSE_NAMES)
def test_sparse_leaves_untouched_rows_and_their_slots(name):
    w = Variable(np.arange(12.0).reshape(4, 3) / 10, name="w")
    opt = make_optimizer(name)
    opt.create_slots([w])
    before = {k: opt.get_slot(w, k).numpy().copy() for k in opt.get_slot_names()}
    grad = IndexedRows(np.array([2, 0, 2]), np.ones((3, 3)), w.shape)
    old = w.numpy().copy()
    opt.apply_gradients([(grad, w)])
    new = w.numpy()
    np.testing.assert_array_equal(new[[1, 3]], old[[1, 3]])
    # The touched rows take the dense step of the summed gradient (the dense kernels are the
    # ones checked against TensorFlow above): row 2 saw 2, row 0 saw 1.
    dense_w = Variable(old.copy(), name="w")
    make_optimizer(name).apply_gradients([(grad.to_dense(), dense_w)])
    np.testing.assert_allclose(new[[0, 2]], dense_w.numpy()[[0, 2]], rtol=1e-12)
    assert not np.allclose(new[[0, 2]], old[[0, 2]])
    for k, slot_before in before.items():
        np.testing.assert_array_equal(opt.get_slot(w, k).numpy()[[1, 3]], slot_before[[1, 3]])


def test_adam_decays_every_row_but_lazy_adam_only_the_batch():
    batches = [([0, 1], np.ones((2, 2))), ([0], np.ones((1, 2)))]
    # Adam (TF1) steps every row with the scattered gradient: the replay sees all 3 rows.
    as_dense = [([0, 1, 2], IndexedRows(np.array(r), v, (3, 2)).to_dense()) for r, v in batches]
    want = {
        "Adam": lazy_adam_replay(np.zeros((3, 2)), as_dense, 0.1, 0.9, 0.999, 1e-8),
        "LazyAdam": lazy_adam_replay(np.zeros((3, 2)), batches, 0.1, 0.9, 0.999, 1e-8),
    }
    moved = {}
    for name in ("Adam", "LazyAdam"):
        w = Variable(np.zeros((3, 2)), name="w")
        opt = make_optimizer(name)
        opt.apply_gradients([(IndexedRows(np.array([0, 1]), np.ones((2, 2)), w.shape), w)])
        m_row1, w_row1 = opt.get_slot(w, "m").numpy()[1].copy(), w.numpy()[1].copy()
        opt.apply_gradients([(IndexedRows(np.array([0]), np.ones((1, 2)), w.shape), w)])
        moved[name] = (
            not np.array_equal(opt.get_slot(w, "m").numpy()[1], m_row1),
            not np.array_equal(w.numpy()[1], w_row1),
        )
        np.testing.assert_array_equal(w.numpy()[2], 0.0)  # never touched, m stays 0
        p, m, v = want[name]
        np.testing.assert_allclose(w.numpy(), p, rtol=1e-12)
        np.testing.assert_allclose(opt.get_slot(w, "m").numpy(), m, rtol=1e-12)
        np.testing.assert_allclose(opt.get_slot(w, "v").numpy(), v, rtol=1e-12)
    assert moved == {"Adam": (True, True), "LazyAdam": (False, False)}


@pytest.mark.parametrize("name", ROW_SPARSE_NAMES)
def test_sparse_path_never_densifies(name, monkeypatch):
    def refuse(self):
        raise AssertionError("a sparse update densified its gradient")

    grad = IndexedRows(np.array([3, 7, 3]), np.ones((3, 4)), (50, 4))
    dense = grad.to_dense()
    dense_w = Variable(np.ones((50, 4)), name="w")
    make_optimizer(name).apply_gradients([(dense, dense_w)])

    monkeypatch.setattr(IndexedRows, "to_dense", refuse)
    w = Variable(np.ones((50, 4)), name="w")
    make_optimizer(name).apply_gradients([(grad, w)])
    # Rows 3 and 7 took the (TF-checked) dense step of the summed gradient; the rest kept 1.
    np.testing.assert_allclose(w.numpy()[[3, 7]], dense_w.numpy()[[3, 7]], rtol=1e-12)
    assert not np.allclose(w.numpy()[[3, 7]], 1.0)
    np.testing.assert_array_equal(np.delete(w.numpy(), [3, 7], axis=0), 1.0)


@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(ALL_NAMES),
    rows=st.lists(st.integers(0, 3), min_size=4, max_size=9).filter(
        lambda r: set(r) == {0, 1, 2, 3}
    ),
    seed=st.integers(0, 2**16),
)
def test_sparse_covering_every_row_equals_dense(name, rows, seed):
    """With every row in the batch, the sparse path (duplicates summed) is the dense one."""
    rng = np.random.default_rng(seed)
    init, values = rng.normal(size=(4, 2)), rng.normal(size=(len(rows), 2))
    sparse = IndexedRows(np.array(rows), values, (4, 2))
    results = []
    for grad in (sparse, sparse.to_dense()):
        w = Variable(init.copy(), name="w")
        opt = make_optimizer(name)
        for _ in range(2):
            opt.apply_gradients([(grad, w)])
        results.append((w.numpy(), [s.numpy() for _, _, s in opt.slot_items()]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12, atol=1e-14)
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_sparse_update_writes_in_place():
    w = Variable(np.zeros((100, 4), np.float32), name="table")
    opt = cn.train.AdagradOptimizer(0.1)
    opt.create_slots([w])
    buffers = (w.value, opt.get_slot(w, "accumulator").value)
    opt.apply_gradients([(IndexedRows(np.array([5, 9]), np.ones((2, 4), np.float32), w.shape), w)])
    assert w.value is buffers[0] and opt.get_slot(w, "accumulator").value is buffers[1]
    # Adagrad's first step: n = 0.1 + 1**2, w = 0 - 0.1 * 1 / sqrt(n), on rows 5 and 9 only.
    want = np.zeros((100, 4), np.float32)
    want[[5, 9]] = -0.1 / np.sqrt(1.1)
    np.testing.assert_allclose(w.numpy(), want, rtol=1e-6)
    acc = np.full((100, 4), 0.1, np.float32)
    acc[[5, 9]] = 1.1
    np.testing.assert_allclose(opt.get_slot(w, "accumulator").numpy(), acc, rtol=1e-6)


# ----- steps, hyperparameters as callables -----
def test_global_step_and_iterations_grow_by_one_per_call():
    w, v = Variable([1.0, 2.0], name="w"), Variable([3.0], name="v")
    step = Variable(10, dtype=np.int64, name="global_step")
    opt = cn.train.GradientDescentOptimizer(0.1)
    for _ in range(3):
        opt.apply_gradients([([1.0, 1.0], w), ([1.0], v)], global_step=step)
    assert int(step.numpy()) == 13 and step.value.dtype == np.int64
    assert int(opt.iterations.numpy()) == 3
    # three steps of w - 0.1 * 1 on every variable
    np.testing.assert_allclose(w.numpy(), [0.7, 1.7], rtol=1e-6)  # float32 variables
    np.testing.assert_allclose(v.numpy(), [2.7], rtol=1e-6)
    assert opt.non_slot_variables()["iterations"] is opt.iterations


def test_callable_learning_rate_gets_global_step_or_own_count():
    seen = []

    def lr(step):
        seen.append(step)
        return 0.5 / (1 + step)

    w = Variable(np.array([1.0]), name="w")
    opt = cn.train.GradientDescentOptimizer(lr)
    opt.apply_gradients([(np.array([1.0]), w)])  # own count: 0, lr 0.5
    assert w.numpy()[0] == pytest.approx(0.5)
    opt.apply_gradients([(np.array([2.0]), w)])  # own count: 1, lr 0.25
    assert w.numpy()[0] == pytest.approx(0.0)
    step = Variable(7, dtype=np.int64)
    opt.apply_gradients([(np.array([1.0]), w)], global_step=step)  # global step: 7, lr 1/16
    assert seen == [0, 1, 7]
    assert w.numpy()[0] == pytest.approx(-0.0625)


def test_schedule_plugs_into_optimizer_as_lambda():
    w = Variable(np.array([0.0]), name="w")
    schedule = lambda step: cn.train.exponential_decay(1.0, step, 1, 0.5)  # noqa: E731
    opt = cn.train.MomentumOptimizer(schedule, momentum=lambda step: 0.5)
    expected, accum = 0.0, 0.0
    for k in range(4):
        opt.apply_gradients([(np.array([1.0]), w)])
        accum = 0.5 * accum + 1.0
        expected -= 0.5**k * accum
    assert w.numpy()[0] == pytest.approx(expected)


def test_callable_hyperparameter_is_validated_when_called():
    w = Variable([1.0], name="w")
    opt = cn.train.GradientDescentOptimizer(lambda step: -1.0)
    with pytest.raises(ValueError, match=r"learning_rate must be >= 0, got -1\.0"):
        opt.apply_gradients([([1.0], w)])
    assert w.numpy().tolist() == [1.0]  # nothing was applied


# ----- minimize / compute_gradients -----
def test_minimize_and_compute_gradients_dense_and_gathered():
    w = Variable(np.array([1.0, -2.0]), name="w")
    table = Variable(np.ones((5, 2)), name="table")
    ids = np.array([1, 3, 1])
    loss_fn = lambda: cn.core.sum(w * w) + cn.core.sum(cn.core.gather(table, ids))  # noqa: E731
    opt = cn.train.GradientDescentOptimizer(0.25)
    pairs = opt.compute_gradients(loss_fn, var_list=[w, table])
    assert [v for _, v in pairs] == [w, table]
    np.testing.assert_allclose(pairs[0][0], [2.0, -4.0])
    assert isinstance(pairs[1][0], IndexedRows)
    loss = opt.minimize(loss_fn, var_list=[w, table])
    assert float(loss) == pytest.approx(5.0 + 6.0)
    np.testing.assert_allclose(w.numpy(), [0.5, -1.0])
    np.testing.assert_allclose(table.numpy()[:, 0], [1.0, 0.5, 1.0, 0.75, 1.0])
    opt.minimize(loss_fn)  # var_list defaults to the variables already updated
    np.testing.assert_allclose(w.numpy(), [0.25, -0.5])


def test_minimize_advances_global_step():
    w = Variable(np.array([1.0]), name="w")
    step = Variable(0, dtype=np.int64)
    opt = cn.train.AdamOptimizer(0.1)
    loss = opt.minimize(lambda: cn.core.sum(w * w), var_list=[w], global_step=step)
    assert int(step.numpy()) == 1 and float(loss) == 1.0
    # Adam's first step on g = 2w = 2: m = 0.1 * 2, v = 0.001 * 4,
    # lr_t = 0.1 * sqrt(1 - 0.999) / (1 - 0.9), w = 1 - lr_t * m / (sqrt(v) + 1e-8)
    lr_t = 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9)
    assert w.numpy()[0] == pytest.approx(1 - lr_t * 0.2 / (np.sqrt(0.004) + 1e-8), rel=1e-12)
    np.testing.assert_allclose(opt.get_slot(w, "m").numpy(), [0.2], rtol=1e-12)
    # a second call computes the gradient at the new w and advances the step again
    w1 = w.numpy()[0]
    opt.minimize(lambda: cn.core.sum(w * w), var_list=[w], global_step=step)
    p, _, _ = lazy_adam_replay(
        np.array([[1.0]]),
        [([0], np.array([[2.0]])), ([0], np.array([[2 * w1]]))],
        0.1,
        0.9,
        0.999,
        1e-8,
    )
    assert int(step.numpy()) == 2 and w.numpy()[0] == pytest.approx(p[0, 0], rel=1e-12)


def test_none_gradient_is_skipped():
    w, unused = Variable([1.0], name="w"), Variable([5.0], name="unused")
    opt = cn.train.MomentumOptimizer(0.5, 0.9)
    opt.apply_gradients([([1.0], w), (None, unused)])
    assert w.numpy().tolist() == [0.5] and unused.numpy().tolist() == [5.0]
    assert opt.get_slot(unused, "momentum") is None
    # second step: a = 0.9 * 1 + 1 = 1.9, w = 0.5 - 0.5 * 1.9
    opt.apply_gradients([([1.0], w), (None, unused)])
    assert w.numpy()[0] == pytest.approx(-0.45) and unused.numpy().tolist() == [5.0]
    assert opt.get_slot(w, "momentum").numpy()[0] == pytest.approx(1.9)


# ----- errors -----
@pytest.mark.parametrize("name", ALL_NAMES)
def test_negative_learning_rate_is_rejected(name):
    kwargs = {**DEFAULTS[name], "learning_rate": -0.5}
    with pytest.raises(ValueError, match=r"learning_rate must be .*, got -0\.5"):
        make_optimizer(name, kwargs)


@pytest.mark.parametrize(
    "name, kwargs, message",
    [
        ("Adadelta", {"rho": 1.5}, r"rho must be in \[0, 1\], got 1\.5"),
        ("Adadelta", {"rho": -0.1}, r"rho must be in \[0, 1\], got -0\.1"),
        ("RMSProp", {"decay": 1.01}, r"decay must be in \[0, 1\], got 1\.01"),
        ("RMSProp", {"decay": -1}, r"decay must be in \[0, 1\], got -1"),
        ("Adam", {"beta1": 1.0}, r"beta1 must be in \[0, 1\), got 1\.0"),
        ("Adagrad", {"initial_accumulator_value": 0.0}, r"initial_accumulator_value must be > 0"),
        ("ProximalAdagrad", {"initial_accumulator_value": -1.0}, r"must be > 0, got -1\.0"),
        (
            "AdagradDA",
            {"initial_gradient_squared_accumulator_value": 0.0},
            r"initial_gradient_squared_accumulator_value must be > 0, got 0\.0",
        ),
        ("Ftrl", {"initial_accumulator_value": -0.1}, r"initial_accumulator_value must be >= 0"),
        ("Ftrl", {"learning_rate_power": 0.5}, r"learning_rate_power must be <= 0, got 0\.5"),
        ("Ftrl", {"l1_regularization_strength": -1.0}, r"l1_regularization_strength .*-1\.0"),
        ("Ftrl", {"l2_regularization_strength": -2.0}, r"l2_regularization_strength .*-2\.0"),
        (
            "Ftrl",
            {"l2_shrinkage_regularization_strength": -0.5},
            r"l2_shrinkage_regularization_strength must be >= 0, got -0\.5",
        ),
        ("ProximalGradientDescent", {"l1_regularization_strength": -1e-3}, r"l1_reg.*-0\.001"),
        ("ProximalAdagrad", {"l2_regularization_strength": -3.0}, r"l2_reg.* >= 0, got -3\.0"),
        ("AdagradDA", {"l1_regularization_strength": -1.0}, r"l1_regularization_strength"),
        ("Momentum", {"momentum": -0.9}, r"momentum must be >= 0, got -0\.9"),
    ],
)
def test_bad_hyperparameters_are_rejected(name, kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_optimizer(name, {**DEFAULTS[name], **kwargs})


def test_no_gradient_at_all_lists_the_variables():
    a, b = Variable([1.0], name="a"), Variable([2.0], name="b")
    with pytest.raises(ValueError, match=r"No gradients provided for any variable: \['a', 'b'\]"):
        cn.train.AdamOptimizer().apply_gradients([(None, a), (None, b)])


def test_gradient_shape_mismatch_names_variable_and_shapes():
    w = Variable(np.zeros((3, 2)), name="weights")
    opt = cn.train.AdagradOptimizer(0.1)
    with pytest.raises(ValueError, match=r"'weights' has shape \(2, 3\) .* shape \(3, 2\)"):
        opt.apply_gradients([(np.zeros((2, 3)), w)])
    sparse = IndexedRows(np.array([0]), np.zeros((1, 5)), (3, 5))
    with pytest.raises(ValueError, match=r"'weights' has shape \(3, 5\) .* shape \(3, 2\)"):
        opt.apply_gradients([(sparse, w)])
    # as TF's sparse updates, the rows' own shape counts, not dense_shape's first dimension
    opt.apply_gradients([(IndexedRows(np.array([0]), np.ones((1, 2)), (1, 2)), w)])
    assert w.numpy()[0].tolist() != [0.0, 0.0] and w.numpy()[1:].tolist() == [[0.0] * 2] * 2


def test_var_list_defaults_to_the_trainable_variables_the_loss_reads():
    w = Variable([1.0], name="w")
    frozen = Variable([2.0], name="frozen", trainable=False)
    opt = cn.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="var_list is required: the loss reads no trainable"):
        opt.minimize(lambda: cn.core.sum(frozen * frozen))
    step = Variable(0, name="global_step")
    opt.minimize(lambda: cn.core.sum(w * w * frozen), step)  # TF1's order: (loss, global_step)
    assert w.numpy().tolist() == pytest.approx([1.0 - 0.1 * 4.0]) and int(step.numpy()) == 1
    assert frozen.numpy().tolist() == [2.0]
    with pytest.raises(TypeError, match="got the Variable 'w'; pass var_list=\\[w\\]"):
        opt.minimize(lambda: cn.core.sum(w * w), var_list=w)
    with pytest.raises(TypeError, match="zero-argument callable .* or a recorded scalar Tensor"):
        opt.minimize(5.0, var_list=[w])


def test_global_step_must_be_a_variable():
    w = Variable([1.0], name="w")
    with pytest.raises(TypeError, match="global_step must be a Variable"):
        cn.train.GradientDescentOptimizer(0.1).apply_gradients([([1.0], w)], global_step=3)


# ----- slots and the checkpoint protocol -----
def test_create_slots_initial_values_and_names():
    w = Variable(np.zeros((2, 2), np.float32), name="w")
    expectations = {
        "Adagrad": {"accumulator": 0.1},
        "RMSProp": {"rms": 1.0, "momentum": 0.0, "mg": 0.0},
        "Ftrl": {"accum": 0.1, "linear": 0.0},
        "AdagradDA": {"gradient_accumulator": 0.0, "gradient_squared_accumulator": 0.1},
        "Adadelta": {"accum": 0.0, "accum_update": 0.0},
        "Adam": {"m": 0.0, "v": 0.0},
        "Momentum": {"momentum": 0.0},
        "ProximalAdagrad": {"accumulator": 0.1},
        "GradientDescent": {},
    }
    for name, slots in expectations.items():
        opt = make_optimizer(name)
        opt.create_slots([w])
        assert opt.get_slot_names() == sorted(slots)
        for slot_name, value in slots.items():
            slot = opt.get_slot(w, slot_name)
            np.testing.assert_allclose(slot.numpy(), np.full((2, 2), value, np.float32))
            assert slot.value.dtype == np.float32 and not slot.trainable
    adam = cn.train.AdamOptimizer()
    adam.create_slots([w])
    assert [s.name for s in adam.variables()] == [
        "w/Adam",
        "w/Adam_1",
        "beta1_power",
        "beta2_power",
    ]  # TF1's variables(): no step count (non_slot_variables() has it, for checkpoints)
    assert list(adam.non_slot_variables()) == ["beta1_power", "beta2_power", "iterations"]
    assert [(v is w, n) for v, n, _ in adam.slot_items()] == [(True, "m"), (True, "v")]
    assert adam.get_slot(Variable([1.0]), "m") is None
    ftrl = cn.train.FtrlOptimizer(0.1, accum_name="acc", linear_name="lin")
    ftrl.create_slots([w])
    assert [s.name for _, _, s in ftrl.slot_items()] == ["w/acc", "w/lin"]


@pytest.mark.parametrize("name", ALL_NAMES)
def test_state_restored_into_fresh_optimizer_continues_identically(name):
    """What a checkpoint does: copy every slot and non-slot variable into a new optimizer
    made with create_slots, then both must take the same next steps."""
    rng = np.random.default_rng(0)
    grads = [IndexedRows(np.array([0, 2, 0]), rng.normal(size=(3, 2)), (3, 2)) for _ in range(4)]
    grads[1] = grads[1].to_dense()
    steps = [Variable(0, dtype=np.int64), Variable(0, dtype=np.int64)]
    w = Variable(rng.normal(size=(3, 2)), name="w")
    first = make_optimizer(name, global_step=steps[0])
    for g in grads[:2]:
        first.apply_gradients([(g, w)], global_step=steps[0])
    w2 = Variable(w.numpy(), name="w")
    steps[1].assign(steps[0].value)
    second = make_optimizer(name, global_step=steps[1])
    second.create_slots([w2])
    for (_, slot_name, slot), (_, slot_name2, slot2) in zip(
        first.slot_items(), second.slot_items()
    ):
        assert slot_name == slot_name2
        slot2.assign(slot.value)
    for key, var in first.non_slot_variables().items():
        second.non_slot_variables()[key].assign(var.value)
    for g in grads[2:]:
        first.apply_gradients([(g, w)], global_step=steps[0])
        second.apply_gradients([(g, w2)], global_step=steps[1])
    np.testing.assert_array_equal(w.numpy(), w2.numpy())


def test_adam_sparse_walks_the_table_in_blocks(monkeypatch):
    """Adam's every-row sparse step, done block by block, equals the dense step."""
    monkeypatch.setattr(cn.core.optimizer_base, "_ALL_ROWS_BLOCK_ELEMENTS", 6)  # 3 rows a block
    rng = np.random.default_rng(3)
    init = rng.normal(size=(10, 2))
    grads = [
        IndexedRows(np.array([9, 0, 4, 9]), rng.normal(size=(4, 2)), (10, 2)) for _ in range(3)
    ]
    results = []
    for densify in (False, True):
        w = Variable(init.copy(), name="w")
        opt = cn.train.AdamOptimizer(0.1)
        for g in grads:
            opt.apply_gradients([(g.to_dense() if densify else g, w)])
        results.append((w.numpy(), opt.get_slot(w, "m").numpy(), opt.get_slot(w, "v").numpy()))
    for sparse, dense in zip(*results):
        np.testing.assert_allclose(sparse, dense, rtol=1e-12, atol=1e-15)


def test_beta_powers_advance_once_per_call_whatever_the_variable_count():
    a, b = Variable(np.ones(2), name="a"), Variable(np.ones(3), name="b")
    opt = cn.train.LazyAdamOptimizer(0.1, beta1=0.5, beta2=0.75)
    for _ in range(3):
        opt.apply_gradients([(np.ones(2), a), (np.ones(3), b)])
    powers = opt.non_slot_variables()
    assert float(powers["beta1_power"]) == 0.5**4 and float(powers["beta2_power"]) == 0.75**4
    # both variables took three Adam steps with their own moments (beta powers advanced once)
    for var, n in ((a, 2), (b, 3)):
        ones = np.ones((1, n))
        p, _, _ = lazy_adam_replay(ones, [([0], ones)] * 3, 0.1, 0.5, 0.75, 1e-8)
        np.testing.assert_allclose(var.numpy(), p[0], rtol=1e-12)


@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_adam_float16_sparse_untouched_rows_match_tf1():
    # TF 2.15's tf.compat.v1.train.AdamOptimizer, two sparse steps on row 0 of a float16
    # [[1], [2], [3]] (tests/core/golden/make_tf_adam_half_sparse.py): epsilon 1e-8 is 0
    # in float16, so untouched rows get 0 / 0 = NaN in TF1 too; a representable epsilon
    # leaves them as they were
    for epsilon, want in [(1e-8, [0.998046875, np.nan, np.nan]), (1e-3, [0.998046875, 2, 3])]:
        v = Variable(np.array([[1.0], [2.0], [3.0]], np.float16), dtype=np.float16)
        opt = cn.train.AdamOptimizer(epsilon=epsilon)
        grad = IndexedRows(np.array([0]), np.array([[0.1]], np.float16), (3, 1))
        for _ in range(2):
            opt.apply_gradients([(grad, v)])
        np.testing.assert_array_equal(v.numpy().ravel(), np.array(want, np.float16))


def test_adagrad_update_is_bit_identical_to_its_formula_in_float32():
    """Reference: TF's Adagrad formula written out in plain numpy, in float32."""
    from colonnade.core.optimizer_updates import adagrad_update

    rng = np.random.default_rng(5)
    param, grad = rng.normal(size=(2, 64, 16)).astype(np.float32)
    accum = np.full((64, 16), 0.1, np.float32)
    new, slots = adagrad_update(param, grad, {"accumulator": accum}, 1, {"learning_rate": 0.05})
    expected_accum = accum + grad * grad
    np.testing.assert_array_equal(slots["accumulator"], expected_accum)
    np.testing.assert_array_equal(new, param - grad * 0.05 / np.sqrt(expected_accum))
    np.testing.assert_array_equal(accum, np.full((64, 16), 0.1, np.float32))  # not mutated
