"""The linear model the zero-configuration models start from (:mod:`.models`):
the wide part's weights solved to convergence in numpy, the column set and L2 penalty
chosen by cross-validation over every row (:data:`CV_FOLDS`; exact leave-one-out for
ridge), preferring the plain logistic/ridge features (:data:`PLAIN_PREFERENCE_SE`),
before the deep part trains on top of its logits.

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

from ...core.threads import threads_for, use_threads
from ...feature_columns.bucketized import BucketizedColumn
from ...feature_columns.crossed import CrossedColumn
from ...feature_columns.infer_stats import label_targets
from ...feature_columns.numeric import NumericColumn
from ...feature_columns.piecewise import PiecewiseLinearColumn
from ...feature_columns.transform_cache import transform_features

__all__ = [
    "CV_FOLDS",
    "CV_MAX_WORK",
    "PLAIN_PREFERENCE_SE",
    "MAX_CELLS",
    "MAX_WIDTH",
    "PENALTIES",
    "design",
    "gain_beyond_noise",
    "gram",
    "label_targets",
    "leave_one_out_errors",
    "leave_one_out_residuals",
    "linear_first",
    "plain_columns",
    "row_losses",
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
# The column set and penalty are chosen on every row's held-out loss (cross-validation
# over the training and validation rows) rather than on the validation rows alone: a
# choice on one split's few hundred rows is noise (breast_cancer's 114 validation rows
# chose the buckets at 0.01/n, chile's 380 the buckets at 10/n: test AUC/accuracy 0.005 and
# 0.008 below the plain logistic regression). Ridge leaves each row out exactly (one
# eigendecomposition); the logistic/softmax model is fitted CV_FOLDS times ...
CV_FOLDS = 5
# ... on designs up to this many cells (rows x columns) times classes: beyond, the
# validation rows are many (a loss steady to 3 digits) and CV_FOLDS solves would cost
# CV_FOLDS times one (digits, 1,347 rows x ~900 columns x 10 classes: 88 s against 20 s).
CV_MAX_WORK = 2_000_000
# The plain column set (numbers and one-hot categories, the linear baseline's features) is
# kept unless every wide column (buckets and crosses too: hundreds of weights more) has a
# held-out loss lower by more than this many standard errors of the rows' paired
# differences: the lowest of a dozen noisy losses is optimistic, and the extra weights
# won on held-out log loss by 1.4 standard errors where they lost test accuracy/AUC
# (chile, breast_cancer).
PLAIN_PREFERENCE_SE = 2.0


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


def leave_one_out_residuals(projected, s, residual, lam) -> np.ndarray:
    """Each training row's error under ridge weights fit without it:
    ``residual / (1 - h)`` with ``h`` the hat matrix's diagonal
    ``sum_k (Z V)_k^2 / (n (s_k + lam))`` (exact, no refit). ``projected``: ``(Z V)^2``,
    computed once for every penalty; ``residual``: the fitted values less the labels."""
    hat = projected @ (1.0 / (len(projected) * (s + lam)))
    return residual[:, 0] / (1.0 - hat)


def leave_one_out_errors(projected, s, residual, lam) -> float:
    """The sum over the training rows of the squared :func:`leave_one_out_residuals`."""
    return float(np.sum(leave_one_out_residuals(projected, s, residual, lam) ** 2))


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


def row_losses(logits, targets, regression) -> np.ndarray:
    """Each row's loss: the squared error, or the negative log-likelihood of its class."""
    if regression:
        return (logits[:, 0] - targets[:, 0]) ** 2
    p = np.clip(_probabilities(logits), 1e-12, 1.0 - 1e-12)
    if targets.shape[1] == 1:
        t = targets[:, 0]
        return -(t * np.log(p[:, 0]) + (1 - t) * np.log1p(-p[:, 0]))
    return -np.log((p * targets).sum(1))


def plain_columns(columns) -> list:
    """The wide columns less the bucketized numbers and the crosses, and a number read both
    log1p'd and as it is (a piecewise-linear column of one bin) read as it is only: the
    features of a plain logistic/ridge regression (numbers standardized, categories one-hot).
    """
    as_is = {c.source_column.key for c in columns if isinstance(c, PiecewiseLinearColumn)}
    return [
        c
        for c in columns
        if not isinstance(c, (BucketizedColumn, CrossedColumn))
        and not (isinstance(c, NumericColumn) and c.key in as_is)
    ]


