"""Taking over a TF 2.15 canned estimator's model_dir: the fixtures in
``golden/tf_estimators/`` (made by ``golden/make_tf_estimators.py`` with TensorFlow) hold
TF's checkpoint at step 128, TF's predictions, and TF's variables after 10 more steps."""

import json
import os
import shutil

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

E = cn.estimators
fc = cn.feature_columns
GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "tf_estimators")
EDUCATION = [
    "Bachelors", "HS-grad", "11th", "Masters", "9th", "Some-college", "Assoc-acdm",
    "Assoc-voc", "7th-8th", "Doctorate", "Prof-school", "5th-6th", "10th", "1st-4th",
    "Preschool", "12th",
]  # fmt: skip
RELATIONSHIP = ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried", "Other-relative"]
MODELS = [
    "linear_classifier",
    "dnn_classifier",
    "wide_deep_classifier",
    "linear_regressor",
    "dnn_multiclass",
    "dnn_adam",
    "wide_deep_adam",
    "dnn_sgd",
]


def columns():
    age = fc.numeric_column("age")
    age_buckets = fc.bucketized_column(age, [18, 25, 30, 35, 40, 45, 50, 55, 60, 65])
    education = fc.categorical_column_with_vocabulary_list("education", EDUCATION)
    relationship = fc.categorical_column_with_vocabulary_list("relationship", RELATIONSHIP)
    occupation = fc.categorical_column_with_hash_bucket("occupation", 20)
    crossed = fc.crossed_column([age_buckets, "education", "occupation"], 50)
    wide = [age_buckets, education, relationship, occupation, crossed]
    deep = [
        age,
        fc.numeric_column("hours_per_week"),
        fc.indicator_column(education),
        fc.indicator_column(relationship),
        fc.embedding_column(occupation, 4),
    ]
    return wide, deep


def build(name, model_dir):
    """The colonnade twin of the TF estimator ``name`` (as in the generator)."""
    wide, deep = columns()
    config = E.RunConfig(log_step_count_steps=0, save_checkpoints_steps=1000)
    kw = dict(model_dir=str(model_dir), config=config)
    return {
        "linear_classifier": lambda: E.LinearClassifier(wide, **kw),
        "dnn_classifier": lambda: E.DNNClassifier([8, 4], deep, **kw),
        "wide_deep_classifier": lambda: E.DNNLinearCombinedClassifier(
            linear_feature_columns=wide, dnn_feature_columns=deep, dnn_hidden_units=[8, 4], **kw
        ),
        "linear_regressor": lambda: E.LinearRegressor(
            wide + [fc.numeric_column("capital_gain")], **kw
        ),
        "dnn_multiclass": lambda: E.DNNClassifier([8], deep[:1] + deep[2:], n_classes=3, **kw),
        "dnn_adam": lambda: E.DNNClassifier([8, 4], deep, optimizer="Adam", **kw),
        "wide_deep_adam": lambda: E.DNNLinearCombinedClassifier(
            linear_feature_columns=wide,
            dnn_feature_columns=deep,
            dnn_hidden_units=[8, 4],
            dnn_optimizer="Adam",
            **kw,
        ),
        "dnn_sgd": lambda: E.DNNClassifier([8, 4], deep, optimizer="SGD", **kw),
    }[name]()


def rows():
    df = pd.read_csv(os.path.join(GOLDEN, "rows.csv"))
    for key in ("age", "hours_per_week", "capital_gain"):
        df[key] = df[key].astype(np.float32)
    return df


def expected(name):
    with open(os.path.join(GOLDEN, f"{name}.json")) as f:
        meta = json.load(f)
    return meta, np.load(os.path.join(GOLDEN, f"{name}.npz"))


def take_over(name, tmp_path):
    model_dir = tmp_path / name
    shutil.copytree(os.path.join(GOLDEN, name), model_dir)
    return build(name, model_dir), model_dir


def batches(df, label, size=32):
    def input_fn():
        for start in range(0, len(df), size):
            chunk = df.iloc[start : start + size]
            yield {k: chunk[k].to_numpy() for k in chunk.columns}, chunk[label].to_numpy()

    return input_fn


