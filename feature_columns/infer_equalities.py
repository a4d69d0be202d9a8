"""Equal columns: pairs of numbers whose equality tells the label, for :func:`~.infer.infer`.

A discrete-choice or transaction table holds a chosen value beside the alternatives'
values (fishing's ``price`` is the price of the chosen site, ``pbeach`` ... ``pcharter``
each site's): ``price == pcharter`` says the charter was chosen, which no encoding of one
column says. Over the sampled rows, each pair of the first :data:`EQUAL_MAX_COLUMNS`
numeric columns is compared (both read in their dtype, as the column reads them; one
vectorized comparison per pair), and its equality becomes an
:func:`~.equality.equality_column` when

- the two are equal on between :data:`EQUAL_MIN_SHARE` and :data:`EQUAL_MAX_SHARE` of the
  rows (equal everywhere: a duplicate, which says nothing more);
- they are equal at least :data:`EQUAL_MIN_LIFT` times as often as chance would make two
  independent columns with their values' frequencies (:func:`chance_share`: two small
  integers, neighbouring pixels, are often equal by their values' frequencies alone);
- the equal rows do not mostly share one value (:data:`EQUAL_MAX_VALUE_SHARE`: two counts
  both zero is what each column's own spike bucket says already);
- the indicator tells at least :data:`EQUAL_MIN_INFORMATION` nats about the label out of
  sample (fitted on one half of the sample, scored on the other, both ways:
  :func:`~.infer_codes.grouping_information`, as integer codes are tested).

Indicators equal on every sampled row (``price == pbeach`` and ``price == ppier`` where
``pbeach`` and ``ppier`` are one column twice), or each other's complement (a choice
between two options), are kept once; at most :data:`EQUAL_MAX_KEPT`, the most
informative first.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> options = rng.uniform(10, 100, (2000, 2)); choice = rng.integers(0, 2, 2000)
>>> price = options[np.arange(2000), choice]
>>> found = equality_columns({"price": (price, "float32"), "pa": (options[:, 0], "float32"),
...                           "pb": (options[:, 1], "float32")}, choice, "binary")
>>> [column.name for column, _ in found]
['price_equals_pa']
"""

from __future__ import annotations

import numpy as np

from .equality import equality_column
from .infer_codes import grouping_information

__all__ = [
    "EQUAL_MAX_COLUMNS",
    "EQUAL_MAX_KEPT",
    "EQUAL_MAX_SHARE",
    "EQUAL_MAX_VALUE_SHARE",
    "EQUAL_MIN_INFORMATION",
    "EQUAL_MIN_LIFT",
    "EQUAL_MIN_SHARE",
    "chance_share",
    "equality_columns",
]

# Only the first this many numeric columns (in the table's order) are compared: at most
# EQUAL_MAX_COLUMNS * (EQUAL_MAX_COLUMNS - 1) / 2 pairs (780), each one comparison of the
# sampled rows, and the sample's values of only these columns are held.
EQUAL_MAX_COLUMNS = 40
# A pair is a candidate when equal on at least this share of the sampled rows (rarer, the
# indicator's weight is learned from a handful of rows) and at most this share (equal
# nearly everywhere: a duplicate, or a copy with a few differences).
EQUAL_MIN_SHARE = 0.01
EQUAL_MAX_SHARE = 0.99
# ... and when equal at least this many times as often as chance (:func:`chance_share`):
# digits' neighbouring pixels (integers 0..16) are equal on 13-28% of rows at 1.3-2.5
# times chance, their equality mostly a restatement of their values (the 4 kept above 2:
# accuracy within seed noise); fishing's chosen price and catch equal an alternative's 3
# to 235 times as often as chance.
EQUAL_MIN_LIFT = 2.0
# ... and when at most this share of its equal rows hold one value: two counts that are
# both zero are equal, but each column's bucket of that value says so already.
EQUAL_MAX_VALUE_SHARE = 0.5
# ... and when the indicator tells at least this many nats about the label, out of sample
# (for regression the Gaussian information of its held-out R^2: 0.01 nats is R^2 = 2%).
EQUAL_MIN_INFORMATION = 0.01
# At most this many equalities are kept, the most informative first.
EQUAL_MAX_KEPT = 6


