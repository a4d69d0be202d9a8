"""The size bound of a canned estimator's model, checked when the estimator is made.

Every variable a canned network will make is known from its feature columns and
arguments (``n_classes``, ``label_dimension``, ``hidden_units``, each column's
``num_buckets`` / ``hash_bucket_size`` / vocabulary size and ``dimension``), so the
model's size is computed before anything is allocated. A model over
:data:`MAX_MODEL_VALUES` values is a ``ValueError`` naming its largest variable and the
arguments that size it, not a ``MemoryError`` (or a machine swapping) at the first
``train``: ``n_classes=2**31`` asked for 128 GiB. docs/tf_differences.md has the row.
"""

from __future__ import annotations

import math

from ... import feature_columns as fc
from ..export import checks
from ..networks.dnn import check_hidden_units

__all__ = ["MAX_MODEL_VALUES", "check_model_size"]

MAX_MODEL_VALUES = 2**31
"""The most values (float32: 8 GiB) the variables of a canned model may hold; training
needs about as much again for the optimizer's slots and the gradients."""


def check_model_size(head, linear_columns, dnn_columns, tower=None) -> None:
    """Refuse a model whose variables would hold more than :data:`MAX_MODEL_VALUES`
    values. Columns or arguments that are invalid otherwise are left to the checks that
    name them when the network is built."""
    units = head.logits_dimension
    shapes, fan_in = {}, None
    hidden = list((tower or {}).get("hidden_units") or [])
    try:
        if linear_columns:
            shapes.update(checks.linear_variable_shapes(linear_columns, units, "linear/"))
        if dnn_columns and hidden and all(_is_size(n) for n in hidden):
            norm = bool(tower.get("batch_norm"))
            shapes.update(checks.dnn_variable_shapes(dnn_columns, hidden, units, norm, "dnn/"))
            fan_in = sum(c.dimension for c in dnn_columns)
    except (checks.ExportError, TypeError, ValueError, AttributeError):
        return
    if fan_in is not None:
        check_hidden_units(fan_in, hidden)  # one layer too big: named as its own error
    total = sum(math.prod(s) for s in shapes.values())
    if total <= MAX_MODEL_VALUES:
        return
    largest = max(shapes, key=lambda k: math.prod(shapes[k]))
    sources = _sources(head, list(linear_columns or []) + list(dnn_columns or []), tower)
    named = [f"{label}={value}" for label, value in sources if value in shapes[largest]]
    by = f", sized by {', '.join(dict.fromkeys(named))}" if named else ""
    raise ValueError(
        f"the canned model's variables would hold {total:,} values "
        f"({total * 4 / 2**30:,.1f} GiB of float32), more than the {MAX_MODEL_VALUES:,} a "
        f"canned model may hold; the largest is {largest!r} of shape {shapes[largest]}{by}. "
        "Lower those sizes (a hashed or embedded column of fewer buckets or dimensions, "
        "fewer classes or units)"
    )


def _is_size(n) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n >= 1


def _sources(head, columns, tower) -> list:
    """``[(argument, value)]``: the sizes a model is made from."""
    label = "n_classes" if getattr(head, "n_classes", None) else "label_dimension"
    out = [(label, head.logits_dimension)]
    hidden = (tower or {}).get("hidden_units") or []
    out += [(f"hidden_units[{i}]", n) for i, n in enumerate(hidden)]
    for c in columns:
        inner = getattr(c, "categorical_column", None)
        for col in (c, inner) if inner is not None else (c,):
            if isinstance(col, fc.CategoricalColumn):
                out.append((f"column {col.name!r} num_buckets", col.num_buckets))
        if isinstance(c, fc.DenseColumn):
            out.append((f"column {c.name!r} dimension", c.dimension))
    return out
