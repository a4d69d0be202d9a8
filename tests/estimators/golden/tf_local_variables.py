"""The scenario of ``tests/estimators/test_local_variables.py`` on TF 2.15's own
Estimator; it prints the values that test expects (checkpoint keys, two evaluations'
mean loss, three predictions, the collections, and ``(value_tensor, update_op)`` metric
pairs over local variables):

    python tests/estimators/golden/tf_local_variables.py   # with tensorflow-cpu==2.15.1
"""

import itertools
import tempfile

import tensorflow as tf

v1 = tf.compat.v1


def model_fn(features, labels, mode):
    w = v1.get_variable("w", initializer=1.0)
    n = v1.get_variable("n", initializer=0.0, collections=[v1.GraphKeys.LOCAL_VARIABLES])
    m = v1.get_local_variable("m", initializer=10.0)
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {
            "n": tf.reshape(v1.assign_add(n, 1.0), [1]),
            "m": tf.reshape(v1.assign_add(m, 1.0), [1]),
        }
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = w * v1.assign_add(n, 1.0)
    train_op = v1.train.get_global_step().assign_add(1)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": [1.0]}, [1.0])).batch(1).repeat()


est = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp())
est.train(input_fn, steps=3)
print("checkpoint", sorted(name for name, _ in tf.train.list_variables(est.latest_checkpoint())))
print("evaluate", est.evaluate(input_fn, steps=4))
print("evaluate", est.evaluate(input_fn, steps=2))
rows = est.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": [1.0] * 3}).batch(1))
# predictions that read no feature never run TF's input iterator out: take three rows
print("predict", [(float(r["n"]), float(r["m"])) for r in itertools.islice(rows, 3)])
with tf.Graph().as_default():
    a = v1.get_local_variable("a", initializer=1.0)
    b = v1.get_variable("b", initializer=1.0, collections=[v1.GraphKeys.LOCAL_VARIABLES])
    c = v1.get_variable("c", initializer=1.0)
    print("local", [v.name for v in v1.local_variables()])
    print("collection", [v.name for v in v1.get_collection(v1.GraphKeys.LOCAL_VARIABLES)])
    print("global", [v.name for v in v1.global_variables()])
    print("trainable", a.trainable, b.trainable)


def metric_model_fn(features, labels, mode):
    w = v1.get_variable("w", initializer=1.0)
    x = tf.reshape(features["x"], [-1])
    total = v1.get_local_variable("total", initializer=0.0)
    count = v1.get_local_variable("count", initializer=0.0)
    up_total = v1.assign_add(total, tf.reduce_sum(x))
    up_count = v1.assign_add(count, tf.cast(tf.size(x), tf.float32))
    ops = {
        "ratio": (total / count, tf.group(up_total, up_count)),
        "total": (total, up_total),
        "constant": (tf.constant(7.0), tf.no_op()),
        "mean": v1.metrics.mean(x),
    }
    train_op = v1.train.get_global_step().assign_add(1)
    return tf.estimator.EstimatorSpec(
        mode, loss=w * tf.reduce_mean(x), eval_metric_ops=ops, train_op=train_op
    )


def five_rows():
    return tf.data.Dataset.from_tensor_slices({"x": [1.0, 2.0, 3.0, 4.0, 10.0]}).batch(2)


est = tf.estimator.Estimator(metric_model_fn, model_dir=tempfile.mkdtemp())
est.train(lambda: five_rows().repeat(), steps=1)
print("metrics", {k: float(v) for k, v in est.evaluate(five_rows).items()})
print("metrics", {k: float(v) for k, v in est.evaluate(five_rows, steps=2).items()})
