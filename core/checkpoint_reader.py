"""Reading checkpoints: :class:`CheckpointReader` and the functions over it
(``load_checkpoint``, ``list_variables``, ``load_variable``), for a checkpoint path or a
directory's latest checkpoint; TensorFlow checkpoints are handed to
:mod:`colonnade.core.tf_bundle`.

>>> import tempfile
>>> from colonnade.core.checkpoint_writer import write_checkpoint
>>> d = tempfile.mkdtemp()
>>> p = write_checkpoint(d + "/ckpt-1", {"w": (np.arange(3.0), {})})
>>> resolve_checkpoint(d) == p  # no state file: the newest checkpoint in the directory
True
"""

from __future__ import annotations

import os

import numpy as np

from .checkpoint_discovery import latest_checkpoint
from .checkpoint_index import (
    INDEX_FILENAME,
    IndexedReader,
    checkpoint_exists,
    is_tf_checkpoint,
    read_array,
    read_index,
)
from .checkpoint_state import STATE_FILENAME
from .tf_bundle import TFCheckpointReader

__all__ = [
    "CheckpointReader",
    "NewCheckpointReader",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "resolve_checkpoint",
]


def resolve_checkpoint(ckpt_dir_or_file) -> str:
    """The checkpoint path for a checkpoint path or a directory with a state file.

    Raises ``FileNotFoundError`` naming the path when neither leads to a checkpoint.
    """
    path = os.fspath(ckpt_dir_or_file)
    if checkpoint_exists(path) or is_tf_checkpoint(path):
        return path
    if os.path.basename(path) == INDEX_FILENAME and os.path.isfile(path):
        return os.path.dirname(path)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is not None:
            return latest
        raise FileNotFoundError(
            f"no checkpoint found in {path!r}: it is neither a checkpoint (no {INDEX_FILENAME}) "
            f"nor a directory whose {STATE_FILENAME!r} state file names a complete checkpoint"
        )
    raise FileNotFoundError(f"checkpoint {path!r} does not exist")


class CheckpointReader(IndexedReader):
    """Reads arrays from one checkpoint, one file per array (TF's ``CheckpointReader``).

    Only ``index.json`` is read up front; ``get_tensor`` reads and verifies just the array
    asked for, so a damaged file elsewhere does not stop it.

    >>> import tempfile
    >>> from colonnade.core.checkpoint_writer import write_checkpoint
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/c", {"a/b": (np.int64(7), {})})
    >>> r = CheckpointReader(p)
    >>> r.has_tensor("a/b"), r.get_variable_to_shape_map(), r.get_tensor("a/b")
    (True, {'a/b': []}, array(7))
    """

    def __init__(self, ckpt_dir_or_file):
        self.path = resolve_checkpoint(ckpt_dir_or_file)
        if is_tf_checkpoint(self.path):
            raise ValueError(
                f"{self.path} is a TensorFlow checkpoint, not a colonnade one; read it with "
                "load_checkpoint, or start from it with warm_start / init_from_checkpoint"
            )
        index = read_index(self.path)
        self.format_version = index["format_version"]
        self.library_version = index.get("library_version", "unknown")
        self._entries = index.get("arrays", {})

    def get_variable_to_dtype_map(self) -> dict:
        """``{name: numpy dtype}`` for every array (no array is read)."""
        return {k: np.dtype(v["dtype"]) for k, v in self._entries.items()}

    def metadata(self, name: str) -> dict:
        """A copy of ``name``'s index entry: file, dtype, shape, sha256 and writer metadata."""
        return dict(self._entry(name))

    def get_tensor(self, name: str) -> np.ndarray:
        """The numpy array ``name``, checked against its recorded dtype, shape and checksum."""
        return read_array(self.path, name, self._entry(name))


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A :class:`CheckpointReader` for a checkpoint path or a directory's latest one; for
    a TensorFlow checkpoint (``PREFIX.index`` + data shards), a
    :class:`~colonnade.core.tf_bundle.TFCheckpointReader` with the same methods.

    >>> import tempfile
    >>> from colonnade.core.checkpoint_writer import write_checkpoint
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/c", {"v": (np.zeros(2), {})})
    >>> load_checkpoint(p).get_tensor("v")
    array([0., 0.])
    """
    path = resolve_checkpoint(ckpt_dir_or_file)
    if is_tf_checkpoint(path):
        return TFCheckpointReader(path)
    return CheckpointReader(path)


def NewCheckpointReader(filepattern) -> CheckpointReader:  # noqa: N802  (TF 1's name)
    """TF 1's ``tf.compat.v1.train.NewCheckpointReader``: :func:`load_checkpoint` of the
    checkpoint prefix ``filepattern`` (a directory is read as its latest checkpoint)."""
    return load_checkpoint(filepattern)


def list_variables(ckpt_dir_or_file) -> list:
    """``[(name, shape)]`` for every array in the checkpoint, sorted by name.

    >>> import tempfile
    >>> from colonnade.core.checkpoint_writer import write_checkpoint
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/c", {"b": (np.zeros((2, 3)), {}),
    ...                                                   "a": (np.zeros(()), {})})
    >>> list_variables(p)
    [('a', []), ('b', [2, 3])]
    """
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return sorted(shapes.items())


def load_variable(ckpt_dir_or_file, name: str) -> np.ndarray:
    """The array ``name`` from a checkpoint, reading only that array's file.

    A trailing ``":0"`` (TF's tensor suffix) is ignored.

    >>> import tempfile
    >>> from colonnade.core.checkpoint_writer import write_checkpoint
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/c", {"v": (np.arange(2), {})})
    >>> load_variable(p, "v:0")
    array([0, 1])
    """
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
