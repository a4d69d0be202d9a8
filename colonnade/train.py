"""``cn.train``: the ``tf.train`` names — optimizers, schedules, moving averages,
checkpoints and warm start — re-exported from :mod:`colonnade.core`."""

# --- optimizers, schedules, moving averages (issue 3)
from colonnade.core.moving_averages import ExponentialMovingAverage  # noqa: F401
from colonnade.core.optimizers import (  # noqa: F401
    AdadeltaOptimizer,
    AdagradDAOptimizer,
    AdagradOptimizer,
    AdamOptimizer,
    FtrlOptimizer,
    GradientDescentOptimizer,
    LazyAdamOptimizer,
    MomentumOptimizer,
    Optimizer,
    ProximalAdagradOptimizer,
    ProximalGradientDescentOptimizer,
    RMSPropOptimizer,
)
from colonnade.core.schedules import (  # noqa: F401
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    noisy_linear_cosine_decay,
    piecewise_constant,
    polynomial_decay,
)

# isort: split
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
