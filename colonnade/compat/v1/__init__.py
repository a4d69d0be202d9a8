"""``cn.compat.v1``: the ``tf.compat.v1`` modules an estimator program uses.

- ``estimator``: ``cn.estimators`` with TF 1's canned estimators (TF 1's loss reduction
  and optimizer defaults: :mod:`colonnade.estimators.canned.v1`);
- ``feature_column``, ``train``, ``losses``, ``layers``, ``nn``, ``metrics``,
  ``logging``, ``saved_model``, ``summary``, ``io`` (also as TF 1's ``python_io``),
  ``nest``, ``debugging``: colonnade's modules of those names (already TF 1's);
- ``contrib.estimator``: TF 1's ``tf.contrib.estimator.add_metrics`` and
  ``forward_features``;
- ``get_variable``, ``variable_scope``, ``get_or_create_global_step``,
  ``get_global_step``;
- ``placeholder``, ``placeholder_with_default`` and the ops a ``serving_input_fn``
  applies to them (``expand_dims``, ``cast``, ``constant``, ``reshape``, ``math``,
  ``strings``, ``parse_example``..., and the dtype names ``float32``, ``string``...):
  :mod:`colonnade.array_ops`, recorded in an export by ``ServingInputReceiver``;
- ``data`` (:mod:`colonnade.data`), ``decode_csv``, ``parse_single_sequence_example``,
  ``read_file``, ``write_file`` and ``matching_files`` (TF 1's top-level spellings of
  ``tf.io``'s), ``gfile`` (TF 1's capitalised ``tf.gfile`` names) and TF 1's
  initializer names (``constant_initializer``, ``glorot_normal_initializer``, ...).

>>> import colonnade as cn
>>> cn.compat.v1.estimator.DNNClassifier.__module__
'colonnade.estimators.canned.v1'
>>> cn.compat.v1.train.AdamOptimizer is cn.train.AdamOptimizer
True
"""

from colonnade import data, io, layers, losses, metrics, saved_model, strings, summary, train
from colonnade import feature_columns as feature_column
from colonnade import math_ops as math
from colonnade import tf_logging as logging
from colonnade.array_ops import (  # placeholder, expand_dims, cast, ...: a serving_input_fn's ops
    abs,
    bool,
    cast,
    clip_by_value,
    constant,
    equal,
    exp,
    expand_dims,
    float32,
    float64,
    greater,
    greater_equal,
    int32,
    int64,
    less,
    less_equal,
    log,
    log1p,
    maximum,
    minimum,
    not_equal,
    placeholder,
    placeholder_with_default,
    reshape,
    sqrt,
    string,
    where,
)
from colonnade.core import (
    debugging,
    get_global_step,
    get_or_create_global_step,
    get_variable,
    nest,
    variable_scope,
)
from colonnade.io import (
    decode_csv,
    matching_files,
    parse_example,
    parse_single_example,
    parse_single_sequence_example,
    read_file,
    write_file,
)
from colonnade.strings import string_split, string_to_number

from . import contrib, estimator, gfile, nn
from .initializers import (
    constant_initializer,
    glorot_normal_initializer,
    glorot_uniform_initializer,
    ones_initializer,
    zeros_initializer,
)

python_io = io  # TF 1's tf.python_io: tf_record_iterator, TFRecordWriter, TFRecordOptions

__all__ = [
    "abs",
    "bool",
    "cast",
    "clip_by_value",
    "constant",
    "constant_initializer",
    "contrib",
    "data",
    "debugging",
    "decode_csv",
    "equal",
    "estimator",
    "exp",
    "expand_dims",
    "feature_column",
    "float32",
    "float64",
    "get_global_step",
    "get_or_create_global_step",
    "get_variable",
    "gfile",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "greater",
    "greater_equal",
    "int32",
    "int64",
    "io",
    "layers",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logging",
    "losses",
    "matching_files",
    "math",
    "maximum",
    "metrics",
    "minimum",
    "nest",
    "nn",
    "not_equal",
    "ones_initializer",
    "parse_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "placeholder",
    "placeholder_with_default",
    "python_io",
    "read_file",
    "reshape",
    "saved_model",
    "sqrt",
    "string",
    "string_split",
    "string_to_number",
    "strings",
    "summary",
    "train",
    "variable_scope",
    "where",
    "write_file",
    "zeros_initializer",
]
