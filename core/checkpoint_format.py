"""The checkpoint format on disk, the ``checkpoint`` state file, and the readers: the
public face of colonnade's checkpoint modules, gathered here under one name.

- :mod:`~colonnade.core.checkpoint_index`: one checkpoint's ``index.json`` and ``.npy`` files;
- :mod:`~colonnade.core.checkpoint_writer`: writing and deleting checkpoints atomically;
- :mod:`~colonnade.core.checkpoint_state`: the ``checkpoint`` state file;
- :mod:`~colonnade.core.checkpoint_discovery`: intact, latest and new checkpoints;
- :mod:`~colonnade.core.checkpoint_reader`: :class:`CheckpointReader` and the load functions;
- :mod:`~colonnade.core.atomic_files` and :mod:`~colonnade.core.checkpoint_errors`.

A checkpoint ``PREFIX`` (say ``model_dir/ckpt-3``) is a directory holding one plain
``.npy`` file per array and an ``index.json``::

    model_dir/
      checkpoint                      # state file: latest and kept checkpoints (TF's text format)
      ckpt-3/
        index.json                    # format and library version; per array its file,
        00000_model.dense.kernel.npy  #   dtype, shape and sha256 of the array's bytes
        00001_model.dense.bias.npy

``index.json`` looks like ``{"format": "colonnade.checkpoint", "format_version": 1,
"library_version": "0.1.0", "created": 1700000000.0, "arrays": {"model/dense/kernel":
{"file": "00000_model.dense.kernel.npy", "dtype": "float32", "shape": [3, 1], "sha256":
"…", "kind": "variable"}, …}}``. Arrays keep their dtype (float32 stays float32) and are
written from a host copy, so a checkpoint saved on a GPU loads on a laptop.

Reading a checkpoint without colonnade needs only json and numpy::

    import hashlib, json, numpy as np
    index = json.load(open("model_dir/ckpt-3/index.json"))
    entry = index["arrays"]["model/dense/kernel"]
    kernel = np.load("model_dir/ckpt-3/" + entry["file"])      # mmap_mode="r" works too
    assert hashlib.sha256(kernel.tobytes()).hexdigest() == entry["sha256"]

Writes are atomic: everything goes into ``PREFIX.tmp-<random>`` in the same directory, each
file and the directory are fsynced, then the directory is renamed to ``PREFIX``; the state
file is rewritten (temp file + fsync + rename) only after that. A save killed halfway leaves
at most a ``*.tmp-*`` directory that no reader looks at and the next save of that prefix
removes. Reads verify each array's checksum, dtype and shape when it is read, and fail with
:class:`CheckpointCorruptedError` naming the file and the variable.

>>> import tempfile, numpy as np
>>> d = tempfile.mkdtemp()
>>> path = write_checkpoint(d + "/ckpt-1", {"w": (np.arange(3.0, dtype=np.float32), {})})
>>> update_checkpoint_state(d, path)
>>> latest_checkpoint(d) == path, list_variables(d)
(True, [('w', [3])])
>>> load_variable(d, "w")
array([0., 1., 2.], dtype=float32)
"""

from .atomic_files import TMP_MARKER, remove_debris
from .checkpoint_discovery import (
    checkpoint_problem,
    checkpoints_iterator,
    get_checkpoint_mtimes,
    intact_checkpoints,
    latest_checkpoint,
    numbered_checkpoints,
    wait_for_new_checkpoint,
)
from .checkpoint_errors import CheckpointCorruptedError, CheckpointVersionError
from .checkpoint_index import (
    DAMAGED_MARKER,
    FORMAT_NAME,
    FORMAT_VERSION,
    INDEX_FILENAME,
    array_digest,
    checkpoint_exists,
    is_tf_checkpoint,
    read_npy_header,
)
from .checkpoint_reader import (
    CheckpointReader,
    list_variables,
    load_checkpoint,
    load_variable,
    resolve_checkpoint,
)
from .checkpoint_state import (
    STATE_FILENAME,
    CheckpointState,
    get_checkpoint_state,
    update_checkpoint_state,
)
from .checkpoint_writer import delete_checkpoint, remove_checkpoint, write_checkpoint

__all__ = [
    "DAMAGED_MARKER",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "INDEX_FILENAME",
    "STATE_FILENAME",
    "TMP_MARKER",
    "CheckpointCorruptedError",
    "CheckpointReader",
    "CheckpointState",
    "CheckpointVersionError",
    "array_digest",
    "checkpoint_exists",
    "checkpoint_problem",
    "checkpoints_iterator",
    "delete_checkpoint",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "intact_checkpoints",
    "is_tf_checkpoint",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "numbered_checkpoints",
    "read_npy_header",
    "remove_checkpoint",
    "remove_debris",
    "resolve_checkpoint",
    "update_checkpoint_state",
    "wait_for_new_checkpoint",
    "write_checkpoint",
]
