"""Every op's gradient against central finite differences (float64), plus forward values
against plain numpy where the formula is not obvious from the gradient check."""

import numpy as np
import pytest
from gradcheck import check_gradients
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn
from colonnade.core.indexed_rows import IndexedRows, group_rows, group_rows_by_column

C = cn.core
rng = np.random.default_rng(42)


def normal(*shape):
    return rng.normal(size=shape)


def positive(*shape):
    return rng.uniform(0.5, 2.0, size=shape)


def away_from_zero(*shape):
    x = rng.uniform(0.2, 2.0, size=shape)
    return x * rng.choice([-1.0, 1.0], size=shape)


def gather_rows(ids):
    return lambda t: C.gather(t, ids)


SEG = np.array([0, 0, 2, 1, 2, 2])
SEG_W = np.array([1.0, 2.0, 0.5, 1.5, 1.0, 3.0])

# (name, op, inputs): one line per op, broadcasting cases included.
GRADIENT_CASES = [
    ("add", C.add, [normal(3, 4), normal(3, 4)]),
    ("add_broadcast_row", C.add, [normal(3, 4), normal(4)]),
    ("add_broadcast_col", C.add, [normal(3, 1), normal(1, 4)]),
    ("subtract_broadcast", C.subtract, [normal(2, 3, 4), normal(3, 1)]),
    ("multiply_broadcast", C.multiply, [normal(3, 4), normal(1, 4)]),
    ("multiply_scalar_array", C.multiply, [normal(3, 4), normal()]),
    ("divide", C.divide, [normal(3, 4), away_from_zero(3, 4)]),
    ("divide_broadcast", C.divide, [normal(3, 4), away_from_zero(4)]),
    ("negative", C.negative, [normal(5)]),
    ("power", C.power, [positive(3, 4), normal(3, 4)]),
    ("power_broadcast", C.power, [positive(3, 4), normal(1)]),
    ("matmul", C.matmul, [normal(3, 4), normal(4, 5)]),
    ("matmul_vector", C.matmul, [normal(3, 4), normal(4)]),
    ("matmul_batched", C.matmul, [normal(2, 3, 4), normal(4, 2)]),
    ("sum_all", C.sum, [normal(3, 4)]),
    ("sum_axis0", lambda x: C.sum(x, axis=0), [normal(3, 4)]),
    ("sum_axes_keepdims", lambda x: C.sum(x, axis=(0, 2), keepdims=True), [normal(2, 3, 4)]),
    ("mean_axis1", lambda x: C.mean(x, axis=1), [normal(3, 4)]),
    ("max_axis1", lambda x: C.max(x, axis=1), [normal(3, 4)]),
    ("max_all", C.max, [normal(3, 4)]),
    ("min_axis0", lambda x: C.min(x, axis=0, keepdims=True), [normal(3, 4)]),
    ("reshape", lambda x: C.reshape(x, (4, 3)), [normal(3, 4)]),
    ("reshape_infer", lambda x: C.reshape(x, (-1,)), [normal(3, 4)]),
    ("transpose", C.transpose, [normal(3, 4)]),
    ("transpose_axes", lambda x: C.transpose(x, (1, 2, 0)), [normal(2, 3, 4)]),
    ("concat_axis1", lambda a, b: C.concat([a, b], axis=1), [normal(3, 2), normal(3, 4)]),
    ("concat_axis0", lambda a, b: C.concat([a, b], axis=0), [normal(1, 4), normal(3, 4)]),
    ("stack", lambda a, b: C.stack([a, b], axis=1), [normal(3, 2), normal(3, 2)]),
    ("slice", lambda x: x[1:3, ::2], [normal(4, 5)]),
    ("index_array_duplicates", lambda x: x[np.array([0, 2, 0])], [normal(3, 4)]),
    ("exp", C.exp, [normal(3, 4)]),
    ("log", C.log, [positive(3, 4)]),
    ("log1p", C.log1p, [positive(3, 4)]),
    ("sqrt", C.sqrt, [positive(3, 4)]),
    ("square", C.square, [normal(3, 4)]),
    ("abs", C.abs, [away_from_zero(3, 4)]),
    ("maximum", C.maximum, [normal(3, 4), normal(3, 4)]),
    ("minimum_broadcast", C.minimum, [normal(3, 4), normal(4)]),
    (
        "where",
        lambda a, b: C.where(np.arange(12).reshape(3, 4) % 3 == 0, a, b),
        [normal(3, 4), normal(3, 4)],
    ),
    (
        "where_broadcast",
        lambda a, b: C.where(np.array([True, False, True]), a, b),
        [normal(2, 3), normal(3)],
    ),
    ("relu", C.relu, [away_from_zero(3, 4)]),
    ("dense", lambda x, k, b: C.dense(x, k, b), [normal(4, 3), normal(3, 5), normal(5)]),
    (
        "dense_relu",
        lambda x, k, b: C.dense(x, k, b, relu=True),
        [normal(4, 3), normal(3, 5), normal(5)],
    ),
    ("dense_no_bias", lambda x, k: C.dense(x, k), [normal(4, 3), normal(3, 2)]),
    (
        "dense_pieces_relu",
        lambda a, b, k, c: C.dense([a, b], k, c, relu=True),
        [normal(4, 2), normal(4, 3), normal(5, 3), normal(3)],
    ),
    ("relu6", C.relu6, [away_from_zero(3, 4) * 4]),
    ("elu", C.elu, [away_from_zero(3, 4)]),
    ("leaky_relu", C.leaky_relu, [away_from_zero(3, 4)]),
    ("selu", C.selu, [away_from_zero(3, 4)]),
    ("softplus", C.softplus, [normal(3, 4) * 3]),
    ("sigmoid", C.sigmoid, [normal(3, 4) * 3]),
    ("tanh", C.tanh, [normal(3, 4)]),
    ("softmax", C.softmax, [normal(3, 5)]),
    ("softmax_axis0", lambda x: C.softmax(x, axis=0), [normal(3, 5)]),
    ("log_softmax", C.log_softmax, [normal(3, 5)]),
    ("gather", gather_rows(np.array([3, 0, 3, 1])), [normal(5, 3)]),
    ("gather_2d_ids", gather_rows(np.array([[1, 2], [2, 4]])), [normal(5, 3)]),
    ("segment_sum", lambda d: C.segment_sum(d, SEG, 4), [normal(6, 3)]),
    ("segment_sum_weighted", lambda d, w: C.segment_sum(d, SEG, 4, w), [normal(6, 3), SEG_W]),
    ("segment_mean", lambda d: C.segment_mean(d, SEG, 4), [normal(6, 3)]),
    ("segment_mean_weighted", lambda d, w: C.segment_mean(d, SEG, 4, w), [normal(6, 3), SEG_W]),
    ("segment_sqrtn", lambda d: C.segment_sqrtn(d, SEG, 4), [normal(6, 3)]),
    ("segment_sqrtn_weighted", lambda d, w: C.segment_sqrtn(d, SEG, 4, w), [normal(6, 3), SEG_W]),
    ("div_no_nan", C.div_no_nan, [normal(4), away_from_zero(4)]),
    (
        "sigmoid_xent",
        lambda x: C.sigmoid_cross_entropy_with_logits(np.array([[0.0, 1.0, 0.3]]), x),
        [normal(1, 3) * 4],
    ),
    (
        "softmax_xent",
        lambda x: C.sparse_softmax_cross_entropy_with_logits(np.array([2, 0, 1]), x),
        [normal(3, 4)],
    ),
    (
        "mse_mean",
        lambda p: C.mean_squared_error(np.ones((3, 2)), p, reduction=C.Reduction.MEAN),
        [normal(3, 2)],
    ),
    (
        "batch_normalization",
        lambda x, m, v, b, s: C.batch_normalization(x, m, v, b, s, 1e-3),
        [normal(4, 3), normal(3), positive(3), normal(3), normal(3)],
    ),
    ("dropout_fixed_mask", lambda x: C.dropout(x, 0.5, training=True, rng=7), [normal(4, 5)]),
]


