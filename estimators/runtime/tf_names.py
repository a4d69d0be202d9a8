"""TF 2.15's names for a canned estimator's variables, and taking over a TF checkpoint.

A canned estimator's checkpoint (colonnade's own or TF's) names its arrays as TF 2.15's
canned estimators do:

- the network's variables without the ``model/`` attribute path:
  ``linear/linear_model/education/weights``, ``dnn/hiddenlayer_0/kernel``;
- a slot as Keras' legacy optimizers (what TF 2.15's canned estimators train with) name
  it: ``training/<optimizer name>/<variable>/<slot>``, e.g.
  ``training/Ftrl/linear/linear_model/education/weights/accumulator`` and ``.../linear``,
  ``training/Adagrad/dnn/logits/kernel/accumulator``;
- an optimizer's step count as ``training/<optimizer name>/iter``; ``global_step``.

TF also saves its optimizers' hyperparameters (``training/Ftrl/learning_rate``,
``training/Adagrad/decay``, ...) as scalars; colonnade's hyperparameters are arguments, so
they are neither saved nor read.

:func:`restore_tf_checkpoint` loads a TF checkpoint into an estimator, canned or a
``model_fn``'s: TF 2.15's names above, or TF 1.x's, as every ``tf.compat.v1.train``
optimizer names its slots (``<variable>/Adam`` and ``Adam_1``, ``/Momentum``,
``/Adagrad``, ``/Adadelta`` and ``_1``, ``/RMSProp`` and ``_1``, ``/Ftrl`` and ``_1``,
``/ProximalAdagrad``, ``/AdagradDA`` and ``_1``; ``<variable>/t_0/Adam`` or
``<variable>/part_0/Ftrl`` as ``tf.compat.v1`` estimators write them in TF 2; Adam's
``beta1_power`` at the top level or in a name scope; partitioned variables are joined by
the reader). Evaluate and predict restore the model's variables only, as TF's graphs of
those modes hold no optimizer.
"""

from __future__ import annotations

import logging

import numpy as np

from ... import core
from ...core.checkpoint import SAVE_COUNTER
from ...core.restore_checks import restore_problem, value_problem
from ...core.tf_bundle import first_overlap
from ...core.tf_bundle_writer import write_tf_bundle

logger = logging.getLogger("colonnade")

MODEL_PREFIX = "model/"
"""The attribute path of the network in the estimator's checkpoint object graph."""

SLOT_NAMES = {"accum": "accumulator"}
"""colonnade slot name -> Keras' (Ftrl's ``accum`` is Keras' ``accumulator``); the other
slots (``accumulator``, ``linear``, ``m``, ``v``, ``momentum``, ``rms``) share the name."""

NON_SLOT_NAMES = {"iterations": "iter"}
"""colonnade optimizer-level variable -> Keras' name."""

KERAS_RMSPROP = "training/RMSprop/"
"""Where Keras' RMSprop keeps its state (``rms`` from 0, epsilon added outside the root,
no ``momentum`` slot when momentum is 0): not TF1's ``RMSPropOptimizer``, so a TF
model_dir trained with ``"RMSProp"`` is refused with a hint to warm-start instead."""

DERIVED_NON_SLOTS = ("beta1_power", "beta2_power")
"""Adam's optimizer-level state that Keras' Adam does not keep: a TF checkpoint lacking
them gives ``beta^(iter + 1)`` (``AdamOptimizer.set_powers_from_step``)."""


def optimizer_prefixes(parts) -> dict:
    """``{part's checkpoint path: "training/<name>"}`` for the ``(path, optimizer, vars)``
    parts of an estimator; a second optimizer of the same name gets ``<name>_1``.

    >>> optimizer_prefixes([("linear_optimizer", core.FtrlOptimizer(0.1), []),
    ...                     ("dnn_optimizer", core.AdagradOptimizer(0.1), [])])
    {'linear_optimizer': 'training/Ftrl', 'dnn_optimizer': 'training/Adagrad'}
    """
    out, used = {}, {}
    for path, optimizer, _ in parts:
        get_name = getattr(optimizer, "get_name", None)
        name = get_name() if callable(get_name) else type(optimizer).__name__
        count = used.get(name, 0)
        used[name] = count + 1
        out[path] = f"training/{name}" + (f"_{count}" if count else "")
    return out


