"""Job configs for the command line: one TOML file says what to train, on what, and where.

``colonnade train|evaluate|predict|export CONFIG.toml`` reads a file like this one
(relative paths are taken from the config file's folder, ``colonnade:...`` ones from the
installed package; every key is described in ``docs/config.md``)::

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

The ``[model]`` table is an estimator config
(:func:`colonnade.estimators.canned.from_config.parse_estimator_config`, which also builds its
feature columns, the :func:`colonnade.feature_columns.to_config` column dicts, one
``[[...]]`` table each); this module adds the job around it: the ``[data]``, ``[predict]``
and ``[export]`` tables, and paths taken from the config file's folder. A bad config
raises :class:`ConfigError` naming the field:

>>> columns = [{"type": "numeric_column", "key": "x"}]
>>> try:
...     parse_config({"model": {"type": "dnn_classifier", "model_dir": "m",
...                             "feature_columns": columns, "hidden_units": [8]},
...                   "predict": {"predict_keys": ["all_classes", "clases"]}})
... except ConfigError as e:
...     print(e.field, "|", e.message.split(";")[0])
predict.predict_keys | 'clases' is not a prediction of DNNClassifier
>>> job = parse_config({"model": {"type": "linear_classifier", "model_dir": "m",
...                               "feature_columns": columns,
...                               "optimizer": "Adam", "learning_rate": 0.01}})
>>> job.model.type, job.model.kwargs["optimizer"]
('LinearClassifier', {'name': 'Adam', 'learning_rate': 0.01})
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, replace

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published as the tomli package
    import tomli as tomllib

from ..data.dataset import MAX_ROWS
from ..estimators.canned.from_config import EstimatorConfig, parse_estimator_config
from ..estimators.inputs.input_fn import DEFAULT_BATCH_SIZE
from ..feature_columns import config_checks as check
from ..feature_columns.config_checks import ConfigError, Table, did_you_mean

__all__ = [
    "ConfigError",
    "DataConfig",
    "ExportConfig",
    "JobConfig",
    "PredictConfig",
    "load_config",
    "parse_config",
]

# File extensions `colonnade predict` writes.
OUTPUT_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}
# The largest config file read: far beyond any real job, small enough to refuse a wrong file.
MAX_CONFIG_BYTES = 1 << 20
# The most parts a dotted key may have: TOML parsers take time and memory quadratic in
# it (a 40 KB key of 20,000 parts: 7 s and 1.5 GB), and a job's keys have a handful.
MAX_KEY_PARTS = 32
_BARE_RUN = re.compile(r"[A-Za-z0-9_-]+")


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
    model: EstimatorConfig
    predict: PredictConfig
    export: ExportConfig
    source: str = "<config>"

    def need(self, field: str, command: str):
        """The value at dotted ``field`` (e.g. ``"data.eval"``), or a ConfigError saying
        that ``command`` needs it."""
        section, key = field.split(".")
        value = getattr(getattr(self, section), key)
        if value is None:
            flag = FLAGS.get((command, field))
            given = f" (or give {flag} on the command line)" if flag else ""
            raise ConfigError(f"missing; `colonnade {command}` needs it{given}", field)
        return value

    def build_estimator(self):
        """The configured estimator, untrained (it resumes from ``model.model_dir``)."""
        return self.model.build(self.data.weight_column)

    def overridden(
        self, command, data=None, label=None, output=None, export_dir=None, base_dir=None
    ):
        """This job with the command line's ``--data`` (``data.eval`` for ``evaluate``,
        ``data.predict`` for ``predict``), ``--label``, ``--out`` (``predict.output``) and
        ``--export-dir`` in place of the config's; their paths are taken from ``base_dir``
        (default: the current folder), not from the config's folder."""
        base_dir = os.getcwd() if base_dir is None else base_dir
        data_changes, predict, export = {}, self.predict, self.export
        if data is not None:
            data_changes[DATA_FIELDS[command]] = (resolve_path(data, base_dir),)
        if label is not None:
            data_changes["label"] = label
        if output is not None:
            predict = replace(predict, output=_output(output, base_dir, "--out"))
        if export_dir is not None:
            export = ExportConfig(resolve_path(export_dir, base_dir))
        data = replace(self.data, **data_changes)
        return replace(self, data=data, predict=predict, export=export)


