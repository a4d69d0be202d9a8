"""The adapters' docstrings: the canned estimators' ``Args:`` entries, copied, with the
adapters' own meaning where it differs and the arguments they add."""

from __future__ import annotations

import inspect
import textwrap

__all__ = ["ADAPTER_ARGUMENTS", "PICKLE_NOTE", "document"]

PICKLE_NOTE = textwrap.fill(
    "Pickling: a fitted adapter pickles (``pickle``, ``joblib``) with its model as the "
    "bytes of its pickle-free export. Unpickling runs the code a pickle names, so load "
    "pickles only from sources you trust; to share a model, send "
    "``estimator_.export_saved_model(folder)``'s export and read it with ``cn.load``.",
    width=88,
)

_COLUMNS_FROM_X = (
    "``None`` (the adapters' default; TF: required) builds them from ``X`` at each fit "
    "(``{fitted}``): for numeric ``X`` one ``numeric_column`` per column, standardized by "
    "its mean and standard deviation; otherwise colonnade's zero-configuration rules "
    "(:func:`colonnade.feature_columns.infer`, its {part} columns)."
)
_NAMED_OPTIMIZER = (
    "a name (``{default}``, the adapters' default; see ``{rate}`` for its learning rate), a "
    '``{{{{"name": ..., **arguments}}}}`` dict, an optimizer instance (keeps its own learning '
    "rate) or a callable returning one."
)
_RATE = (
    "the learning rate of ``{optimizer}`` when it is a name or a dict without one (default "
    "{value}, see :mod:`colonnade.sklearn`); ``None``: the canned estimator's rule."
)

# Where an adapter's meaning differs from the canned estimator's, or what it adds.
ADAPTER_ARGUMENTS = {
    "feature_columns": None,  # per adapter: see _column_text
    "linear_feature_columns": _COLUMNS_FROM_X.format(fitted="linear_feature_columns_", part="wide")
    + " With either given, only the given ones are used.",
    "dnn_feature_columns": _COLUMNS_FROM_X.format(fitted="dnn_feature_columns_", part="deep")
    + " Used when ``dnn_hidden_units`` is not None.",
    "hidden_units": "the hidden layers' sizes (default {hidden_units}; TF: required).",
    "dnn_hidden_units": "the deep part's hidden layers' sizes (default {dnn_hidden_units}).",
    "optimizer": _NAMED_OPTIMIZER.format(default="{optimizer!r}", rate="learning_rate"),
    "linear_optimizer": _NAMED_OPTIMIZER.format(
        default="{linear_optimizer!r}", rate="linear_learning_rate"
    ),
    "dnn_optimizer": _NAMED_OPTIMIZER.format(default="{dnn_optimizer!r}", rate="dnn_learning_rate"),
    "model_dir": (
        "``None`` (the default): each fit trains in a new temporary directory, removed "
        "when refit or garbage collected; a directory: each fit gets a new sub-directory "
        "``model_dir/fit-<random>`` (``model_dir_``). A fit never resumes."
    ),
    "config": (
        "a :class:`RunConfig` (default ``None``: ``RunConfig(log_step_count_steps=0)``); "
        "its ``model_dir`` is replaced as ``model_dir`` says, its ``tf_random_seed`` by "
        "``random_state``'s seed."
    ),
    "n_classes": (
        "ignored, with a warning, when ``y`` has another number of classes: the classes "
        "are ``label_vocabulary``, else the sorted distinct values of ``y`` (``classes_``)."
    ),
    "label_vocabulary": (
        "the classes, in order (``classes_``); default ``None``: the sorted distinct values "
        "of ``y``, which may be any labels."
    ),
    "learning_rate": _RATE.format(optimizer="optimizer", value="{learning_rate}"),
    "linear_learning_rate": _RATE.format(
        optimizer="linear_optimizer", value="{linear_learning_rate}"
    ),
    "dnn_learning_rate": _RATE.format(optimizer="dnn_optimizer", value="{dnn_learning_rate}"),
    "epochs": "passes over the data in each ``fit`` (default {epochs}).",
    "batch_size": "rows per training step (default {batch_size}).",
    "random_state": (
        "the seed of the initial weights, dropout and shuffles: an int makes two fits "
        "identical; ``None`` (default) or a ``RandomState`` draws one (``None`` keeps "
        "``config.tf_random_seed`` when set)."
    ),
    "verbose": "``fit``'s progress output: 0 (default) none, 1 a bar, 2 a line per epoch.",
}


def _column_text(cls) -> str:
    part = "deep" if "hidden_units" in inspect.signature(cls.__init__).parameters else "wide"
    return _COLUMNS_FROM_X.format(fitted="feature_columns_", part=part)


def _entry(name: str, text: str) -> list[str]:
    return textwrap.wrap(
        f"{name}: {text}", width=88, initial_indent="    ", subsequent_indent="        "
    )


def _args_section(cls, defaults: dict) -> list[str]:
    """The canned estimator's ``Args:`` entries, as indented lines, each argument of
    :data:`ADAPTER_ARGUMENTS` with the adapter's text instead, then the added ones."""
    lines = inspect.cleandoc(cls._canned.__doc__ or "").splitlines()
    if "Args:" not in lines:
        raise ValueError("the canned estimator's docstring has no Args: section to copy")
    own = dict(ADAPTER_ARGUMENTS, feature_columns=_column_text(cls))
    entries, skipping, seen = [], False, set()
    for line in lines[lines.index("Args:") + 1 :]:
        if not line.startswith(" "):  # a blank line or the next section ends it
            break
        if not line.startswith("     "):  # a new entry: "    name: text"
            name = line.strip().split(":", 1)[0]
            seen.add(name)
            skipping = name in own
            if skipping:
                entries += _entry(name, own[name].format(**defaults))
        if not skipping:
            entries.append(line)
    for name in inspect.signature(cls.__init__).parameters:
        if name != "self" and name not in seen:
            entries += _entry(name, own[name].format(**defaults))
    return entries


def document(cls):
    """Give an adapter its docstring: what it is, and an ``Args:`` section made of the
    canned estimator's entries and the adapter's own (defaults filled in)."""
    parameters = inspect.signature(cls.__init__).parameters
    defaults = {n: p.default for n, p in parameters.items() if n != "self"}
    summary = textwrap.fill(
        f"Arguments: those of :class:`colonnade.estimators.{cls.__name__}`, with the same "
        "meaning and defaults except for the feature columns (built from ``X`` when "
        "``None``), the optimizers and hidden units (defaults chosen for scikit-learn "
        "users, see :mod:`colonnade.sklearn`); plus learning rates, ``epochs``, "
        "``batch_size``, ``random_state`` and ``verbose``.",
        width=88,
    )
    cls.__doc__ = "\n".join(
        [
            f"{cls.__name__} as a scikit-learn estimator (see :mod:`colonnade.sklearn`).",
            "",
            summary,
            "",
            PICKLE_NOTE,
            "",
            "Args:",
            *_args_section(cls, defaults),
        ]
    )
    return cls
