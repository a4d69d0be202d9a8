"""Job configs for the command line: one TOML file says what to train, on what, and where.

``colonnade train|evaluate|predict|export CONFIG.toml`` reads a file like this one
(relative paths are taken from the config file's folder; every key is described in
``docs/config.md``)::

    [data]
    train = "data/train-*.parquet"   # a file, a glob, a folder, or a list of them
    eval = "data/eval.csv"           # the format comes from the extension
    predict = "data/new.csv"
    label = "income_bracket"         # a list of columns when label_dimension > 1
    weight_column = "weight"         # optional per-example loss weights
    batch_size = 64                  # default 32
    epochs = 5                       # default 1
    shuffle = true                   # default true; seeded by model.tf_random_seed

    [model]
    type = "wide_deep_classifier"    # or "DNNLinearCombinedClassifier", "linear_regressor", ...
    model_dir = "runs/census"
    label_vocabulary = ["<=50K", ">50K"]
    dnn_hidden_units = [64, 32]
    dnn_optimizer = "Adam"
    dnn_learning_rate = 0.01
    linear_optimizer = { name = "Ftrl", learning_rate = 0.05, l1_regularization_strength = 0.001 }
    tf_random_seed = 42
    save_checkpoints_steps = 500

    [[model.linear_feature_columns]]
    type = "crossed_column"
    keys = ["education", "occupation"]
    hash_bucket_size = 1000

    [[model.dnn_feature_columns]]
    type = "numeric_column"
    key = "age"

    [[model.dnn_feature_columns]]
    type = "embedding_column"
    dimension = 8
    [model.dnn_feature_columns.categorical_column]   # a nested column: a sub-table
    type = "categorical_column_with_hash_bucket"
    key = "occupation"
    hash_bucket_size = 100

    [predict]
    output = "predictions.parquet"   # .parquet or .csv
    predict_keys = ["probabilities", "classes"]
    keep_columns = ["id"]            # input columns copied in front of the predictions

    [export]
    export_dir = "exports/census"

Feature columns are the :func:`colonnade.feature_columns.to_config` column dicts, one
``[[...]]`` table each. A bad config raises :class:`ConfigError` naming the field:

>>> columns = [{"type": "numeric_column", "key": "x"}]
>>> parse_config({"model": {"type": "dnn_classifier", "model_dir": "m",
...                         "feature_columns": columns, "hidden_units": "64"}})
Traceback (most recent call last):
    ...
colonnade.config.ConfigError: model.hidden_units: expected a list of positive integers, got "64"
>>> job = parse_config({"model": {"type": "linear_classifier", "model_dir": "m",
...                               "feature_columns": columns,
...                               "optimizer": "Adam", "learning_rate": 0.01}})
>>> spec = job.model.optimizers["optimizer"]
>>> job.model.type, spec.class_name, dict(spec.kwargs)
('LinearClassifier', 'AdamOptimizer', {'learning_rate': 0.01})
"""

from __future__ import annotations

import difflib
import inspect
import json
import os
import sys
from dataclasses import dataclass
from types import MappingProxyType

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published as the tomli package
    import tomli as tomllib

from . import estimators as cn_estimators
from . import feature_columns as fc
from . import train as cn_train
from .core import OPTIMIZERS, Reduction
from .estimators.canned import (
    COMBINED_DNN_LEARNING_RATE,
    COMBINED_LINEAR_LEARNING_RATE,
    DNN_LEARNING_RATE,
    linear_learning_rate,
)
from .estimators.dnn import ACTIVATIONS
from .estimators.estimator import NAMED_MOMENTUM
from .estimators.input_fn import DEFAULT_BATCH_SIZE

__all__ = [
    "ConfigError",
    "DataConfig",
    "ExportConfig",
    "JobConfig",
    "ModelConfig",
    "OptimizerSpec",
    "PredictConfig",
    "build_estimator",
    "load_config",
    "parse_config",
]

# File extensions `colonnade predict` writes.
OUTPUT_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}


class ConfigError(ValueError):
    """A job config that cannot be used; ``field`` is the dotted path of the culprit
    (``"model.feature_columns[2].type"``), or None for the file as a whole."""

    def __init__(self, message: str, field: str | None = None):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)


# ---------------------------------------------------------------- the parsed config


