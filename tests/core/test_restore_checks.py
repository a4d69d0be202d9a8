"""Issue 41 (bug 4): every restore checks each stored array's dtype and shape against the
variable it goes into, and refuses a mismatch naming the variable and both dtypes.

The rule (core/restore_checks.py): floating into floating, integer into integer when the
values fit, bool into bool, strings into nothing numeric. The cases below were taken
silently before (numpy's ``same_kind`` cast lets an int32 array into a float32 variable
and an int64 step wrap into an int32 counter).
"""

import numpy as np
import pytest

import colonnade as cn
from colonnade.core.checkpoint_format import write_checkpoint
from colonnade.core.restore_checks import dtype_problem, restore_problem, value_problem
from colonnade.core.variables import Variable


@pytest.mark.parametrize(
    "stored, expected, allowed",
    [
        (np.float32, np.float32, True),
        (np.float64, np.float32, True),  # a change of width within floating
        (np.float16, np.float64, True),
        (np.int32, np.int64, True),
        (np.int64, np.int32, True),  # the values are checked on read
        (np.uint8, np.int32, True),
        (np.bool_, np.bool_, True),
        (np.complex64, np.complex128, True),
        (np.int32, np.float32, False),  # TF's index relabelled: float bytes read as ints
        (np.float32, np.int32, False),
        (np.float64, np.int64, False),
        (np.bool_, np.float32, False),
        (np.float32, np.bool_, False),
        (np.int64, np.bool_, False),
        (object, np.float32, False),  # TF's DT_STRING
        ("<U3", np.float32, False),
        (np.complex64, np.float32, False),
        (object, object, True),
    ],
)
def test_the_dtype_rule(stored, expected, allowed):
    assert (dtype_problem("v", stored, expected) is None) is allowed


def test_a_refusal_names_the_variable_and_both_dtypes():
    message = dtype_problem("dnn/hiddenlayer_0/kernel", np.int32, np.float32)
    assert message == (
        "'dnn/hiddenlayer_0/kernel': the checkpoint has dtype int32, the model has float32 "
        "(an integer array is not restored into a floating variable)"
    )
    assert "dtype string, the model has float32" in dtype_problem("w", object, np.float32)
    assert restore_problem("w", (2, 3), np.float32, (3, 2), np.float32) == (
        "'w': the checkpoint has shape (2, 3), the model has (3, 2)"
    )


def test_integers_must_fit_the_variables_range():
    assert value_problem("step", np.int64(2**31 - 1), (), np.int32) is None
    message = value_problem("step", np.array([0, 2**31], np.int64), (2,), np.int32)
    assert message == (
        "'step': the checkpoint's values span [0, 2147483648], outside the range of the "
        "model's int32 [-2147483648, 2147483647]"
    )
    assert "span [-1, 3]" in value_problem("ids", np.array([-1, 3]), (2,), np.uint8)


def _saved(tmp_path, value):
    return write_checkpoint(str(tmp_path / "ckpt-1"), {"v": (np.asarray(value), {})})


@pytest.mark.parametrize(
    "stored, variable, match",
    [
        (np.arange(3, dtype=np.int32), np.zeros(3, np.float32), "dtype int32, the object has"),
        (np.ones(3, np.float32), np.zeros(3, np.int32), "dtype float32, the object has int32"),
        (np.array([1, 0, 1], bool), np.zeros(3, np.float32), "dtype bool, the object has float32"),
        (np.array(["a", "b", "c"]), np.zeros(3, np.float32), "dtype string, the object has"),
        (np.array([2**40, 0, 0]), np.zeros(3, np.int32), r"span \[0, 1099511627776\]"),
    ],
)
def test_checkpoint_restore_refuses_and_assigns_nothing(tmp_path, stored, variable, match):
    path = _saved(tmp_path, stored)
    v = Variable(variable)
    with pytest.raises(ValueError, match=rf"cannot restore checkpoint .*'v': .*{match}"):
        cn.core.Checkpoint(v=v).restore(path)
    np.testing.assert_array_equal(v.numpy(), variable)


def test_checkpoint_restore_still_takes_another_float_width(tmp_path):
    path = _saved(tmp_path, np.array([0.25, 0.5], np.float64))
    v = Variable(np.zeros(2, np.float32))
    cn.core.Checkpoint(v=v).restore(path).assert_consumed()
    assert v.numpy().tolist() == [0.25, 0.5] and v.dtype == np.float32


def test_the_v1_saver_refuses_an_integer_checkpoint_for_a_float_variable(tmp_path):
    path = write_checkpoint(str(tmp_path / "m-1"), {"w": (np.arange(2, dtype=np.int64), {})})
    w = Variable(np.zeros(2, np.float32), name="w")
    with pytest.raises(ValueError, match="'w': the checkpoint has dtype int64, the object has"):
        cn.core.Saver([w]).restore(None, path)


def test_warm_start_and_init_from_checkpoint_refuse_a_relabelled_dtype(tmp_path):
    path = write_checkpoint(str(tmp_path / "c-1"), {"w": (np.arange(4, dtype=np.int32), {})})
    w = Variable(np.zeros(4, np.float32), name="w")
    with pytest.raises(ValueError, match="'w': the checkpoint has dtype int32, variable 'w' has"):
        cn.core.warm_start(path, variables={"w": w})
    with pytest.raises(ValueError, match="'w': the checkpoint has dtype int32, variable 'w' has"):
        cn.core.init_from_checkpoint(path, {"w": w}, variables={"w": w})
    assert w.numpy().tolist() == [0, 0, 0, 0]
