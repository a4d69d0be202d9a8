"""Check that TensorFlow reads a model_dir colonnade took over and trained in.

Two steps, two Pythons (TF is never one of colonnade's dependencies)::

    .venv/bin/python tests/estimators/golden/check_tf_reads_takeover.py write /tmp/tko
    /work/tfenv/bin/python tests/estimators/golden/check_tf_reads_takeover.py read /tmp/tko

``write`` copies each fixture of ``tf_takeover/`` (TF's checkpoint at step 20), has
colonnade train it 10 more steps (its checkpoint at 30 is written as a TF bundle) and
records colonnade's predictions on the 16 head rows. ``read`` builds TF's estimator
(``make_tf_takeover.models``) over each directory, records what TF predicts from
colonnade's checkpoint and the global step TF reaches after one more training step, and
writes ``tf_takeover/tf_reads_takeover.json``, which ``test_tf_takeover.py`` checks.
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tf_takeover", "tf_reads_takeover.json")


def write(root):
    import shutil

    sys.path.insert(0, os.path.dirname(HERE))
    from test_tf_takeover import DATA, GOLDEN, MODELS, batches, build, fixture, predict

    ours = {}
    for name in MODELS:
        model_dir = os.path.join(root, name)
        shutil.rmtree(model_dir, ignore_errors=True)
        shutil.copytree(os.path.join(GOLDEN, name), model_dir)
        est = build(name, model_dir)
        est.train(batches(DATA["more_x"], DATA["more_y"], DATA["more_cat"]), steps=10, verbose=0)
        ours[name] = predict(est, fixture(name)[0]["key"]).reshape(-1).tolist()
    with open(os.path.join(root, "colonnade.json"), "w") as f:
        json.dump(ours, f)


def read(root):
    import tensorflow as tf

    sys.path.insert(0, HERE)
    from make_tf_takeover import data, input_fn, models

    d, names = data(), list(models())
    rows = (d["more_x"][:16], d["more_y"][:16], d["more_cat"][:16])
    out = {}
    for name in names:
        build, key = models()[name]
        model_dir = os.path.join(root, name)
        est = build(model_dir)
        preds = np.stack([p[key] for p in est.predict(input_fn(*rows, repeat=False))])
        est.train(input_fn(*rows, repeat=False), steps=1)
        out[name] = {
            "latest_before": "model.ckpt-30",
            "predictions": preds.reshape(-1).tolist(),
            "global_step_after_one_more": int(est.get_variable_value("global_step")),
            "latest_after": os.path.basename(tf.train.latest_checkpoint(model_dir)),
        }
    with open(os.path.join(root, "colonnade.json")) as f:
        ours = json.load(f)
    for name in names:
        gap = np.abs(np.array(ours[name]) - np.array(out[name]["predictions"])).max()
        out[name]["max_difference_from_colonnade"] = float(gap)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    {"write": write, "read": read}[sys.argv[1]](sys.argv[2])
