"""Make the TF canned-estimator fixtures in ``tf_estimators/`` with real TensorFlow.

Not run by the tests (they read the committed files). Regenerate with a Python that has
``tensorflow-cpu==2.15.1`` and ``tensorflow-estimator==2.15.0``, outside colonnade's
environment::

    /tmp/tfenv2/bin/python tests/estimators/golden/make_tf_estimators.py [NAME ...]

(only the fixtures named, e.g. ``dnn_adam examples``; all of them without names).

Each model is trained 128 steps (batches of 32, no shuffle) on the first 400 rows of the
Adult training set; its model_dir keeps only ``model.ckpt-128`` and TF's ``checkpoint``
state file. ``rows.csv`` holds the next 320 rows (the columns below, ``-`` in names
replaced by ``_``). For each model ``expected.npz`` holds:

- ``probabilities`` / ``predictions`` (and ``logits``): TF's predictions on the first 64
  rows of ``rows.csv``;
- ``after/<name>`` for every variable TF's checkpoint holds after 10 more training steps
  on ``rows.csv`` in batches of 32, in order (so at step 138).

``expected.json`` records ``tf.train.list_variables`` at steps 128 and 138 and TF's
``evaluate`` on the 64 prediction rows.

``tf1_partitioned/`` is a ``tf.compat.v1.estimator.LinearClassifier`` with a
``fixed_size_partitioner(2)`` (TF 1.x names: ``.../weights/part_0``, slots
``.../weights/part_0/Ftrl`` and ``Ftrl_1``), trained 20 steps.

``dnn_adam`` and ``wide_deep_adam`` train their DNN with ``"Adam"`` (Keras' legacy Adam:
slots ``m``, ``v``, no ``beta1_power``), ``dnn_sgd`` with ``"SGD"``, ``dnn_rmsprop`` with
``"RMSProp"`` (Keras' RMSprop, which colonnade does not take over: the test checks the
refusal). ``tf1_adam/`` is a
``tf.compat.v1.estimator.DNNClassifier`` with ``"Adam"`` (TF1's ``AdamOptimizer``: slots
``.../Adam`` and ``Adam_1``, ``beta1_power``), trained 20 steps, with ``tf1_adam.npz``
holding its variables after 10 more.

``rows.tfrecord`` holds the rows of ``rows.csv`` as ``tf.Example`` records serialized and
written by TF; ``examples.npz`` what TF's export of ``wide_deep_classifier`` with a
parsing receiver predicts for the first 64 of them, and ``examples.json`` the parse spec
and the ``predict`` signatures of TF's parsing and raw exports.
"""

import csv
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tf_estimators")
ADULT = "/work/shared/datasets/adult/adult_train.csv"
KEEP = [
    "age",
    "education",
    "occupation",
    "relationship",
    "hours_per_week",
    "capital_gain",
    "income",
]
BATCH = 32
fc = tf.feature_column


class Frame(dict):
    """Columns as numpy arrays (TF's environment has no pandas)."""

    def rows(self, start, stop):
        return Frame({k: v[start:stop] for k, v in self.items()})

    def to_csv(self, path, names):
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(names)
            for i in range(len(self["age"])):
                w.writerow([self[n][i] for n in names])


def load():
    with open(ADULT, newline="") as f:
        rows = list(csv.DictReader(f))
    df = Frame()
    for key in KEEP:
        df[key] = np.array([r[key.replace("_", "-")] for r in rows])
    for key in ("age", "hours_per_week", "capital_gain"):
        df[key] = df[key].astype(np.float32)
    df["label"] = (df["income"] == ">50K").astype(np.int64)
    hours = df["hours_per_week"]
    df["hours_class"] = np.where(hours < 40, 0, np.where(hours == 40, 1, 2)).astype(np.int64)
    return df


