"""``cn.summary``: ``tf.summary.scalar`` / ``histogram`` / ``image`` (and TF 1's
``merge_all``) for a ``model_fn``: written to TensorBoard with the training ``loss``, every
``RunConfig.save_summary_steps`` steps (see :mod:`colonnade.core.summaries`).

>>> import colonnade as cn
>>> cn.summary.scalar("outside_a_model_fn", 1.0)  # recorded only while a model_fn runs
False
"""

from colonnade.core.summaries import histogram, image, merge_all, scalar

__all__ = ["FileWriterCache", "histogram", "image", "merge_all", "scalar"]


class FileWriterCache:
    """TF 1's ``tf.summary.FileWriterCache``, which kept one open event writer per
    directory; programs call ``FileWriterCache.clear()`` before training so that a new
    run starts a new events file. colonnade keeps no writer open between calls (each
    training and evaluation opens its own), so there is nothing to clear.

    >>> import colonnade as cn
    >>> cn.compat.v1.summary.FileWriterCache.clear()
    """

    @staticmethod
    def clear() -> None:
        """Close the cached writers: none are cached, so this does nothing."""
