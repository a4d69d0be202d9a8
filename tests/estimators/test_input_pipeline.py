"""Chunked transforms: small Arrow batches are transformed together and cut back into
batches; each batch must get exactly the transforms it would get on its own."""

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn
from colonnade.estimators.inputs import pipeline as input_pipeline
from colonnade.estimators.networks.network import DNNPart, LinearPart, Network
from colonnade.feature_columns.features import same_array

fc = cn.feature_columns


def columns():
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green"], default_value=-1)
    tags = fc.categorical_column_with_hash_bucket("tags", 50)
    x = fc.numeric_column("x")
    wide = [
        color,
        fc.weighted_categorical_column(tags, "tag_weight"),
        fc.bucketized_column(x, [0.0, 1.0]),
        fc.crossed_column([color, "tags"], 20),
    ]
    deep = [x, fc.embedding_column(color, 3), fc.indicator_column(tags)]
    return wide, deep


def network():
    wide, deep = columns()
    return Network(LinearPart(wide, 1), DNNPart(deep, [4], 1, rng=0))


def record_batches(sizes, seed=0):
    """Batches with multi-valued, empty and missing entries, of the given sizes."""
    rng = np.random.default_rng(seed)
    out = []
    for n in sizes:
        tags = [[f"t{k}" for k in rng.integers(0, 9, rng.integers(0, 3))] for _ in range(n)]
        out.append(
            pa.record_batch(
                {
                    "color": rng.choice(["red", "green", "blue"], n).tolist(),
                    "tags": pa.array(tags, pa.list_(pa.string())),
                    "tag_weight": pa.array(
                        [rng.random(len(t)).tolist() for t in tags], pa.list_(pa.float32())
                    ),
                    "x": rng.normal(size=n).astype(np.float32),
                    "y": rng.integers(0, 2, n),
                }
            )
        )
    return out


def same_transform(a, b):
    if isinstance(a, fc.CategoricalIds):
        assert a.to_lists() == b.to_lists() and a.num_buckets == b.num_buckets
        assert (a.weights is None) == (b.weights is None)
        if a.weights is not None:
            np.testing.assert_array_equal(a.weights, b.weights)
    else:
        np.testing.assert_array_equal(a, b)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=6), st.integers(0, 2**16))
def test_each_batch_gets_exactly_its_own_transforms(sizes, seed):
    net = network()
    data = record_batches(sizes, seed)
    pairs = [(b.drop_columns(["y"]), b.column("y")) for b in data]
    original, input_pipeline.CHUNK_ROWS = input_pipeline.CHUNK_ROWS, 50  # several chunks
    try:
        got = list(input_pipeline.transformed_batches(net, pairs))
    finally:
        input_pipeline.CHUNK_ROWS = original
    assert len(got) == len(pairs)
    for (features, labels), (f, y, cache) in zip(pairs, got):
        assert f is features and y is labels and cache.num_rows == features.num_rows
        alone = net.transform(features)
        for column in net.feature_columns:
            same_transform(alone.get(column), cache.get(column))


def test_chunked_training_equals_batch_by_batch_training():
    data = record_batches([16] * 6, seed=3)
    pairs = [(b.drop_columns(["y"]), b.column("y").to_numpy()) for b in data]
    weights = []
    for chunk_rows in (16, 64):
        wide, deep = columns()
        est = cn.estimators.DNNLinearCombinedClassifier(
            linear_feature_columns=wide,
            dnn_feature_columns=deep,
            dnn_hidden_units=[4],
            config=cn.estimators.RunConfig(tf_random_seed=0, log_step_count_steps=0),
        )
        original, input_pipeline.CHUNK_ROWS = input_pipeline.CHUNK_ROWS, chunk_rows
        try:
            est.train(pairs)
        finally:
            input_pipeline.CHUNK_ROWS = original
        weights.append(est.get_weights())
    assert weights[0].keys() == weights[1].keys()
    for name in weights[0]:
        np.testing.assert_array_equal(weights[0][name], weights[1][name], err_msg=name)


