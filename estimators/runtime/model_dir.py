"""Where an estimator keeps its checkpoints and summaries: its ``model_dir``.

Given as ``Estimator(model_dir=...)`` or as ``RunConfig(model_dir=...)`` (both only when
they agree), or, when neither gives one, a new temporary directory (with a warning, as
TF). A path that is a file is refused before anything is written.
"""

from __future__ import annotations

import logging
import os
import tempfile

logger = logging.getLogger("colonnade")

__all__ = ["resolve_model_dir"]


def resolve_model_dir(model_dir, config_model_dir) -> str:
    """The estimator's model_dir, as a string, from its ``model_dir`` argument and its
    config's (``config_model_dir``): ``ValueError`` when both are given and differ,
    ``NotADirectoryError`` naming it when it is a file.

    >>> resolve_model_dir(None, "runs/a"), resolve_model_dir("runs/a", None)
    ('runs/a', 'runs/a')
    >>> resolve_model_dir("runs/a", "runs/b")
    Traceback (most recent call last):
    ValueError: model_dir='runs/a' differs from config.model_dir='runs/b'
    """
    if model_dir is not None and config_model_dir not in (None, model_dir):
        raise ValueError(
            f"model_dir={model_dir!r} differs from config.model_dir={config_model_dir!r}"
        )
    model_dir = model_dir or config_model_dir
    if model_dir is None:
        model_dir = tempfile.mkdtemp(prefix="colonnade_model_")
        logger.warning("using a temporary model_dir: %s", model_dir)
    path = os.fspath(model_dir)
    if os.path.exists(path) and not os.path.isdir(path):
        raise NotADirectoryError(
            f"model_dir {path!r} is a file; model_dir must be a directory (or a path that "
            "does not exist yet, created at the first save)"
        )
    return path
