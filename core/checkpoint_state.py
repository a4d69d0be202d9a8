"""A checkpoint directory's ``checkpoint`` state file: TF's text ``CheckpointState``.

It names the latest checkpoint and the ones kept, with their timestamps, in TF's text
format, so TF's tools and colonnade read each other's directories. Paths inside the
directory are stored relative (the directory can be moved); the file is rewritten
atomically, so a reader sees the previous state or the new one.

>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> update_checkpoint_state(d, d + "/ckpt-1")
>>> get_checkpoint_state(d).model_checkpoint_path == d + "/ckpt-1"
True
"""

from __future__ import annotations

import codecs
import dataclasses
import os
import re

from .atomic_files import write_bytes_atomic
from .checkpoint_errors import CheckpointCorruptedError

__all__ = [
    "MAX_STATE_BYTES",
    "STATE_FILENAME",
    "CheckpointState",
    "generate_checkpoint_state_proto",
    "get_checkpoint_state",
    "update_checkpoint_state",
]

STATE_FILENAME = "checkpoint"
MAX_STATE_BYTES = 16 << 20
"""The largest state file read: TF's names each kept checkpoint in about 80 bytes, so
this holds some 200,000 (``keep_checkpoint_max=5`` writes a few hundred bytes). A larger
one is refused, naming the file, before it is read."""


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


_ESCAPED = re.compile(r"""(?:[^\\]+|\\(?:[ntr"'\\]|[0-7]{3}|x[0-9a-fA-F]{2}))*""")
"""A string body whose every backslash starts one of TF's text-format escapes."""


def _unescape(quoted: str, where: str) -> str:
    """The text of a quoted string of TF's text format, decoded in linear time (the
    escapes by Python's C decoder, after one regular-expression pass checked them)."""
    if len(quoted) < 2 or quoted[0] not in "\"'" or quoted[-1] != quoted[0]:
        raise CheckpointCorruptedError(
            f"state file {where}: expected a quoted string, got {quoted:.200}"
        )
    body = quoted[1:-1]
    if "\\" not in body:
        return body
    if _ESCAPED.fullmatch(body) is None:
        raise CheckpointCorruptedError(f"state file {where}: bad escape in {quoted:.200}")
    return codecs.escape_decode(body.encode("utf-8"))[0].decode("utf-8")


_LINE = re.compile(r"^(\w+)\s*:\s*(.+)$")


def _parse_state(text: str, where: str) -> CheckpointState:
    fields = {"all_model_checkpoint_paths": [], "all_model_checkpoint_timestamps": []}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            raise CheckpointCorruptedError(
                f"state file {where}, line {lineno}: cannot parse {line!r:.200}"
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
                f"state file {where}, line {lineno}: cannot parse {line!r:.200} ({e})"
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
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        data = f.read(MAX_STATE_BYTES + 1)
    if max(size, len(data)) > MAX_STATE_BYTES:
        raise CheckpointCorruptedError(
            f"state file {path} holds {max(size, len(data))} bytes, more than the "
            f"{MAX_STATE_BYTES} a checkpoint state file may (TF's names each checkpoint in "
            "about 80); refused unread. Is it a checkpoint directory's state file?"
        )
    try:
        text = data.decode("utf-8")
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
    write_bytes_atomic(_state_path(save_dir, latest_filename), ("\n".join(lines) + "\n").encode())


def generate_checkpoint_state_proto(
    save_dir,
    model_checkpoint_path,
    all_model_checkpoint_paths=None,
    all_model_checkpoint_timestamps=None,
    last_preserved_timestamp=None,
) -> CheckpointState:
    """TF 1's ``tf.compat.v1.train.generate_checkpoint_state_proto``: the
    :class:`CheckpointState` a state file would hold, written nowhere.

    ``model_checkpoint_path`` is appended to ``all_model_checkpoint_paths`` unless it is
    already the last, in the given list itself as TF does. With a relative ``save_dir``,
    relative paths are made relative to it (``train/model-0`` -> ``model-0``).

    >>> generate_checkpoint_state_proto("train", "train/model-0").all_model_checkpoint_paths
    ['model-0']
    """
    if all_model_checkpoint_paths is None:
        all_model_checkpoint_paths = []
    if not all_model_checkpoint_paths or all_model_checkpoint_paths[-1] != model_checkpoint_path:
        all_model_checkpoint_paths.append(model_checkpoint_path)
    timestamps = list(all_model_checkpoint_timestamps or [])
    if timestamps and len(timestamps) != len(all_model_checkpoint_paths):
        raise ValueError(
            f"Checkpoint timestamps, if provided, must match checkpoint paths (got paths "
            f"{all_model_checkpoint_paths} and timestamps {timestamps})"
        )
    save_dir = os.fspath(save_dir)
    model_checkpoint_path = os.fspath(model_checkpoint_path)
    paths = [os.fspath(p) for p in all_model_checkpoint_paths]
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    return CheckpointState(model_checkpoint_path, paths, timestamps, last_preserved_timestamp)
