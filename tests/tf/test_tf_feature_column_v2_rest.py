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
# ruff: noqa: E501
"""TF's tensorflow/python/feature_column/feature_column_v2_test.py: LazyColumnTest,
VocabularyTfrecordGzipFileCategoricalColumnTest, and the methods of TransformFeaturesTest,
NumericColumnTest, BucketizedColumnTest, HashedCategoricalColumnTest, CrossedColumnTest and
VocabularyFileCategoricalColumnTest that test_tf_feature_column_v2.py leaves.

Translation rules: test_tf_feature_column_v2.py's and feature_column_case.py's.

Not ported, having no meaning without graphs, sessions, TF's class layouts or its
``SparseTensor`` type: ``test_parse_spec*`` (``FixedLenFeature`` dicts), ``test_serialization``,
``*_old_numeric`` and ``test_is_v2_column*`` (``fc_old`` v1 columns),
``test_sparse_tensor_not_supported`` / ``test_sparse_tensor_input_not_supported`` (a
``SparseTensor`` of one value per row is, as Arrow data, a dense feature),
``CrossedColumnTest.test_old_linear_model_with_weights`` (a subclass of TF's internal
column interface), ``VocabularyFileCategoricalColumnTest.test_defaults_unicode`` (TF's
testdata/unicode_vocabulary is not vendored). VocabularyTfrecordGzipFileCategoricalColumnTest
reruns test_tf_feature_column_v2.py's VocabularyFileCategoricalColumnTest over TFRecord
vocabulary files.
"""

import copy

import numpy as np
import pyarrow as pa
import pytest
import test_tf_feature_column_v2 as v2_port
from feature_column_case import (
    WIRE_INPUT,
    assert_categorical,
    assert_parsed,
    assert_wire_linear_model,
    parsed,
    transform,
    var_len,
)
from tf_test_case import TFTestCase, assign, sparse_rows

import colonnade as cn

fc = cn.feature_columns


class _ColumnForTests(fc.FeatureColumn):
    """TF's BaseFeatureColumnForTests: a column of the tests' own, named ``name``, whose
    transform is ``fn(cache)``."""

    def __init__(self, name, fn):
        self._name, self._fn = name, fn

    @property
    def name(self):
        return self._name

    def transform(self, cache):
        return self._fn(cache)


class LazyColumnTest(TFTestCase):
    """feature_column_v2_test.py::LazyColumnTest, with colonnade's ``TransformCache`` for
    TF's ``FeatureTransformationCache`` (test_expand_dim_rank_1_sparse_tensor_empty_batch,
    of TF's ``SparseTensor`` type, is not ported)."""

    def test_transformations_called_once(self):
        """feature_column_v2_test.py::LazyColumnTest.test_transformations_called_once"""
        counts = []

        def count(cache):
            counts.append(1)  # Count transform calls.
            return cache.get("a")

        transformation_cache = fc.TransformCache({"a": [[2], [3.0]]})
        column = _ColumnForTests("TransformCounter", count)
        self.assertEqual(0, len(counts))
        transformation_cache.get(column)
        self.assertEqual(1, len(counts))
        transformation_cache.get(column)
        self.assertEqual(1, len(counts))

    def test_returns_transform_output(self):
        """feature_column_v2_test.py::LazyColumnTest.test_returns_transform_output"""
        transformation_cache = fc.TransformCache({"a": [[2], [3.0]]})
        column = _ColumnForTests("Transformer", lambda cache: "Output")
        self.assertEqual("Output", transformation_cache.get(column))
        self.assertEqual("Output", transformation_cache.get(column))

    def test_does_not_pollute_given_features_dict(self):
        """feature_column_v2_test.py::LazyColumnTest.test_does_not_pollute_given_features_dict"""
        features = {"a": [[2], [3.0]]}
        transformation_cache = fc.TransformCache(features)
        transformation_cache.get(_ColumnForTests("Transformer", lambda cache: "Output"))
        self.assertEqual(["a"], list(features.keys()))

    def test_error_if_feature_is_not_found(self):
        """feature_column_v2_test.py::LazyColumnTest.test_error_if_feature_is_not_found"""
        transformation_cache = fc.TransformCache({"a": [[2], [3.0]]})
        with self.assertRaisesRegex(ValueError, "bbb is not in features dictionary"):
            transformation_cache.get("bbb")
        with self.assertRaisesRegex(ValueError, "bbb is not in features dictionary"):
            transformation_cache.get("bbb")

    def test_not_supported_feature_column(self):
        """feature_column_v2_test.py::LazyColumnTest.test_not_supported_feature_column"""
        transformation_cache = fc.TransformCache({"a": [[2], [3.0]]})
        with self.assertRaisesRegex(ValueError, "NotAProperColumn is not supported"):
            transformation_cache.get(_ColumnForTests("NotAProperColumn", lambda cache: None))

    def test_key_should_be_string_or_feature_colum(self):
        """feature_column_v2_test.py::LazyColumnTest.test_key_should_be_string_or_feature_colum"""

        class NotAFeatureColumn:
            pass

        transformation_cache = fc.TransformCache({"a": [[2], [3.0]]})
        with self.assertRaisesRegex(TypeError, '"key" must be either a "str" or "FeatureColumn".'):
            transformation_cache.get(NotAFeatureColumn())


