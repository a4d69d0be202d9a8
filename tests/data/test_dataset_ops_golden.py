"""``from_generator``, ``padded_batch``, ``interleave`` and ``map_and_batch`` against the
elements TF 2.15's tf.data gives for the same pipelines (golden/dataset_ops.json, made by
golden/make_dataset_ops.py, which writes each pipeline in TF)."""

import json
import os

import numpy as np
import pytest

import colonnade as cn

D = cn.data.Dataset
GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden", "dataset_ops.json")))


def element(item):
    if isinstance(item, tuple):
        features, labels = item
        out = features.to_pydict()
        out["label"] = labels.tolist()
        return out
    return item.to_pydict()


def elements(ds):
    return [element(e) for e in ds]


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


class Spec:
    """What TF's TensorSpec is to from_generator: a dtype and a shape."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


RAGGED_TYPES = {"output_types": {"v": "int64"}, "output_shapes": {"v": [None]}}
PAIR_SIG = ({"v": Spec([None], "int64"), "w": Spec([None], "string")}, Spec([], "int64"))

GENERATOR = {
    "dicts": lambda: D.from_generator(
        lambda: counting(5), output_types={"x": "int64", "s": "string"}
    ).batch(2),
    "pairs_args_signature": lambda: D.from_generator(
        pairs,
        args=(3,),
        output_signature=({"x": Spec([2], cn.float32)}, Spec([], cn.int64)),
    ).batch(2),
    "shapes_checked": lambda: D.from_generator(
        wrong_shape, output_types={"x": "int64"}, output_shapes={"x": [2]}
    ),
    "repeat_calls_again": lambda: D.from_generator(
        lambda: counting(2), output_types={"x": "int64", "s": "string"}
    ).repeat(2),
}

PADDED = {
    "ragged": lambda: D.from_generator(ragged, **RAGGED_TYPES).padded_batch(2),
    "shapes_values_drop": lambda: D.from_generator(ragged, **RAGGED_TYPES).padded_batch(
        2, padded_shapes={"v": [5]}, padding_values={"v": -1}, drop_remainder=True
    ),
    "pairs_strings": lambda: D.from_generator(ragged_pairs, output_signature=PAIR_SIG).padded_batch(
        3, padding_values=({"v": 9, "w": "?"}, 0)
    ),
    "shape_too_small": lambda: D.from_generator(ragged, **RAGGED_TYPES).padded_batch(
        5, padded_shapes={"v": [2]}
    ),
    "dict_of_slices": lambda: (
        D.from_tensor_slices({"n": [2, 0, 1]})
        .map(lambda e: {"n": e["n"], "r": [np.full(n, n) for n in e["n"]]})
        .padded_batch(3)
    ),
}


def sub(e):
    k = int(e["k"])
    return D.from_tensor_slices({"v": k * 10 + np.arange(k + 1)})


INTERLEAVE = {}
for cycle, block in [(1, 1), (2, 1), (2, 3), (3, 2), (4, 1), (6, 2)]:
    INTERLEAVE[f"cycle{cycle}_block{block}"] = lambda c=cycle, b=block: (
        D.from_tensor_slices({"k": [0, 1, 2, 3, 4]})
        .interleave(sub, cycle_length=c, block_length=b)
        .batch(100)
    )
INTERLEAVE["parallel_deterministic"] = lambda: (
    D.from_tensor_slices({"k": [3, 0, 2, 1]})
    .interleave(sub, cycle_length=2, block_length=2, num_parallel_calls=2, deterministic=True)
    .batch(100)
)

map_and_batch = cn.compat.v1.data.experimental.map_and_batch
MAP_AND_BATCH = {
    "remainder": lambda: D.from_tensor_slices({"x": list(range(7))}).apply(
        map_and_batch(lambda f: {"y": f["x"] * 2}, 3)
    ),
    "drop_remainder": lambda: D.from_tensor_slices({"x": list(range(7))}).apply(
        map_and_batch(lambda f: {"y": f["x"] + 1}, 2, num_parallel_calls=2, drop_remainder=True)
    ),
    "pairs": lambda: D.from_tensor_slices({"x": [1, 2, 3], "t": [0, 1, 1]}).apply(
        map_and_batch(lambda f: (f, f.pop("t")), 2)
    ),
    "both_parallel_arguments": lambda: D.from_tensor_slices({"x": [1]}).apply(
        map_and_batch(lambda f: f, 1, num_parallel_batches=1, num_parallel_calls=1)
    ),
}

CASES = [
    (group, name, build)
    for group, cases in [
        ("from_generator", GENERATOR),
        ("padded_batch", PADDED),
        ("interleave", INTERLEAVE),
        ("map_and_batch", MAP_AND_BATCH),
    ]
    for name, build in cases.items()
]

# TF's message, and the words of colonnade's clear error for the same case.
ERRORS = {
    "shapes_checked": "element of shape \\(3,\\) where an element of shape \\(2,\\) was expected",
    "shape_too_small": "padded shape \\[2\\] is smaller than an element of length 4",
    "both_parallel_arguments": "only one of num_parallel_batches and num_parallel_calls",
}


@pytest.mark.parametrize("group, name, build", CASES, ids=[f"{g}-{n}" for g, n, _ in CASES])
def test_elements_are_tfs(group, name, build):
    expected = GOLDEN[group][name]
    if "error" in expected:
        with pytest.raises(ValueError, match=ERRORS[name]):
            elements(build())
        return
    if name == "repeat_calls_again":  # TF's unbatched elements: one-row batches here
        got = [{k: v[0] for k, v in e.items()} for e in elements(build().batch(1))]
    else:
        got = elements(build())
    assert got == expected["elements"]


RECORD_FILES = [6, 4, 2]


@pytest.fixture(scope="module")
def record_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    paths = []
    for i, count in enumerate(RECORD_FILES):
        path = str(folder / f"f{i}.tfrecord")
        with cn.io.TFRecordWriter(path) as writer:
            for j in range(count):
                writer.write(f"f{i}r{j}".encode())
        paths.append(path)
    return paths


def _records(ds):
    return [r.decode() for r in ds.to_table().column("record").to_pylist()]


@pytest.mark.parametrize("reads", [1, 2, 3])
def test_parallel_reads_interleave_files_as_tf(record_files, reads):
    ds = cn.data.TFRecordDataset(record_files, num_parallel_reads=reads)
    assert _records(ds) == GOLDEN["tfrecord"][f"parallel_reads_{reads}"]["elements"]


def test_interleave_of_record_files_as_tf(record_files):
    files = D.from_tensor_slices({"filename": record_files})
    ds = files.interleave(
        lambda e: cn.data.TFRecordDataset(e["filename"]), cycle_length=2, block_length=3
    )
    assert _records(ds) == GOLDEN["tfrecord"]["interleave_cycle2_block3"]["elements"]
