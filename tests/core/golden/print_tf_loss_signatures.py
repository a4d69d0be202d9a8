# Prints the signatures of TF 2.15 tf.compat.v1.losses / nn cross-entropies (run with
# /work/tfenv/bin/python); tests/core/test_losses_v1.py pins them.
import inspect

import tensorflow as tf

L = tf.compat.v1.losses
for n in [
    "absolute_difference",
    "compute_weighted_loss",
    "huber_loss",
    "log_loss",
    "mean_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
    "cosine_distance",
    "hinge_loss",
    "mean_pairwise_squared_error",
]:
    print(n, inspect.signature(getattr(L, n)))
print("nn.sigmoid", inspect.signature(tf.compat.v1.nn.sigmoid_cross_entropy_with_logits))
print("nn.sparse", inspect.signature(tf.compat.v1.nn.sparse_softmax_cross_entropy_with_logits))
print("nn.softmax", inspect.signature(tf.compat.v1.nn.softmax_cross_entropy_with_logits))
print("nn.softmax_v2", inspect.signature(tf.compat.v1.nn.softmax_cross_entropy_with_logits_v2))
