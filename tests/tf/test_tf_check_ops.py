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
# ruff: noqa: E501
"""TF's tensorflow/python/kernel_tests/check_ops_test.py, ported (partly: the classes up
to AssertNegativeTest of the newest full version in the public code index, commit-era
2019/2020; tests/tf/MANIFEST.md lists it as "to port" for the rest), run on colonnade by
default and on TF 2.15 with ``COLONNADE_TF_BACKEND=tf`` (tests/tf/run_against_tf.sh).

Translation: every test runs eagerly (TF's ``run_in_graph_and_eager_modes`` eager half);
``ops.control_dependencies([assert]) ... self.evaluate(out)`` is the call of the assert;
``assertRaisesOpError(p)`` is ``assertRaisesRegex(InvalidArgumentError, p)``; AssertV2Asserts'
``def_function.function`` wrapper is dropped (no graphs). Not ported: the ``*_dynamic``
tests (placeholders, graph only) and test_single_sparse_tensor_raises (no SparseTensor).
"""

import numpy as np
from tf_backend import InvalidArgumentError, constant, debugging, float32, int32
from tf_test_case import TFTestCase

check_ops = debugging


class AssertV2Asserts(TFTestCase):
    def test_passes_when_it_should(self):
        c1 = constant(-1, name="minus_one", dtype=int32)
        c2 = constant(2, name="two", dtype=int32)
        c3 = constant([3.0, 3.0], name="three", dtype=float32)
        c4 = constant([3.0, 3.5], name="three_and_a_half", dtype=float32)
        scalar = c1
        non_scalar = c3
        integer = c1
        non_integer = c3
        positive = c2
        negative = c1
        cases = [
            (check_ops.assert_equal, (c1, c1), (c1, c2)),
            (check_ops.assert_less, (c1, c2), (c1, c1)),
            (check_ops.assert_near, (c3, c3), (c3, c4)),
            (check_ops.assert_greater, (c2, c1), (c1, c1)),
            (check_ops.assert_negative, (negative,), (positive,)),
            (check_ops.assert_positive, (positive,), (negative,)),
            (check_ops.assert_less_equal, (c1, c1), (c2, c1)),
            (check_ops.assert_none_equal, (c1, c2), (c3, c4)),
            (check_ops.assert_non_negative, (positive,), (negative,)),
            (check_ops.assert_non_positive, (negative,), (positive,)),
            (check_ops.assert_greater_equal, (c1, c1), (c1, c2)),
            (check_ops.assert_type, (c1, int32), (c1, float32), TypeError),
            (check_ops.assert_integer, (integer,), (non_integer,), TypeError),
            (check_ops.assert_scalar, (scalar,), (non_scalar,), ValueError),
            (check_ops.assert_rank, (c1, 0), (c3, 2), ValueError),
            (check_ops.assert_rank_in, (c1, [0, 1]), (c1, [1, 2]), ValueError),
            (check_ops.assert_rank_at_least, (non_scalar, 1), (scalar, 1), ValueError),
        ]
        for case in cases:
            fn, passing_args, failing_args = case[:3]
            error = InvalidArgumentError if len(case) < 4 else case[3]
            fn(*passing_args)
            with self.assertRaisesRegex(error, "fail"):
                fn(*failing_args, message="fail")


class AssertProperIterableTest(TFTestCase):
    def test_single_tensor_raises(self):
        tensor = constant(1)
        with self.assertRaisesRegex(TypeError, "proper"):
            check_ops.assert_proper_iterable(tensor)

    def test_single_ndarray_raises(self):
        array = np.array([1, 2, 3])
        with self.assertRaisesRegex(TypeError, "proper"):
            check_ops.assert_proper_iterable(array)

    def test_single_string_raises(self):
        mystr = "hello"
        with self.assertRaisesRegex(TypeError, "proper"):
            check_ops.assert_proper_iterable(mystr)

    def test_non_iterable_object_raises(self):
        non_iterable = 1234
        with self.assertRaisesRegex(TypeError, "to be iterable"):
            check_ops.assert_proper_iterable(non_iterable)

    def test_list_does_not_raise(self):
        list_of_stuff = [constant([11, 22]), constant([1, 2])]
        check_ops.assert_proper_iterable(list_of_stuff)

    def test_generator_does_not_raise(self):
        generator_of_stuff = (constant([11, 22]), constant([1, 2]))
        check_ops.assert_proper_iterable(generator_of_stuff)


