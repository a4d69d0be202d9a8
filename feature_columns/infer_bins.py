"""Target-aware bin edges for :func:`~.infer.infer`'s numbers: the thresholds of a small
regression tree of the label on one feature (PLE-T of Gorishniy et al. 2022, "On
Embeddings for Numerical Features in Tabular Deep Learning", section 3.2), where quantile
edges (PLE-Q) put knots without looking at the label.

The tree is grown best-first, as LightGBM grows its trees: of all the leaves, the one
whose best split most reduces the squared error of the target is split, until
``max_leaves`` leaves or no split is left. A leaf's best split is found at once from the
cumulative sums of the target over the sorted values (no loop over rows), and only
between two distinct values, with at least ``min_leaf`` rows on each side.

>>> x = np.arange(100.0)
>>> y = (x >= 30).astype(float)[:, None]  # a step at 30
>>> tree_edges(x, y, max_leaves=2, min_leaf=5)
[30.0]
"""

from __future__ import annotations

import heapq

import numpy as np

from .infer_stats import label_targets

__all__ = ["label_target", "tree_edges"]


def label_target(labels: np.ndarray, task: str) -> np.ndarray:
    """The target the trees fit, from the sample's labels as
    :func:`~.infer_stats.sample_labels` gives them: a class label's one-hot indicators (a
    multi-output regression, whose squared error is the Gini impurity up to a factor; of
    two classes, one indicator: the other's squared error is the same, so it would double
    every gain and change no split), a regression label standardized (its scale changes no
    split; the centring keeps the cumulative sums small).

    >>> label_target(np.array([0, 1, 0]), "binary").tolist()
    [[0.0], [1.0], [0.0]]
    >>> label_target(np.array([2, 0, 1]), "multiclass").tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if task == "regression":
        y = np.asarray(labels, np.float64)
        return ((y - y.mean()) / (y.std() or 1.0))[:, None]
    codes = np.asarray(labels, np.int64)
    return label_targets(codes, int(codes.max()) + 1 if codes.size else 1)


def tree_edges(
    values: np.ndarray, target: np.ndarray, max_leaves: int, min_leaf: int, min_gain: float = 0.0
):
    """The sorted thresholds of a best-first regression tree of ``target`` (rows x
    outputs) on ``values`` (finite, one per row) with at most ``max_leaves`` leaves of at
    least ``min_leaf`` rows. A threshold is the smallest value of its right side, so
    ``x < edge`` is left, as a bucketized column cuts.

    A split of a leaf with target sums ``S`` over ``n`` rows into ``(S_l, n_l)`` and
    ``(S_r, n_r)`` reduces the squared error by
    ``gain = |S_l|^2 / n_l + |S_r|^2 / n_r - |S|^2 / n``; it is made only when ``gain``
    is at least ``min_gain`` times the leaf's variance (summed over the outputs): on
    noise, ``gain / variance`` is about a chi-square of one degree of freedom per
    output, maximized over the cuts.

    >>> x = np.repeat([1.0, 2.0, 3.0], 10)
    >>> y = np.repeat([0.0, 0.0, 1.0], 10)[:, None]
    >>> tree_edges(x, y, max_leaves=20, min_leaf=5)  # a constant side is not split
    [3.0]
    >>> tree_edges(x, y, max_leaves=20, min_leaf=11)  # 10 rows per value: no split fits
    []
    """
    min_leaf = max(int(min_leaf), 1)
    order = np.argsort(values, kind="stable")
    x = values[order]
    sums = np.concatenate([np.zeros((1, target.shape[1])), np.cumsum(target[order], axis=0)])
    squares = np.concatenate([[0.0], np.cumsum((target[order] ** 2).sum(1))])

    def best_split(start: int, end: int):
        cuts = np.arange(start + min_leaf, end - min_leaf + 1)
        cuts = cuts[x[cuts - 1] < x[cuts]]
        if not cuts.size:
            return None
        left, total = sums[cuts] - sums[start], sums[end] - sums[start]
        right = total - left
        gain = (
            (left**2).sum(1) / (cuts - start)
            + (right**2).sum(1) / (end - cuts)
            - (total**2).sum() / (end - start)
        )
        best = int(gain.argmax())
        if gain[best] <= 1e-12 * max(float((total**2).sum()), 1.0):
            return None
        variance = (squares[end] - squares[start] - (total**2).sum() / (end - start)) / (
            end - start
        )
        if gain[best] < min_gain * variance:
            return None
        return float(gain[best]), int(cuts[best])

    heap, edges, leaves = [], [], 1

    def push(start: int, end: int):
        split = best_split(start, end)
        if split is not None:
            heapq.heappush(heap, (-split[0], start, split[1], end))

    push(0, len(x))
    while heap and leaves < max_leaves:
        _, start, cut, end = heapq.heappop(heap)
        edges.append(float(x[cut]))
        leaves += 1
        push(start, cut)
        push(cut, end)
    return sorted(edges)
