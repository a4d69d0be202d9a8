"""Canned estimators from config dicts (a TOML ``[model]`` table, or the same in JSON).

What a config may say is read off the estimators themselves, so it cannot drift from
them: a model type's keys are its constructor's arguments (``inspect.signature``; all
but ``config``, built from the :class:`RunConfig` fields, which are keys too, and
``weight_column``, which the caller passes), plus a ``<part>learning_rate`` key per
``<part>optimizer`` argument and, for wide & deep, the DNN and linear models' shorter
names (``hidden_units`` for ``dnn_hidden_units``, ...). Unset arguments are left to the
constructor, so its defaults (TF's optimizers and learning rates) apply; an optimizer is
passed as the name or ``{name = ..., <arguments>}`` table written, which the estimator
resolves (:func:`~colonnade.estimators.canned.model.resolve_optimizer`). Feature columns are
built by :func:`colonnade.feature_columns.from_config`. Every error is a
:class:`~colonnade.feature_columns.ConfigError` naming the field.

>>> columns = [{"type": "numeric_column", "key": "x"}]
>>> cfg = parse_estimator_config({"type": "linear_regressor", "feature_columns": columns,
...                               "optimizer": "SGD", "learning_rate": 0.1})
>>> cfg.type, cfg.kwargs["optimizer"], cfg.prediction_keys
('LinearRegressor', {'name': 'SGD', 'learning_rate': 0.1}, ('predictions',))
>>> try:
...     parse_estimator_config({"type": "dnn_classifier", "feature_columns": columns,
...                             "hidden_units": "64"})
... except ConfigError as e:
...     print(e.field, "|", e.message)
model.hidden_units | expected a list of positive integers, got "64"
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ... import core
from ... import feature_columns as fc
from ...feature_columns import config_checks as check
from ...feature_columns.config_checks import ConfigError, Table, did_you_mean, show
from ...feature_columns.embedding_lookup import COMBINERS
from ..heads.classification import RegressionHead, classification_head
from ..networks.dnn import ACTIVATIONS
from ..runtime.run_config import RunConfig
from .estimators import CANNED_ESTIMATORS
from .model import resolve_optimizer

__all__ = [
    "MODEL_ALIASES",
    "MODEL_TYPES",
    "EstimatorConfig",
    "estimator_class",
    "estimator_from_config",
    "parse_estimator_config",
]

MODEL_TYPES = {cls.__name__: cls for cls in CANNED_ESTIMATORS}
"""The estimators a config may name, by class name."""

MODEL_ALIASES = {
    "linear_classifier": "LinearClassifier",
    "linear_regressor": "LinearRegressor",
    "dnn_classifier": "DNNClassifier",
    "dnn_regressor": "DNNRegressor",
    "dnn_linear_combined_classifier": "DNNLinearCombinedClassifier",
    "dnn_linear_combined_regressor": "DNNLinearCombinedRegressor",
    "wide_deep_classifier": "DNNLinearCombinedClassifier",
    "wide_deep_regressor": "DNNLinearCombinedRegressor",
    "wide_and_deep_classifier": "DNNLinearCombinedClassifier",
    "wide_and_deep_regressor": "DNNLinearCombinedRegressor",
}
"""Short names a config may write instead of the class name (case, ``_``, ``-`` ignored)."""

# The linear and DNN estimators' argument names, which a wide & deep config may use for
# the wide & deep estimators' longer ones.
COMBINED_SYNONYMS = {
    "hidden_units": "dnn_hidden_units",
    "activation_fn": "dnn_activation_fn",
    "dropout": "dnn_dropout",
    "sparse_combiner": "linear_sparse_combiner",
}
# Constructor arguments a config does not set as such: `config` is built from the
# RunConfig keys, and `weight_column` names a data column, so the caller passes it.
_NOT_SETTINGS = ("config", "weight_column")
RUN_CONFIG_KEYS = tuple(
    f.name for f in dataclasses.fields(RunConfig) if f.init and f.name != "model_dir"
)
# Arguments holding paths (the caller's resolve_path rewrites them).
_PATH_ARGUMENTS = ("model_dir", "warm_start_from")

# How a config value is checked, by argument name without its "dnn_" / "linear_" part.
# The constructors check values too; these checks come first to name the field and
# refuse what TOML allows but the argument does not mean (true for a step count).
_CHECKS = {
    "model_dir": check.string,
    "warm_start_from": check.string,
    "n_classes": check.integer(2),
    "label_dimension": check.integer(1),
    "loss_reduction": check.choice(
        [r for r in core.Reduction.ALL if r != core.Reduction.NONE] + list(core.Reduction.TF1_NAMES)
    ),
    "hidden_units": check.positive_integers,
    "activation_fn": check.choice(sorted(ACTIVATIONS)),
    "dropout": check.probability,
    "batch_norm": check.boolean,
    "sparse_combiner": check.choice(COMBINERS),
    "learning_rate": check.positive_number,
    "tf_random_seed": check.integer(0),
    "save_checkpoints_steps": check.integer(1),
    "save_checkpoints_secs": check.positive_number,
    "keep_checkpoint_max": check.integer(0),
    "keep_checkpoint_every_n_hours": check.positive_number,
    "log_step_count_steps": check.integer(0),
    "save_summary_steps": check.integer(0),
}
# What a missing required argument's message suggests, by argument name without its part.
_HINTS = {
    "feature_columns": "[[{where}]] tables",
    "hidden_units": "the layer sizes, e.g. {key} = [64, 32]",
}
# A learning rate any optimizer accepts, standing in for the estimator's default (which
# only the estimator decides) while a config's optimizer arguments are tried out.
_TRIAL_LEARNING_RATE = 0.1


def _kind(argument: str) -> str:
    """``dnn_hidden_units`` -> ``hidden_units``: what the argument is, whichever part."""
    return argument.removeprefix("dnn_").removeprefix("linear_")


def _learning_rate_key(optimizer_argument: str) -> str:
    """``dnn_optimizer`` -> ``dnn_learning_rate``: the key that sets its learning rate."""
    return optimizer_argument.removesuffix("optimizer") + "learning_rate"


def _norm(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


def estimator_class(name, where: str = "model.type") -> type:
    """The canned estimator class a config's ``type`` names (class name or alias).

    >>> estimator_class("Wide-Deep-Classifier").__name__
    'DNNLinearCombinedClassifier'
    """
    names = {_norm(n): n for n in MODEL_TYPES} | {_norm(a): n for a, n in MODEL_ALIASES.items()}
    if isinstance(name, str) and _norm(name) in names:
        return MODEL_TYPES[names[_norm(name)]]
    choices = sorted(MODEL_TYPES) + sorted(MODEL_ALIASES)
    raise ConfigError(
        f"unknown model type {show(name)}{did_you_mean(name, choices)} expected one of {choices}",
        where,
    )


def _arguments(cls) -> dict:
    """The constructor arguments of ``cls`` a config sets: name -> inspect.Parameter."""
    params = inspect.signature(cls).parameters
    return {n: p for n, p in params.items() if n not in _NOT_SETTINGS}


def _keys(cls) -> dict:
    """Every key a config of ``cls`` may hold -> the argument it sets (None: RunConfig's
    or the config's own)."""
    arguments = _arguments(cls)
    keys = {"type": None, **{k: None for k in RUN_CONFIG_KEYS}, **{a: a for a in arguments}}
    keys |= {_learning_rate_key(a): a for a in arguments if a.endswith("optimizer")}
    keys |= {short: full for short, full in COMBINED_SYNONYMS.items() if full in arguments}
    return keys


@dataclass(frozen=True)
class EstimatorConfig:
    """A validated model config: the estimator class and its constructor arguments
    (feature columns built, optimizers as names or ``{"name": ...}`` dicts, ``config`` a
    :class:`RunConfig`). ``where`` is the config's dotted path, for messages."""

    estimator_class: type
    kwargs: MappingProxyType
    where: str = "model"

    @property
    def type(self) -> str:
        return self.estimator_class.__name__

    @property
    def model_dir(self) -> str | None:
        return self.kwargs.get("model_dir")

    @property
    def feature_columns(self) -> dict:
        """The feature-column arguments: name (``"dnn_feature_columns"``...) -> columns."""
        return {k: v for k, v in self.kwargs.items() if k.endswith("feature_columns")}

    @property
    def prediction_keys(self) -> tuple:
        """What the estimator's head predicts (``predict_keys`` may select them)."""
        bound = inspect.signature(self.estimator_class).bind_partial(**self.kwargs)
        bound.apply_defaults()
        args = bound.arguments
        if "n_classes" in args:
            head = classification_head(args["n_classes"], args["label_vocabulary"])
        else:
            head = RegressionHead(args["label_dimension"])
        return head.prediction_keys

    def build(self, weight_column=None):
        """A fresh, untrained estimator; ``weight_column`` names the example weights."""
        try:
            return self.estimator_class(**self.kwargs, weight_column=weight_column)
        except (ValueError, TypeError) as e:
            raise ConfigError(str(e), self.where) from e


def parse_estimator_config(model: dict, where: str = "model", resolve_path=None):
    """Validate a model config into an :class:`EstimatorConfig`. ``resolve_path``, when
    given, rewrites its paths (``model_dir``, ``warm_start_from`` and the feature
    columns' vocabulary files), e.g. to read them relative to a config file."""
    if not isinstance(model, dict):
        raise ConfigError(f"expected a table, got {show(model)}", where)
    if "type" not in model:
        raise ConfigError('missing (e.g. type = "dnn_classifier")', f"{where}.type")
    cls = estimator_class(model["type"], f"{where}.type")
    keys = _keys(cls)
    t = Table(model, where, keys, f"not a setting of {cls.__name__}")
    for short, full in COMBINED_SYNONYMS.items():
        if short in t and full in t:
            raise ConfigError(f"set twice, as {t.path(short)} and {t.path(full)}", t.path(full))
    kwargs = {}
    for argument, param in _arguments(cls).items():
        key = next((k for k, a in keys.items() if a == argument and k in t), argument)
        if argument.endswith("optimizer"):
            value = _optimizer(t, argument, param.default)
        elif argument.endswith("feature_columns"):
            value = _feature_columns(t, key, param, resolve_path)
        elif key in t:
            value = t.get(key, _CHECKS.get(_kind(argument)))
        elif param.default is inspect.Parameter.empty:
            hint = _HINTS.get(_kind(argument), "").format(where=t.path(key), key=key)
            raise ConfigError("missing" + (f" ({hint})" if hint else ""), t.path(key))
        else:
            continue
        if value is not None:
            kwargs[argument] = value
    if resolve_path is not None:
        kwargs.update({a: resolve_path(kwargs[a]) for a in _PATH_ARGUMENTS if a in kwargs})
    _check_combined(t, cls, kwargs)
    _check_labels(t, kwargs)
    run = {k: t.get(k, _CHECKS.get(k)) for k in RUN_CONFIG_KEYS if k in t}
    try:
        kwargs["config"] = RunConfig(**run)
    except ValueError as e:
        raise ConfigError(str(e), where) from e
    return EstimatorConfig(cls, MappingProxyType(kwargs), where)


def estimator_from_config(model: dict, *, weight_column=None, where="model", resolve_path=None):
    """The canned estimator a model config describes, untrained (see
    :func:`parse_estimator_config`).

    >>> est = estimator_from_config({"type": "DNNRegressor", "model_dir": "runs/m",
    ...     "hidden_units": [4], "feature_columns": [{"type": "numeric_column", "key": "x"}],
    ...     "tf_random_seed": 1})
    >>> type(est).__name__, est.model_dir, est.config.tf_random_seed
    ('DNNRegressor', 'runs/m', 1)
    """
    return parse_estimator_config(model, where, resolve_path).build(weight_column)


def _feature_columns(t: Table, key, param, resolve_path):
    """The columns at ``key``: a non-empty list of column tables, built."""
    if key not in t:
        if param.default is inspect.Parameter.empty:
            hint = _HINTS["feature_columns"].format(where=t.path(key))
            raise ConfigError(f"missing ({hint})", t.path(key))
        return None
    value, where = t.get(key), t.path(key)
    if not isinstance(value, list) or not value:
        raise ConfigError(
            f"expected a non-empty array of column tables ([[{where}]] entries), got {show(value)}",
            where,
        )
    return fc.from_config(value, where, resolve_path)


def _optimizer(t: Table, argument, default_name):
    """The optimizer at ``argument`` as the estimator takes it: the name written, or a
    ``{"name": ..., <arguments>}`` dict when there are arguments or a learning rate (from
    the argument's ``<part>learning_rate`` key); None when neither key is set. A learning
    rate alone goes with the estimator's default optimizer (the argument's default)."""
    lr_key = _learning_rate_key(argument)
    value, lr = t.get(argument), t.get(lr_key, check.positive_number)
    if value is None and lr is None:
        return None
    where = t.path(argument)
    if value is None:
        spec = {"name": default_name}
    elif isinstance(value, dict):
        if "name" not in value:
            raise ConfigError('missing (the optimizer, e.g. name = "Adam")', f"{where}.name")
        if "learning_rate" in value and lr is not None:
            raise ConfigError(
                f"the learning rate is set twice; keep it here or in {t.path(lr_key)}",
                f"{where}.learning_rate",
            )
        spec = dict(value)
    else:
        spec = {"name": value}
    cls = _optimizer_class(spec["name"], f"{where}.name" if isinstance(value, dict) else where)
    # The estimator passes global_step itself (AdagradDA); the rest are the optimizer's.
    allowed = [a for a in inspect.signature(cls).parameters if a not in _OPTIMIZER_INTERNALS]
    for k in spec:
        if k != "name" and k not in allowed:
            raise check.unknown_name_error(
                k, allowed, f"{where}.{k}", f"not an argument of {cls.__name__}"
            )
    if lr is not None:
        spec["learning_rate"] = lr
    _try_optimizer(spec, where)
    return spec["name"] if len(spec) == 1 else spec


_OPTIMIZER_INTERNALS = ("use_locking", "name", "global_step")


def _optimizer_class(name, where) -> type:
    """The optimizer class ``name`` means (:func:`colonnade.core.optimizer_class`), or a
    ConfigError with a "did you mean" hint."""
    try:
        return core.optimizer_class(name)
    except ValueError:
        names = sorted(core.OPTIMIZERS)
        raise ConfigError(
            f"unknown optimizer {show(name)}{did_you_mean(name, names)} expected one of {names}",
            where,
        ) from None


def _try_optimizer(spec: dict, where) -> None:
    """Build the optimizer ``spec`` once, as the estimator will, so that a bad argument
    value (``l1_regularization_strength = -1``) is reported at its field now."""
    step = core.Variable(np.int64(0), name="global_step", trainable=False, dtype=np.int64)
    try:
        resolve_optimizer(spec, None, _TRIAL_LEARNING_RATE, step)
    except (ValueError, TypeError) as e:
        raise ConfigError(str(e), where) from e


def _check_combined(t: Table, cls, kwargs: dict) -> None:
    """Wide & deep: at least one part, and layer sizes for a DNN part."""
    if not {"linear_feature_columns", "dnn_feature_columns"} <= set(_arguments(cls)):
        return
    if "linear_feature_columns" not in kwargs and "dnn_feature_columns" not in kwargs:
        raise ConfigError(
            "missing; a wide&deep model needs [[model.linear_feature_columns]] or "
            "[[model.dnn_feature_columns]] tables (or both)",
            t.path("linear_feature_columns"),
        )
    if "dnn_feature_columns" in kwargs and "dnn_hidden_units" not in kwargs:
        raise ConfigError(
            "missing (the DNN part's layer sizes, e.g. dnn_hidden_units = [64, 32])",
            t.path("dnn_hidden_units"),
        )


def _check_labels(t: Table, kwargs: dict) -> None:
    """A classifier's ``label_vocabulary``: distinct strings, as many as ``n_classes``
    (which it sets when not given)."""
    vocab = kwargs.get("label_vocabulary")
    if vocab is None:
        return
    where = t.path("label_vocabulary")
    if not isinstance(vocab, list) or not all(isinstance(s, str) for s in vocab):
        raise ConfigError(f"expected a list of strings, got {show(vocab)}", where)
    if len(set(vocab)) != len(vocab) or len(vocab) < 2:
        raise ConfigError(f"expected 2 or more distinct labels, got {show(vocab)}", where)
    n_classes = kwargs.setdefault("n_classes", len(vocab))
    if len(vocab) != n_classes:
        raise ConfigError(
            f"has {len(vocab)} labels but {t.path('n_classes')} is {n_classes}; they must agree",
            where,
        )