@pytest.mark.parametrize("name,op,inputs", GRADIENT_CASES, ids=[c[0] for c in GRADIENT_CASES])
def test_gradient_matches_finite_differences(name, op, inputs):
    check_gradients(op, inputs)


def test_dense_equals_its_plain_formula_and_refuses_misaligned_shapes():
    x, k, b = normal(4, 3), normal(3, 5), normal(5)
    np.testing.assert_allclose(C.dense(x, k, b, relu=True).numpy(), np.maximum(x @ k + b, 0))
    pieces = C.dense([x[:, :1], x[:, 1:]], k, b, relu=True).numpy()
    np.testing.assert_allclose(pieces, np.maximum(x @ k + b, 0))
    with pytest.raises(ValueError, match=r"dense: shapes \(4, 3\) and \(4, 5\)"):
        C.dense(x, normal(4, 5))
    with pytest.raises(ValueError, match=r"dense: shapes \(4, 3\) \+ \(2, 1\)"):
        C.dense([x, normal(2, 1)], normal(4, 5))
    with pytest.raises(ValueError, match="bias of shape \\(3,\\) for 5 units"):
        C.dense(x, k, normal(3))


def test_batch_norm_training_gradient_and_moving_statistics():
    x = normal(6, 3)
    gamma, beta = positive(3), normal(3)
    mean_var = C.Variable(np.zeros(3), dtype=np.float64)
    var_var = C.Variable(np.ones(3), dtype=np.float64)

    def op(x, g, b):
        return C.batch_norm(x, g, b, mean_var, var_var, training=True)

    check_gradients(op, [x, gamma, beta], rtol=1e-4)
    mean_var.assign(np.zeros(3))
    var_var.assign(np.ones(3))
    out = op(x, gamma, beta).numpy()
    expected = gamma * (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3) + beta
    np.testing.assert_allclose(out, expected, rtol=1e-10)
    np.testing.assert_allclose(mean_var.numpy(), 0.01 * x.mean(0))
    np.testing.assert_allclose(var_var.numpy(), 0.99 + 0.01 * x.var(0))
    inference = C.batch_norm(x, gamma, beta, mean_var, var_var, training=False).numpy()
    expected = gamma * (x - mean_var.numpy()) / np.sqrt(var_var.numpy() + 1e-3) + beta
    np.testing.assert_allclose(inference, expected, rtol=1e-10)


