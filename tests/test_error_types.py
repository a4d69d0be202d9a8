"""Wrong input at the entry points a TF user meets raises TF's error type, with a message
naming what was expected and what was got, and never a raw library error (an
``IndexError``, numpy's ``UFuncTypeError`` or broadcast error, pyarrow's ``ArrowInvalid``).

The expected types are TF 2.15's, printed by ``/work/tfenv/bin/python`` for the same calls
(heads: ``tensorflow_estimator``'s v2 heads; columns: ``tf.feature_column``; data:
``tf.data.Dataset.from_tensor_slices``; optimizers: ``tf.compat.v1.train``). Where TF
fails inside an op (``UnimplementedError: Cast string to float``) colonnade raises the
``ValueError`` TF raises for the neighbouring bad inputs.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import colonnade as cn

fc = cn.feature_columns
HEADS = {
    "binary": lambda: cn.estimators.BinaryClassHead(),
    "multi_class": lambda: cn.estimators.MultiClassHead(3),
    "multi_label": lambda: cn.estimators.MultiLabelHead(3),
    "regression": lambda: cn.estimators.RegressionHead(),
    "poisson": lambda: cn.estimators.PoissonRegressionHead(),
}
RAW = (IndexError, AttributeError, ZeroDivisionError)


def assert_clean(error, expected):
    """``error`` is an ``expected`` raised by colonnade or Python, not a library's own."""
    assert isinstance(error, expected), f"{type(error).__name__}: {error}"
    module = type(error).__module__
    assert module == "builtins" or module.startswith("colonnade"), f"{module}: {error}"
    assert not isinstance(error, RAW), f"{type(error).__name__}: {error}"


def raises_clean(expected, call, match=None):
    with pytest.raises(expected, match=match) as info:
        call()
    assert_clean(info.value, expected)
    return info.value


# ---------------------------------------------------------------- heads


def _labels(head, batch=2):
    return (
        np.zeros((batch, 3), np.int64)
        if "MultiLabel" in type(head).__name__
        else (np.zeros((batch, 1), np.int64))
    )


@pytest.mark.parametrize("kind", sorted(HEADS))
@pytest.mark.parametrize(
    "make_logits",
    [
        lambda dim: [[0.1] * dim, [0.2] * (dim + 1)],  # TF: "non-rectangular Python sequence"
        lambda dim: np.array([["a"] * dim] * 2),  # TF: "Cast string to float is not supported"
        lambda dim: None,
        lambda dim: {"a": np.zeros((2, dim))},
        lambda dim: np.float32(1.0),  # TF: "logits must have rank at least 2"
        lambda dim: np.zeros(2, np.float32),
    ],
    ids=["ragged", "strings", "none", "dict", "scalar", "rank1"],
)
def test_bad_logits_are_tfs_value_error(kind, make_logits):
    head = HEADS[kind]()
    logits = make_logits(head.logits_dimension)
    raises_clean(ValueError, lambda: head.loss(labels=_labels(head), logits=logits))
    raises_clean(
        ValueError,
        lambda: head.create_estimator_spec(features={}, mode="infer", logits=logits),
    )


@pytest.mark.parametrize("kind", sorted(HEADS))
def test_python_list_logits_work_as_arrays(kind):
    head = HEADS[kind]()
    logits = [[0.5] * head.logits_dimension, [-0.5] * head.logits_dimension]
    assert np.isfinite(float(head.loss(labels=_labels(head), logits=logits).numpy()))


def test_label_type_errors_are_tfs_value_error():
    """TF: MultiClassHead's string or float labels are ValueError ("Labels dtype should
    be integer"); a regression's 3-D labels for 2-D logits are a ValueError."""
    logits = np.zeros((2, 3), np.float32)
    strings = np.array([["a"], ["b"]])
    error = raises_clean(ValueError, lambda: cn.estimators.MultiClassHead(3).loss(strings, logits))
    assert "Labels dtype should be integer" in str(error) and isinstance(error, TypeError)
    raises_clean(ValueError, lambda: cn.estimators.BinaryClassHead().loss(strings, logits[:, :1]))
    raises_clean(ValueError, lambda: cn.estimators.RegressionHead().loss(strings, logits[:, :1]))
    raises_clean(
        ValueError,
        lambda: cn.estimators.RegressionHead().loss(np.zeros((2, 1, 1)), logits[:, :1]),
        match=r"labels shape must be \[D0, D1, ... DN, 1\]",
    )
    raises_clean(ValueError, lambda: cn.estimators.MultiClassHead(3).loss([[5], [1]], logits))


nested = st.recursive(
    st.one_of(st.floats(allow_nan=False, width=32), st.text(max_size=2), st.none()),
    lambda leaf: st.lists(leaf, min_size=1, max_size=3),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logits=st.lists(nested, min_size=1, max_size=3))
