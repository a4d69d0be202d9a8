"""Warm start: initialize variables from another model's checkpoint (``tf.train.warm_start``).

There is no global variable collection: the targets are passed as ``variables``, either a
dict name -> ``Variable`` (matched by key; ``Checkpoint.named_variables()`` gives the
names the checkpoint of such a model uses) or a list of ``Variable`` (matched by
``Variable.name``); a ``Checkpoint`` is accepted too and stands for its
``named_variables()``. Names in the checkpoint are its keys, as ``list_variables`` shows.

- :func:`init_from_checkpoint` copies arrays by TF's assignment-map rules.
- :func:`warm_start` selects variables by regex/name, renames them
  (``var_name_to_prev_var_name``), and moves the rows (``axis=0``) or columns
  (``axis=1``) of vocabulary-indexed variables to their tokens' new positions
  (:class:`VocabInfo`); with ``optimizer=`` the optimizer slots follow.

Both check everything first (names present, shapes compatible), raising ``ValueError``
naming every offender, and assign only when all is well. Both log, on the ``"colonnade"``
logger, which variables they initialized and which they left alone.

>>> import tempfile, numpy as np
>>> from colonnade.core.checkpoint_format import write_checkpoint
>>> p = write_checkpoint(tempfile.mkdtemp() + "/c", {"emb": (np.array([[1.], [2.]]), {})})
>>> emb = Variable(np.zeros((4, 1), np.float32), name="emb")
>>> info = VocabInfo(["b", "c", "a"], 3, num_oov_buckets=1, old_vocab=["a", "b"])
>>> warm_start(p, var_name_to_vocab_info={"emb": info}, variables=[emb])
['emb']
>>> emb.numpy().ravel().tolist()   # b <- old row 1, c is new (0), a <- old row 0, OOV (0)
[2.0, 0.0, 1.0, 0.0]
"""

from __future__ import annotations

import logging
import re

import numpy as np

from .assignment_map import init_from_checkpoint
from .backend import to_host
from .checkpoint import SLOT_MARKER
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
from .warm_start_vocab import VocabInfo, backup_values, remap_by_vocab

__all__ = ["VocabInfo", "init_from_checkpoint", "remap_by_vocab", "warm_start"]

logger = logging.getLogger("colonnade")


def _tf_name(name: str) -> str:
    """``name`` as TF's ``Variable.name`` spells it (``w`` -> ``w:0``): TF matches the
    ``vars_to_warm_start`` regexes against these, so ``"v2[^/]"`` selects ``v2``."""
    return name if re.search(r":\d+$", name) else f"{name}:0"


def _select(vars_to_warm_start, names: dict, vocab_names) -> list:
    if isinstance(vars_to_warm_start, str):
        chosen = [
            n for n, v in names.items() if v.trainable and re.match(vars_to_warm_start, _tf_name(n))
        ]
        if not chosen:
            logger.warning(
                "warm_start: vars_to_warm_start=%r selects no trainable variable",
                vars_to_warm_start,
            )
        return chosen
    if vars_to_warm_start is None:
        return [n for n, v in names.items() if v.trainable and n in vocab_names]
    if isinstance(vars_to_warm_start, (list, tuple)):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            chosen, unmatched = [], []
            for pattern in vars_to_warm_start:
                hits = [n for n in names if re.match(pattern, _tf_name(n))]
                if not hits:
                    unmatched.append(pattern)
                chosen += [n for n in hits if n not in chosen]
            if unmatched:
                raise ValueError(
                    f"warm_start: vars_to_warm_start entries {unmatched} match no variable; "
                    f"the variables are {sorted(names)}"
                )
            return chosen
        if all(isinstance(v, Variable) for v in vars_to_warm_start):
            chosen = []
            for var in vars_to_warm_start:
                name = name_of(var, names)
                names.setdefault(name, var)
                chosen.append(name)
            return chosen
        raise ValueError(
            "vars_to_warm_start as a list must hold only names/regexes or only Variables, got "
            f"{sorted({type(v).__name__ for v in vars_to_warm_start})}"
        )
    raise TypeError(
        "vars_to_warm_start must be a regex string, a list of names/regexes or Variables, or "
        f"None; got {type(vars_to_warm_start).__name__}"
    )


