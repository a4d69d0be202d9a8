"""``init_from_checkpoint``: copy checkpoint arrays into variables by TF's assignment-map
rules (``tf.compat.v1.train.init_from_checkpoint``), partitioned targets included.

Everything is checked first (names present on both sides, shapes and dtypes compatible),
raising ``ValueError`` naming every offender, and assigned only when all is well.
"""

from __future__ import annotations

import difflib
import logging

import numpy as np

from .checkpoint_reader import load_checkpoint
from .restore_checks import dtype_problem
from .variables import Variable
from .warm_start_targets import (
    missing_message,
    name_map,
    name_of,
    raise_problems,
    read_checked,
    shape_problem,
)

__all__ = ["init_from_checkpoint"]

logger = logging.getLogger("colonnade")


def _assignment_pairs(assignment_map) -> list:
    """``assignment_map`` (a dict, or a list of pairs as TF accepts) as a list of pairs."""
    pairs = list(assignment_map.items() if isinstance(assignment_map, dict) else assignment_map)
    for pair in pairs:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise TypeError(
                "assignment_map must be a dict or a list of (checkpoint name, variable or "
                f"name) pairs; got the item {pair!r}"
            )
    for ckpt_name, current in pairs:
        if isinstance(current, (list, tuple)) and not all(isinstance(v, Variable) for v in current):
            raise TypeError(
                f"assignment_map[{ckpt_name!r}] as a list must hold the Variables that are "
                f"the partitions of one variable; got {[type(v).__name__ for v in current]}"
            )
    return pairs


def _partition_axis(parts, full: tuple):
    """The axis along which the shapes of ``parts`` tile ``full``, or ``None``."""
    shapes = [tuple(p.shape) for p in parts]
    if any(len(s) != len(full) or len(s) == 0 for s in shapes):
        return None
    differing = [i for i in range(len(full)) if any(s[i] != full[i] for s in shapes)]
    axis = differing[0] if differing else 0
    others_match = all(s[i] == full[i] for s in shapes for i in range(len(full)) if i != axis)
    return axis if others_match and sum(s[axis] for s in shapes) == full[axis] else None


def _partition_problem(parts, key, reader) -> str | None:
    full = tuple(reader.get_variable_to_shape_map()[key])
    if _partition_axis(parts, full) is None:
        return (
            f"the partitions {[p.name for p in parts]} (shapes "
            f"{[tuple(p.shape) for p in parts]}) do not tile {key!r} of shape {full} along "
            "one axis"
        )
    old = reader.get_variable_to_dtype_map()[key]
    for part in parts:
        problem = dtype_problem(key, old, part.dtype, holder=f"partition {part.name!r}")
        if problem:
            return problem
    return None


def _split_into(value: np.ndarray, parts) -> list:
    """``value`` cut into the slices that ``parts`` (partitions, in order) hold."""
    axis = _partition_axis(parts, value.shape)
    sizes = [p.shape[axis] for p in parts]
    return np.split(value, np.cumsum(sizes)[:-1], axis=axis)


