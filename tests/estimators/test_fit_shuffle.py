"""What ``fit(shuffle=True)`` builds: a full permutation per epoch for in-memory data."""

import numpy as np
import pandas as pd
import pyarrow as pa

import colonnade as cn
from colonnade.estimators.inputs.input_fn import as_dataset


def sorted_frame(rows=30_000):
    """Label-sorted rows: 70% zeros first, then ones."""
    return pd.DataFrame({"id": np.arange(rows), "y": (np.arange(rows) >= rows * 0.7) * 1})


def _epoch(data, seed, batch_size=32):
    ds = as_dataset(data, label="y", batch_size=batch_size, shuffle=True, seed=seed)
    return list(ds)


def test_fit_shuffle_permutes_a_label_sorted_frame_each_epoch():
    frame = sorted_frame()
    epochs = [_epoch(frame, seed) for seed in (0, 1)]
    for batches in epochs:
        ids = np.concatenate([f.column("id").to_numpy() for f, _ in batches])
        np.testing.assert_array_equal(np.sort(ids), np.arange(len(frame)))  # once each
        # The first 100 batches (3,200 rows, far less than the 65k rows a buffer held):
        # near the 30% rate, not all zeros as a buffer shuffle of sorted data gives.
        rate = np.mean([labels.mean() for _, labels in batches[:100]])
        assert 0.25 < rate < 0.35, rate
        assert not all(labels.max() == 0 for _, labels in batches[:10])
    first = [np.concatenate([f.column("id").to_numpy() for f, _ in b]) for b in epochs]
    assert not np.array_equal(first[0], first[1])  # a new order each epoch
    again = np.concatenate([f.column("id").to_numpy() for f, _ in _epoch(frame, 0)])
    np.testing.assert_array_equal(again, first[0])  # deterministic with a seed


def test_fit_shuffle_permutes_arrow_tables_and_cached_datasets():
    frame = sorted_frame(300_000)  # far more rows than a 64-batch buffer holds
    table = pa.Table.from_pandas(frame, preserve_index=False)
    cached = cn.data.Dataset.from_arrow(table, label="y").cache()
    for data in (table, cached):
        batches = _epoch(data, 0, batch_size=1000)
        rates = np.array([labels.mean() for _, labels in batches])
        assert np.all((rates > 0.2) & (rates < 0.4)), rates


def test_fit_on_label_sorted_frame_learns_like_random_order():
    rng = np.random.default_rng(0)
    n = 40_000
    x = rng.normal(size=n)
    y = (x + 0.5 * rng.normal(size=n) > 0).astype(int)
    frame = pd.DataFrame({"x": x, "y": y}).sort_values("y", ignore_index=True)
    est = cn.estimators.LinearClassifier(
        [cn.feature_columns.numeric_column("x")],
        config=cn.estimators.RunConfig(tf_random_seed=0, log_step_count_steps=0),
    )
    est.fit(frame, label="y", batch_size=256)
    accuracy = est.evaluate(frame, label="y")["accuracy"]
    assert accuracy > 0.8, accuracy
