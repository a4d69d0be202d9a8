r"""colonnade: feature columns and canned estimators for tabular data, without TensorFlow.

>>> import colonnade as cn
>>> cn.core.get_backend()
'numpy'

Sub-modules: ``cn.core`` (backend, autodiff, ops), ``cn.train`` (the ``tf.train`` names),
``cn.layers``, ``cn.nn``, ``cn.losses``, ``cn.metrics`` (for a ``model_fn``),
``cn.feature_columns``, ``cn.data`` (input pipelines over Arrow), ``cn.io`` (TFRecord and
tf.Example), ``cn.estimators`` and ``cn.distribute`` (Ray; extra ``colonnade[ray]``);
``cn.nest`` and ``cn.debugging`` are ``tf.nest`` and ``tf.debugging``'s asserts.
"""

from .source_checkout import map_sibling_packages

map_sibling_packages(__path__[0])  # run from a clone: colonnade.core is ../core, ...

from . import (  # noqa: E402
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
from .core import debugging, nest  # noqa: E402  (tf.debugging, tf.nest)
from .estimators import load  # noqa: E402

__version__ = core.library_version()

__all__ = [
    "core",
    "data",
    "debugging",
    "distribute",
    "estimators",
    "feature_columns",
    "io",
    "layers",
    "losses",
    "metrics",
    "nest",
    "nn",
    "train",
    "load",
    "__version__",
]
