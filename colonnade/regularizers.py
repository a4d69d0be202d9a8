"""``cn.regularizers``: weight penalties for ``get_variable(regularizer=)`` and
``cn.layers.dense(kernel_regularizer=)``: Keras' ``l1``/``l2``/``l1_l2`` and TF 1
contrib's ``l1_regularizer``/``l2_regularizer``/``l1_l2_regularizer`` (see
:mod:`colonnade.core.regularizers`). ``cn.losses.get_regularization_loss()`` sums what a
``model_fn`` call recorded.

>>> import colonnade as cn
>>> import numpy as np
>>> cn.regularizers.l2_regularizer(0.5)(np.array([2.0])).numpy().item()  # 0.5 * 2**2 / 2
1.0
"""

from colonnade.core.regularizers import (
    l1,
    l1_l2,
    l1_l2_regularizer,
    l1_regularizer,
    l2,
    l2_regularizer,
)

__all__ = ["l1", "l1_l2", "l1_l2_regularizer", "l1_regularizer", "l2", "l2_regularizer"]
