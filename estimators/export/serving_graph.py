"""A ``ServingInputReceiver``'s serving graph: recorded as JSON, applied with numpy.

``graph_json(features, receiver_tensors)`` walks the :class:`~colonnade.core.symbolic.
SymbolicTensor` DAG a ``serving_input_fn`` built and records it as data::

    {"type": "graph", "graph_version": 1,
     "nodes": [{"op": "placeholder", "inputs": [], "dtype": "float32",
                "attrs": {"name": "sq_ft", "shape": [null]}},
               {"op": "log1p", "inputs": [0], "dtype": "float32", "attrs": {}}, ...],
     "inputs": {"sq_ft": 0, ...},          # what a request sends -> its placeholder
     "features": {"log_sq_ft": 3, ...}}    # what the model reads -> its node

Nodes come in topological order (a node reads only earlier ones), so the graph has no
cycle by construction. :func:`apply_graph` computes the features for a whole request at
once: each node is one numpy (or Arrow, for strings) operation over every row.
``estimators/serving_graph_checks.py`` checks a loaded graph before it is trusted.

>>> from colonnade.core.symbolic import placeholder, node
>>> x = placeholder("float32", [None], name="x")
>>> graph = graph_json({"y": node("log1p", x) / 10.0}, {"x": x})
>>> apply_graph(graph, {"x": pa.array([0.0, 9.0])})["y"].tolist()
[0.0, 0.230258509516716]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...core import symbolic
from ...core.symbolic import SymbolicTensor
from ...data.example import parse_example
from .parse_spec_json import features_json, specs_from_json
from .serving_graph_budget import (
    MAX_REQUEST_VALUES,
    MAX_ROW_VALUES,
    Value,
    check_row_values,
    plan,
    table_value,
)

__all__ = [
    "GRAPH_VERSION",
    "MAX_REQUEST_VALUES",
    "MAX_ROW_VALUES",
    "apply_graph",
    "graph_json",
    "input_types",
]

GRAPH_VERSION = 1
_SINGLE_FEATURE = "feature"  # TF's names for a lone features / receiver tensor
_SINGLE_RECEIVER = "input"


# --------------------------------------------------------------------------- recording


def _named(value, what: str, single: str) -> dict:
    if isinstance(value, dict):
        for name in value:
            if not isinstance(name, str) or not name:
                raise TypeError(f"{what} names must be non-empty strings, got {name!r}")
        return dict(value)
    return {single: value}


def graph_json(features, receiver_tensors) -> dict:
    """The JSON form of the graph from ``receiver_tensors`` (placeholders, by the names
    a request sends) to ``features`` (by the names the model reads). Raises
    ``TypeError`` for a value that is not a symbolic tensor or an op outside the set,
    ``ValueError`` for a placeholder the receiver tensors do not name."""
    features = _named(features, "feature", _SINGLE_FEATURE)
    receivers = _named(receiver_tensors, "receiver tensor", _SINGLE_RECEIVER)
    for name, tensor in receivers.items():
        if not isinstance(tensor, SymbolicTensor) or tensor.op != "placeholder":
            raise TypeError(
                f"receiver tensor {name!r} must be a placeholder (cn.compat.v1.placeholder or "
                f"placeholder_with_default), got {tensor!r:.80}"
            )
    outputs = {}
    for name, value in features.items():
        if isinstance(value, SymbolicTensor):
            outputs[name] = value
        else:
            raise TypeError(
                f"feature {name!r} must be computed from the receiver tensors with the serving "
                f"graph's ops {sorted(symbolic.OPS)}; got a {type(value).__name__}"
            )
    order = _topological(list(receivers.values()) + list(outputs.values()))
    index = {id(t): i for i, t in enumerate(order)}
    fed = {id(t) for t in receivers.values()}
    for tensor in order:
        if tensor.op == "placeholder" and id(tensor) not in fed:
            raise ValueError(
                f"a feature reads the placeholder {tensor.attrs.get('name')!r}, which no "
                f"receiver tensor names; receiver_tensors has {sorted(receivers)}"
            )
    return {
        "type": "graph",
        "graph_version": GRAPH_VERSION,
        "nodes": [_node_json(t, index) for t in order],
        "inputs": {name: index[id(t)] for name, t in receivers.items()},
        "features": {name: index[id(t)] for name, t in outputs.items()},
    }


def _topological(roots) -> list:
    """Every node ``roots`` reach, each after its inputs: in the order they were made
    (a node is made after its inputs)."""
    reached, stack = {}, list(roots)
    while stack:
        tensor = stack.pop()
        if id(tensor) not in reached:
            reached[id(tensor)] = tensor
            stack.extend(tensor.inputs)
    return sorted(reached.values(), key=lambda tensor: tensor.created)


def _node_json(tensor: SymbolicTensor, index: dict) -> dict:
    attrs = dict(tensor.attrs)
    if tensor.op == "parse_example":
        attrs["features"] = features_json(attrs["features"], "parsing")
    return {
        "op": tensor.op,
        "inputs": [index[id(i)] for i in tensor.inputs],
        "dtype": tensor.dtype,
        "attrs": attrs,
    }


# --------------------------------------------------------------------------- request types


_ARROW_TYPES = {
    "float32": pa.float32(),
    "float64": pa.float64(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "bool": pa.bool_(),
    "string": pa.string(),
}


def input_types(graph: dict) -> dict:
    """``{request input: Arrow type}``: what each receiver tensor takes a row (a list
    type for a placeholder of rank 2 or more; a placeholder of unknown shape, a list)."""
    types = {}
    for name, i in graph["inputs"].items():
        placeholder = graph["nodes"][i]
        arrow = _ARROW_TYPES[placeholder["dtype"]]
        shape = placeholder["attrs"]["shape"]
        for _ in range(1 if shape is None else len(shape) - 1):
            arrow = pa.list_(arrow)
        types[name] = arrow
    return types


def optional_inputs(graph: dict) -> list:
    """The request inputs that may be left out (placeholders with a default)."""
    return [name for name, i in graph["inputs"].items() if graph["nodes"][i]["inputs"]]


# --------------------------------------------------------------------------- applying


def apply_graph(
    graph: dict, columns: dict, seeds: dict | None = None, max_values: int = MAX_REQUEST_VALUES
) -> dict:
    """``{feature: array}`` for a request: ``columns`` maps request inputs to their
    values (Arrow arrays or numpy arrays, one entry a row); ``seeds`` maps node indices
    to values already known (a ``parse_example`` node's table, parsed by the server).
    Only the nodes the features need are computed. A value that does not fit its
    placeholder is a ``ValueError`` naming the input.

    The request's inputs are taken first (their size is the request's own); then, before
    any other node is computed, :func:`.serving_graph_budget.plan` counts the values the
    rest would hold at once, and a request over ``max_values`` is a
    :class:`~.serving_graph_budget.GraphBudgetError`. Each value is dropped as soon as no
    later node reads it."""
    nodes, seeds = graph["nodes"], dict(seeds or {})
    by_node = {i: name for name, i in graph["inputs"].items()}
    unknown = sorted(set(columns) - set(graph["inputs"]))
    if unknown:
        raise ValueError(
            f"unknown input(s) {unknown}; the serving input receiver takes "
            f"{sorted(graph['inputs'])}"
        )
    rows = _row_count(columns, seeds)
    known = {i: table_value(graph, i, len(v)) for i, v in seeds.items()}
    values = dict(seeds)
    for i in sorted(_needed(nodes, graph["features"].values(), seeds)):
        name = by_node.get(i)
        if name is not None and columns.get(name) is not None:
            spec = nodes[i]
            values[i] = _column_array(name, columns[name], spec["dtype"], spec["attrs"]["shape"])
            known[i] = Value(values[i].shape)
    steps = plan(graph, known, rows, max_values)
    for i in steps.order:
        spec = nodes[i]
        args = [values[j] for j in spec["inputs"]]
        if spec["op"] == "placeholder":
            values[i] = _placeholder_value(spec, by_node[i], None, args, rows)
        else:
            values[i] = _compute(spec, args, rows)
        del args
        for j in steps.frees[i]:
            del values[j]
    if steps.failing is not None:  # numpy took what the plan could not follow: refused
        op = nodes[steps.failing]["op"]
        raise ValueError(f"node {steps.failing} (op {op!r}) cannot take its inputs' shapes")
    return {name: _feature_value(name, values[i], rows) for name, i in graph["features"].items()}


def _row_count(columns: dict, seeds: dict) -> int:
    counts = {len(v) for v in columns.values()} | {len(v) for v in seeds.values()}
    if len(counts) > 1:
        raise ValueError(f"every input needs one value a row; got row counts {sorted(counts)}")
    return counts.pop() if counts else 0


def _needed(nodes, outputs, seeds) -> set:
    needed, stack = set(), [i for i in outputs if i not in seeds]
    while stack:
        i = stack.pop()
        if i in needed:
            continue
        needed.add(i)
        stack.extend(j for j in nodes[i]["inputs"] if j not in seeds and j not in needed)
    return needed


def _placeholder_value(spec, name, column, args, rows):
    dtype, shape = spec["dtype"], spec["attrs"]["shape"]
    if column is None:
        if not args:
            raise ValueError(f"input {name!r} is missing; the request must send it")
        default = args[0]
        if shape is not None and default.ndim == len(shape) and default.shape[:1] == (1,):
            default = default.reshape(default.shape[1:])  # one row: tf.constant(["nokey"])
        return np.broadcast_to(default, (rows, *default.shape)).copy()
    return _column_array(name, column, dtype, shape)


def _stacked_rows(name, array: np.ndarray) -> np.ndarray:
    """An object column whose rows are equal-length lists (a pandas column of lists) as one
    array, a row per row; a column of scalars is left as it is."""
    if not len(array) or not isinstance(array.flat[0], (list, tuple, np.ndarray)):
        return array
    try:
        return np.asarray(array.tolist())
    except ValueError:
        raise ValueError(f"input {name!r} takes rows of one length, got ragged lists") from None


def _column_array(name, column, dtype, shape) -> np.ndarray:
    """A request column as a numpy array of the placeholder's dtype, its batch first."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if not isinstance(column, pa.Array):
        array = np.asarray(column, dtype=object if dtype == "string" else None)
        if array.dtype == object and dtype != "string":
            array = _stacked_rows(name, array)
    else:
        array = _arrow_to_numpy(name, column)
    if dtype == "string":
        if array.dtype.kind not in "OUS":
            raise ValueError(f"input {name!r} takes strings, got {array.dtype} values")
        array = array.astype(object)
    else:
        if array.dtype.kind not in "biuf" or (dtype != "bool" and array.dtype.kind == "b"):
            got = "strings" if array.dtype.kind in "OUS" else f"{array.dtype} values"
            raise ValueError(f"input {name!r} takes {dtype} values, got {got}")
        if dtype.startswith("int") and array.dtype.kind == "f":
            raise ValueError(f"input {name!r} takes integers ({dtype}), got {array.dtype} values")
        array = array.astype(dtype)
    if shape is not None and list(array.shape[1:]) != shape[1:]:
        raise ValueError(
            f"input {name!r} takes rows of shape {shape[1:]}, got rows of shape "
            f"{list(array.shape[1:])}"
        )
    return array


