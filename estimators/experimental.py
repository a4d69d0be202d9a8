"""``cn.estimators.experimental``: TF's ``tf.estimator.experimental`` names colonnade has:
the early-stopping hooks and the reader of evaluation metrics they use.

>>> import colonnade as cn
>>> hook = cn.estimators.experimental.stop_if_no_decrease_hook
>>> hook.__name__
'stop_if_no_decrease_hook'
"""

from .hooks.early_stopping import (
    make_early_stopping_hook,
    read_eval_metrics,
    stop_if_higher_hook,
    stop_if_lower_hook,
    stop_if_no_decrease_hook,
    stop_if_no_increase_hook,
)

__all__ = [
    "make_early_stopping_hook",
    "read_eval_metrics",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
]