# The [data] key each command's --data replaces.
DATA_FIELDS = {"evaluate": "eval", "predict": "predict"}
# The command-line flag that gives a field, by (command, field).
FLAGS = {
    ("evaluate", "data.eval"): "--data PATH",
    ("evaluate", "data.label"): "--label COLUMN",
    ("predict", "data.predict"): "--data PATH",
    ("predict", "predict.output"): "--out PATH",
    ("export", "export.export_dir"): "--export-dir DIR",
}

PACKAGE_PREFIX = "colonnade:"
"""Paths starting with this name files shipped inside the installed package, e.g.
``colonnade:datasets/adult_train.parquet`` (the bundled Adult data)."""


def resolve_path(path: str, base_dir: str) -> str:
    """``path`` taken from the config file's folder, unless absolute, a URL, or inside
    the installed package (:data:`PACKAGE_PREFIX`).

    >>> resolve_path("data/train.csv", "/jobs")
    '/jobs/data/train.csv'
    >>> resolve_path("colonnade:datasets/adult_test.parquet", "/jobs")  # doctest: +ELLIPSIS
    '.../colonnade/datasets/adult_test.parquet'
    """
    if path.startswith(PACKAGE_PREFIX):
        from importlib.resources import files

        return str(files("colonnade").joinpath(path[len(PACKAGE_PREFIX) :]))
    path = os.path.expanduser(path)
    if "://" in path or os.path.isabs(path):
        return path
    return os.path.normpath(os.path.join(base_dir, path))


def _label(v, where):
    return check.strings(v, where)[0] if isinstance(v, str) else check.strings(v, where)


def _batch_size(v, where) -> int:
    if check.integer(1)(v, where) > MAX_ROWS:
        raise ConfigError(
            f"expected an integer from 1 to {MAX_ROWS:,} (2^31 - 1), got {v:,}", where
        )
    return v


