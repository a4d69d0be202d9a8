"""The checks a recorded serving graph passes before ``cn.load`` trusts it.

A serving graph (``model.json``'s ``serving_input_receiver`` of type ``graph``, see
:mod:`.serving_graph`) comes from the export, which may be hostile. Before anything is
built from it: at most :data:`MAX_NODES` nodes, each a known op with its number of
inputs and its attributes (types, small shapes), reading only earlier nodes (no cycle),
at most :data:`MAX_DEPTH` deep; constants of at most :data:`MAX_CONSTANT_VALUES` values
each and :data:`MAX_GRAPH_VALUES` together; every input a placeholder and every feature
a node. Anything else is an :class:`~.checks.ExportError` naming the field.
"""

from __future__ import annotations

import math

from ...core import symbolic
from .checks import ExportError, field
from .receiver_checks import check_feature_spec

__all__ = ["MAX_CONSTANT_VALUES", "MAX_DEPTH", "MAX_GRAPH_VALUES", "MAX_NODES", "check_graph"]

MAX_NODES = 10_000
"""The most nodes a serving graph may hold (a real one holds tens)."""
MAX_DEPTH = 256
"""The longest chain of nodes from an input to a feature."""
MAX_CONSTANT_VALUES = 1 << 16
"""The most values one constant may hold."""
MAX_GRAPH_VALUES = 1 << 20
"""The most values (and string characters) the constants of one graph hold together."""
MAX_RANK = 8
MAX_DIM = 1 << 20

_ARITY = {
    "placeholder": (0, 1),
    "constant": (0, 0),
    "parse_example": (1, 1),
    "parsed_feature": (1, 1),
    "clip_by_value": (3, 3),
    "where": (3, 3),
    **{op: (2, 2) for op in (*symbolic.ARITHMETIC, *symbolic.COMPARISONS, "minimum", "maximum")},
}
_NUMERIC = (*symbolic.ARITHMETIC, *symbolic.UNARY_MATH, "minimum", "maximum", "clip_by_value")
_ATTRS = {
    "placeholder": ("name", "shape"),
    "constant": ("value", "shape"),
    "cast": ("dtype",),
    "to_number": ("dtype",),
    "expand_dims": ("axis",),
    "reshape": ("shape",),
    "substr": ("pos", "len"),
    "lower": ("encoding",),
    "upper": ("encoding",),
    "parse_example": ("features",),
    "parsed_feature": ("name",),
}


def check_graph(receiver: dict, where: str) -> dict:
    """``receiver`` (the recorded ``serving_input_receiver``), checked as described in
    the module's docstring; returns it."""
    path = "serving_input_receiver"
    _only(receiver, ("type", "graph_version", "nodes", "inputs", "features"), where, path)
    version = field(receiver, "graph_version", int, where, path)
    if version != 1:
        raise ExportError(
            f"{where}: field {path}.graph_version: this colonnade reads serving graphs of "
            f"version 1, got {version!r:.40}; upgrade colonnade to load it"
        )
    nodes = field(receiver, "nodes", list, where, path)
    if not 1 <= len(nodes) <= MAX_NODES:
        raise ExportError(
            f"{where}: field {path}.nodes: expected 1 to {MAX_NODES:,} nodes, got {len(nodes):,}"
        )
    depth, total = [], 0
    for i, node in enumerate(nodes):
        where_node = f"{path}.nodes[{i}]"
        total += _check_node(node, i, where, where_node)
        if total > MAX_GRAPH_VALUES:
            raise ExportError(
                f"{where}: field {path}.nodes: the constants hold over {MAX_GRAPH_VALUES:,} "
                "values together"
            )
        if node["op"] == "parsed_feature":
            _check_parsed_feature(node, nodes, where, where_node)
        depth.append(1 + max((depth[j] for j in node["inputs"]), default=0))
        if depth[-1] > MAX_DEPTH:
            raise ExportError(
                f"{where}: field {where_node}: the graph is over {MAX_DEPTH} nodes deep"
            )
    inputs = _node_map(receiver, "inputs", len(nodes), where, path)
    for name, i in inputs.items():
        if nodes[i]["op"] != "placeholder":
            raise ExportError(
                f"{where}: field {path}.inputs[{name!r:.80}]: expected a placeholder node, got "
                f"a {nodes[i]['op']!r} node"
            )
    fed = set(inputs.values())
    for i, node in enumerate(nodes):
        if node["op"] == "placeholder" and i not in fed:
            raise ExportError(f"{where}: field {path}.nodes[{i}]: a placeholder no input feeds")
    _node_map(receiver, "features", len(nodes), where, path)
    _check_ranks(nodes, where, path)
    return receiver


