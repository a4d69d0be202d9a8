"""EstimatorSpec(scaffold=cn.compat.v1.train.Scaffold(...)): TF 1's warm-start idiom
(``init_fn(scaffold, session)`` restoring another model's checkpoint with a ``Saver``),
called once when training starts from scratch and not when it resumes, as TF's session
manager; with batch normalization's ``UPDATE_OPS`` idiom in the same ``model_fn``; and
the refused graph objects."""

import numpy as np
import pytest

import colonnade as cn
from colonnade.estimators.spec.scaffold import EagerSession

tf = cn.compat.v1
RNG = np.random.default_rng(0)
X = RNG.normal(size=(32, 3)).astype(np.float32)
Y = (X.sum(axis=1) > 0).astype(np.float32).reshape(-1, 1)


def input_fn():
    return {"x": X}, Y


def make_model_fn(learning_rate, scaffold_fn=None, calls=None):
    def model_fn(features, labels, mode):
        hidden = tf.layers.dense(features["x"], 4, name="hidden")
        net = tf.layers.batch_normalization(hidden, training=mode == tf.estimator.ModeKeys.TRAIN)
        logits = tf.layers.dense(net, 1, name="logits")
        loss = tf.losses.sigmoid_cross_entropy(labels, logits)
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(update_ops):
            optimizer = tf.train.GradientDescentOptimizer(learning_rate)
            train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
        scaffold = scaffold_fn() if scaffold_fn else None
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=scaffold)

    return model_fn


def test_init_fn_warm_starts_once_from_scratch_and_not_on_resume(tmp_path):
    source = tf.estimator.Estimator(make_model_fn(0.5), model_dir=str(tmp_path / "source"))
    source.train(input_fn, steps=3, verbose=0)
    ckpt = tf.train.latest_checkpoint(str(tmp_path / "source"))
    calls = []

    def scaffold_fn():
        names = ["hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"]
        saver = tf.train.Saver([v for v in tf.global_variables() if v.name in names])

        def init_fn(scaffold, session):
            calls.append(session.run(tf.train.get_global_step()))
            saver.restore(session, ckpt)

        return tf.train.Scaffold(init_fn=init_fn)

    target = tf.estimator.Estimator(
        make_model_fn(0.0, scaffold_fn), model_dir=str(tmp_path / "target")
    )
    target.train(input_fn, steps=2, verbose=0)
    assert calls == [0]  # once, before the first step, whatever the model_fn calls
    for name in ("hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"):
        np.testing.assert_array_equal(
            target.get_variable_value(name), source.get_variable_value(name)
        )
    # batch normalization moved its statistics twice, from the restored hidden layer on
    hidden = X @ source.get_variable_value("hidden/kernel") + source.get_variable_value(
        "hidden/bias"
    )
    want = hidden.mean(axis=0) * (1 - 0.99**2)
    got = target.get_variable_value("batch_normalization/moving_mean")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    target.train(input_fn, steps=1, verbose=0)  # resumes from target's own checkpoint
    assert calls == [0] and target.global_step == 3


def test_session_run_gives_values_and_refuses_feeds():
    session = EagerSession()
    v = cn.core.Variable(np.array([1.0, 2.0], np.float32))
    got = session.run({"v": v, "op": None, "pair": (np.int64(3), v)})
    assert got["v"].tolist() == [1.0, 2.0] and got["op"] is None and got["pair"][0] == 3
    with pytest.raises(ValueError, match="no placeholders to feed"):
        session.run(v, feed_dict={"p": 1})


def test_copy_from_scaffold_and_refused_graph_objects():
    def init_fn(scaffold, session):
        return None

    base = tf.train.Scaffold(init_fn=init_fn, ready_op="ready")
    copy = tf.train.Scaffold(copy_from_scaffold=base, ready_op="mine")
    assert copy.init_fn is init_fn and copy.ready_op == "mine"
    assert tf.train.Scaffold(local_init_op=tf.group(tf.tables_initializer())).local_init_op is None
    with pytest.raises(ValueError, match="saves and restores every variable"):
        tf.train.Scaffold(saver=tf.train.Saver([cn.core.Variable(1.0, name="w")]))
    with pytest.raises(ValueError, match="init_op="):
        tf.train.Scaffold(init_op="an op")
    with pytest.raises(ValueError, match="no placeholders to feed"):
        tf.train.Scaffold(init_feed_dict={"p": 1})
    with pytest.raises(TypeError, match="copy_from_scaffold is not a Scaffold"):
        tf.train.Scaffold(copy_from_scaffold=object())
    with pytest.raises(TypeError, match="scaffold must be tf.train.Scaffold"):
        tf.estimator.EstimatorSpec("infer", predictions={"p": np.ones(1)}, scaffold="s")
