"""A model_dir TF 2.15's Baseline estimators wrote (golden/make_tf_baseline.py): colonnade
reads ``baseline/bias`` and Keras Ftrl's slots, predicts what TF predicted, and its next
5 steps end where TF's did."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import colonnade as cn

GOLDEN = Path(__file__).parent / "golden" / "tf_baseline"
X = np.arange(6, dtype=np.float32)[:, None]
MODELS = {
    "classifier": lambda d: cn.estimators.BaselineClassifier(model_dir=d, n_classes=3),
    "regressor": lambda d: cn.estimators.BaselineRegressor(model_dir=d, label_dimension=2),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_colonnade_continues_a_tf_baseline_model_dir(tmp_path, name):
    golden = json.loads((GOLDEN / f"{name}.json").read_text())
    model_dir = tmp_path / name
    shutil.copytree(GOLDEN / name, model_dir)
    est = MODELS[name](str(model_dir))
    predictions = list(est.predict(lambda: {"x": X[:2]}))
    for ours, tfs in zip(predictions, golden["predictions_5"]):
        for key, value in tfs.items():
            np.testing.assert_allclose(ours[key], value, rtol=1e-5, atol=1e-6, err_msg=key)
    labels = np.asarray(golden["labels_b"])
    est.train(lambda: ({"x": X}, labels), steps=5)
    assert est.get_variable_value("global_step") == 10
    for key in ("baseline/bias",):
        np.testing.assert_allclose(
            est.get_variable_value(key), golden["after_10"][key], rtol=1e-5, atol=1e-6
        )
    slots = {k: v for k, v in golden["after_10"].items() if k.startswith("training/Ftrl/baseline")}
    assert slots
    for key, value in slots.items():
        np.testing.assert_allclose(est.get_variable_value(key), value, rtol=1e-5, err_msg=key)
