"""The crosses :func:`~.infer.infer` adds: the categorical pairs whose information about
the label, measured out of sample, most exceeds that of the better column alone.

>>> import numpy as np
>>> y = np.array([0, 0, 1, 1] * 25)
>>> heldout_information(np.arange(100), y, 2)  # an id: its values never recur
0.0
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from .bucketized import BucketizedColumn
from .crossed import crossed_column
from .infer_rules import HASH_BUCKETS_MIN, ID_MIN_ROWS
from .time_parts import TimePartCategoricalColumn

__all__ = ["crosses", "heldout_information"]

# -- crosses
MAX_CROSSES = 3
# Only the columns most informative alone are paired (bounds the pairs to score).
CROSS_CANDIDATES = 10
# Minimum gain, in nats, of a pair over its better single column, both measured out of
# sample (:func:`heldout_information`): an in-sample estimate, even bias-corrected,
# favours pairs with many cells, and on a small table a pair of bucketized numbers
# (400 cells) reads as highly informative when it only memorizes the rows.
MIN_CROSS_GAIN = 0.002
# Pseudo-rows of the label's marginal added to each cell's label counts when scoring
# (an m-estimate): a cell seen in a row or two predicts close to the marginal.
CROSS_PRIOR_ROWS = 2.0
CROSS_BUCKETS_MAX = 10_000
# Regression labels are cut into this many quantile bins to score crosses.
LABEL_BINS = 10


def heldout_information(codes: np.ndarray, labels: np.ndarray, n_labels: int) -> float:
    """What ``codes`` tell about ``labels`` out of sample, in nats: the labels' mean
    log-loss under their marginal minus under ``p(label | code)``, both estimated on one
    half of the rows (the even ones) and scored on the other, then the other way round,
    averaged. ``p(label | code)`` is smoothed toward the marginal with
    :data:`CROSS_PRIOR_ROWS` pseudo-rows, so a code seen in few rows predicts little.

    Unlike the in-sample mutual information, this does not grow with the number of
    cells: a pair of columns with about as many cells as rows memorizes its half and
    scores zero or below on the other, where the in-sample estimate, even
    bias-corrected, reads the same pair as highly informative.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 2000)
    >>> round(heldout_information(y, y, 2), 2)  # the label itself: its entropy, ln 2
    0.69
    >>> heldout_information(np.arange(2000), y, 2)  # an id: its values never recur
    0.0
    >>> heldout_information(rng.integers(0, 500, 2000), y, 2) < 0  # noise in many cells
    True
    """
    _, codes = np.unique(codes, return_inverse=True)
    k = int(codes.max()) + 1
    even = np.arange(len(codes)) % 2 == 0
    total = 0.0
    for fit, score in ((even, ~even), (~even, even)):
        joint = np.bincount(codes[fit] * n_labels + labels[fit], minlength=k * n_labels)
        joint = joint.reshape(k, n_labels).astype(np.float64)
        prior = (joint.sum(0) + 1.0) / (joint.sum() + n_labels)  # add-one marginal
        seen = joint.sum(1, keepdims=True)
        cond = (joint + CROSS_PRIOR_ROWS * prior) / (seen + CROSS_PRIOR_ROWS)
        c, y = codes[score], labels[score]
        total += float(np.mean(np.log(cond[c, y]) - np.log(prior[y])))
    return total / 2


def _codes(column, sample: pa.Table) -> np.ndarray:
    """One id per sampled row of a categorical or bucketized column (a null or a miss:
    id 0, the others shifted by one)."""
    from .transform_cache import transform_features

    # only the features the column reads: converting the whole sample per column made
    # inference quadratic in the number of columns
    ids = transform_features(sample.select(list(column.input_keys)), [column])[column.name]
    out = np.zeros(sample.num_rows, dtype=np.int64)
    if ids.row_splits is None:
        out[:] = ids.ids + 1
    else:  # the first id of each non-empty row
        starts, ends = ids.row_splits[:-1], ids.row_splits[1:]
        present = ends > starts
        out[present] = ids.ids[starts[present]] + 1
    return np.maximum(out, 0)


def _label_codes(sample: pa.Table, label: str, task: str) -> np.ndarray:
    y = sample.column(label).to_pandas()
    if task == "regression":
        edges = np.unique(np.quantile(y, np.linspace(0, 1, LABEL_BINS + 1)[1:-1]))
        return np.searchsorted(edges, y.to_numpy(dtype=float))
    return pd.factorize(y)[0]


def crosses(candidates: list, sample: pa.Table, label: str, task: str):
    """The most informative pairs: ``[(cross, reason)]``."""
    if len(candidates) < 2 or sample.num_rows < ID_MIN_ROWS:
        return []
    y = _label_codes(sample, label, task)
    n_labels = int(y.max()) + 1
    codes, singles = {}, {}
    for col in candidates:
        try:
            codes[col] = _codes(col, sample)
        except Exception:  # noqa: BLE001 -- a column the scorer cannot read is not paired
            continue
        singles[col] = heldout_information(codes[col], y, n_labels)
    ranked = sorted(singles, key=lambda c: -singles[c])[:CROSS_CANDIDATES]
    scored = []
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            joint = codes[a] * (int(codes[b].max()) + 1) + codes[b]
            gain = heldout_information(joint, y, n_labels) - max(singles[a], singles[b], 0.0)
            scored.append((gain, a, b))
    scored.sort(key=lambda s: -s[0])
    out, used = [], set()
    for gain, a, b in scored:
        if gain < MIN_CROSS_GAIN or len(out) == MAX_CROSSES:
            break
        pair = frozenset((a.name, b.name))
        if pair in used:
            continue
        used.add(pair)
        cells = len(np.unique(codes[a] * (int(codes[b].max()) + 1) + codes[b]))
        size = int(min(max(4 * cells, HASH_BUCKETS_MIN), CROSS_BUCKETS_MAX))
        cross = crossed_column([_cross_key(a), _cross_key(b)], size)
        reason = (
            f"the pair adds {gain:.4f} nats of information about the label over the better "
            f"of the two alone and over none (out of sample: halves of {sample.num_rows} "
            f"sampled rows); {size} hash buckets"
        )
        out.append((cross, reason))
    return out


def _cross_key(column):
    """A crossed_column key: a bucketized column or a timestamp's part itself, a
    categorical one by its raw feature (crosses hash raw values)."""
    if isinstance(column, (BucketizedColumn, TimePartCategoricalColumn)):
        return column
    return column.key
