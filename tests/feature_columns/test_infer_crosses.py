"""The scoring of crosses in cn.feature_columns.infer (feature_columns/infer_crosses.py)."""

import numpy as np
import pytest

from colonnade.feature_columns import infer_crosses


def _heldout_by_hand(codes, labels, prior_rows):
    """The documented out-of-sample information, replayed with plain loops: fit on the
    even rows, score the odd ones, and the other way round."""
    codes, labels = list(codes), list(labels)
    classes = sorted(set(labels))
    total = 0.0
    for fit_parity in (0, 1):
        fit = [(c, y) for i, (c, y) in enumerate(zip(codes, labels)) if i % 2 == fit_parity]
        score = [(c, y) for i, (c, y) in enumerate(zip(codes, labels)) if i % 2 != fit_parity]
        prior = {k: (sum(y == k for _, y in fit) + 1) / (len(fit) + len(classes)) for k in classes}
        logs = []
        for c, y in score:
            in_cell = [yy for cc, yy in fit if cc == c]
            p = (sum(yy == y for yy in in_cell) + prior_rows * prior[y]) / (
                len(in_cell) + prior_rows
            )
            logs.append(np.log(p) - np.log(prior[y]))
        total += np.mean(logs)
    return total / 2


def test_heldout_information_matches_the_formula_by_hand():
    codes = [0, 0, 1, 1, 0, 1, 2, 2, 0, 1, 2, 0]
    labels = [0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 0]
    got = infer_crosses.heldout_information(np.array(codes), np.array(labels), 2)
    want = _heldout_by_hand(codes, labels, infer_crosses.CROSS_PRIOR_ROWS)
    assert got == pytest.approx(want, rel=1e-12)
    assert want > 0  # codes 0 and 1 mostly predict their label
