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
# ruff: noqa: E501, NPY002, B017
"""TF's tensorflow/python/kernel_tests/io_ops/parsing_ops_test.py (ParseExampleTest),
ported: ``parsing_ops.parse_example`` is ``cn.io.parse_example``, whose table columns are
compared with TF's outputs: dense features as arrays, ``VarLenFeature`` and
``SparseFeature`` as TF's ``(indices, values, dense_shape)``. In eager mode TF checks only
that a bad input raises, as here."""

import numpy as np
from tf_test_case import (
    TFTestCase,
    bytes_feature,
    example,
    float_feature,
    int64_feature,
    sparse_of,
)

import colonnade as cn

io = cn.io
FixedLenFeature, VarLenFeature = io.FixedLenFeature, io.VarLenFeature
FixedLenSequenceFeature, SparseFeature = io.FixedLenSequenceFeature, io.SparseFeature


class ParseExampleTest(TFTestCase):
    def _test(self, kwargs, expected_values=None, expected_err=None):
        """TF's ParseExampleTest._test, eager branch."""
        if expected_err:
            with self.assertRaises(Exception):
                io.parse_example(**kwargs)
            return
        out = io.parse_example(**kwargs)
        self.assertEqual(set(out.column_names), set(expected_values))
        for k, spec in kwargs["features"].items():
            expected = expected_values[k]
            if isinstance(spec, (VarLenFeature, SparseFeature)):
                indices, values, dense_shape = sparse_of(out.column(k))
                self.assertAllEqual(expected[0], indices)
                self.assertAllEqual(expected[1], values)
                if dense_shape is not None:
                    self.assertAllEqual(expected[2], dense_shape)
            else:
                actual = np.array(out.column(k).to_pylist())
                self.assertAllEqual(expected, actual.reshape(np.shape(expected)))

    def testEmptySerializedWithAllDefaults(self):
        """parsing_ops_test.py::ParseExampleTest.testEmptySerializedWithAllDefaults"""
        a_default = [0, 42, 0]
        b_default = np.random.rand(3, 3).astype(bytes)
        c_default = np.random.rand(2).astype(np.float32)
        expected_output = {
            "st_a": (
                np.empty((0, 2), dtype=np.int64),
                np.empty((0,), dtype=np.int64),
                np.array([2, 0]),
            ),
            "a": np.array(2 * [[a_default]]),
            "b": np.array(2 * [b_default]),
            "c:has_a_tricky_name": np.array(2 * [c_default]),
        }
        self._test(
            {
                "serialized": [b"", b""],
                "features": {
                    "st_a": VarLenFeature("int64"),
                    "a": FixedLenFeature((1, 3), "int64", default_value=a_default),
                    "b": FixedLenFeature((3, 3), "string", default_value=b_default),
                    "c:has_a_tricky_name": FixedLenFeature(
                        (2,), "float32", default_value=c_default
                    ),
                },
            },
            expected_output,
        )

    def testEmptySerializedWithoutDefaultsShouldFail(self):
        """parsing_ops_test.py::ParseExampleTest.testEmptySerializedWithoutDefaultsShouldFail"""
        input_features = {
            "st_a": VarLenFeature("int64"),
            "a": FixedLenFeature((1, 3), "int64", default_value=[0, 42, 0]),
            "b": FixedLenFeature(
                (3, 3), "string", default_value=np.random.rand(3, 3).astype(bytes)
            ),
            "c": FixedLenFeature((2,), dtype="float32"),
        }
        original = example({"c": b""})
        self._test(
            {"example_names": ["in1"], "serialized": [original], "features": input_features},
            expected_err=(Exception, "Name: in1, Feature: c \\(data type: float\\) is required"),
        )
        self._test(
            {"example_names": ["in1", "in2"], "serialized": [b"", b""], "features": input_features},
            expected_err=(Exception, "Name: in1, Feature: c \\(data type: float\\) is required"),
        )

    def testDenseNotMatchingShapeShouldFail(self):
        """parsing_ops_test.py::ParseExampleTest.testDenseNotMatchingShapeShouldFail"""
        original = [
            example({"a": float_feature([1, 1, 3])}),
            example({"a": float_feature([-1, -1])}),
        ]
        self._test(
            {
                "example_names": ["passing", "failing"],
                "serialized": original,
                "features": {"a": FixedLenFeature((1, 3), "float32")},
            },
            expected_err=(Exception, "Name: failing, Key: a, Index: 1.  Number of float val"),
        )

    def testDenseDefaultNoShapeShouldFail(self):
        """parsing_ops_test.py::ParseExampleTest.testDenseDefaultNoShapeShouldFail"""
        with self.assertRaisesRegex(ValueError, "Missing shape for feature a"):
            io.parse_example(
                example_names=["failing"],
                serialized=[example({"a": float_feature([1, 1, 3])})],
                features={"a": FixedLenFeature(None, "float32")},
            )

    def testSerializedContainingSparse(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContainingSparse"""
        original = [
            example({"st_c": float_feature([3, 4])}),
            example({"st_c": float_feature([])}),
            example({"st_d": b""}),
            example({"st_c": float_feature([1, 2, -1]), "st_d": bytes_feature([b"hi"])}),
        ]
        expected_output = {
            "st_c": (
                np.array([[0, 0], [0, 1], [3, 0], [3, 1], [3, 2]], dtype=np.int64),
                np.array([3.0, 4.0, 1.0, 2.0, -1.0], dtype=np.float32),
                np.array([4, 3], dtype=np.int64),
            ),
            "st_d": (
                np.array([[3, 0]], dtype=np.int64),
                np.array(["hi"], dtype=bytes),
                np.array([4, 1]),
            ),
        }
        self._test(
            {
                "serialized": original,
                "features": {"st_c": VarLenFeature("float32"), "st_d": VarLenFeature("string")},
            },
            expected_output,
        )

    def testSerializedContainingSparseFeature(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContainingSparseFeature"""
        original = [
            example({"val": float_feature([3, 4]), "idx": int64_feature([5, 10])}),
            example({"val": float_feature([]), "idx": int64_feature([])}),
            example({"val": b""}),
            example({"val": float_feature([1, 2, -1]), "idx": int64_feature([0, 9, 3])}),
        ]
        expected_sp = (
            np.array([[0, 5], [0, 10], [3, 0], [3, 3], [3, 9]], dtype=np.int64),
            np.array([3.0, 4.0, 1.0, -1.0, 2.0], dtype=np.float32),
            np.array([4, 13], dtype=np.int64),
        )
        self._test(
            {
                "serialized": original,
                "features": {"sp": SparseFeature(["idx"], "val", "float32", [13])},
            },
            {"sp": expected_sp},
        )

    def testSerializedContainingSparseFeatureReuse(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContainingSparseFeatureReuse"""
        original = [
            example(
                {
                    "val1": float_feature([3, 4]),
                    "val2": float_feature([5, 6]),
                    "idx": int64_feature([5, 10]),
                }
            ),
            example({"val1": float_feature([]), "idx": int64_feature([])}),
        ]
        expected_sp1 = (
            np.array([[0, 5], [0, 10]]),
            np.array([3.0, 4.0], dtype=np.float32),
            np.array([2, 13]),
        )
        expected_sp2 = (
            np.array([[0, 5], [0, 10]]),
            np.array([5.0, 6.0], dtype=np.float32),
            np.array([2, 7]),
        )
        self._test(
            {
                "serialized": original,
                "features": {
                    "sp1": SparseFeature("idx", "val1", "float32", 13),
                    "sp2": SparseFeature("idx", "val2", "float32", size=7, already_sorted=True),
                },
            },
            {"sp1": expected_sp1, "sp2": expected_sp2},
        )

    def testSerializedContaining3DSparseFeature(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContaining3DSparseFeature"""
        original = [
            example(
                {
                    "val": float_feature([3, 4]),
                    "idx0": int64_feature([5, 10]),
                    "idx1": int64_feature([0, 2]),
                }
            ),
            example(
                {"val": float_feature([]), "idx0": int64_feature([]), "idx1": int64_feature([])}
            ),
            example({"val": b""}),
            example(
                {
                    "val": float_feature([1, 2, -1]),
                    "idx0": int64_feature([0, 9, 3]),
                    "idx1": int64_feature([1, 0, 2]),
                }
            ),
        ]
        expected_sp = (
            np.array([[0, 5, 0], [0, 10, 2], [3, 0, 1], [3, 3, 2], [3, 9, 0]], dtype=np.int64),
            np.array([3.0, 4.0, 1.0, -1.0, 2.0], dtype=np.float32),
            np.array([4, 13, 3], dtype=np.int64),
        )
        self._test(
            {
                "serialized": original,
                "features": {"sp": SparseFeature(["idx0", "idx1"], "val", "float32", [13, 3])},
            },
            {"sp": expected_sp},
        )

    def testSerializedContainingDense(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContainingDense"""
        aname, bname = "a", "b*has+a:tricky_name"
        original = [
            example({aname: float_feature([1, 1]), bname: bytes_feature([b"b0_str"])}),
            example({aname: float_feature([-1, -1]), bname: bytes_feature([b""])}),
        ]
        expected_output = {
            aname: np.array([[1, 1], [-1, -1]], dtype=np.float32).reshape(2, 1, 2, 1),
            bname: np.array(["b0_str", ""], dtype=bytes).reshape(2, 1, 1, 1, 1),
        }
        self._test(
            {
                "serialized": original,
                "features": {
                    aname: FixedLenFeature((1, 2, 1), dtype="float32"),
                    bname: FixedLenFeature((1, 1, 1, 1), dtype="string"),
                },
            },
            expected_output,
        )

    def testSerializedContainingDenseWithConcat(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContainingDenseWithConcat"""
        aname, bname = "a", "b*has+a:tricky_name"
        original = [
            (
                example({aname: float_feature([10, 10])}),
                example({aname: float_feature([1, 1]), bname: bytes_feature([b"b0_str"])}),
            ),
            (
                example({bname: bytes_feature([b"b100"])}),
                example({aname: float_feature([-1, -1]), bname: bytes_feature([b"b1"])}),
            ),
        ]
        expected_output = {
            aname: np.array([[1, 1], [-1, -1]], dtype=np.float32).reshape(2, 1, 2, 1),
            bname: np.array(["b0_str", "b1"], dtype=bytes).reshape(2, 1, 1, 1, 1),
        }
        self._test(
            {
                "serialized": [m + n for (m, n) in original],
                "features": {
                    aname: FixedLenFeature((1, 2, 1), dtype="float32"),
                    bname: FixedLenFeature((1, 1, 1, 1), dtype="string"),
                },
            },
            expected_output,
        )

    def testSerializedContainingDenseScalar(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContainingDenseScalar"""
        original = [example({"a": float_feature([1])}), example({})]
        self._test(
            {
                "serialized": original,
                "features": {"a": FixedLenFeature((1,), dtype="float32", default_value=-1)},
            },
            {"a": np.array([[1], [-1]], dtype=np.float32)},
        )

    def testSerializedContainingDenseWithDefaults(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContainingDenseWithDefaults"""
        original = [
            example({"a": float_feature([1, 1])}),
            example({"b": bytes_feature([b"b1"])}),
            example({"b": b""}),
        ]
        expected_output = {
            "a": np.array([[1, 1], [3, -3], [3, -3]], dtype=np.float32).reshape(3, 1, 2, 1),
            "b": np.array(["tmp_str", "b1", "tmp_str"], dtype=bytes).reshape(3, 1, 1, 1, 1),
        }
        self._test(
            {
                "serialized": original,
                "features": {
                    "a": FixedLenFeature((1, 2, 1), dtype="float32", default_value=[3.0, -3.0]),
                    "b": FixedLenFeature((1, 1, 1, 1), dtype="string", default_value="tmp_str"),
                },
            },
            expected_output,
        )

    def testSerializedContainingSparseAndSparseFeatureAndDenseWithNoDefault(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContainingSparseAndSparseFeatureAndDenseWithNoDefault"""
        original = [
            example(
                {
                    "c": float_feature([3, 4]),
                    "val": bytes_feature([b"a", b"b"]),
                    "idx": int64_feature([0, 3]),
                }
            ),
            example(
                {
                    "c": float_feature([1, 2]),
                    "val": bytes_feature([b"c"]),
                    "idx": int64_feature([7]),
                }
            ),
        ]
        a_default = [1, 2, 3]
        b_default = np.random.rand(3, 3).astype(bytes)
        expected_output = {
            "st_a": (
                np.empty((0, 2), dtype=np.int64),
                np.empty((0,), dtype=np.int64),
                np.array([2, 0]),
            ),
            "sp": (
                np.array([[0, 0], [0, 3], [1, 7]]),
                np.array(["a", "b", "c"], dtype="|S"),
                np.array([2, 13]),
            ),
            "a": np.array(2 * [[a_default]]),
            "b": np.array(2 * [b_default]),
            "c": np.array([[3, 4], [1, 2]], dtype=np.float32),
        }
        self._test(
            {
                "example_names": ["in1", "in2"],
                "serialized": original,
                "features": {
                    "st_a": VarLenFeature("int64"),
                    "sp": SparseFeature("idx", "val", "string", 13),
                    "a": FixedLenFeature((1, 3), "int64", default_value=a_default),
                    "b": FixedLenFeature((3, 3), "string", default_value=b_default),
                    "c": FixedLenFeature((2,), "float32"),
                },
            },
            expected_output,
        )

    def testSerializedContainingSparseAndSparseFeatureWithReuse(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContainingSparseAndSparseFeatureWithReuse"""
        original = [
            example({"val": bytes_feature([b"a", b"b"]), "idx": int64_feature([0, 3])}),
            example({"val": bytes_feature([b"c", b"d"]), "idx": int64_feature([7, 1])}),
        ]
        expected_output = {
            "idx": (
                np.array([[0, 0], [0, 1], [1, 0], [1, 1]]),
                np.array([0, 3, 7, 1]),
                np.array([2, 2]),
            ),
            "sp": (
                np.array([[0, 0], [0, 3], [1, 1], [1, 7]]),
                np.array(["a", "b", "d", "c"], dtype="|S"),
                np.array([2, 13]),
            ),
        }
        self._test(
            {
                "example_names": ["in1", "in2"],
                "serialized": original,
                "features": {
                    "idx": VarLenFeature("int64"),
                    "sp": SparseFeature(["idx"], "val", "string", [13]),
                },
            },
            expected_output,
        )

    def _testSerializedContainingVarLenDenseLargerBatch(self, batch_size):
        truth_int = list(range(batch_size))
        truth_str = [[f"foo{i}".encode(), f"bar{i}".encode()] for i in range(batch_size)]
        expected_str = [list(s) for s in truth_str]
        for i in range(1, batch_size):
            col = 1
            if np.random.rand() < 0.25:
                expected_str[i][col] = b"default"
                col -= 1
                truth_str[i].pop()
            if np.random.rand() < 0.25:
                expected_str[i][col] = b"default"
                truth_str[i].pop()
        expected_output = {
            "a": np.array(truth_int, dtype=np.int64).reshape(batch_size, 1),
            "b": np.array(expected_str, dtype="|S").reshape(batch_size, 2),
        }
        original = [
            example({"a": int64_feature([truth_int[i]]), "b": bytes_feature(truth_str[i])})
            for i in range(batch_size)
        ]
        self._test(
            {
                "serialized": original,
                "features": {
                    "a": FixedLenSequenceFeature(
                        shape=(), dtype="int64", allow_missing=True, default_value=-1
                    ),
                    "b": FixedLenSequenceFeature(
                        shape=[], dtype="string", allow_missing=True, default_value="default"
                    ),
                },
            },
            expected_output,
        )

    def testSerializedContainingVarLenDenseLargerBatch(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContainingVarLenDenseLargerBatch"""
        np.random.seed(3456)
        for batch_size in (1, 10, 20, 100, 256):
            self._testSerializedContainingVarLenDenseLargerBatch(batch_size)

    def testSerializedContainingVarLenDense(self):
        """parsing_ops_test.py::ParseExampleTest.testSerializedContainingVarLenDense"""
        example_names = ["in1", "in2", "in3", "in4"]
        original = [
            example({"c": int64_feature([2])}),
            example({"a": float_feature([1, 1]), "b": bytes_feature([b"b0_str", b"b1_str"])}),
            example({"a": float_feature([-1, -1, 2, 2]), "b": bytes_feature([b"b1"])}),
            example({"a": float_feature([]), "c": int64_feature([3])}),
        ]
        expected_output = {
            "a": np.array(
                [[0, 0, 0, 0], [1, 1, 0, 0], [-1, -1, 2, 2], [0, 0, 0, 0]], dtype=np.float32
            ).reshape(4, 2, 2, 1),
            "b": np.array(
                [["", ""], ["b0_str", "b1_str"], ["b1", ""], ["", ""]], dtype=bytes
            ).reshape(4, 2, 1, 1, 1),
            "c": np.array([2, 0, 0, 3], dtype=np.int64).reshape(4, 1),
            "d": np.empty(shape=(4, 0), dtype=bytes),
        }
        features = {
            "a": FixedLenSequenceFeature((2, 1), dtype="float32", allow_missing=True),
            "b": FixedLenSequenceFeature((1, 1, 1), dtype="string", allow_missing=True),
            "c": FixedLenSequenceFeature(shape=[], dtype="int64", allow_missing=True),
            "d": FixedLenSequenceFeature(shape=[], dtype="string", allow_missing=True),
        }
        kwargs = {"example_names": example_names, "serialized": original, "features": features}
        self._test(kwargs, expected_output)
        custom = dict(expected_output)
        custom["a"] = np.array(
            [[-2, -2, -2, -2], [1, 1, -2, -2], [-1, -1, 2, 2], [-2, -2, -2, -2]], dtype=np.float32
        ).reshape(4, 2, 2, 1)
        padded = dict(features)
        padded["a"] = FixedLenSequenceFeature(
            (2, 1), dtype="float32", allow_missing=True, default_value=-2.0
        )
        self._test({**kwargs, "features": padded}, custom)
        not_multiple = {
            "a": FixedLenSequenceFeature((2, 1), dtype="float32", allow_missing=True),
            "b": FixedLenSequenceFeature((2, 1, 1), dtype="string", allow_missing=True),
        }
        self._test(
            {**kwargs, "features": not_multiple},
            expected_err=(
                Exception,
                "Name: in3, Key: b, Index: 2.  Number of bytes values is not a multiple of stride length.",
            ),
        )


class ParseSingleSequenceExampleTest(TFTestCase):
    """tf.io.parse_single_sequence_example as TF 2.15 documents it (shared/seeds): context
    and feature-list dicts, ``(T,) + shape`` arrays, at least one spec dict required."""

    def test_context_and_steps(self):
        """parsing_ops.py::parse_single_sequence_example (documented behaviour)"""
        from colonnade.data.example_writer import encode_sequence_examples

        record = encode_sequence_examples(
            [{"user": [7], "tags": ["a", "b"]}],
            [{"pos": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "ids": [[1], [], [2, 3]]}],
        )[0]
        context, steps = io.parse_single_sequence_example(
            record,
            context_features={
                "user": FixedLenFeature([], "int64"),
                "tags": VarLenFeature("string"),
            },
            sequence_features={
                "pos": FixedLenSequenceFeature([2], "float32"),
                "ids": VarLenFeature("int64"),
            },
            example_name="r0",
        )
        self.assertEqual(7, context["user"].item())
        self.assertAllEqual(["a", "b"], context["tags"])
        self.assertAllEqual([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], steps["pos"])
        self.assertEqual([[1], [], [2, 3]], [s.tolist() for s in steps["ids"]])
        with self.assertRaisesRegex(
            ValueError, "At least one of context_features and sequence_features"
        ):
            io.parse_single_sequence_example(record)

    def test_example_names_name_the_record_in_errors(self):
        """parsing_ops.py::parse_example example_names (documented: debugging only)"""
        records = [example({"a": float_feature([1.0])}), example({})]
        with self.assertRaisesRegex(ValueError, r"record 1 \('second'\)"):
            io.parse_example(
                records, {"a": FixedLenFeature([], "float32")}, example_names=["first", "second"]
            )
        with self.assertRaisesRegex(
            ValueError, "example_names must be the same length as serialized"
        ):
            io.parse_example(records, {"a": FixedLenFeature([], "float32")}, example_names=["only"])
