"""A serving graph's whole-request budget (issue 41, bug 2): the values one request's
evaluation holds at once are counted from the graph before anything past the inputs is
made, a request over the budget is refused, and each value is dropped once dead."""

import tracemalloc

import numpy as np
import pytest

from colonnade.estimators.export import serving_graph, serving_graph_checks
from colonnade.estimators.export.serving_graph_budget import (
    MAX_REQUEST_VALUES,
    GraphBudgetError,
    Value,
    plan,
)

WIDTH = 1 << 16  # one constant's most values (MAX_CONSTANT_VALUES)


def wide_graph(count, keep_all, width=WIDTH):
    """``x`` (a float32 a row) made ``width`` wide by adding a constant of ones, then
    ``count`` nodes each adding the constant again: all features (``keep_all``, every
    value live to the end) or a chain whose last node is the one feature."""
    nodes = [
        {
            "op": "placeholder",
            "inputs": [],
            "dtype": "float32",
            "attrs": {"name": "x", "shape": [None]},
        },
        {"op": "expand_dims", "inputs": [0], "dtype": "float32", "attrs": {"axis": -1}},
        {
            "op": "constant",
            "inputs": [],
            "dtype": "float32",
            "attrs": {"value": [1.0] * width, "shape": [width]},
        },
    ]
    for k in range(count):
        source = 1 if keep_all or k == 0 else len(nodes) - 1
        nodes.append({"op": "add", "inputs": [source, 2], "dtype": "float32", "attrs": {}})
    if keep_all:
        features = {f"w{i}": i for i in range(3, len(nodes))}
    else:
        features = {"y": len(nodes) - 1}
    graph = {"type": "graph", "graph_version": 1, "nodes": nodes, "inputs": {"x": 0}}
    return {**graph, "features": features}


def test_the_peak_is_the_live_values_counted_by_hand():
    graph = wide_graph(3, keep_all=True, width=10)
    # rows 4: x 4; expand_dims 4 (x freed after it); the constant 10; each add makes
    # 40 values (its result and its cast: 80 while computed), all kept as features.
    # The third add: 4 + 10 + 2*40 live, + 80 while it is computed = 174.
    assert plan(graph, {0: Value((4,))}, rows=4).peak == 174
    steps = plan(graph, {0: Value((4,))}, rows=4)
    assert steps.order == [1, 2, 3, 4, 5]
    assert steps.frees[1] == [0] and sorted(steps.frees[5]) == [1, 2]
    with pytest.raises(GraphBudgetError, match=r"would hold 174 values .* budget of 173 values"):
        plan(graph, {0: Value((4,))}, rows=4, max_values=173)


def test_an_amplifying_export_is_refused_before_it_allocates():
    graph = wide_graph(600, keep_all=True)  # 600 features of 65,536 values a row
    serving_graph_checks.check_graph(graph, "model.json")  # within every load-time cap
    # The k-th add holds x's 1 + the constant + k-1 adds + its own result and cast:
    # 1 + (k + 2) * 65,536, first over 2^25 at k = 510, node 512.
    tracemalloc.start()
    try:
        with pytest.raises(GraphBudgetError) as raised:
            serving_graph.apply_graph(graph, {"x": np.ones(1, np.float32)})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert raised.value.needed == 1 + 512 * WIDTH and raised.value.budget == MAX_REQUEST_VALUES
    assert "at node 512" in str(raised.value) and "33,554,433 values" in str(raised.value)
    assert peak < 8 << 20, f"{peak:,} bytes traced"  # the features would be 157 MB


def test_a_long_chain_frees_each_value_once_read():
    graph = wide_graph(200, keep_all=False, width=1 << 14)
    serving_graph_checks.check_graph(graph, "model.json")
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    tracemalloc.start()
    try:
        y = serving_graph.apply_graph(graph, {"x": x})["y"]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(y, np.repeat(x[:, None] + 200.0, 1 << 14, axis=1))
    node = 4 * (1 << 14) * 4  # one add's result: 256 KiB; all 200 kept would be 51 MiB
    assert peak < 6 * node, f"{peak:,} bytes traced"
    # The peak, at the second add: the constant, the first add, its own result and cast.
    assert plan(graph, {0: Value((4,))}, rows=4).peak == (1 << 14) + 3 * 4 * (1 << 14)


def test_the_budget_scales_with_rows_and_a_smaller_request_passes():
    graph = wide_graph(200, keep_all=True, width=1 << 10)
    small = serving_graph.apply_graph(graph, {"x": np.zeros(2, np.float32)})
    assert len(small) == 200 and small["w3"].shape == (2, 1 << 10)
    with pytest.raises(GraphBudgetError, match="of 200 row"):
        serving_graph.apply_graph(graph, {"x": np.zeros(200, np.float32)})


def test_a_failing_node_keeps_its_own_error():
    graph = wide_graph(1, keep_all=True, width=3)
    graph["nodes"][1] = {
        "op": "reshape",
        "inputs": [0],
        "dtype": "float32",
        "attrs": {"shape": [-1, 2]},
    }
    with pytest.raises(ValueError, match="cannot reshape"):
        serving_graph.apply_graph(graph, {"x": np.zeros(3, np.float32)})
