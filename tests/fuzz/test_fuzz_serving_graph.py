"""Fuzzing a serving graph (issue 41): ``model.json``'s ``serving_input_receiver`` of
type ``graph``, loaded by ``cn.load`` and applied to a request.

The seed is a small regression export whose graph uses arithmetic, ``clip_by_value``,
``expand_dims``, ``reshape``, constants and string ops. A mutation replaces one value of
the graph (any path) with a hostile one, appends random nodes (known ops reading random
earlier nodes, with random attributes, some of them features), or duplicates a run of
nodes, each made a feature (many values kept alive). Loading must succeed or raise
``ExportError``; applying the loaded graph to a 3-row request must give features or
raise a ``ValueError`` (an ``ExportError``, a ``GraphBudgetError``, an input that no
longer fits), and never hold more memory than its budget allows.
"""

import json
import shutil
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from fuzzhelpers import FUZZ, HUGE, bounded
from hypothesis import given
from hypothesis import strategies as st

import colonnade as cn
from colonnade.core import symbolic
from colonnade.estimators.export import serving_graph

E = cn.estimators
tf = cn.compat.v1
REQUEST = {"x": np.array([1.0, -2.0, 3.0], np.float32), "s": np.array([" 12a", "34", "5 "], object)}
BUDGET = 1 << 16
"""The values an applied graph may hold at once here (the default is 2^25)."""
LOAD_SLACK_BYTES = 64 << 20
"""Memory a load may take beyond its files' size (as ``test_fuzz_export``'s)."""
APPLY_BYTES = 24 << 20
"""Memory applying the graph may take: ``BUDGET`` values, each at most a float64 or a
short string (an object pointer and its str), and the features' table."""

HOSTILE_VALUES = st.one_of(
    st.sampled_from(HUGE),
    st.sampled_from([-1, 0, 1, 2, 8, -9, 2**20, 1.5, float("nan"), float("inf")]),
    st.sampled_from(["", "add", "placeholder", "parse_example", "float64", "string", "x" * 5000]),
    st.sampled_from([None, True, [], {}, [-1], [None, 2**20], [0] * 70_000, {"type": "x"}]),
    st.just("<delete>"),
)
NUMBERS = [d for d in symbolic.DTYPES if d != "string"]
BINARY = sorted({*symbolic.ARITHMETIC, *symbolic.COMPARISONS, "minimum", "maximum"})
UNARY_OPS = sorted(
    set(symbolic.OPS)
    - {*BINARY, "placeholder", "constant", "parse_example", "parsed_feature"}
    - {"clip_by_value", "where"}
)


@st.composite
def constant(draw, dtype):
    shape = draw(st.sampled_from([[], [1], [4], [2, 2], [1, 4]]))
    count = int(np.prod(shape))
    value = {"string": "ab", "bool": True, "float32": 1.5, "float64": -2.0}.get(dtype, 3)
    return {"value": [value] * count, "shape": shape}


@st.composite
def attrs(draw, op, dtype):
    """Attributes of the right names and types for ``op`` (sizes and values random)."""
    if op == "constant":
        return draw(constant(dtype))
    if op in ("cast", "to_number"):
        return {"dtype": dtype}
    if op == "expand_dims":
        return {"axis": draw(st.integers(-3, 3))}
    if op == "reshape":
        return {"shape": draw(st.sampled_from([[-1], [-1, 2], [-1, 4], [-1, 2, 2], [-1, 0]]))}
    if op == "substr":
        return {"pos": draw(st.integers(0, 4)), "len": draw(st.integers(0, 4))}
    if op in ("lower", "upper"):
        return {"encoding": draw(st.sampled_from(["", "utf-8"]))}
    return {}


