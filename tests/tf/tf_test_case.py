"""A ``tf.test.TestCase`` stand-in so ported TensorFlow tests keep their bodies.

TF's tests assert with ``assertAllClose`` / ``assertAllEqual`` (nested structures,
``rtol=atol=1e-6`` by default) and read values through ``self.evaluate``; these do the
same over numpy, so a ported test differs from TF's only where graphs and sessions were.
"""

from __future__ import annotations

import unittest

import numpy as np


def as_numpy(value):
    """``value`` (a tensor, array, metric, scalar or nested dict/list of those) as numpy."""
    if isinstance(value, dict):
        return {k: as_numpy(v) for k, v in value.items()}
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    if hasattr(value, "value") and not isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value.value)
    return value


class TFTestCase(unittest.TestCase):
    """``tf.test.TestCase``'s assertions, eager only."""

    def evaluate(self, value):
        """The numpy value of ``value`` (TF's ``self.evaluate`` in eager mode)."""
        return as_numpy(value)

    def assertAllClose(self, expected, actual, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        expected, actual = as_numpy(expected), as_numpy(actual)
        if isinstance(expected, dict):
            self.assertEqual(sorted(expected), sorted(actual), msg)
            for key in expected:
                self.assertAllClose(expected[key], actual[key], rtol, atol, msg=f"key {key!r}")
            return
        np.testing.assert_allclose(
            np.asarray(actual, dtype=np.float64),
            np.asarray(expected, dtype=np.float64),
            rtol=rtol,
            atol=atol,
            err_msg=msg or "",
        )

    def assertAllEqual(self, expected, actual, msg=None):  # noqa: N802
        try:
            expected, actual = np.asarray(as_numpy(expected)), np.asarray(as_numpy(actual))
        except ValueError:  # ragged lists: compare them as lists
            self.assertEqual(_lists(expected), _lists(actual), msg)
            return
        if expected.dtype.kind == "S" or actual.dtype.kind in "SO":
            expected = np.vectorize(_text, otypes=[object])(expected) if expected.size else expected
            actual = np.vectorize(_text, otypes=[object])(actual) if actual.size else actual
        self.assertEqual(expected.shape, actual.shape, msg)
        np.testing.assert_array_equal(actual, expected, err_msg=msg or "")

    def assertItemsEqual(self, expected, actual, msg=None):  # noqa: N802
        self.assertCountEqual(list(expected), list(actual), msg)

    assertRaisesRegexp = unittest.TestCase.assertRaisesRegex  # noqa: N815

    def assertLen(self, container, expected_len, msg=None):  # noqa: N802
        self.assertEqual(len(container), expected_len, msg)

    def assert_sparse_equal(self, expected, ids):
        """TF's ``_assert_sparse_tensor_value``: ``ids`` (``CategoricalIds``) as TF's
        ``(indices, values, dense_shape)``."""
        for want, got in zip(expected, as_sparse(ids)):
            self.assertAllEqual(want, got)

    def assert_loss_fn_refused(self, make_head, loss_fn, pattern):
        """TF's test_loss_fn_arg_*: a head refuses ``loss_fn`` with a ValueError."""
        with self.assertRaisesRegex(ValueError, pattern):
            make_head(loss_fn=loss_fn)

    def assert_invalid_loss_reduction(self, make_head):
        """TF's test_invalid_loss_reduction of every head."""
        import colonnade as cn

        with self.assertRaisesRegex(ValueError, r"Invalid loss_reduction: invalid_loss_reduction"):
            make_head(loss_reduction="invalid_loss_reduction")
        with self.assertRaisesRegex(ValueError, r"Invalid loss_reduction: none"):
            make_head(loss_reduction=cn.core.Reduction.NONE)

    def assert_batch_size_mismatch(self, layer_fn):
        """TF's test_static_batch_size_mismatch of ``linear_model`` and ``input_layer``."""
        import colonnade as cn

        price1 = cn.feature_columns.numeric_column("price1")
        price2 = cn.feature_columns.numeric_column("price2")
        features = {"price1": [[1.0], [5.0], [7.0]], "price2": [[3.0], [4.0]]}
        pattern = r"Batch size \(first dimension\) of each feature must be same."
        with self.assertRaisesRegex(ValueError, pattern):
            layer_fn(features, [price1, price2])


def parameters(*cases):
    """absl's ``parameterized.parameters``: the test runs once per case (a dict of keyword
    arguments or a tuple of positional ones); :func:`expand_parameters` names the runs
    ``<name>0``, ``<name>1``, ... as absl does."""

    def mark(method):
        method.tf_parameters = cases
        return method

    return mark


def expand_parameters(cls):
    """Class decorator: one test method per case of each ``@parameters`` method."""
    for name, method in list(vars(cls).items()):
        cases = getattr(method, "tf_parameters", None)
        if cases is None:
            continue
        delattr(cls, name)
        for index, case in enumerate(cases):

            def run(self, method=method, case=case):
                return method(self, **case) if isinstance(case, dict) else method(self, *case)

            run.__name__ = f"{name}{index}"
            run.__doc__ = method.__doc__
            setattr(cls, run.__name__, run)
    return cls


def _lists(value):
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_lists(v) for v in value]
    return _text(value.item() if isinstance(value, np.generic) else value)


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def sparse_rows(indices, values, dense_shape):
    """TF's 2-D ``SparseTensor(indices, values, dense_shape)`` as one list per row: the
    ragged (Arrow list) form colonnade reads."""
    rows = [[] for _ in range(int(dense_shape[0]))]
    for (row, _), value in sorted(zip((tuple(i) for i in indices), values), key=lambda p: p[0]):
        rows[row].append(value)
    return rows


