"""Feature columns inferred from the data: :func:`infer` reads a table once and returns a
:class:`ColumnPlan`, the wide and deep columns of a wide&deep model with the reason for
each choice.

The pass streams record batches (a DataFrame, an Arrow table, Parquet/CSV paths or a
``cn.data.Dataset``) and keeps, per column, bounded state only (:mod:`.infer_stats`):
counts, nulls, min/max, the first three moments, the values and their counts exactly up
to :data:`~.infer_stats.DISTINCT_CAP` distinct ones (beyond it a k-minimum-values hash
sketch of :data:`~.infer_stats.SKETCH_SIZE` hashes estimates the distinct count), and one
seeded uniform sample of :data:`~.infer_stats.SAMPLE_ROWS` rows shared by all columns
(quantiles, normalizer parameters and the scoring of crosses). Memory does not grow with
the number of rows.

The rules, each a named constant of :mod:`.infer_rules` or :mod:`.infer_crosses`
(``describe()`` says which one fired):

- a column that is all null, almost all null, constant, or an id (distinct values for
  nearly every row) is dropped;
- a boolean is a 0/1 numeric column in both parts;
- a number gets quantile bucket boundaries (the wide part; a value held by at least
  :data:`~.infer_rules.SPIKE_SHARE` of the rows, such as the zeros of an amount, gets a
  bucket of its own and the other values quantile buckets too) and, in the deep part, itself
  normalized (``log1p`` then standardized when it is non-negative and right-skewed,
  clipped to its 0.1%/99.9% quantiles and standardized otherwise; the wide part gets it
  too and, beside a log1p, the number as it is, standardized), an embedding of
  its bucket (a piecewise-constant encoding; its buckets also cut at the thresholds of a
  small one-feature regression tree of the label, :data:`~.infer_rules.TARGET_BINS`) and
  its piecewise-linear encoding with the minimum, the quantile boundaries and the maximum
  as knots (:func:`~.piecewise.piecewise_linear_column`); nulls read as the median (also
  in later data when the training data had none); integers beyond float32's exact range (Unix
  timestamps stored as numbers) are read as float64, beyond float64's as categories;
- an integer whose values, one group each, tell more about the label out of sample than
  its buckets (a code: a school, a plant id; :mod:`.infer_codes`) also gets a vocabulary
  list of its values: a weight per value in the wide part, an embedding in the deep part;
- a string column whose sampled values are numbers but for a few (``"abc"`` at row 201
  of a CSV file made it text) is categorical, and reported with the first such value's
  file and row in its reason, the notes and a warning (:mod:`.infer_text_numbers`);
- a string with few distinct values gets a vocabulary list (values seen at least
  :data:`~.infer_rules.MIN_VALUE_COUNT` times, by frequency) with one OOV bucket; with many, a hash
  bucket of about twice its distinct count; the deep part gets an indicator for a
  handful of values, an embedding of width ``6 * card ** 0.25`` otherwise;
- a timestamp (or date) gives its parts that vary in the sample, each a categorical
  column (:func:`~.time_parts.categorical_column_with_time_part`): hour, weekday, month,
  and the day of the month when the sample spans several months; the instant itself is
  not a feature, as later rows hold values never trained on;
- long text (long values, each seen about once) is dropped with the reason; long values
  that recur (a handful of long category names) are categorical like any string;
- two numbers equal on some rows, whose equality tells the label out of sample (a chosen
  value beside the alternatives' values: ``price == pcharter``; :mod:`.infer_equalities`),
  give their :func:`~.equality.equality_column` in both parts;
- crosses: the categorical pairs (bucketized numbers and timestamp parts included) whose
  information about the label, measured out of sample on the sample's two halves, most
  exceeds that of the better single column (and zero); at most :data:`~.infer_crosses.MAX_CROSSES`;
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
('binary', ['x', 'x_bucketized_embedding', 'x_piecewise_linear', 'color_indicator'])
>>> print(plan.describe().splitlines()[1])
id: dropped: an id (400 distinct values in 400 rows)
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import infer_equalities
from .infer_bins import label_target
from .infer_codes import code_columns
from .infer_crosses import crosses
from .infer_rules import (
    categorical_columns,
    drop_reason,
    label_task,
    numeric_columns,
    read_dtype,
    time_part_columns,
)
from .infer_stats import (
    SAMPLE_ROWS,
    ColumnStats,
    Reservoir,
    inference_kind,
    record_batches,
    sample_labels,
)
from .infer_text_numbers import numbers_as_text
from .numeric import numeric_column
from .serialization import from_config, to_config

__all__ = ["ColumnDecision", "ColumnPlan", "infer"]


@dataclass(frozen=True)
class ColumnDecision:
    """What :func:`infer` did with one input column, and why."""

    name: str
    action: str  # "numeric", "categorical", "boolean", "timestamp", "dropped", "label", "cross",
    # "equal columns"
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


# infer reports its progress (``progress=``) after each batch read and after each this
# many columns decided: a wide table (10,000 columns) takes tens of seconds.
PROGRESS_COLUMNS = 1000


# A class with fewer rows than this is warned about: a model sees a handful of examples.
RARE_CLASS_ROWS = 10


def _rare_classes(label_stats, task: str) -> str:
    """``"'a': 3 rows, ..."`` for the classes below :data:`RARE_CLASS_ROWS` rows."""
    if task == "regression":
        return ""
    counts = label_stats.distinct.counts
    rare = sorted((c, v) for v, c in counts.items() if c < RARE_CLASS_ROWS)
    return ", ".join(f"{v!r}: {c} rows" for c, v in rare)


def infer(
    data, label: str, *, task: str | None = None, exclude=(), seed: int = 0, progress=None
) -> ColumnPlan:
    """Infer the feature columns of a wide&deep model from ``data`` in one streaming pass.

    ``data``: a DataFrame, an Arrow table, Parquet/CSV path(s) or a ``cn.data.Dataset``;
    ``label``: the label column; ``task``: ``"binary"``, ``"multiclass"`` or
    ``"regression"`` to override the inferred one; ``exclude``: columns not to use;
    ``seed``: the sample's seed; ``progress``: None, or a function called with a line
    of text after each record batch read and every :data:`PROGRESS_COLUMNS` columns
    decided (the CLI prints them). See the module docstring for the rules. The work is
    linear in rows and in columns.

    >>> import colonnade as cn, pandas as pd
    >>> df = pd.DataFrame({"k": ["a", "b", "c"] * 40, "c": 1, "y": [0.5, 1.5, 2.0] * 40})
    >>> plan = cn.feature_columns.infer(df, "y")
    >>> plan.task, [c.name for c in plan.linear]
    ('regression', ['k'])
    >>> [d.line() for d in plan.decisions if d.name == "c"]
    ['c: dropped: constant']
    """
    stats: dict = {}
    reservoir = Reservoir(SAMPLE_ROWS, seed)
    schema = None
    for batch in record_batches(data):
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
                stats[f.name] = ColumnStats(f.name, f.type)
        for name in schema.names:
            stats[name].add(batch.column(name))
        reservoir.add(batch)
        if progress is not None:
            progress(f"read {stats[label].count} rows of {len(schema.names)} columns")
    if schema is None:
        raise ValueError("the data has no rows; infer needs data to learn columns from")
    rows = stats[label].count
    label_stats = stats[label]
    task, n_classes, vocab, why = label_task(label_stats, task)
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
    labels = sample_labels(sample.column(label).combine_chunks(), task)
    target = label_target(labels, task)
    linear, dnn, candidates = [], [], []
    numbers = {}  # the first EQUAL_MAX_COLUMNS numbers' sampled values, to compare pairs
    for done, name in enumerate(schema.names):
        if progress is not None and done and done % PROGRESS_COLUMNS == 0:
            progress(f"decided {done} of {len(schema.names)} columns")
        if name == label:
            continue
        s = stats[name]
        if name in exclude:
            decisions.append(ColumnDecision(name, "dropped", "excluded by the caller"))
            continue
        drop = drop_reason(s, rows)
        if drop is not None:
            decisions.append(ColumnDecision(name, "dropped", drop))
            continue
        kind = inference_kind(s.type)
        if kind == "boolean":
            col = numeric_column(name, default_value=0.0)
            linear.append(col)
            dnn.append(col)
            decisions.append(
                ColumnDecision(
                    name, "boolean", "true/false read as 1/0 in both parts; nulls as 0 (false)"
                )
            )
        elif kind == "numeric" and read_dtype(s) is None:
            wide, deep, reason = categorical_columns(s)
            linear.append(wide)
            dnn.append(deep)
            candidates.append(wide)
            reason = f"integers beyond 2**53 are codes, not quantities: {reason}"
            decisions.append(ColumnDecision(name, "categorical", reason))
        elif kind == "numeric":
            values = sample.column(name).to_numpy(zero_copy_only=False).astype(np.float64)
            known = ~np.isnan(values)
            wide, deep, reason = numeric_columns(s, values[known], target[known])
            linear.extend(wide)
            dnn.extend(deep)
            candidates.append(wide[0])
            if len(numbers) < infer_equalities.EQUAL_MAX_COLUMNS:
                numbers[name] = (values, read_dtype(s))
            code = code_columns(s, values, labels, task, wide[0])
            if code is not None:
                linear.append(code[0])
                dnn.append(code[1])
                reason += f"; {code[2]}"
            decisions.append(ColumnDecision(name, "numeric", reason))
        elif kind == "timestamp":
            parts, reason = time_part_columns(name, sample.column(name).combine_chunks())
            if not parts:
                decisions.append(ColumnDecision(name, "dropped", reason))
                continue
            linear.extend(col for col, _ in parts)
            dnn.extend(deep for _, deep in parts)
            candidates.extend(col for col, _ in parts)
            decisions.append(ColumnDecision(name, "timestamp", reason))
        else:
            as_text = numbers_as_text(name, sample.column(name).combine_chunks(), data)
            wide, deep, reason = categorical_columns(s)
            if as_text is not None:
                warnings.warn(as_text, stacklevel=2)
                notes.append(as_text)
                reason = f"{reason}; {as_text}"
            linear.append(wide)
            dnn.append(deep)
            candidates.append(wide)
            decisions.append(ColumnDecision(name, "categorical", reason))
    if not linear:
        raise ValueError(
            "no usable feature column: a model needs at least one feature that varies, but "
            f"every column was dropped ({'; '.join(d.line() for d in decisions[1:]) or 'none'})"
            "; give data whose features are not all null, constant, ids or free text"
        )
    for column, reason in infer_equalities.equality_columns(numbers, labels, task):
        linear.append(column)
        dnn.append(column)
        decisions.append(ColumnDecision(column.name, "equal columns", reason))
    rare = _rare_classes(label_stats, task)
    if rare:
        note = (
            f"classes with fewer than {RARE_CLASS_ROWS} rows ({rare}): the validation split "
            "is stratified (at least one row of each on both sides when it has two), but "
            "what is learned and measured about them is mostly chance"
        )
        warnings.warn(f"label {label!r}: {note}", stacklevel=2)
        notes.append(note)
    for cross, reason in crosses(candidates, sample, label, task):
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
