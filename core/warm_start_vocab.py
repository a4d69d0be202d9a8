"""Vocabulary remapping for :func:`~colonnade.core.warm_start.warm_start`: ``VocabInfo``
says how a variable's rows (or columns) follow their tokens from an old vocabulary to a
new one, and :func:`remap_by_vocab` moves them (new tokens and OOV buckets from a backup
initializer, as TF's ``tf.estimator.VocabInfo`` and ``_load_and_remap_matrix``).

>>> import numpy as np
>>> info = VocabInfo(["b", "a"], 2, num_oov_buckets=0, old_vocab=["a", "b"])
>>> remap_by_vocab(np.array([[1.0], [2.0]]), info, np.zeros((2, 1)))[0].ravel().tolist()
[2.0, 1.0]
"""

from __future__ import annotations

import dataclasses
import inspect
import os
from collections.abc import Callable, Sequence

import numpy as np

from .backend import to_host

__all__ = ["VocabInfo", "backup_values", "remap_by_vocab"]


def _read_vocab(vocab, size: int, what: str) -> list:
    if isinstance(vocab, (str, os.PathLike)):
        with open(vocab, encoding="utf-8") as f:
            tokens = [line.rstrip("\r\n") for line in f]
        source = f"vocabulary file {os.fspath(vocab)!r}"
    else:
        tokens = [t.decode("utf-8") if isinstance(t, bytes) else str(t) for t in vocab]
        source = f"{what} list"
    if size != -1:
        if size > len(tokens):
            raise ValueError(f"{what}_size={size} but the {source} has only {len(tokens)} entries")
        tokens = tokens[:size]
    seen = set()
    for t in tokens:
        if t in seen:
            raise ValueError(f"the {source} lists the token {t!r} twice; tokens must be unique")
        seen.add(t)
    return tokens


@dataclasses.dataclass(frozen=True)
class VocabInfo:
    """How a vocabulary-indexed variable's rows (or columns) map from an old vocabulary.

    ``new_vocab`` / ``old_vocab``: a vocabulary file (one token per line, as TF) or a
    sequence of tokens (compared as strings). The variable has ``new_vocab_size +
    num_oov_buckets`` entries along ``axis``: the first ``new_vocab_size`` tokens of
    ``new_vocab``, then the OOV buckets. The checkpoint's array was built from the first
    ``old_vocab_size`` tokens of ``old_vocab`` (``-1``: all); any further (OOV) entries of it
    are ignored. Each new token found in the old vocabulary takes its old row; new tokens
    and OOV buckets take ``backup_initializer(shape, dtype)`` (an initializer from
    ``cn.core.initializers`` or any such callable; zeros when ``None``, as TF). ``axis=0``
    remaps rows (embeddings, linear weights), ``axis=1`` columns (an output layer over a
    class vocabulary).

    >>> info = VocabInfo(["x", "y"], 2, 0, old_vocab=["y", "z", "x"], old_vocab_size=2)
    >>> info.new_tokens(), info.old_tokens()
    (['x', 'y'], ['y', 'z'])
    """

    new_vocab: str | os.PathLike | Sequence
    new_vocab_size: int
    num_oov_buckets: int
    old_vocab: str | os.PathLike | Sequence
    old_vocab_size: int = -1
    backup_initializer: Callable | None = None
    axis: int = 0

    def __post_init__(self):
        if self.axis not in (0, 1):
            raise ValueError(f"VocabInfo axis must be 0 (rows) or 1 (columns), got {self.axis!r}")
        if not isinstance(self.new_vocab_size, int) or self.new_vocab_size <= 0:
            raise ValueError(
                f"VocabInfo new_vocab_size must be a positive int, got {self.new_vocab_size!r}"
            )
        if not isinstance(self.num_oov_buckets, int) or self.num_oov_buckets < 0:
            raise ValueError(
                f"VocabInfo num_oov_buckets must be an int >= 0, got {self.num_oov_buckets!r}"
            )
        if not isinstance(self.old_vocab_size, int) or not (
            self.old_vocab_size == -1 or self.old_vocab_size > 0
        ):
            raise ValueError(
                f"VocabInfo old_vocab_size must be -1 (all) or a positive int, "
                f"got {self.old_vocab_size!r}"
            )
        if self.backup_initializer is not None and not callable(self.backup_initializer):
            raise TypeError("VocabInfo backup_initializer must be callable(shape, dtype) or None")

    def new_tokens(self) -> list:
        """The first ``new_vocab_size`` tokens of the new vocabulary, as strings."""
        return _read_vocab(self.new_vocab, self.new_vocab_size, "new_vocab")

    def old_tokens(self) -> list:
        """The first ``old_vocab_size`` tokens of the old vocabulary (all for ``-1``)."""
        return _read_vocab(self.old_vocab, self.old_vocab_size, "old_vocab")