def test_segment_combiners_match_a_plain_loop():
    data, ids, weights, n = normal(9, 2), np.array([4, 0, 0, 1, 4, 4, 1, 0, 4]), positive(9), 6
    sums, wsum, wsq = np.zeros((n, 2)), np.zeros(n), np.zeros(n)
    for row, seg, w in zip(data, ids, weights):
        sums[seg] += w * row
        wsum[seg] += w
        wsq[seg] += w * w
    mean = np.divide(sums, wsum[:, None], out=np.zeros_like(sums), where=wsum[:, None] > 0)
    sqrtn = np.divide(sums, np.sqrt(wsq)[:, None], out=np.zeros_like(sums), where=wsq[:, None] > 0)
    np.testing.assert_allclose(C.segment_sum(data, ids, n, weights).numpy(), sums)
    np.testing.assert_allclose(C.segment_mean(data, ids, n, weights).numpy(), mean)
    np.testing.assert_allclose(C.segment_sqrtn(data, ids, n, weights).numpy(), sqrtn)
    assert not C.segment_mean(data, ids, n).numpy()[[2, 3, 5]].any()  # empty segments are 0


def test_sorted_and_unsorted_segment_ids_agree():
    data = normal(7, 3)
    ids = np.array([0, 0, 1, 3, 3, 3, 5])
    perm = rng.permutation(7)
    np.testing.assert_allclose(
        C.segment_sum(data, ids, 6).numpy(), C.segment_sum(data[perm], ids[perm], 6).numpy()
    )