@st.composite
def random_nodes(draw, first):
    """Nodes to append after ``first`` nodes: known ops with their number of inputs,
    each reading random earlier nodes, of random dtypes."""
    nodes = []
    for i in range(first, first + draw(st.integers(1, 12))):
        op = draw(st.sampled_from(["constant", *BINARY, *UNARY_OPS, "clip_by_value", "where"]))
        arity = 0 if op == "constant" else 2 if op in BINARY else 1 if op in UNARY_OPS else 3
        inputs = [draw(st.integers(0, i - 1)) for _ in range(arity)]
        kinds = NUMBERS if op in ("cast", "to_number") else list(symbolic.DTYPES)
        dtype = draw(st.sampled_from(kinds))
        nodes.append({"op": op, "inputs": inputs, "dtype": dtype, "attrs": draw(attrs(op, dtype))})
    return nodes


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    root = tmp_path_factory.mktemp("seed")
    est = E.LinearRegressor([cn.feature_columns.numeric_column("x")], model_dir=str(root / "m"))
    est.fit(pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 5.0]}), label="y", epochs=1, verbose=0)

    def receiver_fn():
        x = tf.placeholder(tf.float32, [None], name="x")
        s = tf.placeholder(tf.string, [None], name="s")
        y = tf.clip_by_value(tf.log1p(tf.abs(x)) * 2.0 - 1.0, -5.0, 5.0)
        n = tf.strings.to_number(tf.strings.substr(tf.strings.strip(s), 0, 2), tf.float32)
        w = tf.reshape(tf.expand_dims(x, -1) + tf.constant([1.0, 2.0, 3.0, 4.0]), [-1, 2, 2])
        features = {"x": y, "n": n, "w": w, "u": tf.strings.upper(s)}
        return E.export.ServingInputReceiver(features, {"x": x, "s": s})

    return est.export_saved_model(str(root / "export"), receiver_fn)


def json_paths(value, prefix=()):
    yield prefix
    if isinstance(value, (dict, list)):
        for key, inner in value.items() if isinstance(value, dict) else enumerate(value):
            yield from json_paths(inner, (*prefix, key))


def edited(tmp_path_factory, pristine, change):
    """A copy of the seed export whose graph ``change`` edited in place."""
    export = shutil.copytree(pristine, tmp_path_factory.mktemp("fuzz") / "export")
    model = json.loads((export / "model.json").read_text())
    change(model["serving_input_receiver"])
    (export / "model.json").write_text(json.dumps(model))
    return export


def check_load_and_apply(export):
    """Load ``export`` and apply its graph to :data:`REQUEST` under :data:`BUDGET`:
    only the documented errors, loading within :data:`LOAD_SLACK_BYTES` (and the
    files' size), applying within :data:`APPLY_BYTES`."""
    size = sum(p.stat().st_size for p in export.rglob("*") if p.is_file())
    load_peak = apply_peak = 0
    tracemalloc.start()
    try:
        with bounded(20.0):
            try:
                predictor = cn.load(str(export))
            except E.ExportError:
                return
            finally:
                _, load_peak = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            graph = predictor.serving_input_receiver.graph
            columns = {k: v for k, v in REQUEST.items() if k in graph["inputs"]}
            try:
                features = serving_graph.apply_graph(graph, columns, max_values=BUDGET)
            except ValueError:
                return
            finally:
                _, apply_peak = tracemalloc.get_traced_memory()
            assert all(len(v) == 3 for v in features.values()), features
    finally:
        tracemalloc.stop()
        assert load_peak < LOAD_SLACK_BYTES + 16 * size, f"loading took {load_peak:,} bytes"
        assert apply_peak < APPLY_BYTES, f"applying the graph took {apply_peak:,} bytes"


def test_the_seed_loads_applies_and_predicts(pristine):
    predictor = cn.load(str(pristine))
    graph = predictor.serving_input_receiver.graph
    features = serving_graph.apply_graph(graph, REQUEST, max_values=BUDGET)
    np.testing.assert_allclose(features["n"], [12.0, 34.0, 5.0])
    np.testing.assert_allclose(features["w"][1], [[-1.0, 0.0], [1.0, 2.0]])
    expected = np.clip(np.log1p(np.abs(REQUEST["x"])) * 2.0 - 1.0, -5.0, 5.0)
    np.testing.assert_allclose(features["x"], expected, rtol=1e-6)
    assert len(predictor.predict(pd.DataFrame(REQUEST))) == 3