INCOMPATIBLE_3_2 = r"Incompatible shapes: \[3\] vs. \[2\]|Dimensions must be equal, but are 3 and 2"
INCOMPATIBLE_2_3 = r"Incompatible shapes: \[2\] vs. \[3\]|Dimensions must be equal, but are 2 and 3"


class AssertEqualTest(TFTestCase):
    def test_doesnt_raise_when_equal(self):
        small = constant([1, 2], name="small")
        check_ops.assert_equal(small, small)

    def test_scalar_comparison(self):
        const_true = constant(True, name="true")
        const_false = constant(False, name="false")
        with self.assertRaisesRegex(InvalidArgumentError, "fail"):
            check_ops.assert_equal(const_true, const_false, message="fail")

    def test_returns_none_with_eager(self):
        small = constant([1, 2], name="small")
        x = check_ops.assert_equal(small, small)
        assert x is None

    def test_raises_when_greater(self):
        static_small = constant([1, 2], name="small")
        static_big = constant([3, 4], name="big")
        with self.assertRaisesRegex(InvalidArgumentError, "fail"):
            check_ops.assert_equal(static_big, static_small, message="fail")

    def test_error_message_eager(self):
        expected_error_msg_full = r"""big does not equal small
Condition x == y did not hold.
Indices of first 3 different values:
\[\[0 0\]
 \[1 1\]
 \[2 0\]\]
Corresponding x values:
\[2 3 6\]
Corresponding y values:
\[20 30 60\]
First 6 elements of x:
\[2 2 3 3 6 6\]
First 6 elements of y:
\[20  2  3 30 60  6\]
"""
        expected_error_msg_default = r"""big does not equal small
Condition x == y did not hold.
Indices of first 3 different values:
\[\[0 0\]
 \[1 1\]
 \[2 0\]\]
Corresponding x values:
\[2 3 6\]
Corresponding y values:
\[20 30 60\]
First 3 elements of x:
\[2 2 3\]
First 3 elements of y:
\[20  2  3\]
"""
        expected_error_msg_short = r"""big does not equal small
Condition x == y did not hold.
Indices of first 2 different values:
\[\[0 0\]
 \[1 1\]\]
Corresponding x values:
\[2 3\]
Corresponding y values:
\[20 30\]
First 2 elements of x:
\[2 2\]
First 2 elements of y:
\[20  2\]
"""
        big = constant([[2, 2], [3, 3], [6, 6]])
        small = constant([[20, 2], [3, 30], [60, 6]])
        for expected, kwargs in (
            (expected_error_msg_full, {"summarize": 10}),
            (expected_error_msg_default, {}),
            (expected_error_msg_short, {"summarize": 2}),
        ):
            # TF 2.15's eager message has no trailing newline: the pattern's last one dropped
            with self.assertRaisesRegex(InvalidArgumentError, expected.rstrip("\n")):
                check_ops.assert_equal(big, small, message="big does not equal small", **kwargs)

    def test_raises_when_less(self):
        static_small = constant([3, 1], name="small")
        static_big = constant([4, 2], name="big")
        with self.assertRaisesRegex(InvalidArgumentError, "fail"):
            check_ops.assert_equal(static_big, static_small, message="fail")

    def test_doesnt_raise_when_equal_and_broadcastable_shapes(self):
        small = constant([[1, 2], [1, 2]], name="small")
        small_2 = constant([1, 2], name="small_2")
        check_ops.assert_equal(small, small_2)

    def test_raises_when_equal_but_non_broadcastable_shapes(self):
        small = constant([1, 1, 1], name="small")
        small_2 = constant([1, 1], name="small_2")
        with self.assertRaisesRegex((InvalidArgumentError, ValueError), INCOMPATIBLE_3_2):
            check_ops.assert_equal(small, small_2)

    def test_raises_when_not_equal_and_broadcastable_shapes(self):
        cond = constant([True, False], name="small")
        with self.assertRaisesRegex(InvalidArgumentError, "fail"):
            check_ops.assert_equal(cond, False, message="fail")

    def test_doesnt_raise_when_both_empty(self):
        larry = constant([])
        curly = constant([])
        check_ops.assert_equal(larry, curly)


