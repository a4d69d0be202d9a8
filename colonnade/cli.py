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
    demo = sub.add_parser("demo", help="train a small model with colonnade's core and report it")
    demo.add_argument("--steps", type=int, default=300, help="training steps (default 300)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "demo":
        from .demo import run_demo

        return run_demo(steps=args.steps, seed=args.seed)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
