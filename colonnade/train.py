"""``cn.train``: the ``tf.train`` names — optimizers, schedules, moving averages,
checkpoints and warm start — re-exported from :mod:`colonnade.core`."""

__all__: list[str] = []
