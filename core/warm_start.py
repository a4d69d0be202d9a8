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

import dataclasses
import difflib
import inspect
import logging
import os
import re
from collections.abc import Callable, Sequence

import numpy as np

from .backend import to_host
from .checkpoint import SLOT_MARKER
from .checkpoint_reader import CheckpointReader, load_checkpoint
from .restore_checks import dtype_problem, value_problem
from .variables import Variable

logger = logging.getLogger("colonnade")


# --------------------------------------------------------------------------- VocabInfo


def _read_vocab(vocab, size: int, what: str) -> list:
    if isinstance(vocab, (str, os.PathLike)):
        with open(vocab, encoding="utf-8") as f:
            tokens = [line.rstrip("\r\n") for line in f]
        source = f"vocabulary file {os.fspath(vocab)!r}"
    else:
        tokens = [t.decode("utf-8") if isinstance(t, bytes) else str(t) for t in vocab]
        source = f"{what} list"
    if size != -1:
        if size > len(tokens):
            raise ValueError(f"{what}_size={size} but the {source} has only {len(tokens)} entries")
        tokens = tokens[:size]
    seen = set()
    for t in tokens:
        if t in seen:
            raise ValueError(f"the {source} lists the token {t!r} twice; tokens must be unique")
        seen.add(t)
    return tokens


@dataclasses.dataclass(frozen=True)
class VocabInfo:
    """How a vocabulary-indexed variable's rows (or columns) map from an old vocabulary.

    ``new_vocab`` / ``old_vocab``: a vocabulary file (one token per line, as TF) or a
    sequence of tokens (compared as strings). The variable has ``new_vocab_size +
    num_oov_buckets`` entries along ``axis``: the first ``new_vocab_size`` tokens of
    ``new_vocab``, then the OOV buckets. The checkpoint's array was built from the first
    ``old_vocab_size`` tokens of ``old_vocab`` (``-1``: all); any further (OOV) entries of it
    are ignored. Each new token found in the old vocabulary takes its old row; new tokens
    and OOV buckets take ``backup_initializer(shape, dtype)`` (an initializer from
    ``cn.core.initializers`` or any such callable; zeros when ``None``, as TF). ``axis=0``
    remaps rows (embeddings, linear weights), ``axis=1`` columns (an output layer over a
    class vocabulary).

    >>> info = VocabInfo(["x", "y"], 2, 0, old_vocab=["y", "z", "x"], old_vocab_size=2)
    >>> info.new_tokens(), info.old_tokens()
    (['x', 'y'], ['y', 'z'])
    """

    new_vocab: str | os.PathLike | Sequence
    new_vocab_size: int
    num_oov_buckets: int
    old_vocab: str | os.PathLike | Sequence
    old_vocab_size: int = -1
    backup_initializer: Callable | None = None
    axis: int = 0

    def __post_init__(self):
        if self.axis not in (0, 1):
            raise ValueError(f"VocabInfo axis must be 0 (rows) or 1 (columns), got {self.axis!r}")
        if not isinstance(self.new_vocab_size, int) or self.new_vocab_size <= 0:
            raise ValueError(
                f"VocabInfo new_vocab_size must be a positive int, got {self.new_vocab_size!r}"
            )
        if not isinstance(self.num_oov_buckets, int) or self.num_oov_buckets < 0:
            raise ValueError(
                f"VocabInfo num_oov_buckets must be an int >= 0, got {self.num_oov_buckets!r}"
            )
        if not isinstance(self.old_vocab_size, int) or not (
            self.old_vocab_size == -1 or self.old_vocab_size > 0
        ):
            raise ValueError(
                f"VocabInfo old_vocab_size must be -1 (all) or a positive int, "
                f"got {self.old_vocab_size!r}"
            )
        if self.backup_initializer is not None and not callable(self.backup_initializer):
            raise TypeError("VocabInfo backup_initializer must be callable(shape, dtype) or None")

    def new_tokens(self) -> list:
        """The first ``new_vocab_size`` tokens of the new vocabulary, as strings."""
        return _read_vocab(self.new_vocab, self.new_vocab_size, "new_vocab")

    def old_tokens(self) -> list:
        """The first ``old_vocab_size`` tokens of the old vocabulary (all for ``-1``)."""
        return _read_vocab(self.old_vocab, self.old_vocab_size, "old_vocab")


