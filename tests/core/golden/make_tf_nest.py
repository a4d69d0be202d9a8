# What TF 2.15's tf.nest does on the cases tests/core/test_nest.py pins (run with
# /work/tfenv/bin/python).
import collections

import tensorflow as tf

Point = collections.namedtuple("Point", "x y")
print(tf.nest.flatten({"b": (1, 2), "a": [3, {"d": 4, "c": None}]}))
print(tf.nest.flatten("ab"), tf.nest.flatten(None), tf.nest.flatten(Point(1, [2, 3])))
print(tf.nest.pack_sequence_as({"b": (0, 0), "a": [0]}, [30, 10, 20]))
print(tf.nest.pack_sequence_as(Point(0, [0, 0]), [1, 2, 3]))
print(tf.nest.map_structure(lambda x, y: x + y, (1, [2]), (10, [20])))
print([tf.nest.is_nested(v) for v in ([1], (), {}, "s", None, Point(1, 2), 3)])
for a, b, kw in [
    ((1, 2), [1, 2], {}),
    ((1, 2), [1, 2], {"check_types": False}),
    ((1, 2), (1, 2, 3), {}),
    ({"a": 1}, {"b": 1}, {}),
    ((1, (2,)), (1, 2), {}),
]:
    try:
        tf.nest.assert_same_structure(a, b, **kw)
        print("ok")
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__)
try:
    tf.nest.pack_sequence_as((0, 0), [1])
except Exception as e:  # noqa: BLE001
    print(type(e).__name__)
