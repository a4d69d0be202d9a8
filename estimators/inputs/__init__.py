"""``cn.estimators.inputs``: TF's ``tf.estimator.inputs`` (``numpy_input_fn``,
``pandas_input_fn``); this room's modules also turn what estimators accept as input into
``(features, labels)`` batches (:mod:`.input_fn`) and run the input pipeline
(:mod:`.pipeline`).
"""

from .numpy_pandas import numpy_input_fn, pandas_input_fn

__all__ = ["numpy_input_fn", "pandas_input_fn"]
