"""feature_columns/dense.py: indicator columns, embedding_lookup (combiners, weights, max_norm),
embedding columns and shared embedding columns, against plain-numpy references written here.

(The fused-table functions of dense.py are tested with their own module.)
"""

import numpy as np
import pytest

import colonnade as cn
import colonnade.feature_columns as fc
from colonnade.core import IndexedRows, value_and_grad
from colonnade.feature_columns import CategoricalIds, TransformCache
from colonnade.feature_columns.embedding_lookup import embedding_lookup

COMBINERS = ["sum", "mean", "sqrtn"]


# --------------------------------------------------------------------------- references


def ref_lookup(table, id_lists, weight_lists=None, combiner="mean", max_norm=None):
    """TF's safe_embedding_lookup_sparse, example by example, in float64 numpy."""
    table = np.asarray(table, np.float64)
    out = np.zeros((len(id_lists), table.shape[1]))
    for r, ids in enumerate(id_lists):
        weights = [1.0] * len(ids) if weight_lists is None else weight_lists[r]
        num, w_sum, w_sq = np.zeros(table.shape[1]), 0.0, 0.0
        for i, w in zip(ids, weights):
            if i < 0 or (combiner != "sum" and w <= 0):
                continue
            row = table[i].copy()
            norm = np.sqrt((row**2).sum())
            if max_norm is not None and norm > max_norm:
                row *= max_norm / norm
            num += w * row
            w_sum += w
            w_sq += w * w
        if combiner == "sum":
            out[r] = num
        elif combiner == "mean" and w_sum > 0:
            out[r] = num / w_sum
        elif combiner == "sqrtn" and w_sq > 0:
            out[r] = num / np.sqrt(w_sq)
    return out


def ref_counts(id_lists, num_buckets, weight_lists=None):
    out = np.zeros((len(id_lists), num_buckets))
    for r, ids in enumerate(id_lists):
        for k, i in enumerate(ids):
            if i >= 0:
                out[r, i] += 1.0 if weight_lists is None else weight_lists[r][k]
    return out


def ragged(id_lists, num_buckets, weight_lists=None):
    splits = np.cumsum([0] + [len(ids) for ids in id_lists])
    flat = [i for ids in id_lists for i in ids]
    weights = None if weight_lists is None else [w for ws in weight_lists for w in ws]
    return CategoricalIds(np.array(flat, np.int64), splits, num_buckets, weights)


def constant(table):
    return lambda shape, dtype, rng: np.asarray(table, dtype=dtype)


# Ragged ids with an empty example, a repeated id, a vocabulary miss (-1), and weights that are
# zero or negative (dropped by mean and sqrtn, kept by sum).
ID_LISTS = [[0, 2, 2], [], [4], [1, -1, 3, 0], [3], [-1]]
WEIGHT_LISTS = [[1.0, 0.5, 2.0], [], [3.0], [0.25, 1.0, 0.0, -1.5], [2.0], [1.0]]


@pytest.fixture
def table():
    return np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)


# --------------------------------------------------------------------------- embedding_lookup


@pytest.mark.parametrize("combiner", COMBINERS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("max_norm", [None, 0.8])
def test_embedding_lookup_matches_numpy(table, combiner, weighted, max_norm):
    weights = WEIGHT_LISTS if weighted else None
    ids = ragged(ID_LISTS, 5, weights)
    got = embedding_lookup(table, ids, combiner, max_norm).numpy()
    want = ref_lookup(table, ID_LISTS, weights, combiner, max_norm)
    assert got.shape == (6, 3) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[[1, 5]], 0.0)  # no (valid) id: zeros


def test_embedding_lookup_hand_computed():
    t = np.array([[3.0, 4.0], [1.0, 0.0], [0.0, 2.0]], np.float32)
    ids = ragged([[0, 1], [1, 2, 2]], 3, [[1.0, 3.0], [1.0, 1.0, 2.0]])
    sum_ = [[3 + 3, 4 + 0], [1, 0 + 2 + 4]]
    np.testing.assert_allclose(embedding_lookup(t, ids, "sum").numpy(), sum_)
    np.testing.assert_allclose(
        embedding_lookup(t, ids, "mean").numpy(), [[6 / 4, 4 / 4], [1 / 4, 6 / 4]]
    )
    np.testing.assert_allclose(
        embedding_lookup(t, ids, "sqrtn").numpy(),
        [[6 / np.sqrt(10), 4 / np.sqrt(10)], [1 / np.sqrt(6), 6 / np.sqrt(6)]],
        rtol=1e-6,
    )
    # max_norm=2.5 scales row 0 ([3, 4], norm 5) to [1.5, 2]; the others are within it
    np.testing.assert_allclose(
        embedding_lookup(t, ids, "sum", max_norm=2.5).numpy(), [[1.5 + 3, 2], [1, 6]]
    )


