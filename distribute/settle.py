"""What a distributed ``train`` call that fails leaves behind: as in one process, its
state is not the latest checkpoint, and the estimator holds the latest checkpoint.

In ``async`` mode the chief's hooks run on finished steps a little after the workers
ran them, and a checkpoint holds the servers' state when it was taken: a checkpoint of
step 29 may be written while the hooks are at step 10. When a hook then fails at step
12, the checkpoints of steps after the last one whose hooks all ran hold state of the
failing run: they are moved aside (renamed ``<name>.failed-run``, so nothing is deleted
and no reader takes them for a checkpoint) and the state file names the newest
remaining one. Any other failure (a worker given up on, a dead coordinator) comes after
every checkpoint written, which all stay. Either way the estimator is then restored
from the latest checkpoint, so that its global step and variables agree with
``latest_checkpoint()``.
"""

from __future__ import annotations

import logging
import os

from .. import core
from ..core.checkpoint_state import STATE_FILENAME

logger = logging.getLogger("colonnade")


class JobFailure(RuntimeError):
    """The actors of a distributed ``train`` failed in a way it does not recover from
    (a worker that keeps dying, the coordinator): training stopped, and the estimator
    holds the latest checkpoint."""


# Appended to a checkpoint of a failed run's steps when it is moved aside.
FAILED_RUN_SUFFIX = ".failed-run"


def settle_failed_run(estimator, saved: dict, hooked: int | None) -> None:
    """After a failed run: when a hook failed, move aside the checkpoints it wrote
    (``saved``: step -> path) of steps after ``hooked`` (the last step whose hooks all
    ran; None when no hook failed: every checkpoint was of steps before the failure),
    then restore the estimator from the latest checkpoint. Problems doing so are
    logged, not raised: the run's own error is what the caller sees."""
    try:
        beyond = {
            s: os.path.abspath(p)
            for s, p in saved.items()
            if hooked is not None and s > hooked and p
        }
        for path in sorted(beyond.values()):
            aside = _free_name(path + FAILED_RUN_SUFFIX)
            os.rename(path, aside)
            logger.warning(
                "the run failed after its hooks ran step %d: checkpoint %s holds later "
                "steps of it, moved aside to %s",
                hooked,
                path,
                aside,
            )
        if beyond:
            _forget(estimator.model_dir, set(beyond.values()))
        estimator.train_state.restore_newest()
    except Exception as e:  # noqa: BLE001 - the run's error matters more
        logger.error("could not restore the latest checkpoint after the failed run: %s", e)


def _free_name(path: str) -> str:
    """``path``, or ``path.2``, ``path.3``, ...: the first that does not exist (never
    ``<name>-<number>``, which a reader would take for a checkpoint)."""
    candidate, n = path, 1
    while os.path.lexists(candidate):
        n += 1
        candidate = f"{path}.{n}"
    return candidate


def _forget(model_dir: str, moved: set) -> None:
    """Rewrite ``model_dir``'s state file without the checkpoints ``moved``."""
    state = core.get_checkpoint_state(model_dir)
    if state is None:
        return
    paths = [p for p in state.all_model_checkpoint_paths if os.path.abspath(p) not in moved]
    latest = state.model_checkpoint_path
    latest = None if os.path.abspath(latest) in moved else latest
    if latest is None and not paths:
        os.remove(os.path.join(model_dir, STATE_FILENAME))
        return
    latest = latest or paths[-1]
    core.update_checkpoint_state(model_dir, latest, paths)
