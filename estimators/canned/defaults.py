"""Each TF version's canned-estimator defaults, as one table.

TF 2's six classes (:mod:`.estimators`) are the one definition of the canned estimators,
with ``tf.estimator``'s signatures and defaults. :data:`TF1` says, for each of them, what
``tf.compat.v1.estimator``'s class of that name changes, and :mod:`.v1` builds TF 1's
classes from the two (the Baseline estimators' too, :mod:`.baseline`). The rows are TF
2.15's ``tensorflow_estimator`` (``canned/dnn.py``, ``linear.py``,
``dnn_linear_combined.py``, ``baseline.py``, ``optimizers.py``); ``tests/estimators/
test_canned_defaults.py`` checks them against TF's own signatures and learning rates
(``golden/tf_canned_signatures.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

TF1_LOSS_REDUCTION = "weighted_sum"


@dataclass(frozen=True)
class NamedOptimizer:
    """How TF 1 makes the optimizer of an argument given by name (its
    ``get_optimizer_instance``): TF 1's optimizer of that name at ``learning_rate``."""

    learning_rate: float
    part: str | None = None
    """The columns argument of the part the optimizer trains: a part without columns is
    not built, and its optimizer argument is left as given."""
    per_column: bool = False
    """The rate is ``min(learning_rate, 1 / sqrt(len(part's columns)))`` (TF 1's wide part)."""
    none_ok: bool = False
    """``None`` goes to TF 2's default; otherwise it is TF 1's ValueError."""


@dataclass(frozen=True)
class Changes:
    """What one TF 1 class changes in its TF 2 class's constructor."""

    defaults: Mapping[str, object]
    """The arguments whose default TF 1 changes, with TF 1's."""
    accepted: Mapping[str, str]
    """TF 1's extra arguments, each with the TF 2 argument it stands before. They split
    variables across parameter servers in TF 1's graphs; here they are accepted and unused
    (a variable is one array; ``docs/tf_differences.md``)."""
    optimizers: Mapping[str, NamedOptimizer]
    """The optimizer arguments, with how TF 1 resolves a name given to each."""
    docs: Mapping[str, str] = field(default_factory=dict)
    """The ``Args`` descriptions that differ from the TF 2 class's."""


_TF1_DOCS = {
    "loss_reduction": (
        'how per-example losses become the training loss; TF 1\'s default ``"weighted_sum"``: '
        "their weighted sum over the batch (see ``cn.core.Reduction``)."
    ),
    "input_layer_partitioner": (
        "accepted for TF 1's signature and not used: variables are not partitioned here."
    ),
    "partitioner": "accepted for TF 1's signature and not used: variables are not partitioned.",
}
_TF1_DEFAULTS = MappingProxyType({"loss_reduction": TF1_LOSS_REDUCTION})

_LINEAR = Changes(
    _TF1_DEFAULTS,
    {"partitioner": "warm_start_from"},
    {"optimizer": NamedOptimizer(0.2, none_ok=True)},  # linear.py's _LEARNING_RATE
    {
        **_TF1_DOCS,
        "optimizer": (
            "a name (``\"Ftrl\"``, TF 1's default) for TF 1's optimizer at learning rate 0.2, an "
            "optimizer instance, a callable returning one, or ``None`` for Ftrl at "
            "``min(0.2, 1/sqrt(len(feature_columns)))``."
        ),
    },
)
_DNN = Changes(
    _TF1_DEFAULTS,
    {"input_layer_partitioner": "config"},
    {"optimizer": NamedOptimizer(0.05)},  # dnn.py's _LEARNING_RATE
    {
        **_TF1_DOCS,
        "optimizer": (
            'a name (``"Adagrad"``, TF 1\'s default; ``"Adam"``, ``"Ftrl"``, ``"RMSProp"``, '
            '``"SGD"``) for TF 1\'s optimizer at learning rate 0.05, an optimizer instance or a '
            "callable returning one (``None`` is TF 1's ValueError)."
        ),
    },
)
_COMBINED = Changes(
    _TF1_DEFAULTS,
    {"input_layer_partitioner": "config"},
    {  # dnn_linear_combined.py's _LINEAR_LEARNING_RATE and _DNN_LEARNING_RATE
        "linear_optimizer": NamedOptimizer(0.005, "linear_feature_columns", per_column=True),
        "dnn_optimizer": NamedOptimizer(0.001, "dnn_feature_columns"),
    },
    {
        **_TF1_DOCS,
        "linear_optimizer": (
            "the wide part's optimizer: a name (``\"Ftrl\"``, TF 1's default) at learning rate "
            "``min(0.005, 1/sqrt(len(linear_feature_columns)))``, an instance or a callable "
            "(``None`` is TF 1's ValueError)."
        ),
        "dnn_optimizer": (
            "the deep part's optimizer: a name (``\"Adagrad\"``, TF 1's default) at learning "
            "rate 0.001, an instance or a callable (``None`` is TF 1's ValueError)."
        ),
    },
)
_BASELINE_OPTIMIZER = {"optimizer": NamedOptimizer(0.3)}  # baseline.py's _LEARNING_RATE
_BASELINE_OPTIMIZER_DOC = (
    "a name (``\"Ftrl\"``, TF 1's default) for TF 1's optimizer at learning rate 0.3, an "
    "optimizer instance or a callable returning one (``None`` is TF 1's ValueError)."
)
_BASELINE = Changes(
    _TF1_DEFAULTS, {}, _BASELINE_OPTIMIZER, {**_TF1_DOCS, "optimizer": _BASELINE_OPTIMIZER_DOC}
)
_BASELINE_HEAD = Changes({}, {}, _BASELINE_OPTIMIZER, {"optimizer": _BASELINE_OPTIMIZER_DOC})

TF1 = MappingProxyType(
    {
        "LinearClassifier": _LINEAR,
        "LinearRegressor": _LINEAR,
        "DNNClassifier": _DNN,
        "DNNRegressor": _DNN,
        "DNNLinearCombinedClassifier": _COMBINED,
        "DNNLinearCombinedRegressor": _COMBINED,
        "BaselineClassifier": _BASELINE,
        "BaselineRegressor": _BASELINE,
        "BaselineEstimator": _BASELINE_HEAD,
    }
)
"""TF 1's changes to each TF 2 canned estimator, by class name."""