EDUCATION = [
    "Bachelors", "HS-grad", "11th", "Masters", "9th", "Some-college", "Assoc-acdm",
    "Assoc-voc", "7th-8th", "Doctorate", "Prof-school", "5th-6th", "10th", "1st-4th",
    "Preschool", "12th",
]  # fmt: skip
RELATIONSHIP = ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried", "Other-relative"]


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


def features_of(df):
    keys = ["age", "education", "occupation", "relationship", "hours_per_week", "capital_gain"]
    return {k: df[k] for k in keys}


def input_fn(df, label, repeat):
    def fn():
        ds = tf.data.Dataset.from_tensor_slices((features_of(df), df[label]))
        ds = ds.batch(BATCH)
        return ds.repeat() if repeat else ds

    return fn


def models(model_dir):
    wide, deep = columns()
    config = tf.estimator.RunConfig(tf_random_seed=7, save_checkpoints_steps=1000)
    kw = dict(model_dir=model_dir, config=config)
    return {
        "linear_classifier": (lambda: tf.estimator.LinearClassifier(wide, **kw), "label"),
        "dnn_classifier": (
            lambda: tf.estimator.DNNClassifier([8, 4], deep, **kw),
            "label",
        ),
        "wide_deep_classifier": (
            lambda: tf.estimator.DNNLinearCombinedClassifier(
                linear_feature_columns=wide,
                dnn_feature_columns=deep,
                dnn_hidden_units=[8, 4],
                **kw,
            ),
            "label",
        ),
        "linear_regressor": (
            lambda: tf.estimator.LinearRegressor(wide + [fc.numeric_column("capital_gain")], **kw),
            "hours_per_week",
        ),
        "dnn_multiclass": (
            lambda: tf.estimator.DNNClassifier([8], deep[:1] + deep[2:], n_classes=3, **kw),
            "hours_class",
        ),
        "dnn_adam": (
            lambda: tf.estimator.DNNClassifier([8, 4], deep, optimizer="Adam", **kw),
            "label",
        ),
        "wide_deep_adam": (
            lambda: tf.estimator.DNNLinearCombinedClassifier(
                linear_feature_columns=wide,
                dnn_feature_columns=deep,
                dnn_hidden_units=[8, 4],
                dnn_optimizer="Adam",
                **kw,
            ),
            "label",
        ),
        "dnn_sgd": (
            lambda: tf.estimator.DNNClassifier([8, 4], deep, optimizer="SGD", **kw),
            "label",
        ),
        "dnn_rmsprop": (
            lambda: tf.estimator.DNNClassifier([8], deep, optimizer="RMSProp", **kw),
            "label",
        ),
    }


def keep_only(model_dir, step):
    for name in os.listdir(model_dir):
        path = os.path.join(model_dir, name)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif not name.startswith(f"model.ckpt-{step}.") or name.endswith(".meta"):
            os.remove(path)
    prefix = os.path.join(model_dir, f"model.ckpt-{step}")
    tf.compat.v1.train.update_checkpoint_state(model_dir, prefix, [prefix])
    with open(os.path.join(model_dir, "checkpoint")) as f:  # relative paths, as TF writes
        text = f.read().replace(model_dir + "/", "")
    with open(os.path.join(model_dir, "checkpoint"), "w") as f:
        f.write(text)


def listing(prefix):
    return [[n, list(s)] for n, s in tf.train.list_variables(prefix)]


