"""The ``colonnade`` command line.

``colonnade demo`` trains the built-in wide&deep example. ``colonnade train|evaluate|
predict|export CONFIG.toml`` run a job described by a TOML config (read by
:mod:`colonnade.cli.job`, run by :mod:`colonnade.cli.commands`; see ``docs/config.md``);
in its place a folder that ``colonnade train --data PATH --label COLUMN`` trained a model
in reads the ``inferred.toml`` written there (:mod:`colonnade.cli.inferred`), so the
zero-configuration job runs from the shell end to end::

    colonnade train --data train.csv --label y --model-dir model [--eval-data test.csv]
    colonnade evaluate --data test.csv model
    colonnade predict --data new.csv model --out preds.csv
    colonnade export model --export-dir exports

``--data`` replaces the config's ``data.eval`` (evaluate) or ``data.predict`` (predict),
``--label`` its ``data.label``, ``--out`` its ``predict.output`` and ``--export-dir`` its
``export.export_dir``; their paths are taken from the current folder.

- ``train``: ``fit`` on ``data.train`` for ``data.epochs`` epochs (resuming from the
  checkpoint in ``model.model_dir``), then evaluate on ``data.eval`` when given; prints
  a JSON summary.
- ``evaluate``: the metrics on ``data.eval``, as JSON; ``--plots DIR`` also writes PNG
  plots (ROC, precision-recall, calibration; or predicted vs actual and residuals).
- ``predict``: predictions for ``data.predict``, one row per input row in order, written
  to ``predict.output`` (Parquet or CSV by extension); prints the output path.
- ``export``: an export under ``export.export_dir`` for ``cn.load``; prints its path.

``colonnade serve EXPORT`` answers TF Serving's REST API (see :mod:`colonnade.serving`;
needs ``pip install "colonnade[serve]"``).

On a terminal, training, evaluation and prediction show a progress bar on stderr; in a
pipe or a log file they print none.

A config error, a missing file or a missing optional dependency prints one line to
stderr and exits with status 2; other failures print one line and exit with status 1
(``-v`` adds the traceback).
Ctrl-C stops training after it saves a final checkpoint (when the weights are finite),
prints one line and exits with status 130, as shells expect of an interrupted command;
SIGTERM does the same and exits with status 143.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import math
import os
import sys
import traceback

from .. import __version__
from ..estimators.runtime.training_loop import Terminated
from .commands import COMMANDS
from .inferred import job_config_path
from .job import ConfigError, load_config

__all__ = ["build_parser", "main"]

JOB_COMMANDS = {
    "train": "train a model on data.train (and evaluate on data.eval when given)",
    "evaluate": "print the model's metrics on data.eval as JSON",
    "predict": "write predictions for data.predict to predict.output (.parquet or .csv)",
    "export": "export the trained model under export.export_dir (load it with cn.load)",
}
# Exit statuses: a config error or a missing file, and any other failure.
EXIT_CONFIG_ERROR = 2
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM


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
    for name, text in JOB_COMMANDS.items():
        # CONFIG is optional for train: --data replaces it.
        job = _job_arguments(config_optional=name == "train")
        command = sub.add_parser(
            name, parents=[job], help=text, description=text[0].upper() + text[1:]
        )
        if name == "train":
            _add_inferred_train_arguments(command)
        if name in ("evaluate", "predict"):
            _add_data_arguments(command, name)
        if name == "export":
            command.add_argument(
                "--export-dir",
                metavar="DIR",
                default=None,
                help="export under DIR instead of export.export_dir",
            )
        if name == "evaluate":
            command.add_argument(
                "--plots",
                metavar="DIR",
                default=None,
                help="also write PNG plots to DIR: ROC, precision-recall and calibration "
                "curves (classifiers), predicted vs actual and residuals (regressors); "
                'needs pip install "colonnade[plot]"',
            )
    _add_serve_parser(sub)
    return parser


def _add_inferred_train_arguments(train) -> None:
    """``colonnade train --data PATH --label COLUMN``: no config, columns inferred."""
    train.add_argument(
        "--data", default=None, help="train on PATH with inferred columns (no CONFIG)"
    )
    train.add_argument("--label", default=None, help="the label column (with --data)")
    train.add_argument(
        "--eval-data",
        metavar="PATH",
        default=None,
        help="evaluate on PATH after training (with --data); written to inferred.toml",
    )
    train.add_argument("--model-dir", default=None, help="model_dir (default: a new temp dir)")
    train.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def _add_data_arguments(command, name) -> None:
    """``colonnade evaluate|predict --data PATH``: the data in place of the config's."""
    field = "data.eval" if name == "evaluate" else "data.predict"
    command.add_argument(
        "--data", metavar="PATH", default=None, help=f"{name} PATH instead of {field}"
    )
    if name == "evaluate":
        command.add_argument(
            "--label", metavar="COLUMN", default=None, help="the label column, not data.label"
        )
    else:
        command.add_argument(
            "--out",
            metavar="PATH",
            default=None,
            help="write the predictions to PATH (.parquet or .csv), not predict.output",
        )


