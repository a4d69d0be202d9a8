"""A request's memory budget through a serving graph, computed before it is applied.

A serving graph comes from the export, which may be hostile: within every load-time cap
(10,000 nodes, each at most 2^20 values a row) its nodes together could hold terabytes for
one request. So before :func:`~.serving_graph.apply_graph` computes anything beyond the
request's own inputs, :func:`plan` walks the nodes in evaluation order with their
shapes (a pure function of the graph, the shapes of the values already known and the
row count: no array is made) and counts the values held at once: every live node's
value (made, and read by a later node or a feature), plus the temporaries of the node
being computed. A request whose peak is over the budget (:data:`MAX_REQUEST_VALUES` by
default) is a :class:`GraphBudgetError` naming both numbers; otherwise the plan says
which values to free after each node, so that evaluation never holds more than it
counted.

>>> graph = {"nodes": [
...     {"op": "placeholder", "inputs": [], "dtype": "float32", "attrs": {"shape": [None]}},
...     {"op": "log1p", "inputs": [0], "dtype": "float32", "attrs": {}}],
...     "inputs": {"x": 0}, "features": {"y": 1}}
>>> plan(graph, {0: Value((5,))}, rows=5).peak
15
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "MAX_REQUEST_VALUES",
    "MAX_ROW_VALUES",
    "GraphBudgetError",
    "Plan",
    "Value",
    "plan",
    "table_value",
]

MAX_ROW_VALUES = 1 << 20
"""The most values any one value of the graph may hold a row (a broadcast of two
constants included)."""
MAX_REQUEST_VALUES = 1 << 25
"""The most values one request's evaluation of the graph may hold at once (the live
nodes' values and the temporaries of the node being computed), whatever its rows: 256
MiB of float64 (a string counts one value, its characters besides)."""

_STRING_OPS = ("as_string", "substr", "to_number", "lower", "upper", "strip")


class GraphBudgetError(ValueError):
    """A request the serving graph would need more than its budget of values for;
    ``needed`` and ``budget`` are the numbers (the server answers 413)."""

    def __init__(self, needed: int, budget: int, node: int, op: str, rows: int):
        self.needed, self.budget = needed, budget
        super().__init__(
            f"the serving graph would hold {needed:,} values at once for this request of "
            f"{rows:,} row(s) (at node {node}, op {op!r}), over its budget of {budget:,} "
            "values; send fewer rows per request"
        )


@dataclass(frozen=True)
class Value:
    """What the plan knows of a node's value: its numpy ``shape``, or ``None`` for an
    Arrow value (a parsed table, a var-length column) of ``size`` values and ``rows``."""

    shape: tuple | None
    size: int = -1
    rows: int = 0

    def __post_init__(self):
        if self.shape is not None:
            object.__setattr__(self, "size", math.prod(self.shape))
            object.__setattr__(self, "rows", self.shape[0] if self.shape else 1)


@dataclass(frozen=True)
class Plan:
    """``order``: the nodes to compute, in turn; ``frees[i]``: the values no node after
    ``i`` reads; ``peak``: the most values held at once. ``failing``: the node whose
    shape could not be followed (the last of ``order``, which evaluation must fail on),
    or ``None``."""

    order: list
    frees: dict
    peak: int
    failing: int | None = None


def plan(graph: dict, known: dict, rows: int, max_values: int = MAX_REQUEST_VALUES) -> Plan:
    """The :class:`Plan` of computing ``graph``'s features for a request of ``rows``
    rows, given the :class:`Value` of each node already known (the request's inputs as
    their placeholders, a parsed table). Raises :class:`GraphBudgetError` past
    ``max_values``, and ``ValueError`` for a node that would make more than
    :data:`MAX_ROW_VALUES` values a row. Where a shape cannot be followed (a broadcast
    that fails, an Arrow value given to a numeric op) the count stops there: evaluation
    raises its error at that node, before making it."""
    nodes, features = graph["nodes"], set(graph["features"].values())
    order = sorted(_needed(nodes, features, known))
    position = {i: p for p, i in enumerate(order)}
    last = {i: -1 for i in known}
    for i in order:
        last.setdefault(i, -1)
        for j in nodes[i]["inputs"]:
            last[j] = max(last.get(j, -1), position[i])
    for i in features:
        last[i] = len(order)
    frees = {i: [] for i in order}
    values = dict(known)
    live = sum(v.size for i, v in known.items() if last[i] >= 0)
    peak = live
    for p, i in enumerate(order):
        spec = nodes[i]
        value = _infer(nodes, spec, [values[j] for j in spec["inputs"]], rows)
        if value is None:
            return Plan(order[: p + 1], frees, peak, i)
        values[i] = value
        working = live + value.size * _temporaries(spec["op"])
        peak = max(peak, working)
        if peak > max_values:
            raise GraphBudgetError(peak, max_values, i, spec["op"], rows)
        live += value.size
        for j in set(spec["inputs"]) | {i}:
            if last[j] == p and j not in features:
                frees[i].append(j)
                live -= values[j].size
    else:  # a constant feature is made a row each when the features' table is built
        for i in features:
            shape = values[i].shape
            if shape is not None and (not shape or shape[0] != rows):
                live += rows * math.prod(shape[1:] if shape and shape[0] == 1 else shape)
        peak = max(peak, live)
        if peak > max_values:
            raise GraphBudgetError(peak, max_values, order[-1] if order else 0, "features", rows)
    return Plan(order, frees, peak)


def _needed(nodes, outputs, known) -> set:
    needed, stack = set(), [i for i in outputs if i not in known]
    while stack:
        i = stack.pop()
        if i in needed:
            continue
        needed.add(i)
        stack.extend(j for j in nodes[i]["inputs"] if j not in known and j not in needed)
    return needed


def _temporaries(op: str) -> int:
    """How many arrays of its result's size computing ``op`` holds at its peak."""
    if op in ("constant", "placeholder", "expand_dims", "reshape"):
        return 1
    if op == "clip_by_value" or op in _STRING_OPS:
        return 3  # maximum, minimum, cast; or the Arrow strings, the result, as numpy
    return 2  # the result and its cast to the node's dtype; a column and its numpy form