def predictions(est, df, label="label") -> dict:
    out = list(est.predict(batches(df, label), yield_single_examples=False))
    return {k: np.concatenate([np.asarray(p[k]) for p in out]) for k in out[0]}


@pytest.mark.parametrize("name", MODELS)
def test_variable_names_are_tfs(name, tmp_path):
    """On TF's model_dir, ``get_variable_names`` lists what TF's does: every name of its
    checkpoint (optimizer hyperparameters and slots included), and reads them by name."""
    meta, _ = expected(name)
    est, _ = take_over(name, tmp_path)
    assert est.get_variable_names() == sorted(n for n, _ in meta["variables_128"])
    assert est.get_variable_value("global_step") == 128


def _hyperparameter(name, shape):
    hyper = name.startswith("training/") and name.count("/") == 2 and shape == []
    return hyper and not name.endswith("/iter")


@pytest.mark.parametrize("name", MODELS)
def test_predictions_equal_tfs(name, tmp_path):
    meta, want = expected(name)
    est, _ = take_over(name, tmp_path)
    df = rows().iloc[:64]
    got = predictions(est, df, meta["label"])
    key = "probabilities" if "probabilities" in want else "predictions"
    np.testing.assert_allclose(got[key].reshape(want[key].shape), want[key], atol=1e-5)
    metrics = est.evaluate(batches(df, meta["label"]))
    assert metrics["global_step"] == 128
    np.testing.assert_allclose(metrics["average_loss"], meta["evaluate"]["average_loss"], rtol=1e-5)


@pytest.mark.parametrize("name", MODELS)
def test_ten_more_steps_equal_tfs(name, tmp_path):
    meta, want = expected(name)
    est, model_dir = take_over(name, tmp_path)
    est.train(batches(rows(), meta["label"]), steps=10)
    assert est.global_step == 138
    latest = cn.train.latest_checkpoint(str(model_dir))
    assert os.path.basename(latest) == "model.ckpt-138" and os.path.isfile(latest + ".index")
    listed = dict(cn.train.list_variables(latest))
    for tf_name, shape in meta["variables_138"]:
        if _hyperparameter(tf_name, shape):
            continue
        assert tuple(listed[tf_name]) == tuple(shape), tf_name
        got = cn.train.load_variable(latest, tf_name)
        # float32 accumulators reach 1e4: 1e-5 relative there
        np.testing.assert_allclose(
            got, want[f"after/{tf_name}"], rtol=1e-5, atol=1e-5, err_msg=tf_name
        )
    # both kinds coexist: TF's checkpoint stays listed, and a new estimator resumes at 138
    state = cn.train.get_checkpoint_state(str(model_dir))
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == [
        "model.ckpt-128",
        "model.ckpt-138",
    ]
    assert build(name, model_dir).get_variable_value("global_step") == 138


def test_export_from_tf_checkpoint(tmp_path):
    _, want = expected("wide_deep_classifier")
    est, _ = take_over("wide_deep_classifier", tmp_path)
    export = est.export_saved_model(str(tmp_path / "export"))
    got = cn.load(export).predict(rows().iloc[:64].drop(columns=["label", "hours_class"]))
    assert len(got) == 64


def test_tf1_partitioned_checkpoint(tmp_path):
    """A TF 1.x-style checkpoint (tf.compat.v1 estimator, fixed_size_partitioner(2)):
    partitions are joined and TF1's slot names (``.../Ftrl``, ``.../Ftrl_1``) read."""
    _, want = expected("tf1_partitioned")
    model_dir = tmp_path / "tf1"
    shutil.copytree(os.path.join(GOLDEN, "tf1_partitioned"), model_dir)
    est = build("linear_classifier", model_dir)
    got = predictions(est, rows().iloc[:64])
    np.testing.assert_allclose(got["probabilities"], want["probabilities"], atol=1e-5)
    assert est.global_step == 20
    est.train(batches(rows(), "label"), steps=2)
    assert est.global_step == 22


