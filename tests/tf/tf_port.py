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
"""What TF's ``test.TestCase`` gives its optimizer tests, for the ports in tests/tf/.

``assert_all_close_according_to_type`` is TF's ``assertAllCloseAccordingToType``: the
given tolerances, widened to 1e-6 for float32 and to 1e-3 for float16, checked as
``|expected - actual| <= atol + rtol * |actual|``.
"""

import numpy as np

from colonnade.core import IndexedRows, Variable

HALF, FLOAT, DOUBLE = np.float16, np.float32, np.float64
ALL_FLOATS = [HALF, FLOAT, DOUBLE]


def value(x) -> np.ndarray:
    """The host numpy value of a Variable, Tensor or array."""
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def assert_all_close(expected, actual, rtol=1e-6, atol=1e-6) -> None:
    """TF's ``assertAllClose``."""
    np.testing.assert_allclose(
        np.asarray(value(expected), np.float64),
        np.asarray(value(actual), np.float64),
        rtol=rtol,
        atol=atol,
    )


def assert_all_close_according_to_type(
    expected, actual, rtol=1e-6, atol=1e-6, half_rtol=1e-3, half_atol=1e-3
) -> None:
    """TF's ``assertAllCloseAccordingToType``."""
    dtypes = [np.asarray(value(expected)).dtype, np.asarray(value(actual)).dtype]
    if np.dtype(np.float32) in dtypes:
        rtol, atol = max(rtol, 1e-6), max(atol, 1e-6)
    if np.dtype(np.float16) in dtypes:
        rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
    assert_all_close(expected, actual, rtol=rtol, atol=atol)


def var(values, dtype=FLOAT, name=None) -> Variable:
    """``variables.Variable(values, dtype=dtype)``."""
    return Variable(np.asarray(values, dtype), name=name, dtype=dtype)


def const(values, dtype=FLOAT) -> np.ndarray:
    """``constant_op.constant(values, dtype=dtype)``."""
    return np.asarray(values, dtype)


def indexed_slices(values, indices, dense_shape) -> IndexedRows:
    """``ops.IndexedSlices(values, indices, dense_shape)``."""
    return IndexedRows(np.asarray(indices), np.asarray(values), tuple(dense_shape))