class TransformFeaturesTest(TFTestCase):
    def test_column_order(self):
        """feature_column_v2_test.py::TransformFeaturesTest.test_column_order"""
        call_order = {}

        def logger(name):
            def transform(cache):
                call_order[name] = len(call_order)
                return "Anything"

            return _ColumnForTests(name, transform)

        column1, column2 = logger("1"), logger("2")
        fc.transform_features({}, [column1, column2])
        self.assertEqual({"1": 0, "2": 1}, call_order)
        call_order.clear()
        fc.transform_features({}, [column2, column1])
        self.assertEqual({"1": 0, "2": 1}, call_order)


class NumericColumnTest(TFTestCase):
    def test_get_dense_tensor(self):
        """feature_column_v2_test.py::NumericColumnTest.test_get_dense_tensor"""

        def _increment_two(input_tensor):
            return input_tensor + 2.0

        price = fc.numeric_column("price", shape=[2], normalizer_fn=_increment_two)
        features = {"price": [[1.0, 2.0], [5.0, 6.0]]}
        self.assertAllEqual(transform(features, price), fc.DenseFeatures([price])(features))


class BucketizedColumnTest(TFTestCase):
    def test_get_dense_tensor_two_input_values(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_get_dense_tensor_two_input_values
        (TF's one-hot ``(batch, 2, 5)`` tensor, flattened per example as DenseFeatures
        concatenates it)"""
        price = fc.numeric_column("price", shape=[2])
        bucketized_price = fc.bucketized_column(price, boundaries=[0, 2, 4, 6])
        one_hot = [
            [[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0]],
            [[0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]],
        ]
        out = fc.DenseFeatures([bucketized_price])({"price": [[-1.0, 1.0], [5.0, 6.0]]})
        self.assertAllClose(np.reshape(one_hot, (2, 10)), out)

    def test_old_linear_model_one_input_value(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_old_linear_model_one_input_value"""
        price = fc.numeric_column("price", shape=[1])
        bucketized_price = fc.bucketized_column(price, boundaries=[0, 2, 4, 6])
        features = {"price": [[-1.0], [1.0], [5.0], [6.0]]}
        model = fc.LinearModel([bucketized_price])
        predictions = model(features)
        self.assertAllClose([0.0], model.bias)
        # One weight variable per bucket, all initialized to zero.
        self.assertAllClose([[0.0]] * 5, model.column_weights(bucketized_price))
        self.assertAllClose([[0.0], [0.0], [0.0], [0.0]], predictions)
        assign(model, "price_bucketized/weights", [[10.0], [20.0], [30.0], [40.0], [50.0]])
        # price -1. is in the 0th bucket, whose weight is 10.
        # price 1. is in the 1st bucket, whose weight is 20.
        # price 5. is in the 3rd bucket, whose weight is 40.
        # price 6. is in the 4th bucket, whose weight is 50.
        self.assertAllClose([[10.0], [20.0], [40.0], [50.0]], model(features))
        assign(model, "bias_weights", [1.0])
        self.assertAllClose([[11.0], [21.0], [41.0], [51.0]], model(features))


class HashedCategoricalColumnTest(TFTestCase):
    def test_get_sparse_tensors(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_get_sparse_tensors"""
        hashed_sparse = fc.categorical_column_with_hash_bucket("wire", 10)
        wire = sparse_rows([[0, 0], [1, 0], [1, 1]], ["omar", "stringer", "marlo"], [2, 2])
        cache = fc.TransformCache({"wire": wire})
        id_weight_pair = cache.get(hashed_sparse)
        self.assertIsNone(id_weight_pair.weights)
        self.assertAllEqual(transform({"wire": wire}, hashed_sparse).ids, id_weight_pair.ids)


def _crossed_features(*keys):
    """TF's features of CrossedColumnTest.test_get_sparse_tensors*: 'a' dense, the others
    sparse with values '<key>A', '<key>B', '<key>C'."""
    features = {"a": ((-1.0, 0.5), (0.5, 1.0))}
    for key in keys:
        values = [f"{key}A", f"{key}B", f"{key}C"]
        features[key] = sparse_rows(((0, 0), (1, 0), (1, 1)), values, (2, 2))
    return features


def _bucketized_a():
    a = fc.numeric_column("a", dtype="int32", shape=(2,))
    return fc.bucketized_column(a, boundaries=(0, 1))


class CrossedColumnTest(TFTestCase):
    def test_parse_example(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_parse_example"""
        price = fc.numeric_column("price", shape=[2])
        bucketized_price = fc.bucketized_column(price, boundaries=[0, 50])
        price_cross_wire = fc.crossed_column([bucketized_price, "wire"], 10)
        features = parsed(
            [{"price": [20.0, 110.0], "wire": [b"omar", b"stringer"]}], [price_cross_wire]
        )
        self.assertIn("price", features.column_names)
        self.assertIn("wire", features.column_names)
        self.assertAllEqual([[20.0, 110.0]], features["price"].to_pylist())
        assert_parsed(self, ([[0, 0], [0, 1]], [b"omar", b"stringer"], [1, 2]), features["wire"])

    def test_get_sparse_tensors(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_get_sparse_tensors"""
        crossed1 = fc.crossed_column(["d1", "d2"], 10)
        crossed2 = fc.crossed_column([_bucketized_a(), "c", crossed1], 15, hash_key=5)
        out = transform(_crossed_features("c", "d1", "d2"), crossed2)
        self.assertIsNone(out.weights)
        expected_indices = [(0, 0), (0, 1)] + [(1, j) for j in range(16)]
        # Check exact hashed output. If hashing changes this test will break.
        # All values are within [0, hash_bucket_size).
        expected_values = (6, 14, 0, 13, 8, 8, 10, 12, 2, 0, 1, 9, 8, 12, 2, 0, 10, 11)
        self.assert_sparse_equal((expected_indices, expected_values, (2, 16)), out)

    def test_get_sparse_tensors_simple(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_get_sparse_tensors_simple"""
        crossed = fc.crossed_column([_bucketized_a(), "c"], hash_bucket_size=5, hash_key=5)
        out = transform(_crossed_features("c"), crossed)
        self.assertIsNone(out.weights)
        # Check exact hashed output. If hashing changes this test will break.
        expected = (((0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (1, 3)), (1, 0, 1, 3, 4, 2), (2, 4))
        self.assert_sparse_equal(expected, out)

    def test_old_linear_model(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_old_linear_model"""
        crossed = fc.crossed_column([_bucketized_a(), "c"], hash_bucket_size=5, hash_key=5)
        features = _crossed_features("c")
        model = fc.LinearModel((crossed,))
        predictions = model(features)
        self.assertAllClose((0.0,), model.bias)
        self.assertAllClose(((0.0,),) * 5, model.column_weights(crossed))
        self.assertAllClose(((0.0,), (0.0,)), predictions)
        assign(model, "a_bucketized_X_c/weights", ((1.0,), (2.0,), (3.0,), (4.0,), (5.0,)))
        # Expected ids after cross = (1, 0, 1, 3, 4, 2)
        self.assertAllClose(((3.0,), (14.0,)), model(features))
        assign(model, "bias_weights", (0.1,))
        self.assertAllClose(((3.1,), (14.1,)), model(features))


WIRE_VOCABULARY = ("omar", "stringer", "marlo")  # TF's testdata/wire_vocabulary.txt
WARRIORS_VOCABULARY = (30, 35, 11, 23, 22)  # TF's testdata/warriors_vocabulary.txt


class VocabularyFileCategoricalColumnTest(TFTestCase):
    """TF's ``vocabulary_file='path_to_file'`` (a file never read: TF reads it when the
    lookup table initializes) is a real file here, of strings, or of integers for
    ``dtype=int32``: colonnade reads a vocabulary file when the column is built
    (docs/tf_differences.md, ``categorical_column_with_vocabulary_file`` with a missing
    file)."""

    @pytest.fixture(autouse=True)
    def _files(self, tmp_path):
        wire, warriors = tmp_path / "wire_vocabulary.txt", tmp_path / "warriors_vocabulary.txt"
        wire.write_text("".join(f"{v}\n" for v in WIRE_VOCABULARY))
        warriors.write_text("".join(f"{v}\n" for v in WARRIORS_VOCABULARY))
        self._wire_vocabulary_file_name = self.path_to_file = str(wire)
        self._wire_vocabulary_size = 3
        self.path_to_int_file = str(warriors)

    def test_defaults(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_defaults"""
        column = fc.categorical_column_with_vocabulary_file(
            key="aaa", vocabulary_file=self.path_to_file, vocabulary_size=3
        )
        assert_categorical(self, column, "aaa", 3, pa.string())

    def test_key_should_be_string(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_key_should_be_string"""
        with self.assertRaisesRegex(ValueError, "key must be a string."):
            fc.categorical_column_with_vocabulary_file(
                key=("aaa",), vocabulary_file="path_to_file", vocabulary_size=3
            )

    def _all_args(self):
        return fc.categorical_column_with_vocabulary_file(
            key="aaa",
            vocabulary_file=self.path_to_int_file,
            vocabulary_size=3,
            num_oov_buckets=4,
            dtype="int32",
        )

    def test_all_constructor_args(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_all_constructor_args"""
        column = self._all_args()
        self.assertEqual(7, column.num_buckets)
        self.assertEqual({"aaa": var_len(pa.int32())}, column.parse_spec())

    def test_deep_copy(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_deep_copy"""
        original = self._all_args()
        for column in (original, copy.deepcopy(original)):
            self.assertEqual("aaa", column.name)
            self.assertEqual(7, column.num_buckets)
            self.assertEqual({"aaa": var_len(pa.int32())}, column.parse_spec())

    def test_parse_example(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_parse_example"""
        a = fc.categorical_column_with_vocabulary_file(
            key="aaa", vocabulary_file=self.path_to_file, vocabulary_size=3
        )
        features = parsed([{"aaa": [b"omar", b"stringer"]}], [a])
        self.assertIn("aaa", features.column_names)
        assert_parsed(self, ([[0, 0], [0, 1]], [b"omar", b"stringer"], [1, 2]), features["aaa"])

    def test_transform_feature(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_transform_feature"""
        column = fc.categorical_column_with_vocabulary_file(
            key="aaa",
            vocabulary_file=self._wire_vocabulary_file_name,
            vocabulary_size=self._wire_vocabulary_size,
        )
        id_tensor = fc.transform_features({"aaa": WIRE_INPUT}, [column])["aaa"]
        self.assert_sparse_equal((((0, 0), (1, 0), (1, 1)), (2, -1, 0), (2, 2)), id_tensor)

    def test_old_linear_model(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_old_linear_model"""
        wire_column = fc.categorical_column_with_vocabulary_file(
            key="wire",
            vocabulary_file=self._wire_vocabulary_file_name,
            vocabulary_size=self._wire_vocabulary_size,
            num_oov_buckets=1,
        )
        assert_wire_linear_model(self, wire_column)


def _write_tfrecord_gzip(path, values):
    from colonnade.data.tfrecord import TFRecordWriter

    with TFRecordWriter(str(path), "GZIP") as writer:
        for value in values:
            writer.write(str(value).encode())
    return str(path)


@pytest.fixture(scope="class")
def vocabulary_files(request, tmp_path_factory):
    """TF's testdata/*_vocabulary.tfrecord.gz: one entry a GZIP TFRecord record (the
    fixture VocabularyFileCategoricalColumnTest uses, here with these files)."""
    root = tmp_path_factory.mktemp("tfrecord_vocab")
    request.cls._wire_vocabulary_file_name = _write_tfrecord_gzip(
        root / "wire_vocabulary.tfrecord.gz", WIRE_VOCABULARY
    )
    request.cls._wire_vocabulary_size = 3
    request.cls._warriors_vocabulary_file_name = _write_tfrecord_gzip(
        root / "warriors_vocabulary.tfrecord.gz", WARRIORS_VOCABULARY
    )
    request.cls._warriors_vocabulary_size = 5


class VocabularyTfrecordGzipFileCategoricalColumnTest(v2_port.VocabularyFileCategoricalColumnTest):
    """feature_column_v2_test.py::VocabularyTfrecordGzipFileCategoricalColumnTest: TF's
    VocabularyFileCategoricalColumnTest (as test_tf_feature_column_v2.py ports it) over
    vocabulary files in TFRecord form, whose too-large vocabulary_size TF reports as the
    dataset's."""

    def test_too_large_vocabulary_size(self):
        """feature_column_v2_test.py::VocabularyTfrecordGzipFileCategoricalColumnTest.test_too_large_vocabulary_size
        (TF's FailedPreconditionError is a ValueError here)"""
        with self.assertRaisesRegex(ValueError, "Input dataset was expected to contain 4 elements"):
            column = self._file_column(vocabulary_size=self._wire_vocabulary_size + 1)
            transform({"aaa": WIRE_INPUT}, column)