@dataclass(frozen=True)
class OptimizerSpec:
    """An optimizer by ``cn.train`` class name and constructor arguments."""

    class_name: str
    kwargs: MappingProxyType

    def build(self):
        """A fresh optimizer instance."""
        return getattr(cn_train, self.class_name)(**self.kwargs)


@dataclass(frozen=True)
class DataConfig:
    """``[data]``: resolved paths (tuples, or None when not given) and batching."""

    train: tuple | None = None
    eval: tuple | None = None
    predict: tuple | None = None
    label: str | tuple | None = None
    weight_column: str | None = None
    batch_size: int = DEFAULT_BATCH_SIZE
    epochs: int = 1
    shuffle: bool = True


@dataclass(frozen=True)
class ModelConfig:
    """``[model]``: the estimator class name, its model_dir, its feature-column lists
    (built columns, by constructor argument), its optimizers (by constructor argument;
    None keeps the estimator's default), its other constructor arguments, and the
    ``RunConfig`` arguments."""

    type: str
    model_dir: str
    feature_columns: MappingProxyType
    optimizers: MappingProxyType
    params: MappingProxyType
    run_config: MappingProxyType

    @property
    def is_classifier(self) -> bool:
        return self.type.endswith("Classifier")


@dataclass(frozen=True)
class PredictConfig:
    """``[predict]``: where predictions go, which keys, which input columns ride along."""

    output: str | None = None
    predict_keys: tuple | None = None
    keep_columns: tuple = ()


@dataclass(frozen=True)
class ExportConfig:
    """``[export]``: the base folder exports are written under."""

    export_dir: str | None = None


@dataclass(frozen=True)
class JobConfig:
    """A whole validated config. ``source`` names where it came from (for messages)."""

    data: DataConfig
    model: ModelConfig
    predict: PredictConfig
    export: ExportConfig
    source: str = "<config>"

    def need(self, field: str, command: str):
        """The value at dotted ``field`` (e.g. ``"data.eval"``), or a ConfigError saying
        that ``command`` needs it."""
        section, key = field.split(".")
        value = getattr(getattr(self, section), key)
        if value is None:
            raise ConfigError(f"missing; `colonnade {command}` needs it", field)
        return value


# ---------------------------------------------------------------- value checks


def _show(value) -> str:
    """A config value as the TOML user wrote it (strings in double quotes)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _unknown(key, valid, where, what="unknown key") -> ConfigError:
    valid = sorted(valid)
    close = difflib.get_close_matches(str(key), valid, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return ConfigError(f"{what}{hint} valid keys: {valid}", where)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _string(v, where):
    if not isinstance(v, str) or not v:
        raise ConfigError(f"expected a non-empty string, got {_show(v)}", where)
    return v


def _strings(v, where):
    """A string or a non-empty list of strings, as a tuple."""
    if isinstance(v, str) and v:
        return (v,)
    if isinstance(v, list) and v and all(isinstance(s, str) and s for s in v):
        return tuple(v)
    raise ConfigError(f"expected a string or a list of strings, got {_show(v)}", where)


def _label(v, where):
    return _strings(v, where)[0] if isinstance(v, str) else _strings(v, where)


def _bool(v, where):
    if not isinstance(v, bool):
        raise ConfigError(f"expected true or false, got {_show(v)}", where)
    return v


def _int(minimum):
    def check(v, where):
        if not _is_int(v) or v < minimum:
            raise ConfigError(f"expected an integer >= {minimum}, got {_show(v)}", where)
        return v

    return check


def _positive_number(v, where):
    if not _is_number(v) or not v > 0:
        raise ConfigError(f"expected a number > 0, got {_show(v)}", where)
    return float(v)


def _dropout(v, where):
    if not _is_number(v) or not 0 <= v < 1:
        raise ConfigError(f"expected a probability in [0, 1), got {_show(v)}", where)
    return float(v)


def _hidden_units(v, where):
    if not isinstance(v, list) or not v or not all(_is_int(u) and u > 0 for u in v):
        raise ConfigError(f"expected a list of positive integers, got {_show(v)}", where)
    return list(v)


def _choice(choices):
    def check(v, where):
        if v not in choices:
            raise ConfigError(f"expected one of {sorted(choices)}, got {_show(v)}", where)
        return v

    return check


def _resolve(path: str, base_dir: str) -> str:
    """``path`` taken from the config file's folder, unless absolute or a URL."""
    path = os.path.expanduser(path)
    if "://" in path or os.path.isabs(path):
        return path
    return os.path.normpath(os.path.join(base_dir, path))