def test_embedding_lookup_univalent_ids_are_the_rows(table):
    got = embedding_lookup(table, CategoricalIds(np.array([4, 0, 4]), num_buckets=5), "sqrtn")
    np.testing.assert_array_equal(got.numpy(), table[[4, 0, 4]])
    # a miss among scalar ids gives that example zeros
    got = embedding_lookup(table, CategoricalIds(np.array([2, -1]), num_buckets=5), "mean")
    np.testing.assert_array_equal(got.numpy(), [table[2], np.zeros(3)])


def test_embedding_lookup_max_norm_leaves_a_zero_row_alone():
    t = np.array([[0.0, 0.0], [6.0, 8.0]], np.float32)
    got = embedding_lookup(t, CategoricalIds(np.array([0, 1]), num_buckets=2), "sum", 1.0)
    np.testing.assert_allclose(got.numpy(), [[0.0, 0.0], [0.6, 0.8]], rtol=1e-6)


@pytest.mark.parametrize("combiner", COMBINERS)
def test_embedding_lookup_gradient_is_indexed_rows_of_the_combiner_factors(table, combiner):
    """d sum(out * G) / d table[i] = sum over the example's (valid) ids equal to i of
    factor * G[example], with factor w, w / sum w or w / sqrt(sum w^2)."""
    var = cn.core.Variable(table, name="table")
    ids = ragged(ID_LISTS, 5, WEIGHT_LISTS)
    upstream = np.random.default_rng(1).normal(size=(6, 3)).astype(np.float32)
    _, (grad,) = value_and_grad(
        lambda: cn.core.sum(embedding_lookup(var, ids, combiner) * upstream)
    )([var])
    assert isinstance(grad, IndexedRows) and grad.dense_shape == (5, 3)
    want = np.zeros((5, 3))
    for r, (id_list, weights) in enumerate(zip(ID_LISTS, WEIGHT_LISTS)):
        kept = [(i, w) for i, w in zip(id_list, weights) if i >= 0 and (combiner == "sum" or w > 0)]
        norm = {
            "sum": 1.0,
            "mean": sum(w for _, w in kept),
            "sqrtn": np.sqrt(sum(w * w for _, w in kept)),
        }[combiner]
        for i, w in kept:
            want[i] += w / norm * upstream[r]
    np.testing.assert_allclose(grad.to_dense(), want, rtol=1e-5, atol=1e-6)


def test_embedding_lookup_refuses_an_unknown_combiner(table):
    with pytest.raises(ValueError, match=r"unknown combiner 'max'; choose one of"):
        embedding_lookup(table, CategoricalIds(np.array([0]), num_buckets=5), "max")


# --------------------------------------------------------------------------- indicator


def test_indicator_counts_repeats_and_drops_vocabulary_misses():
    color = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"])  # miss: -1
    col = fc.indicator_column(color)
    assert col.name == "color_indicator" and col.dimension == 3
    values = [["r", "b", "r"], [], ["x", "g"], ["b"]]
    got = fc.transform_features({"color": values}, [col])["color_indicator"]
    id_lists = [[0, 2, 0], [], [-1, 1], [2]]
    np.testing.assert_array_equal(got, ref_counts(id_lists, 3))
    out = fc.input_layer({"color": values}, [col]).numpy()
    np.testing.assert_array_equal(out, ref_counts(id_lists, 3))


def test_indicator_of_a_weighted_column_sums_the_weights():
    col = fc.indicator_column(
        fc.weighted_categorical_column(fc.categorical_column_with_identity("k", 4), "w")
    )
    ids, weights = [[3, 1, 3], [0], []], [[0.5, 2.0, 0.25], [-1.0], []]
    got = fc.transform_features({"k": ids, "w": weights}, [col])[col.name]
    np.testing.assert_allclose(got, ref_counts(ids, 4, weights))
    np.testing.assert_allclose(got[0], [0.0, 2.0, 0.0, 0.75])


