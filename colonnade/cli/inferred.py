"""``colonnade train --data PATH --label COLUMN``: train with no config.

The columns are inferred (:func:`colonnade.feature_columns.infer`), the plan is printed,
a :class:`~colonnade.estimators.TabularClassifier` or ``TabularRegressor`` (by the
inferred task) trains, and ``inferred.toml`` is written beside the model: a job config
of the same columns and settings, so ``colonnade train inferred.toml`` trains the same
model again (on all of PATH, for the best epoch count found) in ``model_dir/retrained``.

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

__all__ = ["INFERRED_CONFIG", "cmd_train_inferred", "to_toml"]

# The file written beside the model.
INFERRED_CONFIG = "inferred.toml"
# Where `colonnade train inferred.toml` trains anew (relative to the config's folder):
# not the model_dir itself, where it would resume from the trained model.
RETRAIN_DIR = "retrained"

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


def cmd_train_inferred(data, label, model_dir=None, seed=0) -> None:
    """Infer, print the plan, train, print a JSON summary, write ``inferred.toml``."""
    from ..estimators import TabularClassifier, TabularRegressor
    from ..feature_columns import infer

    if not os.path.exists(data) and not any(c in data for c in "*?["):
        raise FileNotFoundError(2, "No such file or directory", data)
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
    config["model"]["model_dir"] = RETRAIN_DIR
    path = os.path.join(model.model_dir_, INFERRED_CONFIG)
    header = (
        f"# Written by `colonnade train --data {data} --label {label}`: the inferred columns\n"
        f"# and settings. `colonnade train {INFERRED_CONFIG}` trains them again in\n"
        f"# {RETRAIN_DIR}/ for the best epoch count found ({model.best_epoch_}), at fixed\n"
        "# learning rates (fit halves them on a plateau), on the label as it is (a\n"
        "# TabularRegressor trains on it standardized) and with the deep part's logits\n"
        "# unweighted (fit weights them by a blend chosen on validation).\n\n"
    )
    with open(path, "w", encoding="utf-8") as f:
        f.write(header + to_toml(config))
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
    print(json.dumps(summary, indent=2))