def _arrow_to_numpy(name, column: pa.Array) -> np.ndarray:
    if column.null_count:
        raise ValueError(
            f"input {name!r} has a null (row {_first_null(column)}); a placeholder takes a "
            "value every row"
        )
    dims = []
    while (
        pa.types.is_list(column.type)
        or pa.types.is_large_list(column.type)
        or (pa.types.is_fixed_size_list(column.type))
    ):
        lengths = pc.list_value_length(column).to_numpy(zero_copy_only=False)
        if len(lengths) and (lengths != lengths[0]).any():
            raise ValueError(f"input {name!r}: every row needs as many values (got ragged lists)")
        dims.append(int(lengths[0]) if len(lengths) else 0)
        column = pc.list_flatten(column)
        if column.null_count:
            raise ValueError(f"input {name!r} has a null inside a list")
    flat = column.to_numpy(zero_copy_only=False)
    return flat.reshape((-1, *dims)) if dims else flat


def _first_null(column: pa.Array) -> int:
    return int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])


def _feature_value(name, value, rows):
    if isinstance(value, (pa.Array, pa.ChunkedArray)):
        return value
    value = np.asarray(value)
    if value.ndim == 0 or value.shape[0] != rows:  # a constant feature: every row takes it
        row_shape = value.shape[1:] if value.ndim and value.shape[0] == 1 else value.shape
        value = np.broadcast_to(value.reshape(row_shape), (rows, *row_shape))
    return value