def _job_arguments(config_optional: bool) -> argparse.ArgumentParser:
    """The arguments every job command takes: CONFIG and ``-v``."""
    job = argparse.ArgumentParser(add_help=False)
    job.add_argument(
        "config",
        metavar="CONFIG",
        nargs="?" if config_optional else None,
        help="a TOML job config (see docs/config.md), or a model_dir that `colonnade train "
        "--data` wrote (its inferred.toml)",
    )
    # SUPPRESS: "colonnade -v train x.toml" must not be reset by the subcommand's default.
    job.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=argparse.SUPPRESS,
        help="log progress to stderr (INFO level)",
    )
    return job


def _add_serve_parser(sub) -> None:
    serve = sub.add_parser(
        "serve", help="serve an export over TF Serving's REST API (needs colonnade[serve])"
    )
    serve.add_argument("export", metavar="EXPORT", help="an export, or a base dir of versions")
    serve.add_argument("--port", type=int, default=8501, help="port (default 8501)")
    serve.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    serve.add_argument("--model-name", default="default", help="model NAME in the URLs")
    serve.add_argument(
        "--workers",
        type=_positive_int,
        default=1,
        metavar="N",
        help="server processes sharing the port, each with its own copy of the model "
        "(default 1; the number of cores free for serving gives the most requests/s)",
    )
    serve.add_argument(
        "--poll-interval",
        type=_positive_float,
        default=2.0,
        metavar="SECONDS",
        help="seconds between looks for a newer version in a base directory (default 2)",
    )
    serve.add_argument(
        "--version-label",
        action="append",
        type=_version_label,
        default=[],
        metavar="LABEL=VERSION",
        help="a TF Serving version label for /v1/models/NAME/labels/LABEL (repeatable)",
    )
    serve.add_argument(
        "--model-fn",
        action="append",
        default=[],
        metavar="NAME=package.module:function",
        help="the model_fn of a custom Estimator's export, imported from this environment "
        "(never from the export); NAME is the name the export records (default: the "
        "function's __name__); repeatable",
    )
    limits = serving_limits()
    serve.add_argument(
        "--max-body-mb",
        type=_positive_float,
        default=limits.max_body_bytes / 2**20,
        metavar="MB",
        help=f"largest request body, else 413 (default {limits.max_body_bytes >> 20})",
    )
    serve.add_argument(
        "--max-rows",
        type=_positive_int,
        default=limits.max_rows,
        metavar="N",
        help=f"most rows (instances, examples) a request, else 413 (default {limits.max_rows:,})",
    )
    serve.add_argument(
        "--request-seconds",
        type=_positive_float,
        default=limits.request_seconds,
        metavar="SECONDS",
        help=f"time from a request to its answer, else 503 (default {limits.request_seconds:g})",
    )


def serving_limits():
    """The server's default request budgets (``colonnade.serving.Limits``)."""
    from ..serving.limits import Limits

    return Limits()


