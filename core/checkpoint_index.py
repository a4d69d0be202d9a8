"""One checkpoint directory: its ``index.json`` and ``.npy`` files, and reading them back
verified.

``PREFIX/index.json`` records the format, the library version and, per array, its file,
dtype, shape and the sha256 of its bytes (see :mod:`colonnade.core.checkpoint_format` for
the whole layout). :func:`read_index` checks the index and its format version;
:func:`read_array` loads one ``.npy`` file and checks it against its entry;
:func:`array_file_problem` checks a file from its header and size alone.

>>> arr = np.arange(3, dtype=np.float32)
>>> array_digest(arr) == hashlib.sha256(arr.tobytes()).hexdigest()
True
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import tokenize

import numpy as np

from .backend import to_host
from .checkpoint_errors import CheckpointCorruptedError, CheckpointVersionError
from .version import library_version

__all__ = [
    "DAMAGED_MARKER",
    "IndexedReader",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "INDEX_FILENAME",
    "array_digest",
    "array_file_problem",
    "checkpoint_exists",
    "dtype_name",
    "find_entry",
    "host_array",
    "is_checkpoint_directory",
    "is_tf_checkpoint",
    "read_array",
    "read_index",
    "read_npy_header",
]

FORMAT_NAME = "colonnade.checkpoint"
FORMAT_VERSION = 1
"""The newest checkpoint format this library writes and reads (older ones are read too)."""

INDEX_FILENAME = "index.json"
DAMAGED_MARKER = ".damaged-"
"""A damaged checkpoint replaced by a new save is kept as ``<name>.damaged-<random>``."""


def is_tf_checkpoint(path: str) -> bool:
    """A TensorFlow checkpoint prefix (``PREFIX.index`` and no colonnade directory at
    ``PREFIX``): the public readers hand it to :mod:`colonnade.core.tf_bundle`.

    >>> is_tf_checkpoint("/nonexistent/model.ckpt-1")
    False
    """
    return not os.path.isdir(path) and os.path.isfile(path + ".index")


def checkpoint_exists(checkpoint_prefix) -> bool:
    """True when ``checkpoint_prefix`` is a complete checkpoint (its ``index.json`` exists).

    TF's ``tf.compat.v1.train.checkpoint_exists``: only existence is checked, no array is
    read (:func:`~colonnade.core.checkpoint_discovery.latest_checkpoint` is the one that
    skips damaged checkpoints).

    >>> checkpoint_exists("/nonexistent/ckpt-1")
    False
    """
    return os.path.isfile(os.path.join(os.fspath(checkpoint_prefix), INDEX_FILENAME))


def is_checkpoint_directory(path: str) -> bool:
    """True for a checkpoint directory, complete or damaged: only its index and ``.npy``
    files in it (files, not directories so named; the directory itself no link). Guards
    deletions against removing anything else."""
    if not os.path.isdir(path) or os.path.islink(path):
        return False
    with os.scandir(path) as it:
        entries = list(it)
    named = all(e.name == INDEX_FILENAME or e.name.endswith(".npy") for e in entries)
    return bool(entries) and named and not any(e.is_dir(follow_symlinks=False) for e in entries)


# --------------------------------------------------------------------------- arrays


def dtype_name(dtype: np.dtype) -> str:
    """How the index records ``dtype``: readable names for numbers (``"float32"``), numpy's
    exact descriptor for the rest (``"<U5"``)."""
    return dtype.name if dtype.kind in "biufc" else dtype.str


def host_array(value) -> np.ndarray:
    """``value`` as the contiguous, native-byte-order host array a checkpoint stores;
    TypeError for an object array."""
    arr = np.asarray(to_host(value))
    if arr.dtype.hasobject:
        raise TypeError(
            "checkpoints store numeric, boolean and string arrays only, got an array of dtype "
            "object; convert it to a fixed dtype first"
        )
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return np.ascontiguousarray(arr) if arr.ndim else arr  # ascontiguousarray makes 0-d 1-d


def array_digest(arr: np.ndarray) -> str:
    """sha256 (hex) of an array's bytes in C order: ``hashlib.sha256(arr.tobytes())``."""
    return hashlib.sha256(np.ascontiguousarray(arr).reshape(-1).view(np.uint8)).hexdigest()


def read_npy_header(path: str) -> tuple:
    """``(shape, dtype, data_bytes)`` of a ``.npy`` file from its header alone: the shape
    and dtype it declares and how many bytes follow the header on disk (nothing is
    allocated from what the header says). Raises ``ValueError`` for a file that is not a
    ``.npy`` of format 1.0 or 2.0, ``OSError`` when it cannot be read.

    >>> import tempfile
    >>> path = tempfile.mkdtemp() + "/a.npy"
    >>> np.save(path, np.zeros((2, 3), np.float32))
    >>> read_npy_header(path)
    ((2, 3), dtype('float32'), 24)
    """
    with open(path, "rb") as f:
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, _, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise ValueError(f"unsupported .npy format version {version}")
        except EOFError as e:
            raise ValueError(f"truncated .npy header ({e})") from None
        except (SyntaxError, tokenize.TokenError) as e:  # numpy re-parses a bad header
            raise ValueError(f"malformed .npy header ({e})") from None
        return tuple(shape), dtype, os.fstat(f.fileno()).st_size - f.tell()


