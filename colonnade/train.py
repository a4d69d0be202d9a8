"""``cn.train``: the ``tf.train`` names — optimizers, schedules, moving averages,
checkpoints and warm start — re-exported from :mod:`colonnade.core`."""

# --- optimizers, schedules, moving averages (issue 3)
# --- end optimizers

# --- checkpoints and warm start (issue 6)
from colonnade.core.checkpoint import Checkpoint, CheckpointManager
from colonnade.core.checkpoint_format import (
    CheckpointCorruptedError,
    CheckpointReader,
    CheckpointState,
    CheckpointVersionError,
    checkpoints_iterator,
    get_checkpoint_state,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
    update_checkpoint_state,
)
from colonnade.core.warm_start import VocabInfo, init_from_checkpoint, warm_start

# --- end checkpoints
