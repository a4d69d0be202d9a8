"""Which URL protocols colonnade's file functions may reach: local files by default.

Every path colonnade opens by name (``cn.io.gfile``, ``cn.io.read_file``, datasets from
files, ``TextLineDataset``, the paths of a job config) goes through fsspec or pyarrow,
which can reach the network (``ftp://``, ``http://``, ``s3://``, ...). A path written in a
config file or a model_dir received from someone else should not make a training job
contact a server, so by default only these are reached:

- local paths, ``file://`` and ``local://`` URLs;
- ``memory://``, fsspec's in-process file system (nothing leaves the process).

Any other protocol is refused with :class:`ProtocolNotAllowedError` saying how to allow
it: list the protocols, as they are written before ``://``, in the environment variable
``COLONNADE_ALLOWED_PROTOCOLS`` (comma-separated: ``COLONNADE_ALLOWED_PROTOCOLS=gs,s3``;
``*`` allows every protocol fsspec and pyarrow know). Aliases are separate names
(``gs`` and ``gcs``, ``s3`` and ``s3a``). A chained fsspec URL
(``simplecache::s3://bucket/key``) needs every protocol of the chain allowed. The variable
is read at each call, so a test or a notebook may set it at any time.

>>> check_protocol("/tmp/x.csv"), check_protocol("memory://m/x.csv")
('', 'memory')
>>> try:
...     check_protocol("ftp://example.com/x.csv")
... except ProtocolNotAllowedError as e:
...     print(str(e)[:61])
'ftp://example.com/x.csv': the ftp:// protocol is not allowed
"""

from __future__ import annotations

import os
import re

__all__ = [
    "ALLOWED_PROTOCOLS_ENV",
    "DEFAULT_PROTOCOLS",
    "ProtocolNotAllowedError",
    "allowed_protocols",
    "check_protocol",
]

ALLOWED_PROTOCOLS_ENV = "COLONNADE_ALLOWED_PROTOCOLS"
DEFAULT_PROTOCOLS = frozenset({"file", "local", "memory"})
"""Reached without being allowed: the local disk and fsspec's in-process memory."""

_PROTOCOL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")


class ProtocolNotAllowedError(ValueError):
    """A path names a URL protocol that ``COLONNADE_ALLOWED_PROTOCOLS`` does not allow."""


def allowed_protocols() -> frozenset:
    """The protocols reached now: :data:`DEFAULT_PROTOCOLS` and those the environment
    variable lists (``{"*"}`` among them when it allows all)."""
    listed = os.environ.get(ALLOWED_PROTOCOLS_ENV, "")
    extra = {p.strip().lower().removesuffix("://") for p in listed.split(",")}
    return DEFAULT_PROTOCOLS | {p for p in extra if p}


def _protocols(path: str) -> list:
    """The protocols of ``path``: each part of an fsspec chain (``a::b://x``) but a local
    path at its end; ``[]`` for a local path."""
    parts = path.split("::")
    if len(parts) > 1 and not all(_NAME.match(p) or _PROTOCOL.match(p) for p in parts[:-1]):
        parts = [path]  # a local name that happens to hold "::"
    found = []
    for i, part in enumerate(parts):
        m = _PROTOCOL.match(part)
        if m:
            found.append(m.group(1).lower())
        elif i < len(parts) - 1:  # a chained file system named without ://
            found.append(part.lower())
    return found


def check_protocol(path) -> str:
    """Refuse ``path`` (:class:`ProtocolNotAllowedError`) unless each of its URL
    protocols is allowed; returns its protocol (the first of a chain), ``""`` when local."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode("utf-8", "replace")
    protocols = _protocols(path)
    allowed = allowed_protocols()
    if "*" not in allowed:
        for protocol in protocols:
            if protocol not in allowed:
                raise ProtocolNotAllowedError(
                    f"{path!r}: the {protocol}:// protocol is not allowed; colonnade reaches "
                    f"only local files and {', '.join(sorted(allowed - {'file', 'local'}))}"
                    f":// unless told otherwise. To allow it, set the environment variable "
                    f"{ALLOWED_PROTOCOLS_ENV}={protocol} (comma-separated, e.g. 'gs,s3'; "
                    "'*' allows every protocol)"
                )
    return protocols[0] if protocols else ""