_UNRANKED = ("parse_example", "parsed_feature")


def _check_ranks(nodes, where: str, path: str) -> None:
    """Refuse what would fail on every request, known from the placeholders' recorded
    ranks: an ``expand_dims`` axis outside its input's rank + 1, a ``reshape`` to no
    value a row. Every other op of the set is elementwise (its rank its inputs' largest);
    the parsed features' ranks are not followed."""
    ranks = []
    for i, node in enumerate(nodes):
        op, attrs, inputs = node["op"], node.get("attrs", {}), node["inputs"]
        known = [ranks[j] for j in inputs]
        if op == "placeholder":
            shape = attrs.get("shape")
            rank = None if shape is None else len(shape)
        elif op == "constant":
            rank = len(attrs["shape"])
        elif op == "reshape":
            if 0 in attrs["shape"][1:]:
                raise ExportError(
                    f"{where}: field {path}.nodes[{i}].shape: {attrs['shape']} holds no value "
                    "a row, so every request would fail at this reshape"
                )
            rank = len(attrs["shape"])
        elif op in _UNRANKED or None in known or not known:
            rank = None
        elif op == "expand_dims":
            axis, rank = attrs["axis"], known[0]
            if not -rank - 1 <= axis <= rank:
                raise ExportError(
                    f"{where}: field {path}.nodes[{i}].axis: {axis} is outside -{rank + 1} to "
                    f"{rank} for an input of rank {rank}, so every request would fail at this "
                    "expand_dims"
                )
            rank += 1
        else:
            rank = max(known)
        ranks.append(rank)


def _check_parsed_feature(node, nodes, where, path) -> None:
    source = nodes[node["inputs"][0]]
    if source["op"] != "parse_example" or node["attrs"]["name"] not in source["attrs"]["features"]:
        raise ExportError(
            f"{where}: field {path}: a parsed_feature must name a feature of the "
            f"parse_example node it reads, got {node['attrs']['name']!r:.80}"
        )


def _only(obj: dict, known, where: str, path: str) -> None:
    unknown = sorted(set(obj) - set(known))
    if unknown:
        raise ExportError(f"{where}: field {path}: unknown field(s) {unknown!r:.200}")


def _node_map(receiver, key, count, where, path) -> dict:
    mapping = field(receiver, key, dict, where, path)
    if not mapping or len(mapping) > MAX_NODES:
        raise ExportError(
            f"{where}: field {path}.{key}: expected 1 to {MAX_NODES:,} names, got {len(mapping):,}"
        )
    for name, i in mapping.items():
        if not name or not name.isprintable() or not _is_index(i, count):
            raise ExportError(
                f"{where}: field {path}.{key}[{name!r:.80}]: expected a printable name and a "
                f"node index below {count}, got {i!r:.40}"
            )
    return mapping


