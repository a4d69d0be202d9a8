"""Finding the checkpoints of a directory, telling intact ones from damaged ones, and
waiting for new ones.

:func:`checkpoint_problem` says why a checkpoint (colonnade's or TensorFlow's) is not
intact; :func:`latest_checkpoint` is the state file's latest checkpoint when it is intact,
else the newest intact one in the directory (:func:`intact_checkpoints`), so a save killed
halfway or a damaged file never stops a resume.

>>> import tempfile, numpy as np
>>> from colonnade.core.checkpoint_writer import write_checkpoint
>>> d = tempfile.mkdtemp()
>>> p = write_checkpoint(d + "/ckpt-7", {"v": (np.zeros(2), {})})
>>> latest_checkpoint(d) == p, numbered_checkpoints(d) == [p]
(True, True)
"""

from __future__ import annotations

import logging
import os
import re
import time

from .atomic_files import TMP_MARKER
from .checkpoint_errors import CheckpointCorruptedError, CheckpointVersionError
from .checkpoint_index import (
    DAMAGED_MARKER,
    INDEX_FILENAME,
    array_file_problem,
    checkpoint_exists,
    is_checkpoint_directory,
    is_tf_checkpoint,
    read_array,
    read_index,
)
from .checkpoint_state import STATE_FILENAME, get_checkpoint_state
from .tf_bundle import bundle_problem

__all__ = [
    "checkpoint_problem",
    "checkpoints_iterator",
    "get_checkpoint_mtimes",
    "intact_checkpoints",
    "latest_checkpoint",
    "numbered_checkpoints",
    "wait_for_new_checkpoint",
]

logger = logging.getLogger("colonnade")

_NUMBERED = re.compile(r"^(?P<stem>.+)-(?P<number>\d+)$")


def checkpoint_problem(path, verify: bool = False) -> str | None:
    """Why checkpoint ``path`` is not intact, or ``None`` when it is.

    Without ``verify`` it reads only the index and each array file's header (a stat and
    a small read per array): a missing, unreadable or truncated file is found. With
    ``verify`` every array is also read and checked against its checksum.

    >>> import tempfile, numpy as np
    >>> from colonnade.core.checkpoint_writer import write_checkpoint
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/ckpt-1", {"v": (np.zeros(2), {})})
    >>> checkpoint_problem(p, verify=True) is None, checkpoint_problem(p + "0")
    (True, 'it does not exist')
    """
    path = os.fspath(path)
    if is_tf_checkpoint(path):
        return bundle_problem(path, verify)
    if not os.path.isdir(path):
        return "it does not exist"
    if not checkpoint_exists(path):
        return f"it has no {INDEX_FILENAME} (an unfinished or damaged save)"
    try:
        arrays = read_index(path).get("arrays", {})
    except (CheckpointCorruptedError, CheckpointVersionError) as e:
        return str(e)
    for key in sorted(arrays):
        entry = arrays[key]
        problem = array_file_problem(os.path.join(path, entry["file"]), entry)
        if problem is None and verify:
            try:
                read_array(path, key, entry)
            except CheckpointCorruptedError as e:
                problem = str(e)
        if problem is not None:
            return problem
    return None


def numbered_checkpoints(checkpoint_dir: str) -> list:
    """Paths of the checkpoint directories (only an index and ``.npy`` files in them) and
    TensorFlow checkpoint prefixes (``<prefix>.index``) named ``<name>-<number>`` in
    ``checkpoint_dir``, intact or not (temporary and moved-aside
    ones excluded), newest first: by the time their index was written, then by number."""
    try:
        names = os.listdir(checkpoint_dir)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for name in names:
        path = os.path.join(checkpoint_dir, name)
        index_file = os.path.join(path, INDEX_FILENAME)
        if name.endswith(".index") and is_tf_checkpoint(path[: -len(".index")]):
            name, path, index_file = name[: -len(".index")], path[: -len(".index")], path
        elif not is_checkpoint_directory(path):
            continue
        match = _NUMBERED.match(name)
        if not match or TMP_MARKER in name or DAMAGED_MARKER in name:
            continue
        try:
            stamp = os.stat(index_file).st_mtime_ns
        except OSError:
            stamp = os.stat(path).st_mtime_ns
        found.append((stamp, int(match["number"]), path))
    return [path for _, _, path in sorted(found, reverse=True)]


def _readable_state(checkpoint_dir, latest_filename):
    """``(state or None, why it could not be used or None)`` for the directory's state file."""
    try:
        state = get_checkpoint_state(checkpoint_dir, latest_filename)
    except CheckpointCorruptedError as e:
        return None, f"its state file is unreadable ({e})"
    if state is None:
        return None, f"it has no {latest_filename or STATE_FILENAME!r} state file"
    return state, None


