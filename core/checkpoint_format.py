"""The checkpoint format on disk, the ``checkpoint`` state file, and the readers.

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

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .backend import to_host
from .checkpoint_errors import CheckpointCorruptedError, CheckpointVersionError
from .dir_lock import owner_gone, owner_tag, parse_owner
from .tf_bundle import TFCheckpointReader, bundle_problem
from .version import library_version

logger = logging.getLogger("colonnade")

FORMAT_NAME = "colonnade.checkpoint"
FORMAT_VERSION = 1
"""The newest checkpoint format this library writes and reads (older ones are read too)."""

INDEX_FILENAME = "index.json"
STATE_FILENAME = "checkpoint"
TMP_MARKER = ".tmp-"
"""Temporary directories and files are named ``<name>.tmp-<pid>@<host>-<random>`` (the
writer's identity, see :func:`_temp_name`); readers ignore them."""
DAMAGED_MARKER = ".damaged-"
"""A damaged checkpoint replaced by a new save is kept as ``<name>.damaged-<random>``."""

_NUMBERED = re.compile(r"^(?P<stem>.+)-(?P<number>\d+)$")


def is_tf_checkpoint(path: str) -> bool:
    """A TensorFlow checkpoint prefix (``PREFIX.index`` and no colonnade directory at
    ``PREFIX``): the public readers hand it to :mod:`colonnade.core.tf_bundle`."""
    return not os.path.isdir(path) and os.path.isfile(path + ".index")


# --------------------------------------------------------------------------- writing


def _dtype_name(dtype: np.dtype) -> str:
    # readable names for numbers ("float32"); numpy's exact descriptor for the rest ("<U5")
    return dtype.name if dtype.kind in "biufc" else dtype.str


def _host_array(value) -> np.ndarray:
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


def _fsync_dir(path: str) -> None:
    # a rename is durable only once the directory holding it is synced (POSIX)
    if not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_array(path: str, arr: np.ndarray) -> None:
    """Write one ``.npy`` file and fsync it (the unit an interrupted save stops between)."""
    with open(path, "wb") as f:
        np.save(f, arr, allow_pickle=False)
        f.flush()
        os.fsync(f.fileno())


def _write_bytes_atomic(path: str, data: bytes) -> None:
    directory = os.path.dirname(path) or "."
    remove_debris(path)  # a temp file left by a writer that was killed
    tmp = _temp_name(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    finally:
        _done_with(tmp)
    _fsync_dir(directory)


def _safe_file_part(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", ".", key).strip(".")[:80]


_in_flight: set = set()  # this process's temporary paths being written right now
_in_flight_lock = threading.Lock()


def _temp_name(path: str) -> str:
    """A fresh temporary name next to ``path`` that records its writer (``pid@host``), so
    cleanup can tell its own and dead writers' leftovers from another writer's work.
    Registered as in flight: :func:`remove_debris` leaves it alone until it is done."""
    tmp = f"{path}{TMP_MARKER}{owner_tag()}-{secrets.token_hex(4)}"
    with _in_flight_lock:
        _in_flight.add(tmp)
    return tmp


def _done_with(tmp: str) -> None:
    with _in_flight_lock:
        _in_flight.discard(tmp)


def _is_debris(path: str) -> bool:
    """Whether temporary ``path`` is left over, so may be deleted: not in flight here, and
    written by this process or by one that is no longer alive on this host. A name that
    records no writer (older colonnade versions) counts as left over; one written from
    another host is never taken for debris (its writer's liveness cannot be checked)."""
    with _in_flight_lock:
        if path in _in_flight:
            return False
    tag = path.rsplit(TMP_MARKER, 1)[1].rsplit("-", 1)[0]
    if parse_owner(tag) is None:
        return True
    return tag == owner_tag() or owner_gone(tag)


def remove_debris(prefix: str) -> None:
    """Delete ``PREFIX.tmp-*`` left behind by a save or delete that was killed halfway;
    another live writer's temporary files are left alone (see :func:`_is_debris`)."""
    directory = os.path.dirname(prefix) or "."
    stem = os.path.basename(prefix) + TMP_MARKER
    if not os.path.isdir(directory):
        return
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        if name.startswith(stem) and _is_debris(path):
            _remove_path(path)


def _remove_path(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.remove(path)


def write_checkpoint(prefix, entries: dict, *, bookkeeping_keys=()) -> str:
    """Write ``entries`` (key -> ``(array, metadata dict)``) atomically as checkpoint ``prefix``.

    The arrays may be numpy or cupy (saved from a host copy). ``metadata`` is stored in the
    index next to the array's file, dtype, shape and checksum. Returns ``prefix``.

    A checkpoint is never overwritten with different values. When ``prefix`` exists:

    - holding the same arrays (checksums, dtypes, shapes, metadata; ``bookkeeping_keys``
      such as a save counter aside), it is kept as it is: saving twice is harmless;
    - damaged (it fails verification), it is moved aside to ``prefix.damaged-<random>``,
      with a warning, and the new checkpoint takes its place;
    - otherwise ``FileExistsError`` names it and nothing changes: delete it first
      (:func:`remove_checkpoint`) or save under another name or number.

    >>> import tempfile
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/c", {"a": (np.ones(2), {"kind": "x"})})
    >>> load_checkpoint(p).get_tensor("a")
    array([1., 1.])
    """
    prefix = os.fspath(prefix)
    directory = os.path.dirname(prefix) or "."
    os.makedirs(directory, exist_ok=True)
    remove_debris(prefix)
    tmp = _temp_name(prefix)
    os.mkdir(tmp)
    try:
        arrays, digests = {}, {}
        with ThreadPoolExecutor(1) as hasher:  # checksums overlap the writes (both free the GIL)
            for i, (key, (value, meta)) in enumerate(entries.items()):
                if not isinstance(key, str) or not key:
                    raise ValueError(f"checkpoint keys must be non-empty strings, got {key!r}")
                reserved = {"file", "dtype", "shape", "sha256"} & set(meta)
                if reserved:
                    raise ValueError(f"metadata of {key!r} may not set {sorted(reserved)}")
                arr = _host_array(value)
                digests[key] = hasher.submit(array_digest, arr)
                filename = f"{i:05d}_{_safe_file_part(key)}.npy"
                _write_array(os.path.join(tmp, filename), arr)
                arrays[key] = {
                    "file": filename,
                    "dtype": _dtype_name(arr.dtype),
                    "shape": list(arr.shape),
                    "sha256": None,
                    **meta,
                }
        for key, digest in digests.items():
            arrays[key]["sha256"] = digest.result()
        index = {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "library_version": library_version(),
            "created": time.time(),
            "arrays": arrays,
        }
        with open(os.path.join(tmp, INDEX_FILENAME), "w", encoding="utf-8") as f:
            json.dump(index, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        _fsync_dir(tmp)
        if os.path.lexists(prefix) and _keep_existing(prefix, arrays, bookkeeping_keys):
            _remove_path(tmp)
            return prefix
        os.rename(tmp, prefix)
        _fsync_dir(directory)
    except BaseException:
        _remove_path(tmp)
        raise
    finally:
        _done_with(tmp)
    return prefix


def _comparable(arrays: dict, skip) -> dict:
    """Index entries by key, without file names and ``skip`` keys: what makes two
    checkpoints hold the same data."""
    arrays = json.loads(json.dumps(arrays))  # as read back from index.json
    return {
        key: {k: v for k, v in entry.items() if k != "file"}
        for key, entry in arrays.items()
        if key not in skip
    }


def _keep_existing(prefix: str, arrays: dict, bookkeeping_keys) -> bool:
    """Decide about the checkpoint already at ``prefix`` before a new one is renamed there:
    True when it holds the same data (keep it), False once a damaged one is moved aside;
    ``FileExistsError`` when it holds other values or is not a checkpoint."""
    if not _is_checkpoint_directory(prefix):
        raise FileExistsError(
            f"cannot save checkpoint {prefix}: the path exists and is not a colonnade "
            f"checkpoint directory (expected only {INDEX_FILENAME} and .npy files)"
        )
    problem = checkpoint_problem(prefix, verify=True)
    if problem is None:
        with open(os.path.join(prefix, INDEX_FILENAME), encoding="utf-8") as f:
            existing = json.load(f).get("arrays", {})
        skip = set(bookkeeping_keys)
        if _comparable(existing, skip) == _comparable(arrays, skip):
            return True
        raise FileExistsError(
            f"checkpoint {prefix} already exists and holds different values; colonnade "
            "never overwrites a checkpoint. Delete it first (remove_checkpoint) or save "
            "under another name or number"
        )
    aside = f"{prefix}{DAMAGED_MARKER}{secrets.token_hex(4)}"
    os.rename(prefix, aside)
    logger.warning(
        "checkpoint %s is damaged (%s); moved it aside to %s and saved the new one in its place",
        prefix,
        problem,
        aside,
    )
    return False


def delete_checkpoint(prefix) -> None:
    """Delete checkpoint ``prefix``: renamed away first, so no half-deleted one remains."""
    prefix = os.fspath(prefix)
    if not os.path.lexists(prefix):
        return
    doomed = _temp_name(prefix)
    try:
        os.rename(prefix, doomed)
        _fsync_dir(os.path.dirname(prefix) or ".")
        _remove_path(doomed)
    finally:
        _done_with(doomed)


# --------------------------------------------------------------------------- state file


@dataclasses.dataclass
class CheckpointState:
    """The contents of a directory's ``checkpoint`` state file (TF's ``CheckpointState``).

    Paths are as :func:`get_checkpoint_state` returns them: joined with the directory when
    stored relative. Timestamps are seconds since the epoch.
    """

    model_checkpoint_path: str
    all_model_checkpoint_paths: list = dataclasses.field(default_factory=list)
    all_model_checkpoint_timestamps: list = dataclasses.field(default_factory=list)
    last_preserved_timestamp: float | None = None


def _escape(text: str) -> str:
    out = []
    for b in text.encode("utf-8"):
        c = chr(b)
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


_SIMPLE_ESCAPES = {"n": b"\n", "t": b"\t", "r": b"\r", '"': b'"', "'": b"'", "\\": b"\\"}


def _unescape(quoted: str, where: str) -> str:
    if len(quoted) < 2 or quoted[0] not in "\"'" or quoted[-1] != quoted[0]:
        raise CheckpointCorruptedError(
            f"state file {where}: expected a quoted string, got {quoted}"
        )
    body, out, i = quoted[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[nxt]
            i += 2
        elif re.match(r"[0-7]{3}", body[i + 1 : i + 4]):
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        elif nxt == "x" and re.match(r"[0-9a-fA-F]{2}", body[i + 2 : i + 4]):
            out.append(int(body[i + 2 : i + 4], 16))
            i += 4
        else:
            raise CheckpointCorruptedError(f"state file {where}: bad escape in {quoted}")
    return out.decode("utf-8")


def _parse_state(text: str, where: str) -> CheckpointState:
    fields = {"all_model_checkpoint_paths": [], "all_model_checkpoint_timestamps": []}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^(\w+)\s*:\s*(.+)$", line)
        if not m:
            raise CheckpointCorruptedError(
                f"state file {where}, line {lineno}: cannot parse {line!r}"
            )
        key, raw = m.groups()
        try:
            if key == "model_checkpoint_path":
                fields[key] = _unescape(raw, where)
            elif key == "all_model_checkpoint_paths":
                fields[key].append(_unescape(raw, where))
            elif key == "all_model_checkpoint_timestamps":
                fields[key].append(float(raw))
            elif key == "last_preserved_timestamp":
                fields[key] = float(raw)
            else:
                raise CheckpointCorruptedError(f"unknown field {key!r}")
        except ValueError as e:
            raise CheckpointCorruptedError(
                f"state file {where}, line {lineno}: cannot parse {line!r} ({e})"
            ) from e
    if not fields.get("model_checkpoint_path"):
        raise CheckpointCorruptedError(f"state file {where} has no model_checkpoint_path")
    return CheckpointState(**fields)


def _state_path(checkpoint_dir, latest_filename) -> str:
    return os.path.join(os.fspath(checkpoint_dir), latest_filename or STATE_FILENAME)


def get_checkpoint_state(checkpoint_dir, latest_filename=None) -> CheckpointState | None:
    """Parse ``checkpoint_dir``'s state file; ``None`` when there is none.

    Relative paths in the file are joined with ``checkpoint_dir``. An unparsable state file
    raises :class:`CheckpointCorruptedError` rather than being taken for "no checkpoint".

    >>> get_checkpoint_state("/nonexistent") is None
    True
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = _state_path(checkpoint_dir, latest_filename)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        raise CheckpointCorruptedError(f"state file {path} is not text ({e})") from e
    state = _parse_state(text, path)

    def absolute(p):
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)

    state.model_checkpoint_path = absolute(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [absolute(p) for p in state.all_model_checkpoint_paths]
    return state


def update_checkpoint_state(
    save_dir,
    model_checkpoint_path,
    all_model_checkpoint_paths=None,
    latest_filename=None,
    all_model_checkpoint_timestamps=None,
    last_preserved_timestamp=None,
) -> None:
    """Atomically rewrite ``save_dir``'s state file (TF's ``update_checkpoint_state``).

    ``model_checkpoint_path`` becomes the latest checkpoint and is appended to
    ``all_model_checkpoint_paths`` if missing. Paths inside ``save_dir`` are stored relative,
    so the directory can be moved.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> update_checkpoint_state(d, d + "/ckpt-2", [d + "/ckpt-1"])
    >>> print(open(d + "/checkpoint").read(), end="")
    model_checkpoint_path: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-1"
    all_model_checkpoint_paths: "ckpt-2"
    """
    save_dir = os.fspath(save_dir)
    state_file = latest_filename or STATE_FILENAME
    paths = [os.fspath(p) for p in (all_model_checkpoint_paths or [])]
    latest = os.fspath(model_checkpoint_path)
    if not paths or paths[-1] != latest:
        paths = [p for p in paths if p != latest] + [latest]

    def stored(p):
        if os.path.basename(p) == state_file and os.path.dirname(os.path.abspath(p)) == (
            os.path.abspath(save_dir)
        ):
            raise RuntimeError(
                f"checkpoint path {p!r} collides with the state file {state_file!r}; "
                "choose another checkpoint name"
            )
        if os.path.dirname(os.path.abspath(p)) == os.path.abspath(save_dir):
            return os.path.basename(p)
        return p

    lines = [f"model_checkpoint_path: {_escape(stored(latest))}"]
    lines += [f"all_model_checkpoint_paths: {_escape(stored(p))}" for p in paths]
    lines += [
        f"all_model_checkpoint_timestamps: {t!r}" for t in all_model_checkpoint_timestamps or []
    ]
    if last_preserved_timestamp is not None:
        lines.append(f"last_preserved_timestamp: {float(last_preserved_timestamp)!r}")
    os.makedirs(save_dir, exist_ok=True)
    _write_bytes_atomic(_state_path(save_dir, latest_filename), ("\n".join(lines) + "\n").encode())


def checkpoint_exists(checkpoint_prefix) -> bool:
    """True when ``checkpoint_prefix`` is a complete checkpoint (its ``index.json`` exists).

    TF's ``tf.compat.v1.train.checkpoint_exists``: only existence is checked, no array is
    read (:func:`latest_checkpoint` is the one that skips damaged checkpoints).

    >>> import tempfile
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/ckpt-1", {"v": (np.zeros(2), {})})
    >>> checkpoint_exists(p), checkpoint_exists(p + "0")
    (True, False)
    """
    return os.path.isfile(os.path.join(os.fspath(checkpoint_prefix), INDEX_FILENAME))


_SAVER_FORMAT_VERSIONS = (0, 1, 2)  # TF's SaverDef.LEGACY, V1, V2


def _is_checkpoint_directory(path: str) -> bool:
    """True for a checkpoint directory, complete or damaged: only its index and ``.npy``
    files in it. Guards :func:`remove_checkpoint` against deleting anything else."""
    if not os.path.isdir(path) or os.path.islink(path):
        return False
    names = os.listdir(path)
    return bool(names) and all(n == INDEX_FILENAME or n.endswith(".npy") for n in names)


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=2, meta_graph_suffix="meta"):
    """Delete the checkpoint ``checkpoint_prefix`` (TF's ``tf.compat.v1.train.remove_checkpoint``).

    As in TF, a checkpoint that does not exist is not an error, and the state file is left
    as it is (:func:`latest_checkpoint` then falls back to the newest remaining checkpoint).
    The checkpoint is renamed away before its files go, so no half-deleted one remains.
    ``checkpoint_format_version`` (TF's ``SaverDef`` version: 0, 1 or 2) and
    ``meta_graph_suffix`` are accepted for TF compatibility; colonnade has one format and
    no meta graph. A path that is not a checkpoint directory (holding anything but
    ``index.json`` and ``.npy`` files) raises ``ValueError`` rather than being deleted.

    >>> import tempfile
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/ckpt-1", {"v": (np.zeros(2), {})})
    >>> remove_checkpoint(p)
    >>> checkpoint_exists(p), os.path.exists(p)
    (False, False)
    """
    if checkpoint_format_version not in _SAVER_FORMAT_VERSIONS:
        raise ValueError(
            f"checkpoint_format_version must be one of {_SAVER_FORMAT_VERSIONS} (TF's "
            f"SaverDef.LEGACY/V1/V2), got {checkpoint_format_version!r}"
        )
    del meta_graph_suffix  # no meta graph files in colonnade checkpoints
    prefix = os.fspath(checkpoint_prefix)
    if not os.path.lexists(prefix):
        return
    if not _is_checkpoint_directory(prefix):
        raise ValueError(
            f"refusing to remove {prefix!r}: it is not a colonnade checkpoint directory "
            f"(expected only {INDEX_FILENAME} and .npy files in it)"
        )
    delete_checkpoint(prefix)


def get_checkpoint_mtimes(checkpoint_prefixes) -> list:
    """Modification times of the checkpoints that exist among ``checkpoint_prefixes``.

    TF's ``tf.compat.v1.train.get_checkpoint_mtimes``: one float per *existing* checkpoint,
    in the order given, in seconds since the epoch (what TF's implementation returns; the
    time is that of the checkpoint's ``index.json``, its last file written). Prefixes with
    no checkpoint are skipped, so the list may be shorter than the input.

    >>> import tempfile, time
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
        return tuple(shape), dtype, os.fstat(f.fileno()).st_size - f.tell()


def _array_file_problem(file: str, entry: dict) -> str | None:
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


def checkpoint_problem(path, verify: bool = False) -> str | None:
    """Why checkpoint ``path`` is not intact, or ``None`` when it is.

    Without ``verify`` it reads only the index and each array file's header (a stat and
    a small read per array): a missing, unreadable or truncated file is found. With
    ``verify`` every array is also read and checked against its checksum.

    >>> import tempfile
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
        reader = CheckpointReader(path)
    except (CheckpointCorruptedError, CheckpointVersionError) as e:
        return str(e)
    for key in reader.keys():
        entry = reader._entry(key)
        problem = _array_file_problem(os.path.join(path, entry["file"]), entry)
        if problem is None and verify:
            try:
                reader.get_tensor(key)
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
        elif not _is_checkpoint_directory(path):
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

    >>> import tempfile
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


# --------------------------------------------------------------------------- reading


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


class CheckpointReader:
    """Reads arrays from one checkpoint, one file per array (TF's ``CheckpointReader``).

    Only ``index.json`` is read up front; ``get_tensor`` reads and verifies just the array
    asked for, so a damaged file elsewhere does not stop it.

    >>> import tempfile
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
        index_file = os.path.join(self.path, INDEX_FILENAME)
        try:
            with open(index_file, encoding="utf-8") as f:
                index = json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            raise CheckpointCorruptedError(
                f"checkpoint {self.path}: index file {index_file} is truncated or corrupted ({e})"
            ) from e
        if not isinstance(index, dict) or index.get("format") != FORMAT_NAME:
            raise CheckpointCorruptedError(
                f"{index_file} is not a colonnade checkpoint index (no format {FORMAT_NAME!r})"
            )
        version = index.get("format_version")
        self.library_version = index.get("library_version", "unknown")
        if not isinstance(version, int) or version < 1:
            raise CheckpointCorruptedError(f"{index_file}: invalid format_version {version!r}")
        if version > FORMAT_VERSION:
            raise CheckpointVersionError(
                f"checkpoint {self.path} has format version {version} (written by colonnade "
                f"{self.library_version}), but this colonnade ({library_version()}) reads "
                f"format versions up to {FORMAT_VERSION}; upgrade colonnade to read it"
            )
        self.format_version = version
        self._index_file = index_file
        self._arrays = index.get("arrays", {})

    def keys(self) -> list:
        """The array names, sorted."""
        return sorted(self._arrays)

    def has_tensor(self, name: str) -> bool:
        """True when the checkpoint holds an array called ``name``."""
        return name in self._arrays

    def get_variable_to_shape_map(self) -> dict:
        """``{name: shape as a list of ints}`` for every array (no array is read)."""
        return {k: list(v["shape"]) for k, v in self._arrays.items()}

    def get_variable_to_dtype_map(self) -> dict:
        """``{name: numpy dtype}`` for every array (no array is read)."""
        return {k: np.dtype(v["dtype"]) for k, v in self._arrays.items()}

    def metadata(self, name: str) -> dict:
        """A copy of ``name``'s index entry: file, dtype, shape, sha256 and writer metadata."""
        return dict(self._entry(name))

    def _entry(self, name):
        try:
            return self._arrays[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(self._arrays), n=3)
            hint = f"; did you mean {close}?" if close else ""
            raise KeyError(
                f"variable {name!r} not found in checkpoint {self.path} "
                f"({len(self._arrays)} arrays{hint})"
            ) from None

    def get_tensor(self, name: str) -> np.ndarray:
        """The numpy array ``name``, checked against its recorded dtype, shape and checksum."""
        entry = self._entry(name)
        file = os.path.join(self.path, entry["file"])
        where = f"variable {name!r} in file {file}"
        try:
            arr = np.load(file, allow_pickle=False)
        except FileNotFoundError:
            raise CheckpointCorruptedError(f"checkpoint {self.path}: {where} is missing") from None
        except (ValueError, EOFError, OSError) as e:
            raise CheckpointCorruptedError(
                f"checkpoint {self.path}: {where} is truncated or unreadable ({e})"
            ) from e
        if list(arr.shape) != list(entry["shape"]) or arr.dtype != np.dtype(entry["dtype"]):
            raise CheckpointCorruptedError(
                f"checkpoint {self.path}: {where} holds {arr.dtype}{list(arr.shape)} but the "
                f"index records {entry['dtype']}{list(entry['shape'])}; the file is corrupted"
            )
        if array_digest(arr) != entry["sha256"]:
            raise CheckpointCorruptedError(
                f"checkpoint {self.path}: checksum mismatch for {where}; the file is corrupted "
                "(restore it from a copy or use an earlier checkpoint)"
            )
        return arr


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A :class:`CheckpointReader` for a checkpoint path or a directory's latest one; for
    a TensorFlow checkpoint (``PREFIX.index`` + data shards), a
    :class:`~colonnade.core.tf_bundle.TFCheckpointReader` with the same methods.

    >>> import tempfile
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/c", {"v": (np.zeros(2), {})})
    >>> load_checkpoint(p).get_tensor("v")
    array([0., 0.])
    """
    path = resolve_checkpoint(ckpt_dir_or_file)
    if is_tf_checkpoint(path):
        return TFCheckpointReader(path)
    return CheckpointReader(path)


def list_variables(ckpt_dir_or_file) -> list:
    """``[(name, shape)]`` for every array in the checkpoint, sorted by name.

    >>> import tempfile
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
    >>> p = write_checkpoint(tempfile.mkdtemp() + "/c", {"v": (np.arange(2), {})})
    >>> load_variable(p, "v:0")
    array([0, 1])
    """
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


# --------------------------------------------------------------------------- waiting


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
