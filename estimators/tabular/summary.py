"""``describe()`` of the zero-configuration models: one short line per input column (what
it became, the feature columns built from it in each part), or with ``verbose`` every
reason and note of the plan (``ColumnPlan.describe``); a binary classifier's label line
names its positive class.

>>> import colonnade as cn, pandas as pd
>>> df = pd.DataFrame({"n": [1.0, 2.0, 3.0, 4.0] * 25, "id": range(100), "y": ["a", "b"] * 50})
>>> plan = cn.feature_columns.infer(df, "y")
>>> print(describe(plan, ["a", "b"]).splitlines()[0])
y: label: binary; positive class 'b' (probability column 1, 'logistic')
"""

from __future__ import annotations

__all__ = ["describe", "positive_class"]


def positive_class(plan, classes) -> str | None:
    """The sentence naming a binary classifier's positive class, or None."""
    if plan.task != "binary":
        return None
    value = classes[1]
    value = value.item() if hasattr(value, "item") else value  # numpy scalars as Python's
    return f"positive class {value!r} (probability column 1, 'logistic')"


def _first_clause(reason: str) -> str:
    return reason.split(";")[0].strip()


def _columns_from(plan, name: str) -> str:
    """The feature columns built from input ``name`` alone (or named ``name``), per part."""
    parts = []
    for part, columns in (("wide", plan.linear), ("deep", plan.dnn)):
        names = [c.name for c in columns if c.name == name or list(c.parse_spec()) == [name]]
        if names:
            parts.append(f"{part}: {', '.join(names)}")
    return "; ".join(parts)


def _short(plan, decision, positive) -> str:
    if decision.action == "label":
        line = f"{decision.name}: label: {plan.task}"
        return line if positive is None else f"{line}; {positive}"
    built = "" if decision.action == "dropped" else _columns_from(plan, decision.name)
    what = built or _first_clause(decision.reason)
    return f"{decision.name}: {decision.action}: {what}"


def describe(plan, classes=None, verbose: bool = False, trees=None) -> str:
    """The plan's columns, one line each: short (what each input became and the feature
    columns built from it; a dropped column's reason) ending with how many training
    notes ``verbose=True`` shows, or with ``verbose`` the plan's full reasons and notes.
    ``classes``: a classifier's label values in class-id order (names the positive
    class of a binary one); ``trees``: the line on a tree member, if any."""
    positive = positive_class(plan, classes) if classes is not None else None
    if verbose:
        lines = []
        for d in plan.decisions:
            line = d.line()
            if d.action == "label" and positive is not None:
                line = f"{line}; {positive}"
            lines.append(line)
        return "\n".join(lines + ([trees] if trees else []) + [f"note: {n}" for n in plan.notes])
    lines = [_short(plan, d, positive) for d in plan.decisions]
    if trees:
        lines.append(trees)
    if plan.notes:
        lines.append(f"({len(plan.notes)} notes on how it trained: describe(verbose=True))")
    return "\n".join(lines)