def intact_checkpoints(checkpoint_dir, latest_filename=None, *, verify: bool = False):
    """Yield the intact checkpoints of ``checkpoint_dir``, the one to resume from first.

    That is the state file's latest checkpoint when it is intact; after it, or instead of
    it when the state file is missing or unreadable or its checkpoint is damaged, every
    other checkpoint the state file lists or the directory holds (``<name>-<number>``),
    newest first. Each damaged one is skipped with a warning naming it and what is wrong
    (see :func:`checkpoint_problem`; ``verify`` also checks every checksum). Lazy: taking
    the first item checks no more than needed.

    >>> import tempfile, numpy as np
    >>> from colonnade.core.checkpoint_writer import write_checkpoint
    >>> d = tempfile.mkdtemp()
    >>> p = write_checkpoint(d + "/ckpt-1", {"v": (np.zeros(2), {})})
    >>> list(intact_checkpoints(d)) == [p]  # no state file: found in the directory
    True
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    state, state_problem = _readable_state(checkpoint_dir, latest_filename)
    named = [] if state is None else [state.model_checkpoint_path]
    listed = [] if state is None else state.all_model_checkpoint_paths[::-1]
    seen, skipped = set(), []
    for path in named + listed + numbered_checkpoints(checkpoint_dir):
        if path in seen:
            continue
        seen.add(path)
        problem = checkpoint_problem(path, verify)
        if problem is not None:
            if os.path.lexists(path) or is_tf_checkpoint(path):  # deleted on purpose: no news
                logger.warning("skipping damaged checkpoint %s: %s", path, problem)
            skipped.append(path)
            continue
        if path not in named:
            why = state_problem or f"its latest checkpoint {named[0]} is unusable"
            logger.warning(
                "%s: %s; using %s, the newest intact checkpoint there", checkpoint_dir, why, path
            )
        yield path
    if state_problem and state_problem.startswith("its state file is unreadable"):
        raise CheckpointCorruptedError(
            f"{checkpoint_dir}: {state_problem}, and no intact checkpoint is there to fall back "
            f"on{' (skipped: ' + ', '.join(skipped) + ')' if skipped else ''}; repair or "
            "delete the state file"
        )


def latest_checkpoint(checkpoint_dir, latest_filename=None, *, verify: bool = False):
    """The path of the newest intact checkpoint in ``checkpoint_dir``, or ``None``.

    Normally the one the state file names (it is updated only after a checkpoint is
    complete). When the state file is missing or unreadable, or names a checkpoint that
    is gone or damaged, the newest intact checkpoint in the directory is returned instead,
    with a warning naming what was skipped (see :func:`intact_checkpoints`). Intact means
    its index and every array file are there in full; ``verify=True`` also checks every
    checksum, which reads the whole checkpoint (restoring checks them anyway). ``None``
    when there is none, logged as an error when the state file names one (as TF); an
    unreadable state file with no intact checkpoint raises
    :class:`CheckpointCorruptedError`, rather than being taken for a fresh start.

    >>> latest_checkpoint("/nonexistent") is None
    True
    """
    try:
        return next(intact_checkpoints(checkpoint_dir, latest_filename, verify=verify))
    except StopIteration:
        pass
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is not None:
        logger.error(
            "the state file in %s names checkpoint %s, which does not exist or is damaged, "
            "and no other intact checkpoint is there",
            checkpoint_dir,
            state.model_checkpoint_path,
        )
    return None


def get_checkpoint_mtimes(checkpoint_prefixes) -> list:
    """Modification times of the checkpoints that exist among ``checkpoint_prefixes``.

    TF's ``tf.compat.v1.train.get_checkpoint_mtimes``: one float per *existing* checkpoint,
    in the order given, in seconds since the epoch (what TF's implementation returns; the
    time is that of the checkpoint's ``index.json``, its last file written). Prefixes with
    no checkpoint are skipped, so the list may be shorter than the input.

    >>> import tempfile, numpy as np, time
    >>> from colonnade.core.checkpoint_writer import write_checkpoint
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/ckpt-1", {"v": (np.zeros(2), {})})
    >>> [abs(t - time.time()) < 60 for t in get_checkpoint_mtimes([p, p + "-gone"])]
    [True]
    """
    if isinstance(checkpoint_prefixes, (str, bytes, os.PathLike)):
        raise TypeError(
            "get_checkpoint_mtimes expects a list of checkpoint prefixes, got a single path "
            f"{checkpoint_prefixes!r}; wrap it in a list"
        )
    mtimes = []
    for prefix in checkpoint_prefixes:
        index_file = os.path.join(os.fspath(prefix), INDEX_FILENAME)
        try:
            mtimes.append(os.stat(index_file).st_mtime_ns / 1e9)
        except FileNotFoundError:
            continue
    return mtimes


def wait_for_new_checkpoint(
    checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1.0, timeout=None
) -> str | None:
    """Poll until ``checkpoint_dir`` has a latest checkpoint other than ``last_checkpoint``.

    Returns its path, or ``None`` once ``timeout`` seconds have passed without one.

    >>> wait_for_new_checkpoint("/nonexistent", timeout=0) is None
    True
    """
    stop_time = None if timeout is None else time.monotonic() + timeout
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            return path
        if stop_time is None:
            time.sleep(seconds_to_sleep)
            continue
        remaining = stop_time - time.monotonic()
        if remaining <= 0:
            return None
        time.sleep(min(seconds_to_sleep, remaining))


def checkpoints_iterator(
    checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None, *, poll_secs=1.0
):
    """Yield each new latest checkpoint of ``checkpoint_dir`` once, as it appears.

    Polls the state file every ``poll_secs`` seconds (a colonnade addition; TF uses 1 s).
    When ``timeout`` seconds pass with no new checkpoint, the iterator stops, unless
    ``timeout_fn`` is given: then it stops if ``timeout_fn()`` is true and waits again
    otherwise. Checkpoints written faster than they are consumed are skipped to the newest.
    At least ``min_interval_secs`` separate two yields.

    >>> list(checkpoints_iterator("/nonexistent", timeout=0))
    []
    """
    last = None
    while True:
        path = wait_for_new_checkpoint(checkpoint_dir, last, poll_secs, timeout)
        if path is None:
            if timeout_fn is None:
                logger.info("timed out waiting for a new checkpoint in %s", checkpoint_dir)
                return
            if timeout_fn():
                return
            continue
        start = time.monotonic()
        last = path
        yield path
        wait = start + min_interval_secs - time.monotonic()
        if wait > 0:
            time.sleep(wait)
