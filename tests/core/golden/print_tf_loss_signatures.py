# Prints the signatures of TF 2.15 tf.compat.v1.losses / nn cross-entropies (run with
# /work/tfenv/bin/python); tests/core/test_losses_v1.py pins them.
import inspect

import tensorflow as tf

L = tf.compat.v1.losses
for n in sorted(x for x in dir(L) if x.islower() and not x.startswith("_")):
    print(n, inspect.signature(getattr(L, n)))
print("nn.sigmoid", inspect.signature(tf.compat.v1.nn.sigmoid_cross_entropy_with_logits))
print("nn.sparse", inspect.signature(tf.compat.v1.nn.sparse_softmax_cross_entropy_with_logits))
print("nn.softmax", inspect.signature(tf.compat.v1.nn.softmax_cross_entropy_with_logits))
print("nn.softmax_v2", inspect.signature(tf.compat.v1.nn.softmax_cross_entropy_with_logits_v2))