def test_indicator_of_an_oov_vocabulary_counts_the_oov_buckets():
    col = fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("s", ["a", "b"], num_oov_buckets=3)
    )
    got = fc.input_layer({"s": [["a", "zz"], ["zz", "zz"]]}, [col]).numpy()
    assert got.shape == (2, 5)
    np.testing.assert_array_equal(got[:, :2], [[1, 0], [0, 0]])
    # "zz" lands in one of the 3 oov buckets, the same one each time
    assert got[0, 2:].sum() == 1 and got[1, 2:].sum() == 2
    np.testing.assert_array_equal(np.flatnonzero(got[0, 2:]), np.flatnonzero(got[1, 2:]))


# --------------------------------------------------------------------------- embedding columns


@pytest.mark.parametrize("combiner", COMBINERS)
def test_embedding_column_output_matches_numpy(table, combiner):
    cat = fc.weighted_categorical_column(fc.categorical_column_with_identity("k", 5), "w")
    col = fc.embedding_column(cat, 3, combiner=combiner, max_norm=0.8, initializer=constant(table))
    ids = [[i for i in row if i >= 0] for row in ID_LISTS]  # identity columns have no misses
    weights = [[w for i, w in zip(r, ws) if i >= 0] for r, ws in zip(ID_LISTS, WEIGHT_LISTS)]
    features = {"k": ids, "w": weights}
    want = ref_lookup(table, ids, weights, combiner, 0.8)

    (spec,) = col.variable_specs()
    assert spec.name == "k_weighted_by_w_embedding/embedding_weights" and spec.shape == (5, 3)
    cache = TransformCache(features)
    direct = col.dense_output(cache, {col.table_name: cn.core.Variable(table)}).numpy()
    np.testing.assert_allclose(direct, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fc.input_layer(features, [col]).numpy(), want, rtol=1e-5, atol=1e-6)


def test_embedding_column_defaults_and_trainable():
    col = fc.embedding_column(fc.categorical_column_with_hash_bucket("h", 50), 4)
    assert (col.combiner, col.max_norm, col.trainable, col.dimension) == ("mean", None, True, 4)
    assert col.name == "h_embedding" and col.table_name == "h_embedding/embedding_weights"
    frozen = fc.embedding_column(fc.categorical_column_with_identity("k", 3), 2, trainable=False)
    layer = fc.DenseFeatures([frozen])
    assert layer.trainable_variables == [] and len(layer.variables) == 1
    assert layer.variables[0].shape == (3, 2)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"dimension": 0}, ValueError, "dimension must be at least 1"),
        ({"max_norm": 0.0}, ValueError, "max_norm must be a positive number, got 0.0"),
        ({"max_norm": True}, ValueError, "max_norm must be a positive number, got True"),
        ({"initializer": 3}, ValueError, "initializer must be callable, got 3"),
        ({"ckpt_to_load_from": "/x"}, ValueError, "give both ckpt_to_load_from and tensor_name"),
        ({"tensor_name_in_ckpt": "t"}, ValueError, "give both ckpt_to_load_from and tensor_name"),
        ({"trainable": 1}, TypeError, "trainable must be True or False, got 1"),
    ],
)
def test_embedding_column_argument_errors(kwargs, error, match):
    args = {"dimension": 2, **kwargs}
    with pytest.raises(error, match=match):
        fc.embedding_column(fc.categorical_column_with_identity("k", 3), **args)


def test_an_unknown_combiner_is_refused_by_the_layer_that_uses_it():
    # TF builds the column and refuses the combiner in the lookup
    column = fc.embedding_column(fc.categorical_column_with_identity("k", 3), 2, combiner="max")
    assert column.combiner == "max"
    for make_layer in (fc.DenseFeatures, fc.LinearModel):
        with pytest.raises(ValueError, match="unknown combiner 'max' of column 'k_embedding'"):
            make_layer([column])


def test_dense_views_need_a_categorical_column():
    with pytest.raises(ValueError, match="embedding_column needs a categorical column"):
        fc.embedding_column(fc.numeric_column("x"), 2)
    with pytest.raises(ValueError, match="indicator_column needs a categorical column"):
        fc.indicator_column(fc.numeric_column("x"))


# --------------------------------------------------------------------------- shared embeddings