def test_any_nested_list_logits_fail_cleanly(logits):
    for kind in ("binary", "multi_class"):
        head = HEADS[kind]()
        try:
            head.loss(labels=_labels(head, len(logits)), logits=logits)
        except (ValueError, TypeError) as error:
            assert_clean(error, (ValueError, TypeError))


# ---------------------------------------------------------------- feature column layers

AGE = fc.numeric_column("age")
TAGS = fc.embedding_column(fc.categorical_column_with_hash_bucket("tags", 10), 2)
LAYERS = {
    "input_layer": lambda features, columns: fc.input_layer(features, columns),
    "linear_model": lambda features, columns: fc.linear_model(features, columns),
    "DenseFeatures": lambda features, columns: fc.DenseFeatures(columns)(features),
}


@pytest.mark.parametrize("layer", sorted(LAYERS))
@pytest.mark.parametrize(
    "features, column, match",
    [
        ({"age": np.zeros((2, 2))}, AGE, "column 'age' needs 1 values per row"),
        ({"age": [[1.0], [2.0, 3.0]]}, AGE, "column 'age' needs 1 values per row"),
        ({"age": np.array(["a", "b"])}, AGE, "expects numeric values in feature 'age'"),
        ({"age": [1.0, "a"]}, AGE, "feature 'age'"),  # TF: "mixed types"
        ({"x": np.ones(2)}, AGE, "age is not in features dictionary"),
        ({"age": {"a": 1.0}}, AGE, "Feature 'age' is a dict"),
        ({"tags": np.array([1.5, 2.5])}, TAGS, "input dtype must be string or integer"),
        ({"tags": {"a": 1}}, TAGS, "Feature 'tags' is a dict"),
    ],
    ids=["2d-for-scalar", "ragged", "strings", "mixed", "missing", "dict", "floats", "dict2"],
)
def test_bad_features_are_tfs_value_error(layer, features, column, match):
    raises_clean(ValueError, lambda: LAYERS[layer](features, [column]), match=match)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(nested, min_size=1, max_size=4))
def test_any_nested_feature_lists_fail_cleanly(values):
    for key, column in (("age", AGE), ("tags", TAGS)):
        try:
            fc.input_layer({key: values}, [column])
        except (ValueError, TypeError) as error:
            assert_clean(error, (ValueError, TypeError))


# ---------------------------------------------------------------- data and predict


@pytest.mark.parametrize(
    "columns, match",
    [
        ({"a": [1, "x"]}, "column 'a' cannot be converted"),  # TF: "mixed types"
        ({"a": {"x": 1}}, "column 'a' is a dict"),
        ({"a": [1, 2], "b": [1]}, "column 'b' has 1 rows, column 'a' has 2"),
        ({"a": 3}, "column 'a' is a scalar"),
    ],
)
def test_bad_columns_are_tfs_value_error(columns, match):
    raises_clean(ValueError, lambda: cn.data.Dataset.from_dict(columns), match=match)
    raises_clean(ValueError, lambda: cn.data.Dataset.from_tensor_slices(columns), match=match)


def test_from_tensor_slices_of_nothing_is_tfs_value_error():
    raises_clean(ValueError, lambda: cn.data.Dataset.from_tensor_slices({}), match="empty dict")
    raises_clean(TypeError, lambda: cn.data.Dataset.from_dict([1, 2]), match="takes a dict")


def test_ragged_lists_become_list_columns():
    """A documented difference: TF's from_tensor_slices refuses ragged lists; Arrow holds
    them as one list per row (what categorical columns read)."""
    table = cn.data.Dataset.from_dict({"tags": [["a"], ["b", "c"]]}).to_table()
    assert table.column("tags").to_pylist() == [["a"], ["b", "c"]]
    table = cn.data.Dataset.from_tensor_slices({"x": [[[1]], [[2, 3]]]}).to_table()
    assert table.column("x").to_pylist() == [[[1]], [[2, 3]]]


@pytest.fixture(scope="module")
def predictor(tmp_path_factory):
    columns = [
        fc.numeric_column("x"),
        fc.indicator_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b"])),
    ]
    est = cn.estimators.LinearRegressor(columns, model_dir=str(tmp_path_factory.mktemp("m")))
    frame = pd.DataFrame({"x": [1.0, 2.0], "c": ["a", "b"], "y": [1.0, 2.0]})
    est.fit(frame, label="y", epochs=1)
    return cn.load(est.export_saved_model(str(tmp_path_factory.mktemp("export"))))


