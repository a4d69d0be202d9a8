"""``cn.compat.v1.gfile``: ``tf.compat.v1.gfile`` (TF 1's ``tf.gfile``), the capitalised
names TF 1 programs call (``tf.gfile.Glob``, ``tf.gfile.Exists``, ``tf.gfile.MakeDirs``),
each the :mod:`colonnade.io.gfile` function TF 2 renamed it to.

>>> import colonnade as cn
>>> cn.compat.v1.gfile.Glob is cn.io.gfile.glob
True
"""

from colonnade.gfile import (
    AlreadyExistsError,
    GFile,
    NotFoundError,
    copy,
    exists,
    glob,
    isdir,
    listdir,
    makedirs,
    mkdir,
    remove,
    rename,
    rmtree,
    stat,
    walk,
)

__all__ = [
    "AlreadyExistsError",
    "Copy",
    "DeleteRecursively",
    "Exists",
    "FastGFile",
    "GFile",
    "Glob",
    "IsDirectory",
    "ListDirectory",
    "MakeDirs",
    "MkDir",
    "NotFoundError",
    "Open",
    "Remove",
    "Rename",
    "Stat",
    "Walk",
]

Copy = copy
DeleteRecursively = rmtree
Exists = exists
FastGFile = GFile
Glob = glob
IsDirectory = isdir
ListDirectory = listdir
MakeDirs = makedirs
MkDir = mkdir
Open = GFile
Remove = remove
Rename = rename
Stat = stat
Walk = walk
