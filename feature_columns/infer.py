"""Feature columns inferred from the data: :func:`infer` reads a table once and returns a
:class:`ColumnPlan`, the wide and deep columns of a wide&deep model with the reason for
each choice.

The pass streams record batches (a DataFrame, an Arrow table, Parquet/CSV paths or a
``cn.data.Dataset``) and keeps, per column, bounded state only: counts, nulls, min/max,
the first three moments, the values and their counts exactly up to
:data:`DISTINCT_CAP` distinct ones (beyond it a k-minimum-values hash sketch of
:data:`SKETCH_SIZE` hashes estimates the distinct count), and one seeded uniform sample
of :data:`SAMPLE_ROWS` rows shared by all columns (quantiles, normalizer parameters and
the scoring of crosses). Memory does not grow with the number of rows.

The rules, each a named constant below (``describe()`` says which one fired):

- a column that is all null, almost all null, constant, or an id (distinct values for
  nearly every row) is dropped;
- a boolean is a 0/1 numeric column in both parts;
- a number gets quantile bucket boundaries (the wide part; a value held by at least
  :data:`SPIKE_SHARE` of the rows, such as the zeros of an amount, gets a bucket of its
  own and the other values quantile buckets too) and, in the deep part, itself
  normalized (``log1p`` then standardized when it is non-negative and right-skewed,
  clipped to its 0.1%/99.9% quantiles and standardized otherwise) and an embedding of
  its bucket (a piecewise-constant encoding); nulls read as the median;
- a string with few distinct values gets a vocabulary list (values seen at least
  :data:`MIN_VALUE_COUNT` times, by frequency) with one OOV bucket; with many, a hash
  bucket of about twice its distinct count; the deep part gets an indicator for a
  handful of values, an embedding of width ``6 * card ** 0.25`` otherwise;
- a timestamp (or date) gives its parts that vary in the sample, each a categorical
  column (:func:`~.time_parts.categorical_column_with_time_part`): hour, weekday, month,
  and the day of the month when the sample spans several months; the instant itself is
  not a feature, as later rows hold values never trained on;
- long text is dropped with the reason (too long to be categorical);
- crosses: the categorical pairs (bucketized numbers and timestamp parts included) whose
  information about the label, measured out of sample on the sample's two halves, most
  exceeds that of the better single column (and zero); at most :data:`MAX_CROSSES`;
- the label's task: strings, booleans or a few integer values are classes (2: binary);
  other numbers are regression.

>>> import numpy as np, pandas as pd
>>> import colonnade as cn
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame({"id": np.arange(400), "x": rng.normal(size=400),
...                    "color": rng.choice(["red", "blue"], 400)})
>>> df["y"] = (df["x"] > 0).astype(int)
>>> plan = cn.feature_columns.infer(df, "y")
>>> plan.task, [c.name for c in plan.dnn]
('binary', ['x', 'x_bucketized_embedding', 'color_indicator'])
>>> print(plan.describe().splitlines()[1])
id: dropped: an id (400 distinct values in 400 rows)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .categorical import categorical_column_with_hash_bucket
from .crossed import crossed_column
from .dense import embedding_column, indicator_column
from .normalizers import chain, clip, log1p, standardize
from .numeric import BucketizedColumn, bucketized_column, numeric_column
from .serialization import from_config, to_config
from .time_parts import TimePartCategoricalColumn, categorical_column_with_time_part
from .vocabulary import categorical_column_with_vocabulary_list

__all__ = ["ColumnDecision", "ColumnPlan", "infer"]

# -- the bounded state of the pass
# Distinct values counted exactly up to here; beyond, a hash sketch estimates them. Large
# enough for any vocabulary list this module writes (VOCABULARY_MAX), small in memory.
DISTINCT_CAP = 10_000
# k of the k-minimum-values distinct-count sketch: relative error about 1/sqrt(k), ~3%.
SKETCH_SIZE = 1024
# Rows in the shared uniform sample: quantiles to ~1% and pair statistics of a few
# hundred cells, in a few MB for ordinary tables.
SAMPLE_ROWS = 20_000
# Record batch size for in-memory inputs.
BATCH_ROWS = 65_536

# -- dropping columns
# A column null in at least this share of rows carries too little to learn from.
MAX_NULL_FRACTION = 0.95
# A column with distinct values in at least this share of its non-null rows is an id:
# each value is seen once, so no weight for it can be learned.
ID_DISTINCT_FRACTION = 0.9
# ... but only when there are enough rows for the share to mean something.
ID_MIN_ROWS = 50
# A string column whose values average more characters than this is free text, which a
# categorical column would treat as an id.
TEXT_MEAN_LENGTH = 40

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

# The deep part also gets an embedding of a number's quantile bucket when it has at least
# this many buckets (a piecewise-constant encoding, Gorishniy et al. 2022).
NUMERIC_BUCKET_EMBEDDING = True
BUCKET_EMBEDDING_MIN = 4

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

# The parts of a timestamp tried, in this order (see _time_parts).
TIME_PARTS_USED = ("hour", "weekday", "month", "day")

# -- crosses
MAX_CROSSES = 3
# Only the columns most informative alone are paired (bounds the pairs to score).
CROSS_CANDIDATES = 10
# Minimum gain, in nats, of a pair over its better single column, both measured out of
# sample (:func:`_heldout_information`): an in-sample estimate, even bias-corrected,
# favours pairs with many cells, and on a small table a pair of bucketized numbers
# (400 cells) reads as highly informative when it only memorizes the rows.
MIN_CROSS_GAIN = 0.002
# Pseudo-rows of the label's marginal added to each cell's label counts when scoring
# (an m-estimate): a cell seen in a row or two predicts close to the marginal.
CROSS_PRIOR_ROWS = 2.0
CROSS_BUCKETS_MAX = 10_000

# -- the label
# An integer label with at most this many values is a class id; more is a quantity.
MAX_CLASSES = 20
# Regression labels are cut into this many quantile bins to score crosses.
LABEL_BINS = 10

TASKS = ("binary", "multiclass", "regression")


@dataclass(frozen=True)
class ColumnDecision:
    """What :func:`infer` did with one input column, and why."""

    name: str
    action: str  # "numeric", "categorical", "boolean", "timestamp", "dropped", "label", "cross"
    reason: str

    def line(self) -> str:
        return f"{self.name}: {self.action}: {self.reason}"


@dataclass(frozen=True)
class ColumnPlan:
    """Feature columns for a wide&deep model, as :func:`infer` chose them.

    ``linear`` and ``dnn`` are the columns of the wide and deep parts; ``task`` is
    ``"binary"``, ``"multiclass"`` or ``"regression"``; ``decisions`` say per column why;
    ``label_mean`` and ``label_std`` are a regression label's (what a model trained on
    standardized labels scales its predictions back with); ``label_nulls`` the rows
    without a label (of ``rows``).

    >>> import colonnade as cn, pandas as pd
    >>> df = pd.DataFrame({"n": [1.0, 2.0, 3.0, 4.0] * 25, "y": ["a", "b"] * 50})
    >>> plan = cn.feature_columns.infer(df, "y")
    >>> plan.label_vocabulary, plan.n_classes
    (('a', 'b'), 2)
    >>> ColumnPlan.from_config(plan.to_config()) == plan
    True
    """

    label: str
    task: str
    linear: tuple
    dnn: tuple
    decisions: tuple
    rows: int
    n_classes: int | None = None
    label_vocabulary: tuple | None = None
    notes: tuple = field(default=())
    label_mean: float | None = None
    label_std: float | None = None
    label_nulls: int = 0

    def describe(self) -> str:
        """One line per column: what it became and why; then the notes."""
        lines = [d.line() for d in self.decisions]
        return "\n".join(lines + [f"note: {n}" for n in self.notes])

    def to_config(self) -> dict:
        """The plan as plain data (TOML/JSON): columns as :func:`to_config` dicts."""
        out = {
            "label": self.label,
            "task": self.task,
            "rows": self.rows,
            "linear_feature_columns": to_config(self.linear)["feature_columns"],
            "dnn_feature_columns": to_config(self.dnn)["feature_columns"],
            "decisions": [[d.name, d.action, d.reason] for d in self.decisions],
            "notes": list(self.notes),
        }
        if self.n_classes is not None:
            out["n_classes"] = self.n_classes
        if self.label_vocabulary is not None:
            out["label_vocabulary"] = list(self.label_vocabulary)
        if self.label_mean is not None:
            out["label_mean"], out["label_std"] = self.label_mean, self.label_std
        if self.label_nulls:
            out["label_nulls"] = self.label_nulls
        return out

    @classmethod
    def from_config(cls, config: dict) -> ColumnPlan:
        """The plan back from :meth:`to_config`."""
        vocab = config.get("label_vocabulary")
        return cls(
            label=config["label"],
            task=config["task"],
            linear=tuple(from_config(config["linear_feature_columns"], "linear")),
            dnn=tuple(from_config(config["dnn_feature_columns"], "dnn")),
            decisions=tuple(ColumnDecision(*d) for d in config.get("decisions", [])),
            rows=int(config.get("rows", 0)),
            n_classes=config.get("n_classes"),
            label_vocabulary=None if vocab is None else tuple(vocab),
            notes=tuple(config.get("notes", [])),
            label_mean=config.get("label_mean"),
            label_std=config.get("label_std"),
            label_nulls=int(config.get("label_nulls", 0)),
        )

    def with_note(self, note: str) -> ColumnPlan:
        return replace(self, notes=self.notes + (note,))


# ---------------------------------------------------------------- the streaming pass


class _DistinctCounter:
    """Exact value counts up to :data:`DISTINCT_CAP` values; then the counts of those
    values only, and a k-minimum-values sketch over 64-bit hashes of all values."""

    def __init__(self):
        self.counts: dict = {}
        self.exact = True
        self.sketch = np.empty(0, dtype=np.uint64)

    def add(self, arr: pa.Array) -> None:
        vc = pc.value_counts(arr.drop_null())
        values = vc.field("values").to_pylist()
        counts = vc.field("counts").to_numpy()
        if self.exact:
            for v, c in zip(values, counts):
                self.counts[v] = self.counts.get(v, 0) + int(c)
            if len(self.counts) > DISTINCT_CAP:
                self.exact = False
                self._sketch(list(self.counts))
                # keep the most frequent values' counts, bounded
                top = sorted(self.counts.items(), key=lambda kv: -kv[1])[:DISTINCT_CAP]
                self.counts = dict(top)
        else:
            for v, c in zip(values, counts):
                if v in self.counts:
                    self.counts[v] += int(c)
            self._sketch(values)

    def _sketch(self, values) -> None:
        hashes = pd.util.hash_array(np.asarray(values, dtype=object)).astype(np.uint64)
        merged = np.union1d(self.sketch, hashes)  # sorted, unique
        self.sketch = merged[:SKETCH_SIZE]

    def distinct(self) -> int:
        if self.exact:
            return len(self.counts)
        if len(self.sketch) < SKETCH_SIZE:
            return len(self.sketch)
        kth = float(self.sketch[-1]) / 2.0**64
        return int((SKETCH_SIZE - 1) / kth)


class _ColumnStats:
    def __init__(self, name: str, arrow_type: pa.DataType):
        self.name, self.type = name, arrow_type
        self.count = self.nulls = 0
        self.min = self.max = None
        self.n = 0  # non-null numeric values seen in the moments
        self.shift = None
        self.s1 = self.s2 = self.s3 = 0.0
        self.length_sum = 0
        self.distinct = _DistinctCounter()

    def add(self, arr: pa.Array) -> None:
        if pa.types.is_dictionary(arr.type):
            arr = arr.cast(arr.type.value_type)
        self.count += len(arr)
        self.nulls += arr.null_count
        if len(arr) == arr.null_count:
            return
        self.distinct.add(arr)
        kind = _kind(arr.type)
        if kind == "numeric":
            values = arr.drop_null().to_numpy(zero_copy_only=False).astype(np.float64)
            values = values[np.isfinite(values)]
            if values.size:
                if self.shift is None:  # moments about a first value: no cancellation
                    self.shift = float(values[0])
                d = values - self.shift
                self.n += values.size
                self.s1 += float(d.sum())
                self.s2 += float((d * d).sum())
                self.s3 += float((d * d * d).sum())
                lo, hi = float(values.min()), float(values.max())
                self.min = lo if self.min is None else min(self.min, lo)
                self.max = hi if self.max is None else max(self.max, hi)
        elif kind == "string":
            self.length_sum += int(pc.sum(pc.utf8_length(arr.drop_null())).as_py() or 0)

    def moments(self):
        """``(mean, std, skewness)`` of the non-null finite values."""
        n = self.n
        m1 = self.s1 / n
        var = max(self.s2 / n - m1 * m1, 0.0)
        m3 = self.s3 / n - 3 * m1 * self.s2 / n + 2 * m1**3
        std = math.sqrt(var)
        skew = m3 / std**3 if std > 0 else 0.0
        return m1 + self.shift, std, skew


class _Reservoir:
    """A uniform sample of ``size`` rows without replacement over a stream of batches:
    each row gets a seeded random key and the ``size`` smallest keys are kept."""

    def __init__(self, size: int, seed: int):
        self.size, self.rng = size, np.random.default_rng(seed)
        self.table, self.keys = None, np.empty(0)

    def add(self, batch: pa.RecordBatch) -> None:
        keys = self.rng.random(batch.num_rows)
        table = pa.Table.from_batches([batch])
        if self.table is not None:
            table = pa.concat_tables([self.table, table], promote_options="permissive")
            keys = np.concatenate([self.keys, keys])
        if len(keys) > self.size:
            keep = np.sort(np.argpartition(keys, self.size - 1)[: self.size])
            table, keys = table.take(pa.array(keep)), keys[keep]
        self.table, self.keys = table.combine_chunks(), keys


def _kind(t: pa.DataType) -> str:
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_boolean(t):
        return "boolean"
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        return "numeric"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_time(t):
        return "timestamp"
    if pa.types.is_null(t):
        return "null"
    return "other"


def _batches(data):
    """Record batches of ``data``, lazily for files and Datasets."""
    from ..data import Dataset  # data/ does not import feature_columns/

    if isinstance(data, pd.DataFrame):
        return _from_pandas(data).to_batches(BATCH_ROWS)
    if isinstance(data, pa.RecordBatch):
        return [data]
    if isinstance(data, pa.Table):
        return data.to_batches(BATCH_ROWS)
    if isinstance(data, dict):
        return _from_pandas(pd.DataFrame(data)).to_batches(BATCH_ROWS)
    if isinstance(data, Dataset):
        # One raw pass, label columns included (they are columns like the others here).
        return data.record_batches()
    if isinstance(data, (str, list, tuple)) or hasattr(data, "__fspath__"):
        return Dataset.from_files(data).record_batches()
    raise TypeError(
        f"infer reads a pandas DataFrame, a pyarrow Table, Parquet/CSV paths or a "
        f"cn.data.Dataset; got {type(data).__name__}"
    )


def _from_pandas(df: pd.DataFrame) -> pa.Table:
    try:
        return pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowTypeError, pa.ArrowInvalid) as e:
        for name in df.columns:
            try:
                pa.array(df[name], from_pandas=True)
            except (pa.ArrowTypeError, pa.ArrowInvalid):
                kinds = sorted({type(v).__name__ for v in df[name].dropna()})
                raise TypeError(
                    f"column {name!r} mixes types {kinds}; give it one type, e.g. "
                    f"df[{name!r}] = df[{name!r}].astype(str) for a categorical column"
                ) from e
        raise


# ---------------------------------------------------------------- the rules


def _label_task(stats: _ColumnStats, task: str | None):
    """``(task, n_classes, label_vocabulary, reason)`` for the label column."""
    name, kind = stats.name, _kind(stats.type)
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


def _drop_reason(stats: _ColumnStats, rows: int):
    kind = _kind(stats.type)
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
    if kind == "string" and stats.length_sum / non_null > TEXT_MEAN_LENGTH:
        return (
            f"free text (values average {stats.length_sum / non_null:.0f} characters, "
            f"> {TEXT_MEAN_LENGTH}); too long to be categorical"
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


def _numeric(stats: _ColumnStats, sample: np.ndarray):
    """``(wide column, deep column, reason)`` of a number."""
    name = stats.name
    mean, std, skew = stats.moments()
    finite = sample[np.isfinite(sample)]
    median = float(np.median(finite)) if finite.size else mean
    default = median if stats.nulls else None
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
    # distinct in float32 (TF bucketizes in it) and strictly inside the range (a bucket
    # below the minimum is never used)
    boundaries = sorted({float(np.float32(b)) for b in boundaries})
    boundaries = [b for b in boundaries if stats.min < b <= stats.max] or [median]
    if stats.min >= 0 and skew > LOG_SKEW:
        logs = np.log1p(finite)
        lstd = float(logs.std()) or 1.0
        norm = chain(log1p(), standardize(float(logs.mean()), lstd))
        how = f"skewness {skew:.1f} > {LOG_SKEW}, non-negative: log1p, then standardized"
    else:
        lo, hi = (float(q) for q in np.quantile(finite, CLIP_QUANTILES))
        norm = (
            chain(clip(lo, hi), standardize(mean, std or 1.0))
            if hi > lo
            else standardize(mean, std or 1.0)
        )
        how = f"skewness {skew:.1f}: clipped to [{lo:.4g}, {hi:.4g}], standardized"
    deep = [numeric_column(name, default_value=default, normalizer_fn=norm)]
    raw = numeric_column(name, default_value=default)
    wide = bucketized_column(raw, boundaries)
    nulls = f"; nulls ({stats.nulls}) read as the median {median:.4g}" if stats.nulls else ""
    reason = f"{len(boundaries) + 1} quantile buckets (wide){spike}; {how} (deep){nulls}"
    buckets = len(boundaries) + 1
    if NUMERIC_BUCKET_EMBEDDING and buckets >= BUCKET_EMBEDDING_MIN:
        width = min(EMBEDDING_MAX, math.ceil(EMBEDDING_FACTOR * buckets**0.25))
        deep.append(embedding_column(wide, dimension=width))
        reason += (
            f"; its bucket also as an embedding of width {width} (deep: a step function "
            "of the value the first layer need not build from one input)"
        )
    return wide, tuple(deep), reason


def _categorical(stats: _ColumnStats):
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
        col = categorical_column_with_hash_bucket(name, size)
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


def _time_parts(name: str, values: pa.Array):
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


def _heldout_information(codes: np.ndarray, labels: np.ndarray, n_labels: int) -> float:
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
    >>> round(_heldout_information(y, y, 2), 2)  # the label itself: its entropy, ln 2
    0.69
    >>> _heldout_information(np.arange(2000), y, 2)  # an id: its values never recur
    0.0
    >>> _heldout_information(rng.integers(0, 500, 2000), y, 2) < 0  # noise in many cells
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

    ids = transform_features(sample, [column])[column.name]
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


def _crosses(candidates: list, sample: pa.Table, label: str, task: str):
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
        singles[col] = _heldout_information(codes[col], y, n_labels)
    ranked = sorted(singles, key=lambda c: -singles[c])[:CROSS_CANDIDATES]
    scored = []
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            joint = codes[a] * (int(codes[b].max()) + 1) + codes[b]
            gain = _heldout_information(joint, y, n_labels) - max(singles[a], singles[b], 0.0)
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


def infer(data, label: str, *, task: str | None = None, exclude=(), seed: int = 0) -> ColumnPlan:
    """Infer the feature columns of a wide&deep model from ``data`` in one streaming pass.

    ``data``: a DataFrame, an Arrow table, Parquet/CSV path(s) or a ``cn.data.Dataset``;
    ``label``: the label column; ``task``: ``"binary"``, ``"multiclass"`` or
    ``"regression"`` to override the inferred one; ``exclude``: columns not to use;
    ``seed``: the sample's seed. See the module docstring for the rules.

    >>> import colonnade as cn, pandas as pd
    >>> df = pd.DataFrame({"k": ["a", "b", "c"] * 40, "c": 1, "y": [0.5, 1.5, 2.0] * 40})
    >>> plan = cn.feature_columns.infer(df, "y")
    >>> plan.task, [c.name for c in plan.linear]
    ('regression', ['k'])
    >>> [d.line() for d in plan.decisions if d.name == "c"]
    ['c: dropped: constant']
    """
    stats: dict = {}
    reservoir = _Reservoir(SAMPLE_ROWS, seed)
    schema = None
    for batch in _batches(data):
        if isinstance(batch, pa.Table):
            batch = batch.combine_chunks().to_batches()[0] if batch.num_rows else None
            if batch is None:
                continue
        if schema is None:
            schema = batch.schema
            if label not in schema.names:
                raise KeyError(
                    f"label column {label!r} not found; the data has columns {schema.names}"
                )
            for f in schema:
                stats[f.name] = _ColumnStats(f.name, f.type)
        for name in schema.names:
            stats[name].add(batch.column(name))
        reservoir.add(batch)
    if schema is None:
        raise ValueError("the data has no rows; infer needs data to learn columns from")
    rows = stats[label].count
    label_stats = stats[label]
    task, n_classes, vocab, why = _label_task(label_stats, task)
    label_mean = label_std = None
    if task == "regression":
        label_mean, label_std, _ = label_stats.moments()
        label_std = label_std or 1.0
        why += f"; mean {label_mean:.4g}, standard deviation {label_std:.4g}"
    decisions = [ColumnDecision(label, "label", f"{task}: {why}")]
    notes = []
    if label_stats.nulls:
        notes.append(f"{label_stats.nulls} rows have a null label; training skips them")
    sample = reservoir.table
    sample = sample.filter(pc.is_valid(sample.column(label)))
    linear, dnn, candidates = [], [], []
    for name in schema.names:
        if name == label:
            continue
        s = stats[name]
        if name in exclude:
            decisions.append(ColumnDecision(name, "dropped", "excluded by the caller"))
            continue
        drop = _drop_reason(s, rows)
        if drop is not None:
            decisions.append(ColumnDecision(name, "dropped", drop))
            continue
        kind = _kind(s.type)
        if kind == "boolean":
            col = numeric_column(name, default_value=0.0 if s.nulls else None)
            linear.append(col)
            dnn.append(col)
            decisions.append(
                ColumnDecision(name, "boolean", "true/false read as 1/0 in both parts")
            )
        elif kind == "numeric":
            values = sample.column(name).to_numpy(zero_copy_only=False).astype(np.float64)
            wide, deep, reason = _numeric(s, values[~np.isnan(values)])
            linear.append(wide)
            dnn.extend(deep)
            candidates.append(wide)
            decisions.append(ColumnDecision(name, "numeric", reason))
        elif kind == "timestamp":
            parts, reason = _time_parts(name, sample.column(name).combine_chunks())
            if not parts:
                decisions.append(ColumnDecision(name, "dropped", reason))
                continue
            linear.extend(col for col, _ in parts)
            dnn.extend(deep for _, deep in parts)
            candidates.extend(col for col, _ in parts)
            decisions.append(ColumnDecision(name, "timestamp", reason))
        else:
            wide, deep, reason = _categorical(s)
            linear.append(wide)
            dnn.append(deep)
            candidates.append(wide)
            decisions.append(ColumnDecision(name, "categorical", reason))
    if not linear:
        raise ValueError(
            f"no usable feature column: {'; '.join(d.line() for d in decisions[1:]) or 'none'}"
        )
    for cross, reason in _crosses(candidates, sample, label, task):
        linear.append(cross)
        decisions.append(ColumnDecision(cross.name, "cross", reason))
    return ColumnPlan(
        label=label,
        task=task,
        linear=tuple(linear),
        dnn=tuple(dnn),
        decisions=tuple(decisions),
        rows=rows,
        n_classes=n_classes,
        label_vocabulary=vocab,
        notes=tuple(notes),
        label_mean=label_mean,
        label_std=label_std,
        label_nulls=label_stats.nulls,
    )
