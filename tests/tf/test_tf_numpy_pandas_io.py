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
# the queue runners' batches are the input_fn's Dataset's, and TF's OutOfRangeError is
# the end of its iteration.
"""TF's tensorflow_estimator/python/estimator/inputs/numpy_io_test.py and
pandas_io_test.py, ported (a selection), for ``cn.estimators.inputs``.

TF's input_fn returns the next batch's ``(features, target)`` tensors; here it returns a
``cn.data.Dataset`` whose batches are those, in order.

Not ported: testNumpyInputFnWithXIsArray / ...XIsNDArray / ...XIsArrayYIsDict /
testArrayAndDictGiveSameOutput (one array ``x`` is refused: feature columns read a dict,
docs/tf_differences.md); the ``linear_model`` / ``input_layer`` tests (graph collections).
"""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from tf_test_case import TFTestCase

import colonnade as cn
from colonnade.data.columns import label_values

numpy_input_fn = cn.estimators.inputs.numpy_input_fn
pandas_input_fn = cn.estimators.inputs.pandas_input_fn
SAME_NAMES = (
    "pandas_input_fn refuses label columns named as feature columns (docs/tf_differences.md)"
)


def batches(input_fn):
    """Every batch the input_fn's Dataset gives: ``(features as numpy, labels)`` (or the
    features alone), as TF's ``session.run([features, target])`` until OutOfRange."""
    out = []
    for batch in input_fn():
        features, labels = batch if isinstance(batch, tuple) else (batch, None)
        features = {name: label_values(features.column(name)) for name in features.schema.names}
        if isinstance(labels, pa.RecordBatch):
            labels = {name: labels.column(name).to_numpy() for name in labels.schema.names}
        out.append((features, labels))
    return out


def assert_batches(testcase, expected, res):
    """Every batch is TF's ``session.run`` result: ``(a, b, target)`` in order, then the
    end of the input (TF's OutOfRangeError)."""
    testcase.assertEqual(len(expected), len(res))
    for (features, target), (want_a, want_b, want_y) in zip(res, expected):
        testcase.assertAllEqual(features["a"], want_a)
        testcase.assertAllEqual(features["b"], want_b)
        testcase.assertAllEqual(target, want_y)


