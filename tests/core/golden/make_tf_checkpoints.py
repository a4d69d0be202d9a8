"""Make the TensorFlow checkpoint fixtures in ``tf_checkpoints/`` with real TensorFlow.

Not run by the tests (they read the committed files). Regenerate with a Python that has
``tensorflow-cpu==2.15.1`` installed, outside colonnade's environment::

    python3 -m venv /tmp/tfenv2 && /tmp/tfenv2/bin/pip install tensorflow-cpu==2.15.1
    /tmp/tfenv2/bin/python tests/core/golden/make_tf_checkpoints.py

It writes two checkpoint directories, each with TF's ``checkpoint`` state file:

- ``tf2/``: a TF 2.x object-based ``tf.train.Checkpoint`` (``ckpt-1``) of a float32
  matrix, a float64 vector, an int32 and an int64 scalar, a bool, a float16 vector, a
  string tensor (empty string, NUL byte and UTF-8 included) and a nested module's kernel;
- ``tf1/``: a TF 1.x graph-mode ``tf.compat.v1.train.Saver`` checkpoint at steps 1 and 2
  (``model.ckpt-1``, ``model.ckpt-2``) of a small model with a ``fixed_size_partitioner(3)``
  embedding, a dense layer, Adagrad accumulators (the embedding's partitioned as well) and
  ``global_step``.

For every checkpoint ``expected.json`` records what TF's own readers report:
``tf.train.list_variables`` (names and shapes, in TF's order) and each variable's dtype;
``expected.npz`` holds every numeric value from ``tf.train.load_variable``, and string
values are stored in ``expected.json`` as hex.
"""

import json
import os
import shutil

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tf_checkpoints")


def record(prefix, expected):
    """Add TF's view of checkpoint ``prefix`` to ``expected`` (and return the arrays)."""
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    listed = tf.train.list_variables(prefix)
    variables, arrays = [], {}
    for i, (name, shape) in enumerate(listed):
        value = np.asarray(tf.train.load_variable(prefix, name))
        item = {"name": name, "shape": list(shape), "dtype": dtypes[name].name}
        if dtypes[name] == tf.string:  # hex, so any byte survives (NULs included)
            item["hex"] = [bytes(b).hex() for b in value.reshape(-1)]
        else:
            item["npz_key"] = f"v{len(expected) * 1000 + i}"
            arrays[item["npz_key"]] = value
        variables.append(item)
    expected[os.path.basename(prefix)] = variables
    return arrays


def make_tf2(directory):
    module = tf.Module()
    module.layer = tf.Module()
    module.layer.kernel = tf.Variable([[0.5, -1.5], [2.25, 3.0]], dtype=tf.float32)
    ckpt = tf.train.Checkpoint(
        matrix=tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4) / 7.0),
        vector64=tf.Variable(np.array([1 / 3, -2.5e-300, 1e300])),
        count32=tf.Variable(np.int32(-7)),
        step=tf.Variable(np.int64(2**40 + 3)),
        flag=tf.Variable(True),
        half=tf.Variable(np.array([0.5, -2.0, 65504.0], np.float16)),
        words=tf.Variable([[b"alpha", b""], [b"gamma\x00delta", "\u00e9t\u00e9".encode()]]),
        model=module,
    )
    return ckpt.save(os.path.join(directory, "ckpt"))


def make_tf1(directory):
    v1 = tf.compat.v1
    prefixes = []
    with tf.Graph().as_default():
        v1.set_random_seed(1)
        global_step = v1.train.get_or_create_global_step()
        ids = v1.constant([0, 3, 3, 9])
        with v1.variable_scope("dnn"):
            embedding = v1.get_variable(
                "embedding",
                shape=[10, 4],
                partitioner=v1.fixed_size_partitioner(3),
                initializer=v1.random_normal_initializer(seed=2),
            )
            kernel = v1.get_variable(
                "hiddenlayer_0/kernel", [4, 2], initializer=v1.glorot_uniform_initializer(seed=3)
            )
            bias = v1.get_variable("hiddenlayer_0/bias", [2], initializer=v1.zeros_initializer())
        rows = tf.nn.embedding_lookup(embedding, ids)
        loss = tf.reduce_sum(tf.square(tf.matmul(rows, kernel) + bias - 1.0))
        train_op = v1.train.AdagradOptimizer(0.1).minimize(loss, global_step=global_step)
        saver = v1.train.Saver(max_to_keep=2, save_relative_paths=True)
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())
            for _ in range(2):
                session.run(train_op)
                prefixes.append(
                    saver.save(
                        session,
                        os.path.join(directory, "model.ckpt"),
                        global_step=global_step,
                        write_meta_graph=False,
                    )
                )
    return prefixes


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    for name, make in [("tf2", make_tf2), ("tf1", make_tf1)]:
        directory = os.path.join(OUT, name)
        os.makedirs(directory)
        made = make(directory)
        prefixes = made if isinstance(made, list) else [made]
        case, arrays = {}, {}
        for prefix in prefixes:
            arrays.update(record(prefix, case))
        latest = tf.train.latest_checkpoint(directory)
        meta = {
            "tensorflow_version": tf.__version__,
            "latest_checkpoint": os.path.basename(latest),
            "checkpoints": case,
        }
        with open(os.path.join(directory, "expected.json"), "w") as f:
            json.dump(meta, f, indent=1, sort_keys=True)
            f.write("\n")
        np.savez(os.path.join(directory, "expected.npz"), **arrays)
    for root, _, files in os.walk(OUT):
        for file in sorted(files):
            print(
                os.path.relpath(os.path.join(root, file), OUT),
                os.path.getsize(os.path.join(root, file)),
            )


if __name__ == "__main__":
    main()
