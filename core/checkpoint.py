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
import functools
import logging
import os
import time
import types

import numpy as np

from .atomic_files import TMP_MARKER, remove_debris
from .autodiff import value_of
from .backend import to_host
from .checkpoint_discovery import latest_checkpoint
from .checkpoint_errors import CheckpointCorruptedError
from .checkpoint_reader import CheckpointReader
from .checkpoint_state import get_checkpoint_state, update_checkpoint_state
from .checkpoint_writer import delete_checkpoint, sweep_checkpoint, write_checkpoint
from .restore_checks import restore_problem, value_problem
from .variables import Variable

logger = logging.getLogger("colonnade")

SLOT_MARKER = ".OPTIMIZER_SLOT"
"""Path part separating a variable's path from its optimizer slot: ``v/.OPTIMIZER_SLOT/opt/m``."""

SAVE_COUNTER = "save_counter"


def slot_key(variable_path: str, optimizer_path: str, slot_name: str) -> str:
    """The checkpoint key of an optimizer slot.

    >>> slot_key("model/dense/kernel", "optimizer", "m")
    'model/dense/kernel/.OPTIMIZER_SLOT/optimizer/m'
    """
    return f"{variable_path}/{SLOT_MARKER}/{optimizer_path}/{slot_name}"


# --------------------------------------------------------------------------- object graph


def _is_optimizer(obj) -> bool:
    return all(
        callable(getattr(obj, m, None))
        for m in ("slot_items", "non_slot_variables", "create_slots")
    )


def _has_state_dict(obj) -> bool:
    return callable(getattr(obj, "state_dict", None)) and callable(
        getattr(obj, "load_state_dict", None)
    )


def _has_children(obj) -> bool:
    return callable(getattr(obj, "checkpoint_children", None))


def _is_trackable(obj) -> bool:
    return (
        isinstance(obj, (Variable, dict, list, tuple))
        or _is_optimizer(obj)
        or _has_state_dict(obj)
        or _has_children(obj)
    )


def _is_plain_object(obj) -> bool:
    not_plain = (type, types.FunctionType, types.MethodType, types.ModuleType, functools.partial)
    return hasattr(obj, "__dict__") and not isinstance(obj, not_plain)


class ObjectGraph:
    """The trackable objects reachable from a set of roots, by path."""

    def __init__(self, roots: dict):
        self.variables = {}  # path -> Variable (first path only)
        self.var_paths = {}  # id(Variable) -> path
        self.optimizers = {}  # path -> optimizer
        self.stateful = {}  # path -> object with state_dict
        seen = set()
        queue = collections.deque((name, obj, True) for name, obj in roots.items())
        while queue:
            path, obj, is_root = queue.popleft()
            if isinstance(obj, Variable):
                if id(obj) in self.var_paths:
                    continue
                self._claim(path)
                self.variables[path] = obj
                self.var_paths[id(obj)] = path
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if _is_optimizer(obj):
                self._claim(path)
                self.optimizers[path] = obj
                children = list(obj.non_slot_variables().items())
                if _has_children(obj):
                    children += list(obj.checkpoint_children().items())
            elif _has_state_dict(obj):
                self._claim(path)
                self.stateful[path] = obj
                continue
            elif _has_children(obj):
                children = list(obj.checkpoint_children().items())
            elif isinstance(obj, dict):
                children = [(str(k), v) for k, v in obj.items()]
            elif isinstance(obj, (list, tuple)):
                children = [(str(i), v) for i, v in enumerate(obj)]
            elif is_root and _is_plain_object(obj):
                children = [(k, v) for k, v in vars(obj).items() if not k.startswith("_")]
            else:
                continue
            for name, child in children:
                if _is_trackable(child):
                    queue.append((f"{path}/{name}", child, False))

    def _claim(self, path):
        if path in self.variables or path in self.optimizers or path in self.stateful:
            raise ValueError(
                f"two different objects are reachable under the checkpoint path {path!r}; "
                "give them distinct names"
            )

    def slots(self):
        """``{key: (slot Variable, metadata)}`` for every slot of a variable in the graph."""
        out = {}
        for opt_path, opt in self.optimizers.items():
            for var, slot_name, slot_var in opt.slot_items():
                var_path = self.var_paths.get(id(var))
                if var_path is None:
                    logger.warning(
                        "slot %r of variable %r of optimizer %r is not saved: the variable is "
                        "not reachable from the checkpoint's objects",
                        slot_name,
                        getattr(var, "name", var),
                        opt_path,
                    )
                    continue
                meta = {
                    "kind": "slot",
                    "variable": var_path,
                    "optimizer": opt_path,
                    "slot": slot_name,
                }
                out[slot_key(var_path, opt_path, slot_name)] = (slot_var, meta)
        return out

    def state_entries(self):
        """``{key: (value, metadata)}`` for every entry of every ``state_dict()``."""
        out = {}
        for path, obj in self.stateful.items():
            for key, value in obj.state_dict().items():
                meta = {"kind": "state", "owner": path, "key": str(key)}
                if isinstance(value, (bool, int, float, str)) and not isinstance(value, np.generic):
                    meta["python_type"] = type(value).__name__
                elif not hasattr(value, "shape") and not isinstance(value, np.generic):
                    raise TypeError(
                        f"state_dict() of {path!r} returned {type(value).__name__} for key "
                        f"{key!r}; checkpoints store arrays, Python numbers and strings"
                    )
                out[f"{path}/{key}"] = (value, meta)
        return out


