"""Object-based checkpoints: ``Checkpoint``, ``CheckpointManager`` and restore statuses.

``Checkpoint(**trackables)`` saves every array reachable from its arguments, each under
its *attribute path* (one ``(owner, slot) -> key`` rule for the whole library):

- a ``Variable`` at path ``p`` is saved as ``p`` (``model/dense/kernel``);
- an object with ``checkpoint_children()`` (name -> child) is walked, the children under
  ``p/name``; so are dicts (keys as names), lists and tuples (indices as names);
- an *optimizer* (``slot_items()``, ``non_slot_variables()``, ``create_slots(vars)``) saves
  its non-slot variables under ``p/name`` (``optimizer/iterations``) and the slot
  ``slot_name`` of variable ``v`` under ``<path of v>/.OPTIMIZER_SLOT/p/slot_name``
  (TF's object-based convention), so slots follow variables by path, not by identity;
- an object with ``state_dict()`` / ``load_state_dict(d)`` saves each entry under
  ``p/key`` (arrays as arrays, Python numbers and strings come back as such);
- any other object passed to ``Checkpoint`` directly is walked through its public
  attributes (as TF's AutoTrackable), keeping those that are trackable by the rules above.
  Private attributes (``_x``) are not walked; expose them with ``checkpoint_children``.

The graph is walked breadth first, in insertion order; an object reached twice is saved
once, under its first (shortest) path. ``Variable.name`` plays no part in the keys.

Restore walks the current objects first, asks each optimizer to ``create_slots`` for the
variables that have saved slots (so a freshly built model and optimizer can be restored
before their first step), checks every shape, reads and verifies every array, and only then
assigns: a failed restore changes nothing. Values go through ``Variable.assign``, so they
land on the variable's own backend (numpy or cupy).

>>> import tempfile, numpy as np
>>> w = Variable(np.ones((2, 1), np.float32))
>>> ckpt = Checkpoint(model={"w": w})
>>> path = ckpt.save(tempfile.mkdtemp() + "/ckpt")
>>> w.assign(np.zeros((2, 1)))  # doctest: +ELLIPSIS
Variable(...)
>>> ckpt.restore(path).assert_consumed()  # doctest: +ELLIPSIS
<...CheckpointLoadStatus...>
>>> w.numpy().ravel().tolist()
[1.0, 1.0]

The on-disk format, and how to read it without colonnade, is described in
:mod:`colonnade.core.checkpoint_format`.
"""

from __future__ import annotations

import collections
import os
import time

import numpy as np

from .checkpoint_graph import (
    SAVE_COUNTER,
    SLOT_MARKER,
    ObjectGraph,
    is_plain_object,
    is_trackable,
    python_value,
    slot_key,
)
from .checkpoint_manager import CheckpointManager, is_recorded, undo_write
from .checkpoint_reader import CheckpointReader
from .checkpoint_state import update_checkpoint_state
from .checkpoint_status import CheckpointLoadStatus, InitializationOnlyStatus
from .checkpoint_writer import write_checkpoint
from .restore_checks import restore_problem, value_problem
from .variables import Variable

__all__ = [
    "SAVE_COUNTER",
    "SLOT_MARKER",
    "Checkpoint",
    "CheckpointLoadStatus",
    "CheckpointManager",
    "InitializationOnlyStatus",
    "ObjectGraph",
    "slot_key",
]


# --------------------------------------------------------------------------- Checkpoint


