"""``colonnade demo``: the wide&deep census model on the UCI Adult data shipped inside the
package — no arguments, no network.

It trains ``DNNLinearCombinedClassifier`` on the official training split (32,561 rows),
evaluates on the official test split (16,281 rows), and prints test accuracy, AUC and
the model_dir. The columns follow TensorFlow's wide&deep census tutorial: a wide part of
bucketized, hashed and crossed columns, a deep part of numeric, indicator and embedding
columns.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from importlib.resources import files

import pandas as pd

from . import estimators, feature_columns, train
from .census import HIDDEN_UNITS, LABEL, LABEL_VOCABULARY, wide_and_deep_columns


def adult_path(split: str) -> str:
    """Path of the shipped Adult split, ``"train"`` or ``"test"`` (Parquet)."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    return str(files("colonnade") / "datasets" / f"adult_{split}.parquet")


def load_adult(split: str, rows: int | None = None, seed: int = 0) -> pd.DataFrame:
    """The shipped Adult split as a DataFrame (CC BY 4.0; see datasets/README.md); with
    ``rows`` (fewer than the split has), a random sample of that many rows drawn with
    ``seed``, for a quick run.

    >>> len(load_adult("test")), len(load_adult("test", rows=100))
    (16281, 100)
    """
    if rows is not None and (isinstance(rows, bool) or not isinstance(rows, int)):
        raise TypeError(f"rows must be an int or None, got {type(rows).__name__}")
    if rows is not None and rows < 1:
        raise ValueError(f"rows must be at least 1, got {rows}")
    frame = pd.read_parquet(adult_path(split))
    if rows is None or rows >= len(frame):
        return frame
    return frame.sample(n=rows, random_state=seed).reset_index(drop=True)


def add_census_arguments(parser) -> None:
    """Add the options the census tutorials share to an ``argparse`` parser:
    ``--train-rows``/``--test-rows`` (random subsets for a quick run), ``--model-dir``
    and ``--seed``. :func:`load_census` reads them back."""
    parser.add_argument(
        "--train-rows", type=_positive, help="use a random subset of the training data"
    )
    parser.add_argument("--test-rows", type=_positive, help="use a random subset of the test data")
    parser.add_argument("--model-dir", help="where to keep checkpoints (default: a temp dir)")
    parser.add_argument("--seed", type=int, default=0)


def _positive(text: str) -> int:
    """An ``argparse`` type: a whole number of rows, at least 1."""
    value = int(text)
    if value < 1:
        raise ValueError(f"expected at least 1 row, got {value}")
    return value


def load_census(args) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``(train, test)`` Adult splits a census tutorial asked for with the options of
    :func:`add_census_arguments` (subsets drawn with ``args.seed``); prints their sizes.

    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_census_arguments(parser)
    >>> train, test = load_census(parser.parse_args(["--train-rows", "100", "--test-rows", "50"]))
    census: 100 training rows, 50 test rows
    """
    train_frame = load_adult("train", rows=args.train_rows, seed=args.seed)
    test_frame = load_adult("test", rows=args.test_rows, seed=args.seed)
    print(f"census: {len(train_frame):,} training rows, {len(test_frame):,} test rows")
    return train_frame, test_frame


def run_tutorial(run, args, work_dir: str | None, prefix: str) -> dict:
    """A tutorial's ``main``: call ``run(args, directory)`` with ``work_dir`` (made if
    needed), or without one a temporary directory (named ``prefix...``, removed
    afterwards); print the results dict ``run`` returns as one JSON line, and return it.

    >>> import os
    >>> def run(args, work_dir):
    ...     return {"work_dir_exists": os.path.isdir(work_dir)}
    >>> run_tutorial(run, None, None, prefix="colonnade_doctest_")
    {"work_dir_exists": true}
    {'work_dir_exists': True}
    """
    if work_dir:
        os.makedirs(work_dir, exist_ok=True)
        results = run(args, work_dir)
    else:
        with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
            results = run(args, scratch)
    print(json.dumps(results))
    return results


def census_columns():
    """``(wide_columns, deep_columns)`` of TensorFlow's census tutorial (see
    :mod:`colonnade.census`)."""
    fc = feature_columns
    return wide_and_deep_columns(fc, standardize=fc.standardize, log1p=fc.log1p())


def run_demo(
    epochs: int = 4,
    batch_size: int = 256,
    train_rows: int | None = None,
    model_dir: str | None = None,
    seed: int = 0,
) -> dict:
    """Train and evaluate the census model; print and return its metrics."""
    started = time.perf_counter()
    train_frame, test_frame = load_adult("train"), load_adult("test")
    if train_rows is not None:
        train_frame = train_frame.head(train_rows)
    model_dir = model_dir or tempfile.mkdtemp(prefix="colonnade_demo_")
    wide, deep = census_columns()
    model = estimators.DNNLinearCombinedClassifier(
        linear_feature_columns=wide,
        linear_optimizer=train.FtrlOptimizer(0.05, l1_regularization_strength=0.001),
        dnn_feature_columns=deep,
        dnn_hidden_units=HIDDEN_UNITS,
        dnn_optimizer=train.AdamOptimizer(0.001),
        label_vocabulary=LABEL_VOCABULARY,
        config=estimators.RunConfig(
            model_dir=model_dir, tf_random_seed=seed, log_step_count_steps=0
        ),
    )
    print(f"training wide&deep on {len(train_frame):,} census rows for {epochs} epochs ...")
    model.fit(train_frame, label=LABEL, epochs=epochs, batch_size=batch_size, seed=seed)
    metrics = model.evaluate(test_frame, label=LABEL, batch_size=4096)
    elapsed = time.perf_counter() - started
    print(
        f"test accuracy {metrics['accuracy']:.4f}  AUC {metrics['auc']:.4f}  "
        f"({len(test_frame):,} test rows, {elapsed:.1f}s)"
    )
    print(f"model_dir {model_dir}")
    summary = {
        "demo": "census_wide_deep",
        "accuracy": round(metrics["accuracy"], 4),
        "auc": round(metrics["auc"], 4),
        "seconds": round(elapsed, 1),
        "model_dir": model_dir,
    }
    print(json.dumps(summary))
    return summary
