"""A worker holds of each table only the rows a step reads (issue 18's parameter servers
would be pointless if every worker held every table whole).

The compact buffers are checked against the whole tables they stand for: the network's
logits and gradients read through the buffers (``Compactor``) equal those read from the
whole tables, row for row, on batches of every kind of table (fused linear weights and
embeddings, a column's linear weights and embedding read together, a shared embedding,
weighted and multivalent ids, vocabulary misses). On Ray, a model with a 10**7-row table
trains with workers whose table memory is that of a batch's rows and who were sent the
estimator in a few kilobytes.
"""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn
from colonnade.core.indexed_rows import IndexedRows
from colonnade.distribute.cluster import worker_copy
from colonnade.distribute.tables import Compactor, Table, held_bytes, network_tables
from colonnade.feature_columns.ids import CategoricalIds

fc = cn.feature_columns
E = cn.estimators

WORDS = ["x", "y", "z", "never-seen"]  # the last is a vocabulary miss (id -1)


def every_kind_of_table(tmp_path, linear):
    """Wide&deep whose tables are read every way a canned network reads them. With
    ``linear="one"`` the linear part has one categorical column (its weights unfused,
    read with the same ids as ``a``'s embedding); with ``"many"`` they are fused."""
    a = fc.categorical_column_with_identity("a", 40)
    b = fc.categorical_column_with_vocabulary_list("b", WORDS[:3], default_value=-1)
    c = fc.categorical_column_with_hash_bucket("c", 3)  # shared with b: 3 buckets
    d = fc.weighted_categorical_column(fc.categorical_column_with_identity("d", 30), "dw")
    e = fc.categorical_column_with_identity("e", 20)
    f = fc.categorical_column_with_identity("f", 25)
    return E.DNNLinearCombinedClassifier(
        linear_feature_columns=[a] if linear == "one" else [a, b, c, e],
        dnn_feature_columns=[
            fc.embedding_column(a, 3),
            *fc.shared_embedding_columns([b, c], 2),
            fc.embedding_column(d, 4, combiner="sqrtn"),
            fc.embedding_column(e, 5),  # e and f: one fused table
            fc.embedding_column(f, 5),
            fc.numeric_column("p"),
        ],
        dnn_hidden_units=[4],
        model_dir=str(tmp_path / linear),
        config=E.RunConfig(tf_random_seed=3),
    )


def batch(seed, n):
    """``n`` rows of every kind of id: univalent, multivalent (some examples with none),
    weighted (some weights <= 0, which ``sqrtn`` drops), vocabulary misses."""
    rng = np.random.default_rng(seed)
    pool = ["c0", "c1", "c2", "c3", "c4", "c5"]
    out = {
        "a": rng.integers(0, 40, n),
        "b": rng.choice(WORDS, n).tolist(),
        "c": pa.array(
            [rng.choice(pool, rng.integers(0, 4)).tolist() for _ in range(n)], pa.list_(pa.string())
        ),
        "d": [rng.integers(0, 30, k).tolist() for k in rng.integers(1, 4, n)],
        "e": rng.integers(0, 20, n),
        "f": rng.integers(0, 25, n),
        "p": rng.normal(size=n).astype(np.float32),
    }
    out["dw"] = [rng.uniform(-0.5, 2.0, len(ids)).astype(np.float32).tolist() for ids in out["d"]]
    return out


def loss_and_grads(est, cache, features, weights):
    """A loss with a random weight per logit (so no gradient is trivially zero), and
    the gradients of every trained variable."""
    network = est.model.network
    variables = [v for _, _, vs in est.train_state.parts for v in vs]

    def loss_fn():
        logits = network.logits(features, training=True, rng=None, cache=cache)
        return cn.core.sum(cn.core.multiply(logits, weights)), logits.value

    (loss, logits), grads = cn.core.value_and_grad(loss_fn, has_aux=True)(variables)
    return logits, variables, grads


@pytest.mark.parametrize("linear", ["one", "many"])
def test_reading_compact_buffers_equals_reading_the_whole_tables(tmp_path, linear):
    est = every_kind_of_table(tmp_path, linear)
    network = est.model.network
    tables = network_tables(network)
    kinds = {(t.fused is not None, len(t.columns)) for t in tables.values()}
    assert {(True, 0), (False, 1), (False, 2)} <= kinds  # fused, plain, shared: all there
    for var in (
        v for _, _, vs in est.train_state.parts for v in vs
    ):  # tables not all zero, as TF's
        var.value[...] = np.random.default_rng(0).normal(size=var.shape)

    @settings(max_examples=25, deadline=None)
    @given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12))
    def check(seed, n):
        features = batch(seed, n)
        weights = np.random.default_rng(seed + 1).normal(size=(n, 1)).astype(np.float32)
        cache = network.prepare(network.transform(features), training=True)
        want_logits, variables, want = loss_and_grads(est, cache, features, weights)

        in_order = [tables.get(id(v)) for v in variables]
        rows, compact = Compactor(in_order)(cache)
        whole = {}
        for table, table_rows in zip(in_order, rows):
            if table is not None:
                whole[id(table)] = table.variable.value
                table.variable.value = whole[id(table)][table_rows]
        try:
            got_logits, _, got = loss_and_grads(est, compact, features, weights)
        finally:
            for table in in_order:
                if table is not None:
                    table.variable.value = whole[id(table)]

        np.testing.assert_array_equal(got_logits, want_logits)
        for var, table, table_rows, g, w in zip(variables, in_order, rows, got, want):
            if table is None:
                np.testing.assert_array_equal(g, w, err_msg=var.name)
                continue
            assert isinstance(g, IndexedRows) and g.dense_shape[0] == len(table_rows)
            g, w = g.deduplicate(), w.deduplicate()
            # buffer positions back to table rows: the same rows, summed the same way (a
            # row whose every weight is <= 0, dropped by the lookup, may be in the buffer
            # with no gradient)
            np.testing.assert_array_equal(table_rows[g.indices], w.indices, err_msg=var.name)
            np.testing.assert_array_equal(g.values, w.values, err_msg=var.name)

        # independently of the library: the rows are the ids in the data
        named = {t.variable.name: r for t, r in zip(in_order, rows) if t is not None}
        a_rows = named["dnn/input_from_feature_columns/input_layer/a_embedding/embedding_weights"]
        assert a_rows.tolist() == sorted(set(features["a"].tolist()))
        ef_rows = named["input_layer/fused_0"]
        assert ef_rows.tolist() == sorted({*features["e"].tolist(), *(20 + features["f"]).tolist()})

    check()


