"""``CheckpointManager``: numbered saves into one directory, keeping the newest
``max_to_keep``; and the undoing of a save interrupted before its state file named it
(shared with :meth:`~colonnade.core.checkpoint.Checkpoint.save`).

Only checkpoints inside the directory are ever deleted, whatever its ``checkpoint``
state file lists (:func:`~colonnade.core.checkpoint_writer.sweep_checkpoint`).
"""

from __future__ import annotations

import collections
import logging
import os
import time

from .atomic_files import TMP_MARKER, remove_debris
from .autodiff import value_of
from .backend import to_host
from .checkpoint_discovery import latest_checkpoint
from .checkpoint_errors import CheckpointCorruptedError
from .checkpoint_state import get_checkpoint_state, update_checkpoint_state
from .checkpoint_writer import delete_checkpoint, sweep_checkpoint

__all__ = ["CheckpointManager", "is_recorded", "undo_write"]

logger = logging.getLogger("colonnade")


# --------------------------------------------------------------------------- interrupted saves


def is_recorded(directory: str, path: str) -> bool:
    """Whether ``directory``'s state file names ``path`` the latest: a save interrupted
    after that point has completed (only syncing was left)."""
    try:
        state = get_checkpoint_state(directory)
    except (CheckpointCorruptedError, OSError):
        return False
    return state is not None and os.path.abspath(state.model_checkpoint_path) == (
        os.path.abspath(path)
    )


def _step_of(step_counter) -> int:
    return int(to_host(value_of(step_counter)))


def undo_write(path: str, existed: bool) -> None:
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
    >>> from colonnade.core import Checkpoint, Variable
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
        step_counter=None,
        checkpoint_interval=None,
        init_fn=None,
    ):
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep <= 0):
            raise ValueError(f"max_to_keep must be a positive integer or None, got {max_to_keep!r}")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError(
                "`step_counter` should be passed if `checkpoint_interval` is not None "
                f"(got checkpoint_interval={checkpoint_interval!r})"
            )
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every_n_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter, self._checkpoint_interval = step_counter, checkpoint_interval
        self._last_checkpoint_step = None
        self._init_fn = init_fn
        self._maybe_delete = collections.OrderedDict()  # path -> timestamp, oldest first
        self._latest = None
        self._last_preserved = time.time()
        state = self._readable_state()
        if state is not None:
            self._recover(state, time.time())
        try:  # the state's latest, or the newest intact one when it is lost or damaged
            self._latest = latest_checkpoint(self._directory)
        except CheckpointCorruptedError:  # unreadable state file, nothing to fall back on
            self._latest = None

    def _recover(self, state, now: float) -> None:
        """Take up the checkpoints a state file lists. With a recorded
        ``last_preserved_timestamp`` (what a manager writes), as TF: a clock behind it is
        warned about and taken as the new mark, and only checkpoints stamped after the
        mark are managed (the others are never deleted). A state without one (a
        distributed run's) has all its checkpoints managed, stamped now."""
        paths, stamps = state.all_model_checkpoint_paths, state.all_model_checkpoint_timestamps
        preserved = state.last_preserved_timestamp
        if preserved is None:
            if len(stamps) != len(paths):
                stamps = [now] * len(paths)
            self._maybe_delete.update(zip(paths, stamps))
            return
        if now < preserved:
            logger.warning(
                "time.time() returned a value %f seconds behind the last preserved "
                "checkpoint timestamp.",
                preserved - now,
            )
            preserved = now
        self._last_preserved = preserved
        if len(stamps) != len(paths):
            stamps = [preserved] * len(paths)
        for path, stamp in zip(paths, stamps):
            stamp = min(stamp, now)
            if stamp > preserved:
                self._maybe_delete[path] = stamp

    def restore_or_initialize(self) -> str | None:
        """Restore the latest checkpoint and return its path; without one, call the
        ``init_fn`` given (if any) and return ``None`` (TF's ``restore_or_initialize``)."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _step_of(self._step_counter)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None

    @property
    def checkpoint_interval(self):
        """The fewest steps of ``step_counter`` between two saves, or ``None``."""
        return self._checkpoint_interval

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

    def save(self, checkpoint_number=None, check_interval=True) -> str | None:
        """Write a new checkpoint, record it, delete the surplus; returns its path.

        With a ``checkpoint_interval``, as TF: nothing is saved (``None``) when
        ``step_counter`` has not moved since the last save or restore, nor, with
        ``check_interval``, before it has moved by the interval.

        ``save_counter`` is incremented even when ``checkpoint_number`` (an int or an
        integer ``Variable``) names the file.

        A save is all or nothing, a ``KeyboardInterrupt`` included: interrupted before the
        state file names the new checkpoint, it is removed again and the manager, the
        state file and ``save_counter`` stay as they were (the previous checkpoint is the
        latest); interrupted after, it has completed and is the latest.
        """
        if self._checkpoint_interval is not None:
            step = _step_of(self._step_counter)
            last = self._last_checkpoint_step
            if last is not None and (
                step == last or (check_interval and step < last + self._checkpoint_interval)
            ):
                return None
            self._last_checkpoint_step = step
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
            if not (recording and is_recorded(self._directory, path)):
                undo_write(path, existed)
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