@pytest.mark.parametrize(
    "rows, expected, match",
    [
        ({"x": np.zeros((2, 2)), "c": ["a", "b"]}, ValueError, "column 'x' needs 1 values"),
        ({"x": [[1.0], [2.0, 3.0]], "c": ["a", "b"]}, ValueError, "column 'x' needs 1 values"),
        ({"x": ["u", "v"], "c": ["a", "b"]}, ValueError, "expects numeric values in feature 'x'"),
        ({"x": [1.0, "v"], "c": ["a", "b"]}, ValueError, "column 'x' cannot be converted"),
        ({"c": ["a", "b"]}, ValueError, "x is not in features dictionary"),
        ({"x": {"a": 1.0}, "c": ["a"]}, ValueError, "column 'x' is a dict"),
        ({"x": [1.0, 2.0], "c": ["a"]}, ValueError, "column 'c' has 1 rows"),
        ([1.0, 2.0], TypeError, "a list is read as file paths, but it holds float 1.0"),
    ],
    ids=["2d", "ragged", "strings", "mixed", "missing", "dict", "lengths", "list"],
)
def test_predictor_predict_refuses_bad_rows_by_name(predictor, rows, expected, match):
    raises_clean(expected, lambda: predictor.predict(rows), match=match)


# ---------------------------------------------------------------- constructors


def _identity():
    return fc.categorical_column_with_identity("c", 3)


CONSTRUCTORS = [
    # (call, TF 2.15's error type)
    (lambda: fc.numeric_column(3), ValueError),
    (lambda: fc.numeric_column("a", shape="x"), TypeError),
    (lambda: fc.numeric_column("a", shape=-1), ValueError),
    (lambda: fc.numeric_column("a", default_value="x"), TypeError),
    (lambda: fc.numeric_column("a", normalizer_fn=3), TypeError),
    (lambda: fc.numeric_column("a", dtype="string"), ValueError),
    (lambda: fc.bucketized_column("a", [1, 2]), ValueError),
    (lambda: fc.bucketized_column(AGE, [2, 1]), ValueError),
    (lambda: fc.categorical_column_with_hash_bucket("c", 0), ValueError),
    (lambda: fc.categorical_column_with_hash_bucket("c", "10"), TypeError),
    (lambda: fc.categorical_column_with_hash_bucket("c", 10, dtype=np.float32), ValueError),
    (lambda: fc.categorical_column_with_identity("c", 0), ValueError),
    (lambda: fc.categorical_column_with_identity("c", 3, default_value=5), ValueError),
    (lambda: fc.categorical_column_with_vocabulary_list("c", []), ValueError),
    (lambda: fc.categorical_column_with_vocabulary_list("c", ["a", "a"]), ValueError),
    (
        lambda: fc.categorical_column_with_vocabulary_list("c", ["a"], num_oov_buckets=-1),
        ValueError,
    ),
    (lambda: fc.categorical_column_with_vocabulary_file("c", None), ValueError),
    (lambda: fc.embedding_column(_identity(), 0), ValueError),
    (lambda: fc.embedding_column(_identity(), "2"), TypeError),
    (lambda: fc.embedding_column(AGE, 2), ValueError),
    (lambda: fc.embedding_column(_identity(), 2, initializer=3), ValueError),
    (lambda: fc.indicator_column(AGE), ValueError),
    (lambda: fc.crossed_column(["a"], 10), ValueError),
    (lambda: fc.crossed_column(["a", "b"], 0), ValueError),
    (lambda: fc.crossed_column([AGE, "b"], 10), ValueError),
    (lambda: fc.weighted_categorical_column(_identity(), "w", dtype=np.str_), ValueError),
    (lambda: fc.shared_embedding_columns([AGE], 2), ValueError),
    (lambda: fc.sequence_numeric_column("s", shape=0), ValueError),
    (lambda: fc.make_parse_example_spec(["age"]), ValueError),
    (lambda: fc.input_layer({"age": [1.0]}, ["age"]), ValueError),
]


@pytest.mark.parametrize("call, expected", CONSTRUCTORS)
def test_column_constructors_raise_tfs_error_types(call, expected):
    raises_clean(expected, call)


# ---------------------------------------------------------------- optimizers and decays

T = cn.train


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: T.GradientDescentOptimizer(0.1, name=""), ValueError),  # TF: "Must specify..."
        (lambda: T.AdagradOptimizer(0.1, initial_accumulator_value=0.0), ValueError),
        (lambda: T.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0), ValueError),
        (lambda: T.FtrlOptimizer(0.1, learning_rate_power=1.0), ValueError),
        (lambda: T.FtrlOptimizer(0.1, l1_regularization_strength=-1.0), ValueError),
        (lambda: T.FtrlOptimizer(0.1, initial_accumulator_value=-1.0), ValueError),
        (lambda: T.AdamOptimizer(0.1, beta1=2.0), ValueError),
        (lambda: T.GradientDescentOptimizer("x"), TypeError),
        (lambda: T.MomentumOptimizer(0.1, [0.9]), TypeError),
    ],
)
def test_optimizer_hyperparameters_are_checked(call, expected):
    raises_clean(expected, call)


