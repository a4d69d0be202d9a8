"""A serving receiver's rank-3 features keep their shape in a model_fn (issue 40): the
features table records each such column's row shape in its field metadata, and the
model_fn gets ``(batch, 3, 2)``, as TF hands it a ``[None, 3, 2]`` placeholder's tensor.
Elsewhere (``from_tensor_slices``) a row stays its flat values, as before. The reference
is the numpy array the table was built from."""

import json

import numpy as np
import pyarrow as pa

from colonnade.data.tensor_slices import ROW_SHAPE_KEY, row_shape, table_from_columns
from colonnade.estimators.spec.model_fn import features_dict


def test_a_rank_3_column_records_its_row_shape_and_a_model_fn_gets_it_back():
    cube = np.arange(24, dtype=np.int32).reshape(4, 3, 2)
    table = table_from_columns({"t": cube, "v": np.zeros(4)}, "test", keep_row_shape=True)
    field = table.schema.field("t")
    assert json.loads(field.metadata[ROW_SHAPE_KEY]) == [3, 2]
    assert row_shape(field) == (3, 2) and row_shape(table.schema.field("v")) is None
    assert table.column("t").to_pylist() == [row.ravel().tolist() for row in cube]
    features = features_dict(table.to_batches()[0])
    np.testing.assert_array_equal(features["t"], cube)
    nested = [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]  # nested lists: the same
    listed = table_from_columns({"t": nested}, "test", keep_row_shape=True)
    np.testing.assert_array_equal(features_dict(listed)["t"], np.array(nested))


def test_without_keep_row_shape_or_for_a_ragged_column_a_row_stays_flat():
    cube = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    table = table_from_columns({"t": cube}, "test")
    assert table.schema.field("t").metadata is None
    assert features_dict(table)["t"].shape == (4, 6)
    ragged = table_from_columns({"t": [[[1], [2, 3]], [[4]]]}, "test", keep_row_shape=True)
    assert ragged.schema.field("t").metadata is None


def test_a_row_shape_that_does_not_fit_its_list_is_not_used():
    values = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(12, dtype=np.int64)), 6)
    for shape in (b"[4, 2]", b"[3, -2]", b"not json", b'"3x2"'):
        field = pa.field("t", values.type, metadata={ROW_SHAPE_KEY: shape})
        assert row_shape(field) is None, shape
        table = pa.Table.from_arrays([values], schema=pa.schema([field]))
        assert features_dict(table)["t"].shape == (2, 6)
