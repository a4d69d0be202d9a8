"""cn.losses against tf.compat.v1.losses: TF 2.15's signatures (printed by
tests/core/golden/print_tf_loss_signatures.py) and hand-computed values."""

import inspect
import math

import numpy as np
import pytest

import colonnade as cn

TF_V1_SIGNATURES = {
    "absolute_difference": "labels predictions weights scope loss_collection reduction",
    "compute_weighted_loss": "losses weights scope loss_collection reduction",
    "huber_loss": "labels predictions weights delta scope loss_collection reduction",
    "log_loss": "labels predictions weights epsilon scope loss_collection reduction",
    "mean_squared_error": "labels predictions weights scope loss_collection reduction",
    "sigmoid_cross_entropy": (
        "multi_class_labels logits weights label_smoothing scope loss_collection reduction"
    ),
    "softmax_cross_entropy": (
        "onehot_labels logits weights label_smoothing scope loss_collection reduction"
    ),
    "sparse_softmax_cross_entropy": "labels logits weights scope loss_collection reduction",
    "cosine_distance": "labels predictions axis weights scope loss_collection reduction dim",
    "hinge_loss": "labels logits weights scope loss_collection reduction",
}


@pytest.mark.parametrize("name", sorted(TF_V1_SIGNATURES))
def test_v1_loss_signatures_are_tfs(name):
    params = list(inspect.signature(getattr(cn.losses, name)).parameters)
    assert params == TF_V1_SIGNATURES[name].split()
    reduction = inspect.signature(getattr(cn.losses, name)).parameters.get("reduction")
    assert reduction.default == cn.losses.Reduction.SUM_BY_NONZERO_WEIGHTS


def test_sigmoid_cross_entropy_label_smoothing():
    # TF: labels * (1 - s) + 0.5 * s; label 1, s = 0.5 -> 0.75; logit 0 -> log 2 per
    # example whatever the label; logit 2: 0.75 * log(1 + e^-2) + 0.25 * log(1 + e^2)
    logits = np.array([[2.0]])
    got = cn.losses.sigmoid_cross_entropy(
        multi_class_labels=[[1.0]], logits=logits, label_smoothing=0.5
    )
    want = 0.75 * math.log1p(math.exp(-2.0)) + 0.25 * math.log1p(math.exp(2.0))
    assert float(got) == pytest.approx(want, rel=1e-12)


def test_softmax_cross_entropy_label_smoothing_by_keyword():
    # two classes, s = 0.2: labels [0.9, 0.1]; logits [0, 0] -> log 2
    got = cn.losses.softmax_cross_entropy(
        onehot_labels=[[1.0, 0.0]], logits=np.zeros((1, 2)), label_smoothing=0.2
    )
    assert float(got) == pytest.approx(math.log(2.0), rel=1e-12)


def test_hinge_and_cosine_distance():
    # hinge: labels {0,1} -> {-1,1}; max(0, 1 - 1 * 0.5) = 0.5 and max(0, 1 + 0.5) = 1.5
    got = cn.losses.hinge_loss([[1.0], [0.0]], np.array([[0.5], [0.5]]), reduction="none")
    np.testing.assert_allclose(got.numpy(), [[0.5], [1.5]])
    got = cn.losses.cosine_distance([[0.0, 1.0]], np.array([[0.6, 0.8]]), dim=1)
    assert float(got) == pytest.approx(0.2)
    with pytest.raises(ValueError, match="needs axis"):
        cn.losses.cosine_distance([[0.0, 1.0]], np.array([[0.6, 0.8]]))
