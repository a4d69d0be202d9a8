"""The ``colonnade`` command line.

``colonnade demo`` trains the built-in wide&deep example. ``colonnade train|evaluate|
predict|export CONFIG.toml`` run a job described by a TOML config (see
:mod:`colonnade.config` and ``docs/config.md``):

- ``train``: ``fit`` on ``data.train`` for ``data.epochs`` epochs (resuming from the
  checkpoint in ``model.model_dir``), then evaluate on ``data.eval`` when given; prints
  a JSON summary.
- ``evaluate``: the metrics on ``data.eval``, as JSON.
- ``predict``: predictions for ``data.predict``, one row per input row in order, written
  to ``predict.output`` (Parquet or CSV by extension); prints the output path.
- ``export``: an export under ``export.export_dir`` for ``cn.load``; prints its path.

A config error or a missing file prints one line to stderr and exits with status 2;
other failures print one line and exit with status 1 (``-v`` adds the traceback).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
import traceback

from . import __version__
from .estimators.input_fn import INFERENCE_BATCH_SIZE

JOB_COMMANDS = {
    "train": "train a model on data.train (and evaluate on data.eval when given)",
    "evaluate": "print the model's metrics on data.eval as JSON",
    "predict": "write predictions for data.predict to predict.output (.parquet or .csv)",
    "export": "export the trained model under export.export_dir (load it with cn.load)",
}
# Exit statuses: a config error or a missing file, and any other failure.
EXIT_CONFIG_ERROR = 2
EXIT_FAILURE = 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="colonnade",
        description="Feature columns and canned estimators for tabular data, without TensorFlow.",
    )
    parser.add_argument("--version", action="version", version=f"colonnade {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log progress to stderr (INFO level)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser(
        "demo", help="train and evaluate the wide&deep census model on the built-in Adult data"
    )
    demo.add_argument("--epochs", type=int, default=4, help="training epochs (default 4)")
    demo.add_argument("--batch-size", type=int, default=256, help="batch size (default 256)")
    demo.add_argument("--train-rows", type=int, default=None, help="use only the first N rows")
    demo.add_argument("--model-dir", default=None, help="model_dir (default: a new temp dir)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    job = argparse.ArgumentParser(add_help=False)
    job.add_argument("config", metavar="CONFIG", help="a TOML job config (see docs/config.md)")
    # SUPPRESS: "colonnade -v train x.toml" must not be reset by the subcommand's default.
    job.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=argparse.SUPPRESS,
        help="log progress to stderr (INFO level)",
    )
    for name, text in JOB_COMMANDS.items():
        sub.add_parser(name, parents=[job], help=text, description=text[0].upper() + text[1:])
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = _start_logging() if args.verbose else None
    try:
        if args.command == "demo":
            from .demo import run_demo

            run_demo(
                epochs=args.epochs,
                batch_size=args.batch_size,
                train_rows=args.train_rows,
                model_dir=args.model_dir,
                seed=args.seed,
            )
            return 0
        if args.command in JOB_COMMANDS:
            return _run_job(args)
        parser.print_help()
        return 0
    finally:
        if handler is not None:
            logging.getLogger("colonnade").removeHandler(handler)


def _start_logging() -> logging.Handler:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("colonnade")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return handler


def _run_job(args) -> int:
    import pyarrow as pa

    from .config import ConfigError, load_config

    prog = f"colonnade {args.command}"
    try:
        job = load_config(args.config)
        _COMMANDS[args.command](job)
        return 0
    except ConfigError as e:
        return _fail(prog, f"{args.config}: {e}", args.verbose, EXIT_CONFIG_ERROR)
    except FileNotFoundError as e:
        where = e.filename if e.filename is not None else ""
        message = f"{where}: {e.strerror}" if where and e.strerror else str(e)
        return _fail(prog, message, args.verbose, EXIT_CONFIG_ERROR)
    except (ValueError, KeyError, TypeError, OSError, pa.ArrowException) as e:
        message = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        return _fail(prog, f"{type(e).__name__}: {message}", args.verbose, EXIT_FAILURE)


def _fail(prog, message, verbose, status) -> int:
    if verbose:
        traceback.print_exc(file=sys.stderr)
    print(f"{prog}: error: {' '.join(str(message).split())}", file=sys.stderr)
    return status


# ---------------------------------------------------------------- commands


def _checked_paths(job, field, command, labelled=True) -> list:
    """The files at ``field`` (``"data.train"``...), checked to exist, to have a known
    format, and to hold the columns the job reads (the label and weight columns when
    ``labelled``); a ConfigError names the field at fault."""
    from .config import ConfigError
    from .data import Dataset, required_columns
    from .data.sources import guess_format, resolve_paths

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
        label = job.data.label
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
    from . import train as cn_train
    from .config import ConfigError, build_estimator

    if cn_train.latest_checkpoint(job.model.model_dir) is None:
        raise ConfigError(
            f"no checkpoint in {job.model.model_dir!r}; run `colonnade train` before "
            f"`colonnade {command}`",
            "model.model_dir",
        )
    return build_estimator(job)


def _json(value):
    """Metrics as JSON values: plain floats and ints, non-finite numbers as null."""
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _evaluate(estimator, job, paths) -> dict:
    batch_size = INFERENCE_BATCH_SIZE
    return _json(estimator.evaluate(paths, label=_label(job), batch_size=batch_size))


def _label(job):
    label = job.data.label
    return list(label) if isinstance(label, tuple) else label


def cmd_train(job) -> None:
    """``colonnade train``: fit, then evaluate on ``data.eval`` when given."""
    from .config import build_estimator

    paths = _checked_paths(job, "data.train", "train")
    eval_paths = _checked_paths(job, "data.eval", "train") if job.data.eval else None
    estimator = build_estimator(job)
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
        "loss": _json(history.history["loss"][-1]),
    }
    if eval_paths is not None:
        summary["eval"] = _evaluate(estimator, job, eval_paths)
    print(json.dumps(summary, indent=2))


def cmd_evaluate(job) -> None:
    """``colonnade evaluate``: the metrics on ``data.eval`` as JSON."""
    paths = _checked_paths(job, "data.eval", "evaluate")
    estimator = _trained_estimator(job, "evaluate")
    print(json.dumps(_evaluate(estimator, job, paths), indent=2))


def cmd_predict(job) -> None:
    """``colonnade predict``: predictions for ``data.predict`` in ``predict.output``."""
    import pandas as pd

    from .config import OUTPUT_FORMATS, ConfigError
    from .data import Dataset

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
            pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp)
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


_COMMANDS = {
    "train": cmd_train,
    "evaluate": cmd_evaluate,
    "predict": cmd_predict,
    "export": cmd_export,
}


if __name__ == "__main__":
    sys.exit(main())
