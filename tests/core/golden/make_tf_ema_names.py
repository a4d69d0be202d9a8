# What TF 2.15 names moving averages made inside scopes (run with /work/tfenv/bin/python);
# its output is pinned in tests/core/test_moving_averages.py.
import tensorflow as tf

v1 = tf.compat.v1
with tf.Graph().as_default():
    v = v1.get_variable("v", [1])
    with v1.variable_scope("outer"):
        w = v1.get_variable("w", [1])
        ema = v1.train.ExponentialMovingAverage(0.9)
        ema.apply([v, w])
    print(ema.average(v).name, ema.average(w).name, ema.average_name(v))
    with v1.name_scope("ns"):
        ema2 = v1.train.ExponentialMovingAverage(0.9, name="e2")
        ema2.apply([v])
    print(ema2.average(v).name, ema2.average_name(v))
    with v1.variable_scope("vs2"):
        ema3 = v1.train.ExponentialMovingAverage(0.9, name="e3")
    ema3.apply([v])
    print(ema3.average(v).name)
# eager
v = tf.Variable([1.0], name="v")
ema = tf.train.ExponentialMovingAverage(0.9)
with tf.name_scope("outer"):
    ema.apply([v])
print("eager", ema.average(v).name)