def init_from_checkpoint(ckpt_dir_or_file, assignment_map: dict, variables=None) -> dict:
    """Assign checkpoint arrays to variables by TF's assignment-map rules.

    ``assignment_map`` maps checkpoint names to current ones:

    - ``"old/w": "new/w"`` or ``"old/w": variable`` — one array to one variable;
    - ``"old_scope/": "new_scope/"`` — every current variable under ``new_scope/`` from the
      same relative name under ``old_scope/``;
    - ``"/": "new_scope/"`` — from the checkpoint's root (no scope); ``"old_scope/": "/"``
      loads every current variable from under ``old_scope/``;
    - ``"old/w": [part_0, part_1, ...]`` — the partitions of one variable (TF's
      ``PartitionedVariable`` as a list): each gets its slice of the array, in order,
      along the one axis where their shapes differ from the array's (the first axis when
      none does, as for a single partition).

    ``assignment_map`` may also be a list of ``(checkpoint name, current)`` pairs (as
    TF's), so one array can initialize several variables.

    Names on the right are looked up in ``variables`` (a dict name -> Variable, a list of
    Variables by ``.name``, or a Checkpoint). Raises ``ValueError`` (naming them) if a name
    is missing on either side or a shape differs; then nothing is assigned. Returns
    ``{current name: checkpoint name}`` of what was loaded.

    >>> import tempfile
    >>> from colonnade.core.checkpoint_format import write_checkpoint
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/c", {"old/w": (np.ones(2), {}),
    ...                                                   "old/b": (np.ones(1), {})})
    >>> w, b = Variable(np.zeros(2), name="new/w"), Variable(np.zeros(1), name="new/b")
    >>> init_from_checkpoint(p, {"old/": "new/"}, variables=[w, b])
    {'new/b': 'old/b', 'new/w': 'old/w'}
    """
    reader = load_checkpoint(ckpt_dir_or_file)
    pairs = _assignment_pairs(assignment_map)
    needs_names = any(isinstance(v, str) for _, v in pairs)
    names = name_map(variables) if (variables is not None or needs_names) else {}
    plan, problems = {}, []  # current name -> (Variable or list of partitions, checkpoint key)
    for ckpt_name, current in sorted(pairs, key=lambda kv: kv[0]):
        if isinstance(current, (Variable, list, tuple)):
            if ckpt_name.endswith("/"):
                problems.append(f"scope {ckpt_name!r} must map to a scope, not to a variable")
                continue
            if isinstance(current, Variable):
                plan[name_of(current, names)] = (current, ckpt_name)
            else:
                plan[",".join(name_of(v, names) for v in current)] = (list(current), ckpt_name)
            continue
        if not isinstance(current, str):
            raise TypeError(
                f"assignment_map[{ckpt_name!r}] must be a Variable or a name, "
                f"got {type(current).__name__}"
            )
        if current in names and not current.endswith("/"):
            if ckpt_name.endswith("/"):
                problems.append(
                    f"scope {ckpt_name!r} must map to a scope ('scope/'), got the variable "
                    f"name {current!r}"
                )
                continue
            plan[current] = (names[current], ckpt_name)
            continue
        if not ckpt_name.endswith("/"):
            close = difflib.get_close_matches(current, list(names), n=3)
            problems.append(
                f"{current!r} (for {ckpt_name!r}) is not a current variable"
                + (f" (similar: {close})" if close else "")
                + "; map scopes as 'old_scope/': 'new_scope/'"
            )
            continue
        scope = "" if current == "/" else current.rstrip("/")
        ckpt_scope = "" if ckpt_name == "/" else ckpt_name.rstrip("/")
        in_scope = [n for n in names if not scope or n.startswith(scope + "/")]
        if not in_scope:
            problems.append(f"no current variable is under the scope {current!r}")
        for name in sorted(in_scope):
            relative = name[len(scope) + 1 :] if scope else name
            plan[name] = (names[name], f"{ckpt_scope}/{relative}" if ckpt_scope else relative)
    for name, (var, key) in plan.items():
        if not reader.has_tensor(key):
            problems.append(missing_message(key, reader) + f", needed for variable {name!r}")
        elif isinstance(var, list):
            problems.append(_partition_problem(var, key, reader))
        else:
            problems.append(shape_problem(name, var, key, reader))
    raise_problems([p for p in problems if p], "init_from_checkpoint")
    values = {name: read_checked(reader, key, var, name) for name, (var, key) in plan.items()}
    for name, (var, _) in plan.items():
        if isinstance(var, list):
            for part, value in zip(var, _split_into(values[name], var)):
                part.assign(value)
        else:
            var.assign(values[name])
    loaded = {name: key for name, (_, key) in sorted(plan.items())}
    logger.info("initialized %d variables from %s: %s", len(loaded), reader.path, loaded)
    return loaded
