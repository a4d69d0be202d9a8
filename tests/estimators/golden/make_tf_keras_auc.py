"""Write tf_keras_auc.json: TF 2.15's ``tf.keras.metrics.AUC`` (what its heads report) and TF 1's
``tf.compat.v1.metrics.auc`` on seeded labels, scores and weights, several curves,
summations and threshold counts; ``tests/estimators/test_tf_auc.py`` replays them.

    python tests/estimators/golden/make_tf_keras_auc.py   # with tensorflow-cpu==2.15.1
"""

import json
import pathlib

import numpy as np
import tensorflow as tf

HERE = pathlib.Path(__file__).parent


def data(seed, n, saturate=False, ties=False):
    rng = np.random.default_rng(seed)
    labels = (rng.random(n) < 0.4).astype(np.float32)
    scores = np.clip(0.35 * labels + rng.random(n) * 0.65, 0, 1).astype(np.float32)
    if saturate:
        scores = np.where(rng.random(n) < 0.5, np.round(scores), scores).astype(np.float32)
    if ties:
        scores = np.round(scores, 1).astype(np.float32)
    weights = rng.uniform(0.1, 2.0, n).astype(np.float32)
    return labels, scores, weights


def main():
    cases = []
    sets = [
        ("plain", data(0, 500)),
        ("saturated", data(1, 300, saturate=True)),
        ("ties", data(2, 200, ties=True)),
    ]
    for set_name, (labels, scores, weights) in sets:
        for curve in ("ROC", "PR"):
            for summation in ("interpolation", "minoring", "majoring"):
                for num in (200, 7):
                    for weighted in (False, True):
                        m = tf.keras.metrics.AUC(
                            num_thresholds=num, curve=curve, summation_method=summation
                        )
                        m.update_state(labels, scores, sample_weight=weights if weighted else None)
                        cases.append(
                            {
                                "api": "keras",
                                "set": set_name,
                                "curve": curve,
                                "summation": summation,
                                "num_thresholds": num,
                                "weighted": weighted,
                                "value": float(m.result()),
                            }
                        )
            for summation in ("trapezoidal", "minoring", "majoring") + (
                ("careful_interpolation",) if curve == "PR" else ()
            ):
                for num in (200, 7):
                    for weighted in (False, True):
                        with tf.Graph().as_default():
                            value, update = tf.compat.v1.metrics.auc(
                                labels,
                                scores,
                                weights=weights if weighted else None,
                                num_thresholds=num,
                                curve=curve,
                                summation_method=summation,
                            )
                            with tf.compat.v1.Session() as sess:
                                sess.run(tf.compat.v1.local_variables_initializer())
                                sess.run(update)
                                result = float(sess.run(value))
                        cases.append(
                            {
                                "api": "v1",
                                "set": set_name,
                                "curve": curve,
                                "summation": summation,
                                "num_thresholds": num,
                                "weighted": weighted,
                                "value": result,
                            }
                        )
    out = {
        "tensorflow": tf.__version__,
        "sets": {n: [a.tolist() for a in d] for n, d in sets},
        "cases": cases,
    }
    (HERE / "tf_keras_auc.json").write_text(json.dumps(out) + "\n")
    print(f"wrote {len(cases)} cases")


if __name__ == "__main__":
    main()
