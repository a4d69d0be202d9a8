"""Fuzzing what a restore takes (issue 41): arrays relabelled to other dtypes or shapes,
in colonnade's checkpoints and in TF bundles, and a model_fn export's ``params`` sizing
the model. Every case must restore exactly what the rule of ``core/restore_checks.py``
allows, or raise its ``ValueError`` / ``ExportError`` naming the variable, assigning
nothing, within bounded time and memory (nothing is allocated for a size the stored
weights do not have)."""

import json
import shutil
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from fuzzhelpers import FUZZ, HUGE, bounded
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn
from colonnade.core.checkpoint_format import write_checkpoint
from colonnade.core.tf_bundle_writer import write_tf_bundle
from colonnade.core.variables import Variable

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.bool_]
KINDS = {"f": "floating", "i": "integer", "u": "integer", "b": "bool"}


def _allowed(stored, target, values) -> bool:
    """The rule, written out independently of core/restore_checks.py."""
    s, t = np.dtype(stored), np.dtype(target)
    if KINDS[s.kind] != KINDS[t.kind]:
        return False
    if t.kind in "iu":
        info = np.iinfo(t)
        return bool(values.size == 0 or (values.min() >= info.min and values.max() <= info.max))
    return True


@FUZZ
@given(
    stored=st.sampled_from(DTYPES),
    target=st.sampled_from(DTYPES),
    shape=st.sampled_from([(3,), (2, 2), ()]),
    target_shape=st.sampled_from([(3,), (2, 2), ()]),
    big=st.booleans(),
    tf=st.booleans(),
)
def test_a_relabelled_array_restores_exactly_or_is_refused_by_name(
    tmp_path_factory, stored, target, shape, target_shape, big, tf
):
    tmp = tmp_path_factory.mktemp("r")
    values = (np.arange(int(np.prod(shape))).reshape(shape) * (300 if big else 1)).astype(stored)
    initial = np.full(target_shape, 7, target)
    var = Variable(initial.copy(), name="w")
    with bounded():
        if tf:
            path = str(tmp / "model.ckpt-1")
            write_tf_bundle(path, {"w": values})

            def restore():
                return cn.core.warm_start(path, variables={"w": var})
        else:
            path = write_checkpoint(str(tmp / "ckpt-1"), {"w": (values, {})})

            def restore():
                return cn.core.Checkpoint(w=var).restore(path)

        if shape == target_shape and _allowed(stored, target, values):
            restore()
            np.testing.assert_array_equal(var.numpy(), values.astype(target))
        else:
            with pytest.raises(ValueError, match=r"'w'.*(shape|dtype|span)"):
                restore()
            np.testing.assert_array_equal(var.numpy(), initial)


def mlp_model_fn(features, labels, mode, params):
    net = cn.feature_columns.input_layer(features, [cn.feature_columns.numeric_column("x")])
    for units in params["hidden_units"]:
        net = cn.layers.dense(net, units)
    logits = cn.layers.dense(net, 1)
    if mode == cn.estimators.ModeKeys.PREDICT:
        return cn.estimators.EstimatorSpec(mode, predictions={"y": logits})
    loss = cn.losses.mean_squared_error(np.asarray(labels, np.float32).reshape(-1, 1), logits)
    op = cn.train.GradientDescentOptimizer(0.1).minimize(loss, cn.train.get_global_step())
    return cn.estimators.EstimatorSpec(mode, {"y": logits}, loss, op)


@pytest.fixture(scope="module")
def mlp_export(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mlp")
    x = np.linspace(-1, 1, 16, dtype=np.float32)
    est = cn.estimators.Estimator(mlp_model_fn, str(tmp / "m"), params={"hidden_units": [3, 2]})
    est.train(lambda: ({"x": x}, 2 * x), steps=1, verbose=0)
    return est.export_saved_model(str(tmp / "exports"))


UNITS = st.one_of(st.integers(1, 4), st.sampled_from(HUGE[:5]), st.integers(5, 50_000))


@settings(FUZZ, max_examples=min(FUZZ.max_examples, 20))
@given(units=st.lists(UNITS, min_size=0, max_size=4))
def test_model_fn_params_never_size_the_model_beyond_its_weights(
    mlp_export, tmp_path_factory, units
):
    path = tmp_path_factory.mktemp("edited") / "export"
    shutil.copytree(mlp_export, path)
    with open(path / "model.json") as f:
        meta = json.load(f)
    meta["params"]["hidden_units"] = units
    with open(path / "model.json", "w") as f:
        json.dump(meta, f)
    predictor = cn.load(str(path), model_fns={"mlp_model_fn": mlp_model_fn})
    tracemalloc.start()
    try:
        with bounded():
            if units == [3, 2]:
                assert predictor.predict(pd.DataFrame({"x": [0.5]})).shape == (1, 1)
            else:
                with pytest.raises(cn.estimators.export.ExportError, match=r"model/dense"):
                    predictor.predict(pd.DataFrame({"x": [0.5]}))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, f"{peak / 2**20:.1f} MiB for hidden_units={units}"
