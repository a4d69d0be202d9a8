"""Whether a stored array may be restored into a variable: one rule for every restore.

A model_dir, a warm-start checkpoint or a TF checkpoint taken over may come from someone
else, and its index says what dtype and shape each array has. Everything that restores
(:meth:`~colonnade.core.checkpoint.Checkpoint.restore`, the v1 ``Saver``, ``warm_start``,
``init_from_checkpoint`` and the TF takeover of the estimators) asks this module before it
assigns anything, and again of every array it read, so that an index relabelling a
float32 variable as int32 (same bytes, same checksums) is refused by name instead of
turning 0.418 into -398,408,096.

The rule, stricter than a numpy cast and a little looser than TF's restore ops (which
demand the exact dtype):

- the shapes are equal;
- a floating array goes into a floating variable, a complex one into a complex one, a
  bool into a bool (a change of width is allowed: a float64 checkpoint restores into a
  float32 model, as colonnade has always allowed);
- an integer array goes into an integer variable when every value fits its range
  (checked on the values read, :func:`value_problem`);
- strings (TF's ``DT_STRING``, read as numpy ``object`` arrays of ``bytes``) go only into
  a string variable;
- anything else is refused: an integer into a float variable, a float into an integer
  one, a bool into a number, a string into anything numeric.

>>> import numpy as np
>>> print(dtype_problem("w", np.int32, np.float32))  # doctest: +NORMALIZE_WHITESPACE
'w': the checkpoint has dtype int32, the model has float32
(an integer array is not restored into a floating variable)
>>> dtype_problem("w", np.float64, np.float32) is None
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["dtype_problem", "shape_problem", "restore_problem", "value_problem"]

_KINDS = {
    "f": "floating",
    "c": "complex",
    "b": "bool",
    "i": "integer",
    "u": "integer",
    "O": "string",
    "S": "string",
    "U": "string",
}


def _kind(dtype: np.dtype) -> str:
    return _KINDS.get(dtype.kind, f"{dtype} (kind {dtype.kind!r})")


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def dtype_problem(name, stored, expected, *, holder="the model") -> str | None:
    """Why an array of dtype ``stored`` may not be restored into a variable of dtype
    ``expected`` (``None`` when it may): the message names the variable and both dtypes."""
    stored, expected = np.dtype(stored), np.dtype(expected)
    if stored == expected:
        return None
    old, new = _kind(stored), _kind(expected)
    if old == new and old in _KINDS.values():
        return None
    shown = "string" if old == "string" else str(stored)
    return (
        f"{name!r}: the checkpoint has dtype {shown}, {holder} has {expected} "
        f"({_article(old)} {old} array is not restored into {_article(new)} {new} variable)"
    )


def shape_problem(name, stored, expected, *, holder="the model") -> str | None:
    """Why an array of shape ``stored`` may not be restored into a variable of shape
    ``expected`` (``None`` when the shapes are equal)."""
    stored, expected = tuple(int(d) for d in stored), tuple(int(d) for d in expected)
    if stored == expected:
        return None
    return f"{name!r}: the checkpoint has shape {stored}, {holder} has {expected}"


def restore_problem(name, stored_shape, stored_dtype, shape, dtype, *, holder="the model"):
    """The shape problem, else the dtype problem, of restoring an array described by a
    checkpoint's index into a variable; ``None`` when it may be restored."""
    return shape_problem(name, stored_shape, shape, holder=holder) or dtype_problem(
        name, stored_dtype, dtype, holder=holder
    )


def value_problem(name, value, shape, dtype, *, holder="the model") -> str | None:
    """Why the array ``value`` as read may not be assigned to a variable of ``shape`` and
    ``dtype``: the index's promise is checked again on what came back, and an integer
    array must fit the variable's integer range (an int64 step into an int32 counter)."""
    value = np.asarray(value)
    problem = restore_problem(name, value.shape, value.dtype, shape, dtype, holder=holder)
    if problem or value.size == 0 or np.dtype(dtype).kind not in "iu":
        return problem
    info = np.iinfo(np.dtype(dtype))
    low, high = value.min(), value.max()
    if int(low) < info.min or int(high) > info.max:
        return (
            f"{name!r}: the checkpoint's values span [{int(low)}, {int(high)}], outside the "
            f"range of {holder}'s {np.dtype(dtype)} [{info.min}, {info.max}]"
        )
    return None