class _Table:
    """One TOML table under validation: its dotted path and the keys it may hold."""

    def __init__(self, value, where, keys, what="unknown key"):
        if not isinstance(value, dict):
            raise ConfigError(f"expected a table, got {_show(value)}", where or None)
        for key in value:
            if key not in keys:
                raise _unknown(key, keys, self._path(where, key), what)
        self.value, self.where = value, where

    @staticmethod
    def _path(where, key):
        return f"{where}.{key}" if where else key

    def path(self, key) -> str:
        return self._path(self.where, key)

    def get(self, key, check=None, default=None, required=False, hint=""):
        """The value of ``key`` passed through ``check(value, path)``; ``default`` when
        absent, or a 'missing' ConfigError when ``required``."""
        if key not in self.value:
            if required:
                raise ConfigError("missing" + (f" ({hint})" if hint else ""), self.path(key))
            return default
        value = self.value[key]
        return check(value, self.path(key)) if check is not None else value


# ---------------------------------------------------------------- model types

# class name -> (family, task)
MODEL_TYPES = {
    "LinearClassifier": ("linear", "classifier"),
    "LinearRegressor": ("linear", "regressor"),
    "DNNClassifier": ("dnn", "classifier"),
    "DNNRegressor": ("dnn", "regressor"),
    "DNNLinearCombinedClassifier": ("combined", "classifier"),
    "DNNLinearCombinedRegressor": ("combined", "regressor"),
}
# Short names users may write instead of the class name (matched ignoring case, "_", "-").
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