def test_gather_gradient_is_sparse_and_equals_dense():
    table = C.Variable(normal(10, 4), dtype=np.float64)
    ids = np.array([7, 2, 7, 7])
    r = normal(4, 4)
    (g,) = C.gradients(C.sum(C.gather(table, ids) * r), [table])
    assert isinstance(g, C.IndexedRows)
    dense = np.zeros((10, 4))
    np.add.at(dense, ids, r)
    np.testing.assert_allclose(g.to_dense(), dense)
    dedup = g.deduplicate()
    assert dedup.indices.tolist() == [2, 7]
    np.testing.assert_allclose(dedup.values, dense[[2, 7]])


def test_gather_gradient_of_a_huge_table_costs_the_batch_not_the_table():
    table = C.Variable(np.zeros((1_000_000, 16), np.float32))
    ids = rng.integers(0, 1_000_000, 4096)
    loss, (g,) = C.value_and_grad(lambda: C.sum(C.gather(table, ids)))([table])
    assert isinstance(g, C.IndexedRows)
    assert g.values.nbytes + g.indices.nbytes <= 4096 * 16 * 4 + 4096 * 8
    assert g.dense_shape == (1_000_000, 16)


def test_two_gathers_of_one_table_stay_sparse():
    table = C.Variable(normal(6, 2), dtype=np.float64)
    (g,) = C.gradients(C.sum(C.gather(table, [1, 2])) + C.sum(C.gather(table, [2])), [table])
    assert isinstance(g, C.IndexedRows)
    np.testing.assert_allclose(g.to_dense()[:, 0], [0, 1, 2, 0, 0, 0])


def test_dense_and_sparse_gradients_of_one_table_add_up():
    table = C.Variable(normal(3, 2), dtype=np.float64)
    (g,) = C.gradients(C.sum(C.gather(table, [1])) + C.sum(table * 2.0), [table])
    np.testing.assert_allclose(np.asarray(g), [[2, 2], [3, 3], [2, 2]])


def test_forward_values_against_numpy():
    x = normal(3, 5)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(C.softmax(x).numpy(), e / e.sum(1, keepdims=True))
    np.testing.assert_allclose(
        C.log_softmax(x).numpy(), np.log(e / e.sum(1, keepdims=True)), rtol=1e-12
    )
    np.testing.assert_allclose(C.relu6(np.array([-1.0, 3.0, 9.0])).numpy(), [0, 3, 6])
    np.testing.assert_allclose(C.leaky_relu(np.array([-1.0, 2.0])).numpy(), [-0.2, 2.0])
    np.testing.assert_allclose(C.elu(np.array([-1.0, 2.0])).numpy(), [np.exp(-1) - 1, 2])
    np.testing.assert_allclose(
        C.selu(np.array([-1.0, 2.0])).numpy(),
        [1.0507009873554805 * 1.6732632423543772 * (np.exp(-1) - 1), 1.0507009873554805 * 2],
    )


def test_stable_for_huge_logits():
    logits = C.Variable(np.array([[1e4], [-1e4], [1e4], [-1e4]], np.float32))
    labels = np.array([[1.0], [0.0], [0.0], [1.0]], np.float32)
    loss, (g,) = C.value_and_grad(
        lambda: C.sigmoid_cross_entropy(labels, logits, reduction=C.Reduction.SUM)
    )([logits])
    assert np.isclose(float(loss), 2e4)
    np.testing.assert_allclose(np.asarray(g).ravel(), [0, 0, 1, -1])
    big = C.Variable(np.array([[1e4, -1e4, 0.0]], np.float32))
    loss, (g,) = C.value_and_grad(lambda: C.sparse_softmax_cross_entropy(np.array([1]), big))([big])
    assert np.isclose(float(loss), 2e4)
    np.testing.assert_allclose(np.asarray(g), [[1, -1, 0]], atol=1e-6)
    for fn in (C.sigmoid, C.softplus, C.softmax, C.log_softmax):
        assert np.all(np.isfinite(fn(big).numpy()))


