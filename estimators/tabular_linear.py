"""The linear model the zero-configuration models start from (:data:`.tabular.LINEAR_FIRST`):
the wide part's weights solved to convergence in numpy, an L2 penalty chosen on the
validation split, before the deep part trains on top of its logits.

The wide columns of the training rows become a dense design matrix (one column per id a
training row holds, per number), centred; with ``Z = [X - mean, c]`` (``c`` a large
constant, so the bias is barely penalized) and ``S = Z'Z / n = V diag(s) V'``, one
eigendecomposition serves every penalty ``lam``:

- regression (squared error on the standardized label): ``W = V (V'Z'y / n) / (s + lam)``;
- classification (logistic or softmax): majorize-minimize steps
  ``W -= V [(V' G U) / (s a' + lam)] U'`` (with Nesterov's momentum, restarted when a
  step goes uphill) with ``G`` the penalized gradient and
  ``U diag(a) U'`` B\u00f6hning's bound on the softmax curvature (``(I - 11'/K) / 2``;
  ``1/4`` for a logistic unit), a fixed bound so the steps never overshoot.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = rng.normal(size=(200, 3)); y = x @ [1.0, -2.0, 0.5] + 3.0
>>> w = solve_squared(*gram(x), x, y[:, None], 1e-9)
>>> np.round(w[:3, 0], 4).tolist()
[1.0, -2.0, 0.5]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..core.threads import threads_for, use_threads
from ..feature_columns.crossed import CrossedColumn
from ..feature_columns.numeric import BucketizedColumn
from ..feature_columns.transform_cache import transform_features

__all__ = [
    "MAX_CELLS",
    "MAX_WIDTH",
    "PENALTIES",
    "design",
    "gram",
    "leave_one_out_errors",
    "linear_first",
    "plain_columns",
]

# The L2 penalties tried, times 1/n (1/n is logistic regression's C=1): from nearly none to
# strong; the one with the lowest validation loss is kept.
PENALTIES = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)
# Dense design matrices up to this many cells (8 bytes each) and this many columns (the
# ids and numbers the training rows hold; an eigendecomposition costs WIDTH^3): beyond,
# the training and validation rows are each sampled down to fit (no refit on all rows),
# or, too wide, no linear model is first.
MAX_CELLS = 10_000_000
MAX_WIDTH = 3_000
# Majorize-minimize steps at most per penalty, and the step size that ends them.
MAX_STEPS, TOLERANCE = 250, 1e-6
# The bias column's constant: its weight's penalty is 1/BIAS_SCALE^2 of the others'.
BIAS_SCALE = 1000.0


def _blocks(table: pa.Table, columns) -> list:
    """Per column ``(name, rows, slots, values, size)``: the design's nonzero entries of
    each wide column (an id or a number's position) and its variable's first dimension."""
    outputs = transform_features({k: table.column(k) for k in table.column_names}, columns)
    out = []
    for column in columns:
        value = outputs[column.name]
        if isinstance(value, np.ndarray):
            values = np.asarray(value, np.float64).reshape(table.num_rows, -1)
            width = values.shape[1]
            rows = np.repeat(np.arange(table.num_rows), width)
            slots = np.tile(np.arange(width), table.num_rows)
            out.append((column.name, rows, slots, values.ravel(), width))
            continue
        keep = value.ids >= 0
        weights = np.ones(len(value.ids)) if value.weights is None else value.weights
        rows = value.segment_ids if value.row_splits is not None else np.arange(value.num_rows)
        out.append(
            (
                column.name,
                np.asarray(rows)[keep],
                value.ids[keep],
                np.asarray(weights, np.float64)[keep],
                value.num_buckets,
            )
        )
    return out


def design(table: pa.Table, columns, layout=None) -> tuple:
    """``(X, layout)``: the dense design of ``table``'s wide ``columns``; ``layout`` lists
    each design column as ``(column name, slot, the variable's first dimension)``: the
    slots the training rows use (a validation table reuses them, its other slots dropped)."""
    blocks = _blocks(table, columns)
    if layout is None:
        layout = []
        for name, _, slots, _, size in blocks:
            layout.extend((name, int(s), size) for s in np.unique(slots))
    positions = {name: np.full(size, -1) for name, _, size in layout}
    for i, (name, slot, _) in enumerate(layout):
        positions[name][slot] = i
    x = np.zeros((table.num_rows, len(layout)))
    for name, rows, slots, values, _ in blocks:
        if name not in positions:
            continue
        where = positions[name][slots]
        used = where >= 0
        np.add.at(x, (rows[used], where[used]), values[used])
    return x, layout


def gram(x: np.ndarray) -> tuple:
    """``(s, V, mean)``: the eigendecomposition of ``Z'Z / n`` for the centred ``x`` with
    its bias column, and the centring means."""
    mean = x.mean(0)
    z = _with_bias(x, mean)
    use_threads(threads_for(2 * z.size * z.shape[1]))  # 2 spinning threads on 2 busy cores: 10x
    s, v = np.linalg.eigh(z.T @ z / len(z))
    return np.maximum(s, 0.0), v, mean


def _with_bias(x, mean):
    return np.hstack([x - mean, np.full((len(x), 1), BIAS_SCALE)])


def solve_squared(s, v, mean, x, y, lam) -> np.ndarray:
    """Ridge weights (``(width + 1, units)``, bias last, on the centred design)."""
    z = _with_bias(x, mean)
    return v @ ((v.T @ (z.T @ y / len(z))) / (s + lam)[:, None])


def leave_one_out_errors(projected, s, residual, lam) -> float:
    """The sum over the training rows of the squared error of ridge weights fit without
    that row: ``(residual / (1 - h))^2`` with ``h`` the hat matrix's diagonal
    ``sum_k (Z V)_k^2 / (n (s_k + lam))`` (exact, no refit). ``projected``: ``(Z V)^2``,
    computed once for every penalty; ``residual``: the fitted values less the labels."""
    hat = projected @ (1.0 / (len(projected) * (s + lam)))
    return float(np.sum((residual[:, 0] / (1.0 - hat)) ** 2))


def _probabilities(logits):
    if logits.shape[1] == 1:
        return 1.0 / (1.0 + np.exp(-logits))
    e = np.exp(logits - logits.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _curvature_bound(units: int) -> tuple:
    if units == 1:
        return np.array([0.25]), np.ones((1, 1))
    a, u = np.linalg.eigh((np.eye(units) - 1.0 / units) / 2.0)
    return np.maximum(a, 0.0), u


def solve_logistic(s, v, mean, x, targets, lam, start) -> np.ndarray:
    """Penalized logistic (one unit) or softmax weights by majorize-minimize steps from
    ``start``; ``targets`` are one-hot rows (a 0/1 column for one unit)."""
    z = _with_bias(x, mean)
    a, u = _curvature_bound(targets.shape[1])
    denominator = s[:, None] * a[None, :] + lam
    w = previous = start.copy()
    momentum = 0
    use_threads(threads_for(2 * z.size * w.shape[1]))
    for _ in range(MAX_STEPS):
        ahead = w + momentum / (momentum + 3) * (w - previous)
        grad = z.T @ (_probabilities(z @ ahead) - targets) / len(z) + lam * ahead
        step = v @ (((v.T @ grad) @ u) / denominator) @ u.T
        previous, w = w, ahead - step
        momentum += 1
        if np.sum(grad * (w - previous)) > 0:  # going uphill: restart the momentum
            momentum = 0
        if np.abs(step).max() < TOLERANCE:
            break
    return w


def _loss(z, w, targets, regression) -> float:
    logits = z @ w
    if regression:
        return float(np.mean((logits - targets) ** 2))
    p = np.clip(_probabilities(logits), 1e-12, 1.0)
    if targets.shape[1] == 1:
        t = targets[:, 0]
        return float(-np.mean(t * np.log(p[:, 0]) + (1 - t) * np.log1p(-p[:, 0] + 1e-12)))
    return float(-np.mean(np.log((p * targets).sum(1))))


def _targets(labels: np.ndarray, task) -> np.ndarray:
    """The solver's targets: the label as a column (regression), a 0/1 column (binary) or
    one-hot rows of ``task`` classes."""
    if task == "regression":
        return labels.astype(np.float64)[:, None]
    if task == 2:
        return (labels == 1).astype(np.float64)[:, None]
    return np.eye(task)[labels]


def plain_columns(columns) -> list:
    """The wide columns less the bucketized numbers and the crosses: the features of a
    plain logistic/ridge regression (numbers as they are normalized, categories one-hot)."""
    return [c for c in columns if not isinstance(c, (BucketizedColumn, CrossedColumn))]


def _fit_penalties(train, valid, columns, labels, layout_rows) -> tuple:
    """``(held-out loss, penalty, w, mean, layout, losses)`` of the penalty of
    :data:`PENALTIES` with the lowest held-out loss on ``columns``, or None when the
    design is wider than :data:`MAX_WIDTH`. Held out: the validation rows; for a
    regression also each training row left out (exact for ridge): a selection on a few
    hundred rows is noise."""
    train_labels, valid_labels, task = labels
    regression = task == "regression"
    x, layout = design(train, columns)
    if len(layout) > MAX_WIDTH:
        return None
    s, v, mean = gram(x)
    targets = _targets(train_labels, task)
    valid_z = _with_bias(design(valid, columns, layout)[0], mean)
    valid_targets = _targets(valid_labels, task)
    best, w, losses = None, np.zeros((len(layout) + 1, targets.shape[1])), {}
    z = _with_bias(x, mean)
    projected = (z @ v) ** 2 if regression else None
    for penalty in sorted(PENALTIES, reverse=True):
        lam = penalty / layout_rows
        if regression:
            w = solve_squared(s, v, mean, x, targets, lam)
            held_out = leave_one_out_errors(projected, s, z @ w - targets, lam)
            valid_errors = ((valid_z @ w - valid_targets) ** 2).sum()
            losses[penalty] = float((held_out + valid_errors) / (len(x) + len(valid_z)))
        else:
            w = solve_logistic(s, v, mean, x, targets, lam, w)
            losses[penalty] = _loss(valid_z, w, valid_targets, regression)
        if best is None or losses[penalty] < best[0]:
            best = (losses[penalty], penalty, w.copy())
    return (*best, mean, layout, losses)


def linear_first(train: pa.Table, valid: pa.Table, columns, labels, seed) -> tuple:
    """``(weights, note, refit)`` or ``(None, reason, None)``: the wide part's variables
    (by checkpoint name, ``(size, units)`` per column and the bias) of the penalized
    linear model with the lowest held-out loss, over the penalties of
    :data:`PENALTIES` and two column sets: every wide column, and the
    :func:`plain_columns` (the others' weights 0).
    ``labels``: ``(train, valid, task)`` with the labels as the model trains on them
    (standardized numbers or class ids) and ``task`` ``"regression"`` or the number of
    classes. ``refit()`` solves the chosen model again on both sides of the split (for
    when the blend keeps the linear model alone: the penalty was chosen, every row
    counts)."""
    train_labels, valid_labels, task = labels
    width = max(1, sum(len(np.unique(block[2])) for block in _blocks(train, columns)))
    rng = np.random.default_rng(seed)
    train, train_labels = _sample(train, train_labels, MAX_CELLS // width, rng)
    valid, valid_labels = _sample(valid, valid_labels, MAX_CELLS // width, rng)
    rows = train.num_rows
    labels = (train_labels, valid_labels, task)
    fits = {}
    for name, subset in (
        ("every wide column", columns),
        ("no buckets or crosses", plain_columns(columns)),
    ):
        if subset and (name == "every wide column" or len(subset) < len(columns)):
            fit = _fit_penalties(train, valid, subset, labels, rows)
            if fit is not None:
                fits[name] = fit
    if not fits:
        return (
            None,
            (
                f"no linear model trained first: the wide part's design is wider than "
                f"{MAX_WIDTH} columns"
            ),
            None,
        )
    chosen = min(fits, key=lambda name: fits[name][0])
    _, penalty, w, mean, layout, _ = fits[chosen]
    subset = columns if chosen == "every wide column" else plain_columns(columns)
    chosen_width = len(layout)

    def refit() -> dict | None:
        """The chosen model solved again on the training and validation rows together;
        None when they hold more than :data:`MAX_CELLS` cells together."""
        if (train.num_rows + valid.num_rows) * chosen_width > MAX_CELLS:
            return None
        both = pa.concat_tables(
            [t.select([k for k in t.column_names if k in feature_keys]) for t in (train, valid)]
        )
        targets = _targets(np.concatenate([train_labels, valid_labels]), task)
        x, layout = design(both, subset)
        s, v, mean = gram(x)
        lam = penalty / len(x)
        if task == "regression":
            return _variables(solve_squared(s, v, mean, x, targets, lam), mean, layout, columns)
        start = np.zeros((len(layout) + 1, targets.shape[1]))
        w = solve_logistic(s, v, mean, x, targets, lam, start)
        return _variables(w, mean, layout, columns)

    feature_keys = {k for c in subset for k in c.parse_spec()}
    tried = "; ".join(
        f"{name}: " + ", ".join(f"{p:g}/n {loss:.4g}" for p, loss in fit[5].items())
        for name, fit in fits.items()
    )
    note = (
        f"a linear model of the wide columns solved first ({chosen}, L2 penalty "
        f"{penalty:g}/n, {rows} rows: the lowest held-out loss, in the units trained "
        f"on, of {tried})"
    )
    return _variables(w, mean, layout, columns), note, refit


def _sample(table: pa.Table, labels: np.ndarray, most: int, rng) -> tuple:
    """``table`` and ``labels`` with at most ``most`` of their rows (a seeded sample, in
    order): the dense design stays within :data:`MAX_CELLS`."""
    if table.num_rows <= most:
        return table, labels
    keep = np.sort(rng.permutation(table.num_rows)[:most])
    return table.take(keep), labels[keep]


def _width(column) -> int:
    size = getattr(column, "num_buckets", None)
    return int(size) if size is not None else int(getattr(column, "dimension", 1))


def _variables(w, mean, layout, columns) -> dict:
    """The linear part's checkpoint variables from design weights ``w`` (bias last)."""
    units = w.shape[1]
    sizes = {name: size for name, _, size in layout}
    out = {}
    for column in columns:
        size = sizes.get(column.name, _width(column))
        out[f"linear/linear_model/{column.name}/weights"] = np.zeros((size, units), np.float32)
    for i, (name, slot, _) in enumerate(layout):
        out[f"linear/linear_model/{name}/weights"][slot] = w[i]
    bias = BIAS_SCALE * w[-1] - mean @ w[:-1]
    out["linear/linear_model/bias_weights"] = bias.astype(np.float32)
    return out
