"""Fused variables: several tables stored as rows of one, trained through it, and still
seen one by one by names, slots, assignment and checkpoints."""

import doctest

import numpy as np
import pytest

import colonnade as cn
from colonnade.core import IndexedRows, Variable, fuse, fused
from colonnade.core.fused import slot_like, trained_variable


def tables(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(n, 3)).astype(np.float32) for n in (4, 1, 6)]


def test_parts_are_views_and_assignment_keeps_them_shared():
    a, b, c = (Variable(t, name=n) for t, n in zip(tables(), "abc"))
    abc = fuse([a, b, c], "abc")
    np.testing.assert_array_equal(abc.numpy(), np.concatenate(tables()))
    assert [v.fused_into[1] for v in (a, b, c)] == [0, 4, 5]
    c.assign(np.ones((6, 3)))
    assert (abc.numpy()[5:] == 1).all()
    abc.assign(np.zeros((11, 3)))
    assert (a.numpy() == 0).all() and (c.numpy() == 0).all()
    a.assign_add(np.full((4, 3), 2.0))
    assert (abc.numpy()[:4] == 2).all() and (abc.numpy()[4:] == 0).all()


def test_fuse_refuses_other_row_shapes_and_refusing_twice():
    a, b = Variable(np.zeros((2, 3)), name="a"), Variable(np.zeros((2, 4)), name="b")
    with pytest.raises(ValueError, match="'b' of shape \\(2, 4\\).*row shape"):
        fuse([a, b], "ab")
    fuse([a], "a_only")
    with pytest.raises(ValueError, match="'a' is already fused"):
        fuse([a], "again")


@pytest.mark.parametrize(
    "make",
    [
        lambda: cn.train.FtrlOptimizer(0.3, l1_regularization_strength=0.01),
        lambda: cn.train.AdagradOptimizer(0.2),
        lambda: cn.train.LazyAdamOptimizer(0.1),
        lambda: cn.train.AdamOptimizer(0.1),
        lambda: cn.train.MomentumOptimizer(0.1, 0.9),
    ],
)
def test_a_step_on_the_fused_table_equals_steps_on_each_part(make):
    """Reference: the same optimizer stepping three separate tables with the gradient
    split by rows."""
    rng = np.random.default_rng(1)
    parts = [Variable(t, name=n) for t, n in zip(tables(), "abc")]
    fused = fuse(parts, "abc")
    alone = [Variable(t, name=n) for t, n in zip(tables(), "abc")]
    opt_fused, opt_alone = make(), make()
    offsets = [0, 4, 5]
    for _ in range(3):
        rows = [rng.integers(0, t.shape[0], 5) for t in alone]
        values = [rng.normal(size=(5, 3)).astype(np.float32) for _ in alone]
        opt_alone.apply_gradients(
            [(IndexedRows(r, v, t.shape), t) for r, v, t in zip(rows, values, alone)]
        )
        global_rows = np.concatenate([r + o for r, o in zip(rows, offsets)])
        opt_fused.apply_gradients(
            [(IndexedRows(global_rows, np.concatenate(values), (11, 3)), fused)]
        )
    for part, ref in zip(parts, alone):
        np.testing.assert_allclose(part.numpy(), ref.numpy(), rtol=1e-6, atol=1e-7)
        for slot in opt_alone.get_slot_names():
            got, want = opt_fused.get_slot(part, slot), opt_alone.get_slot(ref, slot)
            assert got.name == want.name
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)
    slot_vars = {v.name for v in opt_fused.variables()}
    assert not any(name.startswith("abc/") for name in slot_vars)  # saved per part


def test_checkpoints_hold_the_parts_and_restore_into_a_fresh_fused_model(tmp_path):
    def build():
        parts = [Variable(np.zeros_like(t), name=n) for t, n in zip(tables(), "abc")]
        return parts, fuse(parts, "abc"), cn.train.AdagradOptimizer(0.5)

    parts, fused, opt = build()
    for p, t in zip(parts, tables()):
        p.assign(t)
    opt.apply_gradients([(IndexedRows(np.array([0, 5, 10]), np.ones((3, 3)), (11, 3)), fused)])
    path = cn.train.Checkpoint(a=parts[0], b=parts[1], c=parts[2], opt=opt).save(
        str(tmp_path / "ckpt")
    )
    keys = {name for name, _ in cn.train.list_variables(path)}
    assert "a" in keys and "c" in keys and not any(k.startswith("abc") for k in keys)

    fresh, fresh_fused, fresh_opt = build()
    cn.train.Checkpoint(a=fresh[0], b=fresh[1], c=fresh[2], opt=fresh_opt).restore(path)
    np.testing.assert_array_equal(fresh_fused.numpy(), fused.numpy())
    np.testing.assert_array_equal(
        fresh_opt.get_slot(fresh_fused, "accumulator").numpy(),
        opt.get_slot(fused, "accumulator").numpy(),
    )
    # Restored values went into the fused table's memory: training goes on from them.
    fresh_opt.apply_gradients(
        [(IndexedRows(np.array([10]), np.ones((1, 3)), (11, 3)), fresh_fused)]
    )
    assert fresh[2].numpy()[5, 0] < fused.numpy()[10, 0]


def test_docstring_examples_run():
    result = doctest.testmod(fused)
    assert result.attempted > 0 and result.failed == 0


def test_an_update_of_a_part_goes_to_its_fused_table():
    a, b = Variable(np.zeros((2, 3)), name="a"), Variable(np.zeros((1, 3)), name="b")
    alone = Variable(np.zeros((1, 3)), name="alone")
    ab = fuse([a, b], "ab")
    assert [trained_variable(v) for v in (a, b, ab, alone)] == [ab, ab, ab, alone]


def test_slot_views_are_the_fused_slots_rows():
    a, b, c = (Variable(t, name=n) for t, n in zip(tables(), "abc"))
    abc = fuse([a, b, c], "abc")
    array = np.arange(33, dtype=np.float32).reshape(11, 3)
    slot = slot_like(abc, array, "/Momentum_1")
    assert slot.variable.value is array and slot.variable.name == "abc/Momentum_1"
    assert [(part, view.name) for part, view in slot.views] == [
        (a, "a/Momentum_1"),
        (b, "b/Momentum_1"),
        (c, "c/Momentum_1"),
    ]
    np.testing.assert_array_equal(slot.views[2][1].numpy(), array[5:])
    slot.views[1][1].assign(np.full((1, 3), -1.0))  # restoring a part's slot
    assert (array[4] == -1).all() and (array[3] != -1).all()
    assert not slot.views[0][1].trainable
    lone = slot_like(a, np.zeros((4, 3)), "/x")  # a part itself is no fused table
    assert lone.views == () and lone.variable.name == "a/x"
