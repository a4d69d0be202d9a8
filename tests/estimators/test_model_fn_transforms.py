"""A model_fn's feature-column layers share one transform cache per batch (issue 27):
``input_layer``/``linear_model`` called several times on the ``features`` a model_fn gets
transform each column once, and give the numbers a fresh plain dict gives."""

import copy
import pickle
import threading

import numpy as np
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.estimators.spec import model_fn
from colonnade.feature_columns import BatchFeatures
from colonnade.feature_columns import categorical as categorical_mod
from colonnade.feature_columns.transform_cache import views_arrow

E = cn.estimators
fc = cn.feature_columns

ROWS = 8
AGE = np.array([1.0, 3.0, 0.5, 7.0, 2.0, 9.0, 4.0, 6.0])
CITY = np.array(["rome", "oslo", "rome", "lima", "oslo", "rome", "kyiv", "lima"])


def batches():
    """Plain columns (read from Arrow); a column with nulls, a dictionary-encoded and a
    list column (read from the model_fn's numpy/Arrow values), and a fixed-size list
    column."""
    data = {
        "age": AGE,
        "city": pa.array(CITY).dictionary_encode(),
        "rank": np.arange(ROWS, dtype=np.int64) % 3,
        "income": pa.array([1.0, None, 2.0, 4.0, None, 8.0, 16.0, 32.0]),
        "tags": pa.array([["a"], ["b", "c"], [], ["a"], ["c"], ["b"], ["a", "b"], []]),
        "xy": np.arange(2 * ROWS, dtype=np.float64).reshape(ROWS, 2),
    }
    return cn.data.Dataset.from_tensor_slices((data, np.zeros(ROWS))).batch(ROWS)


def columns():
    city = fc.categorical_column_with_hash_bucket("city", 50)
    tags = fc.categorical_column_with_vocabulary_list("tags", ["a", "b", "c"])
    rank = fc.categorical_column_with_identity("rank", 3)
    age = fc.numeric_column("age", normalizer_fn=np.log1p)
    deep = [
        age,
        fc.numeric_column("income", default_value=-1.0),
        fc.numeric_column("xy", shape=(2,)),
        fc.embedding_column(city, 4),
        fc.embedding_column(tags, 3),
        fc.indicator_column(rank),
    ]
    wide = [fc.bucketized_column(fc.numeric_column("age"), [2.0, 5.0]), city, tags, rank]
    return deep, wide


def train_once(tmp_path, model_fn):
    E.Estimator(model_fn, model_dir=str(tmp_path), config=E.RunConfig(tf_random_seed=0)).train(
        lambda: batches(), steps=1
    )


def spec(mode, *parts):
    loss = cn.core.reduce_mean(sum(cn.core.reduce_sum(p) for p in parts))
    return E.EstimatorSpec(mode, loss=loss, train_op=loss)


def test_two_input_layers_and_a_linear_model_transform_each_column_once(tmp_path, monkeypatch):
    counts = {}
    real = categorical_mod.HashedCategoricalColumn.transform

    def counting(self, cache):
        counts[self.name] = counts.get(self.name, 0) + 1
        return real(self, cache)

    monkeypatch.setattr(categorical_mod.HashedCategoricalColumn, "transform", counting)
    deep, wide = columns()
    calls = []

    def model_fn(features, labels, mode):
        calls.append(mode)
        fm = fc.input_layer(features, deep[3:5])
        tower = fc.input_layer(features, deep)
        return spec(mode, fm, tower, fc.linear_model(features, wide))

    train_once(tmp_path, model_fn)
    assert calls and counts == {"city": len(calls)}  # once per call, not once per layer


def test_shared_transforms_give_the_numbers_a_fresh_plain_dict_gives(tmp_path):
    deep, wide = columns()
    seen = {}

    def model_fn(features, labels, mode):
        assert isinstance(features, BatchFeatures) and isinstance(features, dict)
        tower, linear = fc.DenseFeatures(deep, seed=0), fc.LinearModel(wide, seed=0)
        shared = [tower(features), linear(features)]
        fresh = [tower(dict(features)), linear(dict(features))]
        seen["shared"] = [np.array(x.numpy()) for x in shared]
        seen["fresh"] = [np.array(x.numpy()) for x in fresh]
        seen["features"] = dict(features)
        return spec(mode, *shared)

    train_once(tmp_path, model_fn)
    for a, b in zip(seen["shared"], seen["fresh"]):
        np.testing.assert_array_equal(a, b)
    tower = seen["shared"][0]
    np.testing.assert_allclose(tower[:, 0], np.log1p(AGE), rtol=1e-6)  # a plain-numpy replay
    # by name: age, city_embedding (4), income, rank_indicator (3), tags_embedding (3), xy (2)
    np.testing.assert_array_equal(tower[:, 5], [1.0, -1.0, 2.0, 4.0, -1.0, 8.0, 16.0, 32.0])
    np.testing.assert_array_equal(tower[:, 6:9], np.eye(3)[np.arange(ROWS) % 3])
    np.testing.assert_array_equal(tower[:, 12:], np.arange(2 * ROWS).reshape(ROWS, 2))
    features = seen["features"]
    assert isinstance(features["tags"], pa.ListArray) and features["xy"].shape == (ROWS, 2)
    assert features["city"].tolist() == CITY.tolist()