def test_bad_shapes_name_the_variable_and_both_shapes(tmp_path):
    model_dir = tmp_path / "m"
    shutil.copytree(os.path.join(GOLDEN, "linear_classifier"), model_dir)
    wide, _ = columns()
    wide[3] = fc.categorical_column_with_hash_bucket("occupation", 30)  # TF's has 20
    wide[4] = fc.crossed_column(["education", "occupation"], 50)  # TF's crosses age too
    est = E.LinearClassifier(wide[:4] + [columns()[0][4]], model_dir=str(model_dir))
    with pytest.raises(
        ValueError,
        match=r"'linear/linear_model/occupation/weights': the checkpoint has shape \(20, 1\), "
        r"the model has \(30, 1\)",
    ):
        predictions(est, rows().iloc[:4])


def test_missing_and_extra_variables_are_listed(tmp_path):
    model_dir = tmp_path / "m"
    shutil.copytree(os.path.join(GOLDEN, "linear_classifier"), model_dir)
    wide, _ = columns()
    est = E.LinearClassifier(
        wide[:4] + [fc.numeric_column("capital_gain")], model_dir=str(model_dir)
    )
    with pytest.raises(ValueError) as raised:
        predictions(est, rows().iloc[:4])
    message = str(raised.value)
    assert "the model has variables the checkpoint lacks: " in message
    assert "'linear/linear_model/capital_gain/weights'" in message
    assert "the checkpoint has variables the model lacks: " in message
    assert "'linear/linear_model/age_bucketized_X_education_X_occupation/weights'" in message


def test_colonnade_checkpoints_use_tf_names_and_old_ones_still_load(tmp_path):
    df = rows()
    est = build("linear_classifier", tmp_path / "new")
    est.train(batches(df, "label"), steps=3)
    names = [n for n, _ in cn.train.list_variables(est.latest_checkpoint())]
    assert "linear/linear_model/education/weights" in names
    assert "training/Ftrl/linear/linear_model/education/weights/accumulator" in names
    assert "training/Ftrl/iter" in names and "global_step" in names
    assert not [n for n in names if n.startswith("model/")]
    assert est.get_variable_names() == sorted(n for n in names if n != "save_counter")

    # a checkpoint written with the attribute paths colonnade used before (model/...)
    old = build("linear_classifier", tmp_path / "old")
    old.train_state.ensure_checkpointing()
    old.train_state.checkpoint._key_map = None
    old.train(batches(df, "label"), steps=3)
    old_names = [n for n, _ in cn.train.list_variables(old.latest_checkpoint())]
    assert "model/linear/linear_model/education/weights" in old_names
    resumed = build("linear_classifier", tmp_path / "old")
    resumed.train(batches(df, "label"), steps=3)
    assert resumed.global_step == 6
    twin = build("linear_classifier", tmp_path / "twin")
    twin.train(batches(df, "label"), steps=3)
    build("linear_classifier", tmp_path / "twin").train(batches(df, "label"), steps=3)
    twin = build("linear_classifier", tmp_path / "twin")
    np.testing.assert_allclose(
        resumed.get_variable_value("linear/linear_model/education/weights"),
        twin.get_variable_value("linear/linear_model/education/weights"),
        atol=1e-6,
    )


@pytest.mark.parametrize("name", ["dnn_adam", "wide_deep_adam"])
def test_adam_state_survives_colonnade_checkpoints(name, tmp_path):
    """Keras' Adam keeps ``m``, ``v`` and the step; colonnade derives ``beta^(t+1)`` on
    taking over, writes its checkpoint as TF's (TF's names, TF's hyperparameters carried,
    no powers: TF derives them from the step), and a new estimator resuming from that
    checkpoint at 133 reaches TF's variables at 138."""
    meta, want = expected(name)
    est, model_dir = take_over(name, tmp_path)
    data = rows()
    est.train(batches(data.iloc[:160], meta["label"]), steps=5)
    latest = cn.train.latest_checkpoint(str(model_dir))
    assert os.path.basename(latest) == "model.ckpt-133"
    listed = sorted(map(list, cn.train.list_variables(latest)))
    assert listed == sorted(meta["variables_128"])
    assert cn.train.load_variable(latest, "training/Adam/learning_rate") == np.float32(0.001)
    resumed = build(name, model_dir)
    resumed.train(batches(data.iloc[160:], meta["label"]), steps=5)
    assert resumed.global_step == 138
    for tf_name in ("dnn/hiddenlayer_0/kernel", "training/Adam/dnn/logits/kernel/v"):
        np.testing.assert_allclose(
            resumed.get_variable_value(tf_name), want[f"after/{tf_name}"], rtol=1e-5, atol=1e-5
        )


