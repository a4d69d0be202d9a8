"""TF 2.15 fixture for the DeepFM port (run: /work/tfenv/bin/python make_fixture.py).

The program: lambdaji/tf_repos at commit 6ec48194e19e0cec1e241f126dad9a940dc87f65,
deep_ctr/Model_pipeline/DeepFM.py, a custom ``model_fn`` DeepFM (FM first and second
order terms plus an MLP over the field embeddings) trained by
``tf.estimator.Estimator`` on libsvm lines ``label id:value id:value ...``. That
repository carries no license, so its text is not copied here: this file restates the
same model for TF 2.15 (``tf.compat.v1``) with the original's variable names, variable
scopes, layer order, loss, metric and optimizer, as docs/porting.md describes; TF 2.15
has no ``tf.contrib``, so the MLP's ``tf.contrib.layers.fully_connected`` layers are
``tf.compat.v1.layers.dense`` (ReLU, as fully_connected's default) and its
``weights_regularizer`` (never added to the original's loss) is left out.

Writes fixture/: the libsvm data, the model_dir after a few steps, and TF's predictions,
metrics and variables' names in tf_results.json.
"""

import json
import os
import shutil
import sys

import numpy as np
import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from programs import prune_model_dir  # noqa: E402  (tests/porting/programs.py)

HERE = os.path.dirname(os.path.abspath(__file__))
PARAMS = {
    "field_size": 6,
    "feature_size": 40,
    "embedding_size": 4,
    "learning_rate": 0.01,
    "l2_reg": 0.0001,
    "deep_layers": "16,8",
    "dropout": "0.8,0.8",  # keep probabilities, as the original's flag
}
BATCH_SIZE = 32
STEPS = 40


def input_fn(filenames, batch_size=32, num_epochs=1, perform_shuffle=False):
    """libsvm lines -> ({"feat_ids", "feat_vals"}, label), as the original parses them."""

    def decode_libsvm(line):
        columns = tf.string_split([line], " ")
        labels = tf.string_to_number(columns.values[0], out_type=tf.float32)
        splits = tf.string_split(columns.values[1:], ":")
        id_vals = tf.reshape(splits.values, splits.dense_shape)
        feat_ids, feat_vals = tf.split(id_vals, num_or_size_splits=2, axis=1)
        feat_ids = tf.string_to_number(feat_ids, out_type=tf.int32)
        feat_vals = tf.string_to_number(feat_vals, out_type=tf.float32)
        return {"feat_ids": feat_ids, "feat_vals": feat_vals}, labels

    dataset = tf.data.TextLineDataset(filenames).map(decode_libsvm)
    if perform_shuffle:
        dataset = dataset.shuffle(buffer_size=256)
    dataset = dataset.repeat(num_epochs).batch(batch_size)
    return tf.data.make_one_shot_iterator(dataset).get_next()