def _backup_values(info: VocabInfo, shape, dtype, rng=None) -> np.ndarray:
    if info.backup_initializer is None:
        return np.zeros(shape, dtype)
    init = info.backup_initializer
    try:
        takes_rng = "rng" in inspect.signature(init).parameters
    except (TypeError, ValueError):  # builtins without a signature
        takes_rng = False
    args = (tuple(shape), np.dtype(dtype)) + ((rng,) if takes_rng else ())
    values = np.asarray(to_host(init(*args)))
    if values.shape != tuple(shape):
        raise ValueError(
            f"backup_initializer returned shape {values.shape}, expected {tuple(shape)}"
        )
    return values.astype(dtype, copy=True)


def remap_by_vocab(old: np.ndarray, info: VocabInfo, backup: np.ndarray, name: str = "variable"):
    """``backup`` with the entries of new tokens found in the old vocabulary taken from ``old``.

    ``backup`` has the new variable's shape and supplies new tokens and OOV buckets. Returns
    ``(array, number of tokens found)``. Raises ``ValueError`` naming ``name`` and the shapes
    when they do not fit ``info``.

    >>> info = VocabInfo(["b", "new", "a"], 3, 1, old_vocab=["a", "b"])
    >>> out, found = remap_by_vocab(np.array([[1, 2], [3, 4], [9, 9]]), info,
    ...                             np.full((4, 2), -1), "w")
    >>> out.tolist(), found
    ([[3, 4], [-1, -1], [1, 2], [-1, -1]], 2)
    """
    axis = info.axis
    new_tokens, old_tokens = info.new_tokens(), info.old_tokens()
    if backup.ndim <= axis or old.ndim != backup.ndim:
        raise ValueError(
            f"cannot remap {name!r} along axis {axis}: it has shape {backup.shape} and the "
            f"checkpoint has {old.shape}"
        )
    expected = info.new_vocab_size + info.num_oov_buckets
    if backup.shape[axis] != expected:
        raise ValueError(
            f"variable {name!r} has {backup.shape[axis]} entries along axis {axis} (shape "
            f"{backup.shape}), but its VocabInfo implies new_vocab_size + num_oov_buckets = "
            f"{info.new_vocab_size} + {info.num_oov_buckets} = {expected}"
        )
    if old.shape[axis] < len(old_tokens):
        raise ValueError(
            f"the checkpoint's {name!r} has {old.shape[axis]} entries along axis {axis} (shape "
            f"{old.shape}), fewer than the {len(old_tokens)} tokens of its old vocabulary"
        )
    rest_old = old.shape[:axis] + old.shape[axis + 1 :]
    rest_new = backup.shape[:axis] + backup.shape[axis + 1 :]
    if rest_old != rest_new:
        raise ValueError(
            f"cannot remap {name!r}: apart from axis {axis}, its shape {backup.shape} must "
            f"match the checkpoint's {old.shape}"
        )
    old_position = {t: i for i, t in enumerate(old_tokens)}
    pairs = [(i, old_position[t]) for i, t in enumerate(new_tokens) if t in old_position]
    out = backup.copy()
    if pairs:
        new_idx, old_idx = (np.array(p) for p in zip(*pairs))
        where = [slice(None)] * out.ndim
        where[axis] = new_idx
        out[tuple(where)] = np.take(old, old_idx, axis=axis)
    return out, len(pairs)


# --------------------------------------------------------------------------- helpers


def _name_map(variables) -> dict:
    if variables is None:
        raise ValueError(
            "pass the target variables as variables=[Variable, ...] or {name: Variable}; "
            "colonnade keeps no global variable collection"
        )
    if callable(getattr(variables, "named_variables", None)):
        variables = variables.named_variables()
    if isinstance(variables, dict):
        out = {}
        for name, var in variables.items():
            if not isinstance(var, Variable):
                raise TypeError(f"variables[{name!r}] is a {type(var).__name__}, not a Variable")
            out[str(name)] = var
        return out
    out = {}
    for var in variables:
        if not isinstance(var, Variable):
            raise TypeError(f"variables must hold Variables, got a {type(var).__name__}")
        if var.name in out and out[var.name] is not var:
            raise ValueError(
                f"two variables are named {var.name!r}; pass variables as a dict name -> "
                "Variable to tell them apart"
            )
        out[var.name] = var
    return out


def _name_of(var: Variable, names: dict) -> str:
    for name, v in names.items():
        if v is var:
            return name
    return var.name


