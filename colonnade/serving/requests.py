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
from dataclasses import dataclass, replace

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "SIGNATURE_NAMES",
    "BadRequest",
    "InputSpec",
    "NeedsParseProcess",
    "decode_request",
]

OPEN_INPUT_DEPTH = 2
"""How deep a value of an export with unknown inputs may nest lists (a row of a 2-D
feature): deeper bodies are refused before Arrow converts them."""
SIGNATURE_NAMES = ("serving_default", "predict")
"""The signature names a predict request may give: TF's estimator exports name their
prediction signature ``predict`` and serve it as ``serving_default`` too."""
VERB_SIGNATURES = {
    "classify": ("serving_default", "classification", "tensorflow/serving/classify"),
    "regress": ("serving_default", "regression", "tensorflow/serving/regress"),
}
"""The signature names ``:classify`` and ``:regress`` take: TF's estimator exports name
them ``classification`` and ``regression`` (TF Serving's docs use the method names)."""


class BadRequest(Exception):
    """A client error: answered with ``status`` (400 unless said) and ``{"error": message}``."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


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


@dataclass(frozen=True)
class Decoded:
    """A request's inputs (``table``) and how to answer it: ``rows`` for TF Serving's
    row format (``instances``), else columns (``inputs``)."""

    table: pa.Table
    rows: bool


def decode_request(verb: str, raw: bytes, spec: InputSpec, examples_allowed: bool) -> Decoded:
    """The request body ``raw`` of ``verb`` (``predict``, ``classify``, ``regress``) as
    the model's inputs. Raises :class:`BadRequest` (400, or 413 over ``spec``'s bounds),
    or :class:`NeedsParseProcess` for serialized examples when not ``examples_allowed``."""
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        if "memory" in str(e):
            raise MemoryError(str(e)) from None
        raise BadRequest(f"malformed JSON in the request body: {e}") from None
    if not isinstance(body, dict):
        raise BadRequest(
            "the request body must be a JSON object with 'instances' or 'inputs', got a "
            f"JSON {kind_of(body)}"
        )
    if _bracket_depth(raw) > 2 + _deepest_input(spec):
        spec = replace(spec, check_nesting=True)
    if verb == "predict":
        decoded = _decode_predict(body, spec, examples_allowed)
    else:
        decoded = Decoded(_decode_examples_verb(verb, body, spec), rows=True)
    _check_size(decoded.table, spec)
    return decoded


def _deepest_input(spec: InputSpec) -> int:
    if spec.inputs is None:
        return OPEN_INPUT_DEPTH
    return max(map(_depth, spec.inputs.values()), default=0)


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


def _decode_predict(body: dict, spec: InputSpec, examples_allowed: bool) -> Decoded:
    signature = body.get("signature_name", "serving_default")
    if signature not in SIGNATURE_NAMES:
        raise BadRequest(
            f"signature_name {signature!r} is not served; this export has {list(SIGNATURE_NAMES)}"
        )
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
            return Decoded(
                serialized_to_table(serialized, "instances", spec, examples_allowed), True
            )
        if spec.inputs is None:
            columns = _open_columns(instances, "instances")
        else:
            first = instances[0] if isinstance(instances, list) and instances else {}
            columns = rows_to_columns(instances, _sent(spec, first))
        return Decoded(columns_to_table(columns, spec.inputs, spec.check_nesting), True)
    inputs = body["inputs"]
    names = list(inputs) if spec.inputs is None and isinstance(inputs, dict) else spec.inputs
    if spec.inputs is not None:
        names = _sent(spec, inputs)
    columns = inputs_to_columns(inputs, list(names or ()))
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


def _deeper_than(values: list, limit: int) -> bool:
    """Whether any of ``values`` holds lists nested more than ``limit`` deep (an
    explicit stack: no recursion on hostile input)."""
    stack = [(v, 1) for v in values if isinstance(v, list)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((v, depth + 1) for v in value if isinstance(v, list))
    return False


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
        return instances if isinstance(first, dict) and set(first) == {"b64"} else None
    if isinstance(first, dict) and set(first) == {"examples"}:
        return [row.get("examples") if isinstance(row, dict) else row for row in instances]
    if isinstance(first, dict) and set(first) == {"b64"}:
        return instances
    return None


def serialized_to_table(examples, field: str, spec: InputSpec, allowed: bool) -> pa.Table:
    """The model's inputs parsed from ``examples`` (``[{"b64": base64 of a serialized
    tf.Example}, ...]``) with the export's recorded parse spec; an export without a
    parsing serving input receiver takes none."""
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
    if spec.inputs is None:
        return table
    return table.select([name for name in spec.inputs if name in table.column_names])


# --------------------------------------------------------------------------- classify, regress


def _decode_examples_verb(verb: str, body: dict, spec: InputSpec) -> pa.Table:
    """TF Serving's classify/regress body ``{"signature_name": ..., "context": {...},
    "examples": [{feature: value | [values]}, ...]}`` as the model's inputs: each example
    is a row, ``context`` features go into every row, a one-value list feeds a scalar
    input, and ``{"b64": ...}`` is a string's bytes."""
    signature = body.get("signature_name", "serving_default")
    if signature not in VERB_SIGNATURES[verb]:
        raise BadRequest(
            f"signature_name {signature!r} is not served for :{verb}; this export has "
            f"{list(VERB_SIGNATURES[verb])}"
        )
    examples = body.get("examples")
    if examples is None:
        raise BadRequest(f":{verb} takes 'examples' (a list of feature objects); none was sent")
    if not isinstance(examples, list):
        raise BadRequest(f"'examples' must be a list of objects, got a JSON {kind_of(examples)}")
    if not examples:
        raise BadRequest("'examples' is an empty list; send at least one example")
    context = body.get("context", {})
    if not isinstance(context, dict):
        raise BadRequest(f"'context' must be an object of features, got a JSON {kind_of(context)}")
    rows = []
    for i, example in enumerate(examples):
        if not isinstance(example, dict):
            raise BadRequest(f"examples[{i}] must be an object of features, got {kind_of(example)}")
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
        scalar = spec.inputs is not None and _depth(spec.inputs[name]) == 0
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
    if len(names) == 1 and instances and not isinstance(instances[0], dict):
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


