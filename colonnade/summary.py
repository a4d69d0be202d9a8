"""``cn.summary``: ``tf.summary.scalar`` / ``histogram`` (and TF 1's ``merge_all``) for a
``model_fn``: written to TensorBoard with the training ``loss``, every
``RunConfig.save_summary_steps`` steps (see :mod:`colonnade.core.summaries`).

>>> import colonnade as cn
>>> cn.summary.scalar("outside_a_model_fn", 1.0)  # recorded only while a model_fn runs
False
"""

from colonnade.core.summaries import histogram, merge_all, scalar

__all__ = ["histogram", "merge_all", "scalar"]
