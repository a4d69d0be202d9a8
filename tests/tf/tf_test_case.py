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