def _python_value(arr: np.ndarray, python_type: str | None):
    if python_type is None:
        return arr
    return {"bool": bool, "int": int, "float": float, "str": str}[python_type](arr.item())


# --------------------------------------------------------------------------- restore status


def _listing(items, limit=10) -> str:
    items = sorted(items)
    shown = ", ".join(repr(i) for i in items[:limit])
    return shown + (f", ... ({len(items) - limit} more)" if len(items) > limit else "")


class CheckpointLoadStatus:
    """What a :meth:`Checkpoint.restore` matched, with TF's assertions.

    ``unused_keys``: saved values with no matching object. ``unmatched_objects``: paths of
    current objects that got no value. Each assertion returns the status, so they chain.

    - ``assert_consumed()``: both lists are empty — the checkpoint and the objects match
      exactly.
    - ``assert_existing_objects_matched()``: every current object got a value; extra saved
      values are fine (loading only the model from a training checkpoint).
    - ``assert_nontrivial_match()``: at least one value was restored.
    - ``expect_partial()``: silences the warning about unused values logged when the status
      is garbage collected.
    """

    def __init__(self, path, restored, unused_keys, unmatched_objects):
        self.path = path
        self.restored_keys = sorted(restored)
        self.unused_keys = sorted(unused_keys)
        self.unmatched_objects = sorted(unmatched_objects)
        self._silenced = False

    def assert_consumed(self):
        """Raise ``AssertionError`` unless every saved value and every object were matched."""
        self.assert_existing_objects_matched()
        if self.unused_keys:
            raise AssertionError(
                f"unused values in checkpoint {self.path}: {_listing(self.unused_keys)}; no "
                "current object has these paths (use assert_existing_objects_matched() or "
                "expect_partial() when restoring only part of a checkpoint)"
            )
        return self

    def assert_existing_objects_matched(self):
        """Raise ``AssertionError`` if a current object got no value from the checkpoint."""
        if self.unmatched_objects:
            raise AssertionError(
                f"objects not found in checkpoint {self.path}: {_listing(self.unmatched_objects)}"
            )
        return self

    def assert_nontrivial_match(self):
        """Raise ``AssertionError`` if nothing at all was restored."""
        if not self.restored_keys:
            raise AssertionError(f"nothing in the current objects matched checkpoint {self.path}")
        return self

    def expect_partial(self):
        """Declare a partial restore intended: no warning about unused values."""
        self._silenced = True
        return self

    def __del__(self):
        try:
            if self.unused_keys and not self._silenced:
                logger.warning(
                    "restore of %s left %d saved values unused: %s (call expect_partial() on "
                    "the status to silence this)",
                    self.path,
                    len(self.unused_keys),
                    _listing(self.unused_keys),
                )
        except Exception:  # noqa: BLE001 - interpreter shutdown may have torn logging down
            pass


