# Signatures and error types of TF 2.15's tf.compat.v1.debugging asserts (run with
# /work/tfenv/bin/python); tests/core/test_debugging.py pins them.
import inspect

import numpy as np
import tensorflow as tf

D = tf.compat.v1.debugging
names = [
    "assert_equal",
    "assert_none_equal",
    "assert_less",
    "assert_less_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_positive",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_near",
    "assert_all_finite",
    "assert_integer",
    "assert_type",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_scalar",
    "assert_proper_iterable",
]
for n in names:
    print(n, list(inspect.signature(getattr(D, n)).parameters))
x = np.array([1.0, -2.0])
for call in [
    lambda: D.assert_positive(x),
    lambda: D.assert_less(x, 0.0),
    lambda: D.assert_rank(x, 2),
    lambda: D.assert_scalar(x),
    lambda: D.assert_integer(tf.constant(x)),
    lambda: D.assert_type(tf.constant(x), tf.float32),
    lambda: D.assert_proper_iterable("abc"),
    lambda: D.assert_near(np.array([1.0]), np.array([1.0 + 1e-9])),
]:
    try:
        call()
        print("ok")
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__)
print(float(tf.math.zero_fraction(np.array([0.0, 1.0, 0.0, 2.0]))))
print(list(inspect.signature(tf.math.zero_fraction).parameters))
