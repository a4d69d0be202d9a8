"""The canned estimators' two versions against TF's own: TF 2's classes have
``tf.estimator``'s signatures, the table of TF 1's changes (estimators/canned/defaults.py)
is what ``tf.compat.v1.estimator`` changes, and TF 1's classes built from the two have
TF 1's signatures (golden/make_tf_canned_signatures.py, TF 2.15)."""

import inspect
import json
import pickle
import re
import typing
from pathlib import Path

import pytest

import colonnade as cn
from colonnade.estimators.canned import baseline, v1
from colonnade.estimators.canned import estimators as canned
from colonnade.estimators.canned.defaults import TF1, Changes

fc = cn.feature_columns
GOLDEN = json.loads((Path(__file__).parent / "golden" / "tf_canned_signatures.json").read_text())
NAMES = list(GOLDEN["tf2"])
REQUIRED = object()


def tf_parameters(version, name):
    """``{argument: default}`` of TF's class, in order; a function default by its name
    (colonnade's defaults name the activation TF's default function is)."""
    out = {}
    for p in GOLDEN[version][name]:
        default = p.get("default", REQUIRED)
        out[p["name"]] = default["function"] if isinstance(default, dict) else default
    return out


def our_parameters(cls):
    return {
        name: REQUIRED if p.default is inspect.Parameter.empty else p.default
        for name, p in inspect.signature(cls).parameters.items()
    }


def tf2_class(name):
    """colonnade's TF 2 class of that name: one of the six, or a Baseline estimator."""
    return getattr(canned, name, None) or getattr(baseline, name)


def test_the_golden_has_the_nine_classes():
    classes = canned.CANNED_ESTIMATORS + baseline.BASELINE_ESTIMATORS
    assert NAMES == [c.__name__ for c in classes]
    assert list(GOLDEN["tf1"]) == NAMES and sorted(TF1) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_the_tf2_classes_have_tfs_arguments_and_defaults(name):
    assert our_parameters(tf2_class(name)) == tf_parameters("tf2", name)
    assert list(our_parameters(tf2_class(name))) == list(tf_parameters("tf2", name))


@pytest.mark.parametrize("name", NAMES)
def test_the_table_is_what_tf1_changes(name):
    tf2, tf1 = tf_parameters("tf2", name), tf_parameters("tf1", name)
    order = list(tf1)
    extra = {a: order[order.index(a) + 1] for a in tf1 if a not in tf2}
    changed = {a: d for a, d in tf1.items() if a in tf2 and d != tf2[a]}
    assert dict(TF1[name].accepted) == extra
    assert dict(TF1[name].defaults) == changed
    assert [a for a in order if a in tf2] == list(tf2)  # TF 1 only adds arguments


@pytest.mark.parametrize("name", NAMES)
def test_the_tf1_classes_have_tf1s_arguments_and_defaults(name):
    cls = getattr(v1, name)
    assert list(our_parameters(cls)) == list(tf_parameters("tf1", name))
    assert our_parameters(cls) == tf_parameters("tf1", name)
    assert issubclass(cls, tf2_class(name)) and cls is not tf2_class(name)
    assert cls.__module__ == "colonnade.estimators.canned.v1" and cls.__qualname__ == name
    assert getattr(cn.compat.v1.estimator, name) is cls
    assert pickle.loads(pickle.dumps(cls)) is cls


@pytest.mark.parametrize("name", NAMES)
def test_the_tf1_classes_document_and_annotate_every_argument_in_order(name):
    cls = getattr(v1, name)
    names = list(inspect.signature(cls).parameters)
    args = cls.__doc__.split("    Args:\n", 1)[1]
    assert re.findall(r"^        (\w+): \S", args, re.M) == names
    if "loss_reduction" in names:
        assert '``"weighted_sum"``' in args.split("loss_reduction:")[1][:120]
    assert "TF 1's" in cls.__doc__.split("    Args:")[0]
    hints = typing.get_type_hints(cls.__init__)
    assert set(names) - set(hints) == set(TF1[name].accepted)  # TF 1's extras: untyped
    assert hints["model_dir"] == typing.get_type_hints(tf2_class(name).__init__)["model_dir"]


def test_the_tf1_learning_rates_and_names_are_tf1s():
    rates = GOLDEN["tf1_learning_rates"]
    assert TF1["LinearClassifier"].optimizers["optimizer"].learning_rate == rates["linear"]
    assert TF1["DNNRegressor"].optimizers["optimizer"].learning_rate == rates["dnn"]
    combined = TF1["DNNLinearCombinedClassifier"].optimizers
    assert combined["linear_optimizer"].learning_rate == rates["combined_linear"]
    assert combined["dnn_optimizer"].learning_rate == rates["combined_dnn"]
    for name in ("BaselineClassifier", "BaselineRegressor", "BaselineEstimator"):
        assert TF1[name].optimizers["optimizer"].learning_rate == rates["baseline"]
    assert baseline.BASELINE_LEARNING_RATE == rates["baseline"]
    assert sorted(v1.V1_OPTIMIZER_NAMES) == GOLDEN["tf1_optimizer_names"]


def test_positional_arguments_take_tf1s_places(tmp_path):
    """TF 1's order: ``input_layer_partitioner`` stands before ``config``, so the 11th
    positional argument is the config (TF 2's 10th)."""
    config = cn.estimators.RunConfig(tf_random_seed=7)
    cols = [fc.numeric_column("x")]
    args = [[4], cols, str(tmp_path), 3, None, None, "SGD", "relu", None, None, config]
    est = v1.DNNClassifier(*args)
    assert est.config.tf_random_seed == 7 and est.model_dir == str(tmp_path)
    assert len(est.head.class_names) == 3 and est.head.loss_reduction == cn.core.Reduction.SUM
    linear = v1.LinearRegressor(cols, None, 2, None, "Ftrl", config, "a partitioner")
    assert linear.head.label_dimension == 2 and linear.config.tf_random_seed == 7


def test_wrong_arguments_are_refused_by_name():
    cols = [fc.numeric_column("x")]
    with pytest.raises(TypeError, match="DNNRegressor: got an unexpected keyword argument 'drop'"):
        v1.DNNRegressor([4], cols, drop=0.5)
    with pytest.raises(TypeError, match="LinearClassifier: missing a required argument: 'feat"):
        v1.LinearClassifier()
    with pytest.raises(ValueError, match="not an Optimizer instance. Given: None"):
        v1.DNNLinearCombinedRegressor(linear_feature_columns=cols, linear_optimizer=None)
    # without linear columns there is no wide part, and its optimizer is not resolved
    v1.DNNLinearCombinedRegressor(
        dnn_feature_columns=cols, dnn_hidden_units=[2], linear_optimizer=None
    )


def test_a_table_row_naming_an_argument_the_class_lacks_is_refused():
    row = Changes({}, {"partitioner": "no_such_argument"}, {})
    with pytest.raises(ValueError, match=r"LinearClassifier has no arguments \['no_such_arg"):
        v1.tf1_signature(canned.LinearClassifier, row)
