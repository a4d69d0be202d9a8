"""``categorical_column_with_time_part``: the hour, weekday, month or day of a timestamp.

A timestamp itself is no good as a feature: every value is new, and its number grows
with time, so a model learns nothing it can use on later rows. What repeats is its
parts: the hour of the day, the day of the week, the month. This column reads one part
as an id, so it can be an indicator, an embedding, a linear weight or part of a cross,
like any categorical column. TF's feature columns have no such column (TF users added
the parts to their data by hand); it exists so that :func:`~.infer.infer` can use
timestamps and an export still takes the raw timestamp.

It reads Arrow timestamps (of any unit; a time-zone-aware one in its own local time),
dates, times of day (the hour only), and ISO 8601 strings (what a JSON request or a
``tf.Example`` bytes feature carries). Nulls give no id.

>>> import datetime as dt
>>> from colonnade.feature_columns import transform_features
>>> hour = categorical_column_with_time_part("when", "hour")
>>> hour.name, hour.num_buckets
('when_hour', 24)
>>> when = [dt.datetime(2024, 3, 4, 17, 30), None, dt.datetime(2024, 3, 9, 8)]
>>> transform_features({"when": when}, [hour])["when_hour"].to_lists()
[[17], [], [8]]
>>> weekday = categorical_column_with_time_part("when", "weekday")  # Monday is 0
>>> transform_features({"when": ["2024-03-04 17:30", "2024-03-09"]}, [weekday])[
...     "when_weekday"].to_lists()
[[0], [5]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .base import CategoricalColumn, check_key
from .ids import FlatIds, OneIdPerValue

__all__ = ["TIME_PARTS", "TimePartCategoricalColumn", "categorical_column_with_time_part"]

TIME_PARTS = {
    "hour": (24, lambda t: pc.hour(t)),
    "weekday": (7, lambda t: pc.day_of_week(t)),  # Monday 0 ... Sunday 6
    "month": (12, lambda t: pc.subtract(pc.month(t), 1)),  # January 0
    "day": (31, lambda t: pc.subtract(pc.day(t), 1)),  # the 1st of the month 0
}
"""Each part: ``(number of ids, Arrow compute function giving the id)``."""


@dataclass(frozen=True)
class TimePartCategoricalColumn(OneIdPerValue, CategoricalColumn):
    """One part of a timestamp as an id; see :func:`categorical_column_with_time_part`.

    >>> TimePartCategoricalColumn("when", "weekday").num_buckets
    7
    """

    key: str
    part: str

    @property
    def name(self) -> str:
        return f"{self.key}_{self.part}"

    @property
    def input_keys(self) -> tuple:
        return (self.key,)

    @property
    def num_buckets(self) -> int:
        return TIME_PARTS[self.part][0]

    def flat_ids(self, cache) -> FlatIds:
        """The part of each timestamp, in ``[0, num_buckets)``."""

        def compute():
            ragged = cache.ragged(self.key, self.name)
            times = _as_times(self, ragged.values)
            ids = TIME_PARTS[self.part][1](times)
            valid = None
            if ids.null_count:
                valid = ids.is_valid().to_numpy(zero_copy_only=False)
                ids = pc.fill_null(ids, 0)
            return FlatIds(ids.to_numpy(zero_copy_only=False).astype(np.int64), valid, ragged)

        return cache.memo(("flat_ids", self), compute)

    def parse_spec(self) -> dict:
        # tf.Example has no timestamp type, JSON neither: both carry ISO 8601 text
        return {self.key: pa.list_(pa.string())}

    def to_config(self) -> dict:
        return {"type": "categorical_column_with_time_part", "key": self.key, "part": self.part}


def _as_times(column, arr: pa.Array) -> pa.Array:
    """``arr`` as Arrow timestamps (or times of day, for the hour), or a clear error."""
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(arr.type.value_type)
    t = arr.type
    if pa.types.is_timestamp(t):
        return arr
    if pa.types.is_time(t):
        if column.part != "hour":
            raise TypeError(
                f"column {column.name!r}: feature {column.key!r} holds times of day ({t}), "
                f"which have an hour but no {column.part}"
            )
        return arr
    if pa.types.is_date(t):
        return arr.cast(pa.timestamp("s"))
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        try:
            return pc.cast(arr, pa.timestamp("us"))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise ValueError(
                f"column {column.name!r}: feature {column.key!r} has strings that are not "
                f"ISO 8601 timestamps such as '2024-03-04 17:30:00' ({_shortened(str(e))})"
            ) from None
    raise TypeError(
        f"column {column.name!r} reads timestamps, dates or ISO 8601 strings, but feature "
        f"{column.key!r} is {t}"
    )


def _shortened(text: str, most: int = 200) -> str:
    """``text`` cut to ``most`` characters: an error quoting a hostile value stays short."""
    return text if len(text) <= most else text[: most - 3] + "..."


def categorical_column_with_time_part(key: str, part: str) -> TimePartCategoricalColumn:
    """One part of the timestamps in feature ``key`` as a categorical id (a colonnade
    column; TF has none). The column is named ``f"{key}_{part}"``, so several parts of
    one timestamp can be used together. See the module docstring for the input types.

    Args:
        key: the input feature's name: timestamps, dates, times of day or ISO 8601 text.
        part: ``"hour"`` (0-23), ``"weekday"`` (Monday 0 to Sunday 6), ``"month"``
            (January 0 to December 11) or ``"day"`` of the month (the 1st is 0).

    >>> categorical_column_with_time_part("t", "month").num_buckets
    12
    >>> categorical_column_with_time_part("t", "year")
    Traceback (most recent call last):
    ...
    ValueError: column 't': part must be one of ['day', 'hour', 'month', 'weekday'], got 'year'
    """
    key = check_key(key)
    if not isinstance(part, str) or part not in TIME_PARTS:
        raise ValueError(f"column {key!r}: part must be one of {sorted(TIME_PARTS)}, got {part!r}")
    return TimePartCategoricalColumn(key, part)