def test_a_fused_tables_ids_do_not_read_its_value(tmp_path):
    # the input thread computes a batch's fused ids while the step holds a buffer there
    est = every_kind_of_table(tmp_path, "many")
    for fused in [f for layer in est.model.network.layers for f in layer.fused_groups]:
        rows = fused.table.shape[0]
        whole, fused.table.value = fused.table.value, np.zeros((2, fused.table.shape[1]))
        try:
            ids = fused.ids(est.model.network.transform(batch(0, 5)))
        finally:
            fused.table.value = whole
        assert fused.rows == ids.table_rows == rows


def test_an_id_beyond_its_table_is_an_error_naming_the_table_and_columns():
    col = fc.categorical_column_with_identity("item", 100)
    var = cn.core.Variable(np.zeros((5, 2), np.float32), name="emb")
    cache = fc.TransformCache({})
    cache.memo(("column", col), lambda: CategoricalIds(np.array([1, 7]), num_buckets=100))
    message = r"columns \['item'\] have id 7, beyond the 5 rows of table 'emb'"
    with pytest.raises(IndexError, match=message):
        Compactor([Table(var, 5, columns=(col,))])(cache)


def test_tables_read_by_one_column_must_have_its_rows():
    col = fc.categorical_column_with_identity("item", 100)
    small = cn.core.Variable(np.zeros((5, 2), np.float32), name="small")
    large = cn.core.Variable(np.zeros((6, 1), np.float32), name="large")
    with pytest.raises(ValueError, match=r"tables \['small', 'large'\] .* different row counts"):
        Compactor([Table(small, 5, columns=(col,)), Table(large, 6, columns=(col,))])


def test_held_bytes_sees_through_views():
    a = np.zeros((100, 4), np.float32)
    assert held_bytes(a[3:5]) == held_bytes(a) == 1600
    assert held_bytes(np.broadcast_to(np.zeros((), np.float32), (10**6, 4))) == 4


# ------------------------------------------------------------------------ on Ray

BIG = 10**7  # rows of the big table: 40 MB of weights


def big_model(tmp_path, name, strategy=None):
    big = fc.categorical_column_with_identity("user", BIG)
    site = fc.categorical_column_with_identity("site", 30)
    return E.DNNLinearCombinedClassifier(
        linear_feature_columns=[big, site],  # fused: BIG + 30 rows
        linear_optimizer="GradientDescent",
        dnn_feature_columns=[fc.embedding_column(site, 4), fc.numeric_column("price")],
        dnn_hidden_units=[4],
        dnn_optimizer="GradientDescent",
        model_dir=str(tmp_path / name),
        config=E.RunConfig(tf_random_seed=1, save_summary_steps=0, train_distribute=strategy),
    )


def big_data(n=96, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "user": rng.integers(0, BIG, n),
            "site": rng.integers(0, 30, n),
            "price": rng.normal(size=n).astype(np.float32),
        }
    )
    df["clicked"] = (df.site % 3 == 0).astype(np.int64)
    return df


def test_the_estimator_sent_to_workers_is_shape_only_and_the_driver_keeps_its_tables(tmp_path):
    from ray import cloudpickle

    est = big_model(tmp_path, "m")
    weights = est.model.network.linear.linear.fused_groups[0].table
    weights.value[::1000] = 1.0
    before = weights.value.copy()
    whole = len(cloudpickle.dumps(est.model.network))
    sent = len(cloudpickle.dumps(worker_copy(est)))
    assert whole > 4 * BIG and sent < 50_000, (whole, sent)
    np.testing.assert_array_equal(weights.value, before)  # the driver's copy is untouched
    back = cloudpickle.loads(cloudpickle.dumps(worker_copy(est)))
    tables = network_tables(back.model.network).values()
    assert sorted(t.variable.shape for t in tables) == [(30, 4), (BIG + 30, 1)]
    assert sum(held_bytes(a) for t in tables for a in t.arrays()) < 100  # shapes, no rows


def test_workers_hold_a_batch_of_rows_of_a_ten_million_row_table(ray_cluster, tmp_path):
    df = big_data()
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=2, mode="sync")
    est = big_model(tmp_path, "dist", strategy)
    est.train(cn.data.Dataset.from_pandas(df, label="clicked").batch(16), verbose=0)
    assert est.global_step == 3
    peak = est.last_run.table_buffer_bytes
    # at most a batch's 16 users and 16 sites (4 bytes each) in the fused linear table and
    # its 2 shape-only column views (a 4-byte scalar each), and 16 sites' 4-wide
    # embeddings; the whole tables hold 40 MB
    assert 0 < peak <= 16 * 2 * 4 + 2 * 4 + 16 * 4 * 4
    # the rows the data touched, and only those, moved: renumbered rows went back home
    linear = est.get_variable_value("linear/linear_model/user/weights").ravel()
    assert np.flatnonzero(linear).tolist() == sorted(set(df.user.tolist()))