class InitializationOnlyStatus:
    """The status of ``restore(None)``: nothing restored; the assertions all raise."""

    path = None
    restored_keys, unused_keys, unmatched_objects = [], [], []

    def _fail(self):
        raise AssertionError("no checkpoint specified (save_path=None); nothing is restored")

    def assert_consumed(self):
        """Always raises: there was no checkpoint."""
        self._fail()

    def assert_existing_objects_matched(self):
        """Always raises: there was no checkpoint."""
        self._fail()

    def assert_nontrivial_match(self):
        """Always raises: there was no checkpoint."""
        self._fail()

    def expect_partial(self):
        """Nothing to silence; returns the status."""
        return self


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
        if not (_is_trackable(value) or _is_plain_object(value)):
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
            update_checkpoint_state(directory, path, [path])
        except BaseException:
            if not (recording and _recorded(directory, path)):
                _undo_write(path, existed)
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
                name: _python_value(reader.get_tensor(key), saved[key].get("python_type"))
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


# --------------------------------------------------------------------------- interrupted saves


def _recorded(directory: str, path: str) -> bool:
    """Whether ``directory``'s state file names ``path`` the latest: a save interrupted
    after that point has completed (only syncing was left)."""
    try:
        state = get_checkpoint_state(directory)
    except (CheckpointCorruptedError, OSError):
        return False
    return state is not None and os.path.abspath(state.model_checkpoint_path) == (
        os.path.abspath(path)
    )


def _undo_write(path: str, existed: bool) -> None:
    """Remove the checkpoint a failed or interrupted save wrote at ``path`` before its state
    file named it, so no unrecorded checkpoint is left; one that was there before the save
    (kept as it was) stays."""
    if not existed and os.path.lexists(path):
        delete_checkpoint(path)
    remove_debris(path)


# --------------------------------------------------------------------------- manager