@FUZZ
@given(which=st.integers(0, 10_000), new=HOSTILE_VALUES)
def test_a_graph_with_a_hostile_value_loads_or_raises_export_error(
    tmp_path_factory, pristine, which, new
):
    def change(graph):
        paths = [p for p in json_paths(graph) if p]
        path = paths[which % len(paths)]
        parent = graph
        for key in path[:-1]:
            parent = parent[key]
        if new == "<delete>":
            del parent[path[-1]]
        else:
            parent[path[-1]] = new

    check_load_and_apply(edited(tmp_path_factory, pristine, change))


@FUZZ
@given(data=st.data())
def test_a_graph_with_random_nodes_loads_or_raises_export_error(tmp_path_factory, pristine, data):
    def change(graph):
        nodes = graph["nodes"]
        added = data.draw(random_nodes(len(nodes)))
        nodes.extend(added)
        graph["features"]["last"] = len(nodes) - 1
        for k in data.draw(st.lists(st.integers(0, len(added) - 1), max_size=4)):
            graph["features"][f"f{k}"] = len(nodes) - len(added) + k

    check_load_and_apply(edited(tmp_path_factory, pristine, change))


@FUZZ
@given(start=st.integers(0, 18), length=st.integers(1, 19), times=st.integers(1, 400))
def test_a_graph_with_repeated_nodes_kept_alive_stays_in_budget(
    tmp_path_factory, pristine, start, length, times
):
    def change(graph):
        nodes = graph["nodes"]
        block = nodes[start : start + length]
        for t in range(times):
            for k, node in enumerate(block):
                graph["features"][f"r{t}_{k}"] = start + k  # kept alive to the end
                nodes.append(dict(node))
                graph["features"][f"c{t}_{k}"] = len(nodes) - 1

    check_load_and_apply(edited(tmp_path_factory, pristine, change))


# ----------------------------------------------------------------- regression crashers


def test_arithmetic_on_a_string_node_is_a_value_error(tmp_path_factory, pristine):
    """Found by the fuzzer: a ``mul`` rewired to read the string input raised numpy's
    ``TypeError: can't multiply sequence by non-int`` (and a string times an integer
    constant would have repeated the string)."""

    def change(graph):
        graph["nodes"][5]["inputs"] = [1, 4]  # mul(s, 2.0)

    predictor = cn.load(str(edited(tmp_path_factory, pristine, change)))
    graph = predictor.serving_input_receiver.graph
    with pytest.raises(ValueError, match=r"op 'mul' takes numbers \(input 0\), got strings"):
        serving_graph.apply_graph(graph, REQUEST)
    graph["nodes"][4] = {
        "op": "constant",
        "inputs": [],
        "dtype": "int32",
        "attrs": {"value": [3], "shape": []},
    }
    with pytest.raises(ValueError, match="got strings"):
        serving_graph.apply_graph(graph, REQUEST)


def test_a_numeric_op_of_dtype_string_is_an_export_error(tmp_path_factory, pristine):
    """Found by the fuzzer: an ``abs`` or ``add`` node of dtype ``"string"`` loaded,
    then raised numpy's ``TypeError: data type 'string' not understood`` on a request."""

    def change(graph):
        graph["nodes"][2]["dtype"] = "string"  # abs

    with pytest.raises(E.ExportError, match=r"nodes\[2\]\.dtype: op 'abs' makes numbers"):
        cn.load(str(edited(tmp_path_factory, pristine, change)))


def test_a_negative_of_booleans_is_a_value_error():
    """Found by the fuzzer: ``neg`` of a comparison raised numpy's ``TypeError: The numpy
    boolean negative ... is not supported``."""
    nodes = [
        {"op": "placeholder", "inputs": [], "dtype": "float32", "attrs": {"shape": [None]}},
        {"op": "less", "inputs": [0, 0], "dtype": "bool", "attrs": {}},
        {"op": "neg", "inputs": [1], "dtype": "bool", "attrs": {}},
    ]
    graph = {"nodes": nodes, "inputs": {"x": 0}, "features": {"y": 2}}
    with pytest.raises(ValueError, match=r"op 'neg' cannot take \['bool'\] values"):
        serving_graph.apply_graph(graph, {"x": np.zeros(2, np.float32)})
