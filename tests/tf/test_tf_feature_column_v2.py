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
"""TF's tensorflow/python/feature_column/feature_column_v2_test.py, ported.

Translation rules: TF's ``SparseTensor`` inputs become one list per row (``sparse_rows``),
ids are compared in TF's ``(indices, values, dense_shape)`` form (``as_sparse``), TF's
``dtypes.X`` are the dtype names, ``_transform_features_v2`` is ``transform_features``.
Tests of graph collections, ``fc_old`` (v1) columns, ``get_config`` class layouts and
``parse_example_spec`` as ``FixedLenFeature`` dicts (ours is a ``pyarrow.Schema``, see
docs/tf_differences.md) are not ported.
"""

import copy

import numpy as np
import pyarrow as pa
import pytest
from tf_test_case import TFTestCase, as_sparse, assign, example_bytes, sparse_rows

import colonnade as cn

fc = cn.feature_columns


def _transform(features, column):
    return fc.transform_features(features, [column])[column.name]


class NumericColumnTest(TFTestCase):
    def test_defaults(self):
        """feature_column_v2_test.py::NumericColumnTest.test_defaults"""
        a = fc.numeric_column("aaa")
        self.assertEqual("aaa", a.key)
        self.assertEqual("aaa", a.name)
        self.assertEqual((1,), a.shape)
        self.assertIsNone(a.default_value)
        self.assertEqual("float32", a.dtype)
        self.assertIsNone(a.normalizer_fn)

    def test_key_should_be_string(self):
        """feature_column_v2_test.py::NumericColumnTest.test_key_should_be_string"""
        with self.assertRaisesRegex(ValueError, "key must be a string."):
            fc.numeric_column(key=("aaa",))

    def test_shape_saved_as_tuple(self):
        """feature_column_v2_test.py::NumericColumnTest.test_shape_saved_as_tuple"""
        a = fc.numeric_column("aaa", shape=[1, 2], default_value=[[3, 2.0]])
        self.assertEqual((1, 2), a.shape)

    def test_default_value_saved_as_tuple(self):
        """feature_column_v2_test.py::NumericColumnTest.test_default_value_saved_as_tuple"""
        a = fc.numeric_column("aaa", default_value=4.0)
        self.assertEqual((4.0,), a.default_value)
        a = fc.numeric_column("aaa", shape=[1, 2], default_value=[[3, 2.0]])
        self.assertEqual(((3.0, 2.0),), a.default_value)

    def test_shape_and_default_value_compatibility(self):
        """feature_column_v2_test.py::NumericColumnTest.test_shape_and_default_value_compatibility"""
        a = fc.numeric_column("aaa", shape=[2], default_value=[1, 2.0])
        self.assertEqual((1, 2.0), a.default_value)
        with self.assertRaisesRegex(ValueError, "The shape of default_value"):
            fc.numeric_column("aaa", shape=[2], default_value=[1, 2, 3.0])
        with self.assertRaisesRegex(ValueError, "The shape of default_value"):
            fc.numeric_column("aaa", shape=[3, 1], default_value=[[2, 3], [1, 2], [2, 3.0]])
        with self.assertRaisesRegex(ValueError, "The shape of default_value"):
            fc.numeric_column("aaa", shape=[3, 3], default_value=[[2, 3], [1, 2], [2, 3.0]])

    def test_default_value_type_check(self):
        """feature_column_v2_test.py::NumericColumnTest.test_default_value_type_check"""
        fc.numeric_column("aaa", shape=[2], default_value=[1, 2.0], dtype="float32")
        fc.numeric_column("aaa", shape=[2], default_value=[1, 2], dtype="int32")
        with self.assertRaisesRegex(TypeError, "must be compatible with dtype"):
            fc.numeric_column("aaa", shape=[2], default_value=[1, 2.0], dtype="int32")
        with self.assertRaisesRegex(TypeError, "default_value must be compatible with dtype"):
            fc.numeric_column("aaa", default_value=["string"])

    def test_shape_must_be_positive_integer(self):
        """feature_column_v2_test.py::NumericColumnTest.test_shape_must_be_positive_integer"""
        with self.assertRaisesRegex(TypeError, "shape dimensions must be integer"):
            fc.numeric_column("aaa", shape=[1.0])
        with self.assertRaisesRegex(ValueError, "shape dimensions must be greater than 0"):
            fc.numeric_column("aaa", shape=[0])

    def test_dtype_is_convertible_to_float(self):
        """feature_column_v2_test.py::NumericColumnTest.test_dtype_is_convertible_to_float"""
        with self.assertRaisesRegex(ValueError, "dtype must be convertible to float"):
            fc.numeric_column("aaa", dtype="string")

    def test_scalar_default_value_fills_the_shape(self):
        """feature_column_v2_test.py::NumericColumnTest.test_scalar_default_value_fills_the_shape"""
        a = fc.numeric_column("aaa", shape=[2, 3], default_value=2.0)
        self.assertEqual(((2.0, 2.0, 2.0), (2.0, 2.0, 2.0)), a.default_value)

    def test_parse_example_no_default_value(self):
        """feature_column_v2_test.py::NumericColumnTest.test_parse_example_no_default_value"""
        price = fc.numeric_column("price", shape=[2])
        data = example_bytes({"price": [20.0, 110.0]})
        features = cn.io.parse_example([data], fc.make_parse_example_spec([price]))
        self.assertIn("price", features.column_names)
        self.assertAllEqual([[20.0, 110.0]], features["price"].to_pylist())

    def test_parse_example_with_default_value(self):
        """feature_column_v2_test.py::NumericColumnTest.test_parse_example_with_default_value"""
        price = fc.numeric_column("price", shape=[2], default_value=11.0)
        data = example_bytes({"price": [20.0, 110.0]})
        no_data = example_bytes({"something_else": [20.0, 110.0]})
        features = cn.io.parse_example([data, no_data], fc.make_parse_example_spec([price]))
        self.assertIn("price", features.column_names)
        self.assertAllEqual([[20.0, 110.0], [11.0, 11.0]], features["price"].to_pylist())

    def test_normalizer_fn_must_be_callable(self):
        """feature_column_v2_test.py::NumericColumnTest.test_normalizer_fn_must_be_callable"""
        with self.assertRaisesRegex(TypeError, "must be a callable"):
            fc.numeric_column("price", normalizer_fn="NotACallable")

    def test_normalizer_fn_transform_feature(self):
        """feature_column_v2_test.py::NumericColumnTest.test_normalizer_fn_transform_feature"""

        def _increment_two(input_tensor):
            return input_tensor + 2.0

        price = fc.numeric_column("price", shape=[2], normalizer_fn=_increment_two)
        output = _transform({"price": [[1.0, 2.0], [5.0, 6.0]]}, price)
        self.assertAllEqual([[3.0, 4.0], [7.0, 8.0]], output)

    def test_deep_copy(self):
        """feature_column_v2_test.py::NumericColumnTest.test_deep_copy"""
        a = fc.numeric_column("aaa", shape=[1, 2], default_value=[[3.0, 2.0]])
        a_copy = copy.deepcopy(a)
        self.assertEqual(a_copy.name, "aaa")
        self.assertEqual(a_copy.shape, (1, 2))
        self.assertEqual(a_copy.default_value, ((3.0, 2.0),))

    def test_numpy_default_value(self):
        """feature_column_v2_test.py::NumericColumnTest.test_numpy_default_value"""
        a = fc.numeric_column("aaa", shape=[1, 2], default_value=np.array([[3.0, 2.0]]))
        self.assertEqual(a.default_value, ((3.0, 2.0),))

    def test_linear_model(self):
        """feature_column_v2_test.py::NumericColumnTest.test_old_linear_model (v2 layer)"""
        price = fc.numeric_column("price")
        model = fc.LinearModel([price])
        features = {"price": [[1.0], [5.0]]}
        self.assertAllClose([[0.0], [0.0]], model(features))
        assign(model, "price/weights", [[10.0]])
        self.assertAllClose([[10.0], [50.0]], model(features))

    def test_scalar_shape_is_accepted(self):
        """TF accepts numeric_column(key, shape=()) (TFX-generated code uses it): a scalar
        feature, one value per example (feature_column_v2.py::numeric_column)."""
        a = fc.numeric_column("aaa", shape=())
        self.assertAllClose([[1.0], [5.0]], _transform({"aaa": [1.0, 5.0]}, a))


