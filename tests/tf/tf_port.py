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

import colonnade as cn
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


def embedding_matmul_loss(var0, dtype, bias=None):
    """The loss of TF's ``testMinimizeSparseResourceVariable``: ``pred * pred`` with
    ``pred = embedding_lookup([var0], [0]) @ [[4], [5]] (+ bias)``."""

    def loss():
        x = const([[4.0], [5.0]], dtype)
        pred = cn.core.matmul(cn.nn.embedding_lookup(var0, [0]), x)
        if bias is not None:
            pred = pred + bias
        return pred * pred

    return loss


def apply_optimizer(opt, steps=5, is_sparse=False, dtype=FLOAT, init=((1.0, 2.0), (3.0, 4.0))):
    """TF's ``applyOptimizer`` helper: ``steps`` updates of two variables (initial values
    ``init``; dense, or as columns with one-row sparse gradients); their final values."""
    if is_sparse:
        var0, var1 = (var([[a], [b]], dtype) for a, b in init)
        grads0 = indexed_slices(const([[0.1]], dtype), [0], [2, 1])
        grads1 = indexed_slices(const([[0.02]], dtype), [1], [2, 1])
    else:
        var0, var1 = (var(list(v), dtype) for v in init)
        grads0, grads1 = const([0.1, 0.2], dtype), const([0.01, 0.02], dtype)
    for _ in range(steps):
        opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
    return var0.numpy(), var1.numpy()


def check_sparse_repeated_indices(make_optimizer, dtype) -> None:
    """TF's ``testSparseRepeatedIndices``: a sparse gradient that repeats a row updates as
    one that sums the repeats, over three steps."""
    repeated_index_update_var = var([[1.0], [2.0]], dtype)
    aggregated_update_var = var([[1.0], [2.0]], dtype)
    grad_repeated_index = indexed_slices(const([[0.1], [0.1]], dtype), [1, 1], [2, 1])
    grad_aggregated = indexed_slices(const([[0.2]], dtype), [1], [2, 1])
    repeated, aggregated = make_optimizer(), make_optimizer()
    assert_all_close(aggregated_update_var, repeated_index_update_var)
    for _ in range(3):
        repeated.apply_gradients([(grad_repeated_index, repeated_index_update_var)])
        aggregated.apply_gradients([(grad_aggregated, aggregated_update_var)])
        assert_all_close(aggregated_update_var, repeated_index_update_var)


def run_two_variables(opt, var0_init, var1_init, steps, dtype=FLOAT):
    """The loop of TF's L1/L2 optimizer tests: variables at ``var0_init``/``var1_init``
    (checked), ``steps`` updates with gradients [0.1, 0.2] and [0.01, 0.02]; the
    variables after."""
    var0, var1 = var(var0_init, dtype), var(var1_init, dtype)
    grads0, grads1 = const([0.1, 0.2], dtype), const([0.01, 0.02], dtype)
    assert_all_close_according_to_type(var0_init, var0)
    assert_all_close_according_to_type(var1_init, var1)
    for _ in range(steps):
        opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
    return var0, var1
