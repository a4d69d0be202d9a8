"""The JSON form of a ``tf.Example`` parse spec, as exports record it (a serving input
receiver's ``features``, a serving graph's ``parse_example`` node), and back.

>>> from colonnade.data.parse_spec import FixedLenFeature
>>> features_json({"age": FixedLenFeature([], "float32", default_value=0.0)}, "parsing")
{'age': {'kind': 'fixed', 'dtype': 'float32', 'shape': [], 'default': [0.0]}}
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ...data import parse_spec

__all__ = ["features_json", "receiver_schema", "specs_from_json"]

RECEIVER_TYPES = ("parsing", "raw")
FEATURE_KINDS = ("fixed", "nullable", "var")
"""``fixed``: a ``FixedLenFeature`` (missing is an error unless it has a default);
``nullable``: a fixed-length field of a ``make_parse_example_spec`` schema (missing is a
null); ``var``: a ``VarLenFeature``."""
DTYPES = ("string", "int64", "float32")


def feature_json(name, spec) -> dict:
    """One feature's spec (``FixedLenFeature``, ``VarLenFeature`` or a schema field) as JSON."""
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


def features_json(features, what) -> dict:
    """``{name: spec JSON}`` of a parse spec dict or schema; ``what`` ``"raw"`` also takes
    bare dtypes (``{"age": "float32"}``)."""
    if isinstance(features, dict) and what == "raw":
        doubles = {k: v for k, v in features.items() if _is_float64(v)}
        if doubles:  # TF feeds a float64 placeholder; tf.Example has no float64
            others = {k: v for k, v in features.items() if k not in doubles}
            rest = features_json(others, what) if others else {}
            double = {"kind": "fixed", "dtype": "float64", "shape": [], "default": None}
            return {**rest, **{k: dict(double) for k in doubles}}
    if isinstance(features, dict):
        features = {
            k: parse_spec.FixedLenFeature([], v)
            if not isinstance(v, (parse_spec.FixedLenFeature, parse_spec.VarLenFeature))
            and what == "raw"
            else v
            for k, v in features.items()
        }
    specs = parse_spec.normalize_features(features, "feature_spec")
    return {name: feature_json(name, spec) for name, spec in specs.items()}


def _is_float64(dtype) -> bool:
    if isinstance(dtype, str):
        return dtype in ("float64", "double")
    try:
        return np.dtype(dtype) == np.float64
    except (TypeError, ValueError):  # a parse spec, or not a dtype at all
        return False


def receiver_schema(features: dict) -> pa.Schema:
    """The Arrow schema of a recorded receiver's (checked) features, as a request sends
    them: a fixed feature of shape ``[k, ...]`` a fixed-size list a row (as
    ``parse_example`` gives it), a var feature a list."""
    fields = []
    for name, spec in features.items():
        arrow = pa.float64() if spec["dtype"] == "float64" else parse_spec.arrow_type(spec["dtype"])
        if spec["kind"] == "var":
            arrow = pa.list_(arrow)
        for size in reversed(spec["shape"]):
            arrow = pa.list_(arrow, size)
        fields.append(pa.field(name, arrow))
    return pa.schema(fields)


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
