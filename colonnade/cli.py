"""The ``colonnade`` command line."""

from __future__ import annotations

import argparse
import sys

from . import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="colonnade",
        description="Feature columns and canned estimators for tabular data, without TensorFlow.",
    )
    parser.add_argument("--version", action="version", version=f"colonnade {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser(
        "demo", help="train and evaluate the wide&deep census model on the built-in Adult data"
    )
    demo.add_argument("--epochs", type=int, default=4, help="training epochs (default 4)")
    demo.add_argument("--batch-size", type=int, default=256, help="batch size (default 256)")
    demo.add_argument("--train-rows", type=int, default=None, help="use only the first N rows")
    demo.add_argument("--model-dir", default=None, help="model_dir (default: a new temp dir)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
