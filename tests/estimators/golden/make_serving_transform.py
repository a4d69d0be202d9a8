"""Writes ``serving_transform.json``: TF 2.15's values of the 4th ``serving_input_fn``
form of issue 25 (``tf.math.log1p(sq_ft) / 10.0`` and ``tf.strings.lower(city)``), run in
a TF 1 graph through the placeholders, as a ``ServingInputReceiver`` feeds them.

Run with the throw-away TF venv: ``/work/tfenv/bin/python make_serving_transform.py``.
"""

import json
import os

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

SQ_FT = [0.0, 1.5, 400.0, 2500.25, 4800.0, 1e6]
CITY = ["PARIS", "Rome", "oslo", "ÉVORA", "", "New York"]

inputs = {"sq_ft": tf.placeholder(tf.float32, [None]), "city": tf.placeholder(tf.string, [None])}
features = {
    "log_sq_ft": tf.math.log1p(inputs["sq_ft"]) / 10.0,
    "city": tf.strings.lower(inputs["city"], encoding="utf-8"),
}
receiver = tf.estimator.export.ServingInputReceiver(features, inputs)
with tf.Session() as session:
    out = session.run(receiver.features, {inputs["sq_ft"]: SQ_FT, inputs["city"]: CITY})
golden = {
    "sq_ft": SQ_FT,
    "city": CITY,
    "log_sq_ft": [float(v) for v in out["log_sq_ft"]],
    "lower_city": [v.decode() for v in out["city"]],
}
with open(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "serving_transform.json"), "w"
) as f:
    json.dump(golden, f, indent=1, ensure_ascii=False)