def test_loss_reductions_follow_tensorflow():
    losses = np.array([[1.0, 2.0], [3.0, 4.0]])
    w = np.array([[0.0], [2.0]])
    weighted = losses * w
    cases = {
        C.Reduction.NONE: weighted,
        C.Reduction.SUM: weighted.sum(),
        C.Reduction.MEAN: weighted.sum() / (2 * w.sum()),
        C.Reduction.SUM_OVER_BATCH_SIZE: weighted.sum() / 4,
        C.Reduction.SUM_BY_NONZERO_WEIGHTS: weighted.sum() / 2,
    }
    for reduction, expected in cases.items():
        got = C.compute_weighted_loss(losses, w, reduction=reduction).numpy()
        np.testing.assert_allclose(got, expected, err_msg=reduction)
    with pytest.raises(ValueError, match="reduction must be one of"):
        C.compute_weighted_loss(losses, 1.0, reduction="average")


def test_dropout_scales_kept_units_and_is_seedable():
    x = np.ones((200, 50), np.float32)
    a = C.dropout(x, 0.3, training=True, rng=1).numpy()
    b = C.dropout(x, 0.3, training=True, rng=1).numpy()
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a).tolist()) == {0.0, np.float32(1 / 0.7)}
    assert abs((a == 0).mean() - 0.3) < 0.02
    assert a.dtype == np.float32
    np.testing.assert_array_equal(C.dropout(x, 0.3, training=False).numpy(), x)
    with pytest.raises(ValueError, match="dropout rate"):
        C.dropout(x, 1.0)