def array_file_problem(file: str, entry: dict) -> str | None:
    """Why one ``.npy`` file cannot hold its array, from its header and size alone (the
    bytes are not read): missing, or shorter/longer than its dtype and shape need."""
    try:
        shape, dtype, size = read_npy_header(file)
    except FileNotFoundError:
        return f"array file {file} is missing"
    except (ValueError, OSError) as e:
        return f"array file {file} is unreadable ({e})"
    if list(shape) != list(entry["shape"]) or dtype != np.dtype(entry["dtype"]):
        return f"array file {file} holds {dtype}{list(shape)}, the index records another"
    expected = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
    if size != expected:
        return f"array file {file} is truncated ({size} bytes, {expected} expected)"
    return None


# --------------------------------------------------------------------------- reading


def read_index(path: str) -> dict:
    """The parsed ``index.json`` of checkpoint directory ``path``, after checking it is a
    colonnade index of a format version this library reads.

    Raises :class:`CheckpointCorruptedError` for a truncated or foreign index and
    :class:`CheckpointVersionError` for a newer format.
    """
    index_file = os.path.join(path, INDEX_FILENAME)
    try:
        with open(index_file, encoding="utf-8") as f:
            index = json.load(f)
    except (ValueError, UnicodeDecodeError) as e:
        raise CheckpointCorruptedError(
            f"checkpoint {path}: index file {index_file} is truncated or corrupted ({e})"
        ) from e
    if not isinstance(index, dict) or index.get("format") != FORMAT_NAME:
        raise CheckpointCorruptedError(
            f"{index_file} is not a colonnade checkpoint index (no format {FORMAT_NAME!r})"
        )
    version = index.get("format_version")
    writer = index.get("library_version", "unknown")
    if not isinstance(version, int) or version < 1:
        raise CheckpointCorruptedError(f"{index_file}: invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise CheckpointVersionError(
            f"checkpoint {path} has format version {version} (written by colonnade "
            f"{writer}), but this colonnade ({library_version()}) reads "
            f"format versions up to {FORMAT_VERSION}; upgrade colonnade to read it"
        )
    return index


def find_entry(entries: dict, name: str, where: str, unit: str):
    """``entries[name]``; a KeyError names ``where`` it was looked for, how many ``unit``
    are there, and the closest names."""
    try:
        return entries[name]
    except KeyError:
        close = difflib.get_close_matches(name, list(entries), n=3)
        hint = f"; did you mean {close}?" if close else ""
        raise KeyError(
            f"variable {name!r} not found in {where} ({len(entries)} {unit}{hint})"
        ) from None


class IndexedReader:
    """What a checkpoint reader answers from its index alone, shared by colonnade's
    :class:`~colonnade.core.checkpoint_reader.CheckpointReader` and TensorFlow's
    :class:`~colonnade.core.tf_bundle.TFCheckpointReader`. A subclass sets ``path`` and
    ``_entries`` (name -> entry, with a ``"shape"``); ``_kind`` and ``_unit`` name the
    checkpoint and what it holds in messages."""

    path: str
    _entries: dict
    _kind = "checkpoint"
    _unit = "arrays"

    def keys(self) -> list:
        """The names, sorted."""
        return sorted(self._entries)

    def has_tensor(self, name: str) -> bool:
        """True when the checkpoint holds an array called ``name``."""
        return name in self._entries

    def get_variable_to_shape_map(self) -> dict:
        """``{name: shape as a list of ints}`` (nothing but the index is read)."""
        return {name: list(entry["shape"]) for name, entry in self._entries.items()}

    def _entry(self, name: str) -> dict:
        return find_entry(self._entries, name, f"{self._kind} {self.path}", self._unit)


def read_array(path: str, name: str, entry: dict) -> np.ndarray:
    """Array ``name`` of checkpoint ``path`` from its file, checked against its index
    ``entry``: dtype, shape and checksum; :class:`CheckpointCorruptedError` otherwise."""
    file = os.path.join(path, entry["file"])
    where = f"variable {name!r} in file {file}"
    try:
        arr = np.load(file, allow_pickle=False)
    except FileNotFoundError:
        raise CheckpointCorruptedError(f"checkpoint {path}: {where} is missing") from None
    except (ValueError, EOFError, OSError) as e:
        raise CheckpointCorruptedError(
            f"checkpoint {path}: {where} is truncated or unreadable ({e})"
        ) from e
    if list(arr.shape) != list(entry["shape"]) or arr.dtype != np.dtype(entry["dtype"]):
        raise CheckpointCorruptedError(
            f"checkpoint {path}: {where} holds {arr.dtype}{list(arr.shape)} but the "
            f"index records {entry['dtype']}{list(entry['shape'])}; the file is corrupted"
        )
    if array_digest(arr) != entry["sha256"]:
        raise CheckpointCorruptedError(
            f"checkpoint {path}: checksum mismatch for {where}; the file is corrupted "
            "(restore it from a copy or use an earlier checkpoint)"
        )
    return arr
