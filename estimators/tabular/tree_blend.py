"""The blend of the tree member (:mod:`.tree_member`) with the wide&deep model.

The model predicts ``(1 - a) x`` the wide&deep logits (a regression's predictions)
``+ a x`` the trees' mean raw score, with ``a`` the one of :data:`TREE_WEIGHTS` of the
lowest loss on the members' validation rows, each row scored by the member that did not
train on it (the out-of-fold rows of a cross-fitted ensemble, the split's validation
rows of one model). The trees never saw those rows (they stop early on rows of their own
training part), so their loss there is honest; the wide&deep member stopped early on
them, so its loss there is a little optimistic, which leans the choice toward the model
without trees. As for the deep part (:mod:`.blend`), a weight above 0 is kept only when
it beats 0 by more than :data:`~.blend.BLEND_PREFERENCE_SE` standard errors of the rows'
paired loss differences.

The blend is exact in one wide&deep model: the trees are wide columns
(:class:`~colonnade.feature_columns.trees.TreeEnsembleColumn`), one per member, whose
weights are ``a / members`` times the identity (times the label's standard deviation for
a regression, whose trees fit the standardized label, with ``a x`` its mean added to the
bias), and the other weights of the output (the wide part's and the deep part's output
layer) are scaled by ``1 - a``.

>>> nn = [np.array([[0.0], [0.0]])]; trees = [np.array([[2.0], [-2.0]])]
>>> a, _ = choose_tree_weight(nn, trees, [np.array([[1.0], [0.0]])], False)
>>> a
1.0
"""

from __future__ import annotations

import numpy as np

from .blend import BLEND_PREFERENCE_SE
from .linear import gain_beyond_noise, row_losses

__all__ = ["TREE_WEIGHTS", "blended_weights", "choose_tree_weight", "tree_line", "tree_note"]

TREE_WEIGHTS = tuple(np.round(np.linspace(0.0, 1.0, 11), 2).tolist())


def choose_tree_weight(nn_logits: list, tree_logits: list, targets: list, regression: bool):
    """``(a, losses)``: the tree weight of :data:`TREE_WEIGHTS` with the lowest mean loss
    over every member's validation rows (per member: the wide&deep logits, the trees'
    logits in the same units, the targets as :func:`~.linear.label_targets` gives them),
    kept above 0 only beyond the noise; ``losses`` is ``{a: mean loss}`` and, under
    ``"margin"``, ``(gain, margin)`` of the best weight against 0."""
    nn, trees, y = (np.concatenate(v) for v in (nn_logits, tree_logits, targets))
    per_row = {a: row_losses((1 - a) * nn + a * trees, y, regression) for a in TREE_WEIGHTS}
    means = {a: float(r.mean()) for a, r in per_row.items()}
    best = min(means, key=lambda a: (means[a], a))
    margin = (0.0, 0.0)
    if best != 0 and 0.0 in per_row and len(y) > 1:
        wins, gain, noise = gain_beyond_noise(per_row[0.0], per_row[best], BLEND_PREFERENCE_SE)
        margin = (gain, noise)
        if not wins:
            best = 0.0
    return best, {**means, "margin": margin}


def blended_weights(weights: dict, tree_columns: list, a: float, scale) -> dict:
    """The weights of the wide&deep model ``weights`` with the ``tree_columns`` added to
    its wide part, blended by ``a`` (see the module docstring); ``scale``: a
    regression's ``(mean, std)``, the trees' units, or None."""
    out = {}
    for name, value in weights.items():
        output = name.startswith("linear/") or name.startswith("dnn/logits/")
        out[name] = (value * (1 - a)).astype(value.dtype) if output else value
    bias_name = "linear/linear_model/bias_weights"
    units = next(
        len(v) for k, v in out.items() if k.endswith("bias_weights") or k == "dnn/logits/bias"
    )
    std, mean = (1.0, 0.0) if scale is None else (scale[1], scale[0])
    for column in tree_columns:
        weight = np.eye(units, dtype=np.float32) * np.float32(a * std / len(tree_columns))
        out[f"linear/linear_model/{column.name}/weights"] = weight
    bias = out.get(bias_name, np.zeros(units, np.float32))
    out[bias_name] = (bias + np.float32(a * mean)).astype(np.float32)
    return out


def tree_note(a: float, losses: dict, members: list, measured_on: str) -> str:
    """The plan's note on the tree member and its blend."""
    rounds = ", ".join(str(m["rounds"]) for m in members)
    tried = ", ".join(f"{w:g}: {v:.4g}" for w, v in losses.items() if w != "margin")
    gain, noise = losses["margin"]
    return (
        f"a gradient-boosted tree member: {len(members)} LightGBM model(s) (rounds {rounds}, "
        f"each stopped early on {members[0]['stopped_on']} rows of its own training part), "
        f"blended with weight {a:g} (the wide&deep model's {1 - a:g}), of {list(TREE_WEIGHTS)} "
        f"by mean {measured_on}; above 0 only when the loss is lower than weight 0's by "
        f"more than {BLEND_PREFERENCE_SE:g} standard errors of the rows' differences "
        f"({gain:.4g} against {noise:.4g}) ({tried})"
    )


def tree_line(weight: float, members: list) -> str | None:
    """``describe()``'s line on the tree member: its models, their rounds and its blend
    weight; None for a fit without one."""
    if not members:
        return None
    rounds = ", ".join(str(m["rounds"]) for m in members)
    used = f"blend weight {weight:g} (the wide&deep model's {1 - weight:g})"
    if weight == 0:
        used = "blend weight 0: not used (it did not beat the wide&deep model on validation)"
    return f"trees: {len(members)} LightGBM member(s) of {rounds} rounds; {used}"
