"""The DeepFM program (lambdaji/tf_repos at 6ec48194e19e0cec1e241f126dad9a940dc87f65,
deep_ctr/Model_pipeline/DeepFM.py) on colonnade: ``make_fixture.py``'s TF 2.15 model
with ``tf.`` swapped for colonnade's names. Lines that differ beyond the swap are marked
``# PORT:`` and listed in docs/porting.md. (The original carries no license; like
make_fixture.py this restates its model rather than copying its text.)
"""

import numpy as np

import colonnade as cn

PARAMS = {
    "field_size": 6,
    "feature_size": 40,
    "embedding_size": 4,
    "learning_rate": 0.01,
    "l2_reg": 0.0001,
    "deep_layers": "16,8",
    "dropout": "0.8,0.8",  # keep probabilities, as the original's flag
}


def input_fn(filenames, batch_size=32, num_epochs=1, perform_shuffle=False):
    """libsvm lines -> ({"feat_ids", "feat_vals"}, label)."""

    def decode_libsvm(line):
        # PORT: TF parses one line with tf.string_split / tf.split / tf.string_to_number,
        # which colonnade lacks; here numpy parses the batch of lines map hands over.
        lines = line.column("line").to_numpy(zero_copy_only=False).astype(str)
        tokens = np.array(" ".join(lines).replace(":", " ").split(), dtype=str)
        table = tokens.reshape(len(lines), tokens.size // len(lines) if len(lines) else 1)
        labels = table[:, 0].astype(np.float32)
        feat_ids = table[:, 1::2].astype(np.int32)
        feat_vals = table[:, 2::2].astype(np.float32)
        return {"feat_ids": feat_ids, "feat_vals": feat_vals}, labels

    dataset = cn.data.TextLineDataset(filenames).map(decode_libsvm)
    if perform_shuffle:
        dataset = dataset.shuffle(buffer_size=256)
    dataset = dataset.repeat(num_epochs).batch(batch_size)
    return cn.data.make_one_shot_iterator(dataset).get_next()


def model_fn(features, labels, mode, params):
    """DeepFM: bias + first-order weights + FM pairwise term + MLP over the embeddings."""
    fields = params["field_size"]
    size = params["embedding_size"]
    l2_reg = params["l2_reg"]
    hidden = [int(u) for u in params["deep_layers"].split(",")]
    keep = [float(k) for k in params["dropout"].split(",")]

    v1 = cn.compat.v1
    bias = v1.get_variable("fm_bias", shape=[1], initializer=v1.constant_initializer(0.0))
    first = v1.get_variable(
        "fm_w", shape=[params["feature_size"]], initializer=v1.glorot_normal_initializer()
    )
    factors = v1.get_variable(
        "fm_v", shape=[params["feature_size"], size], initializer=v1.glorot_normal_initializer()
    )

    ids = cn.core.reshape(features["feat_ids"], shape=[-1, fields])
    values = cn.core.reshape(features["feat_vals"], shape=[-1, fields])

    with v1.variable_scope("First-order"):
        y_w = cn.core.reduce_sum(cn.core.multiply(cn.nn.embedding_lookup(first, ids), values), 1)

    with v1.variable_scope("Second-order"):
        embedded = cn.core.multiply(
            cn.nn.embedding_lookup(factors, ids), cn.core.reshape(values, shape=[-1, fields, 1])
        )
        sum_square = cn.core.square(cn.core.reduce_sum(embedded, 1))
        square_sum = cn.core.reduce_sum(cn.core.square(embedded), 1)
        y_v = 0.5 * cn.core.reduce_sum(cn.core.subtract(sum_square, square_sum), 1)

    with v1.variable_scope("Deep-part"):
        net = cn.core.reshape(embedded, shape=[-1, fields * size])
        for i, units in enumerate(hidden):
            net = v1.layers.dense(net, units, activation=cn.nn.relu, name="mlp%d" % i)
            if mode == v1.estimator.ModeKeys.TRAIN:
                net = cn.nn.dropout(net, keep_prob=keep[i])
        y_d = cn.core.reshape(v1.layers.dense(net, 1, name="deep_out"), shape=[-1])

    with v1.variable_scope("DeepFM-out"):
        y = bias * cn.core.ones_like(y_d, dtype=cn.compat.v1.float32) + y_w + y_v + y_d
        prob = cn.core.sigmoid(y)

    predictions = {"prob": prob}
    signature = cn.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    export_outputs = {signature: cn.estimators.export.PredictOutput(predictions)}
    if mode == v1.estimator.ModeKeys.PREDICT:
        return v1.estimator.EstimatorSpec(
            mode=mode, predictions=predictions, export_outputs=export_outputs
        )

    loss = (
        cn.core.reduce_mean(cn.nn.sigmoid_cross_entropy_with_logits(logits=y, labels=labels))
        + l2_reg * cn.nn.l2_loss(first)
        + l2_reg * cn.nn.l2_loss(factors)
    )
    if mode == v1.estimator.ModeKeys.EVAL:
        return v1.estimator.EstimatorSpec(
            mode=mode,
            predictions=predictions,
            loss=loss,
            eval_metric_ops={"auc": v1.metrics.auc(labels, prob)},
        )

    optimizer = v1.train.AdamOptimizer(
        learning_rate=params["learning_rate"], beta1=0.9, beta2=0.999, epsilon=1e-8
    )
    train_op = optimizer.minimize(loss, global_step=v1.train.get_global_step())
    return v1.estimator.EstimatorSpec(
        mode=mode, predictions=predictions, loss=loss, train_op=train_op
    )


def serving_input_receiver_fn(field_size):
    """The original's export receiver: raw ``feat_ids`` (int64) and ``feat_vals`` (float32),
    ``field_size`` of each per row."""
    feature_spec = {
        "feat_ids": cn.compat.v1.placeholder(dtype=cn.compat.v1.int64, shape=[None, field_size], name="feat_ids"),
        "feat_vals": cn.compat.v1.placeholder(dtype=cn.compat.v1.float32, shape=[None, field_size], name="feat_vals"),
    }
    return cn.estimators.export.build_raw_serving_input_receiver_fn(feature_spec)
