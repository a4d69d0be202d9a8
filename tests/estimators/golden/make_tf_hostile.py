"""Make the model_dirs in ``tf_hostile/`` with TensorFlow's own ``SaveV2``, so the takeover
tests read tensors exactly as TF stores them:

- ``string_kernel``: TF's ``custom_adam`` model_dir (``tf_takeover/``) with
  ``hidden/kernel`` replaced by a string tensor of the same shape;
- ``split_slots`` and ``overlapping_slots``: TF's ``v1_linear_ftrl`` with the Ftrl slot
  ``linear/linear_model/x/weights/part_0/Ftrl`` (shape ``[3, 1]``) saved as two TF 1.x
  partitions, ``part_0`` and ``part_1``, each a slice of the whole: rows 0-1 and row 2
  (they tile it), or rows 0-1 and row 0 again (their sizes add up to 3, yet row 2 is
  missing and row 0 given twice).

Not run by the tests (they read the committed files). Regenerate with a Python that has
``tensorflow-cpu==2.15.1``::

    /tmp/tfenv/bin/python tests/estimators/golden/make_tf_hostile.py
"""

import os
import shutil

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
SLOT = "linear/linear_model/x/weights/part_0/Ftrl"


def save(source, target, step, replace):
    """Copy checkpoint ``source`` into model_dir ``target`` as ``model.ckpt-<step>``,
    each tensor through ``replace(name, value) -> [(name, slice spec, value)]``."""
    reader = tf.train.load_checkpoint(source)
    names, specs, tensors = [], [], []
    for name in sorted(reader.get_variable_to_shape_map()):
        for saved, spec, value in replace(name, reader.get_tensor(name)):
            names.append(saved)
            specs.append(spec)
            tensors.append(tf.constant(value))
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    prefix = os.path.join(target, f"model.ckpt-{step}")
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=specs, tensors=tensors)
    with open(os.path.join(target, "checkpoint"), "w") as f:
        f.write(f'model_checkpoint_path: "model.ckpt-{step}"\n')
        f.write(f'all_model_checkpoint_paths: "model.ckpt-{step}"\n')
    return tf.train.load_checkpoint(prefix)


def string_kernel(name, value):
    if name == "hidden/kernel":
        value = np.full(value.shape, b"0.5", dtype=object)
    return [(name, "", value)]


def partitioned(second_rows):
    def replace(name, value):
        if name != SLOT:
            return [(name, "", value)]
        part_1 = name.replace("part_0", "part_1")
        first, second = value[0:2], value[second_rows]
        spec_1 = f"3 1 {second_rows.start},{second_rows.stop - second_rows.start}:-"
        return [(name, "3 1 0,2:-", first), (part_1, spec_1, second)]

    return replace


def main():
    takeover = os.path.join(HERE, "tf_takeover")
    hostile = os.path.join(HERE, "tf_hostile")
    back = save(
        os.path.join(takeover, "custom_adam", "model.ckpt-20"),
        os.path.join(hostile, "string_kernel"),
        20,
        string_kernel,
    )
    assert back.get_variable_to_dtype_map()["hidden/kernel"] == tf.string
    source = tf.train.latest_checkpoint(os.path.join(takeover, "v1_linear_ftrl"))
    step = int(source.rpartition("-")[2])
    for name, rows in [("split_slots", slice(2, 3)), ("overlapping_slots", slice(0, 1))]:
        save(source, os.path.join(hostile, name), step, partitioned(rows))


if __name__ == "__main__":
    main()