class Checkpoint:
    """Saves and restores a group of trackable objects (``tf.train.Checkpoint``).

    ``Checkpoint(model=model, optimizer=opt, step=global_step)``: each keyword is the first
    part of the paths below it (see the module docstring for the naming rule). Objects
    assigned later as public attributes (``ckpt.ema = ema``) are tracked too.
    ``save_counter`` (an int64 ``Variable``, saved with the checkpoint) counts ``save``
    calls and numbers the files.

    ``key_map(path, slot_metadata) -> key`` (optional) renames what is saved: the canned
    estimators save under TF's names (``linear/linear_model/x/weights``) instead of the
    attribute paths. ``slot_metadata`` is ``None`` for a variable, and for a slot a dict
    with the ``variable`` and ``optimizer`` paths and the ``slot`` name. ``restore`` matches
    a saved key to an object by its renamed key or by its path, so checkpoints written
    before a ``key_map`` was given still load.

    >>> import tempfile
    >>> step = Variable(np.int64(5), trainable=False)
    >>> ckpt = Checkpoint(step=step)
    >>> d = tempfile.mkdtemp()
    >>> ckpt.save(d + "/ckpt") == d + "/ckpt-1", int(ckpt.save_counter.numpy())
    (True, 1)
    """

    def __init__(self, *, key_map=None, **trackables):
        object.__setattr__(self, "_children", {})
        object.__setattr__(self, "_key_map", key_map)
        object.__setattr__(
            self, "_save_counter", Variable(np.int64(0), name=SAVE_COUNTER, trainable=False)
        )
        for name, obj in trackables.items():
            setattr(self, name, obj)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        if hasattr(type(self), name):
            raise ValueError(
                f"{name!r} is reserved by Checkpoint; save the object under another name"
            )
        if not (is_trackable(value) or is_plain_object(value)):
            raise ValueError(  # TF raises ValueError for an object it cannot track
                f"Checkpoint({name}=...) expects a Variable, an optimizer, an object with "
                "state_dict()/load_state_dict() or checkpoint_children(), a dict/list of "
                f"those, or an object whose attributes hold them; got {type(value).__name__}"
            )
        self._children[name] = value
        object.__setattr__(self, name, value)

    @property
    def save_counter(self) -> Variable:
        """The number of ``save`` calls (restored from the checkpoint by ``restore``)."""
        return self._save_counter

    def graph(self) -> ObjectGraph:
        """The objects this checkpoint saves, by graph path: ``variables`` (path ->
        Variable), ``optimizers`` and ``slots()`` (what a name map such as TF's needs)."""
        return ObjectGraph({**self._children, SAVE_COUNTER: self._save_counter})

    def _key(self, path: str, meta: dict | None = None) -> str:
        """The saved key of the object at graph path ``path`` (``meta``: a slot's)."""
        if self._key_map is None or path == SAVE_COUNTER:
            return path
        return self._key_map(path, meta)

    def named_variables(self, include_slots: bool = False) -> dict:
        """``{checkpoint key: Variable}`` for the tracked variables (``save_counter`` aside).

        The keys are the names ``list_variables`` shows for a checkpoint of these objects,
        so the dict can be passed as ``variables`` to ``warm_start``.

        >>> Checkpoint(model={"w": Variable([1.0])}).named_variables()
        {'model/w': Variable(name='Variable', shape=(1,), dtype=float32)}
        """
        graph = self.graph()
        out = {self._key(k): v for k, v in graph.variables.items() if k != SAVE_COUNTER}
        if include_slots:
            out.update({self._key(k, m): v for k, (v, m) in graph.slots().items()})
        return out

    def write(self, file_prefix) -> str:
        """Write a checkpoint at exactly ``file_prefix`` (no numbering, no state file).

        An existing checkpoint there is never replaced by different values
        (``FileExistsError``); one holding the same values is kept, ``save_counter`` aside
        (see :func:`~colonnade.core.checkpoint_format.write_checkpoint`)."""
        graph = self.graph()
        entries = {
            self._key(path): (var.value, {"kind": "variable", "variable_name": var.name})
            for path, var in graph.variables.items()
        }
        slots = {self._key(k, meta): (v, meta) for k, (v, meta) in graph.slots().items()}
        for key, (value, meta) in {**slots, **graph.state_entries()}.items():
            if key in entries:
                raise ValueError(f"two different values would be saved under the key {key!r}")
            entries[key] = (getattr(value, "value", value), meta)
        return write_checkpoint(file_prefix, entries, bookkeeping_keys=(SAVE_COUNTER,))

    def save(self, file_prefix) -> str:
        """Increment ``save_counter``, write ``f"{file_prefix}-{save_counter}"`` and make it
        the latest checkpoint in its directory's state file. Returns its path. Interrupted
        before the state file names it, nothing of it is left (see
        :meth:`CheckpointManager.save`)."""
        file_prefix = os.fspath(file_prefix)
        directory = os.path.dirname(file_prefix) or "."
        self._save_counter.assign_add(1)
        path = f"{file_prefix}-{int(self._save_counter.numpy())}"
        existed, recording = os.path.lexists(path), False
        try:
            self.write(path)
            recording = True
            now = time.time()  # stamped as preserved: a CheckpointManager leaves it alone
            update_checkpoint_state(directory, path, [path], None, [now], now)
        except BaseException:
            if not (recording and is_recorded(directory, path)):
                undo_write(path, existed)
                self._save_counter.assign_sub(1)
            raise
        return path

    def restore(self, save_path):
        """Load values from ``save_path`` (a checkpoint, or a directory: its latest).

        Returns a :class:`CheckpointLoadStatus` (``InitializationOnlyStatus`` for ``None``,
        to allow ``ckpt.restore(manager.latest_checkpoint)`` on a first run). Raises
        ``ValueError`` naming the path, the key and both shapes or dtypes when an array may
        not go into its object (:mod:`colonnade.core.restore_checks`), and
        ``CheckpointCorruptedError`` on a damaged file; in both cases nothing is assigned.
        """
        if save_path is None:
            return InitializationOnlyStatus()
        reader = CheckpointReader(save_path)
        saved = {key: reader.metadata(key) for key in reader.keys()}
        graph = self.graph()

        # slots first: a fresh optimizer creates the slots the checkpoint has values for
        wanted = collections.defaultdict(list)
        for meta in saved.values():
            if meta.get("kind") != "slot":
                continue
            var = graph.variables.get(meta["variable"])
            if meta["optimizer"] in graph.optimizers and var is not None:
                if all(v is not var for v in wanted[meta["optimizer"]]):
                    wanted[meta["optimizer"]].append(var)
        for opt_path, var_list in wanted.items():
            graph.optimizers[opt_path].create_slots(var_list)
        if wanted:  # create_slots may also have made non-slot state (Adam's beta powers)
            graph = self.graph()

        # by saved key; by graph path too, so checkpoints written before a key_map still load
        targets = dict(graph.variables)
        targets.update({k: v for k, (v, _) in graph.slots().items()})
        renamed = {self._key(k): v for k, v in graph.variables.items()}
        renamed.update({self._key(k, m): v for k, (v, m) in graph.slots().items()})
        for key, var in renamed.items():
            targets.setdefault(key, var)
        state_current = {
            path: {str(k) for k in obj.state_dict()} for path, obj in graph.stateful.items()
        }

        matched, state_matched, unused = {}, collections.defaultdict(dict), []
        for key, meta in saved.items():
            if meta.get("kind") == "state":
                if meta["owner"] in graph.stateful:
                    state_matched[meta["owner"]][meta["key"]] = key
                else:
                    unused.append(key)
            elif key in targets:
                matched[key] = targets[key]
            else:
                unused.append(key)
        self._check_compatible(reader, saved, matched)

        values = {key: reader.get_tensor(key) for key in matched}
        _refuse(
            reader.path,
            [
                value_problem(key, values[key], var.shape, var.dtype, holder="the object")
                for key, var in matched.items()
            ],
        )
        state_values = {
            owner: {
                name: python_value(reader.get_tensor(key), saved[key].get("python_type"))
                for name, key in entries.items()
            }
            for owner, entries in state_matched.items()
        }
        for key, var in matched.items():
            var.assign(values[key])
        for owner, d in state_values.items():
            graph.stateful[owner].load_state_dict(d)

        got = {id(var) for var in matched.values()}
        unmatched = [
            self._key(k, m)
            for k, (var, m) in {
                **{k: (v, None) for k, v in graph.variables.items()},
                **graph.slots(),
            }.items()
            if id(var) not in got and k != SAVE_COUNTER
        ]
        for path, names in state_current.items():
            unmatched += [f"{path}/{n}" for n in names if n not in state_matched.get(path, {})]
        restored = list(matched) + [k for e in state_matched.values() for k in e.values()]
        return CheckpointLoadStatus(reader.path, restored, unused, unmatched)

    @staticmethod
    def _check_compatible(reader, saved, matched):
        problems = [
            restore_problem(
                key,
                saved[key]["shape"],
                saved[key]["dtype"],
                var.shape,
                var.dtype,
                holder="the object",
            )
            for key, var in matched.items()
        ]
        _refuse(reader.path, problems)


def _refuse(path, problems) -> None:
    problems = [p for p in problems if p]
    if problems:
        raise ValueError(f"cannot restore checkpoint {path}: " + "; ".join(problems))
