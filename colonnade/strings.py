"""``cn.strings``: TF's string ops that input functions use on a batch of text, over Arrow.

``split`` gives each string's pieces as one list (an Arrow ``ListArray``: what TF gives as
a ``SparseTensor``/``RaggedTensor``, and what a categorical feature column reads as a
multivalent input); ``to_number`` parses numbers as TF's ``strings.to_number``, refusing a
string that is not one by name. ``cn.compat.v1.string_split`` / ``string_to_number`` are
TF 1's spellings.

>>> split(["a b", "c"]).to_pylist()
[['a', 'b'], ['c']]
>>> to_number(["1.5", "-2"]).tolist()
[1.5, -2.0]
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from colonnade.core.symbolic import any_symbolic, node
from colonnade.feature_columns.hashing import hash_bucket_ids

__all__ = [
    "as_string",
    "lower",
    "split",
    "string_split",
    "string_to_number",
    "strip",
    "string_to_hash_bucket_fast",
    "substr",
    "to_hash_bucket_fast",
    "to_number",
    "upper",
]


def _strings(values) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = pa.array(np.asarray(values, dtype=object).reshape(-1))  # str or bytes
    if pa.types.is_binary(values.type) or pa.types.is_large_binary(values.type):
        values = values.cast(pa.string())
    if not pa.types.is_string(values.type) and not pa.types.is_large_string(values.type):
        raise TypeError(f"expected strings, got {values.type}")
    return values


def split(input, sep=None, maxsplit=-1, name=None) -> pa.ListArray:  # noqa: A002 (TF's)
    """Each string of ``input`` split at ``sep`` (``None``: runs of whitespace, empty
    pieces dropped, as TF's), at most ``maxsplit`` times (-1: no limit)."""
    values = _strings(input)
    limit = None if maxsplit is None or maxsplit < 0 else int(maxsplit)
    if sep is None:
        return _without_empty(pc.utf8_split_whitespace(values, max_splits=limit))
    if sep == "":
        raise ValueError("split: sep must not be empty (TF splits into characters elsewhere)")
    return pc.split_pattern(values, pattern=sep, max_splits=limit)


def string_split(source, sep=None, skip_empty=True, delimiter=None) -> pa.ListArray:
    """TF 1's ``string_split``: ``source`` split at any of the characters of ``delimiter``
    (default a space), empty pieces dropped unless ``skip_empty=False``."""
    delimiter = sep if delimiter is None else delimiter
    delimiter = " " if delimiter is None else delimiter
    values = _strings(source)
    if len(delimiter) == 1:
        pieces = pc.split_pattern(values, pattern=delimiter)
    else:
        escaped = "".join(re.escape(c) for c in delimiter)
        pieces = pc.split_pattern_regex(values, pattern=f"[{escaped}]")
    return _without_empty(pieces) if skip_empty else pieces


def _without_empty(pieces: pa.ListArray) -> pa.ListArray:
    """``pieces`` without their empty strings (rows kept, possibly empty)."""
    flat = pc.list_flatten(pieces)
    keep = pc.not_equal(flat, "")
    rows = pc.list_parent_indices(pieces)
    counts = np.bincount(rows.filter(keep).to_numpy(), minlength=len(pieces))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), flat.filter(keep))


def to_number(string_tensor, out_type=np.float32, name=None) -> np.ndarray:
    """The numbers ``string_tensor`` holds, as ``out_type`` (float32 by default, as TF's);
    a string that is not a number is a ``ValueError`` naming it."""
    if any_symbolic(string_tensor):
        return node("to_number", string_tensor, dtype=np.dtype(out_type).name)
    shape = np.shape(string_tensor) if not isinstance(string_tensor, pa.Array) else None
    values = _strings(string_tensor)
    kind = pa.from_numpy_dtype(np.dtype(out_type))
    try:
        numbers = values.cast(kind).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        bad = next(v for v in values.to_pylist() if not _parses(v, kind))
        raise ValueError(f"StringToNumberOp could not correctly convert string: {bad}") from None
    return numbers if shape is None else numbers.reshape(shape)


def _shaped(values, fn):
    """``fn`` (an Arrow string function) over ``values`` of any shape, shape kept."""
    shape = None if isinstance(values, (pa.Array, pa.ChunkedArray)) else np.shape(values)
    result = fn(_strings(values))
    return result if shape is None else result.to_numpy(zero_copy_only=False).reshape(shape)


