"""A request body turned into one Arrow table of the model's inputs, checked on the way.

Everything here is plain work on bytes (JSON, base64, serialized ``tf.Example``): the
server runs it on a worker thread, or in a parse process (:mod:`.workers`) for a big or
serialized-example body, never on its event loop. It needs no model, only the
:class:`InputSpec` of the served version, which travels to a parse process by pickle.

Inputs are typed by the export's signature, not by the batch: a JSON ``null`` is a
missing value of the input's type whether or not another row has a value. An export
that records no inputs (a custom ``model_fn``'s without a serving receiver) takes any
columns, typed by their JSON values, nested at most :data:`OPEN_INPUT_DEPTH` deep.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, replace

import numpy as np
import orjson
import pyarrow as pa

from .errors import BadRequest
from .signatures import resolve
from .typed_columns import (
    OPEN_INPUT_DEPTH,
    base_type,
    columns_to_table,
    kind_of,
    list_depth,
)

__all__ = [
    "DEFAULT_SIGNATURES",
    "BadRequest",
    "InputSpec",
    "NeedsParseProcess",
    "decode_request",
]

DEFAULT_SIGNATURES = {"serving_default": "predict", "predict": "predict"}
"""``{signature key: method}`` of an export that records no other signatures: its
predictions under ``serving_default`` and ``predict``."""


class NeedsParseProcess(Exception):
    """Raised on a worker thread for a body holding serialized examples: their parse is
    pure Python, so it goes to a parse process instead."""


@dataclass(frozen=True)
class InputSpec:
    """What a request is checked and typed against: ``inputs`` maps each raw input to
    its Arrow type (``None``: not known, any columns are taken); ``parse_features`` is
    the export's recorded ``tf.Example`` spec (its JSON form) when it takes serialized
    examples, else ``None``; ``max_rows`` and
    ``max_values`` bound a request (:class:`~.workers.Limits`). ``check_nesting`` is set
    for a body nested deeper than any input reads: each value's depth is then checked
    before Arrow sees it (Arrow takes seconds to convert a number 1,000 lists deep)."""

    inputs: dict | None
    parse_features: dict | None
    max_rows: int
    max_values: int
    check_nesting: bool = False
    optional: tuple = ()
    """Inputs a request may leave out (a serving graph's placeholders with a default)."""
    signatures: dict | None = None
    """``{signature key: method}`` a request's ``signature_name`` may give
    (:mod:`.signatures`); ``None``: :data:`DEFAULT_SIGNATURES`."""
    context: tuple = ()
    """Inputs sent beside each serialized example (a ``key``) to an export that parses
    examples: ``[{"examples": {"b64": ...}, "key": ...}]`` or ``{"examples": [...],
    "key": [...]}``."""


@dataclass(frozen=True)
class Decoded:
    """A request's inputs (``table``) and how to answer it: ``rows`` for TF Serving's
    row format (``instances``), else columns (``inputs``)."""

    table: pa.Table
    rows: bool
    signature: str = "serving_default"
    """The key of the signature that answers (:func:`.signatures.resolve`)."""


def decode_request(verb: str, raw: bytes, spec: InputSpec, examples_allowed: bool) -> Decoded:
    """The request body ``raw`` of ``verb`` (``predict``, ``classify``, ``regress``) as
    the model's inputs. Raises :class:`BadRequest` (400, or 413 over ``spec``'s bounds),
    or :class:`NeedsParseProcess` for serialized examples when not ``examples_allowed``."""
    body = _loads(raw)
    if not isinstance(body, dict):
        raise BadRequest(
            "the request body must be a JSON object with 'instances' or 'inputs', got a "
            f"JSON {kind_of(body)}"
        )
    if _bracket_depth(raw) > 2 + _deepest_input(spec):
        spec = replace(spec, check_nesting=True)
    name = body.get("signature_name")
    if name is not None and not isinstance(name, str):
        raise BadRequest(f"'signature_name' must be a string, got a JSON {kind_of(name)}")
    if verb == "predict":
        signature = resolve(verb, name, spec.signatures or DEFAULT_SIGNATURES)
        decoded = _decode_predict(body, spec, examples_allowed, b'"b64"' in raw)
    else:
        context, examples = _examples_and_context(verb, body)  # TF's JSON errors first
        signature = resolve(verb, name, spec.signatures or DEFAULT_SIGNATURES)
        decoded = Decoded(_decode_examples_verb(context, examples, spec), rows=True)
    _check_size(decoded.table, spec)
    return replace(decoded, signature=signature)


def _loads(raw: bytes):
    """The JSON body ``raw``; as TF Serving (rapidjson's ``kParseNanAndInfFlag``), the
    literals ``NaN``, ``Infinity`` and ``-Infinity`` are numbers."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        if "memory" in str(e):
            raise MemoryError(str(e)) from None
        if b"NaN" in raw or b"Infinity" in raw:
            try:
                return json.loads(raw, parse_constant=float)
            except (ValueError, RecursionError):
                pass
        raise BadRequest(f"malformed JSON in the request body: {e}") from None


def _deepest_input(spec: InputSpec) -> int:
    if spec.inputs is None:
        return OPEN_INPUT_DEPTH
    return max(map(list_depth, spec.inputs.values()), default=0)


def _open_columns(values, field: str) -> dict:
    """``{column: values}`` of the rows ``values`` (``instances`` or ``examples``) of an
    export whose inputs are not known: every name any row has, ``None`` where a row
    lacks it."""
    if not isinstance(values, list):
        raise BadRequest(f"{field!r} must be a list of rows, got a JSON {kind_of(values)}")
    names: dict = {}
    for i, row in enumerate(values):
        if not isinstance(row, dict):
            raise BadRequest(
                f"{field}[{i}] must be an object of named input columns (this export records "
                f"no inputs, so bare values have no name), got a JSON {kind_of(row)}"
            )
        names.update(dict.fromkeys(row))
    return {name: [row.get(name) for row in values] for name in names}


def _decode_b64(columns: dict, spec: InputSpec, raw_has_b64: bool) -> dict:
    """``columns`` with each ``{"b64": ...}`` value of a string input (any input of an
    export that records none) replaced by its decoded text, at any depth: TF Serving's
    form for the bytes of a ``DT_STRING`` tensor."""
    if not raw_has_b64:
        return columns
    for name, values in columns.items():
        expected = None if spec.inputs is None else spec.inputs.get(name)
        if expected is None or pa.types.is_string(base_type(expected)):
            columns[name] = _unwrap_b64_deep(values, name)
    return columns


def _unwrap_b64_deep(values: list, name: str) -> list:
    out = []
    for value in values:
        if isinstance(value, list):
            value = _unwrap_b64_deep(value, name)
        elif isinstance(value, dict):
            value = _unwrap_b64(value, name)
        out.append(value)
    return out


def _decode_predict(body: dict, spec: InputSpec, examples_allowed: bool, raw_has_b64=True):
    given = [k for k in ("instances", "inputs", "examples") if k in body]
    if given == ["examples"]:
        return Decoded(
            serialized_to_table(body["examples"], "examples", spec, examples_allowed), True
        )
    if len(given) != 1:
        what = "neither" if not given else "both"
        raise BadRequest(
            f"the request has {what} 'instances' and 'inputs'; send exactly one: "
            "'instances' (a list of rows) or 'inputs' (a dict of columns)"
        )
    if "instances" in body:
        instances = body["instances"]
        serialized = _serialized_instances(instances, spec)
        if serialized is not None:
            context = _context_of(instances, spec, "instances", raw_has_b64)
            table = serialized_to_table(serialized, "instances", spec, examples_allowed, context)
            return Decoded(table, True)
        if spec.inputs is None:
            columns = _open_columns(instances, "instances")
        else:
            first = instances[0] if isinstance(instances, list) and instances else {}
            columns = rows_to_columns(instances, _sent(spec, first))
        columns = _decode_b64(columns, spec, raw_has_b64)
        return Decoded(columns_to_table(columns, spec.inputs, spec.check_nesting), True)
    inputs = body["inputs"]
    serialized = _serialized_inputs(inputs, spec)
    if serialized is not None:
        context = _context_of(inputs, spec, "inputs", raw_has_b64)
        table = serialized_to_table(serialized, "inputs", spec, examples_allowed, context)
        return Decoded(table, False)
    names = list(inputs) if spec.inputs is None and isinstance(inputs, dict) else spec.inputs
    if spec.inputs is not None:
        names = _sent(spec, inputs)
    columns = _decode_b64(inputs_to_columns(inputs, list(names or ())), spec, raw_has_b64)
    return Decoded(columns_to_table(columns, spec.inputs, spec.check_nesting), False)


def _sent(spec: InputSpec, given) -> list:
    """The inputs a request must hold: all but the optional ones ``given`` (its first row,
    or its columns) leaves out."""
    keys = given.keys() if isinstance(given, dict) else ()
    return [name for name in spec.inputs if name not in spec.optional or name in keys]


def _bracket_depth(raw: bytes) -> int:
    """The deepest nesting of ``[`` in ``raw`` (brackets inside strings counted too: an
    upper bound, so a body under it needs no per-value check)."""
    if b"[[" not in raw:
        return 1 if b"[" in raw else 0
    codes = np.frombuffer(raw, np.uint8)
    steps = (codes == ord("[")).astype(np.int32) - (codes == ord("]"))
    return int(np.cumsum(steps).max())


def _check_size(table: pa.Table, spec: InputSpec) -> None:
    if table.num_rows > spec.max_rows:
        raise BadRequest(
            f"the request has {table.num_rows:,} rows, over the {spec.max_rows:,}-row limit; "
            "send fewer rows per request",
            413,
        )
    values = sum(_value_count(column) for column in table.columns)
    if values > spec.max_values:
        raise BadRequest(
            f"the request has {values:,} values, over the {spec.max_values:,}-value limit; "
            "send fewer rows or shorter lists per request",
            413,
        )


def _value_count(column: pa.ChunkedArray) -> int:
    count = 0
    for chunk in column.chunks:
        while isinstance(chunk, (pa.ListArray, pa.LargeListArray, pa.FixedSizeListArray)):
            chunk = chunk.flatten()
        count += len(chunk)
    return count


# --------------------------------------------------------------------------- serialized examples


def _serialized_instances(instances, spec: InputSpec):
    """The ``{"b64": ...}`` items of ``instances`` when they are serialized examples for
    a parsing export (TF Serving's form for its ``examples`` input, which TFX's client
    sends: ``[{"b64": ...}]`` or ``[{"examples": {"b64": ...}}]``), else ``None``."""
    if not isinstance(instances, list) or not instances:
        return None
    first = instances[0]
    if spec.parse_features is None:
        if _one_string_input(spec):  # TF Serving's form of a DT_STRING input's bytes
            return None
        return instances if isinstance(first, dict) and set(first) == {"b64"} else None
    if isinstance(first, dict) and "examples" in first and first.keys() <= _with_context(spec):
        return [row.get("examples") if isinstance(row, dict) else row for row in instances]
    if isinstance(first, dict) and set(first) == {"b64"}:
        return instances
    return None


def _serialized_inputs(inputs, spec: InputSpec):
    """The ``{"b64": ...}`` items of columnar ``inputs`` holding serialized examples for
    a parsing export: ``{"examples": [...]}`` (the input of TF's parsing receiver, and
    of the predict signature of its estimator exports), ``{"inputs": [...]}`` (of its
    classification and regression signatures) or a bare list; else ``None``."""
    if spec.parse_features is None:
        return None
    if isinstance(inputs, dict) and spec.context and "examples" in inputs:
        if inputs.keys() <= _with_context(spec):
            inputs = inputs["examples"]
    elif isinstance(inputs, dict) and len(inputs) == 1:
        ((name, values),) = inputs.items()
        if name in ("examples", "inputs") and name not in (spec.inputs or {}):
            inputs = values
        else:
            return None
    if isinstance(inputs, list) and inputs and isinstance(inputs[0], dict):
        if set(inputs[0]) == {"b64"}:
            return inputs
    return None


def _with_context(spec: InputSpec) -> set:
    return {"examples", *spec.context}


def _context_of(body, spec: InputSpec, field: str, raw_has_b64: bool):
    """A function giving the ``{context input: values}`` sent beside the examples of
    ``body`` (``instances`` rows or ``inputs`` columns), checked: called once the body
    is known to be decoded here (a parse process), not on a worker thread."""
    if not spec.context:
        return None
    keys = body[0].keys() if field == "instances" else body.keys()
    names = ["examples"] + [n for n in spec.context if n not in spec.optional or n in keys]

    def columns() -> dict:
        if field == "instances":
            found = rows_to_columns(body, names)
        else:
            found = inputs_to_columns(body, names)
        found.pop("examples")
        return _decode_b64(found, spec, raw_has_b64)

    return columns


def _one_string_input(spec: InputSpec) -> bool:
    if spec.inputs is None or len(spec.inputs) != 1:
        return False
    (arrow_type,) = spec.inputs.values()
    return pa.types.is_string(base_type(arrow_type))


def serialized_to_table(
    examples, field: str, spec: InputSpec, allowed: bool, context=None
) -> pa.Table:
    """The model's inputs parsed from ``examples`` (``[{"b64": base64 of a serialized
    tf.Example}, ...]``) with the export's recorded parse spec, beside the columns
    ``context()`` gives (the inputs sent with each example, such as a ``key``); an
    export without a parsing serving input receiver takes none."""
    if spec.parse_features is None:
        raise BadRequest(
            f"this export takes no serialized examples ({field!r}): it was exported without "
            "build_parsing_serving_input_receiver_fn; send 'instances' (a list of rows) or "
            "'inputs' (a dict of columns)"
        )
    if not isinstance(examples, list):
        raise BadRequest(f"{field!r} must be a list, got a JSON {kind_of(examples)}")
    if not allowed:
        raise NeedsParseProcess
    if len(examples) > spec.max_rows:
        raise BadRequest(
            f"the request has {len(examples):,} examples, over the {spec.max_rows:,}-row "
            "limit; send fewer rows per request",
            413,
        )
    sent = None
    if context is not None:  # checked before the examples are parsed
        columns = context()
        types = {name: spec.inputs[name] for name in columns}
        sent = columns_to_table(columns, types, spec.check_nesting)
    serialized = []
    for i, example in enumerate(examples):
        if not isinstance(example, dict) or set(example) != {"b64"}:
            raise BadRequest(
                f'{field}[{i}] must be {{"b64": "<base64 of a serialized tf.Example>"}}'
            )
        try:
            serialized.append(base64.b64decode(example["b64"], validate=True))
        except (binascii.Error, TypeError, ValueError):
            raise BadRequest(f"{field}[{i}].b64 is not valid base64") from None
    from ..data.example import parse_example
    from ..estimators.export.receivers import specs_from_json

    try:
        table = parse_example(serialized, specs_from_json(spec.parse_features))
    except (ValueError, TypeError, KeyError, pa.ArrowException) as e:
        raise BadRequest(f"the examples cannot be parsed: {e}") from None
    if sent is not None:
        if sent.num_rows != table.num_rows:
            raise BadRequest(
                f"{field!r} has {table.num_rows} examples but {sent.num_rows} values of "
                f"{sent.column_names}; send one of each per example"
            )
        for name in sent.column_names:
            table = table.append_column(name, sent.column(name))
    if spec.inputs is None:
        return table
    return table.select([name for name in spec.inputs if name in table.column_names])


# --------------------------------------------------------------------------- classify, regress


def _examples_and_context(verb: str, body: dict) -> tuple:
    """``(context, examples)`` of TF Serving's classify/regress body, their shapes
    checked: an object of features, a non-empty list of objects."""
    context = body.get("context", {})
    if not isinstance(context, dict):
        raise BadRequest(f"'context' must be an object of features, got a JSON {kind_of(context)}")
    examples = body.get("examples")
    if examples is None:
        raise BadRequest(f":{verb} takes 'examples' (a list of feature objects); none was sent")
    if not isinstance(examples, list):
        raise BadRequest(f"'examples' must be a list of objects, got a JSON {kind_of(examples)}")
    if not examples:
        raise BadRequest("'examples' is an empty list; send at least one example")
    for i, example in enumerate(examples):
        if not isinstance(example, dict):
            raise BadRequest(f"examples[{i}] must be an object of features, got {kind_of(example)}")
    return context, examples


def _decode_examples_verb(context: dict, examples: list, spec: InputSpec) -> pa.Table:
    """TF Serving's classify/regress body ``{"signature_name": ..., "context": {...},
    "examples": [{feature: value | [values]}, ...]}`` (its checked ``context`` and
    ``examples``) as the model's inputs: each example is a row, ``context`` features go
    into every row, a one-value list feeds a scalar input, and ``{"b64": ...}`` is a
    string's bytes."""
    rows = []
    for i, example in enumerate(examples):
        both = sorted(context.keys() & example.keys())
        if both:
            raise BadRequest(
                f"examples[{i}] repeats context feature(s) {both}; a feature goes in the "
                "context or in the examples, not both"
            )
        rows.append({**context, **example})
    if spec.inputs is None:
        columns = _open_columns(rows, "examples")
    else:
        columns = rows_to_columns(rows, list(spec.inputs), field="examples")
    for name in columns:
        scalar = spec.inputs is not None and list_depth(spec.inputs[name]) == 0
        columns[name] = [_feature_value(v, scalar, name) for v in columns[name]]
    return columns_to_table(columns, spec.inputs, spec.check_nesting)