def test_named_adam_is_keras_adam():
    """TF 2.15's canned estimators build ``tf.keras.optimizers.legacy.Adam`` from the name
    "Adam": learning rate 0.001 and epsilon 1e-7 (TF1's AdamOptimizer defaults to 1e-8)."""
    opt = E.DNNClassifier([4], columns()[1], optimizer="Adam").train_state.parts[0][1]
    assert type(opt) is cn.core.AdamOptimizer
    assert opt.hyperparameters["epsilon"] == 1e-7 and opt.learning_rate == 0.001
    mine = E.DNNClassifier([4], columns()[1], optimizer={"name": "Adam", "epsilon": 1e-8})
    assert mine.train_state.parts[0][1].hyperparameters["epsilon"] == 1e-8


def test_tf1_adam_checkpoint(tmp_path):
    """A ``tf.compat.v1`` DNNClassifier trained with TF1's AdamOptimizer (by name: learning
    rate 0.05, epsilon 1e-8; loss summed over the batch): slots ``<variable>/t_0/Adam``
    and ``Adam_1`` and ``dnn/head/beta1_power`` are read, and 10 more steps equal TF's."""
    meta, want = expected("tf1_adam")
    model_dir = tmp_path / "tf1_adam"
    shutil.copytree(os.path.join(GOLDEN, "tf1_adam"), model_dir)
    _, deep = columns()
    est = E.DNNClassifier(  # tf.compat.v1's canned estimators sum the loss over the batch
        [8, 4],
        deep,
        optimizer=cn.train.AdamOptimizer(0.05),
        loss_reduction=cn.core.Reduction.SUM,
        model_dir=str(model_dir),
    )
    assert est.get_variable_value("global_step") == 20
    power = est.get_variable_value("dnn/head/beta1_power")
    np.testing.assert_allclose(power, want["after/dnn/head/beta1_power"] / 0.9**10, rtol=1e-5)
    est.train(batches(rows(), "label"), steps=10)
    assert est.global_step == 30
    assert est.get_variable_names() == sorted(n for n, _ in meta["variables_30"])
    for tf_name, _ in meta["variables_30"]:
        np.testing.assert_allclose(
            est.get_variable_value(tf_name),
            want[f"after/{tf_name}"],
            rtol=1e-5,
            atol=1e-5,
            err_msg=tf_name,
        )


def test_keras_rmsprop_is_refused_and_warm_starts(tmp_path):
    """Keras' RMSprop (TF 2.15's "RMSProp": ``rms`` from 0, epsilon outside the root, no
    ``momentum`` slot) is not TF1's RMSPropOptimizer: predicting needs only the model's
    variables (as TF's PREDICT graph), but training on is refused, naming its slots and
    saying how to warm-start; warm-starting the weights predicts as TF."""
    _, want = expected("dnn_rmsprop")
    model_dir = tmp_path / "m"
    shutil.copytree(os.path.join(GOLDEN, "dnn_rmsprop"), model_dir)
    _, deep = columns()
    est = E.DNNClassifier([8], deep, optimizer="RMSProp", model_dir=str(model_dir))
    got = predictions(est, rows().iloc[:64])
    np.testing.assert_allclose(got["probabilities"], want["probabilities"], atol=1e-5)
    with pytest.raises(ValueError) as raised:
        est.train(batches(rows(), "label"), steps=1)
    message = str(raised.value)
    assert "'training/RMSprop/dnn/logits/kernel/rms'" in message
    assert "'training/RMSProp/dnn/logits/kernel/momentum'" in message
    assert "Keras' RMSprop" in message and "vars_to_warm_start='^(dnn|linear)/'" in message
    settings = E.WarmStartSettings(str(model_dir), vars_to_warm_start="^(dnn|linear)/")
    fresh = E.DNNClassifier(
        [8], deep, optimizer="RMSProp", model_dir=str(tmp_path / "new"), warm_start_from=settings
    )
    got = predictions(fresh, rows().iloc[:64])
    np.testing.assert_allclose(got["probabilities"], want["probabilities"], atol=1e-5)
