"""TF 1's canned estimators (``tf.compat.v1.estimator.*``), with TF 1's defaults.

A TF 1 program that builds ``tf.compat.v1.estimator.DNNClassifier`` gets, unless it asks
otherwise, what TF 1 gave it, which is not what TF 2's classes give:

- ``loss_reduction="weighted_sum"``: the training loss is the *sum* of the batch's
  weighted losses, not their mean, so its learning rates mean what they meant;
- an optimizer named by string is TF 1's ``tf.compat.v1.train`` optimizer of that name
  (``"Adagrad"``, ``"Adam"``, ``"Ftrl"``, ``"RMSProp"``, ``"SGD"``; Adam with TF 1's
  epsilon 1e-8) at the learning rate TF 1's canned module gives names: 0.05 for the DNN
  estimators, 0.2 for the linear ones, 0.3 for the Baseline ones, and for wide & deep
  0.001 for the deep part and ``min(0.005, 1/sqrt(n_linear_columns))`` for the wide part;
- ``input_layer_partitioner`` and ``partitioner`` are accepted: they split variables
  across parameter servers in TF 1's graphs. Here a variable is one array (a checkpoint
  TF 1 wrote partitioned is read whole); see ``docs/tf_differences.md``.

Each class is built from its TF 2 class (:mod:`.estimators`, the one definition) and its
row of :data:`.defaults.TF1`: a subclass whose ``__init__`` has TF 1's signature (its
``__signature__``, which ``inspect.signature`` and ``help`` read) and hands TF 2's
``__init__`` the arguments with the optimizers TF 1 resolves. Values from TF 2.15's
``tensorflow_estimator``, pinned by tests against its signatures and models TF trained.
"""

from __future__ import annotations

import inspect
import typing

from ... import core
from . import baseline
from . import estimators as canned
from .arguments import descriptions, documented
from .defaults import TF1, Changes, NamedOptimizer
from .estimators import OptimizerSpec, linear_learning_rate

V1_OPTIMIZER_NAMES = {
    "Adagrad": core.AdagradOptimizer,
    "Adam": core.AdamOptimizer,
    "Ftrl": core.FtrlOptimizer,
    "RMSProp": core.RMSPropOptimizer,
    "SGD": core.GradientDescentOptimizer,
}
"""The names TF 1's canned estimators take (``optimizers._OPTIMIZER_CLS_NAMES``)."""


def v1_optimizer(optimizer: OptimizerSpec, learning_rate: float, none_ok=False) -> OptimizerSpec:
    """A name as TF 1's ``get_optimizer_instance``: a callable making that TF 1 optimizer
    at ``learning_rate`` with its own defaults; anything else unchanged. An unknown name,
    and ``None`` where TF 1 has no default for it (``none_ok``), are TF's ValueErrors."""
    if optimizer is None and not none_ok:
        raise ValueError("The given object is not an Optimizer instance. Given: None")
    if not isinstance(optimizer, str):
        return optimizer
    if optimizer not in V1_OPTIMIZER_NAMES:
        raise ValueError(
            f"Unsupported optimizer name: {optimizer}. Supported names are: "
            f"{tuple(sorted(V1_OPTIMIZER_NAMES))}"
        )
    cls = V1_OPTIMIZER_NAMES[optimizer]
    return lambda: cls(learning_rate=learning_rate)


def tf1_signature(tf2_class: type, changes: Changes) -> inspect.Signature:
    """TF 1's ``__init__`` signature of ``tf2_class``: its arguments with TF 1's defaults
    and, each before the argument the table names, TF 1's extra arguments (default
    ``None``)."""
    tf2 = inspect.signature(tf2_class.__init__)
    missing = set(changes.accepted.values()) - set(tf2.parameters)
    if missing:
        raise ValueError(f"{tf2_class.__name__} has no arguments {sorted(missing)}")
    extra = {before: name for name, before in changes.accepted.items()}
    parameters = []
    for name, p in tf2.parameters.items():
        if name in extra:
            parameters.append(inspect.Parameter(extra[name], p.kind, default=None))
        parameters.append(p.replace(default=changes.defaults.get(name, p.default)))
    return tf2.replace(parameters=parameters)


def _resolve(arguments: dict, name: str, rule: NamedOptimizer) -> None:
    """Replace ``arguments[name]`` by the optimizer TF 1 makes of it (see the table)."""
    rate = rule.learning_rate
    if rule.part is not None:
        columns = arguments[rule.part] = list(arguments[rule.part] or [])
        if not columns:
            return
        if rule.per_column:
            rate = linear_learning_rate(len(columns), rule.learning_rate)
    arguments[name] = v1_optimizer(arguments[name], rate, none_ok=rule.none_ok)


def tf1_class(tf2_class: type) -> type:
    """``tf.compat.v1.estimator``'s class of ``tf2_class``: a subclass with TF 1's
    signature (:func:`tf1_signature`) and TF 1's named optimizers, documented as TF 2's
    class with the table's descriptions."""
    name = tf2_class.__name__
    changes = TF1[name]
    signature = tf1_signature(tf2_class, changes)

    def __init__(self, *args, **kwargs):
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as e:
            raise TypeError(f"tf.compat.v1.estimator.{name}: {e}") from None
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments["self"]
        for extra in changes.accepted:
            del arguments[extra]
        for argument, rule in changes.optimizers.items():
            _resolve(arguments, argument, rule)
        tf2_class.__init__(self, **arguments)

    __init__.__signature__ = signature
    __init__.__annotations__ = typing.get_type_hints(tf2_class.__init__)  # resolved: read here
    __init__.__qualname__ = f"{name}.__init__"
    namespace = {
        "__init__": __init__,
        "__module__": __name__,
        "__qualname__": name,
        "__doc__": f"``tf.compat.v1.estimator.{name}``: TF 1's defaults (see the module).",
    }
    cls = type(name, (tf2_class,), namespace)
    return documented(**{**descriptions(tf2_class), **changes.docs})(cls)


LinearClassifier = tf1_class(canned.LinearClassifier)
LinearRegressor = tf1_class(canned.LinearRegressor)
DNNClassifier = tf1_class(canned.DNNClassifier)
DNNRegressor = tf1_class(canned.DNNRegressor)
DNNLinearCombinedClassifier = tf1_class(canned.DNNLinearCombinedClassifier)
DNNLinearCombinedRegressor = tf1_class(canned.DNNLinearCombinedRegressor)
BaselineClassifier = tf1_class(baseline.BaselineClassifier)
BaselineRegressor = tf1_class(baseline.BaselineRegressor)
BaselineEstimator = tf1_class(baseline.BaselineEstimator)