def test_a_feature_the_model_fn_changes_is_read_as_changed(tmp_path):
    age = fc.numeric_column("age")
    seen = []

    def model_fn(features, labels, mode):
        before = fc.input_layer(features, [age])
        features["age"] = features["age"] * 2
        after = fc.input_layer(features, [age])
        del features["city"]
        seen.append((np.array(before.numpy()), np.array(after.numpy())))
        return spec(mode, before, after)

    train_once(tmp_path, model_fn)
    before, after = seen[-1]
    np.testing.assert_array_equal(before[:, 0], AGE)
    np.testing.assert_array_equal(after[:, 0], 2 * AGE)


def test_batch_features_pickle_and_copy_as_plain_dicts():
    batch = pa.record_batch({"x": [1.0, 2.0], "k": ["a", None]})
    features = model_fn.features_dict(batch)
    assert isinstance(features, BatchFeatures)
    copies = (pickle.loads(pickle.dumps(features)), copy.copy(features), copy.deepcopy(features))
    for other in copies:
        assert type(other) is dict
        assert other.keys() == features.keys()
        np.testing.assert_array_equal(other["x"], [1.0, 2.0])
        assert other["k"].tolist() == ["a", None]


def test_only_read_only_views_of_arrow_columns_are_read_from_arrow():
    viewed = [pa.array([1, 2]), pa.array([0.5, 1.0], pa.float32())]
    for column in viewed:
        assert views_arrow(column.to_numpy(), column), column.type
    copied = [
        pa.array([1.0, None]),
        pa.array(["a", "b"]),
        pa.array([True, False]),
        pa.array(["a", "b", "a"]).dictionary_encode(),
    ]
    for column in copied:
        assert not views_arrow(column.to_numpy(zero_copy_only=False), column), column.type
    column = pa.array([1.0, 2.0])
    assert not views_arrow(column.to_numpy().copy(), column)
    assert not views_arrow(column.to_numpy(), pa.array([["a"], []]))


def test_the_arrays_a_model_fn_gets_are_read_only_as_tfs_tensors():
    batch = pa.record_batch({"x": [1.0, None], "k": ["a", "b"], "b": [True, False]})
    features = model_fn.features_dict(batch)
    for key in ("x", "k", "b"):
        with pytest.raises(ValueError, match="read-only"):
            features[key][0] = features[key][1]


def test_transforms_made_ahead_on_the_input_thread_match_a_fresh_dict(tmp_path, monkeypatch):
    """Small batches are transformed a chunk at a time on the input thread for the
    columns of the layers the model_fn made (in an earlier call); each step's features
    get their cut."""
    threads = set()
    real = categorical_mod.HashedCategoricalColumn.transform

    def recording(self, cache):
        threads.add(threading.current_thread().name)
        return real(self, cache)

    monkeypatch.setattr(categorical_mod.HashedCategoricalColumn, "transform", recording)
    city = fc.categorical_column_with_hash_bucket("city", 7)
    tags = fc.categorical_column_with_vocabulary_list("tags", ["a", "b", "c"])
    ages = fc.bucketized_column(fc.numeric_column("age"), [2.0, 5.0])
    dense = [
        fc.numeric_column("age", normalizer_fn=np.log1p),
        fc.numeric_column("income", default_value=-1.0),
        fc.indicator_column(city),
        fc.indicator_column(tags),
        fc.indicator_column(ages),
    ]
    seen = []

    def model_fn(features, labels, mode):
        shared = fc.input_layer(features, dense)
        fresh = fc.input_layer(dict(features), dense)
        seen.append((np.array(shared.numpy()), np.array(fresh.numpy()), features["age"]))
        return spec(mode, shared, fc.linear_model(features, [city, tags, ages]))

    data = cn.data.Dataset.from_tensor_slices(
        (
            {
                "age": np.tile(AGE, 4),
                "city": pa.array(np.tile(CITY, 4)).dictionary_encode(),
                "income": pa.array([1.0, None, 2.0, 4.0] * 8),
                "tags": pa.array([["a"], ["b", "c"], [], ["a"]] * 8),
            },
            np.zeros(4 * ROWS),
        )
    )
    estimator = E.Estimator(model_fn, model_dir=str(tmp_path))
    estimator.train(lambda: data.batch(4), steps=1)  # makes the layers
    seen.clear()
    threads.clear()
    estimator.train(lambda: data.repeat(3).batch(4), steps=24)
    assert len(seen) == 24
    for shared, fresh, age in seen:
        np.testing.assert_array_equal(shared, fresh)
        np.testing.assert_allclose(shared[:, 0], np.log1p(age), rtol=1e-6)
    assert threads - {threading.main_thread().name}, "nothing was transformed ahead"


def test_a_column_the_input_thread_cannot_transform_is_left_to_the_model_fn(tmp_path):
    """A layer made in an earlier call whose feature a later input lacks fails only if
    the model_fn calls it: the input thread's failed transform is dropped."""
    age = fc.numeric_column("age")
    calls = []

    def model_fn(features, labels, mode):
        calls.append(sorted(features))
        w = cn.core.get_variable("w", (1,), initializer=cn.core.initializers.zeros())
        parts = [w * 1.0]
        if "age" in features:
            parts.append(fc.input_layer(features, [age]))
        return spec(mode, *parts)

    estimator = E.Estimator(model_fn, model_dir=str(tmp_path))
    with_age = cn.data.Dataset.from_tensor_slices(({"age": AGE, "k": CITY}, np.zeros(ROWS)))
    estimator.train(lambda: with_age.batch(4), steps=1)
    without = cn.data.Dataset.from_tensor_slices(({"k": CITY}, np.zeros(ROWS)))
    estimator.train(lambda: without.batch(4), steps=2)
    assert calls[-2:] == [["k"], ["k"]]
