"""An exclusive lock on a directory, held by one process at a time, and process identity.

Two trainers on one ``model_dir`` would interleave their checkpoints and state files, so
training holds :class:`DirectoryLock` on it. On POSIX the lock is ``fcntl.flock`` on a
lock file: the kernel releases it when the holder exits or dies, so it cannot go stale,
and PID reuse cannot fool it; it also excludes a second holder in the same process. The
file stays in place (deleting a flock'ed file races with the next locker); it records the
holder's ``pid@host`` for the error message. Elsewhere (no ``fcntl``) the lock file is
created exclusively and removed on release; one left by a process that is no longer alive
on this host is stale and taken over.

>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> with DirectoryLock(d):
...     try:
...         DirectoryLock(d).acquire()
...     except DirectoryLockedError:
...         print("in use")
in use
>>> with DirectoryLock(d):  # released on leaving the block
...     pass
"""

from __future__ import annotations

import os
import re
import socket

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

LOCK_FILENAME = ".colonnade-train.lock"


class DirectoryLockedError(RuntimeError):
    """Another process (or another trainer in this one) holds the directory's lock."""


def owner_tag() -> str:
    """``pid@host`` of this process; names what it owns (locks, temporary files)."""
    host = re.sub(r"[^A-Za-z0-9._-]", "_", socket.gethostname()) or "localhost"
    return f"{os.getpid()}@{host}"


def parse_owner(tag: str):
    """``(pid, host)`` from :func:`owner_tag`'s form, or ``None``."""
    match = re.fullmatch(r"(\d+)@([A-Za-z0-9._-]+)", tag.strip())
    return (int(match[1]), match[2]) if match else None


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def owner_gone(tag: str) -> bool:
    """True when the owner ``pid@host`` is known to be dead: on this host and not alive.
    An owner on another host cannot be checked, so it is never taken for gone."""
    owner = parse_owner(tag)
    if owner is None:
        return False
    pid, host = owner
    return host == owner_tag().split("@", 1)[1] and not process_alive(pid)


class DirectoryLock:
    """Exclusive lock on ``directory`` (created if missing) through ``directory/name``.

    ``acquire()`` fails at once with :class:`DirectoryLockedError` naming the directory
    and the holder; ``release()`` (or leaving the ``with`` block) frees it.
    """

    def __init__(self, directory, name: str = LOCK_FILENAME):
        self.directory = os.fspath(directory)
        self.path = os.path.join(self.directory, name)
        self._fd = None

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()

    def acquire(self) -> None:
        """Take the lock or raise :class:`DirectoryLockedError` (``NotADirectoryError``
        when ``directory`` is a file)."""
        if os.path.exists(self.directory) and not os.path.isdir(self.directory):
            raise NotADirectoryError(
                f"{self.directory!r} is a file; a directory is needed here (model_dir)"
            )
        os.makedirs(self.directory, exist_ok=True)
        if fcntl is not None:
            self._acquire_flock()
        else:
            self._acquire_exclusive_file()
        os.write(self._fd, (owner_tag() + "\n").encode())

    def _acquire_flock(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 200).decode(errors="replace").strip()
            os.close(fd)
            raise self._locked(holder) from None
        os.ftruncate(fd, 0)
        self._fd = fd

    def _acquire_exclusive_file(self) -> None:
        for _ in range(2):  # the second try follows the removal of a stale lock
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
                return
            except FileExistsError:
                holder = self._holder()
                if not owner_gone(holder):
                    raise self._locked(holder) from None
                os.remove(self.path)  # left by a process that died
        raise self._locked(self._holder())

    def _holder(self) -> str:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as f:
                return f.read().strip()
        except FileNotFoundError:
            return ""

    def _locked(self, holder: str) -> DirectoryLockedError:
        return DirectoryLockedError(
            f"{self.directory!r} is in use by another trainer (process {holder or 'unknown'} "
            f"holds {self.path}); two trainers on one model_dir would overwrite each "
            "other's checkpoints. Wait for it to finish or use another model_dir"
        )

    def release(self) -> None:
        """Free the lock (a no-op when not held)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        if fcntl is not None:
            os.ftruncate(fd, 0)
            os.close(fd)  # closing the descriptor releases the flock
        else:
            os.close(fd)
            os.remove(self.path)
