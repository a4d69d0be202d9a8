"""Fused tables: several columns' embedding tables or linear weights trained as the rows
of one Variable must give each column its own lookup, gradient, name and checkpoint."""

import numpy as np
import pytest

import colonnade as cn
import colonnade.feature_columns as fc
from colonnade.core import value_and_grad
from colonnade.feature_columns.fused_tables import (
    FusedColumns,
    fused_ids,
    fused_lookup,
    plan_dense_output,
)


def fused_case():
    item = fc.categorical_column_with_identity("item", 7)
    tags = fc.categorical_column_with_vocabulary_list("tag", ["a", "b", "c"], default_value=-1)
    weighted = fc.weighted_categorical_column(fc.categorical_column_with_hash_bucket("w", 5), "ww")
    columns = [
        fc.embedding_column(item, 3, combiner="sum"),
        fc.embedding_column(tags, 3, combiner="mean"),
        fc.embedding_column(weighted, 3, combiner="sqrtn"),
        fc.numeric_column("x"),
    ]
    features = {
        "item": [[1, 6], [], [3]],
        "tag": [["a", "zzz", "c"], ["b"], ["zzz"]],  # "zzz" is a miss (-1): dropped
        "w": [["p"], ["q", "r"], ["p", "s"]],
        "ww": [[2.0], [0.5, -1.0], [1.5, 3.0]],  # sqrtn drops the weight <= 0
        "x": [1.0, 2.0, 3.0],
    }
    return columns, features


def test_fused_embedding_tables_give_each_columns_own_lookup_and_gradient():
    columns, features = fused_case()
    layer = fc.DenseFeatures(columns, seed=3)
    (fused,) = [v for v in layer.trainable_variables if v.name.endswith("fused_0")]
    assert [part.name for part, _ in fused.fused_parts] == [
        "dense_features/item_embedding/embedding_weights",
        "dense_features/tag_embedding/embedding_weights",
        "dense_features/w_weighted_by_ww_embedding/embedding_weights",
    ]
    target = np.random.default_rng(0).normal(size=(3, 10)).astype(np.float32)
    loss, (g,) = value_and_grad(lambda: cn.core.sum(cn.core.square(layer(features) - target)))(
        [fused]
    )
    # Reference: each column looked up alone on a copy of its own table.
    cache = fc.TransformCache(features)
    embeddings = sorted(columns[:3], key=lambda c: c.name)
    copies = [cn.core.Variable(layer.column_variables(c)[0].numpy()) for c in embeddings]

    def reference():
        outs = [
            fc.embedding_lookup(t, cache.get(c.categorical_column), c.combiner)
            for t, c in zip(copies, embeddings)
        ]
        x = cn.core.reshape(cn.core.Tensor(np.asarray(features["x"], np.float32)), (3, 1))
        return cn.core.sum(cn.core.square(cn.core.concat(outs + [x], axis=1) - target))

    ref_loss, ref_grads = value_and_grad(reference)(copies)
    assert float(loss) == pytest.approx(float(ref_loss), rel=1e-6)
    dense = g.to_dense()
    for (part, start), ref in zip(fused.fused_parts, ref_grads):
        np.testing.assert_allclose(
            dense[start : start + part.shape[0]], ref.to_dense(), rtol=1e-5, atol=1e-6
        )


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_fused_linear_weights_give_the_sum_of_per_column_lookups(combiner):
    columns, features = fused_case()
    categorical = [c.categorical_column for c in columns[:3]]
    model = fc.LinearModel(categorical + [columns[3]], units=2, sparse_combiner=combiner)
    rng = np.random.default_rng(1)
    for v in model.variables:
        v.assign(rng.normal(size=v.shape))
    cache = fc.TransformCache(features)
    want = sum(
        fc.embedding_lookup(model.column_weights(c).numpy(), cache.get(c), combiner).numpy()
        for c in categorical
    )
    want = want + np.asarray(features["x"])[:, None] * model.column_weights(columns[3]).numpy()
    want = want + model.bias.numpy()
    np.testing.assert_allclose(model(features).numpy(), want, rtol=1e-5, atol=1e-6)
    assert [v.name for v in model.trainable_variables] == [
        "linear_model/fused_weights",
        "linear_model/x/weights",
        "linear_model/bias_weights",
    ]


def test_pieces_side_by_side_are_the_layer_output():
    columns, features = fused_case()
    columns = columns + [
        fc.numeric_column("x2"),
        fc.indicator_column(columns[0].categorical_column),
    ]
    features = dict(features, x2=[0.5, -1.0, 2.0])
    layer = fc.DenseFeatures(columns, seed=2)
    pieces = layer.output_pieces(features)
    assert len(pieces) < len(columns)  # the fused embeddings come as one piece
    np.testing.assert_array_equal(
        np.concatenate([p.numpy() for p in pieces], axis=1), layer(features).numpy()
    )
    assert sum(p.shape[1] for p in pieces) == layer.dimension


def test_fused_ids_refuse_an_id_beyond_its_columns_rows():
    a = fc.CategoricalIds(np.array([0, 2]), num_buckets=3)
    b = fc.CategoricalIds(np.array([1, 4]), num_buckets=4)  # 4 is not a row of b's table
    with pytest.raises(IndexError, match="column 1 has id 4 but its table has only 4 rows"):
        fused_ids([a, b], [0, 3], 7, ["sum", "sum"], side_by_side=True)
    ok = fused_ids([a, a], [0, 3], 6, ["sum", "sum"], side_by_side=True)
    np.testing.assert_array_equal(ok.rows, [0, 3, 2, 5])
    with pytest.raises(ValueError, match="table of 6 rows, the table has 7"):
        fused_lookup(np.zeros((7, 2), np.float32), ok, side_by_side=True)


