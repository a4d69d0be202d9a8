r"""colonnade: feature columns and canned estimators for tabular data, without TensorFlow.

>>> import colonnade as cn
>>> cn.core.get_backend()
'numpy'

Sub-modules: ``cn.core`` (backend, autodiff, ops), ``cn.train`` (the ``tf.train`` names),
``cn.layers``, ``cn.nn``, ``cn.losses``, ``cn.metrics`` (for a ``model_fn``),
``cn.feature_columns``, ``cn.data`` (input pipelines over Arrow), ``cn.io`` (TFRecord and
tf.Example; ``cn.io.gfile``), ``cn.estimators`` and ``cn.distribute`` (Ray; extra
``colonnade[ray]``); ``cn.logging``, ``cn.saved_model``, ``cn.summary``, ``cn.sparse``,
``cn.nest``, ``cn.debugging`` and ``cn.math`` are their ``tf.`` namesakes (``tf.compat.v1.logging``,
the constants, ``scalar``/``histogram``, ``to_dense``, all of ``tf.nest``, the asserts);
``cn.compat.v1`` is ``tf.compat.v1`` (TF 1's canned estimators and ``placeholder``
among it). ``cn.expand_dims``, ``cn.cast``, ``cn.constant``, ``cn.reshape``, ``cn.where``,
``cn.minimum``/``maximum`` and ``cn.clip_by_value`` are TF's top-level ops: on a serving
input they record the export's serving graph (``ServingInputReceiver``).
"""

from .source_checkout import map_sibling_packages

map_sibling_packages(__path__[0])  # run from a clone: colonnade.core is ../core, ...

from . import (  # noqa: E402
    compat,
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
    regularizers,
    saved_model,
    sparse,
    strings,
    summary,
    train,
)
from . import math_ops as math  # noqa: E402
from . import tf_logging as logging  # noqa: E402
from .array_ops import (  # noqa: E402  (tf.expand_dims, tf.cast, ...: TF 2's top-level names)
    cast,
    clip_by_value,
    constant,
    equal,
    expand_dims,
    greater,
    greater_equal,
    less,
    less_equal,
    maximum,
    minimum,
    not_equal,
    reshape,
    where,
)
from .core import debugging, nest  # noqa: E402  (tf.debugging, tf.nest)
from .estimators import load  # noqa: E402

__version__ = core.library_version()

__all__ = [
    "cast",
    "clip_by_value",
    "constant",
    "equal",
    "expand_dims",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "not_equal",
    "math",
    "maximum",
    "minimum",
    "reshape",
    "where",
    "compat",
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
    "logging",
    "nest",
    "nn",
    "regularizers",
    "saved_model",
    "sparse",
    "strings",
    "summary",
    "train",
    "load",
    "__version__",
]