def key_map(prefixes: dict):
    """The ``key_map`` of :class:`colonnade.core.Checkpoint` giving TF's names.

    >>> k = key_map({"optimizer": "training/Ftrl"})
    >>> k("model/linear/linear_model/bias_weights", None)
    'linear/linear_model/bias_weights'
    >>> k("ignored", {"variable": "model/linear/linear_model/bias_weights",
    ...               "optimizer": "optimizer", "slot": "accum"})
    'training/Ftrl/linear/linear_model/bias_weights/accumulator'
    >>> k("optimizer/iterations", None), k("global_step", None)
    ('training/Ftrl/iter', 'global_step')
    """

    def rename(path: str, slot: dict | None) -> str:
        if slot is not None and slot.get("optimizer") in prefixes:
            variable = rename(slot["variable"], None)
            name = SLOT_NAMES.get(slot["slot"], slot["slot"])
            return f"{prefixes[slot['optimizer']]}/{variable}/{name}"
        if path.startswith(MODEL_PREFIX):
            return path[len(MODEL_PREFIX) :]
        owner, _, rest = path.partition("/")
        if owner in prefixes and rest:
            return f"{prefixes[owner]}/{NON_SLOT_NAMES.get(rest, rest)}"
        return path

    return rename


def _is_hyperparameter(name: str, shape) -> bool:
    """TF's optimizer hyperparameter scalars (``training/Ftrl/learning_rate``)."""
    parts = name.split("/")
    return len(parts) == 3 and parts[0] == "training" and tuple(shape) == ()


def _listing(names) -> str:
    names = sorted(names)
    shown = ", ".join(repr(n) for n in names[:20])
    return shown + (f", ... ({len(names) - 20} more)" if len(names) > 20 else "")


def expected_tf_variables(checkpoint, parts, optimizers, with_slots=True) -> dict:
    """``{TF name: (Variable, [other accepted names])}`` for every array an estimator's
    TF checkpoint provides: the network's variables, ``global_step`` and, ``with_slots``,
    each optimizer's slots and state (a canned part's slots made now when missing), with
    TF 1.x's slot names as alternatives. ``optimizers``: ``{checkpoint path: optimizer}``
    (a canned part's, or a ``model_fn``'s store's ``optimizer/<name>``)."""
    if with_slots:
        for _, optimizer, variables in parts:
            optimizer.create_slots(variables)
    rename = key_map(optimizer_prefixes(parts))
    graph = checkpoint.graph()
    out = {}
    for path, var in graph.variables.items():
        owner = path.rpartition("/")[0]
        if path == SAVE_COUNTER or (not with_slots and owner in optimizers):
            continue
        out[rename(path, None)] = (var, [])
    if not with_slots:
        return out
    for key, (var, meta) in graph.slots().items():
        suffix = optimizers[meta["optimizer"]].slot_suffixes()[meta["slot"]]
        variable = rename(meta["variable"], None)
        # TF 1.x: ``v/Adam``; tf.compat.v1 estimators in TF 2 write ``v/t_0/Adam``
        out[rename(key, meta)] = (var, [f"{variable}/{suffix}", f"{variable}/t_0/{suffix}"])
    return out


def _partitioned_slot(saved: dict, name: str):
    """TF 1.x keeps the slots of a partitioned variable per partition
    (``v/part_0/Ftrl``, ``v/part_1/Ftrl``): their names, in order, or None."""
    head, _, suffix = name.rpartition("/")
    parts = []
    while f"{head}/part_{len(parts)}/{suffix}" in saved:
        parts.append(f"{head}/part_{len(parts)}/{suffix}")
    return parts or None


def _find(saved: dict, names: list):
    """``(names in the checkpoint, joined shape)`` of the first of ``names`` present
    (whole, or as TF 1.x slot partitions), or None."""
    for name in names:
        if name in saved:
            return [name], tuple(saved[name])
        parts = _partitioned_slot(saved, name)
        if parts:  # each partition's slot is saved as a slice of the whole shape
            return parts, tuple(saved[parts[0]])
    return None


