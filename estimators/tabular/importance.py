"""Permutation feature importance of the zero-configuration models (Breiman 2001;
scikit-learn's ``permutation_importance``): how much a model's score drops when one raw
input column's values are shuffled across the rows, breaking its link to the label and
to the other columns while keeping its distribution.

The rows scored are a seeded uniform sample of at most ``max_rows`` labelled rows (the
smallest random keys, kept batch by batch, so a streamed file is read once with memory
bounded by the sample). Per column, the ``n_repeats`` shuffled copies of the sample are
stacked into one table and predicted in one call: the work is ``columns x n_repeats x
rows`` predictions, bounded by ``max_rows``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from ..runtime.plots import INSTALL_HINT
from .scoring import labelled_batches

__all__ = [
    "MAX_ROWS",
    "feature_importances",
    "permutation_importance",
    "plot_importances",
    "sample_rows",
]

# The labelled rows scored at most (a seeded sample of them): with the default 5 repeats
# and 20 input columns a million rows predicted.
MAX_ROWS = 10_000


def sample_rows(data, label: str, max_rows: int, seed: int) -> pa.Table:
    """A seeded uniform sample, without replacement, of at most ``max_rows`` of
    ``data``'s labelled rows (all of them when fewer), in their original order."""
    rng = np.random.default_rng([int(seed) % 2**63, 1])
    kept, keys = None, np.empty(0)
    for piece in labelled_batches(data, label):
        piece_keys = rng.random(piece.num_rows)
        kept = piece if kept is None else pa.concat_tables([kept, piece], promote_options="default")
        keys = np.concatenate([keys, piece_keys])
        if kept.num_rows > max_rows:
            best = np.sort(np.argpartition(keys, max_rows - 1)[:max_rows])
            kept, keys = kept.take(pa.array(best)), keys[best]
    if kept is None:
        raise ValueError(f"no rows with a label {label!r} to compute feature importances on")
    return kept.combine_chunks()


def _checked(n_repeats, max_rows) -> None:
    for name, value in (("n_repeats", n_repeats), ("max_rows", max_rows)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")


def permutation_importance(score_rows, table: pa.Table, features, n_repeats: int, seed: int):
    """``(feature, importance_mean, importance_std)`` rows, most important first, of
    ``table``'s ``features`` columns: ``score_rows(table, repeats)`` scores ``table``
    stacked ``repeats`` times (a list of ``repeats`` scores, one per stacked copy);
    the importance of a shuffle is the unshuffled score minus the shuffled one. The
    permutations are drawn from ``seed``, ``n_repeats`` per feature in ``features``'
    order."""
    rng = np.random.default_rng(int(seed))
    base = score_rows(table, 1)[0]
    n = table.num_rows
    rows = []
    for feature in features:
        order = np.concatenate([rng.permutation(n) for _ in range(n_repeats)])
        stacked = pa.concat_tables([table] * n_repeats).combine_chunks()
        i = stacked.column_names.index(feature)
        shuffled = table.column(feature).take(pa.array(order))
        stacked = stacked.set_column(i, feature, shuffled)
        drops = base - np.asarray(score_rows(stacked, n_repeats), np.float64)
        rows.append((feature, float(drops.mean()), float(drops.std())))
    frame = pd.DataFrame(rows, columns=["feature", "importance_mean", "importance_std"])
    frame = frame.sort_values("importance_mean", ascending=False, kind="stable")
    return frame.reset_index(drop=True)


def feature_importances(model, data, n_repeats, seed, max_rows, score_rows) -> pd.DataFrame:
    """:func:`permutation_importance` of ``model``'s raw input columns (those its feature
    columns read) on a :func:`sample_rows` sample of ``data``."""
    _checked(n_repeats, max_rows)
    table = sample_rows(data, model.label, int(max_rows), seed)
    features = [name for name in model.estimator_.input_columns() if name != model.label]
    missing = [name for name in features if name not in table.column_names]
    if missing:
        raise ValueError(
            f"the data lacks the input column(s) {missing} the model reads "
            f"(its columns: {table.column_names})"
        )
    return permutation_importance(score_rows, table, features, int(n_repeats), seed)


def plot_importances(table: pd.DataFrame, top: int = 20, title: str = "Permutation importance"):
    """A matplotlib ``Figure`` (``pip install "colonnade[plot]"``; no pyplot) of a
    :meth:`feature_importances` table: one horizontal bar per feature, the ``top`` most
    important, the most important at the top, each with its standard deviation over the
    shuffles as an error bar. Save it with ``fig.savefig("importances.png")``."""
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ImportError(f"plotting needs matplotlib: {INSTALL_HINT}") from e
    wanted = ["feature", "importance_mean", "importance_std"]
    if not isinstance(table, pd.DataFrame) or not set(wanted) <= set(table.columns):
        raise TypeError(f"expected a feature_importances() DataFrame with columns {wanted}")
    shown = table.sort_values("importance_mean", ascending=False, kind="stable").head(int(top))
    shown = shown.iloc[::-1]  # barh draws from the bottom up
    fig = Figure(figsize=(6, 1 + 0.3 * len(shown)), layout="constrained")
    ax = fig.subplots()
    ax.barh(
        shown["feature"].astype(str),
        shown["importance_mean"],
        xerr=shown["importance_std"],
        color="tab:blue",
    )
    ax.axvline(0.0, color="gray", linewidth=0.8)
    ax.set_xlabel("drop of the score when shuffled")
    ax.set_title(title)
    return fig
