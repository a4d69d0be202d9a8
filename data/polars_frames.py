"""Polars frames as Arrow: every path that takes a pandas DataFrame takes a Polars one.

A Polars ``DataFrame`` holds its columns in Arrow memory, so ``to_arrow()`` hands them
over without copying the values (numeric columns, strings as ``large_string``, a
``Categorical`` as a dictionary array), and the Arrow table goes where a DataFrame's
converted table would. A ``Series`` becomes an Arrow array the same way. A ``LazyFrame``
is a query, not data: it is refused with the call that runs it (``.collect()``), as
running a query of unknown cost behind the caller's back would not be wise.

Polars is never imported here: its objects are recognised by their type's module, so
``import colonnade`` works without it (``pip install "colonnade[polars]"`` is for users
who want it).

>>> as_arrow(3)
3
"""

from __future__ import annotations

__all__ = ["as_arrow", "is_polars"]


def is_polars(data) -> bool:
    """Whether ``data`` is a Polars object (DataFrame, LazyFrame, Series...)."""
    return type(data).__module__.split(".", 1)[0] == "polars"


def as_arrow(data, what: str = "the data"):
    """``data`` as Arrow when it is a Polars ``DataFrame`` (a ``pa.Table``) or ``Series``
    (a ``pa.Array``), anything else unchanged. A ``LazyFrame``, or another Polars object,
    is a ``TypeError`` naming ``what`` it was given as and the fix."""
    if not is_polars(data):
        return data
    kind = type(data).__name__
    if kind in ("DataFrame", "Series"):
        return data.to_arrow()
    if kind == "LazyFrame":
        raise TypeError(
            f"{what} is a polars LazyFrame, a query that has not run: pass "
            "lazy_frame.collect() (a polars DataFrame), or write it to Parquet and pass the path"
        )
    raise TypeError(f"{what} is a polars {kind}; expected a polars DataFrame or Series")