class AssertNoneEqualTest(TFTestCase):
    def test_doesnt_raise_when_not_equal(self):
        small = constant([1, 2], name="small")
        big = constant([10, 20], name="small")
        check_ops.assert_none_equal(big, small)

    def test_raises_when_equal(self):
        small = constant([3, 1], name="small")
        with self.assertRaisesRegex(InvalidArgumentError, "x != y did not hold"):
            check_ops.assert_none_equal(small, small)

    def test_doesnt_raise_when_not_equal_and_broadcastable_shapes(self):
        small = constant([1, 2], name="small")
        big = constant([3], name="big")
        check_ops.assert_none_equal(small, big)

    def test_raises_when_not_equal_but_non_broadcastable_shapes(self):
        small = constant([1, 1, 1], name="small")
        big = constant([10, 10], name="big")
        with self.assertRaisesRegex((ValueError, InvalidArgumentError), INCOMPATIBLE_3_2):
            check_ops.assert_none_equal(small, big)

    def test_doesnt_raise_when_both_empty(self):
        larry = constant([])
        curly = constant([])
        check_ops.assert_none_equal(larry, curly)

    def test_returns_none_with_eager(self):
        t1 = constant([1, 2])
        t2 = constant([3, 4])
        x = check_ops.assert_none_equal(t1, t2)
        assert x is None


class AssertAllCloseTest(TFTestCase):
    def test_doesnt_raise_when_close_enough_32_bit_due_to_default_rtol(self):
        eps = np.finfo(np.float32).eps
        # Default rtol/atol is 10*eps
        x = constant(1.0, name="x")
        y = constant(1.0 + 2 * eps, name="y", dtype=np.float32)
        check_ops.assert_near(x, y, atol=0.0, message="failure message")

    def test_doesnt_raise_when_close_enough_32_bit_due_to_default_atol(self):
        eps = np.finfo(np.float32).eps
        x = constant(0.0, name="x")
        y = constant(0.0 + 2 * eps, name="y", dtype=np.float32)
        check_ops.assert_near(x, y, rtol=0.0, message="failure message")

    def test_doesnt_raise_when_close_enough_64_bit_due_to_default_rtol(self):
        eps = np.finfo(np.float64).eps
        x = constant(1.0, name="x", dtype=np.float64)
        y = constant(1.0 + 2 * eps, name="y", dtype=np.float64)
        check_ops.assert_near(x, y, atol=0.0, message="failure message")

    def test_doesnt_raise_when_close_enough_64_bit_due_to_default_atol(self):
        eps = np.finfo(np.float64).eps
        x = constant(0.0, name="x", dtype=np.float64)
        y = constant(0.0 + 2 * eps, name="y", dtype=np.float64)
        check_ops.assert_near(x, y, rtol=0.0, message="failure message")

    def test_doesnt_raise_when_close_enough_due_to_custom_rtol(self):
        x = constant(1.0, name="x")
        y = constant(1.1, name="y")
        check_ops.assert_near(x, y, atol=0.0, rtol=0.5, message="failure message")

    def test_doesnt_raise_when_close_enough_due_to_custom_atol(self):
        x = constant(0.0, name="x")
        y = constant(0.1, name="y", dtype=np.float32)
        check_ops.assert_near(x, y, atol=0.5, rtol=0.0, message="failure message")

    def test_doesnt_raise_when_both_empty(self):
        larry = constant([])
        curly = constant([])
        check_ops.assert_near(larry, curly)

    def test_raises_when_atol_violated(self):
        x = constant(10.0, name="x")
        y = constant(10.2, name="y")
        with self.assertRaisesRegex(InvalidArgumentError, "x and y not equal to tolerance"):
            check_ops.assert_near(x, y, atol=0.1, message="failure message")

    def test_raises_when_default_rtol_violated(self):
        x = constant(0.1, name="x")
        y = constant(0.0, name="y")
        with self.assertRaisesRegex(InvalidArgumentError, "x and y not equal to tolerance"):
            check_ops.assert_near(x, y, message="failure message")

    def test_returns_none_with_eager(self):
        t1 = constant([1.0, 2.0])
        t2 = constant([1.0, 2.0])
        x = check_ops.assert_near(t1, t2)
        assert x is None


