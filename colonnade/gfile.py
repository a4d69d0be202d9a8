"""``cn.io.gfile``: ``tf.io.gfile``'s file functions, over fsspec.

Estimator scripts use ``tf.io.gfile`` for every path (model_dirs, exports, vocabulary and
data files). The same names here take local paths and, through fsspec, URLs such as
``gs://bucket/dir`` or ``s3://bucket/key`` where that file system's fsspec package
(``gcsfs``, ``s3fs``, ...) is installed and the protocol is allowed: by default only local
files and ``memory://`` are reached; ``COLONNADE_ALLOWED_PROTOCOLS=gs,s3`` allows more
(:mod:`colonnade.data.protocols`, docs/file_systems.md), and any other URL raises
``ProtocolNotAllowedError`` (a ``ValueError``) saying so. Errors are TF's: a missing file raises
``NotFoundError`` (a ``FileNotFoundError``), an existing one that may not be replaced
``AlreadyExistsError`` (a ``FileExistsError``).

>>> import os, tempfile
>>> from colonnade.io import gfile
>>> d = os.path.join(tempfile.mkdtemp(), "a", "b")
>>> gfile.makedirs(d)
>>> with gfile.GFile(os.path.join(d, "v.txt"), "w") as f:
...     _ = f.write("x\\ny\\n")
>>> gfile.listdir(d), gfile.exists(os.path.join(d, "v.txt")), gfile.isdir(d)
(['v.txt'], True, True)
"""

from __future__ import annotations

import os
import posixpath
import stat as stat_module
from typing import NamedTuple

import fsspec

from .data.protocols import ProtocolNotAllowedError, check_protocol

__all__ = [
    "AlreadyExistsError",
    "GFile",
    "NotFoundError",
    "copy",
    "exists",
    "glob",
    "isdir",
    "join",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]


class NotFoundError(FileNotFoundError):
    """A path that does not exist (TF's ``tf.errors.NotFoundError``)."""


class AlreadyExistsError(FileExistsError):
    """A path that exists where it may not be replaced (``tf.errors.AlreadyExistsError``)."""


class FileStatistics(NamedTuple):
    """What :func:`stat` returns, with TF's field names."""

    length: int
    mtime_nsec: int
    is_directory: bool


def _fs(path):
    """The file system that holds ``path`` and the path within it, for a local path or a
    URL whose protocol is allowed (:mod:`colonnade.data.protocols`)."""
    try:
        check_protocol(str(path))
        return fsspec.core.url_to_fs(str(path))
    except ProtocolNotAllowedError as e:
        raise ProtocolNotAllowedError(f"gfile cannot open {e}") from None
    except (ImportError, ValueError) as e:  # an unknown scheme, or its package missing
        raise ValueError(f"gfile cannot open {str(path)!r}: {e}") from e


def _scheme_of(url, path) -> str:
    """What ``url`` has before the file system's ``path`` (``gs://``), so that paths
    returned keep the form they were asked in; empty for a local path."""
    url = str(url)
    return url[: len(url) - len(path)] if "://" in url and url.endswith(path) else ""


def _missing(path):
    return NotFoundError(f"{path}: no such file or directory")


def GFile(name, mode="r"):  # noqa: N802 (TF's name)
    """An open file object for ``name`` (``tf.io.gfile.GFile``); ``mode`` as ``open``'s.
    Reading a missing file raises :class:`NotFoundError`."""
    fs, path = _fs(name)
    if "r" in mode and not fs.exists(path):
        raise _missing(name)
    if "r" in mode and getattr(fs, "protocol", None) in ("file", ("file", "local")):
        _refuse_special_file(name, path)
    return fs.open(path, mode)


def _refuse_special_file(name, path) -> None:
    """Reading a FIFO, socket or device waits for a writer or never ends (``/dev/zero``):
    a config or export naming one hung the job. Only regular files are read."""
    mode = os.stat(path).st_mode
    if not (stat_module.S_ISREG(mode) or stat_module.S_ISDIR(mode)):
        kind = "a FIFO (named pipe)" if stat_module.S_ISFIFO(mode) else "a device or socket"
        raise OSError(f"gfile cannot read {str(name)!r}: it is {kind}, not a regular file")