def kind_of(value) -> str:
    """The JSON kind of a parsed JSON ``value``, for messages."""
    return {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), "null" if value is None else "number"
    )


def _is_list(arrow_type) -> bool:
    return (
        pa.types.is_list(arrow_type)
        or pa.types.is_large_list(arrow_type)
        or pa.types.is_fixed_size_list(arrow_type)
    )


def base_type(arrow_type):
    """The value type under all of ``arrow_type``'s list levels."""
    while _is_list(arrow_type):
        arrow_type = arrow_type.value_type
    return arrow_type


def _depth(arrow_type) -> int:
    depth = 0
    while _is_list(arrow_type):
        arrow_type, depth = arrow_type.value_type, depth + 1
    return depth


def _accepts(expected, got) -> bool:
    """Whether values of Arrow type ``got`` can feed an input of type ``expected``."""
    expected, got = base_type(expected), base_type(got)
    if pa.types.is_null(got):
        return True
    if pa.types.is_floating(expected):
        return pa.types.is_floating(got) or pa.types.is_integer(got)
    if pa.types.is_integer(expected):
        return pa.types.is_integer(got)
    if pa.types.is_string(expected) or pa.types.is_large_string(expected):
        return pa.types.is_string(got) or pa.types.is_large_string(got)
    return got == expected


def describe(arrow_type) -> str:
    """``arrow_type``'s values in words, for messages."""
    base = base_type(arrow_type)
    if pa.types.is_floating(base):
        return f"numbers ({base})"
    if pa.types.is_integer(base):
        return f"integers ({base})"
    if pa.types.is_string(base) or pa.types.is_large_string(base):
        return "strings"
    if pa.types.is_struct(base):
        return "objects"
    if pa.types.is_boolean(base):
        return "booleans"
    return str(base)


def _with_depth(arrow_type, depth: int):
    for _ in range(depth):
        arrow_type = pa.list_(arrow_type)
    return arrow_type


def _rank_words(depth: int) -> str:
    return "a single value a row" if depth == 0 else f"lists nested at most {depth} deep"


def columns_to_table(columns: dict, inputs: dict, check_nesting: bool = False) -> pa.Table:
    """One Arrow column per input, each checked against the type and rank the model
    reads (a value may be a scalar where a list is read: one value); a column of only
    ``null`` takes the input's type, as any missing value does. ``check_nesting``
    checks each value's depth before converting (see :class:`InputSpec`). With
    ``inputs`` ``None`` (not known) each column takes its values' own type."""
    arrays = {}
    for name, values in columns.items():
        expected = None if inputs is None else inputs[name]
        want_depth = OPEN_INPUT_DEPTH if expected is None else _depth(expected)
        if check_nesting and _deeper_than(values, want_depth):
            raise BadRequest(
                f"input column {name!r} takes {_rank_words(want_depth)} (rank {want_depth + 1} "
                "with the batch), got values nested deeper"
            )
        try:
            array = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise BadRequest(
                f"input column {name!r}: its values do not make one column: {e}"
            ) from None
        got_depth = _depth(array.type)
        if got_depth > want_depth:
            raise BadRequest(
                f"input column {name!r} takes {_rank_words(want_depth)} (rank {want_depth + 1} "
                f"with the batch), got values nested {got_depth} deep (rank {got_depth + 1})"
            )
        if expected is None:
            arrays[name] = array
            continue
        if not _accepts(expected, array.type):
            raise BadRequest(
                f"input column {name!r} takes {describe(expected)}, got {describe(array.type)}"
            )
        if pa.types.is_null(base_type(array.type)):
            array = pa.array(values, type=_with_depth(base_type(expected), got_depth))
        elif pa.types.is_fixed_size_list(expected) and got_depth == 1:
            array = _fixed_width(name, array, expected)
        arrays[name] = array
    return pa.table(arrays)


def _fixed_width(name: str, array, expected):
    """A column of lists as the fixed-width input ``expected`` (a receiver's
    ``FixedLenFeature([k])``): what the model reads as a ``(batch, k)`` array, as TF's
    placeholder of shape ``[None, k]`` takes it. Rows of another length are refused."""
    if pa.types.is_fixed_size_list(array.type) and array.type.list_size == expected.list_size:
        return array
    lengths = set(pc.list_value_length(array).drop_null().to_pylist())
    if lengths - {expected.list_size}:
        raise BadRequest(
            f"input column {name!r} takes {expected.list_size} values a row, got rows of "
            f"{sorted(lengths)[:5]} values"
        )
    return array.cast(expected)