def _check_integers(document) -> None:
    """Refuse an integer outside int64 anywhere in a parsed config, naming its key: TOML
    integers are 64-bit, but Python's parser takes any size, and numpy's "Maximum
    allowed dimension exceeded" or "int too big to convert" named no field."""
    stack = [("", document)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            stack += [(f"{where}.{k}" if where else k, v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(f"{where}[{i}]", v) for i, v in enumerate(value)]
        elif isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise ConfigError(
                f"the integer {value} does not fit in 64 bits (TOML's integers are from "
                "-2^63 to 2^63 - 1)",
                where,
            )


def _data(table, base_dir) -> DataConfig:
    keys = {"train", "eval", "predict", "label", "weight_column", "batch_size", "epochs"}
    t = Table(table, "data", keys | {"shuffle"})

    def paths(key):
        found = t.get(key, check.strings)
        return None if found is None else tuple(resolve_path(p, base_dir) for p in found)

    train, eval_, predict = paths("train"), paths("eval"), paths("predict")
    needs_label = train is not None or eval_ is not None
    return DataConfig(
        train=train,
        eval=eval_,
        predict=predict,
        label=t.get("label", _label, required=needs_label, hint='the label column, e.g. "y"'),
        weight_column=t.get("weight_column", check.string),
        batch_size=t.get("batch_size", _batch_size, DEFAULT_BATCH_SIZE),
        epochs=t.get("epochs", check.integer(1), 1),
        shuffle=t.get("shuffle", check.boolean, True),
    )


def _model(table, base_dir) -> EstimatorConfig:
    model = parse_estimator_config(table, "model", lambda p: resolve_path(p, base_dir))
    if model.model_dir is None:  # the commands find each other's checkpoints there
        raise ConfigError("missing (where checkpoints go)", "model.model_dir")
    return model


def _output(output, base_dir, where) -> str:
    """``output`` resolved, refused unless its extension names a format we write."""
    ext = os.path.splitext(output)[1].lower()
    if ext not in OUTPUT_FORMATS:
        raise ConfigError(
            f"cannot tell the output format from {output!r}; end it with one of "
            f"{sorted(OUTPUT_FORMATS)}",
            where,
        )
    return resolve_path(output, base_dir)


def _predict(table, base_dir, model: EstimatorConfig) -> PredictConfig:
    t = Table(table, "predict", {"output", "predict_keys", "keep_columns"})
    output = t.get("output", check.string)
    if output is not None:
        output = _output(output, base_dir, "predict.output")
    keys = t.get("predict_keys", check.strings)
    if keys is not None:
        valid = list(model.prediction_keys)
        for k in keys:
            if k not in valid:
                raise ConfigError(
                    f"{k!r} is not a prediction of {model.type}{did_you_mean(k, valid)} "
                    f"choose from {valid}",
                    "predict.predict_keys",
                )
    return PredictConfig(output, keys, t.get("keep_columns", check.strings, ()))


def parse_config(mapping, base_dir=".", source="<config>") -> JobConfig:
    """Validate a parsed TOML document (a dict) into a :class:`JobConfig`; relative paths
    are taken from ``base_dir``."""
    top = Table(mapping, "", {"data", "model", "predict", "export"}, "unknown section")
    if "model" not in mapping:
        raise ConfigError("missing; every config needs a [model] table", "model")
    model = _model(mapping["model"], base_dir)
    data = _data(top.get("data", default={}), base_dir)
    predict = _predict(top.get("predict", default={}), base_dir, model)
    export_table = Table(top.get("export", default={}), "export", {"export_dir"})
    export_dir = export_table.get("export_dir", check.string)
    export = ExportConfig(None if export_dir is None else resolve_path(export_dir, base_dir))
    return JobConfig(data, model, predict, export, source)


def longest_dotted_name(text: str) -> tuple:
    r"""``(parts, line)`` of the longest dotted name of TOML ``text`` (bare or quoted parts
    joined by dots, as in ``a."b c".d = 1``), strings and comments skipped: a scan linear in
    the text, done before the parser, whose work is quadratic in a key's parts.

    >>> longest_dotted_name('a.b."c d" = 1  # x.y.z.w\nv = "p.q.r.s"\nf = [1.5, 2.5]')
    (3, 1)
    """
    n, i, line = len(text), 0, 1
    parts, after_dot, best = 0, False, (0, 1)
    while i < n:
        c = text[i]
        if c == "\n":
            line, parts, after_dot, i = line + 1, 0, False, i + 1
            continue
        if c in " \t\r":
            i += 1
            continue
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == ".":
            after_dot, i = parts > 0, i + 1
            continue
        if c in "\"'":
            end = _string_end(text, i)
            line += text.count("\n", i, end)
        else:
            run = _BARE_RUN.match(text, i)
            if run is None:  # any other punctuation ends a name
                parts, after_dot, i = 0, False, i + 1
                continue
            end = run.end()
        parts = parts + 1 if after_dot else 1
        after_dot, i = False, end
        if parts > best[0]:
            best = (parts, line)
    return best


def _string_end(text: str, start: int) -> int:
    """Where the TOML string opening at ``start`` ends (the text's end if it does not):
    basic strings skip escaped quotes, literal strings have no escapes."""
    quote = text[start]
    delimiter = quote * 3 if text.startswith(quote * 3, start) else quote
    i = start + len(delimiter)
    while True:
        end = text.find(delimiter, i)
        if end < 0:
            return len(text)
        backslashes = 0
        while quote == '"' and text[end - 1 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return end + len(delimiter)
        i = end + 1


def load_config(path) -> JobConfig:
    """Read and validate the TOML config at ``path``. Raises ``FileNotFoundError`` when
    it does not exist and :class:`ConfigError` when it is not a valid config: a directory,
    a file over :data:`MAX_CONFIG_BYTES`, not UTF-8 text, not TOML, or TOML that does not
    describe a job."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise ConfigError(f"{path} is a directory; expected a TOML config file")
    with open(path, "rb") as f:
        raw = f.read(MAX_CONFIG_BYTES + 1)
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"larger than {MAX_CONFIG_BYTES} bytes; a job config is a small TOML file"
        )
    try:
        text = raw.decode("utf-8")
        parts, line = longest_dotted_name(text)
        if parts > MAX_KEY_PARTS:
            raise ConfigError(
                f"line {line}: a dotted key of {parts:,} parts, more than {MAX_KEY_PARTS}; a "
                "job config's keys have a few (model.dnn_feature_columns, ...)"
            )
        mapping = tomllib.loads(text)
    except UnicodeDecodeError as e:
        raise ConfigError(
            f"not a TOML file: not UTF-8 text (byte {e.start} is {raw[e.start]:#x})"
        ) from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"not valid TOML: {e}") from None
    except RecursionError:
        raise ConfigError("not a usable TOML file: arrays or tables nested too deeply") from None
    _check_integers(mapping)
    return parse_config(mapping, os.path.dirname(os.path.abspath(path)), path)
