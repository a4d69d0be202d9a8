"""``tf.io``'s whole-file ops, eager: ``read_file``, ``write_file`` and ``matching_files``.

TF returns string tensors; here a file's contents are ``bytes`` and paths ``str`` (as
``tf.io.gfile`` gives them). Paths and URLs go through :mod:`colonnade.gfile`, so a
missing file raises its ``NotFoundError`` (a ``FileNotFoundError``).

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> write_file(os.path.join(d, "new", "a.txt"), "x,y\\n")
>>> read_file(os.path.join(d, "new", "a.txt"))
b'x,y\\n'
>>> [os.path.basename(p) for p in matching_files(os.path.join(d, "new", "*.txt"))]
['a.txt']
"""

from __future__ import annotations

import posixpath

from . import gfile

__all__ = ["matching_files", "read_file", "write_file"]


def read_file(filename, name=None) -> bytes:
    """The whole contents of ``filename`` (``tf.io.read_file``). ``name`` (TF's op name)
    is accepted and unused.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "v.txt")
    >>> write_file(path, b"a,b")
    >>> read_file(path)
    b'a,b'
    """
    with gfile.GFile(filename, "rb") as f:
        return f.read()


def write_file(filename, contents, name=None) -> None:
    """Write ``contents`` (bytes or str) to ``filename``, creating its directories
    (``tf.io.write_file``). ``name`` (TF's op name) is accepted and unused.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "made", "for", "it.txt")
    >>> write_file(path, "x")
    >>> read_file(path)
    b'x'
    """
    if not isinstance(contents, (bytes, bytearray, str)):
        raise TypeError(f"write_file writes bytes or str, got {type(contents).__name__}")
    parent = posixpath.dirname(str(filename))
    if parent:
        gfile.makedirs(parent)
    data = contents.encode() if isinstance(contents, str) else bytes(contents)
    with gfile.GFile(filename, "wb") as f:
        f.write(data)


def matching_files(pattern, name=None) -> list:
    """The paths matching ``pattern``, a glob or a list of globs, sorted; a path matched
    by two globs is listed twice, as TF's ``tf.io.matching_files`` lists it; none
    matching gives ``[]``. ``name`` is accepted and unused.

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for f in ("b.csv", "a.csv", "c.txt"):
    ...     write_file(os.path.join(d, f), "")
    >>> [os.path.basename(p) for p in matching_files([os.path.join(d, "*.csv")])]
    ['a.csv', 'b.csv']
    """
    patterns = [pattern] if isinstance(pattern, (str, bytes)) else list(pattern)
    found = []
    for glob in patterns:
        found += gfile.glob(glob.decode() if isinstance(glob, bytes) else str(glob))
    return sorted(found)