def _comparison_tests(assert_fn, holds, fails, broadcast_ok, incompatible, pattern):
    """The six tests TF writes out for each of assert_less/_less_equal/_greater/
    _greater_equal, with TF's values: ``holds``/``fails`` are (x, y) pairs."""

    class Tests(TFTestCase):
        def test_raises(self):
            with self.assertRaisesRegex(InvalidArgumentError, pattern):
                assert_fn(constant(fails[0]), constant(fails[1]), message="failure message")

        def test_doesnt_raise(self):
            assert_fn(constant(holds[0]), constant(holds[1]))

        def test_doesnt_raise_broadcastable_shapes(self):
            assert_fn(constant(broadcast_ok[0]), constant(broadcast_ok[1]))

        def test_raises_non_broadcastable_shapes(self):
            x, y, regex = incompatible
            with self.assertRaisesRegex((InvalidArgumentError, ValueError), regex):
                assert_fn(constant(x), constant(y))

        def test_doesnt_raise_when_both_empty(self):
            assert_fn(constant([]), constant([]))

    return Tests


class AssertLessTest(
    _comparison_tests(
        check_ops.assert_less,
        holds=([3, 1], [4, 2]),
        fails=([1, 2], [1, 2]),
        broadcast_ok=([1], [3, 2]),
        incompatible=([1, 1, 1], [3, 2], INCOMPATIBLE_3_2),
        pattern="failure message.*\n*.* x < y did not hold",
    )
):
    def test_raises_when_greater(self):
        small = constant([1, 2], name="small")
        big = constant([3, 4], name="big")
        with self.assertRaisesRegex(InvalidArgumentError, "x < y did not hold"):
            check_ops.assert_less(big, small)

    def test_returns_none_with_eager(self):
        t1 = constant([1, 2])
        t2 = constant([3, 4])
        x = check_ops.assert_less(t1, t2)
        assert x is None


class AssertLessEqualTest(
    _comparison_tests(
        check_ops.assert_less_equal,
        holds=([1, 2], [3, 2]),
        fails=([3, 4], [1, 2]),
        broadcast_ok=([1], [3, 1]),
        incompatible=([3, 1], [1, 1, 1], INCOMPATIBLE_2_3),
        pattern="failure message",
    )
):
    def test_doesnt_raise_when_equal(self):
        small = constant([1, 2], name="small")
        check_ops.assert_less_equal(small, small)


class AssertGreaterTest(
    _comparison_tests(
        check_ops.assert_greater,
        holds=([4, 2], [3, 1]),
        fails=([1, 2], [1, 2]),
        broadcast_ok=([3, 2], [1]),
        incompatible=([3, 2], [1, 1, 1], INCOMPATIBLE_2_3),
        pattern="failure message",
    )
):
    def test_raises_when_less(self):
        small = constant([1, 2], name="small")
        big = constant([3, 4], name="big")
        with self.assertRaisesRegex(InvalidArgumentError, "x > y did not hold"):
            check_ops.assert_greater(small, big)


class AssertGreaterEqualTest(
    _comparison_tests(
        check_ops.assert_greater_equal,
        holds=([3, 2], [1, 2]),
        fails=([1, 2], [3, 4]),
        broadcast_ok=([3, 1], [1]),
        incompatible=([3, 1], [1, 1, 1], INCOMPATIBLE_2_3),
        pattern="failure message",
    )
):
    def test_doesnt_raise_when_equal(self):
        small = constant([1, 2], name="small")
        check_ops.assert_greater_equal(small, small)


