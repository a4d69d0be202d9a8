"""Symbolic serving inputs: TF 1's ``placeholder`` and a small, closed set of ops over it.

A ``serving_input_fn`` describes what an export does to a request before the model:
``tf.placeholder`` inputs and a few ops on them (``expand_dims``, ``log1p``,
``strings.lower``, ``parse_example``...). Here those calls, given a
:class:`SymbolicTensor`, record a node of a small DAG instead of computing a value; the
export stores the DAG as JSON (``colonnade.estimators.export.serving_graph``) and applies it,
vectorized over a request's columns, when serving. Only the ops of :data:`OPS` exist:
the export is data, never code.

>>> x = placeholder("float32", [None], name="sq_ft")
>>> y = (x + 1.0) / 10.0
>>> y.op, y.dtype, [i.op for i in y.inputs]
('truediv', 'float32', ['add', 'constant'])
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = [
    "DTYPES",
    "OPS",
    "SymbolicTensor",
    "any_symbolic",
    "constant_node",
    "dtype_name",
    "node",
    "placeholder",
    "placeholder_with_default",
]

DTYPES = ("float32", "float64", "int32", "int64", "bool", "string")
"""The dtypes a serving input or a value of the graph may have."""

ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "pow")
COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
UNARY_MATH = ("neg", "log", "log1p", "exp", "sqrt", "abs")
STRING_OPS = ("lower", "upper", "strip", "substr", "to_number", "as_string")
OPS = (
    "placeholder",
    "constant",
    *ARITHMETIC,
    *COMPARISONS,
    *UNARY_MATH,
    "minimum",
    "maximum",
    "clip_by_value",
    "where",
    "cast",
    "expand_dims",
    "reshape",
    *STRING_OPS,
    "parse_example",
    "parsed_feature",
)
"""Every op a serving graph may hold; anything else is refused when it is built."""

_PYTHON_TYPES = {str: "string", bytes: "string", float: "float32", int: "int64"}
_ALIASES = {
    "str": "string",
    "bytes": "string",
    "object": "string",
    "binary": "string",
    "float": "float32",
    "int": "int64",
    "double": "float64",
    "bool_": "bool",
}


def dtype_name(dtype) -> str:
    """``dtype`` (a name, numpy dtype, Python type or an object with ``.name``, as TF's
    ``tf.float32``) as one of :data:`DTYPES`; others are a ``TypeError`` naming them.

    >>> dtype_name(np.float64), dtype_name(str), dtype_name("float")
    ('float64', 'string', 'float32')
    """
    if dtype in _PYTHON_TYPES:
        return _PYTHON_TYPES[dtype]
    name = dtype if isinstance(dtype, str) else getattr(dtype, "name", None)
    if not isinstance(name, str):
        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = repr(dtype)
    name = _ALIASES.get(name, name)
    if name.startswith(("str", "bytes", "<U", "|S")):
        name = "string"
    if name not in DTYPES:
        raise TypeError(f"a serving input's dtype must be one of {list(DTYPES)}, got {dtype!r}")
    return name


_CREATION_ORDER = itertools.count()


class SymbolicTensor:
    """One node of a serving graph: ``op`` over ``inputs`` (other nodes), with JSON
    ``attrs``, giving values of ``dtype`` (``None`` for ``parse_example``, whose value
    is a table of features). Built by :func:`placeholder` and the ops that take one;
    its Python operators record arithmetic and comparisons."""

    __slots__ = ("op", "inputs", "attrs", "dtype", "created")
    __array_priority__ = 1000  # numpy scalars and arrays defer to our operators

    def __init__(self, op: str, inputs: tuple, attrs: dict, dtype):
        self.op, self.inputs, self.attrs, self.dtype = op, tuple(inputs), dict(attrs), dtype
        self.created = next(_CREATION_ORDER)  # after its inputs: a topological order

    def __repr__(self) -> str:
        name = self.attrs.get("name")
        return f"<SymbolicTensor {self.op}{f' {name!r}' if name else ''} dtype={self.dtype}>"

    def __bool__(self):
        raise TypeError(
            "a serving input has no value when the serving_input_fn runs: use cn.where(...) "
            "rather than `if` or `and`/`or` on it"
        )

    def __getitem__(self, key):
        raise TypeError(
            "indexing a serving input is not in the serving graph's op set; use "
            "cn.reshape / cn.expand_dims on its per-row part"
        )

    def __eq__(self, other):  # TF 2's Tensor equality: elementwise
        return node("equal", self, other)

    def __ne__(self, other):
        return node("not_equal", self, other)

    __hash__ = object.__hash__  # hashed (and looked up) by identity, as TF's tensors


def _binary_method(op: str, reflected: bool = False):
    def method(self, other):
        return node(op, other, self) if reflected else node(op, self, other)

    return method


for _op, _dunder in [
    ("add", "add"),
    ("sub", "sub"),
    ("mul", "mul"),
    ("truediv", "truediv"),
    ("floordiv", "floordiv"),
    ("pow", "pow"),
]:
    setattr(SymbolicTensor, f"__{_dunder}__", _binary_method(_op))
    setattr(SymbolicTensor, f"__r{_dunder}__", _binary_method(_op, reflected=True))
_ORDER = [("less", "lt"), ("less_equal", "le"), ("greater", "gt"), ("greater_equal", "ge")]
for _op, _dunder in _ORDER:
    setattr(SymbolicTensor, f"__{_dunder}__", _binary_method(_op))
SymbolicTensor.__neg__ = lambda self: node("neg", self)


def any_symbolic(*values) -> bool:
    """Whether any of ``values`` is a :class:`SymbolicTensor` (the test each dispatching
    op makes before computing eagerly)."""
    return any(isinstance(v, SymbolicTensor) for v in values)


def constant_node(value, dtype=None) -> SymbolicTensor:
    """A constant of the graph: ``value`` (a number, list or array) as JSON values."""
    if isinstance(value, SymbolicTensor):
        return value
    value = getattr(value, "value", value)  # a core Tensor's array
    array = np.asarray(value)
    if dtype is None:
        dtype = "string" if array.dtype.kind in "OUS" else array.dtype.name
    dtype = dtype_name(dtype)
    if dtype == "string":
        flat = [v.decode() if isinstance(v, bytes) else str(v) for v in array.reshape(-1)]
    else:
        flat = array.astype(dtype).reshape(-1).tolist()
    return SymbolicTensor("constant", (), {"value": flat, "shape": list(array.shape)}, dtype)


def _result_dtype(op: str, inputs) -> str | None:
    if op in COMPARISONS:
        return "bool"
    if op in ("cast", "to_number"):
        return None  # set from attrs by node()
    if op == "as_string":
        return "string"
    if op == "where":
        inputs = inputs[1:]
    if op == "truediv" and all(i.dtype in ("int32", "int64") for i in inputs):
        return "float64"  # TF's truediv of integers
    return inputs[0].dtype if inputs else None


def node(op: str, *inputs, **attrs) -> SymbolicTensor:
    """The node ``op(*inputs)`` with ``attrs``; a non-symbolic input becomes a constant
    of the symbolic inputs' dtype (TF's: a Python number takes the tensor's dtype)."""
    if op not in OPS:
        raise TypeError(
            f"op {op!r} is not in the serving graph's op set; a serving_input_fn may use "
            f"{sorted(OPS)}"
        )
    typed = next((i.dtype for i in inputs if isinstance(i, SymbolicTensor)), None)
    like = None if op == "where" else typed
    nodes = []
    for position, value in enumerate(inputs):
        if isinstance(value, SymbolicTensor):
            nodes.append(value)
            continue
        python_number = isinstance(value, (int, float, bool)) or np.ndim(value) == 0
        is_condition = op == "where" and position == 0
        dtype = "bool" if is_condition else (like if python_number and like else None)
        if op == "where" and not is_condition and python_number:
            other = inputs[2 if position == 1 else 1]
            dtype = getattr(other, "dtype", None)
        nodes.append(constant_node(value, dtype))
    dtype = _result_dtype(op, nodes)
    if op in ("cast", "to_number"):
        dtype = attrs["dtype"]
    return SymbolicTensor(op, tuple(nodes), attrs, dtype)


