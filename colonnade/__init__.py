r"""colonnade: feature columns and canned estimators for tabular data, without TensorFlow.

>>> import colonnade as cn
>>> cn.core.get_backend()
'numpy'

Sub-modules: ``cn.core`` (backend, autodiff, ops), ``cn.train`` (the ``tf.train`` names),
``cn.layers``, ``cn.nn``, ``cn.losses``, ``cn.metrics`` (for a ``model_fn``),
``cn.feature_columns``, ``cn.data`` (input pipelines over Arrow), ``cn.io`` (TFRecord and
tf.Example), ``cn.estimators`` and ``cn.distribute`` (Ray; extra ``colonnade[ray]``).
"""

from . import (
    core,
    data,
    distribute,
    estimators,
    feature_columns,
    io,
    layers,
    losses,
    metrics,
    nn,
    train,
)
from .estimators import load

__version__ = core.library_version()

__all__ = [
    "core",
    "data",
    "distribute",
    "estimators",
    "feature_columns",
    "io",
    "layers",
    "losses",
    "metrics",
    "nn",
    "train",
    "load",
    "__version__",
]