def test_at_most_limit_batches_are_read():
    read = []

    def source():
        for i, b in enumerate(record_batches([8] * 10)):
            read.append(i)
            yield b.drop_columns(["y"]), b.column("y")

    got = list(input_pipeline.transformed_batches(network(), source(), limit=3))
    assert len(got) == 3 and read == [0, 1, 2]


def test_a_bad_batch_in_a_chunk_fails_at_its_own_turn():
    data = record_batches([8] * 4)
    bad = data[2].set_column(3, "x", pa.array([np.nan] * 8, pa.float32()))
    pairs = [(b.drop_columns(["y"]), b.column("y")) for b in data[:2] + [bad] + data[3:]]
    batches = input_pipeline.transformed_batches(network(), pairs)
    assert next(batches)[2].num_rows == 8
    assert next(batches)[2].num_rows == 8
    with pytest.raises(ValueError, match="'x'"):
        next(batches)


def test_a_chunk_reuses_the_dictionary_hashes_of_the_chunk_before():
    words = pa.array([f"w{i}" for i in range(40)])
    indices = np.random.default_rng(0).integers(0, 40, 64).astype(np.int32)
    shared = pa.DictionaryArray.from_arrays(pa.array(indices), words)
    other = pa.DictionaryArray.from_arrays(
        pa.array(indices), pa.array([f"w{i}" for i in range(40)])
    )
    batch = pa.record_batch({"a": shared, "b": shared})
    net = Network(
        LinearPart(
            [fc.categorical_column_with_hash_bucket(k, 1000) for k in "ab"]
            + [fc.crossed_column(["a", "b"], 50)],
            1,
        )
    )
    first = net.transform(batch.slice(0, 32))
    again = fc.TransformCache(batch.slice(32, 32), first)
    fresh = fc.TransformCache(pa.record_batch({"a": other, "b": other}).slice(32, 32), first)
    for cache in (again, fresh):
        cache.compute(net.feature_columns)
        assert cache.previous is None  # dropped once used: no chain of every batch in memory
    reused = again.memo(("fingerprint64", "a"), None)
    assert reused is first.memo(("fingerprint64", "a"), None)
    assert fresh.memo(("fingerprint64", "a"), None) is not reused  # other buffers, not reused
    alone = net.transform(batch.slice(32, 32))
    for column in net.feature_columns:
        same_transform(alone.get(column), again.get(column))
        same_transform(alone.get(column), fresh.get(column))


def test_same_array_means_the_same_memory():
    a = pa.array(["x", "y", "z"])
    assert same_array(a, a.slice(0)) and not same_array(a, a.slice(1))
    assert not same_array(a, pa.array(["x", "y", "z"]))  # equal, but other buffers
    assert not same_array(a, pa.array([1, 2, 3]))


def test_training_groups_the_rows_of_fused_tables_on_the_input_thread(monkeypatch):
    """The sort behind summing the repeated rows of a fused table's gradient happens
    ahead, on the input thread, never in the training step (every table here is fused)."""
    import threading

    from colonnade.core import indexed_rows
    from colonnade.feature_columns import fused_tables

    on_main = []

    def noting_the_thread(original):
        def grouping(*args):
            on_main.append(threading.current_thread() is threading.main_thread())
            return original(*args)

        return grouping

    for name in ("group_rows", "group_rows_by_column"):
        grouping = noting_the_thread(getattr(indexed_rows, name))
        monkeypatch.setattr(indexed_rows, name, grouping)
        monkeypatch.setattr(fused_tables, name, grouping)
    wide, _ = columns()
    color, tags = wide[0], wide[1].categorical_column
    deep = [fc.numeric_column("x"), fc.embedding_column(color, 3), fc.embedding_column(tags, 3)]
    est = cn.estimators.DNNLinearCombinedClassifier(
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=[4],
        config=cn.estimators.RunConfig(tf_random_seed=0, log_step_count_steps=0),
    )
    data = record_batches([16] * 3)
    est.train([(b.drop_columns(["y"]), b.column("y").to_numpy()) for b in data])
    assert on_main and not any(on_main)
