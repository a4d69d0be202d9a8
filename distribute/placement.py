"""Where each trained variable of an estimator lives among the parameter servers.

Tables (embedding tables and categorical linear weights, fused or not: what a batch reads
by row) are cut into ``num_ps`` contiguous row ranges, as TF's ``fixed_size_partitioner``
cuts them (the first ``rows % num_ps`` shards get one row more); every server holds one
range of every table. Dense variables (DNN kernels, biases, numeric columns' weights) are
placed whole, round-robin. This module is plain numpy: no Ray.

>>> import numpy as np
>>> p = Placement.build([[VariableInfo("t", (5, 2), True)], [VariableInfo("b", (1,), False)]], 2)
>>> p.variables[0].bounds, p.variables[1].server
((0, 3, 5), 0)
>>> [(s, r.tolist()) for s, r, _ in p.split_rows(0, np.array([4, 1, 3]))]
[(0, [1]), (1, [1, 0])]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class VariableInfo:
    """A trained variable: its name, shape and whether a batch reads it by row."""

    name: str
    shape: tuple
    table: bool


@dataclass(frozen=True)
class Placed:
    """A placed variable: ``part`` (the optimizer's part of the estimator), ``index``
    within that part, and either ``bounds`` (a table: server ``s`` holds rows
    ``bounds[s]:bounds[s+1]``) or ``server`` (a dense variable, held whole)."""

    info: VariableInfo
    part: int
    index: int
    bounds: tuple | None = None
    server: int | None = None

    def servers(self) -> range | tuple:
        """The servers holding some of this variable."""
        return range(len(self.bounds) - 1) if self.bounds is not None else (self.server,)

    def rows_on(self, server: int):
        """The index of the rows of the whole variable that ``server`` holds (``...``
        for a dense variable: all of it)."""
        if self.bounds is None:
            return ...
        return slice(self.bounds[server], self.bounds[server + 1])


def fixed_size_bounds(rows: int, num_shards: int) -> tuple:
    """Row boundaries of ``num_shards`` contiguous shards of ``rows`` rows, sizes
    differing by at most one, larger first (TF's ``fixed_size_partitioner``).

    >>> fixed_size_bounds(10, 3)
    (0, 4, 7, 10)
    """
    base, extra = divmod(rows, num_shards)
    sizes = [base + (1 if s < extra else 0) for s in range(num_shards)]
    return tuple(int(x) for x in np.concatenate([[0], np.cumsum(sizes)]))


@dataclass(frozen=True)
class Placement:
    """The placement of every trained variable, in the estimator's part order."""

    variables: tuple
    num_ps: int

    @classmethod
    def build(cls, parts, num_ps: int) -> Placement:
        """Place ``parts`` (a list per optimizer part of :class:`VariableInfo`) on
        ``num_ps`` servers. A table with fewer rows than servers is refused: a server
        would hold no row of it."""
        placed, dense = [], 0
        for p, infos in enumerate(parts):
            for i, info in enumerate(infos):
                if info.table:
                    if info.shape[0] < num_ps:
                        raise ValueError(
                            f"num_ps={num_ps} is larger than the {info.shape[0]} rows of "
                            f"table '{info.name}': every parameter server holds a row range "
                            "of every table; use num_ps <= the smallest table's rows"
                        )
                    bounds = fixed_size_bounds(info.shape[0], num_ps)
                    placed.append(Placed(info, p, i, bounds=bounds))
                else:
                    placed.append(Placed(info, p, i, server=dense % num_ps))
                    dense += 1
        return cls(tuple(placed), num_ps)

    def on_server(self, server: int) -> list:
        """Indices (into :attr:`variables`) of the variables ``server`` holds some of."""
        return [v for v, placed in enumerate(self.variables) if server in placed.servers()]

    def split_rows(self, v: int, rows: np.ndarray) -> list:
        """``[(server, local rows, mask), ...]`` for the rows ``rows`` of table ``v``:
        each server's local indices in the order of ``rows``, and which entries of
        ``rows`` they are; servers with none are left out."""
        bounds = np.asarray(self.variables[v].bounds)
        owner = np.searchsorted(bounds, rows, side="right") - 1
        out = []
        for s in range(self.num_ps):
            mask = owner == s
            if mask.any():
                out.append((s, rows[mask] - bounds[s], mask))
        return out