def _case_op(op, ascii_fn, utf8_fn):
    def case_op(input, encoding="", name=None):  # noqa: A002 (TF's argument names)
        if encoding not in ("", "utf-8"):
            raise ValueError(f"{op}: encoding must be '' or 'utf-8', got {encoding!r}")
        if any_symbolic(input):
            return node(op, input, encoding=encoding)
        return _shaped(input, utf8_fn if encoding else ascii_fn)

    case_op.__name__ = case_op.__qualname__ = op
    case_op.__doc__ = (
        f"``tf.strings.{op}``: each string {op}cased; as TF's, only ASCII letters unless "
        "``encoding='utf-8'``."
    )
    return case_op


lower = _case_op("lower", pc.ascii_lower, pc.utf8_lower)
upper = _case_op("upper", pc.ascii_upper, pc.utf8_upper)


def strip(input, name=None):  # noqa: A002 (TF's argument names)
    """``tf.strings.strip``: each string without its leading and trailing whitespace."""
    if any_symbolic(input):
        return node("strip", input)
    return _shaped(input, pc.utf8_trim_whitespace)


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002 (TF's argument names)
    """``tf.strings.substr``: ``len`` characters of each string from ``pos`` (for ASCII
    text, TF's default ``BYTE`` unit; non-negative ``pos`` only)."""
    pos, length = int(pos), int(len)
    if pos < 0 or length < 0:
        raise ValueError(f"substr takes a non-negative pos and len, got {pos} and {length}")
    if any_symbolic(input):
        return node("substr", input, pos=pos, len=length)
    return _shaped(input, lambda a: pc.utf8_slice_codeunits(a, start=pos, stop=pos + length))


def as_string(
    input,  # noqa: A002 (TF's argument names)
    precision=-1,
    scientific=False,
    shortest=False,
    width=-1,
    fill="",
    name=None,
):
    """``tf.strings.as_string``: each number as text, with TF's printf rules: floats as
    ``%f`` (``%e`` with ``scientific``, ``%g`` with ``shortest``) to ``precision`` digits,
    integers as ``%d``, booleans as ``true``/``false``; ``width`` pads with ``fill`` (a
    space by default, or one of ``0 + - #``)."""
    if any_symbolic(input):
        if (precision, scientific, shortest, width, fill) != (-1, False, False, -1, ""):
            raise ValueError("as_string of a serving input takes TF's default format only")
        return node("as_string", input)
    values = np.asarray(input)
    if values.dtype.kind == "b":
        return np.where(values, "true", "false").astype(object)
    if values.dtype.kind not in "iuf":
        raise TypeError(f"as_string takes numbers or booleans, got dtype {values.dtype}")
    if scientific and shortest:
        raise ValueError("as_string: give scientific or shortest, not both")
    if len(fill) > 1 or (fill and fill not in " +-0#"):
        raise ValueError(f"as_string: fill must be one of ' ', '+', '-', '0', '#', got {fill!r}")
    integer = values.dtype.kind in "iu"
    if integer and (scientific or shortest or precision > -1):
        raise ValueError("as_string: precision, scientific and shortest are for floats only")
    spec = "%" + fill + (str(int(width)) if width > -1 else "")
    spec += f".{int(precision)}" if precision > -1 else ""
    spec += "d" if integer else ("e" if scientific else "g" if shortest else "f")
    return np.char.mod(spec, values).astype(object)


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 (TF's argument names)
    """``tf.strings.to_hash_bucket_fast``: each string's ``Fingerprint64 % num_buckets``
    (int64), TF's values, as a categorical hash column buckets them."""
    if int(num_buckets) < 1:
        raise ValueError(f"to_hash_bucket_fast: num_buckets must be >= 1, got {num_buckets}")
    values = np.asarray(input, dtype=object)
    if values.size and not all(isinstance(v, (str, bytes)) for v in values.reshape(-1)):
        raise TypeError("to_hash_bucket_fast takes strings (str or bytes)")
    return hash_bucket_ids(values.reshape(-1), int(num_buckets)).reshape(values.shape)


string_to_hash_bucket_fast = to_hash_bucket_fast


def _parses(text, kind) -> bool:
    try:
        pa.scalar(text).cast(kind)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True


string_to_number = to_number