class CheckpointManager:
    """Numbered saves into one directory, keeping the newest ``max_to_keep``.

    ``save()`` writes ``directory/{checkpoint_name}-{N}`` (N = the checkpoint's
    ``save_counter`` unless ``checkpoint_number`` is given), records it in the directory's
    ``checkpoint`` state file, then deletes the oldest checkpoints beyond ``max_to_keep``
    (``None`` keeps all). A checkpoint dropped from the active set is kept on disk instead
    if ``keep_checkpoint_every_n_hours`` have passed since the last one so preserved. The
    state file is rewritten before anything is deleted and never names a deleted or
    incomplete checkpoint. A new manager on the same directory picks up the state. Only
    checkpoints inside ``directory`` are ever deleted: a path the state file lists that is
    anything else (a ``../`` path, a folder of data, a link) is left alone with a warning
    (:func:`~colonnade.core.checkpoint_writer.sweep_checkpoint`).

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> m = CheckpointManager(Checkpoint(v=Variable([1.0])), d, max_to_keep=2)
    >>> paths = [m.save() for _ in range(3)]
    >>> [os.path.basename(p) for p in m.checkpoints], m.latest_checkpoint == paths[-1]
    (['ckpt-2', 'ckpt-3'], True)
    """

    def __init__(
        self,
        checkpoint,
        directory,
        max_to_keep,
        keep_checkpoint_every_n_hours=None,
        checkpoint_name="ckpt",
    ):
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep <= 0):
            raise ValueError(f"max_to_keep must be a positive integer or None, got {max_to_keep!r}")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every_n_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._maybe_delete = collections.OrderedDict()  # path -> timestamp, oldest first
        self._latest = None
        self._last_preserved = time.time()
        state = self._readable_state()
        if state is not None:
            now = time.time()
            stamps = state.all_model_checkpoint_timestamps
            if len(stamps) != len(state.all_model_checkpoint_paths):
                stamps = [now] * len(state.all_model_checkpoint_paths)
            for path, stamp in zip(state.all_model_checkpoint_paths, stamps):
                self._maybe_delete[path] = stamp
            if state.last_preserved_timestamp is not None:
                self._last_preserved = min(state.last_preserved_timestamp, now)
        try:  # the state's latest, or the newest intact one when it is lost or damaged
            self._latest = latest_checkpoint(self._directory)
        except CheckpointCorruptedError:  # unreadable state file, nothing to fall back on
            self._latest = None

    def _readable_state(self):
        """The directory's state, or ``None`` (with a warning) when the state file is
        unreadable: the next save rewrites it, and ``latest_checkpoint`` falls back to the
        newest intact checkpoint in the directory meanwhile."""
        try:
            return get_checkpoint_state(self._directory)
        except CheckpointCorruptedError as e:
            logger.warning("ignoring the unreadable checkpoint state file: %s", e)
            return None

    @property
    def directory(self) -> str:
        """The directory the checkpoints are written to."""
        return self._directory

    @property
    def checkpoint(self):
        """The managed :class:`Checkpoint`."""
        return self._checkpoint

    @property
    def checkpoints(self) -> list:
        """Paths of the managed checkpoints, oldest first (preserved ones are not listed)."""
        return list(self._maybe_delete)

    @property
    def latest_checkpoint(self) -> str | None:
        """Path of the newest checkpoint, or ``None``."""
        return self._latest

    def _remove_debris(self):
        stem = os.path.basename(self._prefix) + "-"
        if not os.path.isdir(self._directory):
            return
        for name in os.listdir(self._directory):
            if name.startswith(stem) and TMP_MARKER in name:
                remove_debris(os.path.join(self._directory, name.split(TMP_MARKER)[0]))

    def save(self, checkpoint_number=None) -> str:
        """Write a new checkpoint, record it, delete the surplus; returns its path.

        ``save_counter`` is incremented even when ``checkpoint_number`` (an int or an
        integer ``Variable``) names the file.

        A save is all or nothing, a ``KeyboardInterrupt`` included: interrupted before the
        state file names the new checkpoint, it is removed again and the manager, the
        state file and ``save_counter`` stay as they were (the previous checkpoint is the
        latest); interrupted after, it has completed and is the latest.
        """
        self._remove_debris()
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = counter if checkpoint_number is None else checkpoint_number
        number = int(to_host(value_of(number)))
        path = f"{self._prefix}-{number}"
        existed = os.path.lexists(path)
        before = (collections.OrderedDict(self._maybe_delete), self._latest, self._last_preserved)
        doomed, recording = [], False
        try:
            self._checkpoint.write(path)
            self._maybe_delete.pop(path, None)
            self._maybe_delete[path] = time.time()
            self._latest = path
            doomed = self._sweep()
            recording = True
            self._record_state()
        except BaseException:
            if not (recording and _recorded(self._directory, path)):
                _undo_write(path, existed)
                self._maybe_delete, self._latest, self._last_preserved = before
                counter.assign_sub(1)
            else:  # the save completed; what the state file no longer lists goes too
                for old in doomed:
                    sweep_checkpoint(old, self._directory)
            raise
        for old in doomed:
            sweep_checkpoint(old, self._directory)
        return path

    def _sweep(self) -> list:
        if self._max_to_keep is None:
            return []
        doomed = []
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_every_n_hours
            if hours is not None and stamp - hours * 3600.0 >= self._last_preserved:
                self._last_preserved = stamp
                continue
            doomed.append(path)
        return doomed

    def _record_state(self):
        update_checkpoint_state(
            self._directory,
            self._latest,
            list(self._maybe_delete),
            all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
            last_preserved_timestamp=self._last_preserved,
        )
