# Error types TF 2.15 raises for bad arguments in the areas cn.train covers (run with
# /work/tfenv/bin/python); tests/core/test_checkpoint.py pins the Checkpoint one.
import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
cases = {
    "checkpoint_non_trackable": lambda: tf.train.Checkpoint(x=3),
    "ema_decay_string": lambda: tf.train.ExponentialMovingAverage("a").apply([tf.Variable(1.0)]),
    "ema_apply_int_variable": lambda: tf.train.ExponentialMovingAverage(0.9).apply(
        [tf.Variable(1)]
    ),
    "decay_step_none": lambda: v1.train.exponential_decay(0.1, None, 10, 0.9),
    "decay_step_string": lambda: v1.train.exponential_decay(0.1, "a", 10, 0.9)(),
    "piecewise_len": lambda: v1.train.piecewise_constant(3, [1, 2], [1.0, 2.0]),
    "clip_norm_string": lambda: tf.clip_by_norm(np.ones(2, np.float32), "a"),
    "sparse_labels_shape": lambda: v1.losses.sparse_softmax_cross_entropy(
        np.zeros((2,), np.int64), np.zeros((3, 4), np.float32)
    ),
    "mse_shape": lambda: v1.losses.mean_squared_error(np.zeros((2, 1)), np.zeros((3, 1))),
    "weights_shape": lambda: v1.losses.mean_squared_error(
        np.zeros((2, 1)), np.zeros((2, 1)), weights=np.ones(3)
    ),
    "reduction_bad": lambda: v1.losses.mean_squared_error(
        np.zeros((2, 1)), np.zeros((2, 1)), reduction="bad"
    ),
    "apply_no_grads": lambda: v1.train.GradientDescentOptimizer(0.1).apply_gradients(
        [(None, tf.Variable(1.0))]
    ),
    "apply_not_variable": lambda: v1.train.GradientDescentOptimizer(0.1).apply_gradients(
        [(tf.constant(1.0), tf.constant(1.0))]
    ),
    "opt_lr_string": lambda: v1.train.GradientDescentOptimizer("a").apply_gradients(
        [(tf.constant(1.0), tf.Variable(1.0))]
    ),
    "grad_shape": lambda: v1.train.GradientDescentOptimizer(0.1).apply_gradients(
        [(tf.constant([1.0, 2.0]), tf.Variable(1.0))]
    ),
}
for name, call in cases.items():
    try:
        call()
        print(name, "ok")
    except Exception as e:  # noqa: BLE001
        print(name, type(e).__name__, str(e)[:80].replace("\n", " "))
