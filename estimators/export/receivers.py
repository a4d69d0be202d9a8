"""Serving input receivers: what an export takes at serving time (TF's
``tf.estimator.export.build_parsing_serving_input_receiver_fn`` and
``build_raw_serving_input_receiver_fn``), without a TF graph.

A receiver fn returns a small frozen description; ``export_saved_model(dir,
serving_input_receiver_fn)`` records it in ``model.json`` (``serving_input_receiver``)
as JSON: ``{"type": "parsing" | "raw", "features": {name: {"kind", "dtype", "shape",
"default"}}}``. An export with a parsing receiver also takes serialized ``tf.Example``
bytes: ``cn.load(path).predict_examples(list_of_bytes)``, and ``colonnade serve``
answers ``{"examples": [{"b64": ...}]}``.

>>> import colonnade as cn
>>> fn = build_parsing_serving_input_receiver_fn(
...     {"age": cn.io.FixedLenFeature([], "float32", default_value=0.0)}
... )
>>> fn().to_json()["features"]["age"]
{'kind': 'fixed', 'dtype': 'float32', 'shape': [], 'default': [0.0]}
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ...core import symbolic
from ...data.polars_frames import as_arrow
from ...data.tensor_slices import table_from_columns
from . import receiver_checks, serving_graph, serving_graph_checks
from .parse_spec_json import features_json, receiver_schema, specs_from_json

__all__ = [
    "ParsingServingInputReceiver",
    "RawServingInputReceiver",
    "ServingInputReceiver",
    "TensorServingInputReceiver",
    "build_parsing_serving_input_receiver_fn",
    "build_raw_serving_input_receiver_fn",
    "probe_rows",
    "receiver_from_json",
    "resolve_receiver",
]


@dataclass(frozen=True)
class _Receiver:
    features_json: tuple  # ((name, spec_json_as_sorted_items), ...), hashable and frozen

    type = ""

    @property
    def features(self) -> dict:
        """``{name: {"kind", "dtype", "shape", "default"}}``."""
        return {name: _thaw(dict(items)) for name, items in self.features_json}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(features={self.features!r})"

    def to_json(self) -> dict:
        """What ``model.json`` records."""
        return {"type": self.type, "features": self.features}

    @classmethod
    def from_features(cls, features: dict):
        """A receiver of ``features`` (name -> the JSON form of a parse spec), as
        ``model.json`` records them."""
        frozen = tuple(
            (name, tuple((k, _freeze(v)) for k, v in spec.items()))
            for name, spec in features.items()
        )
        return cls(frozen)


def _freeze(value):
    return tuple(value) if isinstance(value, list) else value


def _thaw(spec: dict) -> dict:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in spec.items()}


class ParsingServingInputReceiver(_Receiver):
    """The serving input of an export that takes serialized ``tf.Example`` bytes, parsed
    with its spec."""

    type = "parsing"

    def parse_spec(self) -> dict:
        """The ``cn.io.parse_example`` spec: ``{name: FixedLenFeature | VarLenFeature}``."""
        return specs_from_json(self.features)


class RawServingInputReceiver(_Receiver):
    """The serving input of an export that takes raw feature values (the default)."""

    type = "raw"


class ServingInputReceiver:
    """TF's ``tf.estimator.export.ServingInputReceiver``: what a ``serving_input_fn``
    returns. ``receiver_tensors`` (a dict, or one tensor named ``"input"``) are the
    placeholders a request sends, by name; ``features`` (a dict, or one tensor named
    ``"feature"``) what the model reads, computed from them with the serving graph's
    ops (:data:`colonnade.core.symbolic.OPS`: arithmetic, comparisons, ``expand_dims``,
    ``reshape``, ``cast``, ``log1p``..., string ``lower``/``upper``/``strip``/``substr``/
    ``to_number``/``as_string``, ``parse_example``). The export records that graph as
    JSON and applies it to every request before the model; an op outside the set is a
    ``TypeError`` here. ``receiver_tensors_alternatives`` (TF's other signatures) is
    accepted and not served.

    >>> import colonnade.compat.v1 as tf
    >>> x = tf.placeholder(tf.float32, [None], name="x")
    >>> receiver = ServingInputReceiver({"x": tf.expand_dims(x, -1)}, {"x": x})
    >>> receiver.apply({"x": [1.0, 2.0]})["x"].tolist()
    [[1.0], [2.0]]
    """

    type = "graph"

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        del receiver_tensors_alternatives
        self.graph = serving_graph.graph_json(features, receiver_tensors)

    @classmethod
    def from_graph(cls, graph: dict) -> ServingInputReceiver:
        """The receiver of a (checked) recorded graph."""
        receiver = cls.__new__(cls)
        receiver.graph = graph
        return receiver

    @property
    def features(self) -> dict:
        """``{feature name: node index}``: the features the model reads."""
        return dict(self.graph["features"])

    @property
    def inputs(self) -> dict:
        """``{request input: Arrow type}``: what a request sends."""
        return serving_graph.input_types(self.graph)

    @property
    def optional_inputs(self) -> list:
        """The request inputs with a default (``placeholder_with_default``)."""
        return serving_graph.optional_inputs(self.graph)

    def examples_spec(self):
        """The parse spec (JSON form) when the receiver takes serialized ``tf.Example``
        records only: one string input, read by one ``parse_example`` node and nothing
        else (TF's ``{"examples": serialized}`` pattern); else ``None``."""
        nodes, inputs = self.graph["nodes"], self.graph["inputs"]
        if len(inputs) != 1:
            return None
        (placeholder,) = inputs.values()
        readers = [n for n in nodes if placeholder in n["inputs"]]
        if len(readers) == 1 and readers[0]["op"] == "parse_example":
            return readers[0]["attrs"]["features"]
        return None

    def examples_context(self):
        """``(parse spec, context inputs)`` when one string input is read by one
        ``parse_example`` node and nothing else, beside other inputs sent with each
        example (TF's ``{"examples": serialized, "key": key}`` pattern: the context is
        ``("key",)``; ``()`` for :meth:`examples_spec`'s receivers); else ``None``. A
        context input that is also a parsed feature's name makes it ``None``."""
        nodes, inputs = self.graph["nodes"], self.graph["inputs"]
        found = None
        for name, placeholder in inputs.items():
            readers = [n for n in nodes if placeholder in n["inputs"]]
            if len(readers) == 1 and readers[0]["op"] == "parse_example":
                if found is not None:
                    return None
                found = name, readers[0]["attrs"]["features"]
        if found is None:
            return None
        name, spec = found
        context = tuple(n for n in inputs if n != name)
        parses = [n for n in nodes if n["op"] == "parse_example"]
        if len(parses) != 1 or set(context) & set(spec):
            return None
        return spec, context

    def apply(self, columns, parsed=None) -> dict:
        """``{feature: array}`` of the request ``columns`` (``{input: values}``, a
        table or a DataFrame); ``parsed``, for a receiver of :meth:`examples_context`,
        the already parsed examples in place of their input (``columns`` then holds the
        context inputs). A value that does not fit its
        placeholder is a ``ValueError`` naming the input."""
        if hasattr(columns, "column_names"):
            columns = {name: columns.column(name) for name in columns.column_names}
        elif hasattr(columns, "columns") and hasattr(columns, "to_numpy"):
            columns = {name: columns[name].to_numpy() for name in columns.columns}
        seeds = None
        if parsed is not None:
            ops = [n["op"] for n in self.graph["nodes"]]
            seeds = {ops.index("parse_example"): parsed}
        return serving_graph.apply_graph(self.graph, dict(columns), seeds)

    def to_json(self) -> dict:
        """What ``model.json`` records."""
        return self.graph

    def __repr__(self) -> str:
        return (
            f"ServingInputReceiver(inputs={sorted(self.graph['inputs'])}, "
            f"features={sorted(self.graph['features'])})"
        )


class TensorServingInputReceiver(ServingInputReceiver):
    """TF's ``TensorServingInputReceiver``: ``features`` is one tensor (recorded as the
    feature ``"feature"``, TF's name for a lone feature)."""

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        super().__init__({"feature": features}, receiver_tensors, receiver_tensors_alternatives)


_CLASSES = {"parsing": ParsingServingInputReceiver, "raw": RawServingInputReceiver}


def _receiver_fn(receiver):
    """A serving input receiver fn: a function of no arguments returning ``receiver``."""

    def serving_input_receiver_fn():
        return receiver

    return serving_input_receiver_fn


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A serving input receiver fn (TF's name) for exports that take serialized
    ``tf.Example`` records. ``feature_spec``: a dict of name -> ``FixedLenFeature`` /
    ``VarLenFeature`` (``cn.io``), or the schema ``make_parse_example_spec(columns)``
    returns. ``default_batch_size`` is accepted for TF's signature and ignored.

    Returns a function of no arguments returning a :class:`ParsingServingInputReceiver`.
    """
    del default_batch_size
    return _receiver_fn(
        ParsingServingInputReceiver.from_features(features_json(feature_spec, "parsing"))
    )


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A serving input receiver fn (TF's name) for exports that take raw feature values.
    ``features``: a dict of name -> dtype (``"float32"``, ``"int64"``, ``"string"``) or
    ``FixedLenFeature`` / ``VarLenFeature``, or a ``make_parse_example_spec`` schema.
    ``default_batch_size`` is accepted for TF's signature and ignored.

    ``features`` may also be TF's form, a dict of ``cn.compat.v1.placeholder`` inputs: the
    receiver then takes each as it is, as TF's ``ServingInputReceiver(features,
    features)``.

    Returns a function of no arguments returning a :class:`RawServingInputReceiver` (a
    :class:`ServingInputReceiver` for placeholders).
    """
    del default_batch_size
    if isinstance(features, dict) and any(
        isinstance(v, symbolic.SymbolicTensor) for v in features.values()
    ):
        return _receiver_fn(ServingInputReceiver(features, features))
    return _receiver_fn(RawServingInputReceiver.from_features(features_json(features, "raw")))


def resolve_receiver(serving_input_receiver_fn):
    """The receiver of ``serving_input_receiver_fn`` (a receiver fn, or a receiver), or
    None for None."""
    if serving_input_receiver_fn is None:
        return None
    receiver = serving_input_receiver_fn
    if callable(receiver) and not isinstance(receiver, (_Receiver, ServingInputReceiver)):
        receiver = receiver()
    if not isinstance(receiver, (_Receiver, ServingInputReceiver)):
        raise TypeError(
            "serving_input_receiver_fn must come from build_parsing_serving_input_receiver_fn "
            "/ build_raw_serving_input_receiver_fn, or return a cn.estimators.export."
            "ServingInputReceiver built from cn.compat.v1.placeholder inputs (colonnade "
            f"exports hold no TF graph); got {type(receiver).__name__}"
        )
    return receiver


def checked_receiver(meta: dict, where: str):
    """The ``serving_input_receiver`` of ``model.json`` (None when absent), checked
    (:func:`.receiver_checks.check_receiver`, or for a serving graph
    :func:`.serving_graph_checks.check_graph`)."""
    value = meta.get("serving_input_receiver") if isinstance(meta, dict) else None
    if isinstance(value, dict) and value.get("type") == "graph":
        return serving_graph_checks.check_graph(value, where)
    return receiver_checks.check_receiver(meta, where)


def parse_spec_of(receiver):
    """The ``cn.io.parse_example`` spec of serialized ``tf.Example`` inputs ``receiver``
    takes (a parsing receiver's, or a serving graph's of :meth:`ServingInputReceiver.
    examples_spec`), else ``None``."""
    if isinstance(receiver, ParsingServingInputReceiver):
        return receiver.parse_spec()
    if isinstance(receiver, ServingInputReceiver) and receiver.examples_spec() is not None:
        return specs_from_json(receiver.examples_spec())
    return None


def examples_input(receiver):
    """The one request input of a serving graph receiver, else ``None``."""
    if isinstance(receiver, ServingInputReceiver) and len(receiver.graph["inputs"]) == 1:
        return next(iter(receiver.graph["inputs"]))
    return None


def model_rows(receiver, rows):
    """``rows`` (a dict of columns, a list of row dicts, a DataFrame or an Arrow table)
    fed through ``receiver``'s serving graph: an Arrow table of the features the model
    reads. Other receivers (and None) leave ``rows`` as they are (a polars DataFrame
    as its Arrow table)."""
    rows = as_arrow(rows, "the rows to predict")
    if not isinstance(receiver, ServingInputReceiver):
        return rows
    if isinstance(rows, (list, tuple)) and all(isinstance(r, dict) for r in rows):
        rows = pa.Table.from_pylist(list(rows))
    if not isinstance(rows, dict) and not hasattr(rows, "column_names"):
        if not (hasattr(rows, "columns") and hasattr(rows, "to_numpy")):
            raise TypeError(
                "an export made with a ServingInputReceiver predicts from its receiver tensors: "
                "a dict of columns, a list of row dicts, a DataFrame or an Arrow table; got "
                f"{type(rows).__name__}"
            )
    return table_from_columns(
        receiver.apply(rows), "the serving input receiver's features", keep_row_shape=True
    )


def _zero(arrow_type):
    """One value of ``arrow_type``: zeros, empty strings, lists of one."""
    if pa.types.is_fixed_size_list(arrow_type):
        return [_zero(arrow_type.value_type)] * arrow_type.list_size
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return [_zero(arrow_type.value_type)]
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return ""
    if pa.types.is_binary(arrow_type):
        return b""
    if pa.types.is_boolean(arrow_type):
        return False
    return 0


def probe_rows(receiver):
    """One row of zeros of the features ``receiver`` gives the model (an Arrow record
    batch), for calling a ``model_fn`` at export time; ``None`` for no receiver."""
    if receiver is None:
        return None
    if isinstance(receiver, ServingInputReceiver):
        spec = receiver.examples_spec()
        if spec is not None:
            parsed = _zero_table(receiver_schema(spec))
            features = receiver.apply({}, parsed=parsed)
        else:
            features = receiver.apply(_zero_placeholders(receiver.graph))
        table = table_from_columns(features, "the serving input receiver's features")
    else:
        table = _zero_table(receiver_schema(receiver.features))
    return table.combine_chunks().to_batches()[0]


def _zero_placeholders(graph: dict) -> dict:
    """One row of zeros for each placeholder of a serving graph, in its shape (an
    unknown dimension taken as 1)."""
    rows = {}
    for name, i in graph["inputs"].items():
        node = graph["nodes"][i]
        shape = node["attrs"]["shape"] or [None]
        dims = [1] + [1 if d is None else d for d in shape[1:]]
        if node["dtype"] == "string":
            rows[name] = np.full(dims, "", object)
        else:
            rows[name] = np.zeros(dims, node["dtype"])
    return rows


def _zero_table(schema: pa.Schema) -> pa.Table:
    return pa.table({f.name: pa.array([_zero(f.type)], f.type) for f in schema}, schema=schema)


def receiver_from_json(value: dict):
    """The receiver a (checked) ``model.json`` records."""
    if value["type"] == "graph":
        return ServingInputReceiver.from_graph(value)
    return _CLASSES[value["type"]].from_features(value["features"])