class BucketizedColumnTest(TFTestCase):
    def test_invalid_source_column_type(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_invalid_source_column_type"""
        a = fc.categorical_column_with_hash_bucket("aaa", hash_bucket_size=10)
        with self.assertRaisesRegex(
            ValueError, "source_column must be a column generated with numeric_column"
        ):
            fc.bucketized_column(a, boundaries=[0, 1])

    def test_invalid_source_column_shape(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_invalid_source_column_shape"""
        a = fc.numeric_column("aaa", shape=[2, 3])
        with self.assertRaisesRegex(ValueError, "source_column must be one-dimensional column"):
            fc.bucketized_column(a, boundaries=[0, 1])

    def test_invalid_boundaries(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_invalid_boundaries"""
        a = fc.numeric_column("aaa")
        with self.assertRaisesRegex(ValueError, "boundaries must not be empty"):
            fc.bucketized_column(a, boundaries=None)
        with self.assertRaisesRegex(ValueError, "boundaries must be a sorted list"):
            fc.bucketized_column(a, boundaries=1.0)
        with self.assertRaisesRegex(ValueError, "boundaries must be a sorted list"):
            fc.bucketized_column(a, boundaries=[1, 0])
        with self.assertRaisesRegex(ValueError, "boundaries must be a sorted list"):
            fc.bucketized_column(a, boundaries=[1, 1])

    def test_name(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_name"""
        a = fc.numeric_column("aaa", dtype="int32")
        b = fc.bucketized_column(a, boundaries=[0, 1])
        self.assertEqual("aaa_bucketized", b.name)

    def test_variable_shape(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_variable_shape"""
        a = fc.numeric_column("aaa", shape=[2], dtype="int32")
        b = fc.bucketized_column(a, boundaries=[0, 1])
        self.assertAllEqual((2, 3), b.variable_shape)

    def test_num_buckets(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_num_buckets"""
        a = fc.numeric_column("aaa", shape=[2], dtype="int32")
        b = fc.bucketized_column(a, boundaries=[0, 1])
        self.assertEqual(6, b.num_buckets)

    def test_parse_example(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_parse_example"""
        price = fc.numeric_column("price", shape=[2])
        bucketized_price = fc.bucketized_column(price, boundaries=[0, 50])
        data = example_bytes({"price": [20.0, 110.0]})
        features = cn.io.parse_example([data], fc.make_parse_example_spec([bucketized_price]))
        self.assertAllEqual([[20.0, 110.0]], features["price"].to_pylist())

    def test_transform_feature(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_transform_feature"""
        price = fc.numeric_column("price", shape=[2])
        bucketized_price = fc.bucketized_column(price, boundaries=[0, 2, 4, 6])
        out = _transform({"price": [[-1.0, 1.0], [5.0, 6.0]]}, bucketized_price)
        # TF's bucket index per value; colonnade's ids add value i's offset i * 5
        self.assertAllEqual([[0, 1], [3, 4]], np.array(out.to_lists()) % 5)

    def test_get_dense_tensor_one_input_value(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_get_dense_tensor_one_input_value
        (the one-hot tensor as an indicator column's output)"""
        price = fc.numeric_column("price", shape=[1])
        bucketized_price = fc.bucketized_column(price, boundaries=[0, 2, 4, 6])
        out = _transform(
            {"price": [[-1.0], [1.0], [5.0], [6.0]]}, fc.indicator_column(bucketized_price)
        )
        self.assertAllClose(
            [[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0],
             [0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]],
            out,
        )  # fmt: skip

    def test_get_sparse_tensors_one_input_value(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_get_sparse_tensors_one_input_value"""
        price = fc.numeric_column("price", shape=[1])
        bucketized_price = fc.bucketized_column(price, boundaries=[0, 2, 4, 6])
        out = _transform({"price": [[-1.0], [1.0], [5.0], [6.0]]}, bucketized_price)
        self.assertIsNone(out.weights)
        self.assert_sparse_equal(([[0, 0], [1, 0], [2, 0], [3, 0]], [0, 1, 3, 4], [4, 1]), out)

    def test_get_sparse_tensors_two_input_values(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_get_sparse_tensors_two_input_values"""
        price = fc.numeric_column("price", shape=[2])
        bucketized_price = fc.bucketized_column(price, boundaries=[0, 2, 4, 6])
        out = _transform({"price": [[-1.0, 1.0], [5.0, 6.0]]}, bucketized_price)
        self.assert_sparse_equal(([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 6, 3, 9], [2, 2]), out)

    def test_deep_copy(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_deep_copy"""
        a = fc.numeric_column("aaa", shape=[2])
        a_bucketized_copy = copy.deepcopy(fc.bucketized_column(a, boundaries=[0, 1]))
        self.assertEqual(a_bucketized_copy.name, "aaa_bucketized")
        self.assertAllEqual(a_bucketized_copy.variable_shape, (2, 3))
        self.assertEqual(a_bucketized_copy.boundaries, (0, 1))

    def test_linear_model_two_input_values(self):
        """feature_column_v2_test.py::BucketizedColumnTest.test_old_linear_model_two_input_values"""
        price = fc.numeric_column("price", shape=[2])
        bucketized_price = fc.bucketized_column(price, boundaries=[0, 2, 4, 6])
        model = fc.LinearModel([bucketized_price])
        features = {"price": [[-1.0, 1.0], [5.0, 6.0]]}
        self.assertAllClose([[0.0], [0.0]], model(features))
        assign(
            model,
            "price_bucketized/weights",
            [[10.0], [20.0], [30.0], [40.0], [50.0], [60.0], [70.0], [80.0], [90.0], [100.0]],
        )
        self.assertAllClose([[80.0], [140.0]], model(features))
        assign(model, "bias_weights", [1.0])
        self.assertAllClose([[81.0], [141.0]], model(features))


class HashedCategoricalColumnTest(TFTestCase):
    def test_defaults(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_defaults"""
        a = fc.categorical_column_with_hash_bucket("aaa", 10)
        self.assertEqual("aaa", a.name)
        self.assertEqual("aaa", a.key)
        self.assertEqual(10, a.hash_bucket_size)
        self.assertEqual("string", a.dtype)

    def test_key_should_be_string(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_key_should_be_string"""
        with self.assertRaisesRegex(ValueError, "key must be a string."):
            fc.categorical_column_with_hash_bucket(("key",), 10)

    def test_bucket_size_should_be_given(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_bucket_size_should_be_given"""
        with self.assertRaisesRegex(ValueError, "hash_bucket_size must be set."):
            fc.categorical_column_with_hash_bucket("aaa", None)

    def test_bucket_size_should_be_positive(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_bucket_size_should_be_positive"""
        with self.assertRaisesRegex(ValueError, "hash_bucket_size must be at least 1"):
            fc.categorical_column_with_hash_bucket("aaa", 0)

    def test_dtype_should_be_string_or_integer(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_dtype_should_be_string_or_integer"""
        a = fc.categorical_column_with_hash_bucket("aaa", 10, dtype="string")
        b = fc.categorical_column_with_hash_bucket("aaa", 10, dtype="int32")
        self.assertEqual("string", a.dtype)
        self.assertEqual("int32", b.dtype)
        with self.assertRaisesRegex(ValueError, "dtype must be string or integer"):
            fc.categorical_column_with_hash_bucket("aaa", 10, dtype="float32")

    def test_deep_copy(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_deep_copy"""
        original = fc.categorical_column_with_hash_bucket("aaa", 10)
        for column in (original, copy.deepcopy(original)):
            self.assertEqual("aaa", column.name)
            self.assertEqual(10, column.hash_bucket_size)
            self.assertEqual(10, column.num_buckets)
            self.assertEqual("string", column.dtype)

    def test_parse_example(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_parse_example"""
        a = fc.categorical_column_with_hash_bucket("aaa", 10)
        data = example_bytes({"aaa": [b"omar", b"stringer"]})
        features = cn.io.parse_example([data], fc.make_parse_example_spec([a]))
        self.assertAllEqual([[b"omar", b"stringer"]], features["aaa"].to_pylist())

    def test_strings_should_be_hashed(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_strings_should_be_hashed"""
        hashed_sparse = fc.categorical_column_with_hash_bucket("wire", 10)
        wire = sparse_rows([[0, 0], [1, 0], [1, 1]], ["omar", "stringer", "marlo"], [2, 2])
        output = _transform({"wire": wire}, hashed_sparse)
        indices, values, dense_shape = as_sparse(output)
        self.assertEqual(np.int64, output.ids.dtype)
        self.assertAllEqual([6, 4, 1], values)
        self.assertAllEqual([[0, 0], [1, 0], [1, 1]], indices)
        self.assertAllEqual([2, 2], dense_shape)

    def test_tensor_dtype_should_be_string_or_integer(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_tensor_dtype_should_be_string_or_integer"""
        string_fc = fc.categorical_column_with_hash_bucket("a_string", 10, dtype="string")
        int_fc = fc.categorical_column_with_hash_bucket("a_int", 10, dtype="int32")
        float_fc = fc.categorical_column_with_hash_bucket("a_float", 10, dtype="string")
        features = {"a_int": [[101]], "a_string": [["101"]], "a_float": [[101.0]]}
        fc.transform_features(features, [string_fc, int_fc])
        with self.assertRaisesRegex(ValueError, "dtype must be string or integer"):
            fc.transform_features(features, [float_fc])

    def test_dtype_should_match_with_tensor(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_dtype_should_match_with_tensor"""
        hashed_sparse = fc.categorical_column_with_hash_bucket("wire", 10, dtype="int64")
        with self.assertRaisesRegex(ValueError, "dtype must be compatible"):
            _transform({"wire": [["omar"]]}, hashed_sparse)

    def test_ints_should_be_hashed(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_ints_should_be_hashed"""
        hashed_sparse = fc.categorical_column_with_hash_bucket("wire", 10, dtype="int64")
        wire = sparse_rows([[0, 0], [1, 0], [1, 1]], [101, 201, 301], [2, 2])
        self.assertAllEqual([3, 7, 5], _transform({"wire": wire}, hashed_sparse).ids)

    def test_int32_64_is_compatible(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_int32_64_is_compatible"""
        hashed_sparse = fc.categorical_column_with_hash_bucket("wire", 10, dtype="int64")
        wire = pa.array([[101], [201, 301]], pa.list_(pa.int32()))
        self.assertAllEqual([3, 7, 5], _transform({"wire": wire}, hashed_sparse).ids)

    def test_get_sparse_tensors_dense_input(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_get_sparse_tensors_dense_input:
        TF drops the ignore value '' of dense string input before hashing"""
        hashed_sparse = fc.categorical_column_with_hash_bucket("wire", 10)
        output = _transform({"wire": (("omar", ""), ("stringer", "marlo"))}, hashed_sparse)
        self.assertIsNone(output.weights)
        self.assertAllEqual([[6], [4, 1]], output.to_lists())

    def test_linear_model(self):
        """feature_column_v2_test.py::HashedCategoricalColumnTest.test_old_linear_model (v2 layer)"""
        wire_column = fc.categorical_column_with_hash_bucket("wire", 4)
        self.assertEqual(4, wire_column.num_buckets)
        model = fc.LinearModel([wire_column])
        wire = sparse_rows(((0, 0), (1, 0), (1, 1)), ("marlo", "skywalker", "omar"), (2, 2))
        self.assertAllClose(((0.0,), (0.0,)), model({"wire": wire}))
        assign(model, "wire/weights", ((1.0,), (2.0,), (3.0,), (4.0,)))
        self.assertAllClose(((4.0,), (6.0,)), model({"wire": wire}))


class CrossedColumnTest(TFTestCase):
    def test_keys_empty(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_keys_empty"""
        with self.assertRaisesRegex(ValueError, "keys must be a list with length > 1"):
            fc.crossed_column([], 10)

    def test_keys_length_one(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_keys_length_one"""
        with self.assertRaisesRegex(ValueError, "keys must be a list with length > 1"):
            fc.crossed_column(["a"], 10)

    def test_key_type_unsupported(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_key_type_unsupported"""
        with self.assertRaisesRegex(ValueError, "Unsupported key type"):
            fc.crossed_column(["a", fc.numeric_column("c")], 10)
        with self.assertRaisesRegex(
            ValueError, "categorical_column_with_hash_bucket is not supported"
        ):
            fc.crossed_column(["a", fc.categorical_column_with_hash_bucket("c", 10)], 10)

    def test_hash_bucket_size_negative(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_hash_bucket_size_negative"""
        with self.assertRaisesRegex(ValueError, "hash_bucket_size must be > 1"):
            fc.crossed_column(["a", "c"], -1)

    def test_hash_bucket_size_zero(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_hash_bucket_size_zero"""
        with self.assertRaisesRegex(ValueError, "hash_bucket_size must be > 1"):
            fc.crossed_column(["a", "c"], 0)

    def test_hash_bucket_size_none(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_hash_bucket_size_none"""
        with self.assertRaisesRegex(ValueError, "hash_bucket_size must be > 1"):
            fc.crossed_column(["a", "c"], None)

    def _crossed_name(self, inner_keys, outer_keys):
        """TF's crossed-name tests: bucketized 'a', a cross of ``inner_keys``, and the
        name of a cross of ``outer_keys`` ('b': the bucketized column, 'x': that cross)."""
        b = fc.bucketized_column(fc.numeric_column("a", dtype="int32"), boundaries=[0, 1])
        crossed1 = fc.crossed_column(inner_keys, 10)
        return fc.crossed_column([{"b": b, "x": crossed1}.get(k, k) for k in outer_keys], 10).name

    def test_name(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_name"""
        self.assertEqual(
            "a_bucketized_X_c_X_d1_X_d2", self._crossed_name(["d1", "d2"], ["b", "c", "x"])
        )

    def test_name_ordered_alphabetically(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_name_ordered_alphabetically"""
        self.assertEqual(
            "a_bucketized_X_c_X_d1_X_d2", self._crossed_name(["d1", "d2"], ["x", "c", "b"])
        )

    def test_name_leaf_keys_ordered_alphabetically(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_name_leaf_keys_ordered_alphabetically"""
        self.assertEqual(
            "a_bucketized_X_c_X_d1_X_d2", self._crossed_name(["d2", "c"], ["x", "d1", "b"])
        )

    def test_num_buckets(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_num_buckets"""
        a = fc.numeric_column("a", shape=[2], dtype="int32")
        b = fc.bucketized_column(a, boundaries=[0, 1])
        self.assertEqual(15, fc.crossed_column([b, "c"], 15).num_buckets)

    def test_deep_copy(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_deep_copy"""
        a = fc.numeric_column("a", dtype="int32")
        b = fc.bucketized_column(a, boundaries=[0, 1])
        crossed1 = fc.crossed_column(["d1", "d2"], 10)
        crossed2 = fc.crossed_column([b, "c", crossed1], 15, hash_key=5)
        crossed2_copy = copy.deepcopy(crossed2)
        self.assertEqual("a_bucketized_X_c_X_d1_X_d2", crossed2_copy.name)
        self.assertEqual(15, crossed2_copy.hash_bucket_size)
        self.assertEqual(5, crossed2_copy.hash_key)

    def test_transform_feature(self):
        """feature_column_v2_test.py::CrossedColumnTest.test_transform_feature"""
        price = fc.numeric_column("price", shape=[2])
        bucketized_price = fc.bucketized_column(price, boundaries=[0, 50])
        hash_bucket_size = 10
        price_cross_wire = fc.crossed_column([bucketized_price, "wire"], hash_bucket_size)
        features = {
            "price": [[1.0, 2.0], [5.0, 6.0]],
            "wire": sparse_rows([[0, 0], [1, 0], [1, 1]], ["omar", "stringer", "marlo"], [2, 2]),
        }
        indices, values, dense_shape = as_sparse(_transform(features, price_cross_wire))
        self.assertAllEqual([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [1, 3]], indices)
        for val in values:
            self.assertIn(val, list(range(hash_bucket_size)))
        self.assertAllEqual([2, 4], dense_shape)


def _linear(features, columns, **kwargs):
    """TF's ``fc_old.linear_model(features, columns)``: the layer and its predictions."""
    model = fc.LinearModel(columns, **kwargs)
    return model, model(features)


WIRE = sparse_rows([[0, 0], [1, 0], [1, 1]], ["omar", "stringer", "marlo"], [2, 2])


class OldLinearModelTest(TFTestCase):
    """feature_column_v2_test.py::OldLinearModelTest, with the v2 ``LinearModel`` layer for
    ``fc_old.linear_model`` (same variables, same math)."""

    def test_raises_if_empty_feature_columns(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_raises_if_empty_feature_columns"""
        with self.assertRaisesRegex(ValueError, "feature_columns must not be empty"):
            fc.linear_model(features={}, feature_columns=[])

    def test_should_be_feature_column(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_should_be_feature_column"""
        with self.assertRaisesRegex(ValueError, "must be a .*FeatureColumn"):
            fc.linear_model(features={"a": [[0]]}, feature_columns="NotSupported")

    def test_does_not_support_dict_columns(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_does_not_support_dict_columns"""
        with self.assertRaisesRegex(
            ValueError, "Expected feature_columns to be iterable, found dict."
        ):
            fc.linear_model(features={"a": [[0]]}, feature_columns={"a": fc.numeric_column("a")})

    def test_raises_if_duplicate_name(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_raises_if_duplicate_name"""
        with self.assertRaisesRegex(ValueError, "Duplicate feature column name found for columns"):
            fc.linear_model(
                features={"a": [[0]]},
                feature_columns=[fc.numeric_column("a"), fc.numeric_column("a")],
            )

    def test_dense_bias(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_dense_bias"""
        price = fc.numeric_column("price")
        features = {"price": [[1.0], [5.0]]}
        model, predictions = _linear(features, [price])
        self.assertAllClose([0.0], model.checkpoint_children()["bias_weights"])
        assign(model, "price/weights", [[10.0]])
        assign(model, "bias_weights", [5.0])
        self.assertAllClose([[15.0], [55.0]], model(features))

    def test_sparse_bias(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_sparse_bias"""
        wire_cast = fc.categorical_column_with_hash_bucket("wire_cast", 4)
        features = {"wire_cast": WIRE}
        model, _ = _linear(features, [wire_cast])
        self.assertAllClose(
            [[0.0], [0.0], [0.0], [0.0]], model.checkpoint_children()["wire_cast/weights"]
        )
        assign(model, "wire_cast/weights", [[10.0], [100.0], [1000.0], [10000.0]])
        assign(model, "bias_weights", [5.0])
        self.assertAllClose([[1005.0], [10015.0]], model(features))

    def test_dense_and_sparse_bias(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_dense_and_sparse_bias"""
        wire_cast = fc.categorical_column_with_hash_bucket("wire_cast", 4)
        price = fc.numeric_column("price")
        features = {"wire_cast": WIRE, "price": [[1.0], [5.0]]}
        model, _ = _linear(features, [wire_cast, price])
        assign(model, "wire_cast/weights", [[10.0], [100.0], [1000.0], [10000.0]])
        assign(model, "bias_weights", [5.0])
        assign(model, "price/weights", [[10.0]])
        self.assertAllClose([[1015.0], [10065.0]], model(features))

    def test_dense_multi_output(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_dense_multi_output"""
        price = fc.numeric_column("price")
        features = {"price": [[1.0], [5.0]]}
        model, _ = _linear(features, [price], units=3)
        self.assertAllClose(np.zeros((3,)), model.checkpoint_children()["bias_weights"])
        self.assertAllClose(np.zeros((1, 3)), model.checkpoint_children()["price/weights"])
        assign(model, "price/weights", [[10.0, 100.0, 1000.0]])
        assign(model, "bias_weights", [5.0, 6.0, 7.0])
        self.assertAllClose([[15.0, 106.0, 1007.0], [55.0, 506.0, 5007.0]], model(features))

    def test_sparse_multi_output(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_sparse_multi_output"""
        wire_cast = fc.categorical_column_with_hash_bucket("wire_cast", 4)
        features = {"wire_cast": WIRE}
        model, _ = _linear(features, [wire_cast], units=3)
        self.assertAllClose(np.zeros((4, 3)), model.checkpoint_children()["wire_cast/weights"])
        assign(
            model,
            "wire_cast/weights",
            [
                [10.0, 11.0, 12.0],
                [100.0, 110.0, 120.0],
                [1000.0, 1100.0, 1200.0],
                [10000.0, 11000.0, 12000.0],
            ],
        )
        assign(model, "bias_weights", [5.0, 6.0, 7.0])
        self.assertAllClose(
            [[1005.0, 1106.0, 1207.0], [10015.0, 11017.0, 12019.0]], model(features)
        )

    def test_dense_multi_dimension(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_dense_multi_dimension"""
        price = fc.numeric_column("price", shape=2)
        features = {"price": [[1.0, 2.0], [5.0, 6.0]]}
        model, _ = _linear(features, [price])
        self.assertAllClose([[0.0], [0.0]], model.checkpoint_children()["price/weights"])
        assign(model, "price/weights", [[10.0], [100.0]])
        self.assertAllClose([[210.0], [650.0]], model(features))

    def test_sparse_combiner(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_sparse_combiner"""
        wire_cast = fc.categorical_column_with_hash_bucket("wire_cast", 4)
        features = {"wire_cast": WIRE}
        model, _ = _linear(features, [wire_cast], sparse_combiner="mean")
        assign(model, "wire_cast/weights", [[10.0], [100.0], [1000.0], [10000.0]])
        assign(model, "bias_weights", [5.0])
        self.assertAllClose([[1005.0], [5010.0]], model(features))

    def test_sparse_combiner_with_negative_weights(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_sparse_combiner_with_negative_weights
        (TF's weights constant [[1., 1., -1.0]] holds the weight of each sparse value, one
        per value: [[1.], [1., -1.]] row by row)"""
        wire_cast = fc.categorical_column_with_hash_bucket("wire_cast", 4)
        wire_cast_weights = fc.weighted_categorical_column(wire_cast, "weights")
        features = {"wire_cast": WIRE, "weights": [[1.0], [1.0, -1.0]]}
        model, _ = _linear(features, [wire_cast_weights], sparse_combiner="sum")
        name = wire_cast_weights.name + "/weights"
        assign(model, name, [[10.0], [100.0], [1000.0], [10000.0]])
        assign(model, "bias_weights", [5.0])
        self.assertAllClose([[1005.0], [-9985.0]], model(features))

    def test_dense_multi_dimension_multi_output(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_dense_multi_dimension_multi_output"""
        price = fc.numeric_column("price", shape=2)
        features = {"price": [[1.0, 2.0], [5.0, 6.0]]}
        model, _ = _linear(features, [price], units=3)
        self.assertAllClose(np.zeros((3,)), model.checkpoint_children()["bias_weights"])
        self.assertAllClose(np.zeros((2, 3)), model.checkpoint_children()["price/weights"])
        assign(model, "price/weights", [[1.0, 2.0, 3.0], [10.0, 100.0, 1000.0]])
        assign(model, "bias_weights", [2.0, 3.0, 4.0])
        self.assertAllClose([[23.0, 205.0, 2007.0], [67.0, 613.0, 6019.0]], model(features))

    def test_raises_if_shape_mismatch(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_raises_if_shape_mismatch"""
        price = fc.numeric_column("price", shape=2)
        with self.assertRaisesRegex(
            Exception, r"Cannot reshape a tensor with 2 elements to shape \[2,2\]"
        ):
            fc.linear_model({"price": [[1.0], [5.0]]}, [price])

    def test_dense_reshaping(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_dense_reshaping"""
        price = fc.numeric_column("price", shape=[1, 2])
        features = {"price": [[[1.0, 2.0]], [[5.0, 6.0]]]}
        model, predictions = _linear(features, [price])
        self.assertAllClose([[0.0], [0.0]], predictions)
        assign(model, "price/weights", [[10.0], [100.0]])
        self.assertAllClose([[210.0], [650.0]], model(features))

    def test_dense_multi_column(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_dense_multi_column"""
        price1 = fc.numeric_column("price1", shape=2)
        price2 = fc.numeric_column("price2")
        features = {"price1": [[1.0, 2.0], [5.0, 6.0]], "price2": [[3.0], [4.0]]}
        model, predictions = _linear(features, [price1, price2])
        self.assertAllClose([[0.0], [0.0]], predictions)
        assign(model, "price1/weights", [[10.0], [100.0]])
        assign(model, "price2/weights", [[1000.0]])
        assign(model, "bias_weights", [7.0])
        self.assertAllClose([[3217.0], [4657.0]], model(features))

    def test_fills_cols_to_vars(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_fills_cols_to_vars"""
        price1 = fc.numeric_column("price1", shape=2)
        price2 = fc.numeric_column("price2")
        features = {"price1": [[1.0, 2.0], [5.0, 6.0]], "price2": [[3.0], [4.0]]}
        cols_to_vars = {}
        fc.linear_model(features, [price1, price2], cols_to_vars=cols_to_vars)
        self.assertEqual(3, len(cols_to_vars))
        self.assertEqual((2, 1), tuple(cols_to_vars[price1][0].shape))
        self.assertEqual((1, 1), tuple(cols_to_vars[price2][0].shape))
        self.assertEqual((1,), tuple(cols_to_vars["bias"][0].shape))

    def test_dense_collection(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_dense_collection: TF adds the
        variables to the named graph collections; without graphs the argument is accepted
        (docs/tf_differences.md)"""
        price = fc.numeric_column("price")
        out = fc.linear_model({"price": [[1.0], [5.0]]}, [price], weight_collections=["my-vars"])
        self.assertEqual((2, 1), tuple(out.shape))

    def test_dense_trainable_false(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_dense_trainable_false"""
        price = fc.numeric_column("price")
        model, _ = _linear({"price": [[1.0], [5.0]]}, [price], trainable=False)
        self.assertEqual([], model.trainable_variables)

    def test_static_batch_size_mismatch(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_static_batch_size_mismatch"""
        self.assert_batch_size_mismatch(fc.linear_model)

    def test_with_1d_sparse_tensor(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_with_1d_sparse_tensor"""
        price = fc.numeric_column("price")
        price_buckets = fc.bucketized_column(price, boundaries=[0.0, 10.0, 100.0])
        body_style = fc.categorical_column_with_vocabulary_list(
            "body-style", vocabulary_list=["hardtop", "wagon", "sedan"]
        )
        features = {"price": [-1.0, 12.0], "body-style": ["sedan", "hardtop"]}
        model, _ = _linear(features, [price_buckets, body_style])
        assign(model, "price_bucketized/weights", [[10.0], [100.0], [1000.0], [10000.0]])
        assign(model, "body-style/weights", [[-10.0], [-100.0], [-1000.0]])
        assign(model, "bias_weights", [5.0])
        self.assertAllClose([[10 - 1000 + 5.0], [1000 - 10 + 5.0]], model(features))

    def test_with_rank_0_feature(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_with_rank_0_feature"""
        price = fc.numeric_column("price")
        with self.assertRaisesRegex(ValueError, "Feature .* cannot have rank 0"):
            fc.linear_model({"price": np.array(0)}, [price])

    def test_multiple_linear_models(self):
        """feature_column_v2_test.py::OldLinearModelTest.test_multiple_linear_models"""
        price = fc.numeric_column("price")
        features1 = {"price": [[1.0], [5.0]]}
        features2 = {"price": [[2.0], [10.0]]}
        model1, _ = _linear(features1, [price])
        model2, _ = _linear(features2, [price])
        assign(model1, "price/weights", [[10.0]])
        assign(model1, "bias_weights", [5.0])
        self.assertAllClose([[15.0], [55.0]], model1(features1))
        self.assertAllClose([0.0], model2.checkpoint_children()["bias_weights"])
        assign(model2, "price/weights", [[10.0]])
        assign(model2, "bias_weights", [5.0])
        self.assertAllClose([[25.0], [105.0]], model2(features2))


class InputLayerTest(TFTestCase):
    """feature_column_v2_test.py::InputLayerTest (fc_old.input_layer is ``input_layer``)."""

    def test_column_order(self):
        """feature_column_v2_test.py::InputLayerTest.test_column_order"""
        price_a = fc.numeric_column("price_a")
        price_b = fc.numeric_column("price_b")
        features = {"price_a": [[1.0]], "price_b": [[3.0]]}
        self.assertAllClose([[1.0, 3.0]], fc.input_layer(features, [price_a, price_b]))
        self.assertAllClose([[1.0, 3.0]], fc.input_layer(features, [price_b, price_a]))

    def test_fails_for_categorical_column(self):
        """feature_column_v2_test.py::InputLayerTest.test_fails_for_categorical_column"""
        animal = fc.categorical_column_with_identity("animal", num_buckets=4)
        features = {"animal": sparse_rows([[0, 0], [0, 1]], [1, 2], [1, 2])}
        with self.assertRaisesRegex(Exception, "must be a .*DenseColumn"):
            fc.input_layer(features, [animal])

    def test_static_batch_size_mismatch(self):
        """feature_column_v2_test.py::InputLayerTest.test_static_batch_size_mismatch"""
        self.assert_batch_size_mismatch(fc.input_layer)

    def test_with_1d_sparse_tensor(self):
        """feature_column_v2_test.py::InputLayerTest.test_with_1d_sparse_tensor"""
        embedding_values = (
            (1.0, 2.0, 3.0, 4.0, 5.0),  # id 0
            (6.0, 7.0, 8.0, 9.0, 10.0),  # id 1
            (11.0, 12.0, 13.0, 14.0, 15.0),  # id 2
        )

        def _initializer(shape, dtype, partition_info=None):
            del shape, dtype, partition_info
            return embedding_values

        price = fc.numeric_column("price")
        body_style = fc.categorical_column_with_vocabulary_list(
            "body-style", vocabulary_list=["hardtop", "wagon", "sedan"]
        )
        one_hot_body_style = fc.indicator_column(body_style)
        country = fc.categorical_column_with_vocabulary_list(
            "country", vocabulary_list=["US", "JP", "CA"]
        )
        embedded_country = fc.embedding_column(country, dimension=5, initializer=_initializer)
        features = {
            "price": [11.0, 12.0],
            "body-style": ["sedan", "hardtop"],
            "country": ["CA", "US"],
        }
        net = fc.input_layer(features, [price, one_hot_body_style, embedded_country])
        self.assertEqual(1 + 3 + 5, net.shape[1])
        self.assertAllEqual(
            [
                [0.0, 0.0, 1.0, 11.0, 12.0, 13.0, 14.0, 15.0, 11.0],
                [1.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 12.0],
            ],
            net,
        )

    def test_with_rank_0_feature(self):
        """feature_column_v2_test.py::InputLayerTest.test_with_rank_0_feature"""
        price = fc.numeric_column("price")
        with self.assertRaisesRegex(ValueError, "Feature .* cannot have rank 0"):
            fc.input_layer({"price": np.array(0)}, [price])


class MakeParseExampleSpecTest(TFTestCase):
    def test_no_feature_columns(self):
        """feature_column_v2_test.py::MakeParseExampleSpecTest.test_no_feature_columns"""
        self.assertEqual([], fc.make_parse_example_spec([]).names)

    def test_invalid_type(self):
        """feature_column_v2_test.py::MakeParseExampleSpecTest.test_invalid_type"""
        with self.assertRaisesRegex(
            ValueError, "All feature_columns must be FeatureColumn instances.*invalid_column"
        ):
            fc.make_parse_example_spec((fc.numeric_column("key1", shape=(2,)), "invalid_column"))

    def test_equal_keys_different_parse_spec(self):
        """feature_column_v2_test.py::MakeParseExampleSpecTest.test_equal_keys_different_parse_spec"""
        with self.assertRaisesRegex(
            ValueError, "feature_columns contain different parse_spec for key key1"
        ):
            fc.make_parse_example_spec(
                (
                    fc.numeric_column("key1", shape=(2,)),
                    fc.categorical_column_with_hash_bucket("key1", 10),
                )
            )


WIRE_VOCABULARY = ("omar", "stringer", "marlo")  # TF's testdata/wire_vocabulary.txt
WARRIORS_VOCABULARY = (30, 35, 11, 23, 22)  # TF's testdata/warriors_vocabulary.txt


@pytest.fixture(scope="class")
def vocabulary_files(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("vocab")
    wire, warriors = root / "wire_vocabulary.txt", root / "warriors_vocabulary.txt"
    wire.write_text("".join(f"{v}\n" for v in WIRE_VOCABULARY))
    warriors.write_text("".join(f"{v}\n" for v in WARRIORS_VOCABULARY))
    request.cls._wire_vocabulary_file_name = str(wire)
    request.cls._wire_vocabulary_size = 3
    request.cls._warriors_vocabulary_file_name = str(warriors)
    request.cls._warriors_vocabulary_size = 5


WIRE_INPUT = sparse_rows(((0, 0), (1, 0), (1, 1)), ("marlo", "skywalker", "omar"), (2, 2))


@pytest.mark.usefixtures("vocabulary_files")
class VocabularyFileCategoricalColumnTest(TFTestCase):
    def _file_column(self, **kwargs):
        kwargs.setdefault("vocabulary_file", self._wire_vocabulary_file_name)
        kwargs.setdefault("vocabulary_size", self._wire_vocabulary_size)
        return fc.categorical_column_with_vocabulary_file(key="aaa", **kwargs)

    def test_vocabulary_file_none(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_vocabulary_file_none"""
        with self.assertRaisesRegex(ValueError, "Missing vocabulary_file"):
            fc.categorical_column_with_vocabulary_file(
                key="aaa", vocabulary_file=None, vocabulary_size=3
            )

    def test_vocabulary_file_empty_string(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_vocabulary_file_empty_string"""
        with self.assertRaisesRegex(ValueError, "Missing vocabulary_file"):
            fc.categorical_column_with_vocabulary_file(
                key="aaa", vocabulary_file="", vocabulary_size=3
            )

    def test_invalid_vocabulary_file(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_invalid_vocabulary_file
        (TF: an OpError when the table initializes; here when the column first reads it)"""
        with self.assertRaisesRegex(Exception, "file_does_not_exist"):
            column = fc.categorical_column_with_vocabulary_file(
                key="aaa", vocabulary_file="file_does_not_exist", vocabulary_size=10
            )
            _transform({"aaa": WIRE_INPUT}, column)

    def test_invalid_vocabulary_size(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_invalid_vocabulary_size"""
        with self.assertRaisesRegex(ValueError, "Invalid vocabulary_size"):
            self._file_column(vocabulary_size=-1)
        with self.assertRaisesRegex(ValueError, "Invalid vocabulary_size"):
            self._file_column(vocabulary_size=0)

    def test_too_large_vocabulary_size(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_too_large_vocabulary_size"""
        with self.assertRaisesRegex(ValueError, "Invalid vocab_size"):
            column = self._file_column(vocabulary_size=self._wire_vocabulary_size + 1)
            _transform({"aaa": WIRE_INPUT}, column)

    def test_invalid_num_oov_buckets(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_invalid_num_oov_buckets"""
        with self.assertRaisesRegex(ValueError, "Invalid num_oov_buckets"):
            fc.categorical_column_with_vocabulary_file(
                key="aaa", vocabulary_file="path", vocabulary_size=3, num_oov_buckets=-1
            )

    def test_invalid_dtype(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_invalid_dtype"""
        with self.assertRaisesRegex(ValueError, "dtype must be string or integer"):
            fc.categorical_column_with_vocabulary_file(
                key="aaa", vocabulary_file="path", vocabulary_size=3, dtype="float64"
            )

    def test_invalid_buckets_and_default_value(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_invalid_buckets_and_default_value"""
        with self.assertRaisesRegex(ValueError, "both num_oov_buckets and default_value"):
            self._file_column(num_oov_buckets=100, default_value=2)

    def test_invalid_input_dtype_int32(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_invalid_input_dtype_int32"""
        column = self._file_column(dtype="string")
        inputs = sparse_rows(((0, 0), (1, 0), (1, 1)), (12, 24, 36), (2, 2))
        with self.assertRaisesRegex(ValueError, "dtype must be compatible"):
            _transform({"aaa": inputs}, column)

    def test_invalid_input_dtype_string(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_invalid_input_dtype_string"""
        column = self._file_column(
            vocabulary_file=self._warriors_vocabulary_file_name,
            vocabulary_size=self._warriors_vocabulary_size,
            dtype="int32",
        )
        inputs = sparse_rows(((0, 0), (1, 0), (1, 1)), ("omar", "stringer", "marlo"), (2, 2))
        with self.assertRaisesRegex(ValueError, "dtype must be compatible"):
            _transform({"aaa": inputs}, column)

    def test_get_sparse_tensors(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_get_sparse_tensors"""
        out = _transform({"aaa": WIRE_INPUT}, self._file_column())
        self.assertIsNone(out.weights)
        self.assertAllEqual(((0, 0), (1, 0), (1, 1)), as_sparse(out)[0])
        self.assertAllEqual((2, -1, 0), out.ids)

    def test_get_sparse_tensors_none_vocabulary_size(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_get_sparse_tensors_none_vocabulary_size"""
        column = fc.categorical_column_with_vocabulary_file(
            key="aaa", vocabulary_file=self._wire_vocabulary_file_name
        )
        self.assertAllEqual((2, -1, 0), _transform({"aaa": WIRE_INPUT}, column).ids)

    def test_get_sparse_tensors_dense_input(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_get_sparse_tensors_dense_input"""
        out = _transform({"aaa": (("marlo", ""), ("skywalker", "omar"))}, self._file_column())
        self.assert_sparse_equal((((0, 0), (1, 0), (1, 1)), (2, -1, 0), (2, 2)), out)

    def test_get_sparse_tensors_default_value_in_vocabulary(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_get_sparse_tensors_default_value_in_vocabulary"""
        out = _transform({"aaa": WIRE_INPUT}, self._file_column(default_value=2))
        self.assertAllEqual((2, 2, 0), out.ids)

    def test_get_sparse_tensors_with_oov_buckets(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_get_sparse_tensors_with_oov_buckets"""
        inputs = sparse_rows(
            ((0, 0), (1, 0), (1, 1), (1, 2)), ("marlo", "skywalker", "omar", "heisenberg"), (2, 3)
        )
        out = _transform({"aaa": inputs}, self._file_column(num_oov_buckets=100))
        self.assertAllEqual((2, 33, 0, 62), out.ids)

    def test_get_sparse_tensors_small_vocabulary_size(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_get_sparse_tensors_small_vocabulary_size"""
        out = _transform(
            {"aaa": WIRE_INPUT}, self._file_column(vocabulary_size=self._wire_vocabulary_size - 1)
        )
        self.assertAllEqual((-1, -1, 0), out.ids)

    def _warriors(self, **kwargs):
        return self._file_column(
            vocabulary_file=self._warriors_vocabulary_file_name,
            vocabulary_size=self._warriors_vocabulary_size,
            dtype="int32",
            **kwargs,
        )

    def test_get_sparse_tensors_int32(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_get_sparse_tensors_int32"""
        inputs = sparse_rows(((0, 0), (1, 0), (1, 1), (2, 2)), (11, 100, 30, 22), (3, 3))
        self.assertAllEqual((2, -1, 0, 4), _transform({"aaa": inputs}, self._warriors()).ids)

    def test_get_sparse_tensors_int32_dense_input(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_get_sparse_tensors_int32_dense_input"""
        default_value = -100
        column = self._warriors(default_value=default_value)
        out = _transform({"aaa": ((11, -1, -1), (100, 30, -1), (-1, -1, 22))}, column)
        self.assertAllEqual([[2], [default_value, 0], [4]], out.to_lists())

    def test_get_sparse_tensors_int32_with_oov_buckets(self):
        """feature_column_v2_test.py::VocabularyFileCategoricalColumnTest.test_get_sparse_tensors_int32_with_oov_buckets"""
        inputs = sparse_rows(((0, 0), (1, 0), (1, 1), (2, 2)), (11, 100, 30, 22), (3, 3))
        self.assertAllEqual(
            (2, 60, 0, 4), _transform({"aaa": inputs}, self._warriors(num_oov_buckets=100)).ids
        )


class IdentityCategoricalColumnTest(TFTestCase):
    def test_get_sparse_tensors_with_default_value_and_sparse_inputs(self):
        """feature_column_v2_test.py::IdentityCategoricalColumnTest.test_get_sparse_tensors_with_default_value_and_placeholder_inputs
        (sparse input: -1 and 99 are out of range and take default_value)"""
        column = fc.categorical_column_with_identity(key="aaa", num_buckets=4, default_value=3)
        inputs = sparse_rows(((0, 0), (1, 0), (1, 1)), (1, -1, 99), (2, 2))
        out = _transform({"aaa": inputs}, column)
        self.assertIsNone(out.weights)
        self.assert_sparse_equal((((0, 0), (1, 0), (1, 1)), (1, 3, 3), (2, 2)), out)

    def test_linear_model(self):
        """feature_column_v2_test.py::IdentityCategoricalColumnTest.test_old_linear_model"""
        column = fc.categorical_column_with_identity(key="aaa", num_buckets=3)
        self.assertEqual(3, column.num_buckets)
        features = {"aaa": sparse_rows(((0, 0), (1, 0), (1, 1)), (0, 2, 1), (2, 2))}
        model, predictions = _linear(features, (column,))
        self.assertAllClose(((0.0,), (0.0,)), predictions)
        assign(model, "aaa/weights", ((1.0,), (2.0,), (3.0,)))
        self.assertAllClose(((1.0,), (5.0,)), model(features))


class TransformFeaturesTest(TFTestCase):
    def test_transform_multi_column(self):
        """feature_column_v2_test.py::TransformFeaturesTest.transform_multi_column"""
        bucketized_price = fc.bucketized_column(fc.numeric_column("price"), boundaries=[0, 2, 4, 6])
        hashed_sparse = fc.categorical_column_with_hash_bucket("wire", 10)
        features = {"price": [[-1.0], [5.0]], "wire": WIRE}
        transformed = fc.transform_features(features, [bucketized_price, hashed_sparse])
        self.assertAllEqual([[0], [3]], transformed[bucketized_price.name].to_lists())
        self.assertAllEqual([6, 4, 1], transformed[hashed_sparse.name].ids)


class IndicatorColumnTest(TFTestCase):
    def test_indicator_column(self):
        """feature_column_v2_test.py::IndicatorColumnTest.test_indicator_column"""
        a = fc.categorical_column_with_hash_bucket("a", 4)
        indicator_a = fc.indicator_column(a)
        self.assertEqual(indicator_a.categorical_column.name, "a")
        self.assertEqual(indicator_a.name, "a_indicator")
        self.assertEqual(indicator_a.variable_shape, [1, 4])

    def test_not_categorical_input(self):
        """feature_column_v2_test.py::IndicatorColumnTest.test_not_categorical_input"""
        with self.assertRaisesRegex(ValueError, "Unsupported input type."):
            fc.indicator_column("aaa")

    def test_1D_shape_succeeds(self):  # noqa: N802
        """feature_column_v2_test.py::IndicatorColumnTest.test_1D_shape_succeeds"""
        animal = fc.indicator_column(fc.categorical_column_with_hash_bucket("animal", 4))
        self.assertAllEqual(
            [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]],
            _transform({"animal": ["fox", "fox"]}, animal),
        )

    def test_2D_shape_succeeds(self):  # noqa: N802
        """feature_column_v2_test.py::IndicatorColumnTest.test_2D_shape_succeeds"""
        animal = fc.indicator_column(fc.categorical_column_with_hash_bucket("animal", 4))
        features = {"animal": sparse_rows([[0, 0], [1, 0]], ["fox", "fox"], [2, 1])}
        self.assertAllEqual(
            [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]], _transform(features, animal)
        )

    def test_multi_hot(self):
        """feature_column_v2_test.py::IndicatorColumnTest.test_multi_hot"""
        animal = fc.indicator_column(fc.categorical_column_with_identity("animal", num_buckets=4))
        features = {"animal": sparse_rows([[0, 0], [0, 1]], [1, 1], [1, 2])}
        self.assertAllEqual([[0.0, 2.0, 0.0, 0.0]], _transform(features, animal))

    def test_multi_hot2(self):
        """feature_column_v2_test.py::IndicatorColumnTest.test_multi_hot2"""
        animal = fc.indicator_column(fc.categorical_column_with_identity("animal", num_buckets=4))
        features = {"animal": sparse_rows([[0, 0], [0, 1]], [1, 2], [1, 2])}
        self.assertAllEqual([[0.0, 1.0, 1.0, 0.0]], _transform(features, animal))

    def test_deep_copy(self):
        """feature_column_v2_test.py::IndicatorColumnTest.test_deep_copy"""
        column = fc.indicator_column(fc.categorical_column_with_hash_bucket("a", 4))
        column_copy = copy.deepcopy(column)
        self.assertEqual(column_copy.categorical_column.name, "a")
        self.assertEqual(column.name, "a_indicator")
        self.assertEqual(column.variable_shape, [1, 4])

    def test_transform(self):
        """feature_column_v2_test.py::IndicatorColumnTest.test_transform"""
        a = fc.categorical_column_with_vocabulary_list(
            key="aaa", vocabulary_list=("omar", "stringer", "marlo")
        )
        features = {
            "aaa": sparse_rows(((0, 0), (1, 0), (1, 1)), ("marlo", "skywalker", "omar"), (2, 2))
        }
        self.assertAllEqual([[0, 0, 1], [1, 0, 0]], _transform(features, fc.indicator_column(a)))

    def test_transform_with_weighted_column(self):
        """feature_column_v2_test.py::IndicatorColumnTest.test_transform_with_weighted_column"""
        ids = fc.categorical_column_with_vocabulary_list(key="ids", vocabulary_list=("a", "b", "c"))
        indicator = fc.indicator_column(fc.weighted_categorical_column(ids, "weights"))
        features = {"ids": [["c", "b", "a", "c"]], "weights": [[2.0, 4.0, 6.0, 1.0]]}
        self.assertAllEqual([[6.0, 4.0, 3.0]], _transform(features, indicator))

    def test_transform_with_missing_value_in_weighted_column(self):
        """feature_column_v2_test.py::IndicatorColumnTest.test_transform_with_missing_value_in_weighted_column"""
        ids = fc.categorical_column_with_vocabulary_list(key="ids", vocabulary_list=("a", "b", "c"))
        indicator = fc.indicator_column(fc.weighted_categorical_column(ids, "weights"))
        features = {"ids": [["c", "b", "unknown"]], "weights": [[2.0, 4.0, 6.0]]}
        self.assertAllEqual([[0.0, 4.0, 2.0]], _transform(features, indicator))

    def test_transform_with_missing_value_in_categorical_column(self):
        """feature_column_v2_test.py::IndicatorColumnTest.test_transform_with_missing_value_in_categorical_column"""
        ids = fc.categorical_column_with_vocabulary_list(key="ids", vocabulary_list=("a", "b", "c"))
        self.assertAllEqual(
            [[0.0, 1.0, 1.0]],
            _transform({"ids": [["c", "b", "unknown"]]}, fc.indicator_column(ids)),
        )

    def test_linear_model(self):
        """feature_column_v2_test.py::IndicatorColumnTest.test_old_linear_model"""
        animal = fc.indicator_column(fc.categorical_column_with_identity("animal", num_buckets=4))
        features = {"animal": sparse_rows([[0, 0], [0, 1]], [1, 2], [1, 2])}
        model, predictions = _linear(features, [animal])
        self.assertAllClose(
            [[0.0], [0.0], [0.0], [0.0]], model.checkpoint_children()["animal_indicator/weights"]
        )
        self.assertAllClose([[0.0]], predictions)
        assign(model, "animal_indicator/weights", [[1.0], [2.0], [3.0], [4.0]])
        self.assertAllClose([[2.0 + 3.0]], model(features))

    def test_input_layer(self):
        """feature_column_v2_test.py::IndicatorColumnTest.test_input_layer"""
        animal = fc.indicator_column(fc.categorical_column_with_identity("animal", num_buckets=4))
        features = {"animal": sparse_rows([[0, 0], [0, 1]], [1, 2], [1, 2])}
        self.assertAllClose([[0.0, 1.0, 1.0, 0.0]], fc.input_layer(features, [animal]))
