"""``Saver``: TF 1's ``tf.compat.v1.train.Saver``, eager, over colonnade's checkpoints.

A TF 1 program saves and restores variables by name: ``Saver(var_list).save(sess, path,
global_step=step)`` and ``Saver(var_list).restore(sess, path)``. The same calls work
here (``sess`` is accepted and not used): each variable is stored under its name (a
``var_list`` dict gives the names), so ``Saver(ema.variables_to_restore())`` restores
the moving averages into the model's variables, as TF's evaluation code does. The
directory's ``checkpoint`` state file lists the kept checkpoints; ``max_to_keep`` old
ones are deleted, as TF's: only checkpoint files in the directory saved to, so paths
taken over with ``recover_last_checkpoints`` from a state file never delete anything else.

>>> import os, tempfile, numpy as np
>>> from colonnade.core import Variable
>>> w = Variable(np.ones(2, np.float32), name="w")
>>> saver = Saver([w])
>>> path = saver.save(None, os.path.join(tempfile.mkdtemp(), "model.ckpt"), global_step=3)
>>> os.path.basename(path)
'model.ckpt-3'
>>> _ = w.assign(np.zeros(2, np.float32)); saver.restore(None, path); w.numpy().tolist()
[1.0, 1.0]
"""

from __future__ import annotations

import os

from .checkpoint import Checkpoint
from .checkpoint_reader import CheckpointReader
from .checkpoint_state import update_checkpoint_state
from .checkpoint_writer import remove_checkpoint, sweep_checkpoint, write_checkpoint
from .variable_scope import current_store
from .variables import Variable

__all__ = ["Saver"]


class Saver:
    """Save and restore ``var_list`` (a list of variables, named by their ``name``, or a
    dict of checkpoint name -> variable; ``None`` inside a ``model_fn`` means all of its
    variables) by name. ``max_to_keep`` checkpoints are kept (``None`` or 0: all); TF's
    graph arguments (``reshape``, ``sharded``, ``saver_def``, ``builder``...) are
    accepted and not needed."""

    def __init__(
        self,
        var_list=None,
        reshape=False,
        sharded=False,
        max_to_keep=5,
        keep_checkpoint_every_n_hours=10000.0,
        name=None,
        restore_sequentially=False,
        saver_def=None,
        builder=None,
        defer_build=False,
        allow_empty=False,
        write_version=2,
        pad_step_number=False,
        save_relative_paths=False,
        filename=None,
    ):
        self._var_list = var_list
        self._allow_empty = allow_empty
        self._max_to_keep = max_to_keep
        self._last_checkpoints: list = []
        self._named()  # TF's errors when made: no variables, duplicate names

    def _named(self) -> dict:
        """``{checkpoint name: variable}`` of ``var_list`` (TF's errors for what is not)."""
        var_list = self._var_list
        if var_list is not None and not isinstance(var_list, (dict, list, tuple, set)):
            raise TypeError(
                f"Saver's var_list must be a list or dict of Variables, got "
                f"{type(var_list).__name__}"
            )
        if var_list is None:
            store = current_store()
            if store is None:
                raise ValueError(
                    "When eager execution is enabled, `var_list` must specify a list or dict "
                    "of variables to save (or make the Saver inside a model_fn)"
                )
            var_list = store.variables()
        if isinstance(var_list, dict):
            named = {str(k): v for k, v in var_list.items()}
        else:
            named = {}
            for var in var_list:
                if not isinstance(var, Variable):
                    raise TypeError(
                        f"Saver's var_list holds a {type(var).__name__}, not a Variable"
                    )
                name = var.name.removesuffix(":0")
                if name in named and named[name] is not var:
                    raise ValueError(f"At least two variables have the same name: {name}")
                named[name] = var
        if not named and not self._allow_empty:
            raise ValueError("No variables to save")
        return named

    @property
    def last_checkpoints(self) -> list:
        """The checkpoints this Saver wrote and kept, oldest first."""
        return list(self._last_checkpoints)

    def set_last_checkpoints(self, last_checkpoints) -> None:
        """Take over a list of checkpoint paths (TF's, for a restarted program)."""
        self._last_checkpoints = list(last_checkpoints)

    def recover_last_checkpoints(self, checkpoint_paths) -> None:
        """Keep those of ``checkpoint_paths`` that still exist, as the kept ones."""
        self._last_checkpoints = [p for p in checkpoint_paths if _exists(p)]

    def save(
        self,
        sess,
        save_path,
        global_step=None,
        latest_filename=None,
        meta_graph_suffix="meta",
        write_meta_graph=True,
        write_state=True,
        strip_default_attrs=False,
        save_debug_info=False,
    ) -> str:
        """Write the variables at ``save_path`` (``save_path-<global_step>`` with a step,
        an int or a Variable); a checkpoint already there is replaced, as TF's Saver does.
        The state file (``latest_filename``, default ``checkpoint``) then names it the
        latest. Only the variables are written (no ``save_counter``: TF's Saver keeps
        none), so ``list_variables`` shows exactly their names. Returns its path."""
        path = os.fspath(save_path)
        if global_step is not None:
            step = global_step.numpy() if isinstance(global_step, Variable) else global_step
            path = f"{path}-{int(step)}"
        if _exists(path):
            remove_checkpoint(path)
        write_checkpoint(
            path, {name: (var.value, {"kind": "variable"}) for name, var in self._named().items()}
        )
        self._last_checkpoints = [p for p in self._last_checkpoints if p != path] + [path]
        if self._max_to_keep:
            while len(self._last_checkpoints) > self._max_to_keep:
                sweep_checkpoint(self._last_checkpoints.pop(0), os.path.dirname(path) or ".")
        if write_state:
            update_checkpoint_state(
                os.path.dirname(path) or ".",
                path,
                self._last_checkpoints,
                latest_filename=latest_filename,
            )
        return path

    def restore(self, sess, save_path) -> None:
        """Load every variable of ``var_list`` from ``save_path`` by its name; a name the
        checkpoint lacks is TF's error, naming it, and then nothing is assigned; a path
        that is no checkpoint is TF's ``ValueError``."""
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not _exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        named = self._named()
        held = set(CheckpointReader(os.fspath(save_path)).keys())
        missing = sorted(set(named) - held)
        if missing:
            raise KeyError(
                f"Key {missing[0]} not found in checkpoint {os.fspath(save_path)} "
                f"({len(missing)} of the Saver's variables are not there: {missing[:10]})"
            )
        Checkpoint(**named).restore(os.fspath(save_path)).expect_partial()


def _exists(path) -> bool:
    try:
        CheckpointReader(os.fspath(path))
    except (OSError, ValueError):
        return False
    return True
