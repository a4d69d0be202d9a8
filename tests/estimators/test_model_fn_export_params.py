"""Issue 41 (bug 6): a model_fn export's params are checked against the stored weights'
shapes before any variable is made. The probe edited ``model.json``'s ``hidden_units`` to
``[15000, 15000]``: the first predict took 2.7 GB before the ExportError (and
``[1e5, 1e5]`` was a raw MemoryError). Each variable the model_fn asks for is now checked
against the export before its initializer runs, so the refusal costs no memory."""

import json
import os
import shutil
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

fc = cn.feature_columns
E = cn.estimators
X = np.random.default_rng(0).normal(size=(32, 2)).astype(np.float32)
SHAPES = r"makes variables the export does not hold as made: shapes \(made, stored\) "
ROWS = pd.DataFrame({"x1": X[:3, 0], "x2": X[:3, 1]})


def mlp_model_fn(features, labels, mode, params):
    net = fc.input_layer(features, [fc.numeric_column("x1"), fc.numeric_column("x2")])
    for units in params["hidden_units"]:
        net = cn.layers.dense(net, units, activation=cn.nn.relu)
    logits = cn.layers.dense(net, 1)
    if mode == E.ModeKeys.PREDICT:
        return E.EstimatorSpec(mode, predictions={"logits": logits})
    loss = cn.losses.mean_squared_error(np.asarray(labels, np.float32).reshape(-1, 1), logits)
    train_op = cn.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=cn.train.get_global_step()
    )
    return E.EstimatorSpec(mode, {"logits": logits}, loss, train_op)


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mlp")
    est = E.Estimator(mlp_model_fn, model_dir=str(tmp / "m"), params={"hidden_units": [4, 3]})
    est.train(lambda: ({"x1": X[:, 0], "x2": X[:, 1]}, X.sum(1)), steps=1, verbose=0)
    return est.export_saved_model(str(tmp / "exports"))


def _with_hidden_units(path, units):
    with open(os.path.join(path, "model.json")) as f:
        meta = json.load(f)
    meta["params"]["hidden_units"] = units
    with open(os.path.join(path, "model.json"), "w") as f:
        json.dump(meta, f)


def test_the_export_as_made_predicts(export):
    got = cn.load(export, model_fns={"mlp_model_fn": mlp_model_fn}).predict(ROWS)
    assert got.shape == (3, 1) and np.isfinite(got.to_numpy()).all()


@pytest.mark.parametrize(
    "units, match",
    [
        (
            [3000, 3000],
            r"shapes \(made, stored\) \{'model/dense/kernel': \(\(2, 3000\), \(2, 4\)\)",
        ),
        (
            [4, 3, 2500],
            r"shapes \(made, stored\) \{'model/dense_2/kernel': \(\(3, 2500\), \(3, 1\)",
        ),
        ([4], r"shapes \(made, stored\) \{'model/dense_1/kernel': \(\(4, 1\), \(4, 3\)\)"),
    ],
)
def test_params_beyond_the_stored_weights_are_refused_before_any_memory(
    export, tmp_path, units, match
):
    path = tmp_path / "edited"
    shutil.copytree(export, path)
    _with_hidden_units(str(path), units)
    predictor = cn.load(str(path), model_fns={"mlp_model_fn": mlp_model_fn})
    tracemalloc.start()
    try:
        with pytest.raises(cn.estimators.export.ExportError, match=match) as refused:
            predictor.predict(ROWS)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "refused before the variable is made" in str(refused.value)
    assert peak < 8 * 2**20, f"{peak / 2**20:.1f} MiB taken before the refusal"


def test_a_variable_the_export_lacks_is_refused_before_it_is_made(export):
    def greedy(features, labels, mode, params):
        cn.core.get_variable("table", [10**6, 1000])  # 4 GB if it were made
        return mlp_model_fn(features, labels, mode, params)

    predictor = cn.load(export, model_fns={"mlp_model_fn": greedy})
    with pytest.raises(
        cn.estimators.export.ExportError,
        match=r"makes variables the export does not hold as made: missing \['model/table'\]",
    ):
        predictor.predict(ROWS)
