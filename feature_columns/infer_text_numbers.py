"""A column of numbers that a few bad values made text, reported by :func:`~.infer.infer`.

A CSV or JSON reader types a column from its first rows: one value that is not a number
there (``"abc"`` at row 201) makes the whole column text, and infer then makes a
categorical column of the numbers. When at least ``1 - NUMBER_SHARE`` of the sampled
values are numbers, infer says so, naming the first value that is not one (its file or
table, row and value), in the column's reason, the plan's notes and a warning; the
column stays categorical (the data may mean it: codes written as digits).
"""

from __future__ import annotations

import os

import pandas as pd
import pyarrow as pa

from ..data.csv_checks import NUMBER_SHARE, number_share
from ..data.sources import TableSource, first_non_number

__all__ = ["numbers_as_text"]


def _source(data, name):
    """The source (files, a table) of column ``name`` of ``data``; None for other data."""
    from ..data import Dataset

    if isinstance(data, dict):
        data = pd.DataFrame(data)
    if isinstance(data, pd.DataFrame):
        table = pa.Table.from_pandas(data[[name]], preserve_index=False)
        return TableSource(table, "the DataFrame")
    if isinstance(data, (pa.Table, pa.RecordBatch)):
        return TableSource(pa.table(data.select([name])), "the table")
    if isinstance(data, (str, os.PathLike, list, tuple)):
        data = Dataset.from_files(data)
    if not isinstance(data, Dataset):
        return None
    node = data.plan
    while getattr(node, "source", None) is None:
        node = getattr(node, "child", None)
        if node is None:
            return None
    return node.source


def _culprit(data, name) -> tuple | None:
    """``(where, value)`` of the first value of column ``name`` that is not a number."""
    source = _source(data, name)
    found = None if source is None else first_non_number(source, name)
    if found is None:
        return None
    unit, row, value = found
    if isinstance(source, TableSource):
        return f"{unit}, row {row} (from 0)", value
    header = ", the header not counted" if source.format == "csv" else ""
    return f"'{unit}', row {row} (from 0{header})", value


def numbers_as_text(name: str, sample, data) -> str | None:
    """What to report when text column ``name`` holds numbers in at least
    ``1 - NUMBER_SHARE`` of its sampled (``sample``) values but not in all of its values
    (``data``, read again for that column): the file, row and value of the first that
    is not one; None otherwise."""
    if not (pa.types.is_string(sample.type) or pa.types.is_large_string(sample.type)):
        return None
    share = number_share(sample)
    if share is None or share < 1 - NUMBER_SHARE:
        return None
    found = _culprit(data, name)
    if found is None:
        return None
    where, value = found
    return (
        f"column {name!r} holds numbers ({share:.1%} of the sampled values), but {where} "
        f"holds {value!r}, which made the column text: it is categorical here. If it is a "
        "number, fix or drop that value (or read it as null: null_values=) and infer again"
    )
