"""JSON columns as Arrow arrays of the types a served signature declares: the type names
errors use, the nesting and precision checks, and the table a request becomes.

A JSON ``null`` is a missing value of its input's type; numbers that a float input cannot
hold exactly and integers beyond int64 are refused by name, as TF Serving does.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .errors import BadRequest

OPEN_INPUT_DEPTH = 2
"""How deep a value of an export with unknown inputs may nest lists (a row of a 2-D
feature): deeper bodies are refused before Arrow converts them."""


def deeper_than(values: list, limit: int) -> bool:
    """Whether any of ``values`` holds lists nested more than ``limit`` deep (an
    explicit stack: no recursion on hostile input)."""
    stack = [(v, 1) for v in values if isinstance(v, list)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((v, depth + 1) for v in value if isinstance(v, list))
    return False


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


def list_depth(arrow_type) -> int:
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
    checks each value's depth before converting (see :class:`~.requests.InputSpec`). With
    ``inputs`` ``None`` (not known) each column takes its values' own type."""
    arrays = {}
    for name, values in columns.items():
        expected = None if inputs is None else inputs[name]
        want_depth = OPEN_INPUT_DEPTH if expected is None else list_depth(expected)
        if check_nesting and deeper_than(values, want_depth):
            raise BadRequest(
                f"input column {name!r} takes {_rank_words(want_depth)} (rank {want_depth + 1} "
                "with the batch), got values nested deeper"
            )
        try:
            array = pa.array(values)
        except OverflowError:
            raise BadRequest(
                f"input column {name!r} has an integer beyond int64 (only int64 is supported)"
            ) from None
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise BadRequest(
                f"input column {name!r}: its values do not make one column: {e}"
            ) from None
        got_depth = list_depth(array.type)
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
        _check_precision(name, array, expected)
        if pa.types.is_null(base_type(array.type)):
            array = pa.array(values, type=_with_depth(base_type(expected), got_depth))
        elif pa.types.is_fixed_size_list(expected) and got_depth == 1:
            array = _fixed_width(name, array, expected)
        arrays[name] = array
    return pa.table(arrays)


_EXACT_INTEGERS = {"float": 1 << 24, "double": 1 << 53}
"""The largest integer each float type holds exactly."""


def _check_precision(name: str, array, expected) -> None:
    """Refuse, as TF Serving does ("loss of precision"), numbers the input's float type
    cannot hold: integers past its exact range, and float32 inputs given numbers past
    float32's largest."""
    want, got = base_type(expected), base_type(array.type)
    numeric = pa.types.is_integer(got) or pa.types.is_floating(got)
    if not pa.types.is_floating(want) or not numeric:
        return
    flat = array
    while _is_list(flat.type):
        flat = flat.flatten()
    if len(flat) == 0 or flat.null_count == len(flat):
        return
    if pa.types.is_integer(got):
        limit = _EXACT_INTEGERS.get(str(want))
        bounds = pc.min_max(flat)
        largest = max(abs(bounds["min"].as_py()), abs(bounds["max"].as_py()))
        if limit is not None and largest > limit:
            raise BadRequest(
                f"input column {name!r} takes {want} numbers: {largest} cannot be one without "
                f"loss of precision (integers up to {limit:,} can)"
            )
    elif str(want) == "float":
        finite = pc.filter(flat, pc.is_finite(flat))
        largest = pc.max(pc.abs(finite)).as_py() if len(finite) else None
        if largest is not None and largest > float(np.finfo(np.float32).max):
            raise BadRequest(
                f"input column {name!r} takes float32 numbers: {largest!r} is past float32's "
                "range (loss of precision)"
            )


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