def _is_index(value, below: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < below


def _check_node(node, i: int, where: str, path: str) -> int:
    """One node; returns how many constant values (and characters) it holds."""
    if not isinstance(node, dict):
        raise ExportError(f"{where}: field {path}: expected an object, got {type(node).__name__}")
    _only(node, ("op", "inputs", "dtype", "attrs"), where, path)
    op = field(node, "op", str, where, path)
    if op not in symbolic.OPS:
        raise ExportError(
            f"{where}: field {path}.op: unknown op {op!r:.80}; a serving graph holds only "
            f"{sorted(symbolic.OPS)}"
        )
    inputs = field(node, "inputs", list, where, path)
    low, high = _ARITY.get(op, (1, 1))
    if not low <= len(inputs) <= high or not all(_is_index(j, i) for j in inputs):
        raise ExportError(
            f"{where}: field {path}.inputs: op {op!r} takes {low} to {high} earlier nodes "
            f"(indices below {i}), got {inputs!r:.80}"
        )
    dtype = node.get("dtype")
    if not (dtype is None and op in ("parse_example", "parsed_feature")) and (
        dtype not in symbolic.DTYPES
    ):
        raise ExportError(
            f"{where}: field {path}.dtype: expected one of {list(symbolic.DTYPES)}, got "
            f"{dtype!r:.40}"
        )
    if dtype == "string" and op in _NUMERIC:
        raise ExportError(
            f"{where}: field {path}.dtype: op {op!r} makes numbers, got dtype 'string'"
        )
    attrs = field(node, "attrs", dict, where, path)
    _only(attrs, _ATTRS.get(op, ()), where, f"{path}.attrs")
    missing = sorted(set(_ATTRS.get(op, ())) - set(attrs))
    if missing:
        raise ExportError(f"{where}: field {path}.attrs: op {op!r} needs attribute(s) {missing}")
    return _check_attrs(op, attrs, dtype, where, f"{path}.attrs")


def _bad(where, path, expected, got):
    return ExportError(f"{where}: field {path}: expected {expected}, got {got!r:.80}")


def _shape(value, where, path, batch_first: bool) -> list:
    if not isinstance(value, list) or len(value) > MAX_RANK:
        raise _bad(where, path, f"a list of at most {MAX_RANK} dimensions", value)
    dims = value[1:] if batch_first else value
    if batch_first and (not value or value[0] not in (None, -1)):
        raise _bad(where, path, "a shape whose first (batch) dimension is null or -1", value)
    if not all(_is_index(d, MAX_DIM + 1) for d in dims) or math.prod(dims) > MAX_DIM:
        expected = f"dimensions from 0 to {MAX_DIM:,}, {MAX_DIM:,} values at most"
        raise _bad(where, path, expected, value)
    return dims


def _check_attrs(op, attrs, dtype, where, path) -> int:
    if op == "placeholder":
        name = attrs.get("name")
        if name is not None and (not isinstance(name, str) or len(name) > 1000):
            raise _bad(where, f"{path}.name", "null or a short string", name)
        if attrs.get("shape") is not None:
            _shape(attrs["shape"], where, f"{path}.shape", batch_first=True)
    elif op == "constant":
        shape = _shape(field(attrs, "shape", list, where, path), where, f"{path}.shape", False)
        values = field(attrs, "value", list, where, path)
        if len(values) > MAX_CONSTANT_VALUES or len(values) != math.prod(shape):
            raise _bad(
                where,
                f"{path}.value",
                f"{math.prod(shape)} values (at most {MAX_CONSTANT_VALUES:,})",
                f"{len(values):,} values",
            )
        if not all(_is_value(v, dtype) for v in values):
            raise _bad(where, f"{path}.value", f"{dtype} values", values)
        return len(values) + sum(len(v) for v in values if isinstance(v, str))
    elif op in ("cast", "to_number"):
        kinds = [d for d in symbolic.DTYPES if d != "string"]
        if attrs.get("dtype") not in kinds or attrs["dtype"] != dtype:
            expected = f"the node's dtype, one of {kinds}"
            raise _bad(where, f"{path}.dtype", expected, attrs.get("dtype"))
    elif op == "expand_dims":
        axis = attrs.get("axis")
        if not isinstance(axis, int) or isinstance(axis, bool) or not -MAX_RANK <= axis <= MAX_RANK:
            raise _bad(where, f"{path}.axis", f"an integer from {-MAX_RANK} to {MAX_RANK}", axis)
    elif op == "reshape":
        _shape(attrs.get("shape"), where, f"{path}.shape", batch_first=True)
    elif op == "substr":
        for key in ("pos", "len"):
            if not _is_index(attrs.get(key), MAX_DIM + 1):
                expected = f"an integer from 0 to {MAX_DIM:,}"
                raise _bad(where, f"{path}.{key}", expected, attrs.get(key))
    elif op == "parse_example":
        features = field(attrs, "features", dict, where, path)
        if not features or len(features) > 10_000:
            raise _bad(where, f"{path}.features", "1 to 10,000 features", f"{len(features)}")
        for name, spec in features.items():
            check_feature_spec(spec, where, f"{path}.features[{name!r:.80}]")
        return sum(math.prod(spec["shape"]) for spec in features.values())
    elif op in ("lower", "upper"):
        if attrs.get("encoding", "") not in ("", "utf-8"):
            raise _bad(where, f"{path}.encoding", "'' or 'utf-8'", attrs.get("encoding"))
    elif op == "parsed_feature":
        if not isinstance(attrs.get("name"), str):
            raise _bad(where, f"{path}.name", "a feature name", attrs.get("name"))
    return 0


def _is_value(value, dtype) -> bool:
    if dtype == "string":
        return isinstance(value, str)
    if dtype == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if dtype.startswith("int"):
        return isinstance(value, int)
    return isinstance(value, (int, float))
