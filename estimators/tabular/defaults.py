"""The settings of the zero-configuration models, each a named constant with where it
comes from, and the functions that size them to a table: the validation split
(:func:`validation_fraction`), the batch (:func:`batch_size_for`), early stopping
(:func:`early_stopping_for`) and the wide&deep constructor's arguments
(:func:`recommended_settings`). :mod:`.models` reads them as ``defaults.NAME`` when it
fits, so an experiment can set one for a run; the experiments behind them are in
``benchmarks/RESULTS.md`` ("Zero configuration").

>>> batch_size_for(30_000), early_stopping_for(20_000)
(256, (3, 1))
"""

from __future__ import annotations

import math

from ...feature_columns.infer import ColumnPlan

__all__ = ["batch_size_for", "early_stopping_for", "recommended_settings", "validation_fraction"]

# Share of the rows held out for early stopping when no validation_data is given: a
# tenth costs little training data ...
VALIDATION_FRACTION = 0.1
# ... but at least this many rows where the table allows: on fewer, the validation loss
# moves between epochs by more than training changes it, and early stopping picks its
# epoch by chance (a tenth of a 1,100-row table is 110 rows) ...
VALIDATION_MIN_ROWS = 1_000
# ... taking at most this share of a small table, so most rows still train ...
VALIDATION_MAX_FRACTION = 0.2
# ... and at most this many rows: enough for a loss to 3 digits, and evaluation stays cheap.
VALIDATION_MAX_ROWS = 50_000
# Below this many rows a split leaves too few to measure a loss on: train all rows for
# SMALL_DATA_EPOCHS epochs instead (said in the plan's notes).
MIN_ROWS_FOR_VALIDATION = 200
SMALL_DATA_EPOCHS = 10
# Epochs at most; early stopping usually ends training well before.
MAX_EPOCHS = 30
# Epochs without a lower validation loss before stopping: one or two bad epochs are often
# noise, or a step size too large for the last stretch (which the halving below fixes).
PATIENCE = 3
# A validation split below this many rows gives a loss that moves by chance between
# epochs by as much as training moves it (20% of a 1,000-row table holds 38-88 positives:
# seeds stopped at epochs 2-4 with AUCs 0.013 apart): there training never stops before
# MIN_EPOCHS_NOISY epochs and waits PATIENCE_NOISY epochs without improvement.
STEADY_VALIDATION_ROWS = 2_000
NOISY_EXTRA_PATIENCE, MIN_EPOCHS_NOISY = 2, 6
# After each epoch without a lower validation loss, every learning rate is multiplied by
# this (reduce on plateau): large steps early, small ones once the loss stops falling,
# with no schedule length to guess in advance.
LR_DECAY = 0.5
# Batch size: about this many steps per epoch, a power of two within the bounds below.
STEPS_PER_EPOCH = 128
MIN_BATCH_SIZE, MAX_BATCH_SIZE = 32, 1024
# The deep tower: two layers, narrowing.
HIDDEN_UNITS = (256, 128)
DNN_DROPOUT = 0.1
# Adam for the deep part (TF's Adagrad at 0.001 barely moves in a few epochs); LazyAdam
# touches only the embedding rows a batch uses.
DNN_OPTIMIZER = "LazyAdam"
DNN_LEARNING_RATE = 0.001
# Ftrl for the wide part, its learning rate higher than TF's combined default (0.005,
# too slow for a few epochs), a light L1 to zero the weights of rare ids.
LINEAR_OPTIMIZER = "Ftrl"
LINEAR_LEARNING_RATE = 0.05
LINEAR_L1 = 0.001
# Before wide&deep, a linear model of the wide columns is solved to convergence in numpy,
# its L2 penalty chosen on validation (:mod:`.linear`), so the blend's weight 0 is
# a converged linear model, not the wide part of a joint training stopped before the
# linear optimum; wide&deep then trains the deep part only, on top of the linear model's
# logits held fixed (Ftrl, whose accumulators start empty, would shrink warm-started
# weights at its first step): the deep part learns what the linear model leaves.
FROZEN_LINEAR_OPTIMIZER = {"name": "SGD", "learning_rate": 0.0}


def validation_fraction(rows: int) -> float:
    """The share of ``rows`` held out: :data:`VALIDATION_FRACTION`, raised toward
    :data:`VALIDATION_MIN_ROWS` rows up to :data:`VALIDATION_MAX_FRACTION` on small
    tables, lowered to :data:`VALIDATION_MAX_ROWS` rows on large ones.

    >>> [round(validation_fraction(n), 4) for n in (1_000, 5_000, 8_000, 30_000, 10**7)]
    [0.2, 0.2, 0.125, 0.1, 0.005]
    """
    small = min(VALIDATION_MIN_ROWS / rows, VALIDATION_MAX_FRACTION)
    return min(max(VALIDATION_FRACTION, small), VALIDATION_MAX_ROWS / rows)


def batch_size_for(rows: int) -> int:
    """The power of two giving about :data:`STEPS_PER_EPOCH` steps per epoch.

    >>> batch_size_for(30_000), batch_size_for(500), batch_size_for(10**7)
    (256, 32, 1024)
    """
    size = 2 ** round(math.log2(max(rows, 1) / STEPS_PER_EPOCH))
    return int(min(max(size, MIN_BATCH_SIZE), MAX_BATCH_SIZE))


def recommended_settings(plan: ColumnPlan, rows: int) -> dict:
    """The wide&deep constructor arguments (JSON-able) and batch size for ``plan``.

    >>> import colonnade as cn, pandas as pd
    >>> plan = cn.feature_columns.infer(pd.DataFrame({"x": [1.0, 2.0] * 50, "y": [0, 1] * 50}), "y")
    >>> recommended_settings(plan, 100)["dnn_optimizer"]
    {'name': 'LazyAdam', 'learning_rate': 0.001}
    """
    settings = {
        "dnn_hidden_units": list(HIDDEN_UNITS),
        "dnn_dropout": DNN_DROPOUT,
        "dnn_optimizer": {"name": DNN_OPTIMIZER, "learning_rate": DNN_LEARNING_RATE},
        "linear_optimizer": {
            "name": LINEAR_OPTIMIZER,
            "learning_rate": LINEAR_LEARNING_RATE,
            "l1_regularization_strength": LINEAR_L1,
        },
        "batch_size": batch_size_for(rows),
    }
    if plan.task != "regression":
        settings["n_classes"] = plan.n_classes
        if plan.label_vocabulary is not None:
            settings["label_vocabulary"] = list(plan.label_vocabulary)
    return settings


def early_stopping_for(validation_rows: int) -> tuple:
    """``(patience, min_epochs)`` for a validation split of ``validation_rows``: on a
    split smaller than :data:`STEADY_VALIDATION_ROWS` the loss moves by chance between
    epochs (a few dozen positives), so training waits longer and never stops before
    :data:`MIN_EPOCHS_NOISY` epochs, and waits :data:`NOISY_EXTRA_PATIENCE` epochs more.

    >>> early_stopping_for(300), early_stopping_for(20_000)
    ((5, 6), (3, 1))
    """
    if validation_rows < STEADY_VALIDATION_ROWS:
        return PATIENCE + NOISY_EXTRA_PATIENCE, MIN_EPOCHS_NOISY
    return PATIENCE, 1
