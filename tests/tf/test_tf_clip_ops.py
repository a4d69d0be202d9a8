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
"""Port of tensorflow/python/kernel_tests/clip_ops_test.py (graph mode -> eager)."""

import numpy as np
import pytest
from tf_port import assert_all_close, const, indexed_slices

import colonnade as cn
from colonnade.core import IndexedRows, Variable

clip_by_value = cn.core.clip_by_value
clip_by_norm = cn.core.clip_by_norm
clip_by_average_norm = cn.core.clip_by_average_norm
clip_by_global_norm = cn.core.clip_by_global_norm

INT_AND_FLOAT_DTYPES = [
    np.float16, np.float32, np.float64, np.int16, np.int32, np.int64, np.uint8
]  # fmt: skip


def compute_gradient_error(x0, fn, delta=1e-3):
    """TF's ``gradient_checker.compute_gradient_error``: the largest difference between
    the Jacobian of ``fn`` at ``x0`` from autodiff and from central differences."""
    x0 = np.asarray(x0, np.float64)
    n = x0.size
    analytic = np.zeros((n, n))
    for j in range(n):
        x = Variable(x0.copy(), dtype=np.float64)
        weights = np.zeros(n)
        weights[j] = 1.0
        (grad,) = cn.core.gradients([cn.core.sum(fn(x) * weights)], [x])
        analytic[:, j] = np.asarray(grad).reshape(-1)
    numeric = np.zeros((n, n))
    for i in range(n):
        step = np.zeros(n)
        step[i] = delta
        plus = np.asarray(fn(Variable(x0 + step, dtype=np.float64)).numpy()).reshape(-1)
        minus = np.asarray(fn(Variable(x0 - step, dtype=np.float64)).numpy()).reshape(-1)
        numeric[i] = (plus - minus) / (2 * delta)
    return float(np.max(np.abs(analytic - numeric)))


def test_clip_by_value_gradient():
    """clip_ops_test.py ClipTest.testClipByValueGradient"""
    inputs = [1.0, 2.0, 3.0, 4.0]
    min_val = const([0.5, 0.5, 0.5, 0.5], np.float64)
    max_val = const([3.5, 3.5, 3.5, 3.5], np.float64)
    error_1 = compute_gradient_error(inputs, lambda x: clip_by_value(x, 0.5, 3.5))
    assert error_1 < 1e-4
    error_2 = compute_gradient_error(inputs, lambda x: clip_by_value(x, min_val, max_val))
    assert error_2 < 1e-4


def test_clip_by_value():
    """clip_ops_test.py ClipTest.testClipByValue"""
    x = const([-5.0, 2.0, 3.0, 4.0, 5.0, 6.0]).reshape([2, 3])
    np_ans = [[-4.4, 2.0, 3.0], [4.0, 4.4, 4.4]]
    clip_value = 4.4
    assert_all_close(np_ans, clip_by_value(x, -clip_value, clip_value))


@pytest.mark.parametrize("dtype", INT_AND_FLOAT_DTYPES)
def test_clip_by_value_0_type(dtype):
    """clip_ops_test.py ClipTest.testClipByValue0Type"""
    x = const([1, 2, 3, 4, 5, 6], dtype).reshape([2, 3])
    assert_all_close([[2, 2, 3], [4, 4, 4]], clip_by_value(x, 2, 4))


@pytest.mark.parametrize("dtype", INT_AND_FLOAT_DTYPES)
def test_clip_by_value_1_type(dtype):
    """clip_ops_test.py ClipTest.testClipByValue1Type"""
    x = const([1, 2, 3, 4, 5, 6], dtype).reshape([2, 3])
    clip_value_min = const([2, 2, 2, 3, 3, 3], dtype).reshape([2, 3])
    assert_all_close([[2, 2, 3], [4, 4, 4]], clip_by_value(x, clip_value_min, 4))