class AssertNegativeTest(TFTestCase):
    def test_doesnt_raise_when_negative(self):
        frank = constant([-1, -2], name="frank")
        check_ops.assert_negative(frank)

    def test_raises_when_positive(self):
        doug = constant([1, 2], name="doug")
        with self.assertRaisesRegex(InvalidArgumentError, "fail"):
            check_ops.assert_negative(doug, message="fail")

    def test_raises_when_zero(self):
        claire = constant([0], name="claire")
        with self.assertRaisesRegex(InvalidArgumentError, "x < 0 did not hold"):
            check_ops.assert_negative(claire)


class AssertRankArgumentTest(TFTestCase):
    """The rank argument as TF 2.15 checks it (issue 38): a float rank is a TypeError."""

    def test_float_rank_raises_type_error(self):
        with self.assertRaisesRegex(TypeError, "must be of type tf.int32; got tf.float32"):
            check_ops.assert_rank(constant([42, 43]), 1.9)

    def test_rank_messages(self):
        with self.assertRaisesRegex(
            ValueError, r"fail.  Tensor .*must have rank 1.  Received rank 0"
        ):
            check_ops.assert_rank(constant(1), 1, message="fail")
        with self.assertRaisesRegex(ValueError, "must have rank at least 1"):
            check_ops.assert_rank_at_least(constant(1), 1)
        with self.assertRaisesRegex(ValueError, r"must have rank in \(1, 2\)"):
            check_ops.assert_rank_in(constant(1), (1, 2))
        with self.assertRaisesRegex(ValueError, "Rank must be a scalar"):
            check_ops.assert_rank(constant(1), [1, 2])


class AssertShapesTest(TFTestCase):
    """``tf.debugging.assert_shapes``: TF 2.15's results and messages (checked on TF by
    run_against_tf.sh)."""

    def test_symbol_mismatch_names_both_tensors(self):
        with self.assertRaisesRegex(
            ValueError,
            r"Specified by tensor shape=\(2, 3\) dtype=float32 dimension 0.  Tensor "
            r"shape=\(3, 3\) dtype=float32 dimension 0 must have size 2.  Received size 3",
        ):
            check_ops.assert_shapes(
                [
                    (np.ones([2, 3], np.float32), ("N", "Q")),
                    (np.ones([3, 3], np.float32), ("N", "D")),
                ]
            )

    def test_explicit_size(self):
        with self.assertRaisesRegex(
            ValueError, "m.  Specified explicitly.  Tensor .* dimension 1 must have size 4"
        ):
            check_ops.assert_shapes([(np.ones([2, 3], np.float32), (2, 4))], message="m")

    def test_passing_specs(self):
        check_ops.assert_shapes([(np.ones([2, 3]), (..., 3))])
        check_ops.assert_shapes([(np.ones([1]), [])])
        check_ops.assert_shapes([(np.ones([2, 3]), (None, 3)), (np.ones([1]), ("B",))])

    def test_rank_and_repeated_symbol(self):
        with self.assertRaisesRegex(ValueError, r"must have rank in \(0, 1\)"):
            check_ops.assert_shapes([(np.ones([2, 3]), (2,))])
        with self.assertRaisesRegex(ValueError, "dimension 1 must have size 2.  Received size 3"):
            check_ops.assert_shapes([(np.ones([2, 3]), ("N", "N"))])

    def test_bad_arguments(self):
        # TF 2.15's errors, read from tf.debugging.assert_shapes on each input
        with self.assertRaisesRegex(
            ValueError,
            r"Tensor shape=\(2,\) dtype=float64.  Specified shape must be an iterable.  An "
            r"iterable has the attribute `__iter__` or `__getitem__`.  Received specified shape: 2",
        ):
            check_ops.assert_shapes([(np.ones(2), 2)])
        with self.assertRaisesRegex(ValueError, "not enough values to unpack"):
            check_ops.assert_shapes([(np.ones(2),)])
        with self.assertRaisesRegex(ValueError, "not enough values to unpack"):
            check_ops.assert_shapes("x")
