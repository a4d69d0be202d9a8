"""Target-aware bin edges (PLE-T): the thresholds of a one-feature regression tree, checked
against hand-computed splits and a brute-force replay of the squared-error rule."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from colonnade.feature_columns import infer_rules
from colonnade.feature_columns.infer import infer
from colonnade.feature_columns.infer_bins import label_target, tree_edges
from colonnade.feature_columns.infer_stats import ColumnStats, sample_labels


def _brute_force_best_edge(x, y, min_leaf):
    """The threshold minimizing the summed squared error of both sides, by trying every
    distinct value as the smallest value of the right side."""
    best, best_sse = None, np.inf
    for edge in np.unique(x)[1:]:
        left, right = y[x < edge], y[x >= edge]
        if len(left) < min_leaf or len(right) < min_leaf:
            continue
        sse = ((left - left.mean(0)) ** 2).sum() + ((right - right.mean(0)) ** 2).sum()
        if sse < best_sse - 1e-9:
            best, best_sse = float(edge), sse
    return best


def test_a_step_of_the_label_is_the_edge():
    x = np.arange(100.0)
    y = (x >= 37).astype(float)[:, None]
    assert tree_edges(x, y, max_leaves=20, min_leaf=5) == [37.0]  # pure sides: no more


def test_the_first_split_is_the_brute_force_best():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 50, 300).astype(float)
    y = (np.sin(x / 8.0) + rng.normal(scale=0.3, size=300))[:, None]
    assert tree_edges(x, y, max_leaves=2, min_leaf=10) == [_brute_force_best_edge(x, y, 10)]


def test_the_leaf_split_next_is_the_one_that_gains_most():
    # Hand-computed: the root splits at 10 (the 0 -> 10 step); on the right, the step to
    # 11 at 20 reduces the squared error by 10*10*1/20 = 5, on the left the 0 -> 0.5 step at
    # 5 by 5*5*0.25/10 = 0.625: the third leaf comes from the right.
    x = np.arange(30.0)
    y = np.select([x < 5, x < 10, x < 20], [0.0, 0.5, 10.0], 11.0)[:, None]
    assert tree_edges(x, y, max_leaves=2, min_leaf=2) == [10.0]
    assert tree_edges(x, y, max_leaves=3, min_leaf=2) == [10.0, 20.0]
    assert tree_edges(x, y, max_leaves=4, min_leaf=2) == [5.0, 10.0, 20.0]


def test_the_minimum_leaf_size_moves_the_edge():
    # Hand-computed: the step is at 3, but a left side needs 5 rows; of the cuts allowed,
    # 5 gains 2^2/5 + 15^2/15 - 17^2/20 = 1.35, 6 gains 1.05, and later ones less.
    x = np.arange(20.0)
    y = (x >= 3).astype(float)[:, None]
    assert tree_edges(x, y, max_leaves=2, min_leaf=5) == [5.0]


def test_every_leaf_holds_the_minimum_and_the_leaves_are_bounded():
    rng = np.random.default_rng(1)
    x = rng.normal(size=2000)
    y = rng.normal(size=(2000, 1))  # noise: the tree splits as long as it may
    edges = tree_edges(x, y, max_leaves=20, min_leaf=40)
    assert 0 < len(edges) <= 19
    sizes = np.bincount(np.searchsorted(edges, x, side="right"))
    assert sizes.min() >= 40 and sizes.sum() == 2000


def test_equal_values_stay_on_one_side_and_constants_give_no_edge():
    x = np.repeat([1.0, 2.0, 3.0], 10)
    y = np.arange(30.0)[:, None]  # a trend within each value's rows
    assert set(tree_edges(x, y, max_leaves=20, min_leaf=1)) <= {2.0, 3.0}
    assert tree_edges(np.full(50, 7.0), y[:1].repeat(50, 0) + np.arange(50)[:, None], 20, 1) == []
    assert tree_edges(np.arange(50.0), np.ones((50, 1)), 20, 1) == []  # a constant label


def test_a_multiclass_label_splits_where_the_classes_change():
    x = np.arange(60.0)
    classes = np.repeat([2, 0, 1], 20)
    y = np.eye(3)[classes]
    assert tree_edges(x, y, max_leaves=20, min_leaf=5) == [20.0, 40.0]


def test_label_target_one_hot_classes_and_standardized_numbers():
    table = pa.table({"c": ["b", "a", "c", "a"], "r": [1.0, 3.0, 5.0, 7.0]})
    classes = sample_labels(table.column("c"), "multiclass")  # ids by first appearance
    assert label_target(classes, "multiclass").tolist() == [
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
        [0, 1, 0],
    ]
    r = np.array([1.0, 3.0, 5.0, 7.0])
    numbers = sample_labels(table.column("r"), "regression")
    np.testing.assert_allclose(label_target(numbers, "regression")[:, 0], (r - 4) / r.std())


def _stats(name, values):
    stats = ColumnStats(name, pa.float64())
    stats.add(pa.array(values, type=pa.float64()))
    return stats


def test_numeric_columns_knots_include_the_label_step_and_skip_non_finite_rows(monkeypatch):
    monkeypatch.setattr(infer_rules, "TARGET_BINS", ("piecewise",))
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, 1000)
    x[:50] = np.inf  # rows the quantiles and the tree both skip
    target = (x >= 4.2).astype(float)[:, None]
    target[:50] = 1.0
    step = float(np.float32(x[np.isfinite(x) & (x >= 4.2)].min()))
    _, deep, reason = infer_rules.numeric_columns(_stats("x", x[50:]), x, target)
    assert step in deep[-1].edges
    assert "target-aware edges for the piecewise part" in reason
    assert "1 thresholds of a one-feature regression tree" in reason
    assert "the quantile boundaries and tree thresholds and the maximum as knots" in reason
    assert "buckets at the quantile boundaries (wide)" in reason


def test_without_a_target_or_with_the_rule_off_the_knots_are_quantiles(monkeypatch):
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, 1000)
    target = (x >= 4.2).astype(float)[:, None]
    stats = _stats("x", x)
    _, plain, reason = infer_rules.numeric_columns(stats, x)
    assert "target-aware" not in reason
    monkeypatch.setattr(infer_rules, "TARGET_BINS", ())
    _, off, _ = infer_rules.numeric_columns(stats, x, target)
    assert off[-1].edges == plain[-1].edges
    quantiles = sorted({float(np.float32(q)) for q in np.quantile(x, infer_rules.QUANTILES)})
    assert plain[-1].edges == (float(x.min()), *quantiles, float(x.max()))


@pytest.mark.parametrize("parts", [("wide",), ("embedding",), ("wide", "embedding", "piecewise")])
def test_each_part_merges_the_tree_edges_into_the_quantile_edges(monkeypatch, parts):
    monkeypatch.setattr(infer_rules, "TARGET_BINS", parts)
    x = np.arange(400.0)
    classes = np.repeat([0, 1, 2, 3], 100)
    wide, deep, reason = infer_rules.numeric_columns(_stats("x", x), x, np.eye(4)[classes])
    quantiles = sorted({float(np.float32(q)) for q in np.quantile(x, infer_rules.QUANTILES)})
    merged = sorted({*quantiles, 100.0, 200.0, 300.0})  # the class steps: the tree's splits
    bucketized, embedded = wide[0], deep[1].categorical_column
    assert list(bucketized.boundaries) == (merged if "wide" in parts else quantiles)
    assert list(embedded.boundaries) == (merged if "embedding" in parts else quantiles)
    knots = merged if "piecewise" in parts else quantiles
    assert deep[2].edges == (0.0, *knots, 399.0)
    assert "merged with the quantile edges" in reason
    if "wide" in parts:
        assert f"{len(merged) + 1} buckets at the quantile boundaries and tree thresholds" in reason
    if "piecewise" in parts:
        assert "the quantile boundaries and tree thresholds and the maximum as knots" in reason


def test_infer_passes_the_label_of_the_rows_with_a_value(monkeypatch):
    monkeypatch.setattr(infer_rules, "TARGET_BINS", ("piecewise",))
    rng = np.random.default_rng(0)
    n = 2000
    x = rng.uniform(0, 10, n)
    df = pd.DataFrame({"x": x, "y": np.where(x >= 6.5, "hi", "lo")})
    df.loc[::7, "x"] = np.nan  # nulls: read as the median, not fitted
    plan = infer(df, "y")
    step = float(np.float32(df["x"][df["x"] >= 6.5].min()))
    pl = next(c for c in plan.dnn if c.name == "x_piecewise_linear")
    assert step in pl.edges


def test_the_minimum_gain_keeps_a_real_step_and_drops_noise():
    rng = np.random.default_rng(2)
    x = rng.normal(size=5000)
    noise = rng.normal(size=(5000, 1))
    assert len(tree_edges(x, noise, max_leaves=20, min_leaf=50)) == 19  # splits on noise
    assert tree_edges(x, noise, max_leaves=20, min_leaf=50, min_gain=12.0) == []
    step = (x >= 0.5)[:, None] + noise * 0.5
    # a 0 -> 1 step over noise of variance 0.25: one split, at the step (give or take
    # the noise), and none of the noise within either side
    (edge,) = tree_edges(x, step, max_leaves=20, min_leaf=50, min_gain=12.0)
    assert abs(edge - 0.5) < 0.05


def test_the_minimum_gain_is_in_leaf_variances():
    # Hand-computed: 10 rows of 0 then 10 of 1: the root's variance is 0.25 and the split
    # at 10 gains 10 * 0.5^2 * 2 = 5 = 20 variances; a second 20-variance split is not there.
    x = np.arange(20.0)
    y = (x >= 10).astype(float)[:, None]
    assert tree_edges(x, y, max_leaves=20, min_leaf=1, min_gain=20.0) == [10.0]
    assert tree_edges(x, y, max_leaves=20, min_leaf=1, min_gain=20.01) == []


def test_a_binary_label_fits_one_indicator_with_the_edges_of_both():
    rng = np.random.default_rng(3)
    x = rng.normal(size=3000)
    labels = np.where(rng.random(3000) < 1 / (1 + np.exp(-3 * x)), "yes", "no")
    ids = sample_labels(pa.array(labels), "binary")
    target = label_target(ids, "binary")
    second = labels == labels[ids == 1][0]  # the indicator of the class seen second
    assert target.shape == (3000, 1) and target[:, 0].tolist() == second.tolist()
    both = np.eye(2)[(labels == "yes").astype(int)]
    assert tree_edges(x, target, 20, 30) == tree_edges(x, both, 20, 30)


def test_a_small_sample_keeps_the_quantile_edges(monkeypatch):
    monkeypatch.setattr(infer_rules, "TARGET_BINS", ("embedding",))
    x = np.arange(float(infer_rules.TARGET_BIN_MIN_ROWS))
    target = (x >= 37).astype(float)[:, None]
    _, deep, reason = infer_rules.numeric_columns(_stats("x", x), x, target)
    assert 37.0 in deep[1].categorical_column.boundaries and "regression tree" in reason
    small = x[:-1]
    _, deep, reason = infer_rules.numeric_columns(_stats("x", small), small, target[:-1])
    assert 37.0 not in deep[1].categorical_column.boundaries
    assert "regression tree" not in reason