def _read(reader, names: tuple, shape: tuple) -> np.ndarray:
    """The array saved under ``names`` (one name, or a slot's TF 1.x partitions), its
    partitions checked to tile ``shape`` exactly: each of that whole shape, every slice
    inside it, none overlapping another, together covering it."""
    if len(names) == 1 and names[0] in reader.get_variable_to_shape_map():
        try:
            return np.asarray(reader.get_tensor(names[0]))
        except core.CheckpointCorruptedError:
            if not hasattr(reader, "get_slices"):
                raise
    where = f"TF checkpoint {reader.path}: the partitions {list(names)}"
    saved = reader.get_variable_to_shape_map()
    wholes = sorted({tuple(saved[n]) for n in names})
    if wholes != [tuple(shape)]:
        raise core.CheckpointCorruptedError(f"{where} are slices of {wholes}, not of {shape}")
    pieces = [piece for name in names for piece in reader.get_slices(name)]
    kinds = {array.dtype for _, array in pieces}
    if len(kinds) > 1:
        raise core.CheckpointCorruptedError(
            f"{where} have different dtypes {sorted(map(str, kinds))}"
        )
    boxes = np.array(
        [
            [i.indices(d)[:2] for i, d in zip(index, shape)] if index else [(0, d) for d in shape]
            for index, _ in pieces
        ],
        np.int64,
    ).reshape(len(pieces), len(shape), 2)
    volume = int(np.prod(boxes[..., 1] - boxes[..., 0], axis=1).sum())
    size = int(np.prod(shape, dtype=np.int64))
    if first_overlap(boxes) is not None:
        raise core.CheckpointCorruptedError(f"{where} do not tile shape {shape}: two overlap")
    if volume != size:
        raise core.CheckpointCorruptedError(
            f"{where} do not tile shape {shape}: they cover {volume} of its {size} elements"
        )
    full = np.zeros(shape, pieces[0][1].dtype)
    for index, array in pieces:
        full[index] = array
    return full


def _tf1_non_slot(saved: dict, name: str) -> list:
    """TF 1.x keeps Adam's ``beta1_power`` outside ``training/``: at the top level, or in
    the name scope the optimizer ran in (``dnn/head/beta1_power``)."""
    key = name.rpartition("/")[2]
    if key not in DERIVED_NON_SLOTS:
        return []
    return [n for n in saved if n.rpartition("/")[2] == key and not n.startswith("training/")]


DERIVED_FROM_STEP = ("iter", "iterations", *DERIVED_NON_SLOTS)
"""Optimizer state TF may lack, derived from ``global_step`` (TF keeps ``iter`` for the
first optimizer only; TF1's optimizers keep no step count; Keras' Adam no powers)."""

_reported = set()  # the TF checkpoints whose unused values were logged


class TFLayout:
    """What a TF checkpoint held, by TF's names, to write the estimator's state back in
    TF's format (:meth:`tensors`): each variable under the name and dtype it was read
    from, and what the model does not use (TF's optimizer hyperparameters, another
    mode's variables) as it was, so that TF restores the directory's newest checkpoint
    as its graph names it."""

    def __init__(self, variables: dict, dtypes: dict, carried: dict):
        self.variables = variables  # TF name -> Variable
        self.dtypes = dtypes  # TF name -> numpy dtype
        self.carried = carried  # TF name -> array

    @classmethod
    def of(cls, reader, matched: dict, extra: list):
        """The layout of a restore (``matched``: ``{saved names: Variable}``), or None
        when a variable was read from TF 1.x partitions (written back whole, TF would
        not find the slices)."""
        if any(len(names) > 1 for names in matched):
            return None
        dtypes = reader.get_variable_to_dtype_map()
        carried_names = set(reader.get_variable_to_shape_map()) - {n for (n,) in matched}
        carried_names = {n for n in carried_names if not n.startswith("_")}  # object graph
        carried = {n: np.asarray(reader.get_tensor(n)) for n in sorted(carried_names)}
        variables = {names[0]: var for names, var in matched.items()}
        return cls(variables, {n: np.dtype(dtypes[n]) for n in variables}, carried)

    def tensors(self) -> dict:
        """``{TF name: host array}`` of a checkpoint of the current state."""
        out = dict(self.carried)
        for name, var in self.variables.items():
            out[name] = np.asarray(var.numpy(), self.dtypes[name])
        return out


class TFBundleSaver:
    """What :class:`colonnade.core.CheckpointManager` saves with in a TF model_dir taken
    over: ``write(prefix)`` writes a TF tensor bundle of ``layout``'s tensors;
    ``save_counter`` is the estimator checkpoint's."""

    def __init__(self, checkpoint, layout: TFLayout):
        self.checkpoint, self.layout = checkpoint, layout

    @property
    def save_counter(self):
        """The count of saves (numbers the checkpoints without a global step)."""
        return self.checkpoint.save_counter

    def write(self, prefix) -> str:
        """Write TF checkpoint ``prefix``; its path."""
        write_tf_bundle(prefix, self.layout.tensors())
        return prefix