def test_fused_ids_of_one_id_per_example_and_column_with_invalid_or_huge_ids():
    """One id per example and column: a -1 (a miss) is dropped from the lookup, an id
    whose offset would wrap int64 is refused; the lookup is the plain numpy sum of each
    valid id's row (a hand replay)."""
    table = np.arange(14, dtype=np.float32).reshape(7, 2)
    a = fc.CategoricalIds(np.array([0, 2, 1]), num_buckets=3)
    b = fc.CategoricalIds(np.array([1, -1, 3]), num_buckets=4)
    ids = fused_ids([a, b], [0, 3], 7, ["sum", "sum"], side_by_side=False)
    got = fused_lookup(table, ids, side_by_side=False).value
    expected = np.stack([table[0] + table[4], table[2], table[1] + table[6]])
    np.testing.assert_array_equal(got, expected)
    plain = fused_ids([a, a], [0, 3], 6, ["sum", "sum"], side_by_side=False)
    assert plain.segments is None and plain.rows.tolist() == [0, 3, 2, 5, 1, 4]
    huge = fc.CategoricalIds(np.array([0, np.iinfo(np.int64).max, 1]), num_buckets=4)
    with pytest.raises(IndexError, match="column 1 has id 9223372036854775807"):
        fused_ids([a, huge], [0, 3], 7, ["sum", "sum"], side_by_side=True)


def test_which_embedding_columns_fuse():
    """Runs of neighbouring trainable embeddings of one dimension without max_norm fuse;
    a shared embedding, a frozen table, a clipped one or another width break a run."""
    ids = {n: fc.categorical_column_with_identity(n, 4) for n in "abcdefgh"}
    columns = [
        fc.embedding_column(ids["a"], 2),
        fc.embedding_column(ids["b"], 2),
        fc.embedding_column(ids["c"], 3),  # another width: closes a-b, starts a run alone
        fc.embedding_column(ids["d"], 2, max_norm=1.0),
        fc.embedding_column(ids["e"], 2),
        fc.embedding_column(ids["f"], 2),
        fc.embedding_column(ids["g"], 2, trainable=False),
        *fc.shared_embedding_columns([ids["h"]], 2),
    ]
    layer = fc.DenseFeatures(columns, seed=0)
    plan = [
        [c.name for c in p.columns] if isinstance(p, FusedColumns) else p.name for p in layer._plan
    ]
    assert plan == [
        ["a_embedding", "b_embedding"],
        "c_embedding",
        "d_embedding",
        ["e_embedding", "f_embedding"],
        "g_embedding",
        "h_shared_embedding",
    ]
    tables = [p.table.name for p in layer._plan if isinstance(p, FusedColumns)]
    assert tables == ["dense_features/fused_0", "dense_features/fused_1"]
    frozen = fc.DenseFeatures(columns, trainable=False, seed=0)
    assert not any(isinstance(p, FusedColumns) for p in frozen._plan)


def test_plan_of_one_fusable_column_keeps_its_table():
    column = fc.embedding_column(fc.categorical_column_with_identity("a", 4), 2)
    table = cn.core.Variable(np.zeros((4, 2)), name="t")
    assert plan_dense_output([column], {column.table_name: table}, "l", True) == [column]
    assert table.fused_into is None


def test_trainable_variables_are_variables_and_the_optimizer_trains_the_fused_table():
    columns, features = fused_case()
    categorical = [c.categorical_column for c in columns[:3]]
    dense = fc.DenseFeatures(columns, seed=0)
    linear = fc.LinearModel(categorical + [columns[3]])
    for layer, fused_name in (
        (dense, "dense_features/fused_0"),
        (linear, "linear_model/fused_weights"),
    ):
        in_variables = {id(v) for v in layer.variables}
        assert all(id(v) in in_variables for v in layer.trainable_variables)
        names = [v.name for v in layer.variables]
        assert names[-1] == fused_name
        # checkpoints still name one variable per column, never the fused table
        assert sorted(f"{layer.name}/{n}" for n in layer.checkpoint_children()) == sorted(
            names[:-1]
        )

    opt = cn.train.FtrlOptimizer(0.5)
    before = [linear.column_weights(c).numpy().copy() for c in categorical]
    opt.minimize(lambda: cn.core.sum(linear(features)), var_list=linear.trainable_variables)
    moved = [
        not np.array_equal(b, linear.column_weights(c).numpy()) for b, c in zip(before, categorical)
    ]
    assert moved == [True, True, True]  # one update of the fused table reached every column
    accum = opt.get_slot(linear.column_weights(categorical[0]), "accum")
    assert accum.name == "linear_model/item/weights/Ftrl"
    assert not any("fused" in v.name for v in opt.variables())


def test_prepare_computes_the_fused_ids_ahead_once():
    columns, features = fused_case()
    layer = fc.DenseFeatures(columns, seed=0)
    cache = fc.TransformCache(features)
    cache.compute(layer.feature_columns)
    layer.prepare(cache, training=True)
    (fused,) = layer.fused_groups
    ahead = fused.ids(cache)
    assert ahead.groups is not None  # grouped for the gradient, as training asked
    np.testing.assert_array_equal(layer(cache).numpy(), layer(features).numpy())
    assert fused.ids(cache) is ahead