def backup_values(info: VocabInfo, shape, dtype, rng=None) -> np.ndarray:
    if info.backup_initializer is None:
        return np.zeros(shape, dtype)
    init = info.backup_initializer
    try:
        takes_rng = "rng" in inspect.signature(init).parameters
    except (TypeError, ValueError):  # builtins without a signature
        takes_rng = False
    args = (tuple(shape), np.dtype(dtype)) + ((rng,) if takes_rng else ())
    values = np.asarray(to_host(init(*args)))
    if values.shape != tuple(shape):
        raise ValueError(
            f"backup_initializer returned shape {values.shape}, expected {tuple(shape)}"
        )
    return values.astype(dtype, copy=True)


def remap_by_vocab(old: np.ndarray, info: VocabInfo, backup: np.ndarray, name: str = "variable"):
    """``backup`` with the entries of new tokens found in the old vocabulary taken from ``old``.

    ``backup`` has the new variable's shape and supplies new tokens and OOV buckets. Returns
    ``(array, number of tokens found)``. Raises ``ValueError`` naming ``name`` and the shapes
    when they do not fit ``info``.

    >>> info = VocabInfo(["b", "new", "a"], 3, 1, old_vocab=["a", "b"])
    >>> out, found = remap_by_vocab(np.array([[1, 2], [3, 4], [9, 9]]), info,
    ...                             np.full((4, 2), -1), "w")
    >>> out.tolist(), found
    ([[3, 4], [-1, -1], [1, 2], [-1, -1]], 2)
    """
    axis = info.axis
    new_tokens, old_tokens = info.new_tokens(), info.old_tokens()
    if backup.ndim <= axis or old.ndim != backup.ndim:
        raise ValueError(
            f"cannot remap {name!r} along axis {axis}: it has shape {backup.shape} and the "
            f"checkpoint has {old.shape}"
        )
    expected = info.new_vocab_size + info.num_oov_buckets
    if backup.shape[axis] != expected:
        raise ValueError(
            f"variable {name!r} has {backup.shape[axis]} entries along axis {axis} (shape "
            f"{backup.shape}), but its VocabInfo implies new_vocab_size + num_oov_buckets = "
            f"{info.new_vocab_size} + {info.num_oov_buckets} = {expected}"
        )
    if old.shape[axis] < len(old_tokens):
        raise ValueError(
            f"the checkpoint's {name!r} has {old.shape[axis]} entries along axis {axis} (shape "
            f"{old.shape}), fewer than the {len(old_tokens)} tokens of its old vocabulary"
        )
    rest_old = old.shape[:axis] + old.shape[axis + 1 :]
    rest_new = backup.shape[:axis] + backup.shape[axis + 1 :]
    if rest_old != rest_new:
        raise ValueError(
            f"cannot remap {name!r}: apart from axis {axis}, its shape {backup.shape} must "
            f"match the checkpoint's {old.shape}"
        )
    old_position = {t: i for i, t in enumerate(old_tokens)}
    pairs = [(i, old_position[t]) for i, t in enumerate(new_tokens) if t in old_position]
    out = backup.copy()
    if pairs:
        new_idx, old_idx = (np.array(p) for p in zip(*pairs))
        where = [slice(None)] * out.ndim
        where[axis] = new_idx
        out[tuple(where)] = np.take(old, old_idx, axis=axis)
    return out, len(pairs)