class NumpyIoTest(TFTestCase):
    def testNumpyInputFn(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFn"""
        a = np.arange(4) * 1.0
        b = np.arange(32, 36)
        x = {"a": a, "b": b}
        y = np.arange(-32, -28)
        input_fn = numpy_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1)
        res = batches(input_fn)
        self.assertAllEqual(res[0][0]["a"], [0, 1])
        self.assertAllEqual(res[0][0]["b"], [32, 33])
        self.assertAllEqual(res[0][1], [-32, -31])
        self.assertEqual(2, len(res))

    def testNumpyInputFnWithZeroEpochs(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithZeroEpochs"""
        x = {"a": np.arange(4) * 1.0, "b": np.arange(32, 36)}
        y = np.arange(-32, -28)
        input_fn = numpy_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=0)
        self.assertEqual([], batches(input_fn))

    def testNumpyInputFnWithBatchSizeNotDividedByDataSizeAndMultipleEpochs(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithBatchSizeNotDividedByDataSizeAndMultipleEpochs"""
        batch_size = 2
        a = np.arange(3) * 1.0
        b = np.arange(32, 35)
        x = {"a": a, "b": b}
        y = np.arange(-32, -29)
        input_fn = numpy_input_fn(x, y, batch_size=batch_size, shuffle=False, num_epochs=3)
        res = batches(input_fn)
        expected = [
            ([0, 1], [32, 33], [-32, -31]),
            ([2, 0], [34, 32], [-30, -32]),
            ([1, 2], [33, 34], [-31, -30]),
            ([0, 1], [32, 33], [-32, -31]),
            ([2], [34], [-30]),
        ]
        assert_batches(self, expected, res)

    def testNumpyInputFnWithBatchSizeLargerThanDataSize(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithBatchSizeLargerThanDataSize"""
        batch_size = 10
        x = {"a": np.arange(4) * 1.0, "b": np.arange(32, 36)}
        y = np.arange(-32, -28)
        input_fn = numpy_input_fn(x, y, batch_size=batch_size, shuffle=False, num_epochs=1)
        res = batches(input_fn)
        self.assertAllEqual(res[0][0]["a"], [0, 1, 2, 3])
        self.assertAllEqual(res[0][0]["b"], [32, 33, 34, 35])
        self.assertAllEqual(res[0][1], [-32, -31, -30, -29])
        self.assertEqual(1, len(res))

    def testNumpyInputFnWithDifferentDimensionsOfFeatures(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithDifferentDimensionsOfFeatures"""
        x = {"a": np.array([[1, 2], [3, 4]]), "b": np.array([5, 6])}
        y = np.arange(-32, -30)
        res = batches(numpy_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1))
        self.assertAllEqual(res[0][0]["a"], [[1, 2], [3, 4]])
        self.assertAllEqual(res[0][0]["b"], [5, 6])
        self.assertAllEqual(res[0][1], [-32, -31])

    def testNumpyInputFnWithTwoDimensionalY(self):
        """Not TF's test, TF's behaviour: a ``(n, 2)`` ``y`` gives ``(batch, 2)`` labels,
        as TF's target tensor (they were an object array of rows)."""
        x = {"a": np.arange(3) * 1.0}
        y = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
        res = batches(numpy_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1))
        self.assertEqual(np.float32, res[0][1].dtype)
        self.assertAllEqual(res[0][1], [[1.0, 2.0], [3.0, 4.0]])
        self.assertAllEqual(res[1][1], [[5.0, 6.0]])

    def testNumpyInputFnWithYIsNone(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithYIsNone"""
        x = {"a": np.arange(4) * 1.0, "b": np.arange(32, 36)}
        res = batches(numpy_input_fn(x, None, batch_size=2, shuffle=False, num_epochs=1))
        feature, target = res[0]
        self.assertEqual(len(feature), 2)
        self.assertIsNone(target)
        self.assertAllEqual(feature["a"], [0, 1])
        self.assertAllEqual(feature["b"], [32, 33])
        self.assertEqual(2, len(res))

    def testNumpyInputFnWithYAsDict(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithYAsDict"""
        x = {"a": np.arange(4) * 1.0, "b": np.arange(32, 36)}
        y = {"y1": np.arange(-32, -28), "y2": np.arange(32, 28, -1)}
        res = batches(numpy_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1))
        features, targets = res[0]
        self.assertEqual(len(features), 2)
        self.assertAllEqual(features["a"], [0, 1])
        self.assertAllEqual(features["b"], [32, 33])
        self.assertEqual(len(targets), 2)
        self.assertAllEqual(targets["y1"], [-32, -31])
        self.assertAllEqual(targets["y2"], [32, 31])
        self.assertEqual(2, len(res))

    def testNumpyInputFnShufflesEachEpoch(self):
        """Not TF's: a shuffled pass holds every row once, in a new order each pass."""
        x = {"a": np.arange(64)}
        res = batches(numpy_input_fn(x, np.arange(64), batch_size=64, shuffle=True, num_epochs=2))
        first, second = (features["a"] for features, _ in res)
        self.assertEqual(list(range(64)), sorted(first))
        self.assertEqual(list(range(64)), sorted(second))
        self.assertNotEqual(list(first), list(second))
        self.assertAllEqual(res[0][0]["a"], res[0][1])  # each label stays with its row

    def testNumpyInputFnWithXAsNonDict(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithXAsNonDict"""
        x = list(range(32, 36))
        y = np.arange(4)
        with self.assertRaisesRegex(TypeError, "x must be a dict or array"):
            failing_input_fn = numpy_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1)
            failing_input_fn()

    def testNumpyInputFnWithXIsEmptyDict(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithXIsEmptyDict"""
        with self.assertRaisesRegex(ValueError, "x cannot be an empty"):
            numpy_input_fn({}, np.arange(4), shuffle=False)()

    def testNumpyInputFnWithXIsEmptyArray(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithXIsEmptyArray"""
        with self.assertRaisesRegex(ValueError, "x cannot be an empty"):
            numpy_input_fn(np.array([[], []]), np.arange(4), shuffle=False)()

    def testNumpyInputFnWithXIsArrayIsRefused(self):
        """Not TF's (TF feeds one array as a features tensor): the error says what to pass."""
        with self.assertRaisesRegex(TypeError, r"pass a dict such as \{'x': x\}"):
            numpy_input_fn(np.arange(4) * 1.0, np.arange(4), shuffle=False)()

    def testNumpyInputFnWithNonBoolShuffle(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithNonBoolShuffle"""
        x = np.arange(32, 36)
        y = np.arange(4)
        with self.assertRaisesRegex(
            ValueError, "shuffle must be provided and explicitly set as boolean"
        ):
            # Default shuffle is None.
            numpy_input_fn(x, y)

    def testNumpyInputFnWithTargetKeyAlreadyInX(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithTargetKeyAlreadyInX"""
        array = np.arange(32, 36)
        x = {"__target_key__": array}
        y = np.arange(4)
        input_fn = numpy_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1)
        input_fn()
        self.assertAllEqual(x["__target_key__"], array)
        # The input x should not be mutated.
        self.assertItemsEqual(x.keys(), ["__target_key__"])

    def testNumpyInputFnWithMismatchLengthOfInputs(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithMismatchLengthOfInputs"""
        a = np.arange(4) * 1.0
        b = np.arange(32, 36)
        x = {"a": a, "b": b}
        x_mismatch_length = {"a": np.arange(1), "b": b}
        y_longer_length = np.arange(10)
        with self.assertRaisesRegex(ValueError, "Length of tensors in x and y is mismatched."):
            numpy_input_fn(x, y_longer_length, batch_size=2, shuffle=False, num_epochs=1)()
        with self.assertRaisesRegex(ValueError, "Length of tensors in x and y is mismatched."):
            numpy_input_fn(x=x_mismatch_length, y=None, batch_size=2, shuffle=False, num_epochs=1)()

    def testNumpyInputFnWithYIsEmptyDict(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithYIsEmptyDict"""
        x = {"a": np.arange(4) * 1.0, "b": np.arange(32, 36)}
        with self.assertRaisesRegex(ValueError, "y cannot be empty"):
            numpy_input_fn(x, {}, shuffle=False)()

    def testNumpyInputFnWithDuplicateKeysInXAndY(self):
        """numpy_io_test.py::NumpyIoTest.testNumpyInputFnWithDuplicateKeysInXAndY"""
        a = np.arange(4) * 1.0
        b = np.arange(32, 36)
        x = {"a": a, "b": b}
        y = {"y1": np.arange(-32, -28), "a": a, "y2": np.arange(32, 28, -1), "b": b}
        with self.assertRaisesRegex(ValueError, "2 duplicate keys are found in both x and y"):
            numpy_input_fn(x, y, shuffle=False)()


class PandasIoTest(TFTestCase):
    def makeTestDataFrame(self, rows=4):
        """TF's frame (``rows`` 4; the test of uneven batches builds it with 5)."""
        index = np.arange(100, 100 + rows)
        a = np.arange(rows)
        b = np.arange(32, 32 + rows)
        x = pd.DataFrame({"a": a, "b": b}, index=index)
        y = pd.Series(np.arange(-32, -32 + rows), index=index)
        return x, y

    def makeTestDataFrameWithYAsDataFrame(self):
        index = np.arange(100, 104)
        a = np.arange(4)
        b = np.arange(32, 36)
        a_label = np.arange(10, 14)
        b_label = np.arange(50, 54)
        x = pd.DataFrame({"a": a, "b": b}, index=index)
        y = pd.DataFrame({"a_target": a_label, "b_target": b_label}, index=index)
        return x, y

    def testPandasInputFn_IndexMismatch(self):
        """pandas_io_test.py::PandasIoTest.testPandasInputFn_IndexMismatch"""
        x, _ = self.makeTestDataFrame()
        y_noindex = pd.Series(np.arange(-32, -28))
        with self.assertRaisesRegex(ValueError, "Index for x and y are mismatched"):
            pandas_input_fn(x, y_noindex, batch_size=2, shuffle=False, num_epochs=1)

    def testPandasInputFn_RaisesWhenTargetColumnIsAList(self):
        """pandas_io_test.py::PandasIoTest.testPandasInputFn_RaisesWhenTargetColumnIsAList"""
        x, y = self.makeTestDataFrame()
        with self.assertRaisesRegex(TypeError, "target_column must be a string type"):
            pandas_input_fn(
                x, y, batch_size=2, shuffle=False, num_epochs=1, target_column=["one", "two"]
            )

    def testPandasInputFn_NonBoolShuffle(self):
        """pandas_io_test.py::PandasIoTest.testPandasInputFn_NonBoolShuffle"""
        x, _ = self.makeTestDataFrame()
        y_noindex = pd.Series(np.arange(-32, -28))
        with self.assertRaisesRegex(
            ValueError, "shuffle must be provided and explicitly set as boolean"
        ):
            # Default shuffle is None
            pandas_input_fn(x, y_noindex)

    def _first_targets(self, x, y):
        """The targets of the first batch of TF's ``pandas_input_fn(x, y, batch_size=2,
        shuffle=False, num_epochs=1)``, whose features are checked as TF checks them."""
        input_fn = pandas_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1)
        features, targets = batches(input_fn)[0]
        self.assertAllEqual(features["a"], [0, 1])
        self.assertAllEqual(features["b"], [32, 33])
        return targets

    def testPandasInputFn_ProducesExpectedOutputs(self):
        """pandas_io_test.py::PandasIoTest.testPandasInputFn_ProducesExpectedOutputs"""
        target = self._first_targets(*self.makeTestDataFrame())
        self.assertAllEqual(target, [-32, -31])

    def testPandasInputFnWhenYIsDataFrame_ProducesExpectedOutput(self):
        """pandas_io_test.py::PandasIoTest.testPandasInputFnWhenYIsDataFrame_ProducesExpectedOutput"""
        targets = self._first_targets(*self.makeTestDataFrameWithYAsDataFrame())
        self.assertAllEqual(targets["a_target"], [10, 11])
        self.assertAllEqual(targets["b_target"], [50, 51])

    @pytest.mark.xfail(strict=True, reason=SAME_NAMES)
    def testPandasInputFnYIsDataFrame_HandlesOverlappingColumns(self):
        """pandas_io_test.py::PandasIoTest.testPandasInputFnYIsDataFrame_HandlesOverlappingColumns"""
        x, y = self.makeTestDataFrameWithYAsDataFrame()
        targets = self._first_targets(x, y.rename(columns={"a_target": "a", "b_target": "b"}))
        self.assertAllEqual(targets["a"], [10, 11])
        self.assertAllEqual(targets["b"], [50, 51])

    def testPandasInputFnYIsDataFrame_OverlappingColumnsAreNamed(self):
        """Not TF's: the refusal of SAME_NAMES names the columns."""
        x, y = self.makeTestDataFrameWithYAsDataFrame()
        y = y.rename(columns={"a_target": "a"})
        with self.assertRaisesRegex(ValueError, r"\['a'\] are columns of both x and y"):
            pandas_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1)

    def testPandasInputFn_ProducesOutputsWhenDataSizeNotDividedByBatchSize(self):
        """pandas_io_test.py::PandasIoTest.testPandasInputFn_ProducesOutputsWhenDataSizeNotDividedByBatchSize"""
        x, y = self.makeTestDataFrame(rows=5)
        input_fn = pandas_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1)
        res = batches(input_fn)
        expected = [
            ([0, 1], [32, 33], [-32, -31]),
            ([2, 3], [34, 35], [-30, -29]),
            ([4], [36], [-28]),
        ]
        assert_batches(self, expected, res)

    def testPandasInputFn_OnlyX(self):
        """pandas_io_test.py::PandasIoTest.testPandasInputFn_OnlyX"""
        x, _ = self.makeTestDataFrame()
        input_fn = pandas_input_fn(x, y=None, batch_size=2, shuffle=False, num_epochs=1)
        features, target = batches(input_fn)[0]
        self.assertIsNone(target)
        self.assertAllEqual(features["a"], [0, 1])
        self.assertAllEqual(features["b"], [32, 33])

    def testPandasInputFn_ExcludesIndex(self):
        """pandas_io_test.py::PandasIoTest.testPandasInputFn_ExcludesIndex"""
        x, y = self.makeTestDataFrame()
        input_fn = pandas_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1)
        features, _ = batches(input_fn)[0]
        self.assertFalse("index" in features)

    def testPandasInputFn_RespectsEpoch(self):
        """pandas_io_test.py::PandasIoTest.testPandasInputFn_RespectsEpoch_NoShuffle,
        ..._RespectsEpoch_WithShuffle, ..._RespectsEpoch_WithShuffleAutosize and
        ..._RespectsEpochUnevenBatches: how many batches come before the end."""
        x, y = self.makeTestDataFrame()
        cases = {
            "NoShuffle": (dict(batch_size=4, shuffle=False, num_epochs=1), 1),
            "WithShuffle": (dict(batch_size=4, shuffle=True, num_epochs=1), 1),
            "WithShuffleAutosize": (
                dict(batch_size=2, shuffle=True, queue_capacity=None, num_epochs=2),
                4,
            ),
            # Before the last batch, only one element of the epoch should remain.
            "UnevenBatches": (dict(batch_size=3, shuffle=False, num_epochs=1), 2),
        }
        for name, (kwargs, n) in cases.items():
            with self.subTest(name):
                self.assertEqual(n, len(batches(pandas_input_fn(x, y, **kwargs))))

    def testPandasInputFn_Idempotent(self):
        """pandas_io_test.py::PandasIoTest.testPandasInputFn_Idempotent"""
        x, y = self.makeTestDataFrame()
        for _ in range(2):
            batches(pandas_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1))
        for _ in range(2):
            batches(pandas_input_fn(x, y, batch_size=2, shuffle=True, num_epochs=1))