def _object_based_renames(reader, chosen) -> dict:
    """TF's ``_get_object_checkpoint_renames``: in a checkpoint written by ``Checkpoint``
    the keys are object paths (``v``), so each chosen name that is not a key loads the
    variable saved under that name (recorded by ``Checkpoint.write``), when exactly one
    was."""
    metadata = getattr(reader, "metadata", None)
    if metadata is None:
        return {}
    keys_by_name: dict = {}
    for key in reader.keys():
        saved_name = metadata(key).get("variable_name")
        if saved_name is not None and saved_name != key:
            keys_by_name.setdefault(saved_name, []).append(key)
    return {
        name: keys_by_name[name][0]
        for name in chosen
        if not reader.has_tensor(name) and len(keys_by_name.get(name, ())) == 1
    }


def _slot_source(reader, prev_name, slot_name):
    prefix, suffix = f"{prev_name}/{SLOT_MARKER}/", f"/{slot_name}"
    keys = [k for k in reader.keys() if k.startswith(prefix) and k.endswith(suffix)]
    if len(keys) > 1:
        raise ValueError(
            f"warm_start: the checkpoint has several {slot_name!r} slots for {prev_name!r}: "
            f"{keys}; warm-start the slots by name instead"
        )
    return keys[0] if keys else None


def warm_start(
    ckpt_to_initialize_from,
    vars_to_warm_start=".*",
    var_name_to_vocab_info=None,
    var_name_to_prev_var_name=None,
    variables=None,
    *,
    optimizer=None,
    rng=None,
) -> list:
    """Initialize ``variables`` from a checkpoint (eager ``tf.train.warm_start``).

    ``vars_to_warm_start`` selects the targets, as TF:

    - a regex string: the *trainable* variables whose names it matches (``re.match``);
    - a list of names/regexes: every variable (trainable or not, e.g. slots or
      batch-norm statistics) matched by one of them; an entry matching nothing raises;
    - a list of Variables: exactly those;
    - ``None``: only the trainable variables named in ``var_name_to_vocab_info``.

    Each target loads the checkpoint array named ``var_name_to_prev_var_name.get(name,
    name)``; targets in ``var_name_to_vocab_info`` are remapped by their :class:`VocabInfo`.
    ``variables``: dict name -> Variable, list of Variables (by ``.name``) or a
    ``Checkpoint``. With ``optimizer`` (one implementing ``slot_items``/``create_slots``),
    the slots of every warm-started variable are loaded from the checkpoint's slot of the
    same name for the previous variable (keys ``<prev>/.OPTIMIZER_SLOT/<opt>/<slot>``),
    remapped like their variable; new tokens and OOV rows of a slot keep its current
    (initial) value, and a slot the checkpoint lacks is left alone (logged). ``rng`` (a
    numpy Generator) is passed to a ``backup_initializer`` that takes one (the
    ``cn.core.initializers`` do), so warm starts with random backups are reproducible.

    Raises ``ValueError`` naming them when a target is missing from the checkpoint, a shape
    is incompatible, or a ``var_name_to_vocab_info`` / ``var_name_to_prev_var_name`` entry
    names no selected variable; nothing is assigned then. Logs what was initialized and what
    was left alone; returns the names of the warm-started variables.

    >>> import tempfile
    >>> from colonnade.core.checkpoint_format import write_checkpoint
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/c", {"old_w": (np.ones(2), {})})
    >>> w, b = Variable(np.zeros(2), name="w"), Variable(np.zeros(1), name="b")
    >>> warm_start(p, "w", var_name_to_prev_var_name={"w": "old_w"}, variables=[w, b])
    ['w']
    >>> w.numpy().tolist(), b.numpy().tolist()
    ([1.0, 1.0], [0.0])
    """
    reader = load_checkpoint(ckpt_to_initialize_from)
    names = name_map(variables)
    vocab_infos = dict(var_name_to_vocab_info or {})
    prev_names = dict(var_name_to_prev_var_name or {})
    for name, info in vocab_infos.items():
        if not isinstance(info, VocabInfo):
            raise TypeError(f"var_name_to_vocab_info[{name!r}] must be a VocabInfo")
    chosen = _select(vars_to_warm_start, names, vocab_infos)

    # with vars_to_warm_start=None TF counts a renamed trainable variable as used, though
    # only the vocabulary ones are warm-started
    renamable = set(chosen) | (
        {n for n, v in names.items() if v.trainable} if vars_to_warm_start is None else set()
    )
    unused = {
        "var_name_to_vocab_info": sorted(set(vocab_infos) - set(chosen)),
        "var_name_to_prev_var_name": sorted(set(prev_names) - renamable),
    }
    parts = [f"{argument} names {names}" for argument, names in unused.items() if names]
    if parts:
        raise ValueError(
            "warm_start: " + " and ".join(parts) + " but these are not among the variables "
            f"selected by vars_to_warm_start={vars_to_warm_start!r}: {sorted(chosen)} "
            "(perhaps misspelled?)"
        )

    if not prev_names:
        prev_names = _object_based_renames(reader, chosen)
    # plan: target name -> (Variable, checkpoint key, VocabInfo or None); check all first
    plan, problems = {}, []
    for name in chosen:
        var, key, info = names[name], prev_names.get(name, name), vocab_infos.get(name)
        if not reader.has_tensor(key):
            problems.append(missing_message(key, reader) + f", needed for variable {name!r}")
        elif info is None:
            problems.append(shape_problem(name, var, key, reader))
        else:
            old = reader.get_variable_to_dtype_map()[key]
            problems.append(dtype_problem(key, old, var.dtype, holder=f"variable {name!r}"))
        plan[name] = (var, key, info)
    raise_problems([p for p in problems if p], "warm_start")

    values = {}
    for name, (var, key, info) in plan.items():
        if info is None:
            values[name] = read_checked(reader, key, var, name)
            continue
        old = reader.get_tensor(key)
        problem = dtype_problem(key, old.dtype, var.dtype, holder=f"variable {name!r}")
        raise_problems([problem] if problem else [], f"cannot restore from {reader.path}")
        backup = backup_values(info, var.shape, np.dtype(var.dtype), rng)
        values[name], found = remap_by_vocab(old, info, backup, name)
        logger.debug(
            "warm_start: %s <- %s remapped by vocabulary: %d of %d new tokens found, "
            "%d OOV buckets",
            name,
            key,
            found,
            info.new_vocab_size,
            info.num_oov_buckets,
        )

    slot_values, slots_left = _slot_plan(reader, plan, optimizer) if optimizer else ({}, [])
    for name, (var, _, _) in plan.items():
        var.assign(values[name])
    for slot_var, value in slot_values.values():
        slot_var.assign(value)

    renamed = {n: k for n, (_, k, _) in plan.items() if k != n}
    left = sorted(set(names) - set(plan))
    logger.info(
        "warm-started %d variables from %s: %s%s%s",
        len(plan),
        reader.path,
        sorted(plan),
        f" (renamed from {renamed})" if renamed else "",
        f" (vocabulary-remapped: {sorted(n for n in plan if plan[n][2])})"
        if any(p[2] for p in plan.values())
        else "",
    )
    if slot_values:
        logger.info("warm-started optimizer slots: %s", sorted(slot_values))
    if slots_left:
        logger.info("optimizer slots not in the checkpoint, left alone: %s", slots_left)
    logger.info("variables left alone by warm_start: %s", left)
    return list(plan)