def placeholder(dtype, shape=None, name=None) -> SymbolicTensor:
    """TF 1's ``tf.compat.v1.placeholder``: a serving input of ``dtype`` whose first
    dimension is the batch (``shape`` ``[None]`` for one value a row, ``[None, 3]`` for
    three; ``None``: as the request sends it). Ops on it record the serving graph of a
    ``ServingInputReceiver``.

    >>> placeholder("string", [None], name="city")
    <SymbolicTensor placeholder 'city' dtype=string>
    """
    return _placeholder(dtype, shape, name, None)


def placeholder_with_default(input, shape, name=None) -> SymbolicTensor:  # noqa: A002 (TF's)
    """TF 1's ``tf.compat.v1.placeholder_with_default``: a serving input that a request
    may leave out; then every row takes ``input`` (a constant: one row of values, e.g.
    ``tf.constant(["nokey"])`` against ``shape`` ``[None]``)."""
    default = constant_node(input)
    return _placeholder(default.dtype, shape, name, default)


def _placeholder(dtype, shape, name, default) -> SymbolicTensor:
    dtype = dtype_name(dtype)
    if shape is not None:
        shape = [None if d is None or d == -1 else int(d) for d in _dims(shape)]
        if not shape:
            raise ValueError(
                f"placeholder {name!r}: a serving input needs a batch dimension first (shape "
                "[None] for one value a row), got shape []"
            )
        shape = [None, *shape[1:]]
    if name is not None and not isinstance(name, str):
        raise TypeError(f"a placeholder's name must be a string, got {name!r}")
    attrs = {"name": name, "shape": shape}
    return SymbolicTensor("placeholder", (default,) if default is not None else (), attrs, dtype)


def _dims(shape) -> list:
    dims = getattr(shape, "as_list", None)
    if callable(dims):
        return dims()
    if isinstance(shape, int):
        return [shape]
    return list(shape)
