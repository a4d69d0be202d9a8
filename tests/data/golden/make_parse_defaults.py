"""Make parse_defaults.json: what TF 2.15's ``tf.io.parse_example`` and
``parse_single_example`` give (or that they raise) for a ``FixedLenFeature`` default
when the feature is missing (issue 38), for the cases of
tests/data/test_parse_defaults.py. Run with TensorFlow in a throw-away venv:

    /tmp/tfenv/bin/python tests/data/golden/make_parse_defaults.py
"""

import json
import os

import tensorflow as tf

# (shape, dtype, default_value): scalar and shaped defaults, nested or flat, and the
# ones TF refuses (a default that does not hold exactly prod(shape) values)
CASES = [
    ([], "float32", 11.0),
    ([2], "float32", [1.0, 2.0]),
    ([2], "float32", [[1.0, 2.0]]),
    ([1], "float32", 11.0),
    ([2, 1], "float32", [1.0, 2.0]),
    ([2, 1], "float32", [[1.0], [2.0]]),
    ([3], "int64", [7, 8, 9]),
    ([2], "string", ["a", "b"]),
    ([2], "float32", 11.0),
    ([2, 2], "float32", 3.0),
    ([2, 2], "float32", [1.0, 2.0]),
    ([2], "float32", [1.0, 2.0, 3.0]),
    ([], "float32", [1.0, 2.0]),
    ([3], "int64", 7),
    ([2], "string", "a"),
    ([0], "float32", 11.0),
]
DTYPES = {"float32": tf.float32, "int64": tf.int64, "string": tf.string}


def missing() -> bytes:
    """A tf.Example without the feature ``x``."""
    other = tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))
    return tf.train.Example(
        features=tf.train.Features(feature={"other": other})
    ).SerializeToString()


def outcome(parse):
    try:
        value = parse().numpy()
    except (tf.errors.InvalidArgumentError, ValueError) as err:
        message = str(err).splitlines()[0]
        return {"raises": type(err).__name__, "message": message[message.find("}}") + 3 :]}
    if value.dtype == object:
        value = value.astype(str)
    return {"value": value.tolist()}


def numeric_column_spec():
    """TF's feature_column_v2_test ``test_parse_example_with_default_value``, with a
    bucketized column of a second numeric column beside it."""
    fc = tf.feature_column
    price = fc.numeric_column("price", shape=[2], default_value=11.0)
    age = fc.bucketized_column(fc.numeric_column("age", default_value=30.0), [18.0, 65.0])
    spec = fc.make_parse_example_spec([price, age])
    floats = tf.train.Feature(float_list=tf.train.FloatList(value=[20.0, 110.0]))
    data = tf.train.Example(features=tf.train.Features(feature={"price": floats}))
    no_data = tf.train.Example(features=tf.train.Features(feature={"something_else": floats}))
    parsed = tf.io.parse_example([data.SerializeToString(), no_data.SerializeToString()], spec)
    return {key: value.numpy().tolist() for key, value in sorted(parsed.items())}


def main():
    record = missing()
    out = []
    for shape, dtype, default in CASES:
        feature = {"x": tf.io.FixedLenFeature(shape, DTYPES[dtype], default_value=default)}
        out.append(
            {
                "shape": shape,
                "dtype": dtype,
                "default_value": default,
                "parse_example": outcome(
                    lambda f=feature: tf.io.parse_example([record, record], f)["x"]
                ),
                "parse_single_example": outcome(
                    lambda f=feature: tf.io.parse_single_example(record, f)["x"]
                ),
            }
        )
    out.append({"numeric_column": numeric_column_spec()})
    path = os.path.join(os.path.dirname(__file__), "parse_defaults.json")
    with open(path, "w") as f:
        f.write(f'{{"tensorflow": "{tf.__version__}", "cases": [\n')
        f.write(",\n".join(json.dumps(case) for case in out))
        f.write("\n]}\n")


if __name__ == "__main__":
    main()
