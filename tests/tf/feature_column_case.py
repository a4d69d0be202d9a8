"""What the ports of TF's feature_column_v2_test.py share (tests/tf/test_tf_feature_column_v2*.py).

Translation rules, besides test_tf_feature_column_v2.py's: TF's
``column.parse_example_spec`` is ``column.parse_spec()`` with ``VarLenFeature(dtypes.X)`` a
``pa.list_`` of X (``var_len``), ``column.get_dense_tensor(cache, state_manager)`` of a dense
column is a one-column ``DenseFeatures`` (``dense``), ``fc_old.InputLayer`` is
``DenseFeatures``, and a graph placeholder is the value fed to it.
"""

import numpy as np
import pyarrow as pa
from tf_test_case import example_bytes, sparse_of, sparse_rows

import colonnade as cn

fc = cn.feature_columns


def transform(features, column):
    """TF's ``_transform_features_v2(features, [column], None)[column]``."""
    return fc.transform_features(features, [column])[column.name]


def var_len(arrow_type):
    """TF's ``VarLenFeature(dtype)``: a list of ``arrow_type`` values."""
    return pa.list_(arrow_type)


def dense(column, features):
    """TF's ``column.get_dense_tensor(FeatureTransformationCache(features), state_manager)``."""
    return fc.DenseFeatures([column])(features)


def parsed(features_list, columns):
    """TF's ``parse_example`` of one ``Example`` per dict of ``features_list``, with
    ``make_parse_example_spec_v2(columns)``."""
    return cn.io.parse_example(
        [example_bytes(f) for f in features_list], fc.make_parse_example_spec(columns)
    )


def assert_parsed(test, expected, column):
    """TF's ``_assert_sparse_tensor_value(test, expected, parsed feature)``."""
    for want, got in zip(expected, sparse_of(column)):
        test.assertAllEqual(want, got)


def values_initializer(test, values, shape):
    """TF's ``_initializer(shape, dtype, partition_info=None)`` of the embedding tests:
    checks what it is called with and returns ``values``."""

    def _initializer(shape_, dtype, partition_info=None):
        test.assertAllEqual(shape, shape_)
        test.assertEqual("float32", dtype)
        test.assertIsNone(partition_info)
        return values

    return _initializer


def identity_pair(num_buckets=3):
    """The identity columns 'aaa' and 'bbb' of the shared-embedding tests."""
    return (
        fc.categorical_column_with_identity(key="aaa", num_buckets=num_buckets),
        fc.categorical_column_with_identity(key="bbb", num_buckets=num_buckets),
    )


def assert_categorical(test, column, key, num_buckets, value_type):
    """TF's checks of a categorical column's name, key, num_buckets and parse spec (a
    ``VarLenFeature`` of ``value_type``)."""
    test.assertEqual(key, column.name)
    test.assertEqual(key, column.key)
    test.assertEqual(num_buckets, column.num_buckets)
    test.assertEqual({key: var_len(value_type)}, column.parse_spec())


def batch_size_matches(layer_fn):
    """TF's test_runtime_batch_size_matches of ``linear_model`` and ``input_layer``: two
    features of batch size 2; the output's shape."""
    price1 = fc.numeric_column("price1")
    price2 = fc.numeric_column("price2")
    features = {"price1": [[1.0], [5.0]], "price2": [[1.0], [5.0]]}
    return tuple(layer_fn(features, [price1, price2]).shape)


def fixed_initializer(values):
    """TF's ``_initializer(shape, dtype, partition_info=None)`` that ignores its arguments
    and returns ``values``."""

    def _initializer(shape, dtype, partition_info=None):
        del shape, dtype, partition_info
        return values

    return _initializer


def car_columns():
    """The columns of TF's ``test_with_1d_*sparse_tensor`` tests: numeric 'price', and
    vocabulary lists 'body-style' and 'country'."""
    price = fc.numeric_column("price")
    body_style = fc.categorical_column_with_vocabulary_list(
        "body-style", vocabulary_list=["hardtop", "wagon", "sedan"]
    )
    country = fc.categorical_column_with_vocabulary_list(
        "country", vocabulary_list=["US", "JP", "CA"]
    )
    return price, body_style, country


def assert_shape_mismatch(test, layer_fn):
    """TF's test_raises_if_shape_mismatch of ``linear_model`` and ``input_layer``: a feature
    of one value where the column's shape says two."""
    price = fc.numeric_column("price", shape=2)
    pattern = r"Cannot reshape a tensor with 2 elements to shape \[2,2\]"
    with test.assertRaisesRegex(Exception, pattern):
        layer_fn({"price": [[1.0], [5.0]]}, [price])


WIRE_INPUT = sparse_rows(((0, 0), (1, 0), (1, 1)), ("marlo", "skywalker", "omar"), (2, 2))


def assert_wire_linear_model(test, wire_column):
    """TF's test_old_linear_model of the vocabulary columns: omar, stringer, marlo and one
    OOV bucket, zero-initialized, then weights 1..4."""
    test.assertEqual(4, wire_column.num_buckets)
    model = fc.LinearModel((wire_column,))
    predictions = model({wire_column.name: WIRE_INPUT})
    test.assertAllClose((0.0,), model.bias)
    test.assertAllClose(((0.0,), (0.0,), (0.0,), (0.0,)), model.column_weights(wire_column))
    test.assertAllClose(((0.0,), (0.0,)), predictions)
    model.column_weights(wire_column).assign(np.array(((1.0,), (2.0,), (3.0,), (4.0,)), "f4"))
    # 'marlo' -> 2: wire_var[2] = 3
    # 'skywalker' -> 3, 'omar' -> 0: wire_var[3] + wire_var[0] = 4+1 = 5
    test.assertAllClose(((3.0,), (5.0,)), model({wire_column.name: WIRE_INPUT}))