def _missing(key: str, reader: CheckpointReader) -> str:
    close = difflib.get_close_matches(key, reader.keys(), n=3)
    hint = f" (similar: {close})" if close else ""
    return f"{key!r} is not in checkpoint {reader.path}{hint}"


def _shape_problem(name, var, key, reader) -> str | None:
    shape = tuple(reader.get_variable_to_shape_map()[key])
    if shape != tuple(var.shape):
        return (
            f"variable {name!r} has shape {tuple(var.shape)} but {key!r} in the checkpoint "
            f"has shape {shape}"
        )
    old = reader.get_variable_to_dtype_map()[key]
    return dtype_problem(key, old, var.dtype, holder=f"variable {name!r}")


def _raise_problems(problems, what):
    if problems:
        raise ValueError(f"{what}: " + "; ".join(problems))


# --------------------------------------------------------------------------- init_from_checkpoint


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


def _read_checked(reader, key: str, var, name: str) -> np.ndarray:
    """The array ``key`` read, checked again as read (dtype, shape, integer range): the
    index is someone else's word (:func:`~colonnade.core.restore_checks.value_problem`)."""
    value = reader.get_tensor(key)
    if isinstance(var, list):
        problems = [
            dtype_problem(key, value.dtype, part.dtype, holder=f"partition {part.name!r}")
            for part in var
        ]
    else:
        problems = [value_problem(key, value, var.shape, var.dtype, holder=f"variable {name!r}")]
    _raise_problems([p for p in problems if p], f"cannot restore from {reader.path}")
    return value


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
    names = _name_map(variables) if (variables is not None or needs_names) else {}
    plan, problems = {}, []  # current name -> (Variable or list of partitions, checkpoint key)
    for ckpt_name, current in sorted(pairs, key=lambda kv: kv[0]):
        if isinstance(current, (Variable, list, tuple)):
            if ckpt_name.endswith("/"):
                problems.append(f"scope {ckpt_name!r} must map to a scope, not to a variable")
                continue
            if isinstance(current, Variable):
                plan[_name_of(current, names)] = (current, ckpt_name)
            else:
                plan[",".join(_name_of(v, names) for v in current)] = (list(current), ckpt_name)
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
            problems.append(_missing(key, reader) + f", needed for variable {name!r}")
        elif isinstance(var, list):
            problems.append(_partition_problem(var, key, reader))
        else:
            problems.append(_shape_problem(name, var, key, reader))
    _raise_problems([p for p in problems if p], "init_from_checkpoint")
    values = {name: _read_checked(reader, key, var, name) for name, (var, key) in plan.items()}
    for name, (var, _) in plan.items():
        if isinstance(var, list):
            for part, value in zip(var, _split_into(values[name], var)):
                part.assign(value)
        else:
            var.assign(values[name])
    loaded = {name: key for name, (_, key) in sorted(plan.items())}
    logger.info("initialized %d variables from %s: %s", len(loaded), reader.path, loaded)
    return loaded


# --------------------------------------------------------------------------- warm_start


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
                name = _name_of(var, names)
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
    names = _name_map(variables)
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
            problems.append(_missing(key, reader) + f", needed for variable {name!r}")
        elif info is None:
            problems.append(_shape_problem(name, var, key, reader))
        else:
            old = reader.get_variable_to_dtype_map()[key]
            problems.append(dtype_problem(key, old, var.dtype, holder=f"variable {name!r}"))
        plan[name] = (var, key, info)
    _raise_problems([p for p in problems if p], "warm_start")

    values = {}
    for name, (var, key, info) in plan.items():
        if info is None:
            values[name] = _read_checked(reader, key, var, name)
            continue
        old = reader.get_tensor(key)
        problem = dtype_problem(key, old.dtype, var.dtype, holder=f"variable {name!r}")
        _raise_problems([problem] if problem else [], f"cannot restore from {reader.path}")
        backup = _backup_values(info, var.shape, np.dtype(var.dtype), rng)
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
            problem = _shape_problem(what, slot_var, key, reader)
            if problem:
                problems.append(problem)
                continue
            values[what] = (slot_var, _read_checked(reader, key, slot_var, what))
        else:
            current = np.asarray(to_host(slot_var.value)).copy()
            old = reader.get_tensor(key)
            problem = dtype_problem(key, old.dtype, slot_var.dtype, holder=f"slot {what!r}")
            if problem:
                problems.append(problem)
                continue
            values[what] = (slot_var, remap_by_vocab(old, info, current, what)[0])
    _raise_problems(problems, "warm_start (optimizer slots)")
    return values, left