def _slot_plan(reader, plan, optimizer):
    """``({description: (slot Variable, value)}, [slots left alone])`` for ``plan``'s slots."""
    optimizer.create_slots([var for var, _, _ in plan.values()])
    by_id = {id(var): name for name, (var, _, _) in plan.items()}
    values, left, problems = {}, [], []
    for var, slot_name, slot_var in optimizer.slot_items():
        name = by_id.get(id(var))
        if name is None:
            continue
        _, prev, info = plan[name]
        what = f"{name}/{SLOT_MARKER}/{slot_name}"
        key = _slot_source(reader, prev, slot_name)
        if key is None:
            left.append(what)
            continue
        if info is None:
            problem = shape_problem(what, slot_var, key, reader)
            if problem:
                problems.append(problem)
                continue
            values[what] = (slot_var, read_checked(reader, key, slot_var, what))
        else:
            current = np.asarray(to_host(slot_var.value)).copy()
            old = reader.get_tensor(key)
            problem = dtype_problem(key, old.dtype, slot_var.dtype, holder=f"slot {what!r}")
            if problem:
                problems.append(problem)
                continue
            values[what] = (slot_var, remap_by_vocab(old, info, current, what)[0])
    raise_problems(problems, "warm_start (optimizer slots)")
    return values, left
