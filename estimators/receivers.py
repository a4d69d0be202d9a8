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

from ..data import parse_spec

__all__ = [
    "ParsingServingInputReceiver",
    "RawServingInputReceiver",
    "build_parsing_serving_input_receiver_fn",
    "build_raw_serving_input_receiver_fn",
    "receiver_from_json",
    "resolve_receiver",
]

RECEIVER_TYPES = ("parsing", "raw")
FEATURE_KINDS = ("fixed", "nullable", "var")
"""``fixed``: a ``FixedLenFeature`` (missing is an error unless it has a default);
``nullable``: a fixed-length field of a ``make_parse_example_spec`` schema (missing is a
null); ``var``: a ``VarLenFeature``."""
DTYPES = ("string", "int64", "float32")


def _feature_json(name, spec) -> dict:
    if not isinstance(name, str) or not name:
        raise TypeError(f"feature names must be non-empty strings, got {name!r}")
    if isinstance(spec, parse_spec.FixedLenSequenceFeature):
        raise ValueError(
            f"feature {name!r}: a FixedLenSequenceFeature cannot be a serving input; use "
            "FixedLenFeature or VarLenFeature"
        )
    if spec.dtype not in DTYPES:
        raise ValueError(
            f"feature {name!r}: dtype {spec.dtype!r} cannot be a serving input; use one of "
            f"{list(DTYPES)}"
        )
    if isinstance(spec, parse_spec.VarLenFeature):
        return {"kind": "var", "dtype": spec.dtype, "shape": [], "default": None}
    if isinstance(spec, parse_spec.NullableFixed):
        return {"kind": "nullable", "dtype": spec.dtype, "shape": list(spec.shape), "default": None}
    default = None
    if spec.default_value is not None:
        values = parse_spec.flat_default(spec.default_value, spec.shape, spec.dtype, name)
        default = [str(v) if spec.dtype == "string" else v for v in values.tolist()]
    return {"kind": "fixed", "dtype": spec.dtype, "shape": list(spec.shape), "default": default}


def _features_json(features, what) -> dict:
    if isinstance(features, dict):
        features = {
            k: parse_spec.FixedLenFeature([], v)
            if not isinstance(v, (parse_spec.FixedLenFeature, parse_spec.VarLenFeature))
            and what == "raw"
            else v
            for k, v in features.items()
        }
    specs = parse_spec.normalize_features(features, "feature_spec")
    return {name: _feature_json(name, spec) for name, spec in specs.items()}


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
        ParsingServingInputReceiver.from_features(_features_json(feature_spec, "parsing"))
    )


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A serving input receiver fn (TF's name) for exports that take raw feature values.
    ``features``: a dict of name -> dtype (``"float32"``, ``"int64"``, ``"string"``) or
    ``FixedLenFeature`` / ``VarLenFeature``, or a ``make_parse_example_spec`` schema.
    ``default_batch_size`` is accepted for TF's signature and ignored.

    Returns a function of no arguments returning a :class:`RawServingInputReceiver`.
    """
    del default_batch_size
    return _receiver_fn(RawServingInputReceiver.from_features(_features_json(features, "raw")))


def resolve_receiver(serving_input_receiver_fn):
    """The receiver of ``serving_input_receiver_fn`` (a receiver fn, or a receiver), or
    None for None."""
    if serving_input_receiver_fn is None:
        return None
    receiver = serving_input_receiver_fn
    if callable(receiver) and not isinstance(receiver, _Receiver):
        receiver = receiver()
    if not isinstance(receiver, _Receiver):
        raise TypeError(
            "serving_input_receiver_fn must come from cn.estimators."
            "build_parsing_serving_input_receiver_fn or build_raw_serving_input_receiver_fn "
            f"(colonnade exports hold no TF graph); got {type(receiver).__name__}"
        )
    return receiver


def receiver_from_json(value: dict):
    """The receiver a (checked) ``model.json`` records."""
    return _CLASSES[value["type"]].from_features(value["features"])


def specs_from_json(features: dict) -> dict:
    """``{name: parse spec}`` from the recorded (checked) JSON form."""
    specs = {}
    for name, spec in features.items():
        kind, dtype, shape = spec["kind"], spec["dtype"], tuple(spec["shape"])
        if kind == "var":
            specs[name] = parse_spec.VarLenFeature(dtype)
        elif kind == "nullable":
            arrow = parse_spec.arrow_type(dtype)
            for size in reversed(shape):
                arrow = pa.list_(arrow, size)
            specs[name] = parse_spec.NullableFixed(shape, dtype, arrow)
        else:
            default = spec["default"]
            if default is not None:
                np_type = object if dtype == "string" else dtype
                default = np.asarray(default, dtype=np_type).reshape(shape)
            specs[name] = parse_spec.FixedLenFeature(list(shape), dtype, default_value=default)
    return specs