def _numeric(value, op):
    if isinstance(value, (pa.Array, pa.ChunkedArray, pa.Table)):
        raise ValueError(
            f"op {op!r} takes fixed-length values; a VarLenFeature's lists (or a parsed "
            "table) can only be passed to the model as they are"
        )
    return value


def _numbers_only(op, args) -> None:
    """A ``ValueError`` for a string value given where ``op`` takes numbers (numpy would
    repeat a string multiplied by an integer, or raise its own ``TypeError``). ``equal``
    and ``not_equal`` compare strings, and ``where`` picks them, as TF's do."""
    if op == "where":
        args = args[:1]
    elif op in ("equal", "not_equal") or not (
        op in _BINARY or op in _UNARY or op in ("clip_by_value", "cast")
    ):
        return
    for k, arg in enumerate(args):
        if np.asarray(arg).dtype.kind in "OUS":
            raise ValueError(f"op {op!r} takes numbers (input {k}), got strings")


def _check_size(op, *arrays, rows):
    check_row_values(op, np.broadcast_shapes(*(np.shape(a) for a in arrays)), rows)


_BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "truediv": np.true_divide,
    "floordiv": np.floor_divide,
    "pow": np.power,
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
    "minimum": np.minimum,
    "maximum": np.maximum,
}
_UNARY = {
    "neg": np.negative,
    "log": np.log,
    "log1p": np.log1p,
    "exp": np.exp,
    "sqrt": np.sqrt,
    "abs": np.abs,
}
_STRING_FUNCTIONS = {  # (TF's default encoding "": ASCII letters only, "utf-8")
    ("lower", ""): pc.ascii_lower,
    ("lower", "utf-8"): pc.utf8_lower,
    ("upper", ""): pc.ascii_upper,
    ("upper", "utf-8"): pc.utf8_upper,
    ("strip", ""): pc.utf8_trim_whitespace,
}


