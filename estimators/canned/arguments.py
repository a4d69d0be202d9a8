"""The canned estimators' arguments, described once, and the ``Args`` sections made from
them: each class's docstring lists its ``__init__`` arguments in order (see
:func:`documented`), TF 2's classes (:mod:`.estimators`) and TF 1's (:mod:`.v1`) alike.
"""

from __future__ import annotations

import inspect
import textwrap

LINEAR_COLUMNS = (
    "the model's columns (TF: required): categorical ones get a weight per id, trained with "
    "sparse updates; dense ones a weight per value."
)
DNN_COLUMNS = (
    "the model's dense columns (TF: required): numeric, bucketized, indicator and embedding "
    "columns; wrap a categorical column in ``indicator_column`` or ``embedding_column``."
)
LINEAR_OPTIMIZER = (
    'a name (``"Ftrl"``, TF\'s default, at learning rate 0.2), a ``{"name": ..., '
    "**arguments}`` dict, an optimizer instance, a callable returning one, or ``None`` for "
    "Ftrl at ``min(0.2, 1/sqrt(len(feature_columns)))``."
)
DNN_OPTIMIZER = (
    "a name (``\"Adagrad\"``, TF's default) at Keras' default learning rate for it (0.001; "
    '0.01 for ``"SGD"``, ``"Momentum"``, ``"ProximalSGD"``), a ``{"name": ..., '
    "**arguments}`` dict, an optimizer instance, a callable returning one, or ``None`` for "
    "Adagrad at 0.001."
)
DEEP_BATCH_NORM = (
    "batch normalization after each hidden layer of the deep part (TF's default ``False``)."
)
ARGUMENTS = {
    "feature_columns": LINEAR_COLUMNS,
    "model_dir": (
        "where checkpoints and TensorBoard event files go (TF's default ``None``): ``None`` "
        "takes ``config.model_dir``, else a new temporary directory (with a warning). "
        "Training resumes from the newest checkpoint found there."
    ),
    "n_classes": (
        "number of label classes, at least 2 (TF's default 2). Two classes get a logistic "
        "head, more a softmax head."
    ),
    "label_dimension": (
        "numbers predicted per example (TF's default 1); the label has as many columns."
    ),
    "weight_column": (
        "a column name or ``numeric_column`` giving each example's weight in the loss and "
        "metrics (TF's default ``None``: every example weighs 1)."
    ),
    "label_vocabulary": (
        "the label's string values, in class-id order (TF's default ``None``: labels are "
        "integer class ids in ``[0, n_classes)``)."
    ),
    "optimizer": LINEAR_OPTIMIZER,
    "config": (
        "a :class:`RunConfig`: seed, checkpoint and summary schedules (TF's default "
        "``None``: ``RunConfig()``)."
    ),
    "warm_start_from": (
        "a checkpoint path, or a :class:`WarmStartSettings`, to initialize variables from "
        "when ``model_dir`` has no checkpoint yet (TF's default ``None``)."
    ),
    "loss_reduction": (
        "how per-example losses become the training loss, one of ``cn.core.Reduction`` or "
        "TF1's names (``\"weighted_sum\"``...; see ``Reduction.resolve``). TF 2's default "
        "``SUM_OVER_BATCH_SIZE``: the weighted sum over the batch size; TF 1's canned "
        'estimators used ``"weighted_sum"``.'
    ),
    "sparse_combiner": (
        "how the weights of a multivalent categorical column's ids in one example combine: "
        '``"sum"`` (TF\'s default), ``"mean"`` or ``"sqrtn"``.'
    ),
    "hidden_units": "the hidden layers' sizes, e.g. ``[64, 32]`` (TF: required).",
    "activation_fn": (
        'the hidden layers\' activation, a name (``"relu"``, TF\'s default; also ``"relu6"``, '
        '``"elu"``, ``"selu"``, ``"leaky_relu"``, ``"sigmoid"``, ``"tanh"``, ``"softplus"``, '
        '``"linear"``) or a function of a Tensor.'
    ),
    "dropout": (
        "the probability of dropping a hidden unit while training, in ``[0, 1)`` (TF's "
        "default ``None``: no dropout)."
    ),
    "batch_norm": "batch normalization after each hidden layer (TF's default ``False``).",
    "linear_feature_columns": (
        "the wide part's columns (TF's default ``None``: no linear part); categorical ones "
        "get sparse weights."
    ),
    "linear_optimizer": (
        "the wide part's optimizer: a name (``\"Ftrl\"``, TF's default), a dict, an instance "
        "or a callable, as for ``LinearClassifier``; a name or ``None`` gets learning rate "
        "``min(0.005, 1/sqrt(len(linear_feature_columns)))``."
    ),
    "dnn_feature_columns": (
        "the deep part's dense columns (TF's default ``None``: no DNN part). At least one of "
        "the two column lists must be given."
    ),
    "dnn_optimizer": (
        "the deep part's optimizer (``\"Adagrad\"``, TF's default); a name or ``None`` gets "
        "learning rate 0.001."
    ),
    "dnn_hidden_units": "the hidden layers' sizes; required with ``dnn_feature_columns``.",
    "dnn_activation_fn": (
        "the hidden layers' activation, a name (``\"relu\"``, TF's default) or a function, "
        "as ``DNNClassifier``'s ``activation_fn``."
    ),
    "dnn_dropout": (
        "the probability of dropping a hidden unit while training (TF's default ``None``: "
        "no dropout)."
    ),
    "linear_sparse_combiner": (
        "how the wide part combines a multivalent column's ids (``\"sum\"``, TF's default, "
        '``"mean"`` or ``"sqrtn"``).'
    ),
}
"""The canned estimators' arguments, described once: each class's docstring gets an
``Args`` section made from its ``__init__`` signature (see :func:`documented`)."""


_DESCRIPTIONS: dict[type, dict[str, str]] = {}


def documented(**overrides):
    """Append to a class's docstring an ``Args`` section listing its ``__init__``
    arguments in order (its ``__signature__`` where it has one), each described by
    :data:`ARGUMENTS`, or by ``overrides`` for the arguments whose meaning differs in that
    class; :func:`descriptions` gives them back."""

    def decorate(cls):
        names = [n for n in inspect.signature(cls.__init__).parameters if n != "self"]
        texts = {name: overrides.get(name) or ARGUMENTS[name] for name in names}
        lines = ["", "", "    Args:"]
        for name, text in texts.items():
            lines += textwrap.wrap(
                f"{name}: {text}",
                width=92,
                initial_indent="        ",
                subsequent_indent="            ",
                break_on_hyphens=False,
            )
        cls.__doc__ = cls.__doc__.rstrip() + "\n".join(lines) + "\n    "
        _DESCRIPTIONS[cls] = texts
        return cls

    return decorate


def descriptions(cls) -> dict[str, str]:
    """What the ``Args`` section of ``cls`` (a class :func:`documented` made) says of each
    argument, in order: a TF 1 class starts from its TF 2 class's."""
    if cls not in _DESCRIPTIONS:
        raise KeyError(f"{cls.__qualname__} has no generated Args section (see documented)")
    return dict(_DESCRIPTIONS[cls])
