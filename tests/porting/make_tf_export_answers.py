"""What TF 2.15's export of each fixture's model_dir answers: run with
``/work/tfenv/bin/python tests/porting/make_tf_export_answers.py`` (any Python with
``tensorflow-cpu==2.15.1``). For taxifare, iris and deepfm it exports TF's checkpoint in
``<name>/fixture/model_dir`` with the program's own serving receiver (iris has none: a raw
receiver of its four float columns), loads the SavedModel and calls each of its
signatures on the first 8 evaluation rows, and writes ``<name>/fixture/tf_export_answers.json``:
the signatures' names and outputs, the references of the serving checks in
``test_<name>.py``. (babyweight's ``make_fixture.py`` records its export's answers itself.)"""

import importlib.util
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import pandas as pd
import tensorflow as tf2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def program(name):
    """``<name>/make_fixture.py``: the TF program (its driver does not run on import)."""
    spec = importlib.util.spec_from_file_location(
        name + "_tf", os.path.join(HERE, name, "make_fixture.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixture(name, *parts):
    return os.path.join(HERE, name, "fixture", *parts)


def taxifare():
    m = program("taxifare")
    tf = m.tf
    estimator = tf.estimator.DNNRegressor(
        model_dir=fixture("taxifare", "model_dir"),
        feature_columns=m.feature_cols,
        hidden_units=m.ARGS["hidden_units"],
    )
    frame = pd.read_csv(
        fixture("taxifare", "taxi-valid.csv"), header=None, names=m.CSV_COLUMNS, nrows=8
    )
    rows = {c.name: frame[c.name].to_numpy(np.float32) for c in m.INPUT_COLUMNS}
    return estimator, m.serving_input_fn, rows


def iris():
    m = program("iris")
    tf = m.tf
    names = m.CSV_COLUMN_NAMES[:-1]
    estimator = tf.estimator.DNNClassifier(
        feature_columns=[tf.feature_column.numeric_column(key=k) for k in names],
        hidden_units=[10, 10],
        n_classes=3,
        model_dir=fixture("iris", "model_dir"),
    )

    def receiver():  # placeholders exist only in the export's graph
        features = {k: tf.placeholder(tf.float32, [None]) for k in names}
        return tf.estimator.export.build_raw_serving_input_receiver_fn(features)()

    frame = pd.read_csv(
        fixture("iris", "iris_test.csv"), names=m.CSV_COLUMN_NAMES, header=0, nrows=8
    )
    return estimator, receiver, {k: frame[k].to_numpy(np.float32) for k in names}


def deepfm():
    m = program("deepfm")
    tf = m.tf
    estimator = tf.estimator.Estimator(
        model_fn=m.model_fn, model_dir=fixture("deepfm", "model_dir"), params=m.PARAMS
    )
    size = m.PARAMS["field_size"]

    def receiver():  # the program's: placeholders of [None, field_size], in the export's graph
        features = {
            "feat_ids": tf.placeholder(tf.int64, [None, size]),
            "feat_vals": tf.placeholder(tf.float32, [None, size]),
        }
        return tf.estimator.export.build_raw_serving_input_receiver_fn(features)()

    lines = [line.split() for line in open(fixture("deepfm", "va.libsvm"))][:8]
    rows = {
        "feat_ids": np.array(
            [[int(p.split(":")[0]) for p in line[1:]] for line in lines], np.int64
        ),
        "feat_vals": np.array(
            [[float(p.split(":")[1]) for p in line[1:]] for line in lines], np.float32
        ),
    }
    return estimator, receiver, rows


def answers(estimator, receiver, rows):
    """Each signature of ``estimator``'s export (made in a scratch folder) called on ``rows``."""
    scratch = tempfile.mkdtemp()
    try:
        path = estimator.export_saved_model(scratch, receiver)
        loaded = tf2.saved_model.load(path.decode() if isinstance(path, bytes) else path)
        result = {}
        for name in sorted(loaded.signatures):
            function = loaded.signatures[name]
            wanted = function.structured_input_signature[1]
            out = function(**{k: tf2.constant(v) for k, v in rows.items() if k in wanted})
            result[name] = {
                k: (v.numpy().astype(str).tolist() if v.dtype == tf2.string else v.numpy().tolist())
                for k, v in out.items()
            }
        return result
    finally:
        shutil.rmtree(scratch)


def main():
    for name, make in (("taxifare", taxifare), ("iris", iris), ("deepfm", deepfm)):
        estimator, receiver, rows = make()
        signatures = answers(estimator, receiver, rows)
        with open(fixture(name, "tf_export_answers.json"), "w") as f:
            json.dump({"tf_version": tf2.__version__, "signatures": signatures}, f, indent=1)
        print(name, {k: sorted(v) for k, v in signatures.items()})


if __name__ == "__main__":
    main()
