"""The errors a checkpoint reader raises, for colonnade's own format and TF's alike.

They live apart from both readers (:mod:`colonnade.core.checkpoint_format` and
:mod:`colonnade.core.tf_bundle`) so that the one may dispatch to the other without the
two importing each other.

>>> isinstance(CheckpointCorruptedError("x"), ValueError)
True
"""

__all__ = ["CheckpointCorruptedError", "CheckpointVersionError"]


class CheckpointCorruptedError(ValueError):
    """A checkpoint file is truncated, unreadable or fails its checksum.

    The message names the checkpoint, the file and the variable, so the damaged file can be
    found; nothing is loaded from it silently.
    """


class CheckpointVersionError(ValueError):
    """The checkpoint was written in a newer format than this colonnade can read."""