def _held_out(x, targets, regression, folds) -> dict:
    """``{penalty: per-row held-out losses}`` over every row of ``x``: each row's loss
    under the weights fitted without it: exactly for ridge (leave-one-out), for the
    logistic/softmax model by ``folds`` (a fold id per row, ``-1`` for none: each fold is
    fitted on the other rows, the penalties from strongest to weakest, warm-started)."""
    losses = {}
    if regression:
        s, v, mean = gram(x)
        z = _with_bias(x, mean)
        projected = (z @ v) ** 2
        for penalty in PENALTIES:
            lam = penalty / len(x)
            residual = z @ solve_squared(s, v, mean, x, targets, lam) - targets
            losses[penalty] = leave_one_out_residuals(projected, s, residual, lam) ** 2
        return losses
    losses = {penalty: np.zeros(len(x)) for penalty in PENALTIES}
    for fold in np.unique(folds[folds >= 0]):
        out = folds == fold
        fitted = ~out
        s, v, mean = gram(x[fitted])
        z_out = _with_bias(x[out], mean)
        w = np.zeros((x.shape[1] + 1, targets.shape[1]))
        for penalty in sorted(PENALTIES, reverse=True):
            lam = penalty / fitted.sum()
            w = solve_logistic(s, v, mean, x[fitted], targets[fitted], lam, w)
            losses[penalty][out] = row_losses(z_out @ w, targets[out], regression)
    return losses


def _validation_losses(x, targets, regression, is_valid) -> dict:
    """``{penalty: per-row losses}`` of the validation rows (``is_valid``) under the
    weights fitted on the training rows; for a regression also each training row left out
    (exact for ridge)."""
    train = ~is_valid
    s, v, mean = gram(x[train])
    z = _with_bias(x[train], mean)
    valid_z = _with_bias(x[is_valid], mean)
    projected = (z @ v) ** 2 if regression else None
    w = np.zeros((x.shape[1] + 1, targets.shape[1]))
    losses = {}
    for penalty in sorted(PENALTIES, reverse=True):
        lam = penalty / train.sum()
        if regression:
            w = solve_squared(s, v, mean, x[train], targets[train], lam)
            held_out = leave_one_out_residuals(projected, s, z @ w - targets[train], lam) ** 2
            valid = row_losses(valid_z @ w, targets[is_valid], regression)
            losses[penalty] = np.concatenate([held_out, valid])
        else:
            w = solve_logistic(s, v, mean, x[train], targets[train], lam, w)
            losses[penalty] = row_losses(valid_z @ w, targets[is_valid], regression)
    return losses


def _fit(x, targets, regression, penalty) -> tuple:
    """``(w, mean)``: the penalized linear model of ``x`` (rows' mean loss + ``penalty /
    n`` times half the squared weights)."""
    s, v, mean = gram(x)
    lam = penalty / len(x)
    if regression:
        return solve_squared(s, v, mean, x, targets, lam), mean
    start = np.zeros((x.shape[1] + 1, targets.shape[1]))
    return solve_logistic(s, v, mean, x, targets, lam, start), mean


COLUMN_SETS = ("every wide column", "no buckets or crosses")


def _column_set(name, columns) -> list:
    return list(columns) if name == COLUMN_SETS[0] else plain_columns(columns)


def gain_beyond_noise(reference, candidate, standard_errors) -> tuple:
    """``(wins, mean gain, margin)``: whether the per-row losses ``candidate`` are lower
    than ``reference``'s (the same rows) by more than ``standard_errors`` standard errors
    of the rows' paired differences; the rule that keeps a simpler model unless a richer
    one wins by more than the noise of the rows it was chosen on.

    >>> gain_beyond_noise(np.array([1.0, 1.0, 1.0, 1.0]), np.array([0.5, 0.7, 0.6, 0.6]), 2)
    (True, 0.4, 0.0707...)
    """
    gain = reference - candidate
    margin = standard_errors * gain.std() / np.sqrt(len(gain))
    return bool(gain.mean() > margin), float(gain.mean()), float(margin)


def _choose(losses) -> tuple:
    """``(column set, penalty, why)``: each set's penalty with the lowest mean held-out
    loss; the plain set unless every wide column's loss is lower by more than
    :data:`PLAIN_PREFERENCE_SE` standard errors of the rows' paired differences."""
    best = {name: min(per, key=lambda p: per[p].mean()) for name, per in losses.items()}
    if len(best) == 1:
        (name, penalty), why = next(iter(best.items())), ""
        return name, penalty, why
    every, plain = COLUMN_SETS
    wins, gain, margin = gain_beyond_noise(
        losses[plain][best[plain]], losses[every][best[every]], PLAIN_PREFERENCE_SE
    )
    chosen = every if wins else plain
    why = (
        f"; {every} kept only when its loss is lower by more than {PLAIN_PREFERENCE_SE:g} "
        f"standard errors of the rows' differences: {gain:.4g} against {margin:.4g}"
    )
    return chosen, best[chosen], why