def _compute(spec, args, rows):
    op, attrs, dtype = spec["op"], spec["attrs"], spec["dtype"]
    if op == "constant":
        values = np.asarray(attrs["value"], dtype=object if dtype == "string" else dtype)
        return values.reshape(attrs["shape"])
    if op == "parse_example":
        try:
            serialized = pa.array(args[0].reshape(-1), pa.binary())
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise ValueError(f"parse_example takes serialized tf.Example bytes: {e}") from None
        return parse_example(serialized, specs_from_json(attrs["features"]))
    if op == "parsed_feature":
        return _parsed_column(args[0], attrs["name"])
    args = [_numeric(a, op) for a in args]
    _numbers_only(op, args)
    _check_size(op, *args, rows=rows)
    if op in _BINARY or op in _UNARY or op in ("clip_by_value", "where", "cast"):
        try:
            return _math(op, dtype, args)
        except TypeError as e:  # numpy's: no negative or subtraction of booleans
            kinds = [str(np.asarray(a).dtype) for a in args]
            raise ValueError(f"op {op!r} cannot take {kinds} values: {e}") from None
    if op == "expand_dims":
        return np.expand_dims(args[0], attrs["axis"])
    if op == "reshape":
        return args[0].reshape((-1, *attrs["shape"][1:]))
    return _string_op(op, attrs, dtype, args[0])


def _math(op, dtype, args):
    with np.errstate(all="ignore"):  # TF gives inf / nan, as numpy does
        if op in _BINARY:
            result = _BINARY[op](*args)
            return result if op in symbolic.COMPARISONS else result.astype(dtype, copy=False)
        if op in _UNARY:
            return _UNARY[op](args[0]).astype(dtype, copy=False)
        if op == "clip_by_value":
            return np.minimum(np.maximum(args[0], args[1]), args[2]).astype(dtype, copy=False)
        if op == "where":
            kind = object if dtype == "string" else dtype
            return np.where(args[0], args[1], args[2]).astype(kind, copy=False)
        return args[0].astype(dtype)  # cast


def _string_op(op, attrs, dtype, value: np.ndarray):
    flat = value.reshape(-1)
    if op == "as_string":
        if flat.dtype.kind == "f":  # TF's default: "%f"
            return np.char.mod("%f", flat).astype(object).reshape(value.shape)
        if flat.dtype.kind == "b":
            return np.where(value, "true", "false").astype(object)
        return flat.astype(str).astype(object).reshape(value.shape)
    strings = _arrow_strings(op, flat)
    if op == "substr":
        start = attrs["pos"]
        result = pc.utf8_slice_codeunits(strings, start=start, stop=start + attrs["len"])
    elif op == "to_number":
        try:
            result = strings.cast(_ARROW_TYPES[dtype])
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise ValueError(f"to_number: a string is not a {dtype} number: {e}") from None
        return result.to_numpy(zero_copy_only=False).reshape(value.shape)
    else:
        result = _STRING_FUNCTIONS[op, attrs.get("encoding", "")](strings)
    return result.to_numpy(zero_copy_only=False).reshape(value.shape)


def _arrow_strings(op, flat: np.ndarray) -> pa.Array:
    """The strings (or bytes) of the 1-D object array ``flat`` as an Arrow string array."""
    if flat.dtype != object:
        raise ValueError(f"op {op!r} takes strings, got {flat.dtype} values")
    try:
        strings = pa.array(flat)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise ValueError(f"op {op!r} takes strings: {e}") from None
    if pa.types.is_binary(strings.type):
        strings = strings.cast(pa.string())
    if not pa.types.is_string(strings.type):
        raise ValueError(f"op {op!r} takes strings, got {strings.type} values")
    return strings


def _parsed_column(table: pa.Table, name: str):
    column = table.column(name).combine_chunks()
    if not pa.types.is_fixed_size_list(column.type) and _is_list(column.type):
        return column  # a VarLenFeature: its lists go to the model as they are
    return _arrow_to_numpy(name, column) if not column.null_count else column


def _is_list(arrow_type) -> bool:
    return pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type)
