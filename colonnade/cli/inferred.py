"""``colonnade train --data PATH --label COLUMN``: train with no config.

The columns are inferred (:func:`colonnade.feature_columns.infer`), the plan is printed,
a :class:`~colonnade.estimators.TabularClassifier` or ``TabularRegressor`` (by the
inferred task) trains, it is evaluated on ``--eval-data`` when given, and
``inferred.toml`` is written beside the model: a job config of the model just trained
(its ``model_dir`` is the config's own folder, its ``data.eval`` the eval data), so the
other commands run on it as written (``colonnade evaluate --data test.csv MODEL_DIR``,
``colonnade predict --data new.csv MODEL_DIR --out preds.csv``), and ``colonnade train
inferred.toml`` trains the model on from its checkpoint. A model trained from files is
one wide&deep model (a cross-fitted ensemble and the linear model solved first need the
table in memory), so the config's ``[model]`` is exactly the checkpoint's.

>>> print(to_toml({"data": {"label": "y", "epochs": 3}, "model": {"units": [8, 4]}}))
[data]
label = "y"
epochs = 3
<BLANKLINE>
[model]
units = [8, 4]
<BLANKLINE>
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
import time

from ..estimators.inputs.input_fn import INFERENCE_BATCH_SIZE
from ..feature_columns.config_checks import ConfigError
from .commands import json_metrics

__all__ = ["INFERRED_CONFIG", "cmd_train_inferred", "job_config_path", "to_toml"]

# The file written beside the model.
INFERRED_CONFIG = "inferred.toml"
# Its model_dir, relative to its own folder: the model trained there (the folder may be
# moved or copied whole).
TRAINED_DIR = "."

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE_KEY.match(k) else json.dumps(k)


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"TOML config cannot hold {v}")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):  # an inline table: one line
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"TOML config cannot hold {type(v).__name__}")


def to_toml(config: dict) -> str:
    """A two-level config (tables of values) as TOML; a list of tables is written one
    inline table per line."""
    out = []
    for section, table in config.items():
        out.append(f"[{_key(section)}]")
        for k, v in table.items():
            if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                items = "".join(f"  {_value(x)},\n" for x in v)
                out.append(f"{_key(k)} = [\n{items}]")
            else:
                out.append(f"{_key(k)} = {_value(v)}")
        out.append("")
    return "\n".join(out)


# Seconds at least between two progress lines while inferring (a line per batch read
# would flood a large file's run).
PROGRESS_EVERY_S = 2.0


class _Progress:
    """Prints infer's progress lines, at most one per :data:`PROGRESS_EVERY_S` seconds."""

    def __init__(self):
        self.last = time.monotonic()

    def __call__(self, line: str) -> None:
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY_S:
            self.last = now
            print(f"infer: {line}", flush=True)


def job_config_path(path) -> str:
    """The job config that ``path`` on the command line names: a TOML file, or a folder
    that ``colonnade train --data`` trained a model in (its :data:`INFERRED_CONFIG`)."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        return path
    config = os.path.join(path, INFERRED_CONFIG)
    if not os.path.isfile(config):
        raise ConfigError(
            f"a directory without {INFERRED_CONFIG}; expected a TOML job config, "
            "or a model_dir that `colonnade train --data PATH --label COLUMN` wrote"
        )
    return config


def _check_exists(path) -> None:
    if not os.path.exists(path) and not any(c in path for c in "*?["):
        raise FileNotFoundError(2, "No such file or directory", path)


def cmd_train_inferred(data, label, model_dir=None, seed=0, eval_data=None) -> None:
    """Infer, print the plan, train, evaluate on ``eval_data`` (when given), print a JSON
    summary, write ``inferred.toml``."""
    from ..estimators import TabularClassifier, TabularRegressor
    from ..feature_columns import infer

    for path in (data, eval_data):
        if path is not None:
            _check_exists(path)
    print(f"inferring the columns of {data} ...", flush=True)
    plan = infer(data, label, seed=seed, progress=_Progress())
    model_dir = model_dir or tempfile.mkdtemp(prefix="colonnade_train_")
    cls = TabularRegressor if plan.task == "regression" else TabularClassifier
    model = cls(label, model_dir=model_dir, seed=seed, columns=plan)
    print(plan.describe(), flush=True)
    model.fit(data)
    for note in model.columns_.notes[len(plan.notes) :]:
        print(f"note: {note}")
    config = model.job_config(os.path.abspath(data))
    config["model"]["model_dir"] = TRAINED_DIR
    if eval_data is not None:
        config["data"]["eval"] = os.path.abspath(eval_data)
    path = os.path.join(model.model_dir_, INFERRED_CONFIG)
    with open(path, "w", encoding="utf-8") as f:
        f.write(_header(data, label, eval_data, model.best_epoch_) + to_toml(config))
    history = model.history_.history
    summary = {
        "model_dir": model.model_dir_,
        "task": plan.task,
        "best_epoch": model.best_epoch_,
        "loss": history["loss"][model.best_epoch_ - 1],
        "config": path,
    }
    if "val_loss" in history:
        summary["val_loss"] = history["val_loss"][model.best_epoch_ - 1]
    if eval_data is not None:
        summary["eval"] = json_metrics(model.evaluate(eval_data, batch_size=INFERENCE_BATCH_SIZE))
    print(json.dumps(summary, indent=2))


def _header(data, label, eval_data, best_epoch) -> str:
    given = f" --eval-data {eval_data}" if eval_data is not None else ""
    return (
        f"# Written by `colonnade train --data {data} --label {label}{given}`:\n"
        "# the model trained in this folder, its inferred columns and settings.\n"
        f"# `colonnade evaluate {INFERRED_CONFIG}` (or `--data test.csv` and this folder),\n"
        "# `predict` and `export` use that model as it is. `colonnade train\n"
        f"# {INFERRED_CONFIG}` trains it on from its checkpoint, for the best epoch count\n"
        f"# found ({best_epoch}), at fixed learning rates (fit halves them on a plateau) and on\n"
        "# the label as it is (a TabularRegressor trains on it standardized); with model_dir\n"
        "# set to a new folder it trains the same columns from scratch, the deep part's\n"
        "# logits unweighted (fit weights them by a blend chosen on validation).\n\n"
    )