def test_shared_embedding_columns_read_one_table(table):
    a = fc.categorical_column_with_identity("watched", 5)
    b = fc.categorical_column_with_identity("impression", 5)
    wa, ib = fc.shared_embedding_columns([a, b], 3, combiner="sqrtn", initializer=constant(table))
    assert wa.shared is ib.shared and wa.table_name == ib.table_name
    assert wa.table_name == "impression_watched_shared_embedding/embedding_weights"
    features = {"watched": [[0, 4], [2], []], "impression": [[1], [3, 3, 0], [2]]}
    layer = fc.DenseFeatures([wa, ib])
    assert len(layer.variables) == 1 and layer.variables[0].shape == (5, 3)
    got = layer(features).numpy()
    # input_layer orders by name: impression before watched, each sqrtn over the same table
    want = np.concatenate(
        [
            ref_lookup(table, features["impression"], combiner="sqrtn"),
            ref_lookup(table, features["watched"], combiner="sqrtn"),
        ],
        axis=1,
    )
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    # both columns' gradients land in the one table: sum over all their ids
    (var,) = layer.trainable_variables
    _, (grad,) = value_and_grad(lambda: cn.core.sum(layer(features)))([var])
    counts = np.zeros(5)
    for key in ("watched", "impression"):
        for ids in features[key]:
            for i in ids:
                counts[i] += 1 / np.sqrt(len(ids))
    np.testing.assert_allclose(grad.to_dense(), np.repeat(counts[:, None], 3, 1), rtol=1e-6)


def test_shared_embedding_column_dense_output_and_max_norm(table):
    a = fc.categorical_column_with_identity("a", 5)
    b = fc.categorical_column_with_identity("b", 5)
    ca, cb = fc.shared_embeddings([a, b], 3, combiner="sum", max_norm=0.5, trainable=False)
    assert ca.max_norm == cb.max_norm == 0.5 and ca.dimension == 3
    features = {"a": [[0, 1, 1]], "b": [[4]]}
    cache = TransformCache(features)
    variables = {ca.table_name: cn.core.Variable(table)}
    for col, key in ((ca, "a"), (cb, "b")):
        np.testing.assert_allclose(
            col.dense_output(cache, variables).numpy(),
            ref_lookup(table, features[key], combiner="sum", max_norm=0.5),
            rtol=1e-5,
            atol=1e-6,
        )
    assert fc.DenseFeatures([ca, cb]).trainable_variables == []


def test_shared_embedding_collection_name_and_errors():
    a = fc.categorical_column_with_identity("a", 5)
    b = fc.categorical_column_with_identity("b", 5)
    (ca, _) = fc.shared_embedding_columns([a, b], 2, shared_embedding_collection_name="mine")
    assert ca.table_name == "mine/embedding_weights"
    with pytest.raises(ValueError, match="same number of buckets; got \\{'a': 5, 'c': 6\\}"):
        fc.shared_embedding_columns([a, fc.categorical_column_with_identity("c", 6)], 2)
    with pytest.raises(ValueError, match="got a column twice"):
        fc.shared_embedding_columns([a, a], 2)
    with pytest.raises(ValueError, match="takes a list of categorical columns"):
        fc.shared_embedding_columns(a, 2)
    with pytest.raises(ValueError, match="needs at least one categorical column"):
        fc.shared_embedding_columns([], 2)
    with pytest.raises(ValueError, match="shared_embedding_columns needs a categorical column"):
        fc.shared_embedding_columns([a, fc.numeric_column("x")], 2)
    with pytest.raises(TypeError, match="shared_embedding_collection_name must be a string"):
        fc.shared_embedding_columns([a, b], 2, shared_embedding_collection_name=7)


def test_embedding_initializers_of_tf1_keras_and_colonnade_forms():
    seen = {}

    def tf1(shape, dtype, partition_info=None):
        seen["tf1"] = (tuple(shape), dtype, partition_info)
        return np.ones(shape)

    def keras(shape, dtype=None, **kwargs):
        seen["keras"] = (tuple(shape), dtype, kwargs)
        return np.full(shape, 2.0)

    def ours(shape, dtype, rng):
        seen["ours"] = isinstance(rng, np.random.Generator)
        return np.full(shape, 3.0)

    cat = fc.categorical_column_with_identity("k", 3)
    outputs = [
        fc.input_layer({"k": [0]}, [fc.embedding_column(cat, 2, initializer=f)]).numpy()
        for f in (tf1, keras, ours)
    ]
    assert [o.tolist() for o in outputs] == [[[1.0, 1.0]], [[2.0, 2.0]], [[3.0, 3.0]]]
    assert seen["tf1"] == ((3, 2), "float32", None) and seen["keras"] == ((3, 2), "float32", {})
    assert seen["ours"] is True