def _feature_value(value, scalar: bool, name: str):
    if isinstance(value, list):
        value = [_unwrap_b64(v, name) for v in value]
        if scalar:
            if len(value) > 1:
                raise BadRequest(f"feature {name!r} takes one value an example, got {len(value)}")
            return value[0] if value else None
        return value
    return _unwrap_b64(value, name)


def _unwrap_b64(value, name: str):
    if isinstance(value, dict):
        if set(value) != {"b64"} or not isinstance(value["b64"], str):
            raise BadRequest(f'feature {name!r}: an object value must be {{"b64": "<base64>"}}')
        try:
            return base64.b64decode(value["b64"], validate=True).decode()
        except (binascii.Error, ValueError):
            raise BadRequest(f"feature {name!r}: b64 is not valid base64 of UTF-8 text") from None
    return value


# --------------------------------------------------------------------------- JSON -> Arrow


def rows_to_columns(instances, names: list, field: str = "instances") -> dict:
    """``{column: [value per row]}`` of the ``instances`` list, checking each row holds
    every input ``names`` and nothing else (TF Serving refuses an unknown input); a
    model of one input also takes bare values."""
    if not isinstance(instances, list):
        raise BadRequest(f"{field!r} must be a list of rows, got a JSON {kind_of(instances)}")
    if len(names) == 1 and instances and _bare(instances[0]):
        return {names[0]: instances}
    wanted = set(names)
    try:  # the common case, checked only when it fails: one pass a column
        if all(len(row) == len(names) for row in instances):
            return {name: [row[name] for row in instances] for name in names}
    except (KeyError, TypeError):
        pass
    for i, row in enumerate(instances):
        if not isinstance(row, dict):
            raise BadRequest(
                f"{field}[{i}] must be an object of input columns, got a JSON {kind_of(row)}"
            )
        if not wanted <= row.keys():
            missing = sorted(wanted - row.keys())
            raise BadRequest(
                f"{field}[{i}] lacks input column(s) {missing}; the model reads {names}"
            )
        unknown = sorted(row.keys() - wanted)
        if unknown:
            raise BadRequest(
                f"{field}[{i}] has unknown input(s) {unknown} (JSON object does not have named "
                f"input); the model reads {names}"
            )
    raise AssertionError("unreachable: a row above lacks a column or is not an object")


