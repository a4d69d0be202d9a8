"""AUC as TF 2.15 computes it on its own paths, against golden/tf_keras_auc.json (written on TF by
golden/make_tf_keras_auc.py): ``cn.metrics.AUC`` is ``tf.keras.metrics.AUC`` (TF's heads'
``auc`` and ``auc_precision_recall``), ``cn.compat.v1.metrics.auc`` is TF 1's
``metrics.auc`` (200 thresholds by default), each summation and threshold count, weighted
or not; ``cn.metrics.ExactAUC`` is the exact area."""

import json
import pathlib

import numpy as np
import pytest

import colonnade as cn
from colonnade.estimators.spec import metrics as m

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" / "tf_keras_auc.json").read_text())
SETS = {
    name: [np.asarray(a, np.float32) for a in arrays] for name, arrays in GOLDEN["sets"].items()
}


def _id(c):
    return (
        f"{c['api']}-{c['set']}-{c['curve']}-{c['summation']}-{c['num_thresholds']}-{c['weighted']}"
    )


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=_id)
def test_auc_is_tfs(case):
    labels, scores, weights = SETS[case["set"]]
    w = weights if case["weighted"] else None
    if case["api"] == "keras":
        auc = cn.metrics.AUC(case["num_thresholds"], case["curve"], case["summation"])
        auc.update_state(labels, scores, sample_weight=w)
        got = auc.result()
    else:
        _, got = cn.compat.v1.metrics.auc(
            labels,
            scores,
            weights=w,
            num_thresholds=case["num_thresholds"],
            curve=case["curve"],
            summation_method=case["summation"],
        )
    assert got == pytest.approx(case["value"], rel=2e-5, abs=2e-6)


def test_goldens_are_tf():
    assert GOLDEN["tensorflow"] == "2.15.1" and len(GOLDEN["cases"]) == 156


def test_the_issues_case_and_the_exact_area():
    pr = cn.metrics.AUC(curve="PR")
    pr.update_state([1, 0], [0.2689, 0.7311])
    assert pr.result() == pytest.approx(0.30685, abs=1e-5)  # TF 2.15's value
    exact = cn.metrics.ExactAUC()
    exact.update_state([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    assert exact.result() == 0.75  # Mann-Whitney: 3 of 4 pairs ordered


def test_keras_auc_arguments():
    logits = cn.metrics.AUC(from_logits=True)
    logits.update_state([0, 1], [-3.0, 2.0])
    assert logits.result() == 1.0
    with pytest.raises(ValueError, match="multi_label"):
        cn.metrics.AUC(multi_label=True)
    with pytest.raises(ValueError, match="summation_method"):
        cn.metrics.AUC(summation_method="careful")
    a, b = m.AUC(curve="PR"), m.AUC(curve="PR")
    a.update_state([1, 0], [0.9, 0.2])
    b.update_state([0, 1], [0.8, 0.1])
    a.merge_state([b])
    whole = m.AUC(curve="PR")
    whole.update_state([1, 0, 0, 1], [0.9, 0.2, 0.8, 0.1])
    assert a.result() == whole.result()
