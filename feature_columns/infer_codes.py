"""Integer codes: an integer column whose values name groups (a school, a plant, a product
line) more than they measure a quantity. :func:`~.infer.infer` reads every integer as a
number; :func:`code_columns` says when one should ALSO get a weight per value.

Nothing in the values alone tells a code from a count: star's school ids are 1..80, as
dense and as evenly spread as a test score or hours of work. What tells them apart is how
the label follows them. A quantity's neighbours have similar labels, so its quantile
buckets (a few values each) predict the label held out as well as one group per value
does, or better (fewer groups, each on more rows); a code's neighbours are unrelated, so
one group per value predicts it much better than buckets mixing several codes. The test
is that comparison, out of sample, on the sample's two halves (as crosses are scored, in
:mod:`.infer_crosses`): in nats for classes (:func:`~.infer_crosses.heldout_information`),
and for regression the Gaussian information ``-ln(1 - R^2) / 2`` of the held-out
``R^2`` of the groups' shrunk means (:func:`heldout_gaussian_information`).

A code keeps its numeric treatment (an ordered code, or a count with a few special
values, still has a trend) and gains a vocabulary list of its values: a weight per value
in the wide part (as a one-hot indicator: the column's name is the number's), an
embedding or indicator in the deep part. The one-hot is in the linear model's plain column
set too (:func:`~colonnade.estimators.tabular.linear.plain_columns`: numbers and one-hot
categories), as a category is.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> school = rng.integers(0, 40, 4000); effect = rng.normal(size=40)
>>> y = effect[school] + rng.normal(size=4000) * 0.5
>>> buckets = school // 4  # quantile buckets: four schools each
>>> per_value = grouping_information(school, y, "regression")
>>> per_value - grouping_information(buckets, y, "regression") > CODE_MIN_GAIN
True
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from .bucketized import BucketizedColumn, bucketize
from .dense import indicator_column
from .infer_crosses import CROSS_PRIOR_ROWS, heldout_information
from .infer_rules import VOCABULARY_MAX, categorical_columns
from .infer_stats import ColumnStats

__all__ = [
    "CODE_MIN_GAIN",
    "CODE_MIN_ROWS_PER_VALUE",
    "code_columns",
    "grouping_information",
    "heldout_gaussian_information",
]

# An integer column is tested as a code when its values average at least this many rows
# each in the sample (10 in each half: a group mean on fewer is mostly noise) ...
CODE_MIN_ROWS_PER_VALUE = 20
# ... and it has more distinct values than its number has buckets (with fewer, each value
# already has a bucket, and a weight) and at most VOCABULARY_MAX. It is a code when one
# group per value tells this many nats more about the label, held out, than its buckets.
CODE_MIN_GAIN = 0.005


def heldout_gaussian_information(codes: np.ndarray, labels: np.ndarray) -> float:
    """What ``codes`` tell about numeric ``labels`` out of sample, in nats: with ``R^2``
    the share of the labels' variance the codes' means explain, each mean estimated on one
    half of the rows (the even ones, then the odd ones) and shrunk toward the half's mean
    by :data:`~.infer_crosses.CROSS_PRIOR_ROWS` pseudo-rows, scored on the other half,
    ``-ln(1 - R^2) / 2``: the information of a Gaussian label with that explained share,
    so gains compare with :func:`~.infer_crosses.heldout_information`'s. Below zero when
    the means predict the other half worse than its mean does.

    >>> rng = np.random.default_rng(0)
    >>> x = rng.integers(0, 2, 100_000)
    >>> y = x + rng.normal(size=x.size)  # R^2 = 0.25 / 1.25 = 0.2
    >>> round(heldout_gaussian_information(x, y), 2)  # -ln(0.8) / 2
    0.11
    """
    _, codes = np.unique(codes, return_inverse=True)
    k = int(codes.max()) + 1
    even = np.arange(len(codes)) % 2 == 0
    explained = 0.0
    for fit, score in ((even, ~even), (~even, even)):
        mean = float(labels[fit].mean())
        sums = np.bincount(codes[fit], labels[fit], minlength=k)
        counts = np.bincount(codes[fit], minlength=k)
        means = (sums + CROSS_PRIOR_ROWS * mean) / (counts + CROSS_PRIOR_ROWS)
        residual = np.mean((labels[score] - means[codes[score]]) ** 2)
        total = np.mean((labels[score] - mean) ** 2)
        explained += 1.0 - residual / total if total > 0 else 0.0
    return -0.5 * math.log(max(1.0 - explained / 2, 1e-12))


def grouping_information(codes: np.ndarray, labels: np.ndarray, task: str) -> float:
    """The held-out information of ``codes`` about ``labels`` for ``task``: numbers for
    ``"regression"`` (:func:`heldout_gaussian_information`), class ids 0..n-1 otherwise
    (:func:`~.infer_crosses.heldout_information`)."""
    if task == "regression":
        return heldout_gaussian_information(codes, np.asarray(labels, np.float64))
    labels = np.asarray(labels, np.int64)
    return heldout_information(codes, labels, int(labels.max()) + 1)


def code_columns(
    stats: ColumnStats,
    values: np.ndarray,
    labels: np.ndarray,
    task: str,
    buckets: BucketizedColumn,
):
    """``(wide column, deep column, reason)`` of an integer column read as a code as well
    as a number, or None when it is not one. ``values`` and ``labels`` are the sample's
    (aligned; nulls as NaN), ``labels`` numbers for regression and class ids 0..n-1
    otherwise; ``buckets`` the number's bucketized column in the wide part."""
    if not pa.types.is_integer(stats.type):
        return None
    present = ~np.isnan(values)
    values, labels = values[present], labels[present]
    distinct = stats.distinct.distinct()
    if not stats.distinct.exact or distinct > VOCABULARY_MAX:
        return None
    if distinct <= buckets.num_buckets or values.size < CODE_MIN_ROWS_PER_VALUE * distinct:
        return None
    per_value = grouping_information(values, labels, task)
    bucket_ids = bucketize(values, np.asarray(buckets.boundaries, np.float64))
    per_bucket = grouping_information(bucket_ids, labels, task)
    if per_value - per_bucket < CODE_MIN_GAIN:
        return None
    vocabulary, deep, how = categorical_columns(stats)
    reason = (
        f"also a code: one group per value tells {per_value:.4f} nats about the label and "
        f"its {buckets.num_buckets} buckets {per_bucket:.4f} (out of sample, halves of "
        f"{values.size} sampled rows; a code when the values beat the buckets by >= "
        f"{CODE_MIN_GAIN}): {how}; a weight per value in the wide part (one-hot)"
    )
    return indicator_column(vocabulary), deep, reason
