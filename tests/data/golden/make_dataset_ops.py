"""Make dataset_ops.json: the elements TF 2.15's tf.data gives for the pipelines of
tests/data/test_dataset_ops_golden.py (from_generator, padded_batch, interleave,
map_and_batch), or the error it raises. Run with TensorFlow in a throw-away venv:

    python tests/data/golden/make_dataset_ops.py

Each case is a pipeline written once in TF here and once in colonnade in the test; an
element is written as ``{component: nested list}`` (a ``(features, labels)`` element as
the features with the labels under ``"label"``).
"""

import json
import os

import numpy as np
import tensorflow as tf


def plain(value):
    value = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if value.dtype == object or value.dtype.kind == "S":
        return np.vectorize(lambda b: b.decode(), otypes=[object])(value.astype(object)).tolist()
    return value.tolist()


def element(item):
    if isinstance(item, tuple):
        features, labels = item
        out = {k: plain(v) for k, v in features.items()}
        out["label"] = plain(labels)
        return out
    return {k: plain(v) for k, v in item.items()}


def run(build):
    try:
        return {"elements": [element(e) for e in build()]}
    except (tf.errors.OpError, ValueError, TypeError) as e:
        return {"error": type(e).__name__, "message": str(e).splitlines()[0][:300]}


def counting(n):
    for i in range(n):
        yield {"x": i, "s": str(i)}


def pairs(n):
    for i in range(int(n)):
        yield {"x": [i, i + 0.5]}, i % 2


RAGGED = [1, 3, 2, 0, 4]


def ragged():
    for n in RAGGED:
        yield {"v": np.arange(n, dtype=np.int64) + 1}


def ragged_pairs():
    for n in RAGGED:
        yield {"v": np.arange(n, dtype=np.int64) + 1, "w": ["t"] * n}, n


def wrong_shape():
    yield {"x": [1, 2]}
    yield {"x": [1, 2, 3]}


def gen(fn, **kwargs):
    return tf.data.Dataset.from_generator(fn, **kwargs)


RAGGED_TYPES = {"output_types": {"v": tf.int64}, "output_shapes": {"v": [None]}}
PAIR_SIG = (
    {"v": tf.TensorSpec([None], tf.int64), "w": tf.TensorSpec([None], tf.string)},
    tf.TensorSpec([], tf.int64),
)

GENERATOR = {
    "dicts": lambda: gen(lambda: counting(5), output_types={"x": tf.int64, "s": tf.string}).batch(
        2
    ),
    "pairs_args_signature": lambda: gen(
        pairs,
        args=(3,),
        output_signature=({"x": tf.TensorSpec([2], tf.float32)}, tf.TensorSpec([], tf.int64)),
    ).batch(2),
    "shapes_checked": lambda: gen(
        wrong_shape, output_types={"x": tf.int64}, output_shapes={"x": [2]}
    ),
    "repeat_calls_again": lambda: gen(
        lambda: counting(2), output_types={"x": tf.int64, "s": tf.string}
    ).repeat(2),
}

PADDED = {
    "ragged": lambda: gen(ragged, **RAGGED_TYPES).padded_batch(2),
    "shapes_values_drop": lambda: gen(ragged, **RAGGED_TYPES).padded_batch(
        2, padded_shapes={"v": [5]}, padding_values={"v": np.int64(-1)}, drop_remainder=True
    ),
    "pairs_strings": lambda: gen(ragged_pairs, output_signature=PAIR_SIG).padded_batch(
        3, padding_values=({"v": np.int64(9), "w": "?"}, np.int64(0))
    ),
    "shape_too_small": lambda: gen(ragged, **RAGGED_TYPES).padded_batch(
        5, padded_shapes={"v": [2]}
    ),
    "dict_of_slices": lambda: (
        tf.data.Dataset.from_tensor_slices({"n": [2, 0, 1]})
        .map(lambda e: {"n": e["n"], "r": tf.fill([e["n"]], e["n"])})
        .padded_batch(3)
    ),
}


def sub(e):
    k = tf.cast(e["k"], tf.int64)
    return tf.data.Dataset.range(k + 1).map(lambda i: {"v": k * 10 + i})


INTERLEAVE = {}
for cycle, block in [(1, 1), (2, 1), (2, 3), (3, 2), (4, 1), (6, 2)]:
    INTERLEAVE[f"cycle{cycle}_block{block}"] = lambda c=cycle, b=block: (
        tf.data.Dataset.from_tensor_slices({"k": [0, 1, 2, 3, 4]})
        .interleave(sub, cycle_length=c, block_length=b)
        .batch(100)
    )
INTERLEAVE["parallel_deterministic"] = lambda: (
    tf.data.Dataset.from_tensor_slices({"k": [3, 0, 2, 1]})
    .interleave(sub, cycle_length=2, block_length=2, num_parallel_calls=2, deterministic=True)
    .batch(100)
)

MAP_AND_BATCH = {
    "remainder": lambda: tf.data.Dataset.from_tensor_slices({"x": list(range(7))}).apply(
        tf.data.experimental.map_and_batch(lambda f: {"y": f["x"] * 2}, 3)
    ),
    "drop_remainder": lambda: tf.data.Dataset.from_tensor_slices({"x": list(range(7))}).apply(
        tf.data.experimental.map_and_batch(
            lambda f: {"y": f["x"] + 1}, 2, num_parallel_calls=2, drop_remainder=True
        )
    ),
    "pairs": lambda: tf.data.Dataset.from_tensor_slices({"x": [1, 2, 3], "t": [0, 1, 1]}).apply(
        tf.data.experimental.map_and_batch(lambda f: (f, f.pop("t")), 2)
    ),
    "both_parallel_arguments": lambda: tf.data.Dataset.from_tensor_slices({"x": [1]}).apply(
        tf.data.experimental.map_and_batch(
            lambda f: f, 1, num_parallel_batches=1, num_parallel_calls=1
        )
    ),
}


RECORD_FILES = [6, 4, 2]  # records per file


def record_files():
    """Files whose record ``j`` of file ``i`` is ``b"f{i}r{j}"``, in a fresh folder."""
    import tempfile

    folder = tempfile.mkdtemp()
    paths = []
    for i, count in enumerate(RECORD_FILES):
        path = os.path.join(folder, f"f{i}.tfrecord")
        with tf.io.TFRecordWriter(path) as writer:
            for j in range(count):
                writer.write(f"f{i}r{j}".encode())
        paths.append(path)
    return paths


def records(ds):
    return {"elements": [e.numpy().decode() for e in ds]}


def tfrecord_cases():
    paths = record_files()
    out = {}
    for reads in (1, 2, 3):
        out[f"parallel_reads_{reads}"] = records(
            tf.data.TFRecordDataset(paths, num_parallel_reads=reads)
        )
    out["interleave_cycle2_block3"] = records(
        tf.data.Dataset.from_tensor_slices(paths).interleave(
            tf.data.TFRecordDataset, cycle_length=2, block_length=3
        )
    )
    return out


def main():
    out = {"tensorflow": tf.__version__, "tfrecord": tfrecord_cases()}
    for group, cases in [
        ("from_generator", GENERATOR),
        ("padded_batch", PADDED),
        ("interleave", INTERLEAVE),
        ("map_and_batch", MAP_AND_BATCH),
    ]:
        out[group] = {name: run(build) for name, build in cases.items()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dataset_ops.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
