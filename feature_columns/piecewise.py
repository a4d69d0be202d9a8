"""The piecewise-linear encoding of a number (Gorishniy et al. 2022, "On Embeddings for
Numerical Features in Tabular Deep Learning"): a dense column, not in TensorFlow.

With bin edges ``e_0 < e_1 < ... < e_T`` a value ``x`` in bin ``t`` (``e_{t-1} <= x <
e_t``) becomes ``T`` numbers: ``1`` for the bins below, ``(x - e_{t-1}) / (e_t -
e_{t-1})`` for its own, ``0`` for those above. Below ``e_0`` the first number goes
negative, above ``e_T`` the last one exceeds 1 (the paper's convention: the value is not
clipped away). A layer on top is then any continuous piecewise-linear function of ``x``
with knots at the edges, which a bucket's one-hot or embedding (a step function) and the
number itself (a line) are not.

>>> from colonnade.feature_columns import numeric_column, transform_features
>>> ple = piecewise_linear_column(numeric_column("x"), [0.0, 1.0, 3.0])
>>> transform_features({"x": [-1.0, 0.5, 2.0, 5.0]}, [ple])["x_piecewise_linear"].tolist()
[[-1.0, 0.0], [0.5, 0.0], [1.0, 0.5], [1.0, 2.0]]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.autodiff import Tensor
from ..core.backend import DEFAULT_DTYPE, to_device
from .base import DenseColumn, WrapsSource
from .numeric import NumericColumn

__all__ = ["PiecewiseLinearColumn", "piecewise_linear", "piecewise_linear_column"]


def piecewise_linear(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """``(rows, len(edges) - 1)``: the piecewise-linear encoding of ``values`` (one per
    row) with bin ``edges`` (strictly increasing), in float64.

    >>> piecewise_linear(np.array([2.0]), np.array([0.0, 1.0, 3.0])).tolist()
    [[1.0, 0.5]]
    """
    edges = np.asarray(edges, np.float64)
    values = np.asarray(values, np.float64).reshape(-1, 1)
    out = (values - edges[:-1]) / np.diff(edges)
    out[:, 1:] = np.maximum(out[:, 1:], 0.0)
    out[:, :-1] = np.minimum(out[:, :-1], 1.0)
    return out


@dataclass(frozen=True)
class PiecewiseLinearColumn(WrapsSource, DenseColumn):
    """A number's piecewise-linear encoding; see :func:`piecewise_linear_column`.

    >>> from colonnade.feature_columns import numeric_column
    >>> piecewise_linear_column(numeric_column("x"), [0, 1, 2]).dimension
    2
    """

    source_column: NumericColumn
    edges: tuple

    @property
    def name(self) -> str:
        return f"{self.source_column.name}_piecewise_linear"

    @property
    def dimension(self) -> int:
        return len(self.edges) - 1

    @property
    def variable_shape(self) -> tuple:
        return (self.dimension,)

    def transform(self, cache) -> np.ndarray:
        """``(batch, len(edges) - 1)`` float32: the source's values (nulls given its
        ``default_value``, normalizer applied) encoded by :func:`piecewise_linear`."""
        values = cache.get(self.source_column)
        return piecewise_linear(values, np.asarray(self.edges)).astype(DEFAULT_DTYPE)

    def dense_output(self, cache, variables) -> Tensor:
        return Tensor(to_device(cache.get(self)))

    def to_config(self) -> dict:
        return {
            "type": "piecewise_linear_column",
            "source_column": self.source_column.to_config(),
            "edges": list(self.edges),
        }


def piecewise_linear_column(
    source_column: NumericColumn, edges: Sequence[float]
) -> PiecewiseLinearColumn:
    """The piecewise-linear encoding of a one-value numeric column: ``len(edges) - 1``
    numbers a row (see the module docstring). No TensorFlow counterpart.

    Args:
        source_column: a ``numeric_column`` of shape ``(1,)``; its ``default_value`` (what
            nulls read as) and ``normalizer_fn`` apply before the encoding.
        edges: the bins' edges, at least two, strictly increasing finite numbers (e.g.
            the minimum, quantiles and maximum of the training values).

    >>> from colonnade.feature_columns import numeric_column
    >>> c = piecewise_linear_column(numeric_column("age"), [18, 40, 65])
    >>> c.name, c.edges
    ('age_piecewise_linear', (18.0, 40.0, 65.0))
    """
    if not isinstance(source_column, NumericColumn) or source_column.dimension != 1:
        raise ValueError(
            "piecewise_linear_column needs a numeric_column of one value a row as "
            f"source_column, got {source_column!r}"
        )
    name = f"{source_column.name}_piecewise_linear"
    if not isinstance(edges, (list, tuple)) or len(edges) < 2:
        raise ValueError(
            f"column {name!r}: edges must be a list of at least two increasing numbers (the "
            f"bins' edges), got {edges!r}"
        )
    for e in edges:
        if isinstance(e, bool) or not isinstance(e, numbers.Real) or not math.isfinite(e):
            raise ValueError(f"column {name!r}: edges must be finite numbers, got {e!r}")
    values = tuple(float(e) for e in edges)
    for lo, hi in zip(values, values[1:]):
        if not lo < hi:
            raise ValueError(
                f"column {name!r}: edges must be strictly increasing (a bin of zero width "
                f"has no slope), but {lo} is followed by {hi}"
            )
    return PiecewiseLinearColumn(source_column, values)
