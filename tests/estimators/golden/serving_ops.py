"""Each op of the serving graph's set once, written against a ``tf`` module given as an
argument: TF 2.15's (``make_serving_transform.py`` runs it to make the golden) or
``colonnade.compat.v1`` (``test_serving_receiver.py`` compares with the golden)."""


def every_op(tf, x, n, s):
    return {
        "arith": (x + 1.0) * 2.0 - x / 4.0,
        "floordiv": x // 2.0,
        "int_floordiv": n // 3,
        "int_truediv": n / 2,
        "pow": x**2.0,
        "neg": -x,
        "abs": tf.abs(x),
        "exp": tf.exp(x),
        "sqrt": tf.sqrt(tf.abs(x)),
        "log": tf.math.log(tf.abs(x) + 1.0),
        "minmax": tf.minimum(tf.maximum(x, 0.5), 5.0),
        "clip": tf.clip_by_value(x, -1.0, 2.0),
        "where": tf.where(x > 0.5, x, -x),
        "less_equal": tf.cast(x <= 1.0, tf.float32),
        "cast_int": tf.cast(x, tf.int64),
        "expand": tf.expand_dims(x, -1),
        "reshape": tf.reshape(tf.expand_dims(x, -1), [-1, 1]),
        "upper": tf.strings.upper(s),
        "strip": tf.strings.strip(s),
        "substr": tf.strings.substr(s, 1, 2),
        "as_string": tf.strings.as_string(x),
        "as_string_int": tf.strings.as_string(n),
        "to_number": tf.strings.to_number(tf.strings.as_string(x)) + 1.0,
    }
