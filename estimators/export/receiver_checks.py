"""The checks of a recorded serving input receiver, before an export's is trusted.

``model.json``'s ``serving_input_receiver`` (and the features of a serving graph, see
:mod:`.serving_graph_checks`) says which features a request is parsed into; each is
checked for its kind, dtype, shape and default, and their sizes are capped so that
parsing a batch allocates no more than an honest export asks for. Anything wrong raises
:class:`~.checks.ExportError`, naming the file and the field.
"""

from __future__ import annotations

import math

from .checks import ExportError, field

__all__ = [
    "MAX_EXAMPLE_VALUES",
    "MAX_FEATURE_RANK",
    "MAX_FEATURE_SIZE",
    "MAX_RECEIVER_FEATURES",
    "check_feature_spec",
    "check_receiver",
]

MAX_RECEIVER_FEATURES = 100_000
"""The most features a recorded serving input receiver may name."""
MAX_FEATURE_RANK = 8
MAX_FEATURE_SIZE = 1 << 20
"""The most values (``prod(shape)``) one fixed-length feature may have."""
MAX_EXAMPLE_VALUES = 1 << 20
"""The most values the fixed-length features of one example may have together: parsing
a batch allocates ``rows * sum(prod(shape))`` values (and the defaults fill them)."""
_RECEIVER_TYPES = ("parsing", "raw")
_FEATURE_KINDS = ("fixed", "nullable", "var")
_FEATURE_DTYPES = ("string", "int64", "float32", "float64")  # float64: raw receivers only
_INT64_RANGE = (-(1 << 63), (1 << 63) - 1)


def check_receiver(meta: dict, where: str):
    """The ``serving_input_receiver`` of ``model.json`` (None when absent), checked:
    ``type`` one of ``parsing``/``raw``; ``features`` a non-empty object of string names,
    each ``{"kind", "dtype", "shape", "default"}`` with a known kind, dtype one of
    ``string``/``int64``/``float32``, a short list of small non-negative ints as shape
    and a default of ``prod(shape)`` values of the dtype's type (or null)."""
    receiver = field(meta, "serving_input_receiver", dict, where, "", required=False)
    if receiver is None:
        return None
    path = "serving_input_receiver"
    _no_unknown(receiver, ("type", "features"), where, path)
    kind = field(receiver, "type", str, where, path)
    if kind not in _RECEIVER_TYPES:
        raise ExportError(
            f"{where}: field {path}.type: expected one of {list(_RECEIVER_TYPES)}, got {kind!r:.80}"
        )
    features = field(receiver, "features", dict, where, path)
    if not features or len(features) > MAX_RECEIVER_FEATURES:
        raise ExportError(
            f"{where}: field {path}.features: expected 1 to {MAX_RECEIVER_FEATURES:,} "
            f"features, got {len(features)}"
        )
    for name, spec in features.items():
        if not name or not name.isprintable():
            raise ExportError(f"{where}: field {path}.features: bad feature name {name!r:.80}")
        check_feature_spec(spec, where, f"{path}.features[{name!r:.80}]")
        if kind == "parsing" and spec["dtype"] == "float64":
            raise ExportError(
                f"{where}: field {path}.features[{name!r:.80}].dtype: expected one of "
                "['string', 'int64', 'float32'] (a tf.Example holds no float64), got 'float64'"
            )
    values = sum(math.prod(spec["shape"]) for spec in features.values() if spec["kind"] != "var")
    if values > MAX_EXAMPLE_VALUES:
        raise ExportError(
            f"{where}: field {path}.features: the fixed-length features hold {values:,} values "
            f"an example together, more than the {MAX_EXAMPLE_VALUES:,} an export may ask to "
            "parse per example"
        )
    return receiver


def _no_unknown(obj: dict, known, where: str, path: str) -> None:
    unknown = sorted(set(obj) - set(known))
    if unknown:
        raise ExportError(f"{where}: field {path}: unknown field(s) {unknown!r:.200}")


def check_feature_spec(spec, where: str, path: str) -> None:
    """One recorded feature: see :func:`check_receiver`."""
    if not isinstance(spec, dict):
        raise ExportError(f"{where}: field {path}: expected dict, got {type(spec).__name__}")
    _no_unknown(spec, ("kind", "dtype", "shape", "default"), where, path)
    kind = field(spec, "kind", str, where, path)
    if kind not in _FEATURE_KINDS:
        raise ExportError(
            f"{where}: field {path}.kind: expected one of {list(_FEATURE_KINDS)}, got {kind!r:.80}"
        )
    dtype = field(spec, "dtype", str, where, path)
    if dtype not in _FEATURE_DTYPES:
        raise ExportError(
            f"{where}: field {path}.dtype: expected one of {list(_FEATURE_DTYPES)}, got "
            f"{dtype!r:.80}"
        )
    shape = field(spec, "shape", list, where, path)
    if len(shape) > MAX_FEATURE_RANK or any(
        isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= MAX_FEATURE_SIZE
        for d in shape
    ):
        raise ExportError(
            f"{where}: field {path}.shape: expected at most {MAX_FEATURE_RANK} integers from "
            f"0 to {MAX_FEATURE_SIZE:,}, got {shape!r:.80}"
        )
    size = math.prod(shape)
    if size > MAX_FEATURE_SIZE or (kind == "var" and shape):
        raise ExportError(
            f"{where}: field {path}.shape: {shape!r:.80} is too large (over "
            f"{MAX_FEATURE_SIZE:,} values) or given for a var feature"
        )
    default = spec.get("default")
    if default is None:
        return
    if kind != "fixed" or not isinstance(default, list) or len(default) != size:
        raise ExportError(
            f"{where}: field {path}.default: expected null"
            + (
                f" or a list of {size} {dtype} values"
                if kind == "fixed"
                else f" for a {kind} feature"
            )
            + f", got {default!r:.80}"
        )
    for value in default:
        if not _is_dtype_value(value, dtype):
            raise ExportError(
                f"{where}: field {path}.default: expected {dtype} values, got "
                f"{type(value).__name__} {value!r:.80}"
            )


def _is_dtype_value(value, dtype: str) -> bool:
    if dtype == "string":
        return isinstance(value, str)
    if isinstance(value, bool):
        return False
    if dtype == "int64":
        return isinstance(value, int) and _INT64_RANGE[0] <= value <= _INT64_RANGE[1]
    return isinstance(value, (int, float))