def _version_label(text: str) -> tuple:
    label, _, version = text.partition("=")
    if not label or not version.isascii() or not version.isdigit():
        raise argparse.ArgumentTypeError(f"expected LABEL=VERSION (e.g. stable=3), got {text!r}")
    return label, int(version)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = _start_logging() if args.verbose else None
    try:
        return _run(parser, args)
    except Terminated:
        print(f"colonnade {args.command}: terminated (SIGTERM)", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print(f"colonnade {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if handler is not None:
            logging.getLogger("colonnade").removeHandler(handler)


def _run(parser, args) -> int:
    if args.command == "demo":
        from ..demo import run_demo

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
    if args.command == "serve":
        return _run_serve(args)
    parser.print_help()
    return 0


def _start_logging() -> logging.Handler:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("colonnade")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return handler


def _run_job(args) -> int:
    import pyarrow as pa

    prog = f"colonnade {args.command}"
    try:
        if args.command == "train" and (args.data is not None or args.config is None):
            from .inferred import cmd_train_inferred

            if args.config is not None or args.label is None:
                raise ConfigError("give either CONFIG or --data PATH --label COLUMN")
            cmd_train_inferred(args.data, args.label, args.model_dir, args.seed, args.eval_data)
            return 0
        if getattr(args, "eval_data", None) is not None:
            raise ConfigError("--eval-data goes with --data PATH --label COLUMN, not CONFIG")
        job = load_config(job_config_path(args.config)).overridden(
            args.command,
            data=getattr(args, "data", None),
            label=getattr(args, "label", None) if args.command == "evaluate" else None,
            output=getattr(args, "out", None),
            export_dir=getattr(args, "export_dir", None),
        )
        options = {"plots": args.plots} if getattr(args, "plots", None) else {}
        COMMANDS[args.command](job, **options)
        return 0
    except ImportError as e:  # an optional dependency (matplotlib for --plots)
        return _fail(prog, str(e), args.verbose, EXIT_CONFIG_ERROR)
    except ConfigError as e:
        where = f"{args.config}: " if args.config else ""
        return _fail(prog, f"{where}{e}", args.verbose, EXIT_CONFIG_ERROR)
    except FileNotFoundError as e:
        where = e.filename if e.filename is not None else ""
        message = f"{where}: {e.strerror}" if where and e.strerror else str(e)
        return _fail(prog, message, args.verbose, EXIT_CONFIG_ERROR)
    except (ValueError, KeyError, TypeError, OSError, pa.ArrowException) as e:
        message = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        return _fail(prog, f"{type(e).__name__}: {message}", args.verbose, EXIT_FAILURE)


def _run_serve(args) -> int:
    from .. import serving
    from ..estimators.export.checks import ExportError

    try:
        import orjson  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        print(serving.MISSING_EXTRA, file=sys.stderr)
        return EXIT_CONFIG_ERROR
    try:
        serving.serve(
            args.export,
            host=args.host,
            port=args.port,
            model_name=args.model_name,
            poll_interval=args.poll_interval,
            workers=args.workers,
            version_labels=dict(args.version_label),
            limits=dataclasses.replace(
                serving_limits(),
                max_body_bytes=int(args.max_body_mb * 2**20),
                max_rows=args.max_rows,
                request_seconds=args.request_seconds,
            ),
            model_fns=args.model_fn,
        )
    except (FileNotFoundError, serving.ModelFnImportError) as e:
        return _fail("colonnade serve", e, args.verbose, EXIT_CONFIG_ERROR)
    except (ExportError, OSError) as e:  # OSError: the port is taken, or not ours to bind
        return _fail("colonnade serve", e, args.verbose, EXIT_FAILURE)
    return 0


def _fail(prog, message, verbose, status) -> int:
    if verbose:
        traceback.print_exc(file=sys.stderr)
    print(f"{prog}: error: {' '.join(str(message).split())}", file=sys.stderr)
    return status
