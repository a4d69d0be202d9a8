"""The four job commands: ``train``, ``evaluate``, ``predict`` and ``export`` a
validated :class:`~colonnade.cli.job.JobConfig`, printing their result to stdout.

Before reading data, a command checks that the files it reads exist, have a known
format and hold the columns the job names, so a wrong path or column is a
:class:`~colonnade.cli.job.ConfigError` naming the field, not a failure mid-training.
"""

from __future__ import annotations

import json
import math
import os
import sys

from ..estimators.inputs.input_fn import INFERENCE_BATCH_SIZE
from .job import OUTPUT_FORMATS, ConfigError

__all__ = ["COMMANDS", "cmd_evaluate", "cmd_export", "cmd_predict", "cmd_train", "json_metrics"]


def _checked_paths(job, field, command, labelled=True) -> list:
    """The files at ``field`` (``"data.train"``...), checked to exist, to have a known
    format, and to hold the columns the job reads (the label and weight columns when
    ``labelled``); a ConfigError names the field at fault."""
    from ..data import Dataset, required_columns
    from ..data.sources import guess_format, resolve_paths

    paths = list(job.need(field, command))
    try:
        _, _, files = resolve_paths(paths)
        guess_format(files, repr(paths[0]) if len(paths) == 1 else f"{len(paths)} paths")
        names = Dataset.from_files(paths).schema.names
    except FileNotFoundError as e:
        raise ConfigError(f"{e.filename}: {e.strerror}", field) from e
    except ValueError as e:
        raise ConfigError(str(e), field) from e
    wanted = {
        f"model.{k}": sorted(required_columns(v)) for k, v in job.model.feature_columns.items()
    }
    if labelled:
        label = job.need("data.label", command)
        wanted["data.label"] = [label] if isinstance(label, str) else list(label)
        if job.data.weight_column is not None:
            wanted["data.weight_column"] = [job.data.weight_column]
    for where, columns in wanted.items():
        missing = [c for c in columns if c not in names]
        if missing:
            raise ConfigError(
                f"column(s) {missing} not found in {field}; its columns are {names}", where
            )
    return paths


def _trained_estimator(job, command):
    """The estimator, refusing to run ``command`` on a model_dir with no checkpoint."""
    from .. import train as cn_train

    if cn_train.latest_checkpoint(job.model.model_dir) is None:
        raise ConfigError(
            f"no checkpoint in {job.model.model_dir!r}; run `colonnade train` before "
            f"`colonnade {command}`",
            "model.model_dir",
        )
    return job.build_estimator()


def json_metrics(value):
    """Metrics as JSON values: plain floats and ints, non-finite numbers as null."""
    if isinstance(value, dict):
        return {k: json_metrics(v) for k, v in value.items()}
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _evaluate(estimator, job, paths) -> dict:
    batch_size = INFERENCE_BATCH_SIZE
    return json_metrics(estimator.evaluate(paths, label=_label(job), batch_size=batch_size))


def _label(job):
    label = job.data.label
    return list(label) if isinstance(label, tuple) else label


def cmd_train(job) -> None:
    """``colonnade train``: fit, then evaluate on ``data.eval`` when given."""
    paths = _checked_paths(job, "data.train", "train")
    eval_paths = _checked_paths(job, "data.eval", "train") if job.data.eval else None
    estimator = job.build_estimator()
    history = estimator.fit(
        paths,
        label=_label(job),
        epochs=job.data.epochs,
        batch_size=job.data.batch_size,
        shuffle=job.data.shuffle,
    )
    summary = {
        "model_dir": estimator.model_dir,
        "global_step": estimator.global_step,
        "loss": json_metrics(history.history["loss"][-1]),
    }
    if eval_paths is not None:
        summary["eval"] = _evaluate(estimator, job, eval_paths)
    print(json.dumps(summary, indent=2))


def cmd_evaluate(job, plots=None) -> None:
    """``colonnade evaluate``: the metrics on ``data.eval`` as JSON; with ``plots`` (a
    directory) also PNG plots of them (see
    :func:`colonnade.estimators.runtime.plots.plot_evaluation`)."""
    if plots is not None:
        from ..estimators.runtime.plots import require_matplotlib

        require_matplotlib()  # before any work: an ImportError naming the extra
    paths = _checked_paths(job, "data.eval", "evaluate")
    estimator = _trained_estimator(job, "evaluate")
    print(json.dumps(_evaluate(estimator, job, paths), indent=2))
    if plots is not None:
        from ..estimators.runtime.plots import plot_evaluation

        label = _label(job)
        if not isinstance(label, str):
            raise ConfigError("--plots needs a single label column", "data.label")
        written = plot_evaluation(estimator, paths, label, plots)
        print(f"wrote {len(written)} plots: {', '.join(written)}", file=sys.stderr)


def cmd_predict(job) -> None:
    """``colonnade predict``: predictions for ``data.predict`` in ``predict.output``."""
    import pandas as pd

    from ..data import Dataset

    paths = _checked_paths(job, "data.predict", "predict", labelled=False)
    output = job.need("predict.output", "predict")
    estimator = _trained_estimator(job, "predict")
    keys = job.predict.predict_keys
    frame = estimator.predict(
        paths,
        predict_keys=list(keys) if keys else None,
        batch_size=INFERENCE_BATCH_SIZE,
    )
    keep = list(job.predict.keep_columns)
    if keep:
        clash = sorted(set(keep) & set(frame.columns))
        if clash:
            raise ConfigError(f"{clash} are also prediction columns", "predict.keep_columns")
        try:
            kept = Dataset.from_files(paths, columns=keep).to_table().to_pandas()
        except KeyError as e:
            raise ConfigError(str(e.args[0] if e.args else e), "predict.keep_columns") from e
        frame = pd.concat([kept.reset_index(drop=True), frame], axis=1)
    _write(frame, output, OUTPUT_FORMATS[os.path.splitext(output)[1].lower()])
    print(output)


def _write(frame, path, fmt) -> None:
    """Write ``frame`` whole or not at all: to a temporary name, then renamed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        if fmt == "parquet":
            pq.write_table(
                pa.Table.from_pandas(frame, preserve_index=False), tmp, write_page_checksum=True
            )
        else:
            frame.to_csv(tmp, index=False)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def cmd_export(job) -> None:
    """``colonnade export``: write an export under ``export.export_dir``."""
    export_dir = job.need("export.export_dir", "export")
    estimator = _trained_estimator(job, "export")
    print(estimator.export_saved_model(export_dir))


COMMANDS = {
    "train": cmd_train,
    "evaluate": cmd_evaluate,
    "predict": cmd_predict,
    "export": cmd_export,
}
"""The job commands by name: each takes a JobConfig."""
