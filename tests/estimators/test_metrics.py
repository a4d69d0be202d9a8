"""Metrics against brute-force references and hand-computed values."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colonnade.estimators.spec import metrics as m


def pairwise_auc(labels, scores, weights):
    """P(score of a positive > score of a negative), ties counting half, weighted."""
    pos, neg = labels > 0.5, labels <= 0.5
    num = den = 0.0
    for sp, wp in zip(scores[pos], weights[pos]):
        for sn, wn in zip(scores[neg], weights[neg]):
            num += wp * wn * (1.0 if sp > sn else 0.5 if sp == sn else 0.0)
            den += wp * wn
    return num / den


def average_precision(labels, scores, weights):
    """Step-wise PR AUC: over distinct thresholds, (recall gain) x precision."""
    total_pos = weights[labels > 0.5].sum()
    ap, prev_recall = 0.0, 0.0
    for t in sorted(set(scores), reverse=True):
        chosen = scores >= t
        tp = weights[chosen & (labels > 0.5)].sum()
        fp = weights[chosen & (labels <= 0.5)].sum()
        recall = tp / total_pos
        ap += (recall - prev_recall) * tp / (tp + fp)
        prev_recall = recall
    return ap


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.integers(0, 6), st.sampled_from([0.5, 1.0, 2.0])),
        min_size=2,
        max_size=30,
    )
)
def test_auc_matches_pairwise_definition_with_ties_and_weights(rows):
    labels = np.array([float(r[0]) for r in rows])
    scores = np.array([r[1] / 6 for r in rows])
    weights = np.array([r[2] for r in rows])
    auc, pr = m.ExactAUC("ROC"), m.ExactAUC("PR")
    half = len(rows) // 2  # streaming: two updates
    for metric in (auc, pr):
        metric.update(labels[:half], scores[:half], weights[:half])
        metric.update(labels[half:], scores[half:], weights[half:])
    if labels.all() or not labels.any():
        assert auc.result() == 0.0
    else:
        assert np.isclose(auc.result(), pairwise_auc(labels, scores, weights))
    if labels.any():
        assert np.isclose(pr.result(), average_precision(labels, scores, weights))


def test_hand_computed_classification_metrics():
    labels = np.array([1, 0, 1, 1, 0])
    predicted = np.array([1, 1, 0, 1, 0])
    weights = np.array([1.0, 2.0, 1.0, 1.0, 3.0])
    acc, prec, rec = m.Accuracy(), m.Precision(), m.Recall()
    for metric in (acc, prec, rec):
        metric.update(labels, predicted, weights)
    assert np.isclose(acc.result(), (1 + 1 + 3) / 8)
    assert np.isclose(prec.result(), 2 / 4)  # tp weight 2 of predicted-positive weight 4
    assert np.isclose(rec.result(), 2 / 3)
    rmse = m.RootMeanSquaredError()
    rmse.update(np.array([1.0, 2.0]), np.array([2.0, 4.0]))
    assert np.isclose(rmse.result(), np.sqrt((1 + 4) / 2))
    mean = m.Mean()
    mean.update(np.array([1.0, 3.0]), np.array([3.0, 1.0]))
    assert mean.result() == 1.5


def test_auc_with_thresholds_is_tfs_value_for_value():
    """tf.compat.v1.metrics.auc's thresholded area, every curve and summation method,
    two batches merged as an evaluation merges them (golden/make_tf_auc.py, TF 2.15)."""
    import json
    from pathlib import Path

    from colonnade.estimators.spec import metric_ops

    golden = json.loads((Path(__file__).parent / "golden" / "tf_auc.json").read_text())
    labels, scores = np.array(golden["labels"]), np.array(golden["scores"], np.float32)
    weights = np.array(golden["weights"], np.float32)
    for case in golden["cases"]:
        kwargs = {
            k: case[k]
            for k in ("curve", "num_thresholds", "summation_method", "thresholds")
            if k in case
        }
        parts = [slice(0, 120), slice(120, 300)]
        pairs = [
            metric_ops.auc(
                labels[p], scores[p], weights=weights[p] if case["weighted"] else None, **kwargs
            )
            for p in parts
        ]
        metric = pairs[0][0]
        metric.merge_state([pairs[1][0]])
        assert metric.result() == pytest.approx(case["auc"], abs=2e-6), case


def test_auc_defaults_to_tf1s_200_thresholds_and_exact_is_its_own_name():
    from sklearn.metrics import roc_auc_score

    from colonnade.estimators.spec import metric_ops

    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 200)
    scores = rng.uniform(size=200)
    _, default = metric_ops.auc(labels, scores)
    _, explicit = metric_ops.auc(labels, scores, num_thresholds=200)
    assert default == explicit  # TF 1's default num_thresholds
    exact = m.ExactAUC()
    exact.update(labels, scores)
    assert exact.result() == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    assert abs(default - exact.result()) > 1e-6  # the thresholds show
    with pytest.raises(ValueError, match="Invalid summation_method"):
        metric_ops.auc(labels, scores, num_thresholds=10, summation_method="bogus")
