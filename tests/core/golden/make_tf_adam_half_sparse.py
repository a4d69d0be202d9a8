# What TF 2.15's tf.compat.v1.train.AdamOptimizer does to a float16 variable's untouched
# rows on a sparse gradient (run with /work/tfenv/bin/python).
import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
for eps in (1e-8, 1e-3):
    with tf.Graph().as_default(), v1.Session() as sess:
        var = tf.Variable(np.array([[1.0], [2.0], [3.0]], np.float16))
        grad = tf.IndexedSlices(
            tf.constant(np.array([[0.1]], np.float16)), tf.constant([0]), tf.constant([3, 1])
        )
        update = v1.train.AdamOptimizer(epsilon=eps).apply_gradients([(grad, var)])
        sess.run(v1.global_variables_initializer())
        for _ in range(2):
            sess.run(update)
        print(eps, sess.run(var).ravel().tolist())
