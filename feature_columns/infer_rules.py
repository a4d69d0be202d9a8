"""The rules :func:`~.infer.infer` applies to each column, given its statistics.

Each rule is a function of a column's :class:`~.infer_stats.ColumnStats` (and the
sample) returning the columns chosen and the reason; each threshold is a named constant
below, with where it comes from.

>>> import pyarrow as pa
>>> from colonnade.feature_columns.infer_stats import ColumnStats
>>> stats = ColumnStats("c", pa.string())
>>> stats.add(pa.array(["a"] * 60))
>>> drop_reason(stats, 60)
'constant'
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from .bucketized import bucketized_column
from .categorical import categorical_column_with_hash_bucket
from .dense import embedding_column, indicator_column
from .infer_bins import tree_edges
from .infer_stats import DISTINCT_CAP, ColumnStats, inference_kind
from .normalizers import chain, clip, log1p, standardize
from .numeric import numeric_column
from .piecewise import piecewise_linear_column
from .time_parts import categorical_column_with_time_part
from .vocabulary import categorical_column_with_vocabulary_list

__all__ = [
    "TASKS",
    "categorical_columns",
    "drop_reason",
    "label_task",
    "numeric_columns",
    "read_dtype",
    "time_part_columns",
]

# -- dropping columns
# A column null in at least this share of rows carries too little to learn from.
MAX_NULL_FRACTION = 0.95
# A column with distinct values in at least this share of its non-null rows is an id:
# each value is seen once, so no weight for it can be learned.
ID_DISTINCT_FRACTION = 0.9
# ... but only when there are enough rows for the share to mean something.
ID_MIN_ROWS = 50
# A string column whose values average more characters than this, each value seen on
# average fewer than TEXT_MAX_REPEATS times, is free text, which a categorical column
# would treat as an id. Length alone does not make text: german credit's credit_history
# has 5 values averaging 45 characters, a category like any other.
TEXT_MEAN_LENGTH = 40
TEXT_MAX_REPEATS = 2

# -- numbers
# Bucket boundaries at these quantiles: 20 equal-frequency buckets, the usual
# resolution of a wide part (duplicate boundaries of discrete numbers are merged).
QUANTILES = tuple(i / 20 for i in range(1, 20))
# A value held by at least this share of rows (a spike, e.g. the zeros of a mostly-zero
# amount) swallows most quantiles: it gets a bucket of its own and the other values
# quantile buckets of their own.
SPIKE_SHARE = 0.2
# A non-negative number with skewness above this is heavy-tailed (counts, amounts,
# sizes): log1p makes it usable to a DNN, and turns the power laws and multiplicative
# effects common in such columns (a price against a weight) into near-linear ones;
# below it, standardizing suffices. 1 is the usual line for "highly skewed" (Bulmer).
LOG_SKEW = 1.0
# Quantiles a non-log number is clipped to before standardizing, so outliers cannot
# saturate the first layer.
CLIP_QUANTILES = (0.001, 0.999)

# Integers are exact in float32 up to 2**24 and in float64 up to 2**53: larger ones
# (Unix timestamps in seconds, ~1.7e9) are read as float64, and beyond 2**53 an integer
# is a code (a hash, an id), not a quantity: it is read as a category.
FLOAT32_EXACT, FLOAT64_EXACT = 2**24, 2**53

# The wide part also gets the number itself, normalized as in the deep part: with a
# weight per category it then holds the linear baseline (a logistic/ridge regression on
# one-hot categories and standardized numbers), which the quantile buckets alone only
# approximate by steps (small tables: too few rows per bucket to learn the steps).
# Where that number is log1p'd, the wide part also gets the number itself, only
# standardized (the linear baseline's StandardScaler) and clipped to the training range:
# a linear term of either or both. treatment's 1978 earnings are linear in the skewed
# 1974 and 1975 earnings (their log1p alone: the linear model's test RMSE 11,941 against
# the baseline's 10,760); diamonds' log price is linear in log carat (the number alone:
# 0.1133 against 0.1099). The clip moves no training value, and keeps a value far beyond
# anything seen at predict time from extrapolating the linear term.

# The deep part also gets an embedding of a number's quantile bucket when it has at least
# this many buckets (a piecewise-constant encoding, Gorishniy et al. 2022).
BUCKET_EMBEDDING_MIN = 4

# The deep part also gets a number's piecewise-linear encoding (Gorishniy et al. 2022)
# over its minimum, quantile boundaries and maximum, when it has at least
# BUCKET_EMBEDDING_MIN buckets: the first layer is then a continuous piecewise-linear
# function of the number, with knots where the trees would put thresholds.

# Target-aware edges (PLE-T, Gorishniy et al. 2022, section 3.2; :mod:`.infer_bins`): the
# thresholds of a one-feature regression tree of the label on the number (a class
# label's one-hot indicators), of at most TARGET_BIN_LEAVES leaves (the 20 quantile
# buckets' resolution) of at least TARGET_BIN_MIN_LEAF_ROWS rows and
# TARGET_BIN_MIN_LEAF_SHARE of the sample each. TARGET_BINS names the parts that use
# them: "wide" (the bucketized column), "embedding" (the deep part's bucket embedding),
# "piecewise" (the piecewise-linear encoding's knots), merged with the quantile edges
# (not instead of them, as PLE-T proper). Measured on quality_wide.py's tables
# (3 seeds; benchmarks/RESULTS.md, "Target-aware bin edges"): merged into the embedding's
# buckets only, star's RMSE 30.87 -> 30.41, randhie's 3.767 -> 3.741, adult's AUC 0.9211
# -> 0.9229, health_insurance's 0.8787 -> 0.8795, the other tables within seed noise; in
# the wide buckets too, fishing lost 0.013 accuracy (37 buckets in 886 rows) and diamonds
# 2.7% RMSE; as the piecewise-linear knots, randhie lost 0.6%; replacing the quantile
# edges everywhere (PLE-T proper), adult lost 0.003 AUC and fishing 0.003 accuracy.
TARGET_BINS = ("embedding",)
TARGET_BIN_LEAVES = 20
TARGET_BIN_MIN_LEAF_ROWS = 20
TARGET_BIN_MIN_LEAF_SHARE = 0.01
# ... and only from a sample of at least this many rows (10 leaves of the minimum size):
# below, a tree's few thresholds are a handful of rows' noise; wine (133 training rows)
# lost one of 45 test rows in one of 3 seeds with them, diabetes (331) gained 0.5% RMSE.
TARGET_BIN_MIN_ROWS = 200
# A split is made only when it reduces the squared error by at least this many times the
# leaf's variance (0: always, up to TARGET_BIN_LEAVES leaves; see infer_bins.tree_edges).
TARGET_BIN_MIN_GAIN = 0.0

# -- categories
# A vocabulary list up to this many values; a hash bucket beyond (a list this long is
# still cheap to look up, and hashing loses little once most values are rare).
VOCABULARY_MAX = 1000
# Values seen fewer times go to the OOV bucket: a weight seen once is noise.
MIN_VALUE_COUNT = 2
# Hash buckets per distinct value (collisions of ~1/2 the values pairwise are rare
# enough), and the bounds of the bucket count.
HASH_BUCKETS_PER_VALUE = 2
HASH_BUCKETS_MIN, HASH_BUCKETS_MAX = 1_000, 1_000_000
# Up to this many ids the deep part gets a one-hot indicator: an embedding would be as
# wide as the one-hot.
INDICATOR_MAX = 12
# Embedding width 6 * card ** 0.25 (the rule of thumb of Google's wide&deep guide),
# capped: wider tables overfit the tail of rare values.
EMBEDDING_FACTOR, EMBEDDING_MAX = 6.0, 32

# The parts of a timestamp tried, in this order (see time_part_columns).
TIME_PARTS_USED = ("hour", "weekday", "month", "day")


# An integer label with at most this many values is a class id; more is a quantity.
MAX_CLASSES = 20

TASKS = ("binary", "multiclass", "regression")


def label_task(stats: ColumnStats, task: str | None):
    """``(task, n_classes, label_vocabulary, reason)`` for the label column."""
    name, kind = stats.name, inference_kind(stats.type)
    non_null = stats.count - stats.nulls
    if non_null == 0:
        raise ValueError(f"label column {name!r} is all null; it must hold the targets")
    distinct = stats.distinct.distinct()
    if distinct < 2:
        value = next(iter(stats.distinct.counts), None)
        raise ValueError(
            f"label column {name!r} is constant ({value!r} in all {non_null} rows); "
            "a model needs at least two label values to learn"
        )
    values = sorted(stats.distinct.counts) if stats.distinct.exact else None
    integral = (
        kind == "numeric" and values is not None and all(float(v).is_integer() for v in values)
    )
    if task is None:
        if kind in ("string", "boolean"):
            task = "binary" if distinct == 2 else "multiclass"
            why = f"{distinct} distinct {kind} values"
        elif integral and distinct <= MAX_CLASSES:
            task = "binary" if distinct == 2 else "multiclass"
            why = f"{distinct} integer values (at most {MAX_CLASSES} are classes)"
        elif kind == "numeric":
            task = "regression"
            why = f"numbers, {distinct} distinct values"
        else:
            raise TypeError(
                f"label column {name!r} has type {stats.type}; expected numbers or strings"
            )
    else:
        if task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {task!r}")
        why = "given"
    if task == "regression":
        if kind != "numeric":
            raise TypeError(f"a regression label must be numeric; {name!r} has type {stats.type}")
        return task, None, None, why
    if values is None:
        raise ValueError(f"label column {name!r} has more than {DISTINCT_CAP} values; not classes")
    if kind == "string":
        return task, len(values), tuple(values), why
    if kind == "boolean":
        return task, 2, None, why  # False/True are ids 0/1
    ids = [int(v) for v in values]
    if ids != list(range(len(ids))) and not (task == "binary" and ids == [0, 1]):
        raise ValueError(
            f"label column {name!r} holds the integers {ids[:10]}; classes must be the ids "
            f"0..n-1; map them first, e.g. to strings"
        )
    return task, max(ids) + 1, None, why


def drop_reason(stats: ColumnStats, rows: int):
    """Why the column is dropped (all or mostly null, constant, free text, an id, a type
    no column reads), or None to keep it."""
    kind = inference_kind(stats.type)
    non_null = stats.count - stats.nulls
    if non_null == 0:
        return "all null"
    if stats.nulls / stats.count >= MAX_NULL_FRACTION:
        return f"{stats.nulls / stats.count:.0%} null (>= {MAX_NULL_FRACTION:.0%})"
    if kind == "other":
        return f"type {stats.type} has no column type"
    distinct = stats.distinct.distinct()
    if distinct <= 1:
        return "constant"
    mean_length = stats.length_sum / non_null
    if kind == "string" and mean_length > TEXT_MEAN_LENGTH:
        if distinct * TEXT_MAX_REPEATS > non_null:
            return (
                f"free text (values average {mean_length:.0f} characters, > "
                f"{TEXT_MEAN_LENGTH}, and {distinct} distinct in {non_null} rows: each seen "
                f"< {TEXT_MAX_REPEATS} times on average); too many to be categorical"
            )
    # Strings, and integers spread densely over their range (row numbers, serials);
    # a sparse spread of integers (amounts, weights) is a quantity.
    dense_integers = (
        kind == "numeric"
        and not pa.types.is_floating(stats.type)
        and stats.max - stats.min + 1 <= 2 * non_null
    )
    if (kind == "string" or dense_integers) and non_null >= ID_MIN_ROWS:
        if distinct >= ID_DISTINCT_FRACTION * non_null:
            return f"an id ({distinct} distinct values in {non_null} rows)"
    return None


def read_dtype(stats: ColumnStats) -> str | None:
    """The dtype a number is read in: ``"float32"`` (TF's default) when its values are
    exact in it, ``"float64"`` for integers beyond :data:`FLOAT32_EXACT` (Unix
    timestamps, large counts), None for integers beyond :data:`FLOAT64_EXACT` (not a
    quantity a float holds: a code, read as a category)."""
    if not pa.types.is_integer(stats.type) or stats.min is None:
        return "float32"
    largest = max(abs(stats.min), abs(stats.max))
    if largest <= FLOAT32_EXACT:
        return "float32"
    return "float64" if largest <= FLOAT64_EXACT else None


def numeric_columns(stats: ColumnStats, sample: np.ndarray, target: np.ndarray | None = None):
    """``(wide columns, deep columns, reason)`` of a number: its buckets and the number
    itself in the wide part. ``target``: the
    label's :func:`~.infer_bins.label_target` for the rows of ``sample``, for the
    target-aware edges of :data:`TARGET_BINS` (None: quantile edges only)."""
    name = stats.name
    mean, std, skew = stats.moments()
    finite_rows = np.isfinite(sample)
    finite = sample[finite_rows]
    median = float(np.median(finite)) if finite.size else mean
    dtype = read_dtype(stats)
    # Always a default: a null in a later table (a test split, a request) reads as the
    # median, as a null with no training example goes to the boosted trees' larger side.
    default = median
    boundaries = sorted({float(q) for q in np.quantile(finite, QUANTILES)}) if finite.size else []
    spike = ""
    if finite.size:
        values, counts = np.unique(finite, return_counts=True)
        top = int(counts.argmax())
        rest = finite[finite != values[top]]
        if counts[top] >= SPIKE_SHARE * finite.size and rest.size:
            value = float(values[top])
            extra = {float(q) for q in np.quantile(rest, QUANTILES)}
            boundaries = sorted(
                set(boundaries)
                | extra
                | {value, float(np.nextafter(np.float32(value), np.float32(np.inf)))}
            )
            spike = (
                f"; {counts[top] / finite.size:.0%} of values are {value:.4g}: that value "
                "is a bucket of its own and the others get quantile buckets too"
            )
    # distinct in the read dtype (TF bucketizes in it) and strictly inside the range (a
    # bucket below the minimum is never used)
    boundaries = sorted({float(np.dtype(dtype).type(b)) for b in boundaries})
    boundaries = [b for b in boundaries if stats.min < b <= stats.max] or [median]
    edges_of, source_of, target_how = _target_aware_edges(stats, dtype, finite, target, finite_rows)
    quantile_boundaries, boundaries = boundaries, edges_of(boundaries, "wide")
    logged = False
    if stats.min >= 0 and skew > LOG_SKEW:
        logs = np.log1p(finite)
        lstd = float(logs.std()) or 1.0
        norm = chain(log1p(), standardize(float(logs.mean()), lstd))
        how = f"skewness {skew:.1f} > {LOG_SKEW}, non-negative: log1p, then standardized"
        logged = True
    else:
        lo, hi = (float(q) for q in np.quantile(finite, CLIP_QUANTILES))
        norm = (
            chain(clip(lo, hi), standardize(mean, std or 1.0))
            if hi > lo
            else standardize(mean, std or 1.0)
        )
        how = f"skewness {skew:.1f}: clipped to [{lo:.4g}, {hi:.4g}], standardized"
    deep = [numeric_column(name, default_value=default, dtype=dtype, normalizer_fn=norm)]
    raw = numeric_column(name, default_value=default, dtype=dtype)
    buckets_column = bucketized_column(raw, boundaries)
    nulls = f"nulls ({stats.nulls} here, or" if stats.nulls else "nulls (none here, but"
    reason = (
        f"{len(boundaries) + 1} buckets at the {source_of('wide')} (wide){spike}; {how} "
        f"(deep); {nulls} in "
        f"later data) read as the median {median:.4g}"
    )
    if dtype != "float32":
        reason += f"; read as {dtype}: integers up to {stats.max:.6g} are not exact in float32"
    wide = (buckets_column, deep[0])
    reason += "; the normalized number also in the wide part (a linear term)"
    if logged:
        lo, hi, half = float(stats.min), float(stats.max), (std or 1.0) / 2.0
        clipped = clip(lo, hi)
        source = numeric_column(name, default_value=default, dtype=dtype, normalizer_fn=clipped)
        wide += (piecewise_linear_column(source, [mean - half, mean + half]),)
        reason += (
            f"; beside its log1p, the number itself in the wide part: clipped to the training "
            f"range [{lo:.4g}, {hi:.4g}] and standardized (one piecewise-linear bin "
            f"[mean - std/2, mean + std/2]: (x - {mean:.4g}) / {std:.4g} + 1/2), the linear "
            "baseline's StandardScaler, so a linear term fits the number or its log"
        )
    embedded = edges_of(quantile_boundaries, "embedding")
    if embedded != boundaries:
        buckets_column = bucketized_column(raw, embedded)
    buckets = len(embedded) + 1
    if buckets >= BUCKET_EMBEDDING_MIN:
        width = min(EMBEDDING_MAX, math.ceil(EMBEDDING_FACTOR * buckets**0.25))
        deep.append(embedding_column(buckets_column, dimension=width))
        reason += (
            f"; its bucket at the {source_of('embedding')} also as an embedding of width "
            f"{width} (deep: a step function of the value the first layer need not build "
            "from one input)"
        )
    if buckets >= BUCKET_EMBEDDING_MIN:
        knots = edges_of(quantile_boundaries, "piecewise")
        edges = sorted({float(stats.min), *knots, float(stats.max)})
        deep.append(piecewise_linear_column(raw, edges))
        reason += (
            f"; its piecewise-linear encoding over {len(edges) - 1} bins (deep: the minimum, "
            f"the {source_of('piecewise')} and the maximum as knots)"
        )
    return wide, tuple(deep), reason + target_how


def _target_aware_edges(stats, dtype, finite, target, finite_rows):
    """``(edges_of, source_of, reason)``: ``edges_of(quantile_edges, part)`` is the
    edges the part (``"wide"``, ``"embedding"``, ``"piecewise"``) uses under
    :data:`TARGET_BINS`, ``source_of(part)`` says which in words."""
    tree = []
    if target is not None and TARGET_BINS and finite.size >= TARGET_BIN_MIN_ROWS:
        min_leaf = max(TARGET_BIN_MIN_LEAF_ROWS, math.ceil(TARGET_BIN_MIN_LEAF_SHARE * finite.size))
        tree = tree_edges(
            finite, target[finite_rows], TARGET_BIN_LEAVES, min_leaf, TARGET_BIN_MIN_GAIN
        )
        tree = sorted({float(np.dtype(dtype).type(b)) for b in tree})
        tree = [b for b in tree if stats.min < b <= stats.max]

    def edges_of(quantile_edges, part):
        if part not in TARGET_BINS or not tree:
            return quantile_edges
        return sorted(set(quantile_edges) | set(tree))

    def source_of(part):
        if part not in TARGET_BINS or not tree:
            return "quantile boundaries"
        return "quantile boundaries and tree thresholds"

    if not tree:
        return edges_of, source_of, ""
    reason = (
        f"; target-aware edges for the {', '.join(TARGET_BINS)} part(s), merged with the "
        f"quantile edges: the "
        f"{len(tree)} thresholds of a one-feature regression tree of the label (at most "
        f"{TARGET_BIN_LEAVES} leaves of at least {min_leaf} sampled rows; PLE-T, Gorishniy "
        f"et al. 2022)"
    )
    return edges_of, source_of, reason


def categorical_columns(stats: ColumnStats):
    """``(wide column, deep column, cardinality, reason)`` of a string/integer column."""
    name = stats.name
    distinct = stats.distinct.distinct()
    counts = stats.distinct.counts
    frequent = [v for v, c in counts.items() if c >= MIN_VALUE_COUNT]
    if stats.distinct.exact and len(frequent) <= VOCABULARY_MAX and frequent:
        vocab = sorted(frequent, key=lambda v: (-counts[v], str(v)))
        col = categorical_column_with_vocabulary_list(name, vocab, num_oov_buckets=1)
        card = len(vocab) + 1
        rare = distinct - len(vocab)
        reason = f"{distinct} distinct values: vocabulary of {len(vocab)} + 1 OOV bucket"
        if rare:
            reason += f" ({rare} seen < {MIN_VALUE_COUNT} times go to OOV)"
    else:
        size = HASH_BUCKETS_PER_VALUE * distinct
        size = int(min(max(size, HASH_BUCKETS_MIN), HASH_BUCKETS_MAX))
        dtype = "int64" if pa.types.is_integer(stats.type) else "string"
        col = categorical_column_with_hash_bucket(name, size, dtype=dtype)
        card = min(distinct, size)
        approx = "" if stats.distinct.exact else "~"
        reason = f"{approx}{distinct} distinct values (> {VOCABULARY_MAX}): hash bucket of {size}"
    deep, how = _deep_of(col, card)
    return col, deep, f"{reason}; {how}"


def _deep_of(col, card: int):
    """``(deep column, reason)`` of a categorical column with ``card`` ids in use."""
    if card <= INDICATOR_MAX:
        return indicator_column(col), "indicator (deep)"
    width = min(EMBEDDING_MAX, math.ceil(EMBEDDING_FACTOR * card**0.25))
    how = f"embedding of width {width} = min({EMBEDDING_MAX}, 6*{card}^0.25) (deep)"
    return embedding_column(col, dimension=width), how


def time_part_columns(name: str, values: pa.Array):
    """``([(part column, deep column)], reason)`` of a timestamp: the parts of
    :data:`TIME_PARTS_USED` that take several values in the sample (the day of the month
    only when the sample spans several months, else it is a stand-in for the date)."""
    from .transform_cache import transform_features

    chosen, seen = [], {}
    for part in TIME_PARTS_USED:
        col = categorical_column_with_time_part(name, part)
        try:
            ids = transform_features(pa.table({name: values}), [col])[col.name].ids
        except TypeError:  # a time of day has no weekday
            continue
        seen[part] = len(np.unique(ids))
        if seen[part] < 2 or (part == "day" and seen.get("month", 0) < 2):
            continue
        deep, how = _deep_of(col, col.num_buckets)
        chosen.append((col, deep, f"{part} ({seen[part]} seen; {how})"))
    if not chosen:
        return [], f"a timestamp whose parts ({', '.join(TIME_PARTS_USED)}) never vary"
    reason = (
        "a timestamp: its parts, each a categorical column (wide): "
        + ", ".join(how for _, _, how in chosen)
        + "; the instant itself is not a feature (later rows hold values never trained on)"
    )
    return [(col, deep) for col, deep, _ in chosen], reason