def model_fn(features, labels, mode, params):
    """DeepFM: bias + first-order weights + FM pairwise term + MLP over the embeddings."""
    fields = params["field_size"]
    size = params["embedding_size"]
    l2_reg = params["l2_reg"]
    hidden = [int(u) for u in params["deep_layers"].split(",")]
    keep = [float(k) for k in params["dropout"].split(",")]

    bias = tf.get_variable("fm_bias", shape=[1], initializer=tf.constant_initializer(0.0))
    first = tf.get_variable(
        "fm_w", shape=[params["feature_size"]], initializer=tf.glorot_normal_initializer()
    )
    factors = tf.get_variable(
        "fm_v", shape=[params["feature_size"], size], initializer=tf.glorot_normal_initializer()
    )

    ids = tf.reshape(features["feat_ids"], shape=[-1, fields])
    values = tf.reshape(features["feat_vals"], shape=[-1, fields])

    with tf.variable_scope("First-order"):
        y_w = tf.reduce_sum(tf.multiply(tf.nn.embedding_lookup(first, ids), values), 1)

    with tf.variable_scope("Second-order"):
        embedded = tf.multiply(
            tf.nn.embedding_lookup(factors, ids), tf.reshape(values, shape=[-1, fields, 1])
        )
        sum_square = tf.square(tf.reduce_sum(embedded, 1))
        square_sum = tf.reduce_sum(tf.square(embedded), 1)
        y_v = 0.5 * tf.reduce_sum(tf.subtract(sum_square, square_sum), 1)

    with tf.variable_scope("Deep-part"):
        net = tf.reshape(embedded, shape=[-1, fields * size])
        for i, units in enumerate(hidden):
            net = tf.layers.dense(net, units, activation=tf.nn.relu, name="mlp%d" % i)
            if mode == tf.estimator.ModeKeys.TRAIN:
                net = tf.nn.dropout(net, keep_prob=keep[i])
        y_d = tf.reshape(tf.layers.dense(net, 1, name="deep_out"), shape=[-1])

    with tf.variable_scope("DeepFM-out"):
        y = bias * tf.ones_like(y_d, dtype=tf.float32) + y_w + y_v + y_d
        prob = tf.sigmoid(y)

    predictions = {"prob": prob}
    signature = tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    export_outputs = {signature: tf.estimator.export.PredictOutput(predictions)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(
            mode=mode, predictions=predictions, export_outputs=export_outputs
        )

    loss = (
        tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=y, labels=labels))
        + l2_reg * tf.nn.l2_loss(first)
        + l2_reg * tf.nn.l2_loss(factors)
    )
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(
            mode=mode,
            predictions=predictions,
            loss=loss,
            eval_metric_ops={"auc": tf.metrics.auc(labels, prob)},
        )

    optimizer = tf.train.AdamOptimizer(
        learning_rate=params["learning_rate"], beta1=0.9, beta2=0.999, epsilon=1e-8
    )
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(
        mode=mode, predictions=predictions, loss=loss, train_op=train_op
    )


def write_libsvm(path, n, seed):
    """Rows of ``field_size`` (id, value) pairs, one id per field; the label depends on
    which ids appear together (a pairwise effect an FM can learn)."""
    rng = np.random.RandomState(seed)
    fields, per_field = PARAMS["field_size"], PARAMS["feature_size"] // PARAMS["field_size"]
    ids = rng.randint(0, per_field, (n, fields)) + per_field * np.arange(fields)
    values = np.where(np.arange(fields) < 2, rng.rand(n, fields).round(4), 1.0)
    score = np.sin(ids[:, 2] * 1.3) * np.cos(ids[:, 3]) + values[:, 0] - 0.5
    labels = (score + 0.3 * rng.randn(n) > 0).astype(int)
    with open(path, "w") as f:
        for row in range(n):
            pairs = " ".join("%d:%g" % (i, v) for i, v in zip(ids[row], values[row]))
            f.write("%d %s\n" % (labels[row], pairs))


def main():
    fixture = os.path.join(HERE, "fixture")
    shutil.rmtree(fixture, ignore_errors=True)
    os.makedirs(fixture)
    train_file = os.path.join(fixture, "tr.libsvm")
    valid_file = os.path.join(fixture, "va.libsvm")
    write_libsvm(train_file, 600, 0)
    write_libsvm(valid_file, 200, 1)
    model_dir = os.path.join(fixture, "model_dir")
    config = tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=10)
    deepfm = tf.estimator.Estimator(
        model_fn=model_fn, model_dir=model_dir, params=PARAMS, config=config
    )
    deepfm.train(
        lambda: input_fn([train_file], BATCH_SIZE, num_epochs=None, perform_shuffle=True),
        steps=STEPS,
    )
    metrics = deepfm.evaluate(lambda: input_fn([valid_file], batch_size=1000))
    probs = [
        float(p["prob"])
        for p in deepfm.predict(lambda: input_fn([valid_file], batch_size=8), predict_keys="prob")
    ][:8]
    names = sorted(n for n, _ in tf.train.list_variables(model_dir))
    prune_model_dir(model_dir, STEPS)
    with open(os.path.join(fixture, "tf_results.json"), "w") as f:
        json.dump(
            {
                "tf_version": tf.__version__,
                "params": PARAMS,
                "batch_size": BATCH_SIZE,
                "global_step": int(metrics["global_step"]),
                "metrics": {k: float(v) for k, v in metrics.items()},
                "prob_first_8_valid_rows": probs,
                "variables": names,
            },
            f,
            indent=1,
        )


if __name__ == "__main__":
    main()
