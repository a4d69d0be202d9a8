"""``Dataset.from_ray`` and Ray datasets given to ``fit``/``evaluate``/``predict``: the rows
Ray holds, streamed, through every Dataset step, and models equal to those trained from
the same rows in pandas."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from datahelpers import ids_of, make_table

import colonnade as cn

# The one session-wide Ray cluster of tests/distribute (never ray.init per test): its
# fixture, loaded from there rather than written twice.
_spec = importlib.util.spec_from_file_location(
    "_ray_conftest", Path(__file__).parents[1] / "distribute" / "conftest.py"
)
_ray_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ray_conftest)
ray_cluster = _ray_conftest.ray_cluster

fc = cn.feature_columns
E = cn.estimators


def two_blocks(ray, table):
    """A Ray dataset of ``table`` in two blocks of unequal size."""
    return ray.data.from_arrow([table.slice(0, 300), table.slice(300)])


def frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n).astype(float)
    city = rng.choice(["paris", "rome", "oslo", "lima"], n)
    y = ((age > 40) ^ (city == "rome")).astype(np.int64)
    return pd.DataFrame({"age": age, "city": city, "y": y})


def wide_deep(model_dir):
    age = fc.numeric_column("age", normalizer_fn=fc.standardize(45.0, 15.0))
    city = fc.categorical_column_with_hash_bucket("city", 16)
    buckets = fc.bucketized_column(fc.numeric_column("age"), [30, 40, 50])
    return E.DNNLinearCombinedClassifier(
        linear_feature_columns=[buckets, city],
        dnn_feature_columns=[age, fc.embedding_column(city, 3)],
        dnn_hidden_units=[8],
        config=E.RunConfig(model_dir=str(model_dir), tf_random_seed=7, log_step_count_steps=0),
    )


def weights(est):
    names = [n for n in est.get_variable_names() if "global_step" not in n]
    return {n: np.asarray(est.get_variable_value(n)) for n in names}


def test_from_ray_yields_the_ray_datasets_rows_with_columns_and_filter(ray_cluster):
    table = make_table(1000)
    ds = cn.data.Dataset.from_ray(two_blocks(ray_cluster, table))
    assert ds.schema == table.schema
    assert ds.to_table().equals(table)
    x = table.column("x").to_numpy()
    picked = cn.data.Dataset.from_ray(
        two_blocks(ray_cluster, table), columns=["id", "s"], filter=pc.field("x") > 0.5
    ).to_table()
    assert picked.schema.names == ["id", "s"]
    assert picked.column("id").to_pylist() == np.flatnonzero(x > 0.5).tolist()
    assert picked.column("s").to_pylist() == [f"s{i % 7}" for i in np.flatnonzero(x > 0.5)]


def test_from_ray_label_batch_shuffle_shard_prefetch(ray_cluster):
    table = make_table(1000)
    ds = cn.data.Dataset.from_ray(two_blocks(ray_cluster, table), label="k")
    batches = list(ds.batch(64, drop_remainder=True).prefetch(2))
    assert [f.num_rows for f, _ in batches] == [64] * 15
    assert batches[0][0].schema.names == ["id", "x", "s"]
    np.testing.assert_array_equal(
        np.concatenate([labels for _, labels in batches]), table.column("k").to_numpy()[:960]
    )
    shards = [ids_of(ds.shard(3, i)) for i in range(3)]
    assert sorted(sum(shards, [])) == list(range(1000))  # disjoint and complete
    assert shards[1] == list(range(1, 1000, 3))
    shuffled = ds.shuffle(200, seed=5)
    first, again = ids_of(shuffled.iterate(0)), ids_of(shuffled.iterate(0))
    assert sorted(first) == list(range(1000)) and first == again and first != sorted(first)
    assert ids_of(shuffled.iterate(1)) != first  # a new order each pass
    full = ids_of(ds.shuffle(None, seed=5))
    assert sorted(full) == list(range(1000)) and full != list(range(1000))


def test_from_ray_streams_instead_of_materializing(ray_cluster):
    # 10^9 int64 rows are 8 GB: only a streamed read returns the first batch.
    ds = cn.data.Dataset.from_ray(ray_cluster.data.range(10**9)).batch(10).prefetch(1)
    stream = iter(ds)
    assert next(stream).column("id").to_pylist() == list(range(10))
    stream.close()


def test_from_ray_casts_a_block_to_the_datasets_type(ray_cluster):
    def cast(batch):  # the second block comes out as int32, the first as double
        ids = batch.column("id")
        kind = pa.float64() if ids[0].as_py() < 2 else pa.int32()
        return pa.table({"id": ids, "x": pc.cast(ids, kind)})

    rds = ray_cluster.data.range(4, override_num_blocks=2).map_batches(cast, batch_format="pyarrow")
    table = cn.data.Dataset.from_ray(rds).to_table()
    assert table.schema.field("x").type == pa.float64()
    assert table.column("x").to_pylist() == [0.0, 1.0, 2.0, 3.0]


def test_model_fit_on_ray_equals_model_fit_on_pandas(ray_cluster, tmp_path):
    df = frame()
    rds = ray_cluster.data.from_pandas([df.iloc[:150], df.iloc[150:]])
    for shuffle in (False, True):  # True: each epoch a seeded streamed shuffle
        from_pandas, from_ray = (
            wide_deep(tmp_path / f"p{shuffle}"),
            wide_deep(tmp_path / f"r{shuffle}"),
        )
        # Same seeded order: the Dataset over pandas and over Ray shuffled the same way.
        data = cn.data.Dataset.from_pandas(df, label="y")
        if shuffle:
            data = data.shuffle(100, seed=3)
            ray_data = cn.data.Dataset.from_ray(rds, label="y").shuffle(100, seed=3)
            from_pandas.train(data.repeat(2).batch(16))
            from_ray.train(ray_data.repeat(2).batch(16))
        else:
            from_pandas.fit(df, label="y", epochs=2, batch_size=16, shuffle=False, verbose=0)
            from_ray.fit(rds, label="y", epochs=2, batch_size=16, shuffle=False, verbose=0)
        assert from_ray.global_step == from_pandas.global_step == 50
        expected, got = weights(from_pandas), weights(from_ray)
        assert got.keys() == expected.keys()
        for name in expected:
            np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


def test_fit_shuffle_mixes_the_blocks_of_a_materialized_ray_dataset(ray_cluster):
    from colonnade.estimators.inputs.input_fn import as_dataset

    rows = 300_000  # label-sorted: 70% zeros first, in 30 blocks of 10k rows
    df = pd.DataFrame({"id": np.arange(rows), "y": (np.arange(rows) >= rows * 0.7) * 1})
    rds = ray_cluster.data.from_pandas([df.iloc[i : i + 10_000] for i in range(0, rows, 10_000)])

    def epoch(seed):
        batches = list(as_dataset(rds, label="y", batch_size=1000, shuffle=True, seed=seed))
        ids = np.concatenate([f.column("id").to_numpy() for f, _ in batches])
        return ids, np.array([labels.mean() for _, labels in batches])

    ids, rates = epoch(0)
    np.testing.assert_array_equal(np.sort(ids), np.arange(rows))  # each row once
    # In block order the first 210 batches are all zeros; a 64k-row buffer alone would
    # still give zeros for the first ~145. Blocks in a random order bring ones early.
    assert rates[:50].max() > 0, rates[:50]
    np.testing.assert_array_equal(epoch(0)[0], ids)  # the same seed, the same order
    assert not np.array_equal(epoch(1)[0], ids)  # another seed, another order


def test_evaluate_and_predict_take_a_ray_dataset(ray_cluster, tmp_path):
    df = frame()
    est = wide_deep(tmp_path / "m")
    est.fit(df, label="y", epochs=2, verbose=0)
    rds = ray_cluster.data.from_pandas([df.iloc[:100], df.iloc[100:]])
    assert est.evaluate(rds, label="y", verbose=0) == est.evaluate(df, label="y", verbose=0)
    got, expected = est.predict(rds, verbose=0), est.predict(df, verbose=0)
    pd.testing.assert_frame_equal(got, expected)
    predictor = cn.load(est.export_saved_model(tmp_path / "export"))
    pd.testing.assert_frame_equal(predictor.predict(rds), predictor.predict(df))


def test_ray_input_errors(ray_cluster, tmp_path):
    rds = ray_cluster.data.from_pandas(frame(20))
    with pytest.raises(TypeError, match="from_ray takes a ray.data.Dataset; got DataFrame"):
        cn.data.Dataset.from_ray(frame(20))
    with pytest.raises(KeyError, match="'label'"):
        cn.data.Dataset.from_ray(rds, label="label")
    empty = ray_cluster.data.from_pandas(pd.DataFrame({"x": pd.Series([], dtype=float)}))
    with pytest.raises(ValueError, match="no rows and Ray reports no schema"):
        cn.data.Dataset.from_ray(empty)
    est = wide_deep(tmp_path / "m")
    with pytest.raises(TypeError, match="yields rows, not \\(features, labels\\) batches"):
        est.train(rds)
    with pytest.raises(TypeError, match="can be attached only to a DataFrame"):
        est.fit(rds, label=np.zeros(20))


def test_without_ray_from_ray_names_the_extra(ray_cluster, monkeypatch):
    rds = ray_cluster.data.from_pandas(frame(20))
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.setitem(sys.modules, "ray.data", None)
    with pytest.raises(ImportError, match='pip install "colonnade\\[ray\\]"'):
        cn.data.Dataset.from_ray(rds)


def test_colonnade_works_without_ray():
    script = (
        "import sys\n"
        "sys.modules['ray'] = None\n"  # as if Ray were not installed
        "import pandas as pd, colonnade as cn\n"
        "from colonnade.estimators.inputs.input_fn import is_tabular\n"
        "assert not is_tabular(object())\n"
        "ds = cn.data.Dataset.from_pandas(pd.DataFrame({'x': [1.0], 'y': [0]}), label='y')\n"
        "assert next(iter(ds))[1].tolist() == [0]\n"
        "try:\n"
        "    cn.data.Dataset.from_ray(None)\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == (
        'Dataset.from_ray needs Ray, which is not installed: pip install "colonnade[ray]"'
    )