def test_float32_stays_float32():
    w = C.Variable(np.ones((3, 2), np.float32))
    x = np.ones((4, 3), np.float32)
    y = C.sigmoid(C.relu(x @ w) * 2.0 + 1.0) / 3.0
    assert y.dtype == np.float32
    (g,) = C.gradients(C.mean(y), [w])
    assert g.dtype == np.float32


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: C.add(np.ones((2, 3)), np.ones((4, 3))), r"\(2, 3\) and \(4, 3\)"),
        (lambda: C.matmul(np.ones((2, 3)), np.ones((2, 3))), r"\(2, 3\) and \(2, 3\)"),
        (lambda: C.concat([np.ones((2, 3)), np.ones((3, 2))], axis=0), "do not agree"),
        (lambda: C.reshape(np.ones((2, 3)), (4, 2)), r"\(2, 3\) into \(4, 2\)"),
        (lambda: C.segment_sum(np.ones((3, 2)), [0, 1], 2), "2 segment ids for data with 3"),
        (lambda: C.sigmoid_cross_entropy_with_logits(np.ones(3), np.ones((3, 1))), "do not match"),
    ],
)
def test_shape_mismatches_name_both_shapes(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_gather_rejects_out_of_range_ids():
    with pytest.raises(IndexError, match=r"\[0, 5\)"):
        C.gather(np.ones((5, 2)), np.array([1, 5]))


def test_variable_assign_checks_shape():
    v = C.Variable(np.zeros((2, 3)), name="dense/kernel")
    with pytest.raises(ValueError, match=r"'dense/kernel' of shape \(2, 3\)"):
        v.assign(np.zeros((3, 2)))


def test_variable_copies_its_initial_value():
    init = np.zeros(3, np.float32)
    v = C.Variable(init)
    v.value[0] = 5
    assert init[0] == 0
    assert C.Variable(1.5).dtype == np.float32
    assert C.Variable([1, 2]).dtype == np.int64


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 30), min_size=0, max_size=60),
    st.sampled_from([(1,), (3,), ()]),
)
def test_row_groups_sum_repeated_rows_like_add_at(ids, row_shape):
    """Reference: numpy's unbuffered np.add.at into a dense table."""
    ids = np.asarray(ids, dtype=np.int64)
    values = np.random.default_rng(len(ids)).normal(size=(len(ids),) + row_shape)
    groups = group_rows(ids)
    np.testing.assert_array_equal(groups.rows, np.unique(ids))
    dense = np.zeros((31,) + row_shape)
    np.add.at(dense, ids, values)
    np.testing.assert_allclose(groups.sum(values), dense[groups.rows], atol=1e-12)
    got = IndexedRows(ids, values, (31,) + row_shape, groups).deduplicate()
    np.testing.assert_allclose(got.to_dense(), dense, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 40),
    st.lists(st.integers(1, 9), min_size=1, max_size=5),
    st.integers(0, 2**31),
)
def test_row_groups_by_column_equal_those_of_all_rows(n, spans, seed):
    """A fused table's rows, column j in its own range: the column-by-column grouping
    equals group_rows of the flat rows and np.unique / np.add.at (the references)."""
    rng = np.random.default_rng(seed)
    offsets = np.cumsum([0] + spans[:-1])
    table = np.stack([rng.integers(0, s, n) + o for s, o in zip(spans, offsets)], axis=1)
    got, flat = group_rows_by_column(table, offsets), group_rows(table.reshape(-1))
    np.testing.assert_array_equal(got.rows, np.unique(table))
    np.testing.assert_array_equal(got.inverse, flat.inverse)
    np.testing.assert_array_equal(got.summing.toarray(), flat.summing.toarray())
    values = rng.normal(size=(table.size, 3)).astype(np.float32)
    dense = np.zeros((sum(spans), 3), np.float32)
    np.add.at(dense, table.reshape(-1), values)
    np.testing.assert_allclose(got.sum(values), dense[got.rows], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "table, offsets",
    [
        (np.array([[0, 5], [3, 1]]), [0, 2]),  # column 0 reaches into column 1's range
        (np.array([[1, -3], [0, 2]]), [0, 2]),  # below its offset
        (np.array([[1, 2**40], [0, 3]]), [0, 2]),  # keys beyond 32 bits
    ],
)
def test_row_groups_by_column_outside_their_ranges_take_the_flat_sort(table, offsets):
    got, flat = group_rows_by_column(table, offsets), group_rows(table.reshape(-1))
    np.testing.assert_array_equal(got.rows, np.unique(table))
    np.testing.assert_array_equal(got.inverse, flat.inverse)
    np.testing.assert_array_equal(got.summing.toarray(), flat.summing.toarray())


def test_row_groups_sum_float32_rows_in_their_original_order():
    """Reference: a plain Python loop adding each row's entries in order, in float32, so
    that a training step's sums (and so its AUC) stay what they were."""
    rng = np.random.default_rng(3)
    ids = rng.integers(0, 50, 400)
    values = rng.normal(size=(400, 16)).astype(np.float32)
    expected = {}
    for i, row in enumerate(ids.tolist()):
        expected[row] = expected[row] + values[i] if row in expected else values[i].copy()
    got = group_rows(ids).sum(values)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.stack([expected[r] for r in sorted(expected)]))


def test_row_groups_of_indices_too_wide_to_pack_with_positions():
    ids = np.array([2**60 + 5, 2**60 + 2, 2**60 + 5], dtype=np.int64)
    groups = group_rows(ids)
    assert groups.rows.tolist() == [2**60 + 2, 2**60 + 5]
    assert groups.sum(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).tolist() == [
        [3.0, 4.0],
        [6.0, 8.0],
    ]
