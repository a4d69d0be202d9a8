"""feature_columns/transform_cache.py: TransformCache (each transform once, threads, cutting
rows, borrowing the previous batch's hashes) and transform_features."""

import threading
import time

import numpy as np
import pyarrow as pa
import pytest

import colonnade.feature_columns as fc
from colonnade.feature_columns import CategoricalIds, TransformCache
from colonnade.feature_columns import dictionary_hashes as dictionary_hashes
from colonnade.feature_columns import transform_cache as cache_mod


def counting(monkeypatch, module, name):
    """Replace ``module.name`` by a wrapper that counts its calls; returns the count list."""
    calls = []
    real = getattr(module, name)

    def wrapper(*args, **kwargs):
        calls.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def as_plain(value):
    """A transform as plain Python, to compare two of them."""
    if isinstance(value, CategoricalIds):
        weights = None if value.weights is None else value.weights.tolist()
        return ("ids", value.to_lists(), weights, value.num_buckets)
    return ("array", np.asarray(value).tolist())


# --------------------------------------------------------------------------- computed once


def test_a_transform_two_columns_need_is_computed_once(monkeypatch):
    encodes = counting(monkeypatch, cache_mod, "encode")
    flattens = counting(monkeypatch, cache_mod, "flatten")
    vocab = fc.categorical_column_with_vocabulary_list("s", ["a", "b"], num_oov_buckets=1)
    lookups = counting(monkeypatch, type(vocab), "transform")
    columns = [
        fc.categorical_column_with_hash_bucket("s", 10),
        fc.crossed_column(["s", "t"], 20),
        vocab,
        fc.indicator_column(vocab),  # the same categorical column, twice more
        fc.embedding_column(vocab, 2),
    ]
    features = {"s": [["a", "c"], ["b"], []], "t": ["x", "y", "x"]}
    cache = TransformCache(features)
    out = cache.compute(columns, num_threads=1)
    assert len(lookups) == 1  # vocab's ids: once, though three columns read them
    assert len(encodes) == 2 and len(flattens) == 2  # "s" once, "t" once
    assert cache.get(vocab) is out[2] and cache.get(columns[4]) is out[2]
    assert out[2].to_lists() == [[0, 2], [1], []]
    np.testing.assert_array_equal(out[3], [[1, 0, 1], [0, 1, 0], [0, 0, 0]])
    assert cache.has(("encoded", "s")) and not cache.has(("encoded", "absent"))
    # asking again computes nothing
    assert cache.compute(columns) == out and len(lookups) == 1 and len(encodes) == 2


def test_memo_computes_once_and_caches_what_it_returned():
    cache = TransformCache({"x": [1.0]})
    calls = []
    first = cache.memo("key", lambda: calls.append(1) or ["value"])
    assert cache.memo("key", lambda: calls.append(1) or ["other"]) is first
    assert first == ["value"] and len(calls) == 1 and cache.has("key")


def test_memo_under_several_threads_computes_once(monkeypatch):
    """Eight columns on two threads all need the same base transform, which is slow: the
    thread that asks second waits for the first thread's result instead of computing it."""
    calls, threads = [], set()
    lock = threading.Lock()

    def slow_identity(x):
        with lock:
            calls.append(threading.current_thread().name)
        time.sleep(0.05)
        return x

    base = fc.numeric_column("x", normalizer_fn=slow_identity)
    bucketized = [fc.bucketized_column(base, [float(i)]) for i in range(8)]
    real = type(bucketized[0]).transform

    def recording(self, cache):
        threads.add(threading.current_thread().name)
        return real(self, cache)

    monkeypatch.setattr(type(bucketized[0]), "transform", recording)
    cache = TransformCache({"x": np.arange(1000.0)})
    results = cache.compute(bucketized + [base], num_threads=2)
    assert len(threads) == 2  # the columns did run on two threads
    assert len(calls) == 1 and len(results) == 9
    for i, ids in enumerate(results[:8]):
        assert ids.ids.tolist() == (np.arange(1000) >= i).astype(int).tolist()
    np.testing.assert_array_equal(results[8][:, 0], np.arange(1000.0))


def test_an_error_reaches_every_waiter_and_every_later_request():
    def failing(x):
        time.sleep(0.02)
        raise RuntimeError("normalizer broke")

    base = fc.numeric_column("x", normalizer_fn=failing)
    cols = [fc.bucketized_column(base, [float(i)]) for i in range(4)]
    cache = TransformCache({"x": np.arange(10.0)})
    with pytest.raises(RuntimeError, match="normalizer broke"):
        cache.compute(cols, num_threads=2)
    col = fc.numeric_column("x")
    cache = TransformCache({"x": [None, 1.0]})
    for _ in range(2):
        with pytest.raises(ValueError, match="1 null values"):
            cache.get(col)


# --------------------------------------------------------------------------- rows


