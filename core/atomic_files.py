"""Durable, atomic file operations, and the temporary files an interrupted one leaves.

A file or directory is written under a temporary name next to its final one
(``<name>.tmp-<pid>@<host>-<random>``: the writer's identity is in the name), fsynced, then
renamed into place, and the directory holding it is fsynced: a reader sees the old version
or the new one, never half of one. What a killed writer leaves behind is *debris* that
:func:`remove_debris` deletes, sparing the temporary files of writers still at work.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "state")
>>> write_bytes_atomic(path, b"v1")
>>> open(path, "rb").read(), os.listdir(os.path.dirname(path))
(b'v1', ['state'])
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import threading

from .dir_lock import owner_gone, owner_tag, parse_owner

__all__ = [
    "TMP_MARKER",
    "fsync_dir",
    "remove_debris",
    "remove_path",
    "temporary_path",
    "write_bytes_atomic",
]

TMP_MARKER = ".tmp-"
"""Temporary directories and files are named ``<name>.tmp-<pid>@<host>-<random>`` (the
writer's identity, see :func:`temporary_path`); readers ignore them."""

_in_flight: set = set()  # this process's temporary paths being written right now
_in_flight_lock = threading.Lock()


def fsync_dir(path: str) -> None:
    """Sync directory ``path``: a rename is durable only once its directory is (POSIX)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def temporary_path(path: str):
    """A fresh temporary name next to ``path`` that records its writer (``pid@host``), so
    cleanup can tell its own and dead writers' leftovers from another writer's work.
    While the block runs it is in flight: :func:`remove_debris` leaves it alone."""
    tmp = f"{path}{TMP_MARKER}{owner_tag()}-{secrets.token_hex(4)}"
    with _in_flight_lock:
        _in_flight.add(tmp)
    try:
        yield tmp
    finally:
        with _in_flight_lock:
            _in_flight.discard(tmp)


def write_bytes_atomic(path: str, data: bytes) -> None:
    """Replace file ``path`` with ``data``: written and fsynced under a temporary name,
    then renamed over ``path``."""
    directory = os.path.dirname(path) or "."
    remove_debris(path)  # a temp file left by a writer that was killed
    with temporary_path(path) as tmp:
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
    fsync_dir(directory)


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
            remove_path(path)


def remove_path(path: str) -> None:
    """Delete file or directory tree ``path`` if it exists (a link, not what it points to)."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.remove(path)