def _bare(value) -> bool:
    """Whether a row is a bare value of a one-input model: not an object of named
    inputs (a ``{"b64": ...}`` string is a value)."""
    return not isinstance(value, dict) or set(value) == {"b64"}


def inputs_to_columns(inputs, names: list) -> dict:
    """``{column: values}`` of the columnar ``inputs``, checking every input is there,
    no other, and all columns have as many values (a model of one input also takes a
    bare list)."""
    if len(names) == 1 and isinstance(inputs, list):
        inputs = {names[0]: inputs}
    if not isinstance(inputs, dict):
        raise BadRequest(
            f"'inputs' must be an object of input columns, got a JSON {kind_of(inputs)}"
        )
    missing = [name for name in names if name not in inputs]
    if missing:
        raise BadRequest(f"'inputs' lacks input column(s) {missing}; the model reads {names}")
    unknown = sorted(inputs.keys() - set(names))
    if unknown:
        raise BadRequest(
            f"'inputs' has unknown input(s) {unknown} (JSON object does not have named input); "
            f"the model reads {names}"
        )
    columns = {}
    for name in names:
        values = inputs[name]
        if not isinstance(values, list):
            raise BadRequest(
                f"inputs[{name!r}] must be a list of values, one a row, got a JSON "
                f"{kind_of(values)}"
            )
        columns[name] = values
    lengths = {name: len(values) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        first = names[0]
        odd = next(n for n in names if lengths[n] != lengths[first])
        raise BadRequest(
            f"ragged inputs: column {odd!r} has {lengths[odd]} values but {first!r} has "
            f"{lengths[first]}; every column needs one value a row"
        )
    return columns