def restore_tf_checkpoint(path, checkpoint, parts, global_step, optimizers, with_slots=True):
    """Load TF checkpoint ``path`` into the estimator's variables (and, ``with_slots``,
    its optimizers' slots and state). With the slots, returns the :class:`TFLayout` to
    write the state back in TF's format (None when it cannot be); without, None.

    As TF's ``Saver``: every model variable must be in the checkpoint with the same
    shape and a dtype it may take (:mod:`colonnade.core.restore_checks`: a float32
    variable relabelled int32, or a string tensor, is refused), or ``ValueError`` names
    each variable with both shapes or dtypes and nothing is assigned; what the
    checkpoint holds beyond (another optimizer's slots, TF's optimizer hyperparameters,
    variables the graph of this mode does not make) is left unused, said once at INFO.
    Evaluate and predict restore only the model (``with_slots=False``): a model_dir
    trained with another optimizer predicts. Training needs every slot: one missing
    raises. An optimizer's step count or Adam's powers missing from the checkpoint are
    derived from ``global_step``.
    """
    reader = core.load_checkpoint(path)
    saved = reader.get_variable_to_shape_map()
    expected = expected_tf_variables(checkpoint, parts, optimizers, with_slots)
    matched, missing, problems = {}, [], []  # matched: tuple of saved names -> Variable
    restored = set()  # the expected names found
    for name, (var, alternatives) in expected.items():
        scoped = _tf1_non_slot(saved, name)
        scoped = scoped if len(scoped) == 1 else []  # two TF1 Adams: ambiguous, not guessed
        found = _find(saved, [name, *alternatives, *scoped])
        if found is None:
            if name.rpartition("/")[2] in DERIVED_FROM_STEP:
                continue  # filled from global_step below
            missing.append(name)
            continue
        names, shape = found
        matched[tuple(names)] = var
        restored.add(name)
        dtypes = {reader.get_variable_to_dtype_map()[n] for n in names}
        problems += [restore_problem(names[0], shape, d, var.shape, var.dtype) for d in dtypes]
    used = {n for names in matched for n in names}
    extra = [
        n
        for n, shape in saved.items()
        if n not in used and not _is_hyperparameter(n, shape) and not n.startswith("_")
    ]
    if missing:
        _refuse(path, missing, extra)
    _refuse_mismatch(path, problems)
    made = any(name != "global_step" for name in expected)  # a model_fn makes them on first call
    if extra and made and (path, with_slots) not in _reported:
        _reported.add((path, with_slots))
        logger.info(
            "restoring TF checkpoint %s: %d saved values not used by this model (as TF's "
            "Saver ignores them): %s",
            path,
            len(extra),
            _listing(extra),
        )
    values = {names: _read(reader, names, tuple(var.shape)) for names, var in matched.items()}
    _refuse_mismatch(
        path,
        [value_problem(n[0], values[n], var.shape, var.dtype) for n, var in matched.items()],
    )
    for names, var in matched.items():
        var.assign(values[names])
    if not with_slots:
        return None
    step = np.int64(global_step.numpy())
    for name, (var, _) in expected.items():
        if name.rpartition("/")[2] in ("iter", "iterations") and name not in restored:
            var.assign(step)
    for optimizer in optimizers.values():
        powers = [
            name
            for name, (var, _) in expected.items()
            if name.rpartition("/")[2] in DERIVED_NON_SLOTS
            and any(var is v for v in optimizer.non_slot_variables().values())
        ]
        if any(name not in restored for name in powers):
            optimizer.set_powers_from_step()
    return TFLayout.of(reader, matched, extra)


def _refuse_mismatch(path, problems) -> None:
    """The ``ValueError`` of a TF checkpoint whose arrays differ from the model's variables
    in shape or dtype (:mod:`colonnade.core.restore_checks`), naming each."""
    problems = [p for p in problems if p]
    if problems:
        raise ValueError(f"cannot restore TF checkpoint {path}: " + "; ".join(problems))


def _refuse(path, missing, extra) -> None:
    """The ``ValueError`` of a TF checkpoint that lacks variables of the model."""
    what = [f"the model has variables the checkpoint lacks: {_listing(missing)}"]
    if extra:
        what.append(f"the checkpoint has variables the model lacks: {_listing(extra)}")
    hint = ""
    if any(n.startswith(KERAS_RMSPROP) for n in extra):
        hint = (
            f" (its optimizer is Keras' RMSprop, {KERAS_RMSPROP}...: its state is not "
            "TF1's RMSPropOptimizer's and cannot be taken over; warm-start the weights "
            "into a new model_dir: warm_start_from=WarmStartSettings(<this model_dir>, "
            "vars_to_warm_start='^(dnn|linear)/'))"
        )
    raise ValueError(
        f"TF checkpoint {path} does not match the model's columns and layers: "
        + "; ".join(what)
        + ". Build the estimator with the columns, hidden units and optimizers the TF "
        "model was trained with, or start from it with warm_start_from" + hint
    )
