"""What an estimator's variables hold, read for a person: TF's ``list_variables`` /
``load_variable`` over a checkpoint, and Keras' ``Model.summary`` table.

Which checkpoint keys are listed is the model's to say (:meth:`~.model.Model.lists_variable`):
a ``model_fn``'s checkpoint lists its variables and the global step, a canned one's also
the optimizers' slots.

>>> import numpy as np
>>> for line in summary_lines("Net", "/tmp/m", [], {"w": np.zeros((3, 1)), "b": np.zeros(1)}):
...     print(line)
Net (model_dir /tmp/m)
variable  shape   size
b         (1,)    1
w         (3, 1)  3
total parameters: 4
"""

from __future__ import annotations

import numpy as np

from ... import core

__all__ = ["checkpoint_variable_names", "checkpoint_variable_value", "summary_lines"]


def checkpoint_variable_names(checkpoint: str, model) -> list:
    """The keys of ``checkpoint`` that ``model`` lists, sorted."""
    names = core.list_variables(checkpoint)
    return sorted(n for n, _ in names if model.lists_variable(n))


def checkpoint_variable_value(checkpoint: str, model, name: str):
    """The value of the variable ``name`` in ``checkpoint``; ``KeyError`` naming the
    variables there when ``model`` does not list it or the checkpoint lacks it."""
    if model.lists_variable(name):
        try:
            return core.load_variable(checkpoint, name)
        except (KeyError, ValueError):
            pass
    names = checkpoint_variable_names(checkpoint, model)
    raise KeyError(f"no variable named {name!r}; the model has {names}")


def summary_lines(class_name: str, model_dir: str, column_parts, variables: dict) -> list:
    """The lines of an estimator's summary: the feature columns of each of
    ``column_parts`` (``(part, columns)``), then a table of ``variables`` (by name:
    shape and size, sorted) and the total parameter count."""
    rows = [(n, tuple(variables[n].shape)) for n in sorted(variables)]
    sizes = [int(np.prod(shape, dtype=np.int64)) for _, shape in rows]
    width = max([len("variable")] + [len(n) for n, _ in rows])
    swidth = max([len("shape")] + [len(str(shape)) for _, shape in rows])
    lines = [f"{class_name} (model_dir {model_dir})"]
    for part, columns in column_parts:
        lines.append(f"{part} columns: " + ", ".join(c.name for c in columns))
    lines.append(f"{'variable':<{width}}  {'shape':<{swidth}}  size")
    for (name, shape), size in zip(rows, sizes):
        lines.append(f"{name:<{width}}  {str(shape):<{swidth}}  {size:,}")
    lines.append(f"total parameters: {sum(sizes):,}")
    return lines