def exists(path) -> bool:
    """Whether ``path`` (a file or a directory) exists."""
    fs, p = _fs(path)
    return fs.exists(p)


def isdir(path) -> bool:
    """Whether ``path`` is a directory."""
    fs, p = _fs(path)
    return fs.isdir(p)


def listdir(path) -> list:
    """The names (not paths) of the entries of directory ``path``, as TF lists them."""
    fs, p = _fs(path)
    if not fs.isdir(p):
        raise _missing(path)
    return sorted(posixpath.basename(entry.rstrip("/")) for entry in fs.ls(p, detail=False))


def glob(pattern) -> list:
    """The paths matching ``pattern`` (``*``, ``?``, ``[...]``), sorted; URLs keep their
    scheme."""
    fs, p = _fs(pattern)
    scheme = _scheme_of(pattern, p)
    return [scheme + path for path in sorted(fs.glob(p))]


def makedirs(path) -> None:
    """Make directory ``path`` and its parents; an existing directory is fine."""
    fs, p = _fs(path)
    fs.makedirs(p, exist_ok=True)


def mkdir(path) -> None:
    """Make directory ``path`` (its parent must exist); an existing one raises
    :class:`AlreadyExistsError`."""
    fs, p = _fs(path)
    if fs.exists(p):
        raise AlreadyExistsError(f"{path}: already exists")
    parent = posixpath.dirname(p.rstrip("/"))
    if parent and not fs.isdir(parent):
        raise _missing(parent)
    fs.mkdir(p, create_parents=False)


def remove(path) -> None:
    """Delete file ``path``."""
    fs, p = _fs(path)
    if not fs.exists(p):
        raise _missing(path)
    fs.rm_file(p)


def rmtree(path) -> None:
    """Delete directory ``path`` and everything in it."""
    fs, p = _fs(path)
    if not fs.exists(p):
        raise _missing(path)
    fs.rm(p, recursive=True)


def _check_target(fs, target, overwrite, name):
    if fs.exists(target) and not overwrite:
        raise AlreadyExistsError(f"{name}: already exists (pass overwrite=True to replace it)")


def copy(src, dst, overwrite=False) -> None:
    """Copy file ``src`` to ``dst``; an existing ``dst`` needs ``overwrite=True``."""
    fs, s = _fs(src)
    dst_fs, d = _fs(dst)
    if not fs.exists(s):
        raise _missing(src)
    _check_target(dst_fs, d, overwrite, dst)
    if dst_fs is fs:
        fs.copy(s, d)
        return
    with fs.open(s, "rb") as source, dst_fs.open(d, "wb") as target:
        while chunk := source.read(1 << 20):
            target.write(chunk)


def rename(src, dst, overwrite=False) -> None:
    """Move ``src`` to ``dst`` (one file system); an existing ``dst`` needs
    ``overwrite=True``."""
    fs, s = _fs(src)
    _, d = _fs(dst)
    if not fs.exists(s):
        raise _missing(src)
    _check_target(fs, d, overwrite, dst)
    fs.mv(s, d)


def stat(path) -> FileStatistics:
    """``length`` in bytes, ``mtime_nsec`` and ``is_directory`` of ``path``."""
    fs, p = _fs(path)
    if not fs.exists(p):
        raise _missing(path)
    info = fs.info(p)
    mtime = info.get("mtime", info.get("LastModified", 0))
    seconds = mtime.timestamp() if hasattr(mtime, "timestamp") else float(mtime or 0)
    return FileStatistics(
        int(info.get("size") or 0), int(seconds * 1e9), info["type"] == "directory"
    )


def walk(top, topdown=True):
    """``(dirname, subdirectory names, file names)`` for each directory under ``top``, as
    ``os.walk``; a missing ``top`` yields nothing (as TF's)."""
    fs, p = _fs(top)
    if not fs.isdir(p):
        return
    scheme = _scheme_of(top, p)
    for dirname, dirs, files in fs.walk(p, topdown=topdown):
        yield scheme + dirname, sorted(dirs), sorted(files)


def join(path, *paths) -> str:
    """``path`` and ``paths`` joined with ``/`` (``os.path.join`` for local paths)."""
    return posixpath.join(str(path), *map(str, paths))