@pytest.mark.parametrize("dtype", INT_AND_FLOAT_DTYPES)
def test_clip_by_value_2_type(dtype):
    """clip_ops_test.py ClipTest.testClipByValue2Type"""
    x = const([1, 2, 3, 4, 5, 6], dtype).reshape([2, 3])
    clip_value_max = const([6, 6, 6, 6, 6, 6], dtype).reshape([2, 3])
    assert_all_close([[4, 4, 4], [4, 5, 6]], clip_by_value(x, 4, clip_value_max))


@pytest.mark.parametrize("dtype", INT_AND_FLOAT_DTYPES)
def test_clip_by_value_3_type(dtype):
    """clip_ops_test.py ClipTest.testClipByValue3Type"""
    x = const([1, 2, 3, 4, 5, 6], dtype).reshape([2, 3])
    clip_value_min = const([2, 2, 2, 5, 5, 5], dtype).reshape([2, 3])
    clip_value_max = const([5, 5, 5, 7, 7, 7], dtype).reshape([2, 3])
    assert_all_close([[2, 2, 3], [5, 5, 6]], clip_by_value(x, clip_value_min, clip_value_max))


def test_clip_by_value_bad_shape():
    """clip_ops_test.py ClipTest.testClipByValueBadShape"""
    x = const([-5.0, 2.0, 3.0, 4.0, 5.0, 6.0]).reshape([2, 3, 1])
    clip = const([1.0, 2.0])
    with pytest.raises(ValueError):
        clip_by_value(x, -clip, clip)
    with pytest.raises(ValueError):
        clip_by_value(x, 1.0, clip)


def test_clip_by_value_non_finite():
    """clip_ops_test.py ClipTest.testClipByValueNonFinite"""
    x = const([float("NaN"), float("Inf"), -float("Inf")])
    np_ans = [float("NaN"), 4.0, -4.0]
    assert_all_close(np_ans, clip_by_value(x, -4.0, 4.0))


def _check_clip_indexed_slices_by_value(
    values, indices, shape, clip_value_min, clip_value_max, expected
):
    slices = indexed_slices(const(values), indices, shape)
    clipped = clip_by_value(slices, clip_value_min, clip_value_max)
    assert isinstance(clipped, IndexedRows)
    assert_all_close(clipped.values, expected)


def test_clip_by_value_with_indexed_slices_clipped():
    """clip_ops_test.py ClipTest.testClipByValueWithIndexedSlicesClipped"""
    values = [[[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]], [[0.0, 2.0, 0.0], [0.0, 0.0, -1.0]]]
    indices = [2, 6]
    shape = [10, 2, 3]
    _check_clip_indexed_slices_by_value(
        values, indices, shape, -2.0, 2.0,
        [[[-2.0, 0.0, 0.0], [2.0, 0.0, 0.0]], [[0.0, 2.0, 0.0], [0.0, 0.0, -1.0]]],
    )  # fmt: skip
    _check_clip_indexed_slices_by_value(
        values, indices, shape, 1.0, 2.0,
        [[[1.0, 1.0, 1.0], [2.0, 1.0, 1.0]], [[1.0, 2.0, 1.0], [1.0, 1.0, 1.0]]],
    )  # fmt: skip
    _check_clip_indexed_slices_by_value(
        values, indices, shape, -2.0, -1.0,
        [[[-2.0, -1.0, -1.0], [-1.0, -1.0, -1.0]], [[-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]]],
    )  # fmt: skip


X_23 = [-3.0, 0.0, 0.0, 4.0, 0.0, 0.0]


def test_clip_by_norm_clipped():
    """clip_ops_test.py ClipTest.testClipByNormClipped (an array, then a Tensor)"""
    x = const(X_23).reshape([2, 3])
    np_ans = [[-2.4, 0.0, 0.0], [3.2, 0.0, 0.0]]
    assert_all_close(np_ans, clip_by_norm(x, 4.0))
    assert_all_close(np_ans, clip_by_norm(cn.core.as_tensor(x), 4.0))