def _norm(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


def _model_type(v, where) -> str:
    names = {_norm(n): n for n in MODEL_TYPES} | {_norm(a): n for a, n in MODEL_ALIASES.items()}
    if isinstance(v, str) and _norm(v) in names:
        return names[_norm(v)]
    choices = sorted(MODEL_TYPES) + sorted(MODEL_ALIASES)
    close = difflib.get_close_matches(str(v), choices, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ConfigError(f"unknown model type {_show(v)}{hint} expected one of {choices}", where)


_RUN_KEYS = {
    "tf_random_seed": _int(0),
    "save_checkpoints_steps": _int(1),
    "save_checkpoints_secs": _positive_number,
    "keep_checkpoint_max": _int(0),
    "keep_checkpoint_every_n_hours": _positive_number,
    "log_step_count_steps": _int(0),
    "save_summary_steps": _int(0),
}
_COMMON_KEYS = {"type", "model_dir", "warm_start_from", "loss_reduction", *_RUN_KEYS}
_TASK_KEYS = {"classifier": {"n_classes", "label_vocabulary"}, "regressor": {"label_dimension"}}
_FAMILY_KEYS = {
    "linear": {"feature_columns", "optimizer", "learning_rate", "sparse_combiner"},
    "dnn": {
        "feature_columns",
        "hidden_units",
        "optimizer",
        "learning_rate",
        "activation_fn",
        "dropout",
        "batch_norm",
    },
    "combined": {
        "linear_feature_columns",
        "dnn_feature_columns",
        "dnn_hidden_units",
        "linear_optimizer",
        "linear_learning_rate",
        "dnn_optimizer",
        "dnn_learning_rate",
        "dnn_activation_fn",
        "dnn_dropout",
        "batch_norm",
        "linear_sparse_combiner",
        "hidden_units",
        "activation_fn",
        "dropout",
        "sparse_combiner",
    },
}
# The wide&deep estimators' argument names, and the shorter names of the linear and DNN
# estimators a config may use for them.
_COMBINED_SYNONYMS = {
    "hidden_units": "dnn_hidden_units",
    "activation_fn": "dnn_activation_fn",
    "dropout": "dnn_dropout",
    "sparse_combiner": "linear_sparse_combiner",
}
_SPARSE_COMBINERS = ("sum", "mean", "sqrtn")


# ---------------------------------------------------------------- optimizers


def _optimizer_classes() -> dict:
    """Config names ("Adam", "Ftrl", ...) -> ``cn.train`` class names."""
    return {name: cls.__name__ for name, cls in OPTIMIZERS.items() if name != "AdagradDA"}


def _optimizer_class(v, where) -> str:
    classes = _optimizer_classes()
    by_norm = {_norm(k): c for k, c in classes.items()}
    key = _norm(v) if isinstance(v, str) else None
    if key is not None and key.endswith("optimizer"):
        key = key[: -len("optimizer")]
    if key in by_norm:
        return by_norm[key]
    close = difflib.get_close_matches(str(v), sorted(classes), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ConfigError(
        f"unknown optimizer {_show(v)}{hint} expected one of {sorted(classes)}", where
    )


def _optimizer(model: _Table, key, lr_key, default_class, default_lr):
    """The optimizer at ``model[key]`` (a name, or a table ``{name = ..., <arguments>}``)
    with the learning rate at ``model[lr_key]``; None when neither is set."""
    value = model.get(key)
    lr = model.get(lr_key, _positive_number)
    if value is None and lr is None:
        return None
    where = model.path(key)
    kwargs = {}
    if value is None:
        class_name = default_class
    elif isinstance(value, dict):
        if "name" not in value:
            raise ConfigError('missing (the optimizer, e.g. name = "Adam")', f"{where}.name")
        class_name = _optimizer_class(value["name"], f"{where}.name")
        kwargs = {k: v for k, v in value.items() if k != "name"}
        if "learning_rate" in kwargs and lr is not None:
            raise ConfigError(
                f"the learning rate is set twice; keep it here or in {model.path(lr_key)}",
                f"{where}.learning_rate",
            )
    else:
        class_name = _optimizer_class(value, where)
    cls = getattr(cn_train, class_name)
    allowed = [p for p in inspect.signature(cls).parameters if p not in ("use_locking", "name")]
    for k in kwargs:
        if k not in allowed:
            raise _unknown(k, allowed, f"{where}.{k}", f"not an argument of {class_name}")
    if lr is not None:
        kwargs["learning_rate"] = lr
    # A named optimizer without a learning rate gets the estimator's default rate, as
    # resolve_optimizer (and tf.estimator) give it.
    kwargs.setdefault("learning_rate", default_lr)
    if class_name == "MomentumOptimizer":
        kwargs.setdefault("momentum", NAMED_MOMENTUM)
    try:
        cls(**kwargs)
    except (ValueError, TypeError) as e:
        raise ConfigError(str(e), where) from e
    return OptimizerSpec(class_name, MappingProxyType(kwargs))


# ---------------------------------------------------------------- feature columns


def _feature_columns(v, where, base_dir) -> tuple:
    if not isinstance(v, list) or not v:
        raise ConfigError(
            f"expected a non-empty array of column tables ([[{where}]] entries), got {_show(v)}",
            where,
        )
    try:
        return tuple(fc.from_config(v, where, lambda path: _resolve(path, base_dir)))
    except fc.ConfigError as e:
        raise ConfigError(e.message, e.field) from e


# ---------------------------------------------------------------- sections


def _data(table, base_dir) -> DataConfig:
    keys = {"train", "eval", "predict", "label", "weight_column", "batch_size", "epochs"}
    t = _Table(table, "data", keys | {"shuffle"})

    def paths(key):
        found = t.get(key, _strings)
        return None if found is None else tuple(_resolve(p, base_dir) for p in found)

    train, eval_, predict = paths("train"), paths("eval"), paths("predict")
    needs_label = train is not None or eval_ is not None
    return DataConfig(
        train=train,
        eval=eval_,
        predict=predict,
        label=t.get("label", _label, required=needs_label, hint='the label column, e.g. "y"'),
        weight_column=t.get("weight_column", _string),
        batch_size=t.get("batch_size", _int(1), DEFAULT_BATCH_SIZE),
        epochs=t.get("epochs", _int(1), 1),
        shuffle=t.get("shuffle", _bool, True),
    )


def _head_params(t: _Table, task) -> dict:
    if task == "regressor":
        return {"label_dimension": t.get("label_dimension", _int(1), 1)}
    vocab = t.get("label_vocabulary")
    if vocab is not None:
        where = t.path("label_vocabulary")
        if not isinstance(vocab, list) or not all(isinstance(s, str) for s in vocab):
            raise ConfigError(f"expected a list of strings, got {_show(vocab)}", where)
        if len(set(vocab)) != len(vocab) or len(vocab) < 2:
            raise ConfigError(f"expected 2 or more distinct labels, got {_show(vocab)}", where)
    n_classes = t.get("n_classes", _int(2), len(vocab) if vocab else 2)
    if vocab is not None and len(vocab) != n_classes:
        raise ConfigError(
            f"has {len(vocab)} labels but model.n_classes is {n_classes}; they must agree",
            t.path("label_vocabulary"),
        )
    return {"n_classes": n_classes, "label_vocabulary": vocab}


def _model(table, base_dir) -> ModelConfig:
    if not isinstance(table, dict):
        raise ConfigError(f"expected a table, got {_show(table)}", "model")
    if "type" not in table:
        raise ConfigError('missing (e.g. type = "dnn_classifier")', "model.type")
    cls_name = _model_type(table["type"], "model.type")
    family, task = MODEL_TYPES[cls_name]
    keys = _COMMON_KEYS | _TASK_KEYS[task] | _FAMILY_KEYS[family]
    t = _Table(table, "model", keys, f"not a setting of {cls_name}")
    model_dir = _resolve(
        t.get("model_dir", _string, required=True, hint="where checkpoints go"), base_dir
    )
    params = _head_params(t, task)
    reduction = t.get("loss_reduction", _choice([r for r in Reduction.ALL if r != "none"]))
    if reduction is not None:
        params["loss_reduction"] = reduction
    warm = t.get("warm_start_from", _string)
    if warm is not None:
        params["warm_start_from"] = _resolve(warm, base_dir)
    activation = _choice(sorted(ACTIVATIONS))
    combiner = _choice(_SPARSE_COMBINERS)
    columns, optimizers = {}, {}
    if family in ("linear", "dnn"):
        cols = _feature_columns(
            t.get("feature_columns", required=True, hint="[[model.feature_columns]] tables"),
            "model.feature_columns",
            base_dir,
        )
        columns["feature_columns"] = cols
    if family == "linear":
        params["sparse_combiner"] = t.get("sparse_combiner", combiner, "sum")
        optimizers["optimizer"] = _optimizer(
            t, "optimizer", "learning_rate", "FtrlOptimizer", linear_learning_rate(len(cols))
        )
    elif family == "dnn":
        params["hidden_units"] = t.get(
            "hidden_units", _hidden_units, required=True, hint="e.g. hidden_units = [64, 32]"
        )
        params["activation_fn"] = t.get("activation_fn", activation, "relu")
        params["dropout"] = t.get("dropout", _dropout)
        params["batch_norm"] = t.get("batch_norm", _bool, False)
        optimizers["optimizer"] = _optimizer(
            t, "optimizer", "learning_rate", "AdagradOptimizer", DNN_LEARNING_RATE
        )
    else:
        for short, full in _COMBINED_SYNONYMS.items():
            if short in table and full in table:
                raise ConfigError(f"set twice, as model.{short} and model.{full}", f"model.{full}")
        if "linear_feature_columns" not in table and "dnn_feature_columns" not in table:
            raise ConfigError(
                "missing; a wide&deep model needs [[model.linear_feature_columns]] or "
                "[[model.dnn_feature_columns]] tables (or both)",
                "model.linear_feature_columns",
            )
        for key in ("linear_feature_columns", "dnn_feature_columns"):
            if key in table:
                columns[key] = _feature_columns(table[key], f"model.{key}", base_dir)

        def pick(full, check, default=None, required=False, hint=""):
            short = next(s for s, f in _COMBINED_SYNONYMS.items() if f == full)
            key = short if short in table else full
            return t.get(key, check, default, required, hint)

        if "dnn_feature_columns" in columns:
            params["dnn_hidden_units"] = pick(
                "dnn_hidden_units",
                _hidden_units,
                required=True,
                hint="the DNN part's layer sizes, e.g. dnn_hidden_units = [64, 32]",
            )
        params["dnn_activation_fn"] = pick("dnn_activation_fn", activation, "relu")
        params["dnn_dropout"] = pick("dnn_dropout", _dropout)
        params["batch_norm"] = t.get("batch_norm", _bool, False)
        params["linear_sparse_combiner"] = pick("linear_sparse_combiner", combiner, "sum")
        n_linear = len(columns.get("linear_feature_columns", ()))
        optimizers["linear_optimizer"] = _optimizer(
            t,
            "linear_optimizer",
            "linear_learning_rate",
            "FtrlOptimizer",
            linear_learning_rate(n_linear, COMBINED_LINEAR_LEARNING_RATE),
        )
        optimizers["dnn_optimizer"] = _optimizer(
            t, "dnn_optimizer", "dnn_learning_rate", "AdagradOptimizer", COMBINED_DNN_LEARNING_RATE
        )
    run = {k: t.get(k, check) for k, check in _RUN_KEYS.items() if k in table}
    try:
        cn_estimators.RunConfig(model_dir=model_dir, **run)
    except ValueError as e:
        raise ConfigError(str(e), "model") from e
    return ModelConfig(
        type=cls_name,
        model_dir=model_dir,
        feature_columns=MappingProxyType(columns),
        optimizers=MappingProxyType(optimizers),
        params=MappingProxyType(params),
        run_config=MappingProxyType(run),
    )


def _prediction_keys(model: ModelConfig) -> list:
    if not model.is_classifier:
        return ["predictions"]
    keys = ["class_ids", "classes", "logits", "probabilities"]
    return keys + ["logistic"] if model.params["n_classes"] == 2 else keys


def _predict(table, base_dir, model: ModelConfig) -> PredictConfig:
    t = _Table(table, "predict", {"output", "predict_keys", "keep_columns"})
    output = t.get("output", _string)
    if output is not None:
        ext = os.path.splitext(output)[1].lower()
        if ext not in OUTPUT_FORMATS:
            raise ConfigError(
                f"cannot tell the output format from {output!r}; end it with one of "
                f"{sorted(OUTPUT_FORMATS)}",
                "predict.output",
            )
        output = _resolve(output, base_dir)
    keys = t.get("predict_keys", _strings)
    if keys is not None:
        valid = _prediction_keys(model)
        for k in keys:
            if k not in valid:
                close = difflib.get_close_matches(k, valid, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ConfigError(
                    f"{k!r} is not a prediction of {model.type}{hint} choose from {valid}",
                    "predict.predict_keys",
                )
    return PredictConfig(output, keys, t.get("keep_columns", _strings, ()))


def parse_config(mapping, base_dir=".", source="<config>") -> JobConfig:
    """Validate a parsed TOML document (a dict) into a :class:`JobConfig`; relative paths
    are taken from ``base_dir``."""
    top = _Table(mapping, "", {"data", "model", "predict", "export"}, "unknown section")
    if "model" not in mapping:
        raise ConfigError("missing; every config needs a [model] table", "model")
    model = _model(mapping["model"], base_dir)
    data = _data(top.get("data", default={}), base_dir)
    predict = _predict(top.get("predict", default={}), base_dir, model)
    export_table = _Table(top.get("export", default={}), "export", {"export_dir"})
    export_dir = export_table.get("export_dir", _string)
    export = ExportConfig(None if export_dir is None else _resolve(export_dir, base_dir))
    return JobConfig(data, model, predict, export, source)


def load_config(path) -> JobConfig:
    """Read and validate the TOML config at ``path``. Raises ``FileNotFoundError`` when
    it does not exist and :class:`ConfigError` when it is not valid."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        try:
            mapping = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"not valid TOML: {e}") from e
    return parse_config(mapping, os.path.dirname(os.path.abspath(path)), path)


def build_estimator(job: JobConfig):
    """The configured canned estimator (``cn.estimators.<type>``), not yet trained."""
    model = job.model
    kwargs = dict(model.params)
    kwargs.update({k: list(v) for k, v in model.feature_columns.items()})
    kwargs.update({k: spec.build() for k, spec in model.optimizers.items() if spec is not None})
    kwargs["weight_column"] = job.data.weight_column
    kwargs["config"] = cn_estimators.RunConfig(model_dir=model.model_dir, **model.run_config)
    try:
        return getattr(cn_estimators, model.type)(**kwargs)
    except (ValueError, TypeError) as e:
        raise ConfigError(str(e), "model") from e