DECAYS = {
    "exponential_decay": lambda a: T.exponential_decay(0.1, *a),
    "inverse_time_decay": lambda a: T.inverse_time_decay(0.1, *a),
    "natural_exp_decay": lambda a: T.natural_exp_decay(0.1, *a),
    "polynomial_decay": lambda a: T.polynomial_decay(0.1, a[0], a[1], end_learning_rate=a[2]),
    "cosine_decay": lambda a: T.cosine_decay(0.1, a[0], a[1], alpha=a[2]),
    "piecewise_constant": lambda a: T.piecewise_constant(a[0], [a[1]], [a[2], 0.5]),
}
junk = st.one_of(
    st.none(),
    st.text(max_size=3),
    st.integers(-5, 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.integers(0, 3), max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(DECAYS)), args=st.tuples(junk, junk, junk))
def test_decays_refuse_bad_arguments_by_name(name, args):
    try:
        DECAYS[name](args)
    except (ValueError, TypeError) as error:
        assert_clean(error, (ValueError, TypeError))
        assert name in str(error) or "global_step" in str(error) or "must" in str(error)


# ---------------------------------------------------------------- estimators and specs

E = cn.estimators


def _batch():
    return {"age": np.ones(2)}, np.ones(2)


@pytest.mark.parametrize(
    "call, expected, match",
    [
        (lambda: E.DNNClassifier([2], [AGE], n_classes="3"), ValueError, "n_classes must be an"),
        (lambda: E.MultiClassHead(n_classes=None), ValueError, "n_classes cannot be None"),
        (
            lambda: E.DNNClassifier([2], [AGE], label_vocabulary="ab"),
            ValueError,
            "label_vocabulary must be a list or tuple",
        ),
        (lambda: E.MultiLabelHead(3, thresholds=[0.0]), ValueError, r"in \(0, 1\) range"),
        (lambda: E.RunConfig(tf_random_seed="x"), ValueError, "tf_random_seed must be integer"),
        (
            lambda: E.EstimatorSpec(E.ModeKeys.PREDICT, predictions=[1]),
            TypeError,
            "predictions must be Tensor or dict of Tensor",
        ),
        (
            lambda: E.EstimatorSpec(E.ModeKeys.EVAL, loss=np.float32(1.0), evaluation_hooks=[3]),
            TypeError,
            "All hooks must be SessionRunHook instances",
        ),
    ],
)
def test_estimator_arguments_raise_tfs_error_types(call, expected, match):
    raises_clean(expected, call, match=match)


@pytest.fixture(scope="module")
def regressor(tmp_path_factory):
    return E.LinearRegressor([AGE], model_dir=str(tmp_path_factory.mktemp("reg")))


def test_estimator_calls_raise_tfs_error_types(regressor):
    raises_clean(TypeError, lambda: regressor.train(3, steps=1), match="input_fn must be callable")
    raises_clean(
        ValueError,
        lambda: regressor.train(lambda: [1, 2], steps=1),
        match="features should be a dictionary",
    )
    raises_clean(
        ValueError, lambda: regressor.evaluate(_batch, steps=0), match="Must specify steps > 0"
    )
    error = raises_clean(
        ValueError,
        lambda: list(regressor.predict(lambda: _batch()[0], predict_keys=["nope"])),
        match=r"predict_keys \['nope'\] are not predictions",
    )
    assert isinstance(error, KeyError)


# ---------------------------------------------------------------- core and io


@pytest.mark.parametrize(
    "call, expected, match",
    [
        # TF: "`t_list` should be a sequence of tensors" (TypeError)
        (lambda: cn.core.clip_by_global_norm(np.ones(3), 1.0), TypeError, "t_list"),
        (lambda: cn.core.global_norm(np.ones(3)), TypeError, "t_list"),
        # TF: "Cannot convert 'a' to EagerTensor of dtype float" (TypeError)
        (lambda: cn.core.clip_by_value(np.ones(3), "a", 1.0), TypeError, "clip_value_min"),
        (lambda: cn.train.Saver(var_list=3), TypeError, "var_list must be a list or dict"),
        # TF: "Expected DataType for argument 'sparse_types' not 'nope'" (TypeError)
        (
            lambda: cn.io.parse_example([b""], {"a": cn.io.VarLenFeature("nope")}),
            TypeError,
            "strings, int64 or float32",
        ),
        (
            lambda: cn.io.parse_example([b"\xff\xff\xff"], {"a": cn.io.VarLenFeature("int64")}),
            ValueError,
            "record 0 is not a valid serialized tf.train.Example",
        ),
        (lambda: cn.io.TFRecordOptions("BZ2"), ValueError, "compression_type must be"),
    ],
)
def test_core_and_io_arguments_raise_tfs_error_types(call, expected, match):
    raises_clean(expected, call, match=match)
