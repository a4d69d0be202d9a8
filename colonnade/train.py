"""``cn.train``: the ``tf.train`` names — optimizers, learning-rate schedules, moving
averages, checkpoints and warm start (from :mod:`colonnade.core`), and the session-run
hooks (``SessionRunHook``, ``SessionRunArgs``, ``LoggingTensorHook``..., from
:mod:`colonnade.estimators.hooks.basic`) and ``Scaffold``
(:mod:`colonnade.estimators.spec.scaffold`), gathered under the name TensorFlow users know."""

from colonnade.core import (
    AdadeltaOptimizer,
    AdagradDAOptimizer,
    AdagradOptimizer,
    AdamOptimizer,
    Checkpoint,
    CheckpointCorruptedError,
    CheckpointLoadStatus,
    CheckpointManager,
    CheckpointReader,
    CheckpointState,
    CheckpointVersionError,
    ExponentialMovingAverage,
    FtrlOptimizer,
    GradientDescentOptimizer,
    LazyAdamOptimizer,
    MomentumOptimizer,
    Optimizer,
    ProximalAdagradOptimizer,
    ProximalGradientDescentOptimizer,
    RMSPropOptimizer,
    Saver,
    VocabInfo,
    checkpoint_exists,
    checkpoints_iterator,
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    get_checkpoint_mtimes,
    get_checkpoint_state,
    init_from_checkpoint,
    inverse_time_decay,
    latest_checkpoint,
    linear_cosine_decay,
    list_variables,
    load_checkpoint,
    load_variable,
    natural_exp_decay,
    noisy_linear_cosine_decay,
    piecewise_constant,
    piecewise_constant_decay,
    polynomial_decay,
    remove_checkpoint,
    update_checkpoint_state,
    wait_for_new_checkpoint,
    warm_start,
)
from colonnade.core.checkpoint_reader import NewCheckpointReader
from colonnade.core.checkpoint_state import generate_checkpoint_state_proto
from colonnade.core.variable_scope import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)
from colonnade.estimators.hooks.basic import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    ProfilerHook,
    RunMetadata,
    RunOptions,
    SecondOrStepTimer,
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from colonnade.estimators.spec.scaffold import Scaffold

__all__ = [name for name in dir() if not name.startswith("_")]