def linear_first(train: pa.Table, valid: pa.Table, columns, labels, seed) -> tuple:
    """``(weights, note, refit)`` or ``(None, reason, None)``: the wide part's variables
    (by checkpoint name, ``(size, units)`` per column and the bias) of the penalized
    linear model with the lowest held-out loss, over the penalties of
    :data:`PENALTIES` and two column sets: every wide column, and the
    :func:`plain_columns` (the others' weights 0), preferred within
    :data:`PLAIN_PREFERENCE_SE` standard errors (:func:`_choose`). Held out: on designs up to
    :data:`CV_MAX_WORK`, each training and validation row under the weights fitted
    without it (exact leave-one-out for ridge, :data:`CV_FOLDS`-fold cross-validation for
    the logistic/softmax model); beyond, the validation rows (and, for ridge, each training
    row left out). The weights returned are fitted on the training rows only (the deep
    part's early stopping and blend are measured on the validation rows).
    ``labels``: ``(train, valid, task)`` with the labels as the model trains on them
    (standardized numbers or class ids) and ``task`` ``"regression"`` or the number of
    classes. ``refit()`` solves the chosen model again on both sides of the split (for
    when the blend keeps the linear model alone: every row counts), or returns None when
    they hold more than :data:`MAX_CELLS` cells together."""
    train_labels, valid_labels, task = labels
    regression = task == "regression"
    used = {name: len(np.unique(slots)) for name, _, slots, _, _ in _blocks(train, columns)}
    rng = np.random.default_rng(seed)
    most = MAX_CELLS // max(1, sum(used.values()))
    train, train_labels = _sample(train, train_labels, most, rng)
    valid, valid_labels = _sample(valid, valid_labels, most, rng)
    keys = {k for c in columns for k in c.parse_spec()}
    both = pa.concat_tables(
        [t.select([k for k in t.column_names if k in keys]) for t in (train, valid)]
    )
    targets = label_targets(np.concatenate([train_labels, valid_labels]), task)
    is_valid = np.arange(both.num_rows) >= train.num_rows
    folds = rng.permutation(both.num_rows) % CV_FOLDS
    widths = {}
    for name in COLUMN_SETS:
        subset = _column_set(name, columns)
        if subset and (name == COLUMN_SETS[0] or len(subset) < len(columns)):
            widths[name] = sum(used[c.name] for c in subset)
    widths = {name: w for name, w in widths.items() if w <= MAX_WIDTH}
    # one way of holding out for every set: their rows' losses are compared pairwise
    work = max(widths.values(), default=0) * both.num_rows * targets.shape[1]
    if work <= CV_MAX_WORK:
        how = (
            f"leave-one-out over {both.num_rows} rows"
            if regression
            else f"{CV_FOLDS}-fold cross-validation over {both.num_rows} rows"
        )
    else:
        how = f"{is_valid.sum()} validation rows" + (
            " and each training row left out" if regression else ""
        )
    losses, designs = {}, {}
    for name in widths:
        designs[name] = x, _ = design(both, _column_set(name, columns))
        if work <= CV_MAX_WORK:
            losses[name] = _held_out(x, targets, regression, folds)
        else:
            losses[name] = _validation_losses(x, targets, regression, is_valid)
    if not losses:
        return (
            None,
            (
                f"no linear model trained first: the wide part's design is wider than "
                f"{MAX_WIDTH} columns"
            ),
            None,
        )
    means = {(n, p): float(np.mean(v)) for n, per in losses.items() for p, v in per.items()}
    chosen, penalty, preference = _choose(losses)
    x, layout = designs[chosen]
    w, mean = _fit(x[~is_valid], targets[~is_valid], regression, penalty)

    def refit() -> dict | None:
        """The chosen model solved again on the training and validation rows together;
        None when they hold more than :data:`MAX_CELLS` cells together."""
        if x.size > MAX_CELLS:
            return None
        return _variables(*_fit(x, targets, regression, penalty), layout, columns)

    tried = "; ".join(
        f"{name}: " + ", ".join(f"{p:g}/n {means[name, p]:.4g}" for p in sorted(PENALTIES))
        for name in losses
    )
    note = (
        f"a linear model of the wide columns solved first ({chosen}, L2 penalty "
        f"{penalty:g}/n, fitted on {train.num_rows} rows: the lowest mean held-out loss "
        f"({how}), in the units trained on, of {tried}{preference})"
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