def chance_share(a: tuple, b: tuple, rows: int) -> float:
    """The share of ``rows`` on which two independent columns with the value frequencies
    ``a`` and ``b`` (each ``np.unique(values, return_counts=True)``) would be equal:
    ``sum_v P(a = v) P(b = v)`` (NaN equals nothing).

    >>> a = np.unique([0.0, 0.0, 1.0, 2.0], return_counts=True)
    >>> chance_share(a, np.unique([0.0, 1.0, 1.0, 1.0], return_counts=True), 4)
    0.3125
    """
    (values_a, counts_a), (values_b, counts_b) = a, b
    _, in_a, in_b = np.intersect1d(values_a, values_b, assume_unique=True, return_indices=True)
    return float(np.sum(counts_a[in_a] * counts_b[in_b])) / max(rows * rows, 1)


def equality_columns(numbers: dict, labels: np.ndarray, task: str) -> list:
    """``[(equality column, reason)]`` for the pairs of ``numbers`` whose equality tells
    the label (see the module docstring). ``numbers`` maps a column's name to ``(its
    sampled values as float64 with NaN for nulls, the dtype it is read in)``, in the
    table's order (only the first :data:`EQUAL_MAX_COLUMNS` are compared); ``labels``
    are the same rows' labels (numbers for regression, class ids 0..n-1 otherwise)."""
    names = list(numbers)[:EQUAL_MAX_COLUMNS]
    read = {n: numbers[n][0].astype(numbers[n][1]) for n in names}
    frequencies = {n: np.unique(read[n], return_counts=True) for n in names}
    scored, seen = [], set()
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if numbers[a][1] != numbers[b][1]:
                continue  # read in different dtypes: an export would parse them apart
            equal = read[a] == read[b]  # NaN (a null) equals nothing
            rows = int(equal.sum())
            share = rows / max(len(equal), 1)
            if not EQUAL_MIN_SHARE <= share <= EQUAL_MAX_SHARE:
                continue
            chance = chance_share(frequencies[a], frequencies[b], len(equal))
            if share < EQUAL_MIN_LIFT * chance:
                continue
            _, counts = np.unique(read[a][equal], return_counts=True)
            if counts.max() > EQUAL_MAX_VALUE_SHARE * rows:
                continue
            fingerprint = np.packbits(equal).tobytes()
            if fingerprint in seen:
                continue
            seen.update((fingerprint, np.packbits(~equal).tobytes()))
            information = grouping_information(equal.astype(np.int64), labels, task)
            if information >= EQUAL_MIN_INFORMATION:
                lift = share / max(chance, 1 / len(equal) ** 2)
                scored.append((information, share, lift, counts.size, a, b, numbers[a][1]))
    scored.sort(key=lambda s: -s[0])
    return [_with_reason(*s, len(labels)) for s in scored[:EQUAL_MAX_KEPT]]


def _with_reason(information, share, lift, values, a, b, dtype, rows):
    column = equality_column(a, b, dtype)
    reason = (
        f"{a} == {b} on {share:.1%} of {rows} sampled rows ({lift:.0f} times chance, at "
        f"{values} distinct values); the indicator tells {information:.4f} nats about the "
        f"label out of sample (halves of the sample; kept from {EQUAL_MIN_INFORMATION} nats, "
        f"equal on {EQUAL_MIN_SHARE:.0%} to {EQUAL_MAX_SHARE:.0%} of rows, "
        f">= {EQUAL_MIN_LIFT:g} times chance): no encoding of one column says it; a weight "
        "in the wide part, an input in the deep part"
    )
    return column, reason