def make(name, df_train, df_rows):
    model_dir = os.path.join(OUT, name)
    shutil.rmtree(model_dir, ignore_errors=True)
    build, label = models(model_dir)[name]
    est = build()
    est.train(input_fn(df_train, label, repeat=True), steps=128)
    keep_only(model_dir, 128)
    expected = {"label": label, "variables_128": listing(os.path.join(model_dir, "model.ckpt-128"))}

    est = build()
    head = df_rows.rows(0, 64)
    preds = list(est.predict(input_fn(head, label, repeat=False)))
    arrays = {}
    for key in ("probabilities", "predictions", "logits"):
        if key in preds[0]:
            arrays[key] = np.stack([p[key] for p in preds])
    metrics = est.evaluate(input_fn(head, label, repeat=False))
    expected["evaluate"] = {k: float(v) for k, v in metrics.items()}
    shutil.rmtree(os.path.join(model_dir, "eval"))

    scratch = tempfile.mkdtemp()
    shutil.copytree(model_dir, os.path.join(scratch, "m"))
    cont = models(os.path.join(scratch, "m"))[name][0]()
    cont.train(input_fn(df_rows, label, repeat=False), steps=10)
    prefix = os.path.join(scratch, "m", "model.ckpt-138")
    expected["variables_138"] = listing(prefix)
    for var, _ in tf.train.list_variables(prefix):
        arrays[f"after/{var}"] = np.asarray(tf.train.load_variable(prefix, var))
    shutil.rmtree(scratch)
    np.savez_compressed(os.path.join(model_dir, "..", f"{name}.npz"), **arrays)
    with open(os.path.join(OUT, f"{name}.json"), "w") as f:
        json.dump(expected, f, indent=1)


def make_tf1_adam(df_train, df_rows):
    """A ``tf.compat.v1.estimator.DNNClassifier`` with ``optimizer="Adam"`` (TF1's
    ``AdamOptimizer`` at 0.05: slots ``<variable>/Adam`` and ``Adam_1``, and
    ``beta1_power``/``beta2_power``), trained 20 steps, then 10 more on ``rows.csv``."""
    model_dir = os.path.join(OUT, "tf1_adam")
    shutil.rmtree(model_dir, ignore_errors=True)
    _, deep = columns()
    config = tf.estimator.RunConfig(tf_random_seed=7, save_checkpoints_steps=1000)

    def build(directory):
        return tf.compat.v1.estimator.DNNClassifier(
            [8, 4], deep, model_dir=directory, config=config, optimizer="Adam"
        )

    build(model_dir).train(input_fn(df_train, "label", repeat=True), steps=20)
    keep_only(model_dir, 20)
    expected = {"label": "label", "variables_20": listing(os.path.join(model_dir, "model.ckpt-20"))}
    scratch = tempfile.mkdtemp()
    shutil.copytree(model_dir, os.path.join(scratch, "m"))
    build(os.path.join(scratch, "m")).train(input_fn(df_rows, "label", repeat=False), steps=10)
    prefix = os.path.join(scratch, "m", "model.ckpt-30")
    expected["variables_30"] = listing(prefix)
    arrays = {
        f"after/{var}": np.asarray(tf.train.load_variable(prefix, var))
        for var, _ in tf.train.list_variables(prefix)
    }
    shutil.rmtree(scratch)
    np.savez_compressed(os.path.join(OUT, "tf1_adam.npz"), **arrays)
    with open(os.path.join(OUT, "tf1_adam.json"), "w") as f:
        json.dump(expected, f, indent=1)


def make_tf1_partitioned(df_train, df_rows):
    model_dir = os.path.join(OUT, "tf1_partitioned")
    shutil.rmtree(model_dir, ignore_errors=True)
    wide, _ = columns()
    config = tf.estimator.RunConfig(tf_random_seed=7, save_checkpoints_steps=1000)
    est = tf.compat.v1.estimator.LinearClassifier(
        wide,
        model_dir=model_dir,
        config=config,
        partitioner=tf.compat.v1.fixed_size_partitioner(2),
    )
    est.train(input_fn(df_train, "label", repeat=True), steps=20)
    keep_only(model_dir, 20)
    head = df_rows.rows(0, 64)
    preds = list(est.predict(input_fn(head, "label", repeat=False)))
    arrays = {"probabilities": np.stack([p["probabilities"] for p in preds])}
    np.savez_compressed(os.path.join(OUT, "tf1_partitioned.npz"), **arrays)
    expected = {"label": "label", "variables_20": listing(os.path.join(model_dir, "model.ckpt-20"))}
    with open(os.path.join(OUT, "tf1_partitioned.json"), "w") as f:
        json.dump(expected, f, indent=1)