def test_clip_by_norm_gradient_zeros():
    """clip_ops_test.py ClipTest.testClipByNormGradientZeros"""
    x = Variable(np.zeros([3], np.float32))
    b = clip_by_norm(x, 1.0)
    (grad,) = cn.core.gradients([b], [x])
    np.testing.assert_array_equal(grad, [1.0, 1.0, 1.0])


def test_clip_by_norm_bad_shape():
    """clip_ops_test.py ClipTest.testClipByNormBadShape"""
    x = const(X_23).reshape([2, 3, 1])
    clip = const([1.0, 2.0])
    with pytest.raises(ValueError):
        clip_by_norm(x, clip)


@pytest.mark.parametrize(
    ("data", "clip_norm", "axes", "np_ans"),
    [
        (X_23, 6.0, None, [[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]]),
        ([0.0] * 6, 6.0, None, [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
        ([-3.0, 0.0, 0.0, 4.0, 0.0, 3.0], 4.0, [0], [[-2.4, 0.0, 0.0], [3.2, 0.0, 3.0]]),
        ([-3.0, 0.0, 0.0, 4.0, 0.0, 3.0], 4.0, [1], [[-3.0, 0.0, 0.0], [3.2, 0.0, 2.4]]),
        ([-3.0, 0.0, 0.0, 4.0, 0.0, 3.0], 6.0, [1], [[-3.0, 0.0, 0.0], [4.0, 0.0, 3.0]]),
    ],
    ids=["NotClipped", "Zero", "ClippedWithDim0", "ClippedWithDim1", "NotClippedWithAxes"],
)
def test_clip_by_norm_cases(data, clip_norm, axes, np_ans):
    """clip_ops_test.py ClipTest.testClipByNormNotClipped / testClipByNormZero /
    testClipByNormClippedWithDim0 / testClipByNormClippedWithDim1 /
    testClipByNormNotClippedWithAxes"""
    x = const(data).reshape([2, 3])
    assert_all_close(np_ans, clip_by_norm(x, clip_norm, axes))


X0 = [-2.0, 0.0, 0.0, 4.0, 0.0, 0.0]


@pytest.mark.parametrize("clip_norm", [4.0, const(4.0)], ids=["Clipped", "ClippedTensor"])
def test_clip_by_global_norm_clipped(clip_norm):
    """clip_ops_test.py ClipTest.testClipByGlobalNormClipped / ...ClippedTensor"""
    x0, x1 = const(X0).reshape([2, 3]), const([1.0, -2.0])
    ans, norm = clip_by_global_norm((x0, x1), clip_norm)
    assert_all_close(norm, 5.0)
    assert_all_close([[-1.6, 0.0, 0.0], [3.2, 0.0, 0.0]], ans[0])
    assert_all_close([0.8, -1.6], ans[1])


def test_clip_by_global_norm_supports_none():
    """clip_ops_test.py ClipTest.testClipByGlobalNormSupportsNone"""
    x0, x1 = const(X0).reshape([2, 3]), const([1.0, -2.0])
    ans, norm = clip_by_global_norm((x0, None, x1, None), 4.0)
    assert ans[1] is None and ans[3] is None
    assert_all_close(norm, 5.0)
    assert_all_close([[-1.6, 0.0, 0.0], [3.2, 0.0, 0.0]], ans[0])
    assert_all_close([0.8, -1.6], ans[2])


def test_clip_by_global_norm_with_indexed_slices_clipped():
    """clip_ops_test.py ClipTest.testClipByGlobalNormWithIndexedSlicesClipped (TF's
    IndexedSlices has no dense_shape there; ours is given one)"""
    x0 = const(X0).reshape([2, 3])
    x1 = indexed_slices(const([1.0, -2.0]), [3, 4], [5])
    ans, norm = clip_by_global_norm([x0, x1], 4.0)
    assert_all_close(norm, 5.0)
    assert_all_close([[-1.6, 0.0, 0.0], [3.2, 0.0, 0.0]], ans[0])
    assert_all_close([0.8, -1.6], ans[1].values)


def test_clip_by_global_norm_preserves_dense_shape():
    """clip_ops_test.py ClipTest.testClipByGlobalNormPreservesDenseShape"""
    dense_shape = (1,)
    slices = indexed_slices(const([1.0]), [0], dense_shape)
    ans, _ = clip_by_global_norm([slices], 1.0)
    assert tuple(slices.dense_shape) == dense_shape
    assert tuple(ans[0].dense_shape) == dense_shape


def test_clip_by_global_norm_not_clipped():
    """clip_ops_test.py ClipTest.testClipByGlobalNormNotClipped"""
    x0, x1 = const(X0).reshape([2, 3]), const([1.0, -2.0])
    ans, norm = clip_by_global_norm([x0, x1], 6.0)
    assert_all_close(norm, 5.0)
    assert_all_close([[-2.0, 0.0, 0.0], [4.0, 0.0, 0.0]], ans[0])
    assert_all_close([1.0, -2.0], ans[1])


def test_clip_by_global_norm_zero():
    """clip_ops_test.py ClipTest.testClipByGlobalNormZero"""
    x0, x1 = const([0.0] * 6).reshape([2, 3]), const([0.0, 0.0])
    ans, norm = clip_by_global_norm([x0, x1], 6.0)
    assert_all_close(norm, 0.0)
    assert_all_close([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], ans[0])
    assert_all_close([0.0, 0.0], ans[1])


def test_clip_by_global_norm_inf():
    """clip_ops_test.py ClipTest.testClipByGlobalNormInf"""
    x0 = const([-2.0, 0.0, np.inf, 4.0, 0.0, 0.0]).reshape([2, 3])
    x1 = const([1.0, -2.0])
    ans, norm = clip_by_global_norm([x0, x1], 6.0)
    np.testing.assert_array_equal(norm, float("inf"))
    np.testing.assert_array_equal(ans[0], np.full([2, 3], float("nan")))
    np.testing.assert_array_equal(ans[1], np.full([2], float("nan")))


@pytest.mark.parametrize(
    ("clip_norm", "np_ans"),
    [
        (0.8, [[-2.88, 0.0, 0.0], [3.84, 0.0, 0.0]]),
        (const(0.8), [[-2.88, 0.0, 0.0], [3.84, 0.0, 0.0]]),
        (0.9, [[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]]),
    ],
    ids=["Clipped", "ClippedTensor", "NotClipped"],
)
def test_clip_by_average_norm(clip_norm, np_ans):
    """clip_ops_test.py ClipTest.testClipByAverageNormClipped / ...ClippedTensor /
    ...NotClipped"""
    x = const(X_23).reshape([2, 3])
    assert_all_close(np_ans, clip_by_average_norm(x, clip_norm))


def test_clip_by_average_norm_zero():
    """clip_ops_test.py ClipTest.testClipByAverageNormZero"""
    x = const([0.0] * 6).reshape([2, 3])
    assert_all_close([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], clip_by_average_norm(x, 0.9))


def test_clip_by_average_norm_replaced_with_clip_by_norm():
    """clip_ops_test.py ClipTest.testClipByAverageNormReplacedWithClipByNorm"""
    x = const(X_23).reshape([2, 3])
    clip_norm = const(0.8)
    with_norm = clip_by_average_norm(x, clip_norm)
    without_norm = clip_by_norm(x, clip_norm * np.float32(x.size))
    assert_all_close(with_norm, without_norm)


def test_clip_by_value_empty_tensor():
    """clip_ops_test.py ClipTest.testClipByValueEmptyTensor"""
    zero = np.zeros((7, 0), np.float32)
    clip_by_value(zero, zero, zero)
    clip_by_value(zero, 1.0, 1.0)
    clip_by_value(zero, zero, 1.0)
    clip_by_value(zero, 1.0, zero)
