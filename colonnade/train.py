"""``cn.train``: the ``tf.train`` names — optimizers, schedules, moving averages,
checkpoints and warm start — re-exported from :mod:`colonnade.core`."""

# --- optimizers, schedules, moving averages (issue 3)
# --- end optimizers

# --- checkpoints and warm start (issue 6)
# --- end checkpoints