def example_of(df, i):
    """Row ``i`` as a ``tf.train.Example``, built and serialized by TF."""
    feature = {}
    for key in ROW_KEYS:
        value = df[key][i]
        if key in ("label", "hours_class"):
            feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=[int(value)]))
        elif df[key].dtype == np.float32:
            feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=[value]))
        else:
            feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[value.encode()]))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def signature(export_dir):
    """The ``predict`` signature's inputs and outputs: ``{name: [dtype, shape]}``."""
    sig = tf.saved_model.load(export_dir).signatures["predict"]
    inputs = {
        k: [v.dtype.name, v.shape.as_list()] for k, v in sig.structured_input_signature[1].items()
    }
    outputs = {k: [v.dtype.name, v.shape.as_list()] for k, v in sig.structured_outputs.items()}
    return inputs, outputs


def make_examples(df_rows):
    """``rows.tfrecord``: every row of ``rows.csv`` as a TF-serialized ``tf.Example``; and
    ``examples.npz`` / ``examples.json``: what TF's export of ``wide_deep_classifier`` with
    a parsing receiver predicts for the first 64, and what TF's parsing and raw exports
    record (their ``predict`` signatures, the parse spec)."""
    serialized = [example_of(df_rows, i) for i in range(len(df_rows["age"]))]
    with tf.io.TFRecordWriter(os.path.join(OUT, "rows.tfrecord")) as writer:
        for record in serialized:
            writer.write(record)
    wide, deep = columns()
    spec = fc.make_parse_example_spec(wide + deep)
    est = models(os.path.join(OUT, "wide_deep_classifier"))["wide_deep_classifier"][0]()
    scratch = tempfile.mkdtemp()
    parsing = est.export_saved_model(
        os.path.join(scratch, "parsing"),
        tf.estimator.export.build_parsing_serving_input_receiver_fn(spec),
    ).decode()
    predict = tf.saved_model.load(parsing).signatures["predict"]
    out = predict(examples=tf.constant(serialized[:64]))
    arrays = {k: out[k].numpy() for k in ("probabilities", "logits", "class_ids")}
    np.savez_compressed(os.path.join(OUT, "examples.npz"), **arrays)
    raw_features = {
        k: tf.constant([df_rows[k][0]])
        for k in ("age", "education", "occupation", "relationship", "hours_per_week")
    }
    raw = est.export_saved_model(
        os.path.join(scratch, "raw"),
        tf.estimator.export.build_raw_serving_input_receiver_fn(raw_features),
    ).decode()
    expected = {
        "parse_spec": {
            k: [type(v).__name__, v.dtype.name, list(getattr(v, "shape", []))]
            for k, v in sorted(spec.items())
        },
        "parsing_signature": signature(parsing),
        "raw_signature": signature(raw),
    }
    shutil.rmtree(scratch)
    with open(os.path.join(OUT, "examples.json"), "w") as f:
        json.dump(expected, f, indent=1)


ROW_KEYS = [k for k in KEEP if k != "income"] + ["label", "hours_class"]


def main(argv):
    """Make the fixtures named in ``argv`` (models, ``tf1_partitioned``, ``examples``), or
    all of them."""
    os.makedirs(OUT, exist_ok=True)
    df = load()
    df_train, df_rows = df.rows(0, 400), df.rows(400, 720)
    names = argv or [*models(None), "tf1_partitioned", "tf1_adam", "examples"]
    if not argv:
        df_rows.to_csv(os.path.join(OUT, "rows.csv"), ROW_KEYS)
    for name in names:
        if name == "tf1_partitioned":
            make_tf1_partitioned(df_train, df_rows)
        elif name == "tf1_adam":
            make_tf1_adam(df_train, df_rows)
        elif name == "examples":
            make_examples(df_rows)
        else:
            make(name, df_train, df_rows)


if __name__ == "__main__":
    main(sys.argv[1:])
