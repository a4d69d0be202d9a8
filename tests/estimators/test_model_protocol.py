"""The ``Model`` protocol (``estimators/runtime/model.py``): a user's ``model_fn`` and a
canned network both implement it, and an ``Estimator`` asks its model, never its kind,
for what differs: which checkpoint keys it lists, its ``repr``, how it exports. A third
kind of model, given by a recipe, is used through the same methods."""

import ast
import os
from pathlib import Path

import numpy as np
import pytest

import colonnade as cn
from colonnade.estimators.runtime.model import MODEL_MEMBERS, Model
from colonnade.estimators.runtime.user_model import UserModel

fc = cn.feature_columns
E = cn.estimators
X = np.array([[1.0], [2.0]], np.float32)


def model_fn(features, labels, mode):
    logits = cn.layers.dense(features["x"], 1, kernel_initializer=np.zeros((1, 1)))
    if mode == E.ModeKeys.PREDICT:
        return E.EstimatorSpec(mode, predictions={"y": logits})
    loss = cn.losses.mean_squared_error(labels, logits)
    train_op = cn.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=cn.train.get_global_step()
    )
    return E.EstimatorSpec(mode, {"y": logits}, loss, train_op)


def input_fn():
    return {"x": X}, 2 * X


def model_reads(tree):
    """The attributes read off an estimator's model, ``<x>.model.<attr>`` or
    ``getattr(<x>.model, "<attr>", ...)``."""
    reads = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            if node.value.attr == "model":
                reads.add(node.attr)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr":
            owner, name = (node.args + [None, None])[:2]
            if getattr(owner, "attr", None) == "model" and isinstance(name, ast.Constant):
                reads.add(name.value)
    return reads


def test_the_protocol_declares_everything_the_estimators_read_off_a_model():
    root = Path(__file__).resolve().parents[2]
    reads = set()
    for path in [*(root / "estimators").rglob("*.py"), *(root / "distribute").rglob("*.py")]:
        reads |= model_reads(ast.parse(path.read_text(), str(path)))
    assert {"spec", "network", "parts", "train_summaries", "export"} <= reads
    assert reads <= set(MODEL_MEMBERS), sorted(reads - set(MODEL_MEMBERS))


def test_model_reads_sees_both_forms():
    tree = ast.parse("a = est.model.spec(1)\nb = getattr(self.model, 'head', None)\nc = m.spec\n")
    assert model_reads(tree) == {"spec", "head"}


def test_a_model_fn_and_a_canned_network_are_models(tmp_path):
    custom = E.Estimator(model_fn, model_dir=str(tmp_path / "custom"))
    canned = E.LinearRegressor([fc.numeric_column("x")], model_dir=str(tmp_path / "canned"))
    for est in (custom, canned):
        assert isinstance(est.model, Model)
        assert all(hasattr(est.model, name) for name in MODEL_MEMBERS)
    assert not hasattr(custom.model, "custom") and not hasattr(canned.model, "custom")


def test_the_models_list_their_own_checkpoint_keys(tmp_path):
    """A model_fn's model lists its variables and the global step; a canned one also
    its optimizer slots (as TF's list_variables); neither the save counter."""
    custom = E.Estimator(model_fn, model_dir=str(tmp_path / "custom")).model
    canned = E.LinearRegressor([fc.numeric_column("x")], model_dir=str(tmp_path / "c")).model
    assert custom.lists_variable("dense/kernel") and custom.lists_variable("global_step")
    assert not custom.lists_variable("dense/kernel/.OPTIMIZER_SLOT/optimizer/Adam/m")
    assert not custom.lists_variable("optimizer/Adam/beta1_power")
    assert canned.lists_variable("linear/linear_model/x/weights")
    assert canned.lists_variable("training/Ftrl/linear/linear_model/x/weights/accumulator")
    for model in (custom, canned):
        assert not model.lists_variable("save_counter")


class Tiny:
    """A third kind of model: a ``model_fn`` in its store that lists only the global
    step, describes itself as ``Tiny()`` and exports by recording the call."""

    def __init__(self, global_step, init_rng):
        self.inner = UserModel(model_fn, {}, None, global_step, init_rng)
        self.exports = []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def lists_variable(self, name):
        return name == "global_step"

    def describe(self, class_name, model_dir):
        return f"Tiny({class_name})"

    def export(self, estimator, base, receiver_fn, assets_extra, checkpoint_path):
        self.exports.append((estimator, base, receiver_fn, assets_extra, checkpoint_path))
        return os.path.join(base, "tiny")


class TinyRecipe:
    def bind(self, global_step, init_rng):
        return Tiny(global_step, init_rng)


class Incomplete:
    def bind(self, global_step, init_rng):
        return object()


def test_an_estimator_asks_its_model_what_differs(tmp_path):
    est = E.Estimator(TinyRecipe(), model_dir=str(tmp_path))
    est.train(input_fn, steps=3, verbose=0)
    assert est.global_step == 3
    assert "dense/kernel" in est.get_weights()
    assert est.get_variable_names() == ["global_step"]
    assert est.get_variable_value("global_step") == 3
    with pytest.raises(KeyError, match=r"no variable named 'dense/kernel'; the model has "):
        est.get_variable_value("dense/kernel")
    assert repr(est) == "Tiny(Estimator)"
    base = str(tmp_path / "exports")
    assert est.export_saved_model(base, assets_extra={}, checkpoint_path="c") == os.path.join(
        base, "tiny"
    )
    assert est.model.exports == [(est, base, None, {}, "c")]


def test_a_recipe_that_binds_no_model_is_refused_naming_what_it_lacks(tmp_path):
    with pytest.raises(TypeError, match=r"Incomplete.bind must return a Model .*object lacks"):
        E.Estimator(Incomplete(), model_dir=str(tmp_path))