def as_sparse(ids):
    """``CategoricalIds`` as TF's ``(indices, values, dense_shape)`` of its id tensor."""
    lists = ids.to_lists()
    indices = [(r, j) for r, row in enumerate(lists) for j in range(len(row))]
    values = [v for row in lists for v in row]
    width = max((len(row) for row in lists), default=0)
    return indices, values, (len(lists), width)


def example_bytes(features: dict) -> bytes:
    """One serialized ``tf.Example`` of ``features`` (name -> list of values): TF's
    ``example_pb2.Example(...).SerializeToString()`` in the ported tests."""
    import pyarrow as pa

    from colonnade.data.example_writer import encode_examples

    return encode_examples(pa.RecordBatch.from_pydict({k: [v] for k, v in features.items()}))[0]


def assign(layer, name, value):
    """Set the layer's variable ``name`` (TF's ``var.assign(value)``)."""
    layer.checkpoint_children()[name].assign(np.asarray(value, dtype=np.float32))


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def bytes_feature(values) -> bytes:
    """TF's ``feature(bytes_list=BytesList(value=values))``, serialized."""
    return _field(1, b"".join(_field(1, v if isinstance(v, bytes) else v.encode()) for v in values))


def float_feature(values) -> bytes:
    """TF's ``feature(float_list=FloatList(value=values))``, serialized (packed)."""
    return _field(2, _field(1, np.asarray(values, "<f4").tobytes()) if len(values) else b"")


def int64_feature(values) -> bytes:
    """TF's ``feature(int64_list=Int64List(value=values))``, serialized (packed)."""
    packed = b"".join(_varint(int(v)) for v in values)
    return _field(3, _field(1, packed) if len(values) else b"")


def example(features: dict | None = None) -> bytes:
    """TF's ``example(features=features({name: feature}))``, serialized; a feature is one
    of the ``*_feature`` values above, or ``b""`` for TF's empty ``feature()``."""
    entries = b"".join(
        _field(1, _field(1, name.encode()) + _field(2, value))
        for name, value in (features or {}).items()
    )
    return _field(1, entries) if features is not None else b""


def sparse_of(column) -> tuple:
    """A parsed list column (or ``SparseFeature`` struct column) as TF's
    ``(indices, values, dense_shape)`` of the ``SparseTensor`` TF's parser returns."""
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_struct(column.type):
        names = [column.type.field(i).name for i in range(column.type.num_fields)]
        parts = [column.field(i) for i in range(len(names))]
        rows = np.repeat(np.arange(len(column)), np.diff(parts[-1].offsets.to_numpy()))
        idx = [p.flatten().to_numpy(zero_copy_only=False) for p in parts[:-1]]
        indices = np.stack([rows, *idx], axis=1) if rows.size else np.empty((0, 1 + len(idx)))
        return indices, parts[-1].flatten().to_numpy(zero_copy_only=False), None
    lengths = np.diff(column.offsets.to_numpy())
    rows = np.repeat(np.arange(len(column)), lengths)
    within = np.arange(rows.size) - np.repeat(column.offsets.to_numpy()[:-1], lengths)
    indices = np.stack([rows, within], axis=1) if rows.size else np.empty((0, 2), np.int64)
    width = int(lengths.max()) if lengths.size else 0
    return indices, column.flatten().to_numpy(zero_copy_only=False), (len(column), width)


def save_variables_to_ckpt(model_dir, variables: dict) -> None:
    """TF's ``save_variables_to_ckpt`` of the canned-estimator tests: ``variables`` (TF
    name -> value; ``global_step`` an int64) written as TF's ``Saver`` would, a tensor
    bundle ``model_dir/model.ckpt`` and the ``checkpoint`` state file naming it."""
    import os

    from colonnade.core.checkpoint_state import update_checkpoint_state
    from colonnade.core.tf_bundle_writer import write_tf_bundle

    tensors = {
        name: np.asarray(v, np.int64 if name == "global_step" else np.float32)
        for name, v in variables.items()
    }
    prefix = os.path.join(model_dir, "model.ckpt")
    write_tf_bundle(prefix, tensors)
    update_checkpoint_state(model_dir, prefix)