def check_row_values(op: str, shape: tuple, rows: int) -> None:
    """A ``ValueError`` if a value of ``shape`` is over :data:`MAX_ROW_VALUES` a row."""
    if math.prod(shape) > max(rows, 1) * MAX_ROW_VALUES:
        raise ValueError(
            f"op {op!r} would make {math.prod(shape):,} values ({shape}), over "
            f"{MAX_ROW_VALUES:,} a row"
        )


def _infer(nodes: list, spec: dict, args: list, rows: int) -> Value | None:
    """The :class:`Value` a node makes, or ``None`` where evaluation will fail on it."""
    op, attrs = spec["op"], spec["attrs"]
    if op == "constant":
        return Value(tuple(attrs["shape"]))
    if op == "placeholder":  # not sent: its default, a row each
        if not args or args[0].shape is None:
            return None
        default, shape = args[0].shape, attrs["shape"]
        if shape is not None and len(default) == len(shape) and default[:1] == (1,):
            default = default[1:]
        return Value((rows, *default))
    if op == "parse_example":
        if args[0].shape is None:
            return None
        count = args[0].size
        return Value(None, count * (_example_values(attrs["features"]) + 1), count)
    if op == "parsed_feature":
        table = args[0]
        feature = nodes[spec["inputs"][0]]["attrs"]["features"][attrs["name"]]
        if table.shape is not None:
            return None
        if feature["kind"] == "var":  # its lists, as the table holds them
            return Value(None, table.rows, table.rows)
        return Value((table.rows, *feature["shape"]))
    if any(a.shape is None for a in args):
        return None
    if op == "expand_dims":
        shape, axis = args[0].shape, attrs["axis"]
        if not -len(shape) - 1 <= axis <= len(shape):
            return None
        axis = axis % (len(shape) + 1)
        return Value((*shape[:axis], 1, *shape[axis:]))
    if op == "reshape":
        tail = math.prod(attrs["shape"][1:])
        if not tail or args[0].size % tail:
            return None
        return Value((args[0].size // tail, *attrs["shape"][1:]))
    if op in _STRING_OPS:
        return Value(args[0].shape)
    try:
        shape = np.broadcast_shapes(*(a.shape for a in args))
    except ValueError:
        return None
    check_row_values(op, shape, rows)
    return Value(shape)


def table_value(graph: dict, node: int, rows: int) -> Value:
    """The :class:`Value` of ``rows`` examples already parsed for ``parse_example``
    node ``node``."""
    features = graph["nodes"][node]["attrs"]["features"]
    return Value(None, rows * _example_values(features), rows)


def _example_values(features: dict) -> int:
    """The values one parsed example holds at least: each fixed-length feature's, one
    for each var-length feature (its lists are the request's own bytes)."""
    return sum(1 if s["kind"] == "var" else math.prod(s["shape"]) for s in features.values())