def cut_columns():
    vocab = fc.categorical_column_with_vocabulary_list("s", ["a", "b", "c"], num_oov_buckets=2)
    ident = fc.categorical_column_with_identity("i", 5)
    buckets = fc.bucketized_column(fc.numeric_column("y"), [0.0, 1.0])
    return [
        fc.numeric_column("x", shape=(2,)),
        buckets,
        fc.categorical_column_with_hash_bucket("s", 7),
        vocab,
        fc.indicator_column(vocab),
        fc.embedding_column(vocab, 3),
        fc.weighted_categorical_column(ident, "w"),
        fc.crossed_column(["s", buckets], 11),
    ]


def cut_features(n=10):
    rng = np.random.default_rng(0)
    words = ["a", "b", "c", "d", "e"]
    return pa.table(
        {
            "x": pa.array(rng.normal(size=(n, 2)).tolist(), pa.list_(pa.float64(), 2)),
            "y": rng.normal(size=n),
            "s": [[words[j] for j in rng.integers(0, 5, size=k)] for k in rng.integers(0, 4, n)],
            "i": [[int(v) for v in rng.integers(0, 5, size=2)] for _ in range(n)],
            "w": [rng.uniform(0.5, 2.0, size=2).tolist() for _ in range(n)],
        }
    )


@pytest.mark.parametrize("start, stop", [(0, 10), (3, 7), (0, 1), (9, 10), (4, 4)])
def test_rows_cuts_match_transforming_the_slice(start, stop):
    columns, features = cut_columns(), cut_features()
    whole = TransformCache(features)
    whole.compute(columns)
    piece = features.slice(start, stop - start)
    cut = whole.rows(start, stop, piece)
    assert cut is not None and cut.num_rows == stop - start
    direct = TransformCache(piece)
    for column in columns:
        assert cut.has(("column", column)), column.name
        assert as_plain(cut.get(column)) == as_plain(direct.get(column)), column.name
    # only column results travel; intermediate ones (encodings, hashes) are the chunk's
    assert not cut.has(("encoded", "s")) and not cut.has(("fingerprint64", "s"))


def test_rows_of_a_sequence_column_cannot_be_cut():
    seq = fc.sequence_numeric_column("q")
    cache = TransformCache({"q": [[1.0, 2.0], [3.0]]})
    cache.compute([seq])
    assert cache.rows(0, 1) is None


# --------------------------------------------------------------------------- previous


def dictionary_batch(indices, dictionary):
    """A batch whose string features share one Arrow dictionary (as consecutive chunks of a
    Parquet row group read with read_dictionary do)."""
    return pa.table(
        {
            key: pa.DictionaryArray.from_arrays(pa.array(idx, pa.int32()), dictionary)
            for key, idx in indices.items()
        }
    )


def test_previous_lends_its_dictionary_hashes_and_compute_drops_it(monkeypatch):
    hashes = counting(monkeypatch, dictionary_hashes, "fingerprint64")
    dictionary = pa.array(["apple", "banana", "cherry", "date"])
    columns = [
        fc.categorical_column_with_hash_bucket("s", 50),
        fc.categorical_column_with_hash_bucket("t", 50),
    ]
    first = TransformCache(dictionary_batch({"s": [0, 1, 2], "t": [3, 3, 0]}, dictionary))
    first.compute(columns)
    assert len(hashes) == 1  # both keys' dictionaries in one call

    second_features = dictionary_batch({"s": [3, 2, 2, 1], "t": [1, 0, 0, 0]}, dictionary)
    second = TransformCache(second_features, previous=first)
    assert second.previous is first
    got = second.compute(columns)
    assert len(hashes) == 1  # borrowed, not hashed again
    assert second.previous is None  # dropped: the batches do not chain in memory
    assert second.memo(("fingerprint64", "s"), None) is first.memo(("fingerprint64", "s"), None)
    # ...and the ids are what hashing the batch afresh gives
    fresh = TransformCache(second_features).compute(columns)
    assert [as_plain(v) for v in got] == [as_plain(v) for v in fresh]
    assert len(hashes) == 2

    # another dictionary: nothing to borrow, the hashes are computed
    other = pa.array(["apple", "banana", "cherry", "date"])  # equal values, other memory
    third = TransformCache(dictionary_batch({"s": [0], "t": [1]}, other), previous=second)
    third.compute(columns)
    assert len(hashes) == 3 and third.previous is None


# --------------------------------------------------------------------------- transform_features


def test_transform_features_returns_each_columns_transform_by_name():
    vocab = fc.categorical_column_with_vocabulary_list("s", ["a", "b"])
    out = fc.transform_features(
        {"x": [0.5, 3.0], "s": ["b", "z"]},
        [fc.numeric_column("x"), fc.indicator_column(vocab), fc.embedding_column(vocab, 2)],
    )
    assert list(out) == ["x", "s_indicator", "s_embedding"]
    np.testing.assert_array_equal(out["x"], [[0.5], [3.0]])
    np.testing.assert_array_equal(out["s_indicator"], [[0, 1], [0, 0]])
    assert out["s_embedding"].to_lists() == [[1], [-1]]


def test_transform_features_refuses_duplicate_names():
    with pytest.raises(ValueError, match="duplicate feature column names \\['x'\\]"):
        fc.transform_features({"x": [1.0]}, [fc.numeric_column("x"), fc.numeric_column("x", 2)])
