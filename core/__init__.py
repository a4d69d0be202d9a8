"""colonnade.core: the array backend, variables, autodiff, ops, losses and clipping.

>>> import colonnade as cn
>>> w = cn.core.Variable([[0.5], [-0.5]])
>>> x = np.array([[1.0, 2.0]], dtype=np.float32)
>>> loss_fn = lambda: cn.core.mean(cn.core.sigmoid_cross_entropy_with_logits([[1.0]], x @ w))
>>> loss, (g,) = cn.core.value_and_grad(loss_fn)([w])
>>> g.shape
(2, 1)
"""

import numpy as np

from . import debugging, initializers, model_calls, nest, optimizer_updates, summaries
from .autodiff import (
    AggregationMethod,
    Tensor,
    as_tensor,
    gradients,
    no_grad,
    stop_gradient,
    value_and_grad,
)
from .backend import (
    DEFAULT_DTYPE,
    cupy_available,
    get_backend,
    get_xp,
    set_backend,
    to_device,
    to_host,
    tune_allocator,
)
from .checkpoint import Checkpoint, CheckpointLoadStatus, CheckpointManager
from .checkpoint_format import (
    CheckpointCorruptedError,
    CheckpointReader,
    CheckpointState,
    CheckpointVersionError,
    checkpoint_exists,
    checkpoints_iterator,
    get_checkpoint_mtimes,
    get_checkpoint_state,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
    remove_checkpoint,
    update_checkpoint_state,
    wait_for_new_checkpoint,
)
from .clipping import (
    check_numerics,
    clip_by_average_norm,
    clip_by_global_norm,
    clip_by_norm,
    clip_by_value,
    global_norm,
)
from .dir_lock import DirectoryLock, DirectoryLockedError
from .fused import fuse
from .indexed_rows import IndexedRows
from .losses import (
    Reduction,
    compute_weighted_loss,
    mean_squared_error,
    sigmoid_cross_entropy,
    sigmoid_cross_entropy_with_logits,
    sparse_softmax_cross_entropy,
    sparse_softmax_cross_entropy_with_logits,
)
from .moving_averages import ExponentialMovingAverage
from .nn import (
    batch_norm,
    batch_normalization,
    dense,
    dropout,
    elu,
    leaky_relu,
    log_softmax,
    relu6,
    selu,
    softmax,
    zero_fraction,
)
from .ops import (
    abs,
    add,
    cast,
    concat,
    div_no_nan,
    divide,
    exp,
    expand_dims,
    gather,
    getitem,
    log,
    log1p,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    multiply,
    negative,
    power,
    relu,
    reshape,
    segment_mean,
    segment_sqrtn,
    segment_sum,
    sigmoid,
    softplus,
    sqrt,
    square,
    stack,
    subtract,
    sum,
    tanh,
    transpose,
    unbroadcast,
    where,
)
from .optimizers import *  # noqa: F403  (the optimizer names, listed once in its __all__)
from .saver import Saver
from .schedules import (
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    noisy_linear_cosine_decay,
    piecewise_constant,
    piecewise_constant_decay,
    polynomial_decay,
)
from .tf_ops import *  # noqa: F403  (reduce_*, *_like, identity: TF's spellings)
from .variable_scope import (
    VariableStore,
    assert_global_step,
    create_global_step,
    current_scope_name,
    current_store,
    get_global_step,
    get_or_create_global_step,
    get_variable,
    reset_default_graph,
    variable_scope,
)
from .variables import Variable
from .version import library_version
from .warm_start import VocabInfo, init_from_checkpoint, warm_start

tune_allocator()

__all__ = [name for name in dir() if not name.startswith("_") and name not in ("np",)]
