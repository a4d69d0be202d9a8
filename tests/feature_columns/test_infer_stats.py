"""The bounded state of cn.feature_columns.infer's pass (feature_columns/infer_stats.py)."""

import pyarrow as pa

from colonnade.feature_columns import infer_stats


def test_bounded_state_on_a_large_stream(monkeypatch):
    monkeypatch.setattr(infer_stats, "DISTINCT_CAP", 200)
    counter = infer_stats.DistinctCounter()
    reservoir = infer_stats.Reservoir(300, seed=0)
    for start in range(0, 50_000, 5_000):
        values = pa.array([f"v{i}" for i in range(start, start + 5_000)])
        counter.add(values)
        reservoir.add(pa.record_batch([values], names=["v"]))
        assert len(counter.counts) <= 201 and len(counter.sketch) <= infer_stats.SKETCH_SIZE
        assert reservoir.table.num_rows <= 300
    assert not counter.exact
    assert abs(counter.distinct() - 50_000) < 0.1 * 50_000
